// loopscope-worker: the process the desktop app runs generated code in, so that a crash or an
// endless loop in it never touches the window. Reads one JSON request per line on stdin, writes
// JSON lines on stdout (see RequestHandler.h); stderr is free text for logs. Exits at end of input.
#include "RequestHandler.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

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

} // namespace

int main()
{
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
    int protocol = ::dup(STDOUT_FILENO);
    if (protocol < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        std::cerr << "loopscope-worker: cannot set up its output: " << std::strerror(errno) << "\n";
        return 1;
    }

    const char* testing = std::getenv("LOOPSCOPE_WORKER_TESTING");
    loopscope::worker::HandlerOptions options;
    options.testing = testing && std::string(testing) == "1";
    loopscope::worker::RequestHandler handler(options);
    if (options.testing) std::cerr << "loopscope-worker: testing hooks enabled\n";

    bool readerGone = false;
    auto emit = [&](const nlohmann::json& message) {
        if (!readerGone)
            readerGone = !writeAll(protocol, loopscope::worker::serializeMessage(message) + "\n");
    };
    std::string line;
    while (!readerGone && std::getline(std::cin, line))
        handler.handleLine(line, emit);
    return 0;
}
