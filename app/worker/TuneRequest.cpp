#include "TuneRequest.h"

#include "codegen/Codegen.h"
#include "ir/Host.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "runtime/BlasReference.h"
#include "runtime/DnnlReference.h"
#include "runtime/Microbench.h"
#include "tune/RunnerPool.h"
#include "tune/Space.h"
#include "tune/Tuner.h"

namespace loopscope::worker {

namespace {

std::string tirOf(const Schedule& sch, const Variant& v)
{
    try {
        return printTVMScript(lowerSchedule(sch, v.args, v.funcName).func);
    } catch (const UserError& e) {
        return "# " + e.message() + "\n";
    }
}

protocol::TuneTrial trialOf(const TuneRecord& r)
{
    return {r.trial, r.status, r.gflops, r.msMedian, r.error, r.sketch};
}

} // namespace

protocol::TuneReply runTuneRequest(const protocol::TuneRequest& request,
                                   const std::function<void(const protocol::TuneUpdate&)>& progress,
                                   const std::string& workerExecutable, bool testing)
{
    const std::string& script = request.script;
    TuneOptions o;
    o.variant = request.variant;
    o.sets = request.sets;
    o.trials = request.trials;
    o.seconds = request.seconds;
    o.threads = request.threads;
    o.forbidden.insert(request.forbid.begin(), request.forbid.end());
    o.logPath = request.log;
    o.resume = request.resume;
    o.seed = request.seed;
    o.testingCrashFirst = testing && request.crashFirst;

    EvalResult eval = evaluateScript(script, o.sets);
    if (!eval.ok) throw UserError(eval.error.loc, eval.error.message);
    const Variant* start =
        o.variant.empty()
            ? (eval.program.variants.empty() ? nullptr : &eval.program.variants.front())
            : eval.program.findVariant(o.variant);
    if (!start)
        throw UserError({}, o.variant.empty() ? "the script has no variant to tune"
                                              : "no variant '" + o.variant + "'");

    std::vector<std::string> env;
    if (testing) env.push_back("LOOPSCOPE_WORKER_TESTING=1");
    std::unique_ptr<Measurer> measurerOwned =
        makeMeasurer(workerExecutable, request.runner, request.runners, env);
    Measurer& measurer = *measurerOwned;
    // GPU kernels are measured on the worker's GPU runner (Run > Settings' GPU runner), or on
    // each runner's own.
    const bool gpu = tunesGpuKernels(*start);
    if (gpu) measurer.askForGpu();
    MachineInfo machine = measurer.machine();
    if (!machine.problem.empty()) throw UserError(start->loc, machine.problem);
    // Runners on another machine: the lines timed here (the library, the peak) would be another
    // machine's numbers beside theirs, so there are none.
    const bool here =
        machine.host.empty() || (machine.host == hostName() && machine.cpu == hostTarget().cpu);

    // What the chart draws before the first trial: the reference line, timed here.
    protocol::TuneUpdate first;
    first.planned = o.trials;
    first.startTir = tirOf(start->schedule(), *start);
    if (gpu) {
        // On the GPU: the start variant run once with its reference (cuBLAS for a matmul, cuDNN
        // for a convolution) timed in turns; the reference's line is drawn from its time.
        if (machine.gpuDevice) {
            protocol::MeasureRequest m = candidateRequest(script, start->name, o.sets, o.threads);
            m.repeat = 3;
            m.maxRunMs = 2000;
            const MeasureOutcome r = measurer.measure(m);
            if (r.status == MeasureOutcome::Status::Ok && r.referenceMs > 0 && r.flops > 0) {
                first.referenceName = r.reference;
                first.referenceGflops = r.flops / r.referenceMs / 1e6;
            }
        }
    } else if (!here) {
        // nothing timed here
    } else if (auto conv = conv2dShape(eval.program)) {
        if (const DnnlLibrary* dnnl = DnnlLibrary::load()) {
            double ms = dnnl->convMs(*conv, o.threads, 5, 100);
            if (ms > 0) {
                first.referenceName = dnnl->label();
                first.referenceGflops = conv->flops() / ms / 1e6;
            }
        }
    } else if (auto mm = matmulShape(eval.program)) {
        if (const BlasLibrary* blas = BlasLibrary::openblas()) {
            double ms = blas->sgemmMs(static_cast<int>(mm->m), static_cast<int>(mm->n),
                                      static_cast<int>(mm->k), o.threads, 5, 100);
            first.referenceName = blas->label();
            first.referenceGflops = 2.0 * mm->m * mm->n * mm->k / ms / 1e6;
        }
    }
    if (request.peak && here && !gpu) first.peakGflops = measurePeakFlops(o.threads).gflops;
    first.machine = machine;
    // The script's own variants, for the chart's line of the fastest hand schedule: each one's
    // last step measured as the ladder does, a slow one cut short.
    if (request.hand) {
        for (const Variant& v : eval.program.variants) {
            protocol::MeasureRequest m = candidateRequest(script, v.name, o.sets, o.threads);
            m.repeat = 3;
            m.minRepeatMs = 40;
            m.maxRunMs = 1000;
            MeasureOutcome r = measurer.measure(m);
            if (r.status != MeasureOutcome::Status::Ok || r.tooSlow || !r.checked) continue;
            if (first.handName.empty() || r.msMedian < first.handMs) {
                first.handName = v.name;
                first.handMs = r.msMedian;
                first.handGflops = r.gflops();
            }
        }
    }
    progress(first);

    int lastBest = -1;
    auto report = [&](const TuneProgress& p) {
        if (p.phase != TuneProgress::Phase::Measuring || !p.latest) return;
        protocol::TuneUpdate m;
        m.done = p.trialsDone;
        m.planned = p.trialsPlanned;
        m.elapsedS = p.elapsedS;
        m.remainingS = p.remainingS;
        m.trial = trialOf(*p.latest);
        double fraction = 0;
        if (p.trialsPlanned > 0) fraction = static_cast<double>(p.trialsDone) / p.trialsPlanned;
        if (o.seconds > 0) fraction = std::max(fraction, std::min(1.0, p.elapsedS / o.seconds));
        m.fraction = std::min(1.0, fraction);
        if (p.bestTrial > 0) {
            m.bestTrial = p.bestTrial;
            m.bestGflops = p.bestGflops;
            m.bestMs = p.bestMs;
            if (p.bestTrial != lastBest && p.latest->trial == p.bestTrial) {
                lastBest = p.bestTrial;
                Realized r = replaySteps(gpu ? declaration(*start) : *start, p.latest->steps, true);
                m.bestStatements = r.statements;
                if (r.ok) m.bestTir = tirOf(r.schedule, *start);
            }
        }
        progress(m);
    };
    TuneOutcome out = Tuner(script, o, measurer).run(report);
    if (!out.ok) throw UserError(start->loc, out.error);

    std::vector<std::string> names;
    for (auto& v : eval.program.variants)
        names.push_back(v.name);
    protocol::TuneReply result;
    result.start = out.startVariant;
    result.name = tunedVariantName(out.startVariant, names);
    result.trials = static_cast<int>(out.trials.size());
    result.reused = static_cast<int>(out.reused.size());
    result.failed = out.failed;
    result.notes = out.notes;
    result.log = o.logPath;
    if (out.haveBest) {
        result.bestTrial = out.best.trial;
        result.bestGflops = out.best.gflops;
        result.bestMs = out.best.msMedian;
        result.sketch = out.best.sketch;
        result.statements = out.bestStatements;
        Realized r = replaySteps(gpu ? declaration(*start) : *start, out.best.steps, true);
        if (r.ok) result.bestTir = tirOf(r.schedule, *start);
    }
    return result;
}

} // namespace loopscope::worker
