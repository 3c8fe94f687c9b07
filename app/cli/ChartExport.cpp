#include "ChartExport.h"

#include "protocol/Json.h"
#include "tune/Measure.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace loopscope {

std::string findChartExecutable(const std::string& selfExecutable)
{
    return findProgramBeside(selfExecutable, "loopscope-chart", "chart", "LOOPSCOPE_CHART");
}

namespace {

// Feeds `input` to the program's stdin while collecting its stderr (both through poll, so a
// program that writes much before reading cannot block either side); its exit status.
int runWithInput(const std::string& exe, const std::string& input, std::string* errors)
{
    int in[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0) return -1;
    if (::pipe2(err, O_CLOEXEC) != 0) {
        ::close(in[0]);
        ::close(in[1]);
        return -1;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    std::string name = exe;
    char* argv[] = {name.data(), nullptr};
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(in[1]);
        ::close(err[0]);
        *errors = std::string("cannot start ") + exe + ": " + std::strerror(rc);
        return -1;
    }
    // A chart program that stops reading early must not kill this process with SIGPIPE.
    struct sigaction ignore {
    }, previous{};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &previous);

    std::size_t written = 0;
    int writeFd = in[1];
    if (input.empty()) {
        ::close(writeFd);
        writeFd = -1;
    }
    char buffer[4096];
    for (int readFd = err[0]; readFd >= 0 || writeFd >= 0;) {
        pollfd fds[2];
        int n = 0;
        if (readFd >= 0) fds[n++] = {readFd, POLLIN, 0};
        if (writeFd >= 0) fds[n++] = {writeFd, POLLOUT, 0};
        if (::poll(fds, n, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (int i = 0; i < n; ++i) {
            if (fds[i].revents == 0) continue;
            if (fds[i].fd == readFd) {
                const ssize_t got = ::read(readFd, buffer, sizeof buffer);
                if (got > 0) {
                    errors->append(buffer, static_cast<std::size_t>(got));
                } else if (got == 0 || errno != EINTR) {
                    ::close(readFd);
                    readFd = -1;
                }
            } else {
                const ssize_t put =
                    ::write(writeFd, input.data() + written, input.size() - written);
                if (put > 0) written += static_cast<std::size_t>(put);
                if ((put < 0 && errno != EINTR && errno != EAGAIN) || written == input.size()) {
                    ::close(writeFd);
                    writeFd = -1;
                }
            }
        }
    }
    if (writeFd >= 0) ::close(writeFd);
    ::sigaction(SIGPIPE, &previous, nullptr);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status)) {
        errors->append(std::string("the chart program ended on signal ") +
                       strsignal(WTERMSIG(status)));
        return 128 + WTERMSIG(status);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

std::string writeSweepChart(const protocol::ChartRequest& request,
                            const std::string& selfExecutable)
{
    const std::string exe = findChartExecutable(selfExecutable);
    if (exe.empty())
        return "cannot draw '" + request.path +
               "': the chart program (loopscope-chart) was not found next to this program";
    std::string errors;
    const int status = runWithInput(exe, protocol::toJson(request).dump(), &errors);
    while (!errors.empty() && errors.back() == '\n')
        errors.pop_back();
    if (status == 0) return {};
    // The chart program's own words ("cannot write 'x.png'"), else what happened to it.
    constexpr std::string_view prefix = "loopscope-chart: ";
    if (errors.rfind(prefix, 0) == 0) errors.erase(0, prefix.size());
    if (errors.empty()) errors = "the chart program failed (exit " + std::to_string(status) + ")";
    return errors;
}

} // namespace loopscope
