// `loopscope-cli tune`: the auto-tuner from the command line. Progress goes to stderr; the best
// variant's statements, its GFLOPS and the reference line (OpenBLAS for a matmul) to stdout, or
// one JSON document with --json. --apply writes the result into the script as a variant.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace loopscope {

class Measurer;

struct TuneArgs {
    std::string file;
    std::string variant;
    std::map<std::string, std::int64_t> sets;
    int trials = -1;    // -1: not given
    double seconds = 0; // --time
    std::string log;    // --log (empty: the app's data folder, per script)
    bool resume = false;
    std::set<std::string> forbidden;
    int threads = 0;
    bool json = false;
    bool apply = false;
    std::uint64_t seed = 1;
    std::string self;   // argv[0], to find the worker next to it
    std::string runner; // --runner: the command that starts a worker (empty: the one here)
    int runners = 0;    // --runners: how many (0: one)
    std::string target; // --target: a GPU's ("cuda -arch=sm_90"): GPU kernels, and the rounds' PTX
    std::string roundsOut; // --rounds-out DIR: write a round for a GPU to time (TuneRounds.h)
    std::string roundsIn;  // --rounds-in DIR: learn the rounds timed there, write the next
};

// The process exit code (0 done, 1 nothing could be tuned or the script has an error, 2 usage).
int runTuneCommand(const TuneArgs& args);

// What measures candidates for `tune` and `model tune`: the worker beside this program (with a
// second one compiling ahead where there is a core to spare), or `runners` workers at once, each
// started by `runner` (a command through the shell) or, without one, the worker here. Notes (a
// runner set aside, a candidate measured again) go to standard error as they happen.
std::unique_ptr<Measurer> cliMeasurer(const std::string& self, const std::string& runner,
                                      int runners);
// With `gpu` (the candidates are GPU kernels): the worker here, measuring on its GPU runner (the
// one `runner` starts, else the one beside it), told to say what GPU that is; null with the
// reason in *why for more than one runner.
std::unique_ptr<Measurer> cliMeasurer(const std::string& self, const std::string& runner,
                                      int runners, bool gpu, std::string* why);
// How the measuring went, for the end of a run: each runner's candidates, losses and busy time
// (a pool's), and the host's own time searching and training against waiting (in shares of
// `searches` searches side by side over `wallMs`).
std::string runnerSummary(Measurer& measurer, double searchMs, double trainMs, double waitMs,
                          double wallMs, int searches = 1);
// Refuses an empty --runner command (a usage error).
void checkRunnerOptions(const std::string& runner);

// Where a script's tuning log lives by default: $XDG_DATA_HOME (or ~/.local/share) /
// Loopscope/Loopscope/tuning/<name>-<hash of its absolute path>.jsonl, the folder the window
// uses too.
std::string defaultTuningLog(const std::string& scriptPath);

} // namespace loopscope
