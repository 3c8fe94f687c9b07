// The worker protocol's messages as typed values: what a client (the window, the tuner's
// measurer, the command-line tool, a runner on another machine) asks of a worker, and what the
// worker answers. Qt-free and JSON-free: protocol/Codec.h is the one place that turns them into
// lines and back (each message's fields in its family's header), so no key of the protocol is
// spelled anywhere else. The window wraps these same types in its signals; the worker fills them
// from the core's results.
//
// Every request travels as one line {"id", "cmd", "protocol", ...its fields}; the worker answers
// with progress lines and then exactly one result line (ok, wrong or error) of the same id.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace loopscope::protocol {

using Sets = std::map<std::string, std::int64_t>; // parameters and symbolic sizes by name

// ---- Requests -------------------------------------------------------------------------------

// Each request names its command and the reply it is answered with (and, for a request that
// reports as it goes, the progress message it reports with).
struct PingReply;
struct MeasureReply;
struct EmitReply;
struct SweepUpdate;
struct SweepReply;
struct MachineReply;
struct TuneUpdate;
struct TuneReply;
struct ModelReply;
struct ModelChoiceReply;
struct GpuRunReply;

// The bounds a request is handled under (core's Limits); 0: the worker's defaults.
struct RequestLimits {
    std::int64_t maxUnroll = 0;
    std::int64_t maxReferenceSteps = 0;
    bool operator==(const RequestLimits&) const = default;
};

// "ping" -> PingReply.
struct PingRequest {
    using Reply = PingReply;
    static constexpr const char* command = "ping";
    // Also say what GPU the worker's GPU runner has (which starts the runner): a tuning of GPU
    // kernels asks, as its candidates are measured there.
    bool gpu = false;
    bool operator==(const PingRequest&) const = default;
};

// "measure" -> MeasureReply: one step of one variant compiled, checked and timed.
struct MeasureRequest {
    using Reply = MeasureReply;
    static constexpr const char* command = "measure";
    std::string script;
    std::string variant; // empty: the first
    int step = -1;       // -1: after the last step; 0: the untransformed schedule
    Sets sets;
    int threads = 0; // 0: all
    bool check = true;
    bool time = true;
    int repeat = 5;          // measurements
    int number = 1;          // runs per measurement
    double minRepeatMs = 50; // the least time one measurement takes
    std::uint64_t seed = 1;  // of the generated inputs
    int optLevel = 3;
    double maxRunMs = 0;       // a first run longer than this is not timed (0: no limit)
    double profileSeconds = 0; // > 0 (at most 30): the kernel sampled this long
    // Compiled, then held until a GoRequest of the same id says to run.
    bool hold = false;
    // The worker's testing hooks, honoured only when it runs with LOOPSCOPE_WORKER_TESTING=1.
    struct Testing {
        bool crash = false;         // the generated code crashes after its first run
        bool corruptOutput = false; // the first run's output is changed, so the check fails
        bool internalError = false; // an internal invariant fails, as a bug in the core would
        int sleepMs = 0;            // the run takes this much longer
        bool operator==(const Testing&) const = default;
    } testing;
    bool operator==(const MeasureRequest&) const = default;
};

// "go": a held measurement (of the same id) runs now, with these parameters. No reply of its
// own: the measurement's reply follows.
struct GoRequest {
    using Reply = MeasureReply;
    static constexpr const char* command = "go";
    int repeat = 5;
    double minRepeatMs = 50;
    double maxRunMs = 0;
    bool operator==(const GoRequest&) const = default;
};

// "emit" -> EmitReply: the code of one step, as `loopscope-cli export` writes it.
struct EmitRequest {
    using Reply = EmitReply;
    static constexpr const char* command = "emit";
    std::string script;
    std::string variant;
    int step = -1;
    Sets sets;
    std::string format = "llvm"; // "llvm", "asm", "c", "tvm", "obj", "ptx" or "cuda"
    std::string source;          // the script's file name, which the export names
    bool lines = false;          // line info pointing at the step's printed TIR
    std::string target;          // instead of the variant's (tvm.build's) target; "" keeps it
    bool operator==(const EmitRequest&) const = default;
};

// One point of a sweep: a variant (or the reference library: OpenBLAS, oneDNN) at one set of
// sizes. The same value in the sweep itself (runtime/Sweep.h), its messages, the window's charts,
// `loopscope-cli sweep --json` and the chart program.
struct SweepPoint {
    std::string variant;              // or the reference library's name
    std::vector<std::int64_t> values; // one per swept parameter, in the request's order
    int threads = 0;                  // as resolved (never 0)
    bool reference = false;           // a reference library's point
    bool skipped = false;             // too slow: over the per-point limit (see `message`)
    bool failed = false;              // could not be compiled or run, or wrong numbers (`message`)
    bool checked = false;             // compared with the reference interpreter and right
    bool cached = false;              // measured before, not by this sweep
    std::string message;
    double flops = 0, bytes = 0, intensity = 0; // intensity: flops per unavoidable byte
    double runMs = 0;                           // the first run
    double msMedian = 0, msMin = 0, msMax = 0, gflops = 0;

    bool measured() const { return !skipped && !failed && msMedian > 0; }
    bool operator==(const SweepPoint&) const = default;
};

// "sweep" -> a SweepUpdate per point, then SweepReply.
struct SweepRequest {
    using Reply = SweepReply;
    using Update = SweepUpdate; // each progress message
    static constexpr const char* command = "sweep";
    std::string script;
    std::vector<std::string> parameters; // set together to each value
    std::vector<std::int64_t> values;    // empty: 64, 128, ..., 2048
    std::vector<std::string> variants;   // empty: all, in script order
    int threads = 0;
    double maxPointSeconds = 10; // a point whose single run takes longer is skipped
    bool check = true;
    bool blas = false; // the reference library's points (OpenBLAS for a matmul, oneDNN for a conv)
    int repeat = 3;
    double minRepeatMs = 20;
    std::vector<SweepPoint> known; // points of this script and parameters measured before
    bool operator==(const SweepRequest&) const = default;
};

// "machine" -> MachineReply: peak speed and memory bandwidth, measured (about two seconds).
struct MachineRequest {
    using Reply = MachineReply;
    static constexpr const char* command = "machine";
    int threads = 0;
    bool operator==(const MachineRequest&) const = default;
};

// "tune" -> a TuneUpdate per measured candidate, then TuneReply: the auto-tuner from one variant
// (its steps stay as given), its candidates measured in a further worker.
struct TuneRequest {
    using Reply = TuneReply;
    using Update = TuneUpdate; // each progress message
    static constexpr const char* command = "tune";
    std::string script;
    std::string variant; // the starting variant; empty: the first
    Sets sets;
    int trials = 64;    // 0 with seconds 0: the log's best only
    double seconds = 0; // a time budget instead (or as well)
    int threads = 0;
    std::vector<std::string> forbid; // primitives the tuner must not write
    std::string log;                 // records are appended here as measured
    bool resume = false;
    std::uint64_t seed = 1;
    bool peak = false; // measure the machine's peak GFLOPS first (for the chart's line)
    bool hand = false; // measure the script's variants first (the fastest hand schedule's line)
    bool crashFirst = false; // testing (LOOPSCOPE_WORKER_TESTING=1): the first candidate crashes
    // Where candidates are measured: `runners` workers at once, each started by the command
    // `runner` through the shell ("ssh node7 loopscope-worker"); empty and 0: a worker here.
    std::string runner;
    int runners = 0;
    bool operator==(const TuneRequest&) const = default;
};

// "model" -> ModelReply: an ONNX model imported, compiled with its project file's schedules,
// checked task by task against the reference and timed.
struct ModelRequest {
    using Reply = ModelReply;
    static constexpr const char* command = "model";
    std::string model;     // the .onnx file
    std::string schedules; // a project file; empty: the one beside the model; "none": defaults
    std::map<std::string, std::vector<std::int64_t>> shapes; // inputs the model leaves open
    bool run = true;                                         // false: the graph and tasks only
    bool check = true;
    int repeat = 10;
    int threads = 0;
    std::uint64_t seed = 1;
    bool operator==(const ModelRequest&) const = default;
};

// "model_choice" -> ModelChoiceReply: a task's schedule written to the model's project file.
struct ModelChoiceRequest {
    using Reply = ModelChoiceReply;
    static constexpr const char* command = "model_choice";
    std::string model;
    std::string schedules; // the project file; empty: the one beside the model
    std::string workload;
    std::string name;
    std::optional<std::string> script, variant, log; // those given are set ("" drops a log)
    bool reset = false;                              // drop the task's choice instead
    bool operator==(const ModelChoiceRequest&) const = default;
};

// "gpu_run" -> GpuRunReply, answered by the GPU runner (loopscope-runner), not the worker: kernels
// compiled to PTX on the host, launched on the runner's GPU. Inputs are made there from their
// seeds (protocol/InputFill.h), so only the PTX, the shapes and the results travel.
struct GpuBuffer {
    std::string name;
    std::string dtype = "float32"; // float32, float64, float16, int32, int64, int8, uint8, bool
    std::vector<std::int64_t> shape;
    std::optional<std::uint64_t> seed; // an input, filled from this seed; else zeroed
    bool returned = false;             // its contents come back in the reply
    bool operator==(const GpuBuffer&) const = default;
};

struct GpuLaunch {
    std::string kernel;
    std::array<std::int64_t, 3> grid{1, 1, 1}, block{1, 1, 1};
    std::int64_t sharedBytes = 0;    // dynamic shared memory (static shared is in the PTX)
    std::vector<int> buffers;        // its pointer arguments, by index into the buffers
    std::vector<std::int64_t> sizes; // then its 32-bit integer arguments
    bool operator==(const GpuLaunch&) const = default;
};

// A matmul the runner times cuBLAS on, as the reference line of a matmul-shaped program:
// C[M,N] = A[M,K] x B[K,N] in row-major buffers (by index into the request's buffers), with A
// stored as [K,M] when transA and B as [N,K] when transB.
struct GpuGemm {
    std::int64_t m = 0, n = 0, k = 0;
    int a = 0, b = 1, c = 2;
    bool transA = false, transB = false;
    bool operator==(const GpuGemm&) const = default;
};

// A convolution for cuDNN's reference line: an NCHW float32 input [n, c, h, w], KCRS filters
// [k, c, r, s], padding and stride. The runner times it on buffers of its own: the kernels' layout
// may be another (TVM's HWCN), and the reference is the same work, not the same data.
struct GpuConv {
    std::int64_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 1, s = 1;
    std::int64_t padH = 0, padW = 0, strideH = 1, strideW = 1;
    bool operator==(const GpuConv&) const = default;
};

struct GpuRunRequest {
    using Reply = GpuRunReply;
    static constexpr const char* command = "gpu_run";
    std::string ptx;
    std::vector<GpuBuffer> buffers;
    std::vector<GpuLaunch> launches; // one run: every launch, in order
    int warmup = 1;                  // runs before timing
    int number = 1; // runs per timed repeat; 0: as many as fill about 5 ms (at most 1,000)
    int repeat = 5; // 0: one run, not timed
    int device = 0;
    std::optional<GpuGemm> cublas; // cuBLAS's sgemm timed in turns with the kernels
    std::optional<GpuConv> cudnn;  // cuDNN's convolution timed likewise
    // A device-to-device copy of this many bytes timed likewise (0: none): the GPU's copy
    // bandwidth, the reference of kernels that move more than they compute.
    std::int64_t copyBytes = 0;
    bool operator==(const GpuRunRequest&) const = default;
};

using Request =
    std::variant<PingRequest, MeasureRequest, GoRequest, EmitRequest, SweepRequest, MachineRequest,
                 TuneRequest, ModelRequest, ModelChoiceRequest, GpuRunRequest>;

// The command a request is sent as: "ping", "measure", "go", ...
const char* commandName(const Request& request);

// ---- Replies --------------------------------------------------------------------------------

// The worker's error result: the request was wrong, the script has a mistake (a schedule step TVM
// would refuse), the CPU cannot run the code, the worker is of another build (another protocol),
// or the worker hit an internal error.
struct ErrorReply {
    enum class Kind { Request, Document, Codegen, Protocol, Internal };
    Kind kind = Kind::Internal;
    std::string message;
    int line = 0; // 1-based; 0: no location
    int column = 0;
    bool operator==(const ErrorReply&) const = default;
};

// "request", "document", ...
const char* errorKindName(ErrorReply::Kind kind);

// A progress message: the phase being worked on ("lowering", "compiling", "checking", "timing",
// "importing", ...) and the request's overall progress (0..1, never falling).
struct Progress {
    std::string phase;
    double fraction = 0;
    bool operator==(const Progress&) const = default;
};

// A GPU as the runner found it.
struct GpuDevice {
    std::string name;
    int computeCapability = 0; // 90 for 9.0
    int multiprocessors = 0;
    int driverVersion = 0; // 12040 for CUDA 12.4
    std::int64_t sharedPerBlock = 0;
    int maxThreadsPerBlock = 0;
    int clockMhz = 0;       // the multiprocessors' clock, as the device reports its peak
    int memoryClockMhz = 0; // the memory's
    bool operator==(const GpuDevice&) const = default;
};

// What a machine that measures is, described once: a worker's ping, a tuning run's first
// message, a tuning record and the measurer's runners all carry this one type (one JSON
// spelling: cpu, cpu_name, host, features, vector_bits, threads, llvm, accelerator).
struct Machine {
    std::string cpu;      // as LLVM names it, what code is generated for ("znver4")
    std::string cpuName;  // its own name (CPUID's brand string); empty where it has none
    std::string host;     // its host name (several, with commas, for a pool of runners)
    std::string features; // LLVM's feature string
    int vectorBits = 0;
    int threads = 0;  // its cores: what "all" (and "threads": 0) means there
    std::string llvm; // LLVM's version there
    // The GPU it measures GPU kernels on, with its driver and clocks (gpuDescription); empty
    // where it measures CPU code.
    std::string gpu;
    bool operator==(const Machine&) const = default;
};

// A GPU as records name it: "NVIDIA H100 80GB HBM3 (sm_90, driver 12.4, 1980/2619 MHz)".
std::string gpuDescription(const GpuDevice& d);

// What a machine is, for comparing numbers: "znver1 (AMD EPYC), 2 cores on node7" (and "with"
// its GPU).
std::string describeMachine(const Machine& m);
// Whether two machines are one kind (numbers measured on them compare): the same CPU as LLVM
// names it, and the same CPU name, cores and vector width where both know them; for GPU kernels,
// the same GPU. The one rule for
// runners against each other and for a tuning record against this machine.
bool sameMachineKind(const Machine& a, const Machine& b);

// "ping": the worker and the machine it runs on.
struct PingReply {
    std::string version;
    int protocol = 0;
    std::vector<std::string> commands;
    std::string triple;
    Machine machine;
    std::string llvmCpu; // what LLVM's host detection named the CPU ("generic" for one it does
                         // not know; machine.cpu is what code is generated for)
    std::string cpuNote; // why those differ; empty where they do not
    bool testing = false;
    GpuDevice gpu;          // the GPU runner's device (a worker's: its runner's, when asked for)
    std::string gpuProblem; // asked for, and there is none: why
    bool operator==(const PingReply&) const = default;
};

// What the driver says of one compiled kernel.
struct GpuKernelInfo {
    std::string name;
    int registers = 0;  // per thread
    int localBytes = 0; // per thread: spills and local arrays
    int sharedBytes = 0;
    int maxThreadsPerBlock = 0;
    // Blocks of the launch's shape one multiprocessor holds at once, by the driver's occupancy
    // calculator (0 where the driver has none).
    int blocksPerSm = 0;
    bool operator==(const GpuKernelInfo&) const = default;
};

// "gpu_run": the device, its kernels, the time of each timed repeat (one run's milliseconds,
// the mean over `number` runs, by CUDA events) and the returned buffers' bytes, in order.
struct GpuRunReply {
    GpuDevice device;
    std::vector<GpuKernelInfo> kernels;
    std::vector<double> ms;
    std::vector<std::string> outputs;
    std::string log; // the driver's compile log
    // When asked: cuBLAS's times, in turns with the kernels', and its version ("cuBLAS 12.4.5");
    // no times, and why in cublasNote, where libcublas cannot be loaded.
    std::vector<double> cublasMs;
    std::string cublas, cublasNote;
    // Likewise cuDNN's ("cuDNN 9.1.0", its algorithm), and the copy's times.
    std::vector<double> cudnnMs;
    std::string cudnn, cudnnNote;
    std::vector<double> copyMs;
    bool operator==(const GpuRunReply&) const = default;
};

// One checked output of a run.
struct CheckedOutput {
    std::string tensor;
    bool ok = false;
    std::int64_t elements = 0;
    double maxAbsError = 0;
    double maxRelError = 0;
    std::string firstMismatch; // when one was found
    std::string error;         // when the check itself could not be made
    std::string skipped;       // elements left out for the reference interpreter's step limit: why
    bool operator==(const CheckedOutput&) const = default;
};

// The timing of a run that was timed.
struct Timing {
    double msMedian = 0;
    double msMin = 0;
    double msMax = 0;
    int number = 0; // runs per measurement
    int repeat = 0; // measurements
    double gflops = 0;
    // A GPU run's reference, timed in turns with it: cuBLAS or cuDNN (its median), or the
    // device copy (its bandwidth, and the run's own: its arguments' bytes over its median).
    std::string reference;
    double referenceMs = 0;
    double copyGbs = 0, kernelGbs = 0;
    bool operator==(const Timing&) const = default;
};

// A step's kernel sampled while it ran (the measure request's profileSeconds).
struct StepProfile {
    std::string error; // sampling could not be had: why (the rest is empty)
    std::string tir;   // TVM's printing, whose lines the shares number
    std::string method;
    int threads = 0;
    int runs = 0;
    double seconds = 0;
    std::int64_t samples = 0, inKernel = 0, lost = 0;
    double profileMs = 0;
    std::vector<double> lineShare; // [line - 1]
    std::vector<double> loopShare; // [line - 1]; -1: no loop
    struct Instruction {
        std::uint32_t offset = 0;
        std::string text;
        int line = 0; // 0: none
        std::int64_t samples = 0;
        bool operator==(const Instruction&) const = default;
    };
    std::vector<Instruction> instructions;
    // Hardware counters, where the machine has them.
    bool counters = false;
    std::string countersUnavailable; // why, when !counters
    std::int64_t cycles = 0, instructionsRetired = 0;
    double ipc = 0;
    std::int64_t l1dMisses = -1, llcMisses = -1; // -1: not counted
    bool operator==(const StepProfile&) const = default;
};

// "measure": one step of one variant compiled, checked and timed. Wrong numbers are a result,
// never a speed: a Wrong measurement has no timing.
struct MeasureReply {
    enum class Status { Ok, Wrong };
    Status status = Status::Ok;
    std::string variant;
    int step = 0; // as resolved (-1 became the last step)
    int steps = 0;
    int threads = 0;
    Sets parameters; // the script's parameters and symbolic sizes, as run
    std::vector<std::string> notes;
    double lowerMs = 0;
    double compileMs = 0;
    double runMs = 0; // the first run (not given when wrong)
    double flops = 0;
    bool checked = false;  // a check ran and every output matched
    bool checkRan = false; // `checks` holds every output
    std::vector<CheckedOutput> checks;
    bool tooSlow = false;         // the first run took longer than maxRunMs: not timed
    std::optional<Timing> timing; // when timed
    // Wrong: what the check found.
    std::string message;
    std::string firstMismatch;
    double maxAbsError = 0;
    std::optional<StepProfile> profile; // when asked for

    bool wrong() const { return status == Status::Wrong; }
    bool operator==(const MeasureReply&) const = default;
};

// "emit": the code of one step in one format (the command-line tool's export).
struct EmitReply {
    std::string format; // "llvm", "asm", "c", "tvm" or "obj"
    std::string variant;
    int step = 0;
    int steps = 0;
    std::string function; // the function the export names
    std::string suffix;   // ".ll", ".s", ".c", ".py", ".o"
    std::string target;   // the variant's target string
    std::string text;     // obj: the header
    std::string data;     // obj: the object file's bytes (base64 on the wire)
    std::string header;   // obj: the C header with the typed function's prototype

    // The file name an export suggests: the function's name and the format's suffix.
    std::string suggestedFileName() const { return function + suffix; }
    bool operator==(const EmitReply&) const = default;
};

// A sweep's progress message: one per point.
struct SweepUpdate {
    double fraction = 0;
    int done = 0;
    int total = 0;
    std::vector<std::string> parameters; // the point's values are named by these on the wire
    std::optional<SweepPoint> point;
    bool operator==(const SweepUpdate&) const = default;
};

// "sweep": every point, the cached ones included. (Also what runtime/Sweep.h's runSweep returns.)
struct SweepReply {
    std::vector<SweepPoint> points; // in the order they were produced
    std::vector<std::string> parameters;
    std::vector<std::string> variants; // the variants swept, in order (without the reference)
    int total = 0;                     // points planned (the reference's included)
    int measured = 0;                  // points this sweep measured (not from the cache)
    int threads = 0;
    std::string blas;       // "OpenBLAS 0.3.21" or "oneDNN 2.6.3" when its points are there
    std::string blasNote;   // why there are none, when asked for and absent
    bool cancelled = false; // stopped before its last point (never sent: the worker finishes)
    bool operator==(const SweepReply&) const = default;
};

// What `loopscope-cli sweep --chart` hands the chart program (loopscope-chart) on its standard
// input: one JSON document (protocol/Json.h) with the file to write, the kind of chart, the
// machine's reference lines and the sweep's points in their `sweep --json` form. The CLI itself
// links no Qt: drawing is the chart program's alone, so every other command starts without
// loading Qt.
struct ChartRequest {
    std::string path;           // .png or .svg
    std::string kind = "lines"; // lines | bars | roofline
    double peakGflops = 0;      // 0: no peak line
    double bandwidthGbs = 0;    // 0: no memory roof
    SweepReply sweep;           // its parameters, reference label (`blas`) and points
    bool operator==(const ChartRequest&) const = default;
};

constexpr int kChartRequestVersion = 1;

// "machine": the reference lines of the charts.
struct MachineReply {
    double peakGflops = 0;
    int vectorBits = 0;
    double bandwidthGbs = 0;
    int threads = 0;
    double clockGhz = 0;
    bool operator==(const MachineReply&) const = default;
};

// One measured candidate of a tuning run.
struct TuneTrial {
    int trial = 0;
    std::string status; // "ok", "wrong", "error", "crashed", "timeout", "invalid", "unchecked"
    double gflops = 0;
    double ms = 0;
    std::string error;
    std::string sketch;
    bool operator==(const TuneTrial&) const = default;
};

// A tuning run's progress: the first message (done 0) carries the starting loop nest, the
// reference line and the machine; each later one a measured trial and the best so far (with its
// statements and loop nest when it just changed).
struct TuneUpdate {
    double fraction = 0;
    int done = 0;
    int planned = 0;
    double elapsedS = 0;
    double remainingS = -1;
    std::optional<TuneTrial> trial;
    int bestTrial = 0; // 0: none yet
    double bestGflops = 0;
    double bestMs = 0;
    std::vector<std::string> bestStatements; // when the best just changed
    std::string bestTir;                     // likewise
    std::string startTir;                    // first message
    std::string referenceName; // first message: "OpenBLAS 0.3.21", "oneDNN 2.6.3", or empty
    double referenceGflops = 0;
    double peakGflops = 0; // first message, when asked for
    std::string handName;  // first message, when asked for: the fastest of the script's variants
    double handGflops = 0;
    double handMs = 0;
    Machine machine; // first message: the measuring machine
    bool operator==(const TuneUpdate&) const = default;
};

// "tune": the best candidate's statements (empty when nothing ran correctly).
struct TuneReply {
    std::string start;
    std::string name; // for the new variant: "tuned from naive"
    int trials = 0;
    int reused = 0;
    int failed = 0;
    int bestTrial = 0; // 0: nothing ran correctly
    double bestGflops = 0;
    double bestMs = 0;
    std::string sketch;
    std::vector<std::string> statements;
    std::string bestTir;
    std::vector<std::string> notes;
    std::string log;
    bool operator==(const TuneReply&) const = default;
};

// "model": one task of the model as it ran, in the order tasks run.
struct ModelTask {
    std::string name;
    std::string workload;
    std::string anchor;
    std::vector<std::string> nodes; // the graph's node names it computes
    int weight = 1;
    std::string output; // the tensor it writes
    // What it computes in: "float32", or a quantized task's integer and float parts
    // ("uint8 x int8 -> int32 sums; float32 requantization to uint8").
    std::string arithmetic;
    double gflop = 0;
    std::string script;     // its default TE script
    std::string scriptFile; // from the project file (relative to it), when it names one
    std::string logFile;    // likewise, a tuning log
    std::string source; // "default", "tuned (best of 64 ...)", "script conv_relu_3.py, variant x"
    std::string variant;
    // Why the choice may no longer be the task's fastest schedule (never timed against the
    // default, or its code has changed since); empty when it is current.
    std::string stale;
    bool measured = false; // ms, share and gflops are set
    double ms = 0;
    double share = 0; // of the sum of the tasks' times
    double gflops = 0;
    bool checked = false; // compared with the reference (ok says how)
    bool ok = true;
    double maxAbsError = 0;
    double maxRelError = 0;
    std::string first; // the first mismatch
    bool operator==(const ModelTask&) const = default;
};

// A tensor by name and shape ("1x64x56x56").
struct NamedShape {
    std::string name;
    std::string shape;
    bool operator==(const NamedShape&) const = default;
};

// A node of the model's graph (after the graph passes).
struct ModelNode {
    std::string name;
    std::string op;
    std::vector<std::string> inputs; // tensors other nodes (or the graph's inputs) compute
    std::vector<NamedShape> outputs; // tensors it computes
    int task = -1;                   // index into ModelReply::tasks; -1: a view no task computes
    bool operator==(const ModelNode&) const = default;
};

// One output of the model checked end to end.
struct ModelOutputCheck {
    std::string name;
    bool ok = true;
    double maxAbsError = 0;
    double maxRelError = 0;
    std::string first;
    bool operator==(const ModelOutputCheck&) const = default;
};

// (A model that cannot be imported or compiled is the worker's error result, kind Document.)
struct ModelReply {
    std::string model;
    std::string project; // the project file used; empty: none
    double importMs = 0;
    std::vector<std::string> notes;
    std::vector<ModelNode> nodes;
    std::vector<NamedShape> inputs;
    std::vector<std::string> outputs; // tensor names
    std::vector<ModelTask> tasks;
    // With run:
    bool ran = false;
    double compileMs = 0;
    double bufferBytes = 0;
    int threads = 0;
    double medianMs = 0, minMs = 0, maxMs = 0;
    bool checked = false;     // a check ran
    bool checkPassed = false; // every task and output matched
    std::string firstWrongTask;
    std::vector<ModelOutputCheck> outputChecks;
    bool operator==(const ModelReply&) const = default;
};

// "model_choice": where the choice was written.
struct ModelChoiceReply {
    std::string project;
    bool operator==(const ModelChoiceReply&) const = default;
};

} // namespace loopscope::protocol
