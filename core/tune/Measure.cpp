#include "tune/Measure.h"

#include <nlohmann/json.hpp>

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

using json = nlohmann::json;

const char* statusName(MeasureResult::Status s)
{
    switch (s) {
    case MeasureResult::Status::Ok: return "ok";
    case MeasureResult::Status::Wrong: return "wrong";
    case MeasureResult::Status::Error: return "error";
    case MeasureResult::Status::Crashed: return "crashed";
    case MeasureResult::Status::TimedOut: return "timeout";
    }
    return "error";
}

std::string findWorkerExecutable(const std::string& selfExecutable)
{
    namespace fs = std::filesystem;
    if (const char* env = std::getenv("LOOPSCOPE_WORKER"); env && *env) return env;
    std::error_code ec;
    fs::path self = fs::canonical(selfExecutable, ec);
    if (ec) self = fs::path(selfExecutable);
    const fs::path dir = self.parent_path();
    for (const fs::path& candidate :
         {dir / "loopscope-worker", dir / ".." / "worker" / "loopscope-worker",
          dir / ".." / "libexec" / "loopscope" / "loopscope-worker"}) {
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.lexically_normal().string();
    }
    return {};
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

bool WorkerMeasurer::ensureStarted(std::string* why)
{
    if (m_process) return true;
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
    m_process = std::make_unique<Process>();
    m_process->pid = pid;
    m_process->in = in[1];
    m_process->out = out[0];
    m_process->err = err[0];
    ::fcntl(m_process->err, F_SETFL, O_NONBLOCK);
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

MachineInfo WorkerMeasurer::machine()
{
    if (m_haveMachine) return m_machine;
    MeasureRequest ping;
    ping.script.clear();
    std::string why;
    if (!ensureStarted(&why)) return m_machine;
    json request{{"id", m_nextId++}, {"cmd", "ping"}};
    if (!writeAll(m_process->in, request.dump() + "\n")) {
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
        json r = json::parse(line);
        m_machine.cpu = r.value("cpu", "");
        m_machine.features = r.value("features", "");
        m_machine.vectorBits = r.value("vector_bits", 256);
        m_machine.threads = r.value("threads", 1);
        m_machine.llvm = r.value("llvm", "");
        m_haveMachine = true;
    } catch (const json::exception&) {
    }
    return m_machine;
}

MeasureResult WorkerMeasurer::measure(const MeasureRequest& request)
{
    MeasureResult result;
    const auto t0 = std::chrono::steady_clock::now();
    auto finish = [&](MeasureResult r) {
        r.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                       .count();
        return r;
    };
    std::string why;
    if (!ensureStarted(&why)) {
        result.message = why;
        return finish(result);
    }
    const std::int64_t id = m_nextId++;
    json sets = json::object();
    for (auto& [name, value] : request.sets)
        sets[name] = value;
    json r{{"id", id},
           {"cmd", "measure"},
           {"script", request.script},
           {"variant", request.variant},
           {"sets", sets},
           {"threads", request.threads},
           {"repeat", request.repeat},
           {"min_repeat_ms", request.minRepeatMs},
           {"check", true},
           {"time", true}};
    if (request.maxRunMs > 0) r["max_run_ms"] = request.maxRunMs;
    if (request.testingCrash) r["crash"] = true;
    if (!writeAll(m_process->in, r.dump() + "\n")) {
        ++m_restarts;
        stop();
        result.status = MeasureResult::Status::Crashed;
        result.message = "the worker stopped before the candidate was sent";
        return finish(result);
    }

    // Lines until the result for this id, the worker's death or the time limit.
    const auto deadline = t0 + std::chrono::duration<double, std::milli>(request.timeoutMs);
    while (true) {
        auto nl = m_process->pending.find('\n');
        if (nl != std::string::npos) {
            std::string line = m_process->pending.substr(0, nl);
            m_process->pending.erase(0, nl + 1);
            json msg;
            try {
                msg = json::parse(line);
            } catch (const json::exception&) {
                continue;
            }
            if (msg.value("id", std::int64_t{-1}) != id) continue;
            const std::string status = msg.value("status", "");
            if (status == "progress") continue;
            if (status == "ok") {
                result.status = MeasureResult::Status::Ok;
                result.flops = msg.value("flops", 0.0);
                result.lowerMs = msg.value("lower_ms", 0.0);
                result.compileMs = msg.value("compile_ms", 0.0);
                result.runMs = msg.value("run_ms", 0.0);
                result.checked = msg.value("checked", false);
                result.tooSlow = msg.value("too_slow", false);
                if (result.tooSlow) {
                    result.msMedian = result.msMin = result.msMax = result.runMs;
                    result.msPerRun = {result.runMs};
                } else {
                    result.msMedian = msg.value("ms_median", 0.0);
                    result.msMin = msg.value("ms_min", 0.0);
                    result.msMax = msg.value("ms_max", 0.0);
                }
            } else if (status == "wrong") {
                result.status = MeasureResult::Status::Wrong;
                result.message = msg.value("message", "wrong numbers");
                result.flops = msg.value("flops", 0.0);
                result.compileMs = msg.value("compile_ms", 0.0);
            } else {
                result.status = MeasureResult::Status::Error;
                result.message = msg.value("message", "the worker refused the candidate");
            }
            return finish(result);
        }
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) {
            ++m_restarts;
            stop();
            result.status = MeasureResult::Status::TimedOut;
            result.message = "stopped after " +
                             std::to_string(static_cast<long long>(request.timeoutMs / 1000)) +
                             " s";
            return finish(result);
        }
        pollfd fds[2] = {{m_process->out, POLLIN, 0}, {m_process->err, POLLIN, 0}};
        int waitMs =
            static_cast<int>(std::chrono::duration<double, std::milli>(deadline - now).count()) + 1;
        int n = ::poll(fds, 2, std::min(waitMs, 1000));
        if (n < 0 && errno != EINTR) break;
        if (fds[1].revents & POLLIN) {
            char buffer[4096];
            ssize_t got = ::read(m_process->err, buffer, sizeof buffer);
            if (got > 0) {
                m_process->log.append(buffer, static_cast<std::size_t>(got));
                if (m_process->log.size() > 4096)
                    m_process->log.erase(0, m_process->log.size() - 4096);
            }
        }
        if (fds[0].revents & (POLLIN | POLLHUP)) {
            char buffer[65536];
            ssize_t got = ::read(m_process->out, buffer, sizeof buffer);
            if (got > 0) {
                m_process->pending.append(buffer, static_cast<std::size_t>(got));
                continue;
            }
            if (got < 0 && errno == EINTR) continue;
            break; // end of output: the worker is gone
        }
    }
    // The worker died: say how.
    int status = 0;
    pid_t pid = m_process->pid;
    ::close(m_process->in);
    m_process->in = -1;
    ::waitpid(pid, &status, 0);
    m_process->pid = -1;
    std::string log = m_process->log;
    ++m_restarts;
    stop();
    result.status = MeasureResult::Status::Crashed;
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
    return finish(result);
}

} // namespace loopscope
