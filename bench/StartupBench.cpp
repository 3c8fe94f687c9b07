// How fast the command-line tool starts and answers, as a user meets it: whole-process runs of
// loopscope-cli (and, for comparison, the chart program that draws `sweep --chart`), timed from
// spawn to exit, each command in turn (a, b, c, a, b, c, ...) so a slow moment of the machine
// falls on every contender alike. Prints the median, min and max wall time and the largest peak
// memory (maximum resident set) of each.
//
// Usage: loopscope_bench_startup [--runs 30] [--cli PATH] [--chart PATH]
#include "Version.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct Contender {
    std::string label;
    std::vector<std::string> argv;
    std::vector<double> ms;
    long maxRssKb = 0;
    std::string failure;
};

// One whole-process run with stdin, stdout and stderr on /dev/null; false when it did not exit 0.
bool runOnce(Contender& c)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::vector<char*> argv;
    for (std::string& a : c.argv)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        c.failure = std::string("cannot start: ") + std::strerror(rc);
        return false;
    }
    int status = 0;
    rusage usage{};
    while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        c.failure = "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return false;
    }
    c.ms.push_back(ms);
    c.maxRssKb = std::max(c.maxRssKb, usage.ru_maxrss);
    return true;
}

double percentile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

int usage(int code)
{
    std::fprintf(code == 0 ? stdout : stderr,
                 "usage: loopscope_bench_startup [--runs N] [--cli PATH] [--chart PATH]\n"
                 "       loopscope_bench_startup --help | --version\n\n"
                 "times whole-process runs of loopscope-cli commands, in turns\n");
    return code;
}

} // namespace

int main(int argc, char** argv)
{
    int runs = 30;
    const fs::path here = fs::canonical("/proc/self/exe").parent_path();
    std::string cli = (here / ".." / "app" / "loopscope-cli").lexically_normal().string();
    std::string chart = (here / ".." / "app" / "loopscope-chart").lexically_normal().string();
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) std::exit(usage(2));
            return argv[++i];
        };
        if (a == "--help" || a == "-h") return usage(0);
        if (a == "--version") {
            std::printf("loopscope_bench_startup %s\n", LOOPSCOPE_VERSION_STRING);
            return 0;
        }
        if (a == "--runs")
            runs = std::max(1, std::atoi(value().c_str()));
        else if (a == "--cli")
            cli = value();
        else if (a == "--chart")
            chart = value();
        else {
            std::fprintf(stderr, "loopscope_bench_startup: unknown option '%s'\n", a.c_str());
            return usage(2);
        }
    }
    const std::string samples = std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/";
    const std::string object =
        (fs::temp_directory_path() / ("loopscope-startup-" + std::to_string(getpid()) + ".o"))
            .string();
    std::vector<Contender> contenders = {
        {"loopscope-cli --version", {cli, "--version"}},
        {"loopscope-cli sweep --help", {cli, "sweep", "--help"}},
        {"loopscope-cli check opt_gemm.py", {cli, "check", samples + "opt_gemm.py"}},
        {"loopscope-cli lower opt_gemm.py --variant blocking",
         {cli, "lower", samples + "opt_gemm.py", "--variant", "blocking"}},
        {"loopscope-cli export opt_gemm.py blocking obj",
         {cli, "export", samples + "opt_gemm.py", "--variant", "blocking", "--format", "obj", "-o",
          object}},
        {"loopscope-chart --version", {chart, "--version"}},
    };
    for (int r = 0; r < runs; ++r)
        for (Contender& c : contenders)
            if (c.failure.empty()) runOnce(c);
    std::error_code ec;
    fs::remove(object, ec);
    fs::remove(fs::path(object).replace_extension(".h"), ec);

    std::printf("%-52s %9s %9s %9s %10s\n", "whole process (ms)", "median", "min", "max",
                "max RSS");
    for (const Contender& c : contenders) {
        if (!c.failure.empty() && c.ms.empty()) {
            std::printf("%-52s failed: %s\n", c.label.c_str(), c.failure.c_str());
            continue;
        }
        std::printf("%-52s %9.1f %9.1f %9.1f %7.1f MB\n", c.label.c_str(), percentile(c.ms, 0.5),
                    percentile(c.ms, 0), percentile(c.ms, 1),
                    static_cast<double>(c.maxRssKb) / 1024);
    }
    std::printf("%d runs each, in turns\n", runs);
    return 0;
}
