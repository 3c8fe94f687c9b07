#include "RequestHandler.h"
#include "ModelRequest.h"
#include "TuneRequest.h"

#include "Version.h"
#include "codegen/Codegen.h"
#include "export/Export.h"
#include "ir/GpuTarget.h"
#include "ir/Host.h"
#include "ir/Limits.h"
#include "lower/Lower.h"
#include "runtime/CpuCheckSize.h"
#include "runtime/GpuRun.h"
#include "runtime/Microbench.h"
#include "runtime/Replies.h"
#include "runtime/RuntimeJit.h"
#include "runtime/ThreadPool.h"
#include "runtime/VariantRun.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <new>
#include <thread>

namespace loopscope::worker {

using protocol::ErrorReply;

namespace {

// A failure reported as an error result.
struct Failure {
    ErrorReply::Kind kind;
    std::string message;
    SourceLoc loc;
};

[[noreturn]] void badRequest(const std::string& message)
{
    throw Failure{ErrorReply::Kind::Request, message, {}};
}

// The script evaluated with the request's sets, and the variant and step it names.
struct Target {
    ScriptEvaluation evaluation;
    const Variant* variant = nullptr;
    int step = -1;
};

void evaluateTarget(const std::string& script, const protocol::Sets& sets,
                    const std::string& variant, int step, Target* t)
{
    t->evaluation = evaluateWithValues(script, sets);
    const EvalResult& r = t->evaluation.result;
    if (!r.ok) throw Failure{ErrorReply::Kind::Document, r.error.message, r.error.loc};
    if (!t->evaluation.unknownNames.empty()) {
        std::string names;
        for (auto& n : t->evaluation.unknownNames)
            names += (names.empty() ? "" : ", ") + n;
        std::string known = parameterList(r.program);
        badRequest("sets: the script has no parameter named " + names +
                   (known.empty() ? std::string(" (it has none)") : " (it has: " + known + ")"));
    }
    const Program& p = r.program;
    if (p.variants.empty()) badRequest("the script has no variant (no te.create_schedule)");
    t->variant = variant.empty() ? &p.variants.front() : p.findVariant(variant);
    if (!t->variant)
        badRequest("no variant '" + variant + "' in the script (variants: " + variantList(p) + ")");
    t->step = step;
    if (!isValidStep(*t->variant, t->step)) {
        std::size_t n = t->variant->steps.size();
        badRequest("variant '" + t->variant->name + "' has " + std::to_string(n) + " step" +
                   (n == 1 ? "" : "s") + "; there is no step " + std::to_string(step) + " (0 to " +
                   std::to_string(n) + ", or -1 for the last)");
    }
}

int resolvedStep(const Target& t)
{
    return t.step < 0 ? static_cast<int>(t.variant->steps.size()) : t.step;
}

// "variant 'tiled' step 3", as the messages name what ran.
std::string describe(const Target& t)
{
    return "variant '" + t.variant->name + "' step " + std::to_string(resolvedStep(t));
}

// Testing hook: changes one element of the first output so that the check must fail.
void corruptOutput(PreparedRun& run, const Variant& variant)
{
    const auto& outputs = variant.snapshots.front().outputs();
    for (std::size_t i = 0; i < variant.args.size(); ++i) {
        const Tensor& t = variant.args[i];
        if (t->isPlaceholder() || std::find(outputs.begin(), outputs.end(), t) == outputs.end())
            continue;
        // The run owns its buffers and is not const here; only the accessor is.
        auto& b = const_cast<HostBuffer&>(run.buffers()[i]);
        if (b.elementCount() == 0) continue;
        if (b.dtype().isBool())
            b.setInt(0, b.getInt(0) ? 0 : 1);
        else if (b.dtype().isFloat())
            b.set(0, b.get(0) + 1.0 + 2.0 * std::abs(b.get(0)));
        else
            b.setInt(0, b.getInt(0) + 1);
        return;
    }
}

const char* phaseName(RunPhase phase)
{
    switch (phase) {
    case RunPhase::Compiling: return "compiling";
    case RunPhase::Checking: return "checking";
    case RunPhase::Timing: return "timing";
    }
    return "compiling";
}

} // namespace

// Progress lines of one request, with its id.
class RequestHandler::Reporter {
public:
    Reporter(std::optional<std::int64_t> id, const Emit& emit) : m_id(id), m_emit(emit) {}
    void operator()(const std::string& phase, double fraction) const
    {
        m_emit(protocol::encodeProgress(m_id, protocol::Progress{phase, fraction}));
    }
    void sweep(const protocol::SweepUpdate& update) const
    {
        m_emit(protocol::encodeProgress(m_id, update));
    }
    void tune(const protocol::TuneUpdate& update) const
    {
        m_emit(protocol::encodeProgress(m_id, update));
    }

private:
    std::optional<std::int64_t> m_id;
    const Emit& m_emit;
};

RequestHandler::RequestHandler(HandlerOptions options)
    : m_options(options), m_sweepCache(std::make_shared<SweepCache>())
{
}

RequestHandler::~RequestHandler() = default;

GpuRunner& RequestHandler::gpu() const
{
    if (!m_gpu) m_gpu = std::make_unique<GpuRunner>(m_options.gpuRunner);
    return *m_gpu;
}

Jit& RequestHandler::jit() const
{
    if (!m_jit) m_jit = createRuntimeJit(); // throws CodegenError, answered as an error
    return *m_jit;
}

std::vector<std::string> RequestHandler::commands()
{
    return protocol::workerCommands();
}

std::string RequestHandler::answer(const protocol::IncomingRequest& in,
                                   const Reporter& report) const
{
    const auto id = in.id;
    struct Visitor {
        const RequestHandler& h;
        std::optional<std::int64_t> id;
        const Reporter& report;
        std::string operator()(const protocol::PingRequest& r) const
        {
            return protocol::encodeReply(id, h.ping(r));
        }
        std::string operator()(const protocol::MeasureRequest& r) const
        {
            return protocol::encodeReply(id, h.measure(r, id, report));
        }
        std::string operator()(const protocol::GoRequest&) const
        {
            badRequest("a \"go\" with no held measurement of its id");
        }
        std::string operator()(const protocol::EmitRequest& r) const
        {
            return protocol::encodeReply(id, h.emitCode(r, report));
        }
        std::string operator()(const protocol::SweepRequest& r) const
        {
            return protocol::encodeReply(id, h.sweep(r, report));
        }
        std::string operator()(const protocol::MachineRequest& r) const
        {
            return protocol::encodeReply(id, h.machine(r));
        }
        std::string operator()(const protocol::TuneRequest& r) const
        {
            protocol::TuneReply reply = runTuneRequest(
                r, [&](const protocol::TuneUpdate& u) { report.tune(u); }, "/proc/self/exe",
                h.m_options.testing);
            return protocol::encodeReply(id, reply);
        }
        std::string operator()(const protocol::ModelRequest& r) const
        {
            return protocol::encodeReply(
                id, runModelRequest(r, [&](const std::string& phase, double fraction) {
                    report(phase, fraction);
                }));
        }
        std::string operator()(const protocol::ModelChoiceRequest& r) const
        {
            return protocol::encodeReply(id, runModelChoiceRequest(r));
        }
        std::string operator()(const protocol::GpuRunRequest&) const
        {
            badRequest("\"gpu_run\" is the GPU runner's command (loopscope-runner), not the "
                       "worker's");
        }
    };
    return std::visit(Visitor{*this, id, report}, in.request);
}

void RequestHandler::handleLine(const std::string& line, const Emit& emit) const
{
    if (line.find_first_not_of(" \t\r\n") == std::string::npos) return;
    std::optional<std::int64_t> id; // unknown until read
    auto fail = [&](ErrorReply::Kind kind, const std::string& message, SourceLoc loc = {}) {
        emit(protocol::encodeError(id, ErrorReply{kind, message, loc.line, loc.col}));
    };
    try {
        const protocol::IncomingRequest in = protocol::decodeRequest(line, &id);
        // The bounds the window's settings give (core's Limits); without them, the defaults.
        Limits l;
        if (in.limits.maxUnroll > 0) l.maxUnrollCopies = in.limits.maxUnroll;
        if (in.limits.maxReferenceSteps > 0)
            l.maxReferenceStepsPerElement = in.limits.maxReferenceSteps;
        setLimits(l);
        const Reporter report(id, emit);
        emit(answer(in, report));
    } catch (const protocol::ProtocolError& e) {
        // A client of another build learns which build this worker is.
        fail(e.kind(),
             e.kind() == ErrorReply::Kind::Protocol
                 ? std::string(e.what()) + "; this worker is Loopscope " LOOPSCOPE_VERSION_STRING
                 : std::string(e.what()));
    } catch (const Failure& f) {
        fail(f.kind, f.message, f.loc);
    } catch (const UserError& e) {
        fail(ErrorReply::Kind::Document, e.message(), e.loc());
    } catch (const std::bad_alloc&) {
        fail(ErrorReply::Kind::Document, "out of memory: the program needs more memory than this "
                                         "machine could give (try smaller sizes)");
    } catch (const InternalError& e) {
        fail(ErrorReply::Kind::Internal, e.what());
    } catch (const std::exception& e) {
        fail(ErrorReply::Kind::Internal, std::string("internal error: ") + e.what());
    }
}

protocol::PingReply RequestHandler::ping(const protocol::PingRequest& request) const
{
    HostTarget host = hostTarget();
    protocol::PingReply r;
    r.version = LOOPSCOPE_VERSION_STRING;
    r.protocol = kProtocolVersion;
    r.commands = commands();
    r.triple = host.triple;
    // Its threads are what "threads": 0 uses (the pool's size follows the last request
    // otherwise).
    r.machine = thisMachine();
    r.llvmCpu = host.llvmCpu;
    r.cpuNote = host.cpuReason;
    r.testing = m_options.testing;
    if (request.gpu) {
        if (const auto& device = gpu().device())
            r.gpu = *device;
        else
            r.gpuProblem = gpu().unavailable();
    }
    return r;
}

protocol::StepProfile RequestHandler::profileKernel(PreparedRun& run, double seconds) const
{
    LineProfile profile;
    std::string why;
    const auto t0 = std::chrono::steady_clock::now();
    if (!profileRuns(
            run.kernel(), [&] { run.run(); }, seconds, 3, &profile, &why)) {
        protocol::StepProfile failed;
        failed.error = why;
        return failed;
    }
    const double profileMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const HardwareCounts counts = countHardwareEvents([&] {
        for (int i = 0; i < std::max(1, profile.runs / 4); ++i)
            run.run();
    });
    return stepProfileOf(profile, run.kernel().lines(), counts, profileMs);
}

protocol::MeasureReply RequestHandler::measure(const protocol::MeasureRequest& request,
                                               std::optional<std::int64_t> id,
                                               const Reporter& report) const
{
    Target t;
    evaluateTarget(request.script, request.sets, request.variant, request.step, &t);
    VariantRunOptions options;
    std::map<std::string, std::int64_t> parameters; // the script's, as the request gives them
    for (const Parameter& p : t.evaluation.result.program.parameters)
        parameters[p.name] = p.value;
    // A GPU variant without a GPU is checked on this CPU at sizes it finishes in about a
    // second (its kernels' threads run as loops there), not at the script's.
    if (std::optional<CpuCheckSize> smaller = cpuCheckSizeWithoutGpu(
            request.script, request.sets, t.evaluation.result.program, *t.variant, &gpu())) {
        const std::string name = t.variant->name;
        t.evaluation.result = std::move(smaller->evaluated);
        t.variant = t.evaluation.result.program.findVariant(name);
        options.checkedAt = smaller->text;
    }
    const Program& program = t.evaluation.result.program;
    options.step = t.step;
    options.check = request.check;
    options.time = request.time;
    options.benchmark.repeat = request.repeat;
    options.benchmark.number = request.number;
    options.benchmark.minRepeatMs = request.minRepeatMs;
    options.maxFirstRunMs = request.maxRunMs;
    options.config.symbols = t.evaluation.symbols;
    options.config.seed = request.seed;
    options.config.optLevel = request.optLevel;

    protocol::MeasureRequest::Testing testing;
    if (m_options.testing) {
        testing = request.testing;
        LS_ASSERT(!testing.internalError, "a testing hook asked for an internal error");
    }

    // Profiling: the kernel keeps its line info, and after its first run it runs again and
    // again for `profileSeconds` while the CPU clock samples it.
    if (request.profileSeconds > 0) options.config.lineInfo = true;
    std::optional<protocol::StepProfile> profile;

    VariantRunHooks hooks;
    hooks.progress = [&](RunPhase phase, double fraction) { report(phaseName(phase), fraction); };
    // Held: compiled now, it runs when told to, with the run's parameters of then.
    if (request.hold) {
        hooks.beforeFirstRun = [this, id](PreparedRun&, VariantRunOptions& o) {
            const std::optional<protocol::GoRequest> go =
                m_awaitGo ? m_awaitGo(id.value_or(-1)) : std::nullopt;
            // No "go" ever comes: the tuner has gone (its end of the pipe is closed).
            if (!go) std::_Exit(0);
            o.benchmark.repeat = go->repeat;
            o.benchmark.minRepeatMs = go->minRepeatMs;
            o.maxFirstRunMs = go->maxRunMs;
        };
    }
    hooks.afterFirstRun = [&](PreparedRun& run) {
        if (request.profileSeconds > 0) profile = profileKernel(run, request.profileSeconds);
        if (testing.corruptOutput) corruptOutput(run, *t.variant);
        if (testing.sleepMs > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(testing.sleepMs));
        if (testing.crash) {
            std::signal(SIGSEGV, SIG_DFL);
            std::raise(SIGSEGV);
        }
    };

    setParallelThreads(request.threads);
    VariantRunOutcome out;
    try {
        options.config.jit = &jit();
        options.config.gpu = &gpu();
        out = runVariant(program, *t.variant, options, hooks);
    } catch (const CodegenError& e) {
        Diagnostic d = cannotRunDiagnostic(*t.variant, e);
        throw Failure{ErrorReply::Kind::Codegen, d.message, d.loc};
    }

    protocol::MeasureReply result = measureReplyOf(out);
    result.profile = profile;
    result.variant = t.variant->name;
    result.step = resolvedStep(t);
    result.steps = static_cast<int>(t.variant->steps.size());
    result.threads = parallelThreads();
    for (auto& [name, value] : parameters)
        result.parameters[name] = value;
    for (auto& [name, value] : t.evaluation.symbols)
        result.parameters[name] = value;
    // Wrong numbers are an error of the schedule, never a speed.
    if (result.wrong())
        result.message = describe(t) + " computes wrong numbers: " + out.firstProblem();
    return result;
}

protocol::EmitReply RequestHandler::emitCode(const protocol::EmitRequest& request,
                                             const Reporter& report) const
{
    Target t;
    evaluateTarget(request.script, request.sets, request.variant, request.step, &t);
    ExportOptions options;
    options.format = request.format;
    if (std::find(std::begin(kExportFormats), std::end(kExportFormats), options.format) ==
        std::end(kExportFormats))
        badRequest("unknown format '" + options.format + "' (llvm, asm, c, tvm, obj, ptx or cuda)");
    options.step = t.step;
    options.target = request.target;
    options.symbols = t.evaluation.symbols;
    options.sourceName = request.source;
    options.lineInfo = request.lines;
    const Variant& v = *t.variant;
    const std::string& target = request.target.empty() ? v.target : request.target;
    if ((options.format == "llvm" || options.format == "asm" || options.format == "obj") &&
        !isGpuTarget(target)) {
        try {
            checkTarget(target);
        } catch (const CodegenError& e) {
            throw Failure{ErrorReply::Kind::Codegen, "target '" + target + "': " + e.what(),
                          request.target.empty() ? v.targetLoc : SourceLoc{}};
        }
    }
    report("lowering", 0.0);
    ExportResult exported;
    try {
        exported = exportVariant(request.script, t.evaluation.result.program, v, options);
    } catch (const CodegenError& e) {
        throw Failure{ErrorReply::Kind::Codegen,
                      "variant '" + v.name + "' cannot be exported as " + options.format +
                          " for target '" + target + "': " + e.what(),
                      v.loc};
    }
    protocol::EmitReply out;
    out.format = options.format;
    out.variant = v.name;
    out.step = resolvedStep(t);
    out.steps = static_cast<int>(v.steps.size());
    out.function = exported.function;
    out.suffix = exported.suffix;
    out.target = v.target;
    if (options.format == "obj") {
        // An object's bytes, and its header (the typed prototype) as its text.
        out.data = exported.text;
        out.header = exported.header;
        out.text = exported.header;
    } else {
        out.text = exported.text;
    }
    return out;
}

protocol::SweepReply RequestHandler::sweep(const protocol::SweepRequest& request,
                                           const Reporter& report) const
{
    SweepHooks hooks;
    hooks.point = [&](const SweepPoint& point, int done, int total) {
        protocol::SweepUpdate u;
        u.fraction = total > 0 ? static_cast<double>(done) / total : 1.0;
        u.done = done;
        u.total = total;
        u.parameters = request.parameters;
        u.point = point;
        report.sweep(u);
        if (m_betweenSweepPoints) m_betweenSweepPoints();
    };
    try {
        return runSweep(jit(), request, m_sweepCache.get(), &gpu(), hooks);
    } catch (const UserError& e) {
        if (e.loc().line > 0) throw;
        badRequest(e.message());
    }
}

bool RequestHandler::isGo(const std::string& line)
{
    return protocol::peekCommand(line) == "go";
}

bool RequestHandler::mayGoBetween(const std::string& line)
{
    return protocol::peekCommand(line) == "emit";
}

protocol::MachineReply RequestHandler::machine(const protocol::MachineRequest& request) const
{
    PeakFlops peak = measurePeakFlops(request.threads);
    Bandwidth bandwidth = measureTriadBandwidth(request.threads);
    protocol::MachineReply r;
    r.peakGflops = peak.gflops;
    r.vectorBits = peak.vectorBits;
    r.bandwidthGbs = bandwidth.gbPerS;
    r.threads = peak.threads;
    r.clockGhz = hostClockGhz();
    return r;
}

} // namespace loopscope::worker
