#include "tune/Measure.h"

#include "protocol/Codec.h"
#include "protocol/Protocol.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace loopscope {

protocol::MeasureRequest candidateRequest(const std::string& script, const std::string& variant,
                                          const protocol::Sets& sets, int threads)
{
    protocol::MeasureRequest r;
    r.script = script;
    r.variant = variant;
    r.sets = sets;
    r.threads = threads;
    r.check = true;
    r.time = true;
    r.repeat = 3;
    r.minRepeatMs = 40;
    return r;
}

const char* statusName(MeasureOutcome::Status s)
{
    switch (s) {
    case MeasureOutcome::Status::Ok: return "ok";
    case MeasureOutcome::Status::Wrong: return "wrong";
    case MeasureOutcome::Status::Error: return "error";
    case MeasureOutcome::Status::Crashed: return "crashed";
    case MeasureOutcome::Status::TimedOut: return "timeout";
    }
    return "error";
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

std::string findWorkerExecutable(const std::string& selfExecutable)
{
    return findProgramBeside(selfExecutable, "loopscope-worker", "worker", "LOOPSCOPE_WORKER");
}

struct WorkerMeasurer::Process {
    pid_t pid = -1;
    int in = -1;         // the worker's stdin
    int out = -1;        // its stdout
    int err = -1;        // its stderr
    std::string pending; // bytes of stdout after the last complete line
    std::string log;     // the end of its stderr

    ~Process()
    {
        for (int fd : {in, out, err})
            if (fd >= 0) ::close(fd);
        if (pid > 0) {
            ::kill(pid, SIGKILL);
            int status = 0;
            ::waitpid(pid, &status, 0);
        }
    }
};

WorkerMeasurer::WorkerMeasurer(std::string executable, std::vector<std::string> environment)
    : m_executable(std::move(executable)), m_environment(std::move(environment))
{
}

WorkerMeasurer::~WorkerMeasurer() = default;

void WorkerMeasurer::stop()
{
    m_process.reset();
}

bool WorkerMeasurer::ensureStarted(std::unique_ptr<Process>& slot, std::string* why)
{
    if (slot) return true;
    if (m_executable.empty()) {
        *why = "the worker (loopscope-worker) was not found next to this program";
        return false;
    }
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
        ::pipe2(err, O_CLOEXEC) != 0) {
        *why = std::string("cannot make pipes for the worker: ") + std::strerror(errno);
        return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e)
        env.emplace_back(*e);
    for (auto& e : m_environment)
        env.push_back(e);
    std::vector<char*> envp;
    for (auto& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string exe = m_executable;
    char* argv[] = {exe.data(), nullptr};
    pid_t pid = -1;
    int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(in[1]);
        ::close(out[0]);
        ::close(err[0]);
        *why = "cannot start the worker " + m_executable + ": " + std::strerror(rc);
        return false;
    }
    slot = std::make_unique<Process>();
    slot->pid = pid;
    slot->in = in[1];
    slot->out = out[0];
    slot->err = err[0];
    ::fcntl(slot->err, F_SETFL, O_NONBLOCK);
    return true;
}

namespace {

bool writeAll(int fd, const std::string& text)
{
    const char* p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        ssize_t n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    return true;
}

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

bool WorkerMeasurer::send(Process& process, const protocol::Request& request, std::int64_t id)
{
    return writeAll(process.in, protocol::encodeRequest(request, id) + "\n");
}

MachineInfo WorkerMeasurer::machine()
{
    if (m_haveMachine) return m_machine;
    std::string why;
    if (!ensureStarted(m_process, &why)) return m_machine;
    if (!send(*m_process, protocol::PingRequest{}, m_nextId++)) {
        stop();
        return m_machine;
    }
    std::string line;
    while (true) {
        char buffer[4096];
        ssize_t n = ::read(m_process->out, buffer, sizeof buffer);
        if (n <= 0) {
            stop();
            return m_machine;
        }
        m_process->pending.append(buffer, static_cast<std::size_t>(n));
        auto nl = m_process->pending.find('\n');
        if (nl == std::string::npos) continue;
        line = m_process->pending.substr(0, nl);
        m_process->pending.erase(0, nl + 1);
        break;
    }
    try {
        const protocol::Incoming in = protocol::Incoming::parse(line);
        // A worker of another build: refused (it refuses this side too, by the ping's protocol).
        if (in.kind() == protocol::Incoming::Kind::Error) {
            const protocol::ErrorReply e = in.error();
            if (e.kind == protocol::ErrorReply::Kind::Protocol) m_machine.problem = e.message;
            return m_machine;
        }
        const protocol::PingReply r = in.ping();
        if (std::string mismatch = protocolMismatch(r.protocol, "the worker", r.version);
            !mismatch.empty()) {
            m_machine.problem = mismatch;
            return m_machine;
        }
        m_machine.cpu = r.cpu;
        m_machine.features = r.features;
        m_machine.vectorBits = r.vectorBits > 0 ? r.vectorBits : 256;
        m_machine.threads = r.threads > 0 ? r.threads : 1;
        m_machine.llvm = r.llvmVersion;
        m_haveMachine = true;
    } catch (const protocol::ProtocolError&) {
    }
    return m_machine;
}

namespace {

// The same candidate, compiled alike (what a held one was compiled for).
bool sameCandidate(const protocol::MeasureRequest& a, const protocol::MeasureRequest& b)
{
    return a.script == b.script && a.variant == b.variant && a.sets == b.sets &&
           a.threads == b.threads && a.testing == b.testing;
}

} // namespace

bool WorkerMeasurer::overlapAllowed(const protocol::MeasureRequest& request)
{
    const int cores = machine().threads;
    const int measuring = request.threads > 0 ? request.threads : cores;
    return measuring + 1 <= cores;
}

MeasureOutcome WorkerMeasurer::measureAhead(const protocol::MeasureRequest& request,
                                            const protocol::MeasureRequest* next)
{
    const auto t0 = std::chrono::steady_clock::now();
    // Asked first: asking (a ping) once a request is under way would read its reply.
    const bool ahead = next && overlapAllowed(*next);
    std::int64_t id = -1;
    std::string why;
    if (m_ahead && m_aheadId >= 0 && sameCandidate(m_aheadRequest, request)) {
        // Compiled while the one before was measured: its run starts now, with the parameters
        // of now.
        protocol::GoRequest go;
        go.repeat = request.repeat;
        go.minRepeatMs = request.minRepeatMs;
        go.maxRunMs = request.maxRunMs;
        id = m_aheadId;
        m_aheadId = -1;
        std::swap(m_process, m_ahead);
        ++m_overlapped;
        // A worker that died compiling it fails the write; awaitResult reads why.
        send(*m_process, go, id);
    } else {
        if (m_ahead && m_aheadId >= 0) {
            // A held candidate that is not this one (the search moved on): dropped.
            m_ahead.reset();
            m_aheadId = -1;
        }
        if (!ensureStarted(m_process, &why)) {
            MeasureOutcome result;
            result.message = why;
            return result;
        }
        id = m_nextId++;
        if (!send(*m_process, request, id)) id = -2;
    }
    // The next one compiles in the other worker while this one runs.
    if (ahead && ensureStarted(m_ahead, &why)) {
        m_aheadId = m_nextId++;
        m_aheadRequest = *next;
        protocol::MeasureRequest held = *next;
        held.hold = true;
        if (!send(*m_ahead, held, m_aheadId)) {
            m_ahead.reset();
            m_aheadId = -1;
        }
    }
    MeasureOutcome result;
    if (id == -2) {
        ++m_restarts;
        stop();
        result.status = MeasureOutcome::Status::Crashed;
        result.message = "the worker stopped before the candidate was sent";
    } else {
        result = awaitResult(m_process, id, request);
    }
    result.wallMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return result;
}

MeasureOutcome WorkerMeasurer::measure(const protocol::MeasureRequest& request)
{
    return measureAhead(request, nullptr);
}

MeasureOutcome WorkerMeasurer::awaitResult(std::unique_ptr<Process>& slot, std::int64_t id,
                                           const protocol::MeasureRequest& request)
{
    MeasureOutcome result;
    const auto t0 = std::chrono::steady_clock::now();
    // Lines until the result for this id, the worker's death or the time limit.
    const double timeoutMs = m_timeoutMs + 4 * request.maxRunMs;
    const auto deadline = t0 + std::chrono::duration<double, std::milli>(timeoutMs);
    while (true) {
        auto nl = slot->pending.find('\n');
        if (nl != std::string::npos) {
            std::string line = slot->pending.substr(0, nl);
            slot->pending.erase(0, nl + 1);
            std::optional<protocol::Incoming> in;
            try {
                in = protocol::Incoming::parse(line);
            } catch (const protocol::ProtocolError&) {
                continue;
            }
            if (in->id() != id || in->isProgress()) continue;
            if (in->kind() == protocol::Incoming::Kind::Error) {
                result.status = MeasureOutcome::Status::Error;
                result.message = in->error().message;
                return result;
            }
            const protocol::MeasureReply m = in->measure();
            result.flops = m.flops;
            result.lowerMs = m.lowerMs;
            result.compileMs = m.compileMs;
            if (m.wrong()) {
                result.status = MeasureOutcome::Status::Wrong;
                result.message = m.message.empty() ? "wrong numbers" : m.message;
                return result;
            }
            result.status = MeasureOutcome::Status::Ok;
            result.runMs = m.runMs;
            result.checked = m.checked;
            result.tooSlow = m.tooSlow;
            if (result.tooSlow) {
                result.msMedian = result.msMin = result.msMax = result.runMs;
            } else if (m.timing) {
                result.msMedian = m.timing->msMedian;
                result.msMin = m.timing->msMin;
                result.msMax = m.timing->msMax;
            }
            return result;
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            ++m_restarts;
            slot.reset();
            result.status = MeasureOutcome::Status::TimedOut;
            result.message =
                "stopped after " + std::to_string(static_cast<long long>(timeoutMs / 1000)) + " s";
            return result;
        }
        pollfd fds[2] = {{slot->out, POLLIN, 0}, {slot->err, POLLIN, 0}};
        int waitMs =
            static_cast<int>(std::chrono::duration<double, std::milli>(deadline - now).count()) + 1;
        int n = ::poll(fds, 2, std::min(waitMs, 1000));
        if (n < 0 && errno != EINTR) break;
        if (fds[1].revents & POLLIN) {
            char buffer[4096];
            ssize_t got = ::read(slot->err, buffer, sizeof buffer);
            if (got > 0) {
                slot->log.append(buffer, static_cast<std::size_t>(got));
                if (slot->log.size() > 4096) slot->log.erase(0, slot->log.size() - 4096);
            }
        }
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            char buffer[65536];
            ssize_t got = ::read(slot->out, buffer, sizeof buffer);
            if (got > 0) {
                slot->pending.append(buffer, static_cast<std::size_t>(got));
                continue;
            }
            if (got < 0 && errno == EINTR) continue;
            break; // end of output: the worker is gone
        }
    }
    // The worker died: say how.
    int status = 0;
    pid_t pid = slot->pid;
    ::close(slot->in);
    slot->in = -1;
    ::waitpid(pid, &status, 0);
    slot->pid = -1;
    std::string log = slot->log;
    ++m_restarts;
    slot.reset();
    result.status = MeasureOutcome::Status::Crashed;
    if (WIFSIGNALED(status)) {
        result.message =
            std::string("the generated code crashed (") + signalName(WTERMSIG(status)) + ")";
    } else {
        // Plain exits: LLVM's fatal errors and failed allocations say why on stderr.
        auto start = log.find_last_of('\n', log.size() >= 2 ? log.size() - 2 : 0);
        std::string last = start == std::string::npos ? log : log.substr(start + 1);
        while (!last.empty() && (last.back() == '\n' || last.back() == '\r'))
            last.pop_back();
        result.message = "the worker stopped (exit " + std::to_string(WEXITSTATUS(status)) + ")" +
                         (last.empty() ? "" : ": " + last);
    }
    return result;
}

} // namespace loopscope
