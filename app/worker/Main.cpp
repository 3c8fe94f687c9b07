// loopscope-worker: the process the desktop app runs generated code in, so that a crash or an
// endless loop in it never touches the window. Reads one JSON request per line on stdin, writes
// JSON lines on stdout (see RequestHandler.h); stderr is free text for logs. Exits at end of input.
#include "RequestHandler.h"
#include "Version.h"
#include "protocol/Codec.h"
#include "runtime/GpuRun.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <deque>
#include <utility>
#include <variant>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

namespace {

// Writes all of `text` to `fd`; false when the reader is gone.
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

// Lines of the protocol's input, read straight from the descriptor so that a sweep can look for
// lines that came in meanwhile without blocking.
class LineReader {
public:
    explicit LineReader(int fd) : m_fd(fd) {}

    // The next line, waiting for it; false at the end of input.
    bool next(std::string* line)
    {
        while (m_lines.empty() && !m_eof)
            fill(true);
        if (m_lines.empty()) return false;
        *line = std::move(m_lines.front());
        m_lines.pop_front();
        return true;
    }

    // Takes in what has arrived, without waiting.
    void poll() { fill(false); }

    // Takes out the first line for which `match` holds, waiting for one; false at the end of
    // input.
    template <typename Match> bool take(const Match& match, std::string* line)
    {
        while (true) {
            for (auto it = m_lines.begin(); it != m_lines.end(); ++it)
                if (match(*it)) {
                    *line = std::move(*it);
                    m_lines.erase(it);
                    return true;
                }
            if (m_eof) return false;
            fill(true);
        }
    }

    std::deque<std::string>& lines() { return m_lines; }

private:
    void fill(bool wait)
    {
        if (m_eof) return;
        if (!wait) {
            pollfd p{m_fd, POLLIN, 0};
            if (::poll(&p, 1, 0) <= 0) return;
        }
        char buffer[65536];
        ssize_t n = ::read(m_fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) return;
        if (n <= 0) {
            m_eof = true;
            if (!m_partial.empty()) m_lines.push_back(std::exchange(m_partial, {}));
            return;
        }
        m_partial.append(buffer, static_cast<std::size_t>(n));
        std::size_t start = 0, end;
        while ((end = m_partial.find('\n', start)) != std::string::npos) {
            m_lines.push_back(m_partial.substr(start, end - start));
            start = end + 1;
        }
        m_partial.erase(0, start);
    }

    int m_fd;
    std::string m_partial;
    std::deque<std::string> m_lines;
    bool m_eof = false;
};

bool isMeasure(const std::string& line)
{
    try {
        return std::holds_alternative<loopscope::protocol::MeasureRequest>(
            loopscope::protocol::decodeRequest(line).request);
    } catch (const std::exception&) {
        return false;
    }
}

constexpr const char* kUsage =
    "usage: loopscope-worker [--help | --version]\n"
    "\n"
    "The process the Loopscope window runs generated code in: it reads one JSON request per line\n"
    "on standard input and writes JSON lines on standard output, until the end of its input.\n"
    "The window and loopscope-cli start it, here or on another machine through the command\n"
    "given to --runner ('ssh node7 loopscope-worker', 'srun -N1 -n1 loopscope-worker');\n"
    "it takes no options.\n";

} // namespace

int main(int argc, char** argv)
{
    if (argc > 1) {
        std::string a = argv[1];
        if (a == "--help" || a == "-h") {
            std::cout << kUsage;
            return 0;
        }
        if (a == "--version" || a == "-V") {
            std::cout << "loopscope-worker " LOOPSCOPE_VERSION_STRING " (protocol "
                      << loopscope::worker::kProtocolVersion << ")\n";
            return 0;
        }
        std::cerr << "loopscope-worker: unknown option '" << a << "'\n\n" << kUsage;
        return 2;
    }
#ifdef __linux__
    // Go away with the app, even in the middle of a long benchmark.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() == 1) return 0;
#endif
    // A closed pipe ends the loop below instead of killing the process.
    std::signal(SIGPIPE, SIG_IGN);
    // Crashes of generated code are expected here: no core files.
    struct rlimit noCore = {0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);

    // The protocol owns the original stdout; anything else that prints to stdout (a library,
    // generated code) ends up in the log on stderr instead of corrupting the protocol.
    // Close-on-exec, so that a process it starts (the GPU runner) never holds the client's pipe.
    int protocol = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (protocol < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        std::cerr << "loopscope-worker: cannot set up its output: " << std::strerror(errno) << "\n";
        return 1;
    }

    const char* testing = std::getenv("LOOPSCOPE_WORKER_TESTING");
    loopscope::worker::HandlerOptions options;
    options.testing = testing && std::string(testing) == "1";
    // The GPU runner: a command through the shell where one is given (the window's Run >
    // Settings: "ssh gpu1 loopscope-runner"), else the one beside this program.
    if (const char* command = std::getenv("LOOPSCOPE_RUNNER_COMMAND"); command && *command)
        options.gpuRunner = {"/bin/sh", "-c", command};
    else
        options.gpuRunner = {loopscope::GpuRunner::find("/proc/self/exe")};
    loopscope::worker::RequestHandler handler(options);
    if (options.testing) std::cerr << "loopscope-worker: testing hooks enabled\n";

    bool readerGone = false;
    auto emit = [&](const std::string& message) {
        if (!readerGone) readerGone = !writeAll(protocol, message + "\n");
    };
    LineReader input(STDIN_FILENO);
    // Between two points of a sweep: answer the requests that may go between, in the order they
    // came; the others keep their place for after the sweep.
    handler.setBetweenSweepPoints([&] {
        input.poll();
        auto& lines = input.lines();
        for (auto it = lines.begin(); it != lines.end() && !readerGone;) {
            if (!loopscope::worker::RequestHandler::mayGoBetween(*it)) {
                ++it;
                continue;
            }
            std::string line = std::move(*it);
            it = lines.erase(it);
            handler.handleLine(line, emit);
        }
    });
    // A held measurement waits for its "go" (the lines before it keep their place).
    handler.setAwaitGo([&](std::int64_t id) -> std::optional<loopscope::protocol::GoRequest> {
        std::string go;
        const bool found = input.take(
            [id](const std::string& l) {
                return loopscope::worker::RequestHandler::isGo(l) &&
                       loopscope::protocol::peekId(l) == id;
            },
            &go);
        if (!found) return std::nullopt;
        // A bad "go" is the measurement's error (a ProtocolError answered as a bad request).
        return std::get<loopscope::protocol::GoRequest>(
            loopscope::protocol::decodeRequest(go).request);
    });
    // Testing: the first worker of a run to get its second candidate is killed then, as a runner
    // lost to its node or its link (the file named makes it happen once across workers).
    const char* loseOnce =
        options.testing ? std::getenv("LOOPSCOPE_WORKER_TESTING_LOSE_ONCE") : nullptr;
    int candidates = 0;
    std::string line;
    while (!readerGone && input.next(&line)) {
        // A "go" whose measurement is not waiting (it ended before: an error while compiling)
        // has nothing to answer.
        if (loopscope::worker::RequestHandler::isGo(line)) continue;
        if (loseOnce && *loseOnce && isMeasure(line) && ++candidates == 2) {
            const int fd = ::open(loseOnce, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd >= 0) {
                ::close(fd);
                ::raise(SIGKILL);
            }
        }
        handler.handleLine(line, emit);
    }
    return 0;
}
