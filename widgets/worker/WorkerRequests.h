// What the app asks of the background worker (app/worker/RequestHandler.h), as plain values; the
// client turns them into the worker's JSON (WorkerProtocol.h). Every request may carry its own
// time limit, which replaces the client's for that request.
#pragma once

#include "worker/WorkerReplies.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace loopscope::worker {

// "ping" -> PingResult.
struct PingRequest {
    int timeLimitMs = 0; // 0: the client's
};

// "measure" -> MeasureResult: one step of one variant compiled, checked and timed.
struct MeasureRequest {
    QString script;
    QString variant;            // empty: the first
    int step = -1;              // -1: after the last step; 0: the untransformed schedule
    QMap<QString, qint64> sets; // parameters and symbolic sizes
    int threads = 0;            // 0: all
    bool check = true;          // compare with the reference interpreter
    int repeat = 5;             // measurements
    double minRepeatMs = 50;    // the least time one measurement takes
    int timeLimitMs = 0;        // 0: the client's
    double profileSeconds = 0;  // > 0: sample the kernel this long after its first run

    // The worker's testing hooks, honoured only when it runs with LOOPSCOPE_WORKER_TESTING=1.
    struct Testing {
        bool crash = false;         // the generated code crashes after its first run
        bool corruptOutput = false; // the first run's output is changed, so the check fails
        int sleepMs = 0;            // the run takes this much longer
    } testing;
};

// "emit" -> EmitResult: the code of one step, as `loopscope-cli export` writes it.
struct EmitRequest {
    QString script;
    QString variant;
    int step = -1;
    QString format = QStringLiteral("llvm"); // "llvm", "asm", "c" or "tvm"
    QString source;                          // the script's file name, which the export names
    bool lines = false; // line info pointing at the step's printed TIR (.loc in assembly)
    int timeLimitMs = 0;
};

// "sweep" -> SweepProgress per point, then SweepResult.
struct SweepRequest {
    QString script;
    QStringList parameters; // set together to each value
    QList<qint64> values;
    QStringList variants; // empty: all
    int threads = 0;
    double maxPointSeconds = 10; // a point whose single run takes longer is skipped
    bool blas = false;           // OpenBLAS points for a matmul
    int repeat = 3;
    double minRepeatMs = 20;
    QList<SweepPoint> known; // points of this script and parameters measured before
    int timeLimitMs = 0;
};

// "tune" -> TuneProgress per measured candidate, then TuneResult: the auto-tuner, from one
// variant (its steps stay as given), its candidates measured in a further worker.
struct TuneRequest {
    QString script;
    QString variant;            // the starting variant
    QMap<QString, qint64> sets; // parameters
    int trials = 64;            // 0 with seconds 0: the log's best only
    double seconds = 0;         // a time budget instead (or as well)
    int threads = 0;
    QStringList forbid; // primitives the tuner must not write
    QString log;        // records are appended here as measured
    bool resume = false;
    qint64 seed = 1;
    bool peak = false;   // measure the machine's peak GFLOPS first (for the chart's line)
    bool hand = false;   // measure the script's variants first (the fastest hand schedule's line)
    int timeLimitMs = 0; // 0: the client's (a tuning run needs its budget and more)
    bool crashFirst = false; // testing (LOOPSCOPE_WORKER_TESTING=1): the first candidate crashes
};

// "model" -> ModelResult: an ONNX model imported, compiled with its project file's schedules,
// checked task by task against the reference and timed.
struct ModelRequest {
    QString model;     // the .onnx file
    QString schedules; // a project file; empty: the one beside the model; "none": the defaults
    QMap<QString, QList<qint64>> shapes; // inputs' shapes where the model leaves them open
    bool run = true;                     // false: the graph and tasks only
    bool check = true;
    int repeat = 10;
    int threads = 0;
    int timeLimitMs = 0;
};

// "model_choice" -> ModelChoiceResult: a task's schedule written to the model's project file.
struct ModelChoiceRequest {
    QString model;
    QString schedules; // the project file; empty: the one beside the model
    QString workload;
    QString name;
    std::optional<QString> script, variant, log; // those given are set ("" drops a log)
    bool reset = false;                          // drop the task's choice instead
    int timeLimitMs = 0;
};

// "machine" -> MachineResult: peak speed and memory bandwidth, measured (about two seconds).
struct MachineRequest {
    int threads = 0;
    int timeLimitMs = 0;
};

} // namespace loopscope::worker
