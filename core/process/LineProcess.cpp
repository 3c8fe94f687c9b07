#include "process/LineProcess.h"

#include "protocol/Codec.h"
#include "protocol/Protocol.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace loopscope {

namespace {

constexpr std::size_t kLogBytes = 4096;

const char* signalName(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    default: return "a signal";
    }
}

} // namespace

std::unique_ptr<LineProcess> LineProcess::start(const std::vector<std::string>& argv,
                                                const std::vector<std::string>& environment,
                                                std::string* why)
{
    if (argv.empty() || argv.front().empty()) {
        *why = "no program to start";
        return nullptr;
    }
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0) {
        *why = std::string("cannot make pipes: ") + std::strerror(errno);
        return nullptr;
    }
    if (::pipe2(out, O_CLOEXEC) != 0) {
        *why = std::string("cannot make pipes: ") + std::strerror(errno);
        ::close(in[0]);
        ::close(in[1]);
        return nullptr;
    }
    if (::pipe2(err, O_CLOEXEC) != 0) {
        *why = std::string("cannot make pipes: ") + std::strerror(errno);
        for (int fd : {in[0], in[1], out[0], out[1]})
            ::close(fd);
        return nullptr;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        env.emplace_back(*e);
    env.insert(env.end(), environment.begin(), environment.end());
    std::vector<char*> envp;
    for (auto& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = argv;
    std::vector<char*> argp;
    for (auto& a : args)
        argp.push_back(a.data());
    argp.push_back(nullptr);
    // A process group of its own: a command's helpers (the shell, ssh, srun and what they start
    // here) stop with it, and a Ctrl-C meant for this program is not theirs.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    pid_t pid = -1;
    const int rc =
        posix_spawn(&pid, args.front().c_str(), &actions, &attributes, argp.data(), envp.data());
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(in[1]);
        ::close(out[0]);
        ::close(err[0]);
        *why = "cannot start " + args.front() + ": " + std::strerror(rc);
        return nullptr;
    }
    std::unique_ptr<LineProcess> p(new LineProcess);
    p->m_pid = pid;
    p->m_group = pid;
    p->m_in = in[1];
    p->m_out = out[0];
    p->m_err = err[0];
    ::fcntl(p->m_err, F_SETFL, O_NONBLOCK);
    return p;
}

LineProcess::~LineProcess()
{
    // Its input closed, a worker ends by itself; what is still running of its group is asked to
    // stop (srun passes that on to the job step, ssh's end closes the far side) and, after a
    // moment, killed.
    for (int fd : {m_in, m_out, m_err})
        if (fd >= 0) ::close(fd);
    if (m_group <= 0) return;
    auto reaped = [this](std::chrono::milliseconds wait) {
        const auto until = std::chrono::steady_clock::now() + wait;
        while (m_pid > 0) {
            int status = 0;
            const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
            if (r == m_pid || (r < 0 && errno != EINTR)) m_pid = -1;
            if (m_pid < 0 || std::chrono::steady_clock::now() >= until) break;
            ::usleep(2000);
        }
        return m_pid < 0;
    };
    if (m_pid > 0 && !reaped(std::chrono::milliseconds(50))) {
        ::kill(-m_group, SIGTERM);
        if (!reaped(std::chrono::milliseconds(500))) {
            ::kill(-m_group, SIGKILL);
            int status = 0;
            ::waitpid(m_pid, &status, 0);
            m_pid = -1;
        }
    }
    // Whatever of its group outlived it.
    ::kill(-m_group, SIGKILL);
}

bool LineProcess::writeLine(const std::string& line)
{
    if (m_in < 0) return false;
    // A process that has gone makes the write fail with EPIPE; the SIGPIPE that comes with it is
    // blocked for the write and taken back, so that it never ends this program.
    sigset_t pipe, old;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &old);
    std::string text = line + "\n";
    const char* p = text.data();
    std::size_t left = text.size();
    bool ok = true;
    while (left > 0) {
        const ssize_t n = ::write(m_in, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ok = false;
            break;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    if (!ok && errno == EPIPE && !sigismember(&old, SIGPIPE)) {
        const timespec now{0, 0};
        while (sigtimedwait(&pipe, nullptr, &now) == SIGPIPE) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return ok;
}

void LineProcess::drainErrors()
{
    char buffer[4096];
    while (true) {
        const ssize_t got = ::read(m_err, buffer, sizeof buffer);
        if (got <= 0) return;
        m_log.append(buffer, static_cast<std::size_t>(got));
        if (m_log.size() > kLogBytes) m_log.erase(0, m_log.size() - kLogBytes);
    }
}

LineProcess::Read LineProcess::readLine(std::string* line,
                                        std::chrono::steady_clock::time_point deadline)
{
    while (true) {
        const auto nl = m_pending.find('\n');
        if (nl != std::string::npos) {
            *line = m_pending.substr(0, nl);
            m_pending.erase(0, nl + 1);
            return Read::Line;
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return Read::TimedOut;
        pollfd fds[2] = {{m_out, POLLIN, 0}, {m_err, POLLIN, 0}};
        const int waitMs =
            static_cast<int>(std::chrono::duration<double, std::milli>(deadline - now).count()) + 1;
        const int n = ::poll(fds, 2, std::min(waitMs, 1000));
        if (n < 0 && errno != EINTR) return Read::Ended;
        if (fds[1].revents & POLLIN) drainErrors();
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            char buffer[65536];
            const ssize_t got = ::read(m_out, buffer, sizeof buffer);
            if (got > 0) {
                m_pending.append(buffer, static_cast<std::size_t>(got));
                continue;
            }
            if (got < 0 && errno == EINTR) continue;
            return Read::Ended;
        }
    }
}

std::string LineProcess::reapEnded(int* signal)
{
    if (m_in >= 0) ::close(m_in);
    m_in = -1;
    int status = 0;
    if (m_pid > 0) ::waitpid(m_pid, &status, 0);
    m_pid = -1;
    drainErrors();
    if (signal) *signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (WIFSIGNALED(status)) return std::string("crashed (") + signalName(WTERMSIG(status)) + ")";
    // Plain exits: LLVM's fatal errors and failed allocations say why on standard error.
    std::string log = m_log;
    while (!log.empty() && (log.back() == '\n' || log.back() == '\r'))
        log.pop_back();
    const auto start = log.find_last_of('\n');
    const std::string last = start == std::string::npos ? log : log.substr(start + 1);
    return "stopped (exit " + std::to_string(WEXITSTATUS(status)) + ")" +
           (last.empty() ? "" : ": " + last);
}

PingAnswer askWhatItIs(LineProcess& process, std::int64_t id, const std::string& peer,
                       std::chrono::seconds wait, const protocol::PingRequest& request)
{
    PingAnswer a;
    std::string line;
    const LineProcess::Read read =
        process.writeLine(protocol::encodeRequest(request, id))
            ? process.readLine(&line, std::chrono::steady_clock::now() + wait)
            : LineProcess::Read::Ended;
    if (read != LineProcess::Read::Line) {
        a.silent = true;
        // A process that hangs is not waited for: only one that has ended says how.
        a.problem = peer + " did not answer (" +
                    (read == LineProcess::Read::Ended
                         ? process.reapEnded()
                         : "nothing within " + std::to_string(wait.count()) + " s") +
                    ")";
        return a;
    }
    try {
        const protocol::Incoming in = protocol::Incoming::parse(line);
        // One of another build refuses this side's ping by its protocol; this side refuses its
        // answer the same way.
        if (in.kind() == protocol::Incoming::Kind::Error) {
            const protocol::ErrorReply e = in.error();
            a.problem = e.message;
            a.otherBuild = e.kind == protocol::ErrorReply::Kind::Protocol;
            return a;
        }
        protocol::PingReply r = in.ping();
        a.problem = protocolMismatch(r.protocol, peer, r.version);
        a.otherBuild = !a.problem.empty();
        if (!a.otherBuild) a.reply = std::move(r);
    } catch (const protocol::ProtocolError& e) {
        a.problem = peer + "'s answer is not understood: " + e.what();
    }
    return a;
}

std::string findProgramBeside(const std::string& selfExecutable, const std::string& name,
                              const std::string& buildFolder, const char* environmentVariable)
{
    namespace fs = std::filesystem;
    if (const char* env = std::getenv(environmentVariable); env && *env) return env;
    std::error_code ec;
    fs::path self = fs::canonical(selfExecutable, ec);
    if (ec) self = fs::path(selfExecutable);
    const fs::path dir = self.parent_path();
    for (const fs::path& candidate : {dir / name, dir / ".." / buildFolder / name,
                                      dir / ".." / "libexec" / "loopscope" / name}) {
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.lexically_normal().string();
    }
    return {};
}

} // namespace loopscope
