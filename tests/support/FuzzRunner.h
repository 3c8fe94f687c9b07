// Runs every variant of a TE script end to end (evaluate, lower, compile, run) and compares each
// output with the reference interpreter: the oracle of the differential tests.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace loopscope {

struct CaseOutcome {
    enum class Status {
        Passed,
        Rejected, // lowering or code generation refused the schedule with a user-facing error
        Failed,   // wrong numbers, an unexpected exception, or a script that does not evaluate
    };
    Status status = Status::Passed;
    std::string message; // why it was rejected or failed, naming the variant
    int variants = 0;
    // Where the time went, in milliseconds, summed over variants.
    double evaluateMs = 0, lowerMs = 0, compileMs = 0, runMs = 0, checkMs = 0;
};

// optLevel is LLVM's. The values of symbolic sizes (te.var) come from comment lines in the script
// of the form `# set: n=13 m=7`.
CaseOutcome runScriptChecked(const std::string& script, int optLevel = 1);

// Evaluates, lowers and compiles every variant of a TE script to assembly for another CPU (a
// target string as `tvm.build` takes it, such as "llvm -mcpu=znver4"), without running it: the
// code generator and LLVM's back end meet the instructions of machines this one is not.
CaseOutcome compileScriptFor(const std::string& script, const std::string& target);

// The `# set: NAME=VALUE ...` values of a script.
std::map<std::string, std::int64_t> scriptSymbols(const std::string& script);

// On SIGABRT/SIGSEGV/SIGFPE/SIGBUS/SIGILL, prints the script of the case being run (see
// CurrentCase) to stderr before the process dies, so an internal error or a crash in generated
// code still says which script caused it.
void installCrashReporter();

// Marks `script` (named by `label`, e.g. "seed 17") as the case being run for the lifetime of
// the object.
class CurrentCase {
public:
    CurrentCase(const std::string& script, const std::string& label);
    ~CurrentCase();
    CurrentCase(const CurrentCase&) = delete;
    CurrentCase& operator=(const CurrentCase&) = delete;

private:
    std::string m_text;
};

} // namespace loopscope
