// A helper program spoken to in lines: the worker, the GPU runner, or whatever command a user
// gives for one. Requests are written to its standard input, replies read from its standard
// output one line at a time with a deadline; the end of its standard error is kept to say why it
// stopped. It runs in a process group of its own, which is stopped when this object goes.
#pragma once

#include "protocol/Messages.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace loopscope {

class LineProcess {
public:
    // Starts argv[0] (a path) with `argv`, this process's environment plus `environment`
    // (NAME=VALUE). Null, with `why` set, when it cannot be started.
    static std::unique_ptr<LineProcess> start(const std::vector<std::string>& argv,
                                              const std::vector<std::string>& environment,
                                              std::string* why);
    ~LineProcess();
    LineProcess(const LineProcess&) = delete;
    LineProcess& operator=(const LineProcess&) = delete;

    // False when the process no longer reads its input.
    bool writeLine(const std::string& line);

    enum class Read { Line, TimedOut, Ended };
    // The next line of its output (without the newline), or why there is none by `deadline`.
    Read readLine(std::string* line, std::chrono::steady_clock::time_point deadline);

    // After Read::Ended: waits for the process and says how it ended, as "crashed (SIGSEGV)",
    // "stopped (exit 1): LAST LINE OF STANDARD ERROR" or "stopped (exit 0)"; `signal` receives
    // the signal that ended it (SIGSEGV, SIGKILL, ...), or 0 when it exited.
    std::string reapEnded(int* signal = nullptr);
    const std::string& errorLog() const { return m_log; }

private:
    LineProcess() = default;
    void drainErrors();

    pid_t m_pid = -1;
    pid_t m_group = -1; // its process group (its own)
    int m_in = -1, m_out = -1, m_err = -1;
    std::string m_pending; // output after the last complete line
    std::string m_log;     // the end of its standard error
};

// What a helper program says it is: its answer to "ping" (request `id`), or why there is none:
// no answer (`silent`: it ended, with how, or said nothing within `wait`), an error, an answer
// not understood, or a program of another build (`otherBuild`, with protocolMismatch()'s words
// for `peer`).
struct PingAnswer {
    std::optional<protocol::PingReply> reply;
    std::string problem;
    bool silent = false;
    bool otherBuild = false;
};
// `request`: the ping to send (one asking for the GPU too).
PingAnswer askWhatItIs(LineProcess& process, std::int64_t id, const std::string& peer,
                       std::chrono::seconds wait = std::chrono::seconds(30),
                       const protocol::PingRequest& request = {});

// A program of Loopscope's next to `selfExecutable` (the running program: argv[0] or
// /proc/self/exe): the one $`environmentVariable` names, else `name` beside it, in
// ../`buildFolder`/ (the build tree) or in ../libexec/loopscope/ (installed). Empty when none
// exists.
std::string findProgramBeside(const std::string& selfExecutable, const std::string& name,
                              const std::string& buildFolder, const char* environmentVariable);

} // namespace loopscope
