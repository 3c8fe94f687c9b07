// What every loopscope-cli command shares: exit codes, usage errors, one option parser (each
// command lists its options, with the groups below), reading the script, choosing variants,
// printing numbers and the JIT. The commands themselves live one per file (Commands.h).
#pragma once

#include "ir/Diagnostic.h"
#include "lower/Lower.h"
#include "te/Program.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace loopscope {
class GpuRunner;
class Jit;
} // namespace loopscope

namespace loopscope::cli {

using json = nlohmann::json;

constexpr int kOk = 0;
constexpr int kDocumentError = 1;
constexpr int kUsage = 2;
constexpr int kWrongNumbers = 3;
constexpr int kInternalError = 70; // a bug in Loopscope (EX_SOFTWARE)

// Exit code 2. The usage text follows when the command line itself is malformed, not when it
// names a file that cannot be read or written or a parameter the script does not have.
class UsageError : public std::runtime_error {
public:
    explicit UsageError(const std::string& what, bool showUsage = true)
        : std::runtime_error(what), showUsage(showUsage)
    {
    }
    bool showUsage;
};

UsageError cannotRead(const std::string& path);
UsageError cannotWrite(const std::string& path, const std::string& why = {});

// "--threads: 'x' is not an integer"
std::int64_t parseInteger(const std::string& text, const std::string& what);
// "--time: 'x' is not a number of seconds" (`unit` after "a number", may be empty)
double parseNumber(const std::string& text, const std::string& what, const std::string& unit = {});
// "a,b,,c" -> a, b, c
std::vector<std::string> splitList(const std::string& text);

bool readFile(const std::string& path, std::string* out);
bool writeFile(const std::string& path, const std::string& data);

// 3.14159 -> "3.14" (digits after the point)
std::string fixed(double v, int digits);
// Pads to `width` on the right (or, with `right`, on the left).
std::string pad(const std::string& s, std::size_t width, bool right = false);

// The usage of one command (the whole list for an unknown one): `COMMAND --help` prints it, and
// a usage error of the command shows it.
std::string commandUsageText(const std::string& command);

// ---- one option parser --------------------------------------------------------------------

// One option of a command: its name (and another spelling), whether it takes a value, and what
// it does with it (the value is empty for a flag). `apply` throws UsageError for a bad value.
struct Option {
    std::string name;
    std::string alias;
    bool takesValue = false;
    std::function<void(const std::string& value)> apply;
};

// Reads argv[first..] against `options`: an option that is not listed is "unknown option 'X' for
// COMMAND", one without its value "X needs a value". Returns the other words, in order.
std::vector<std::string> parseCommandLine(int argc, char** argv, int first,
                                          const std::string& command,
                                          const std::vector<Option>& options);

// What the commands that read a script share.
struct Options {
    std::string command;
    std::string file;
    std::vector<std::string> variants;           // --variant
    std::map<std::string, std::int64_t> sets;    // --set P=V
    std::map<std::string, std::int64_t> symbols; // the --set values that size te.var
    bool json = false;                           // --json
    bool check = false;                          // --check (commands that run code)
    int threads = 0;                             // --threads (commands that run code)
    std::string target;                          // --target as given
    std::string jitCpu; // the CPU model --target names for code run here (empty: the host's)
    std::string runner; // --runner: the command that starts the GPU runner (empty: the one here)
    std::string source; // the script's text, once evaluate() has read it
};

// --variant, --set, --max-unroll and --max-reference-steps: every command.
std::vector<Option> scriptOptions(Options& o);
// --json
Option jsonOption(Options& o);
// --check and --threads: the commands that run code.
std::vector<Option> runOptions(Options& o);
// --target "llvm -mcpu=CPU": run, bench, sweep and profile (code that runs here has this
// machine's features: only the CPU model is chosen).
Option cpuTargetOption(Options& o);
// --runner 'COMMAND': run, bench and sweep (GPU variants run on that runner's GPU).
Option gpuRunnerOption(Options& o);

// A kernel bundle (export --format bundle): what the GPU runner alone needs to run, check and
// time a GPU variant on another machine (scripts/gpu-check.sh, tune --rounds-out carry bundles
// to a machine with a GPU): the gpu_run request (PTX for the architecture of --target, else the
// variant's, launches, buffers with their seeds, cuBLAS's matmul when the program is one), the
// operation count, and the reference's values at some elements of each output. Throws
// CodegenError where the variant is no GPU kernel or the target is not a GPU's.
nlohmann::json kernelBundle(const Options& o, const Program& program, const Variant& v);

// Parses a command that takes one FILE (or none, with `takesFile` false) and `options`.
void parseCommand(int argc, char** argv, Options& o, const std::vector<Option>& options,
                  bool takesFile = true);

// Joins option groups.
std::vector<Option> join(std::vector<std::vector<Option>> groups);

// ---- the script ---------------------------------------------------------------------------

json diagnosticJson(const std::string& file, const Diagnostic& d);
void reportDiagnostic(const Options& o, const Diagnostic& d);
// Prints {"ok": false, "error": ...} with --json; kDocumentError.
int documentError(const Options& o, const json& error);
// Reports a located error (stderr, and stdout with --json); kDocumentError.
int documentError(const Options& o, const Diagnostic& d);

// Evaluates the document; prints its error and returns false when it has one.
bool evaluate(Options& o, EvalResult* result, json* errorJson);
// The --variant ones (all without), or a usage error naming the script's variants.
std::vector<const Variant*> selectVariants(const Options& o, const Program& p);
// GPU thread bindings are shown but never run; says so once per variant.
void noteThreadBindings(const Options& o, const Variant& v);
// Prints the lowering's warnings as FILE:LINE:COL: warning: ...
void warnLowering(const Options& o, const LoweredFunc& f);
// The script's parameters and the --set sizes.
json parametersJson(const Program& p, const Options& o);

// The command-line tool's JIT, made on first use (commands that only lower need none), for the
// CPU model the command's --target names.
Jit& cliJit(const Options& o);
// The GPU runner GPU variants run on (loopscope-runner beside this program), started when one
// first needs it.
GpuRunner& cliGpu(const Options& o);

} // namespace loopscope::cli
