// What the background worker answers (app/worker/RequestHandler.h), decoded by the client once
// (WorkerProtocol.h) into plain values: nothing past the client reads the worker's JSON.
#pragma once

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace loopscope::worker {

// The worker's error result: the request was wrong, the script has a mistake (a schedule step TVM
// would refuse), the CPU cannot run the code, the worker is of another build (another protocol),
// or the worker hit an internal error.
struct Error {
    enum class Kind { Request, Document, Codegen, Protocol, Internal };
    Kind kind = Kind::Internal;
    QString message;
    int line = 0; // 1-based; 0: no location
    int column = 0;
};

// How a request ended; its continuation is told exactly once.
template <typename T> struct Reply {
    enum class Ending {
        Answered,  // the worker's result: `result`
        Refused,   // the worker's error result: `error`
        Failed,    // the worker crashed, ran past the time limit or could not be started: `failure`
        Cancelled, // cancelled before it ended
    };
    Ending ending = Ending::Cancelled;
    T result{};
    Error error;
    QString failure; // in plain words, as the client says it

    bool answered() const { return ending == Ending::Answered; }
    bool cancelled() const { return ending == Ending::Cancelled; }
    // What went wrong, as a user reads it: the error's message or the failure; empty otherwise.
    QString message() const
    {
        if (ending == Ending::Refused) return error.message;
        if (ending == Ending::Failed) return failure;
        return {};
    }
};

// "ping": the worker and the machine it runs on.
struct PingResult {
    QString version;
    int protocol = 0;
    QStringList commands;
    QString triple;
    QString cpu; // what code is generated for
    QString
        llvmCpu; // what LLVM's host detection named the CPU ("generic" for one it does not know)
    QString cpuNote; // why those differ; empty where they do not
    QString features;
    int vectorBits = 0;
    QString llvmVersion;
    int threads = 0; // what "threads": 0 uses
    bool testing = false;
};

// One checked output of a run.
struct OutputCheck {
    QString tensor;
    bool ok = false;
    qint64 elements = 0;
    double maxAbsError = 0;
    double maxRelError = 0;
    QString firstMismatch; // when one was found
    QString error;         // when the check itself could not be made
    QString skipped; // elements left out for the reference interpreter's step limit: which, why
};

// The timing of a run (a measurement that was timed).
struct Timing {
    double msMedian = 0;
    double msMin = 0;
    double msMax = 0;
    int number = 0; // runs per measurement
    int repeat = 0; // measurements
    double gflops = 0;
};

// A step's kernel sampled while it ran (the measure request's profile_seconds).
struct StepProfile {
    QString error; // sampling could not be had: why (the rest is empty)
    QString tir;   // TVM's printing the lines number
    QString method;
    int threads = 0;
    int runs = 0;
    double seconds = 0;
    qint64 samples = 0, inKernel = 0, lost = 0;
    double profileMs = 0;
    QVector<double> lineShare; // [line - 1]
    QVector<double> loopShare; // [line - 1]; -1: no loop
    struct Instruction {
        quint32 offset = 0;
        QString text;
        int line = 0; // 0: none
        qint64 samples = 0;
    };
    QVector<Instruction> instructions;
    bool counters = false;
    QString countersUnavailable; // why, when !counters
    double ipc = 0;
    double l1dMissesPerKi = -1, llcMissesPerKi = -1; // per 1000 instructions; -1: not counted
};

// "measure": one step of one variant compiled, checked and timed. Wrong numbers are a result,
// never a speed: a Wrong measurement has no timing.
struct MeasureResult {
    enum class Status { Ok, Wrong };
    Status status = Status::Ok;
    QString variant;
    int step = 0; // as resolved (-1 became the last step)
    int steps = 0;
    int threads = 0;
    QMap<QString, qint64> parameters; // the script's parameters and symbolic sizes, as run
    QStringList notes;
    double lowerMs = 0;
    double compileMs = 0;
    double runMs = 0; // the first run (not given when wrong)
    double flops = 0;
    bool checked = false; // a check ran and every output matched
    QList<OutputCheck> checks;
    std::optional<Timing> timing; // when timed
    // Wrong: what the check found.
    QString message;
    QString firstMismatch;
    double maxAbsError = 0;
    std::optional<StepProfile> profile; // when asked for

    bool wrong() const { return status == Status::Wrong; }
};

// "emit": the code of one step in one format (the command-line tool's export).
struct EmitResult {
    QString format; // "llvm", "asm", "c" or "tvm"
    QString variant;
    int step = 0;
    int steps = 0;
    QString function; // the function the export names
    QString suffix;   // ".ll", ".s", ".c", ".py"
    QString target;   // the variant's target string
    QString text;     // obj: the header
    QByteArray data;  // obj: the object file's bytes
    QString header;   // obj: the C header with the typed function's prototype

    // The file name an export suggests: the function's name and the format's suffix.
    QString suggestedFileName() const { return function + suffix; }
};

// One point of a sweep: a variant (or the reference library: OpenBLAS, oneDNN) at one set of
// sizes.
struct SweepPoint {
    QString variant;
    QList<qint64> values; // one per swept parameter, in the request's order
    int threads = 0;
    bool reference = false; // a reference library's point
    bool skipped = false;   // over the per-point limit (see `message`)
    bool failed = false;    // could not be compiled or run, or wrong numbers (`message`)
    bool checked = false;   // compared with the reference interpreter and right
    bool cached = false;    // measured before, not by this sweep
    QString message;
    double flops = 0;
    double bytes = 0;
    double intensity = 0;         // flops per unavoidable byte
    double runMs = 0;             // the first run
    std::optional<Timing> timing; // when measured (number and repeat are not given)
};

// A sweep's progress message: one per point.
struct SweepProgress {
    double fraction = 0;
    int done = 0;
    int total = 0;
    std::optional<SweepPoint> point;
};

// "sweep": every point, the cached ones included.
struct SweepResult {
    QStringList parameters;
    QStringList variants;
    QList<SweepPoint> points;
    int total = 0;
    int measured = 0; // not from the cache
    int threads = 0;
    QString blas;     // "OpenBLAS 0.3.21" when its points are there
    QString blasNote; // why there are none, when asked for
};

// One measured candidate of a tuning run.
struct TuneTrial {
    int trial = 0;
    QString status; // "ok", "wrong", "error", "crashed", "timeout", "invalid", "unchecked"
    double gflops = 0;
    double ms = 0;
    QString error;
    QString sketch;
};

// A tuning run's progress: the first message (done 0) carries the starting loop nest, the
// reference line and the machine; each later one a measured trial and the best so far (with its
// statements and loop nest when it just changed).
struct TuneProgress {
    double fraction = 0;
    int done = 0;
    int planned = 0;
    double elapsedS = 0;
    double remainingS = -1;
    std::optional<TuneTrial> trial;
    int bestTrial = 0; // 0: none yet
    double bestGflops = 0;
    double bestMs = 0;
    QStringList bestStatements; // when the best just changed
    QString bestTir;            // likewise
    QString startTir;           // first message
    QString referenceName;      // first message: "OpenBLAS 0.3.21", "oneDNN 2.6.3", or empty
    double referenceGflops = 0;
    double peakGflops = 0; // first message, when asked for
    QString handName;      // first message, when asked for: the fastest of the script's variants
    double handGflops = 0;
    double handMs = 0;
    QString cpu;
};

// "tune": the best candidate's statements (empty when nothing ran correctly).
struct TuneResult {
    QString start;
    QString name; // for the new variant: "tuned from naive"
    int trials = 0;
    int reused = 0;
    int failed = 0;
    int bestTrial = 0;
    double bestGflops = 0;
    double bestMs = 0;
    QString sketch;
    QStringList statements;
    QString bestTir;
    QStringList notes;
    QString log;
};

// "model": one task of the model as it ran, in the order tasks run.
struct ModelTaskResult {
    QString name;
    QString workload;
    QString anchor;
    QStringList nodes; // the graph's node names it computes
    int weight = 1;
    QString output; // the tensor it writes
    double gflop = 0;
    QString script;        // its default TE script
    QString scriptFile;    // from the project file (relative to it), when it names one
    QString logFile;       // likewise, a tuning log
    bool measured = false; // ms, share and gflops are set
    QString source; // "default", "tuned (best of 64 ...)", "script conv_relu_3.py, variant x"
    QString variant;
    double ms = 0;
    double share = 0; // of the sum of the tasks' times
    double gflops = 0;
    bool checked = false; // compared with the reference (ok says how)
    bool ok = true;
    double maxAbsError = 0;
    double maxRelError = 0;
    QString first; // the first mismatch
};

// A node of the model's graph (after the graph passes).
struct ModelNode {
    QString name;
    QString op;
    QStringList inputs;  // tensors other nodes (or the graph's inputs) compute
    QStringList outputs; // tensors it computes
    QStringList shapes;  // of its outputs: "1x64x56x56"
    int task = -1;       // index into ModelResult::tasks; -1: a view no task computes
};

// (A model that cannot be imported or compiled is the worker's error result, kind Document.)
struct ModelResult {
    bool ok = false;
    QString model;
    QString project; // the project file used; empty: none
    double importMs = 0, compileMs = 0;
    double medianMs = 0, minMs = 0, maxMs = 0;
    int threads = 0;
    double bufferBytes = 0;
    bool checked = false;     // a check ran
    bool checkPassed = false; // every task and output matched
    QString firstWrongTask;
    QStringList notes;
    QList<ModelTaskResult> tasks;
    QList<ModelNode> nodes;
    QStringList inputs;  // "input 1x3x224x224"
    QStringList outputs; // tensor names
    bool ran() const { return medianMs > 0; }
};

// "model_choice": where the choice was written.
struct ModelChoiceResult {
    QString project;
};

// "machine": the reference lines of the charts.
struct MachineResult {
    double peakGflops = 0;
    int vectorBits = 0;
    double bandwidthGbs = 0;
    int threads = 0;
    double clockGhz = 0;
};

} // namespace loopscope::worker
