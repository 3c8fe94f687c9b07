// Tuning rounds for a GPU that only batch jobs reach. `tune --rounds-out DIR` writes a round of
// candidates to DIR/round-NNN as kernel bundles (trial-NNNN.json, each checked on this CPU first
// and carrying its tuning record); `loopscope-runner --measure DIR` times the round on the GPU and
// writes times.jsonl beside the bundles; `tune --rounds-in DIR` appends those times to the tuning
// log as the records a tuning measured on the GPU directly writes, marks the round learnt, and
// writes the next round. The log is the same either way.
#pragma once

#include "Cli.h"
#include "protocol/Messages.h"
#include "tune/Measure.h"
#include "tune/Tuner.h"

#include <string>
#include <vector>

namespace loopscope {

struct RoundsLearnt {
    int rounds = 0;        // rounds learnt now
    int records = 0;       // records appended to the log
    protocol::Machine gpu; // the GPU the latest timed round ran on (empty: none timed yet)
    std::vector<std::string> problems;
};

// The rounds of `dir` whose times are in and that were not learnt yet: each time a record
// appended to `logPath`, the round marked learnt (a file "learnt" beside its times). The GPU of
// the latest timed round, learnt now or before, comes back either way.
RoundsLearnt learnRounds(const std::string& dir, const std::string& logPath);

struct RoundWritten {
    std::string folder; // DIR/round-NNN (empty when nothing was written)
    int written = 0;
    int wrong = 0;  // computed wrong numbers on this CPU: recorded, not written
    int failed = 0; // could not be compiled or exported: recorded, not written
    std::vector<std::string> problems;
};

// The round's candidates checked on this CPU by `checker` (a worker without a GPU checks GPU
// kernels at sizes it finishes in about a second), those that pass written as kernel bundles for
// `bundle.target` (its PTX architecture) to the next DIR/round-NNN; those that do not are
// appended to `logPath` as records of their own outcome, so that no later round offers them again.
RoundWritten writeRound(const std::vector<RoundCandidate>& round, const std::string& dir,
                        const cli::Options& bundle, Measurer& checker, const std::string& logPath);

} // namespace loopscope
