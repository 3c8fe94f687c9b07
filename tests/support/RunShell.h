// Runs a shell command for the end-to-end tests and captures what it prints.
#pragma once

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace loopscope::testing {

struct RunResult {
    int exitCode = -1;  // -1 when the command could not start or did not exit normally
    std::string output; // its stdout (redirect stderr into it with 2>&1)
};

inline RunResult runShell(const std::string& command)
{
    RunResult r;
    FILE* p = popen(command.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        r.output.append(buf.data(), n);
    int status = pclose(p);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

} // namespace loopscope::testing
