// The auto-tuner's loop: from a starting variant (whose steps stay as given), the default
// schedule measured first, then rounds of evolutionary search over the sketches with the cost
// model ranking candidates (a share picked at random), each round's batch measured in the worker
// and checked against the reference, every measurement appended to the tuning log, the model
// retrained on all of them. A wrong candidate is an error, never a best; a crash or a timeout is a
// failed trial and the tuning goes on.
#pragma once

#include "tune/Measure.h"
#include "tune/TuneLog.h"

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace loopscope {

struct TuneOptions {
    std::string variant; // the starting variant (empty: the first)
    std::map<std::string, std::int64_t> sets;
    int trials = 64;    // candidates to measure (0 with seconds == 0: apply from the log only)
    double seconds = 0; // a wall-time budget instead (or as well): stop starting trials past it
    int threads = 0;    // the measurement's threads (0: all)
    std::set<std::string> forbidden; // primitives the tuner must not write
    std::string logPath;             // records are appended here (empty: kept in memory only)
    bool resume = false; // records of this workload, sizes and machine in the log count as measured
    std::uint64_t seed = 1;
    int batch = 0;        // measured per round (0: from the budget, 8 to 32)
    int population = 512; // candidates the evolutionary search keeps per generation
    int generations = 4;
    double randomShare = 0.15;      // of each batch, picked at random rather than by the model
    int modelThreads = 1;           // XGBoost's threads (training never overlaps measuring)
    int remeasureTop = 3;           // at the end, the best few are measured again, longer
    bool testingCrashFirst = false; // testing: the first candidate's code crashes in the worker
    // Write a round instead of measuring (tune --rounds-out, for a GPU that only batch jobs
    // reach): one batch of up to `trials` candidates is searched and returned in
    // TuneOutcome::round, none measured; the log's records of `roundsMachine` (the GPU that
    // timed the earlier rounds; empty before the first) count as measured and train the model.
    bool roundOnly = false;
    protocol::Machine roundsMachine;
    // A GPU target ("cuda", "cuda -arch=sm_90"): the search is for GPU kernels whatever the
    // start's own target (empty: as the start is, tunesGpuKernels).
    std::string target;
};

// A candidate of a written round: its record before it is measured (trial, sketch, steps,
// statements, sizes; no status), and the request that would measure it (the script holding it as
// a variant, the sizes).
struct RoundCandidate {
    TuneRecord record;
    protocol::MeasureRequest request;
};

struct TuneProgress {
    enum class Phase { Searching, Measuring, Training, Remeasuring, Done };
    Phase phase = Phase::Searching;
    int trialsDone = 0;
    int trialsPlanned = 0; // 0 with a time budget only
    double elapsedS = 0;
    double remainingS = -1; // estimate; -1 when unknown
    double bestGflops = 0;  // 0 for a program without arithmetic: see bestMs
    double bestMs = 0;
    int bestTrial = 0;
    const TuneRecord* latest = nullptr; // the trial just measured (Measuring), else null
};

struct TuneTimes {
    double searchMs = 0;  // sampling, mutating and ranking candidates (features included)
    double featureMs = 0; // lowering candidates and extracting features
    double predictMs = 0;
    double trainMs = 0;
    double measureMs = 0; // waiting for the worker
    double compileMs = 0; // the worker's lowering and code generation, summed
    int candidatesRanked = 0;
    int rounds = 0;
};

struct TuneOutcome {
    bool ok = false;
    std::string error;              // when !ok: why nothing could be tuned
    std::vector<std::string> notes; // e.g. log lines set aside, records reused
    std::vector<TuneRecord> trials; // measured in this run, in order
    std::vector<TuneRecord> reused; // from the log (resumed), counted as measured
    TuneRecord best;                // the fastest checked candidate (status "ok")
    bool haveBest = false;
    std::vector<std::string> bestStatements; // its steps as statements, at these sizes
    std::string startVariant;
    std::string workload;
    MachineInfo machine;
    TuneTimes times;
    bool cancelled = false;
    int failed = 0; // trials that crashed, timed out, were refused or wrong
    int wrong = 0;
    std::vector<RoundCandidate> round; // roundOnly: the candidates to measure elsewhere
};

class ThroughputModel;

class Tuner {
public:
    // `model`: the cost model that ranks candidates (null: an XGBoost CostModel of its own).
    // `measurer` and `model` must outlive the tuner.
    Tuner(std::string script, TuneOptions options, Measurer& measurer,
          ThroughputModel* model = nullptr);

    TuneOutcome run(const std::function<void(const TuneProgress&)>& progress = {},
                    const std::function<bool()>& cancelled = {});

private:
    std::string m_script;
    TuneOptions m_options;
    Measurer& m_measurer;
    ThroughputModel* m_model;
};

// A name for the tuned variant ("tuned from naive"), made unique among `taken`.
std::string tunedVariantName(const std::string& start, const std::vector<std::string>& taken);

// The best record of `records` for this workload and these sizes (any machine), or null.
const TuneRecord* bestRecord(const std::vector<TuneRecord>& records, const std::string& workload,
                             const std::map<std::string, std::int64_t>& sizes);

} // namespace loopscope
