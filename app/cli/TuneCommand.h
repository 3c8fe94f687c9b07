// `loopscope-cli tune`: the auto-tuner from the command line. Progress goes to stderr; the best
// variant's statements, its GFLOPS and the reference line (OpenBLAS for a matmul) to stdout, or
// one JSON document with --json. --apply writes the result into the script as a variant.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace loopscope {

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
    std::string self; // argv[0], to find the worker next to it
};

// The process exit code (0 done, 1 nothing could be tuned or the script has an error, 2 usage).
int runTuneCommand(const TuneArgs& args);

// Where a script's tuning log lives by default: $XDG_DATA_HOME (or ~/.local/share) /
// Loopscope/Loopscope/tuning/<name>-<hash of its absolute path>.jsonl, the folder the window
// uses too.
std::string defaultTuningLog(const std::string& scriptPath);

} // namespace loopscope
