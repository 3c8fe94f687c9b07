#include "TuneRequest.h"

#include "ir/Printer.h"
#include "lower/Lower.h"
#include "runtime/BlasReference.h"
#include "runtime/DnnlReference.h"
#include "runtime/Microbench.h"
#include "tune/Space.h"
#include "tune/Tuner.h"

namespace loopscope::worker {

using json = nlohmann::json;

namespace {

std::string tirOf(const Schedule& sch, const Variant& v)
{
    try {
        return printTVMScript(lowerSchedule(sch, v.args, v.funcName).func);
    } catch (const UserError& e) {
        return "# " + e.message() + "\n";
    }
}

json trialJson(const TuneRecord& r)
{
    json j{{"trial", r.trial},
           {"status", r.status},
           {"gflops", r.gflops},
           {"ms", r.msMedian},
           {"sketch", r.sketch}};
    if (!r.error.empty()) j["error"] = r.error;
    return j;
}

} // namespace

json runTuneRequest(const json& request, const std::function<void(const json&)>& progress,
                    const std::string& workerExecutable, bool testing)
{
    if (!request.contains("script") || !request.at("script").is_string())
        throw std::invalid_argument("the request needs \"script\", the script's text");
    const std::string script = request.at("script").get<std::string>();
    TuneOptions o;
    o.variant = request.value("variant", "");
    if (request.contains("sets"))
        o.sets = request.at("sets").get<std::map<std::string, std::int64_t>>();
    o.trials = request.value("trials", 64);
    o.seconds = request.value("seconds", 0.0);
    o.threads = request.value("threads", 0);
    if (request.contains("forbid"))
        for (auto& p : request.at("forbid"))
            o.forbidden.insert(p.get<std::string>());
    o.logPath = request.value("log", "");
    o.resume = request.value("resume", false);
    o.seed = request.value("seed", std::uint64_t{1});
    o.testingCrashFirst = testing && request.value("crash_first", false);
    if (o.trials < 0) throw std::invalid_argument("\"trials\" must be 0 or more");

    EvalResult eval = evaluateScript(script, o.sets);
    if (!eval.ok) throw UserError(eval.error.loc, eval.error.message);
    const Variant* start =
        o.variant.empty()
            ? (eval.program.variants.empty() ? nullptr : &eval.program.variants.front())
            : eval.program.findVariant(o.variant);
    if (!start)
        throw UserError({}, o.variant.empty() ? "the script has no variant to tune"
                                              : "no variant '" + o.variant + "'");

    // What the chart draws before the first trial: the reference line, timed here.
    json first{{"phase", "tune"},
               {"fraction", 0.0},
               {"trials_done", 0},
               {"trials_planned", o.trials},
               {"start_tir", tirOf(start->schedule(), *start)}};
    if (auto conv = conv2dShape(eval.program)) {
        if (const DnnlLibrary* dnnl = DnnlLibrary::load()) {
            double ms = dnnl->convMs(*conv, o.threads, 5, 100);
            if (ms > 0)
                first["reference"] = {{"name", dnnl->label()},
                                      {"gflops", conv->flops() / ms / 1e6}};
        }
    } else if (auto mm = matmulShape(eval.program)) {
        if (const BlasLibrary* blas = BlasLibrary::openblas()) {
            double ms = blas->sgemmMs(static_cast<int>(mm->m), static_cast<int>(mm->n),
                                      static_cast<int>(mm->k), o.threads, 5, 100);
            first["reference"] = {{"name", blas->label()},
                                  {"gflops", 2.0 * mm->m * mm->n * mm->k / ms / 1e6}};
        }
    }
    if (request.value("peak", false)) first["peak_gflops"] = measurePeakFlops(o.threads).gflops;
    std::vector<std::string> env;
    if (testing) env.push_back("LOOPSCOPE_WORKER_TESTING=1");
    WorkerMeasurer measurer(workerExecutable, env);
    MachineInfo machine = measurer.machine();
    first["machine"] = {{"cpu", machine.cpu}, {"vector_bits", machine.vectorBits}};
    // The script's own variants, for the chart's line of the fastest hand schedule: each one's
    // last step measured as the ladder does, a slow one cut short.
    if (request.value("hand", false)) {
        json best;
        for (const Variant& v : eval.program.variants) {
            MeasureRequest m;
            m.script = script;
            m.variant = v.name;
            m.sets = o.sets;
            m.threads = o.threads;
            m.repeat = 3;
            m.minRepeatMs = 40;
            m.maxRunMs = 1000;
            MeasureResult r = measurer.measure(m);
            if (r.status != MeasureResult::Status::Ok || r.tooSlow || !r.checked) continue;
            if (best.is_null() || r.msMedian < best.value("ms", 0.0))
                best = {{"name", v.name}, {"ms", r.msMedian}, {"gflops", r.gflops()}};
        }
        if (!best.is_null()) first["hand"] = best;
    }
    progress(first);

    int lastBest = -1;
    auto report = [&](const TuneProgress& p) {
        if (p.phase != TuneProgress::Phase::Measuring || !p.latest) return;
        json m{{"phase", "tune"},
               {"trials_done", p.trialsDone},
               {"trials_planned", p.trialsPlanned},
               {"elapsed_s", p.elapsedS},
               {"remaining_s", p.remainingS},
               {"trial", trialJson(*p.latest)}};
        double fraction = 0;
        if (p.trialsPlanned > 0) fraction = static_cast<double>(p.trialsDone) / p.trialsPlanned;
        if (o.seconds > 0) fraction = std::max(fraction, std::min(1.0, p.elapsedS / o.seconds));
        m["fraction"] = std::min(1.0, fraction);
        if (p.bestTrial > 0) {
            m["best"] = {{"trial", p.bestTrial}, {"gflops", p.bestGflops}, {"ms", p.bestMs}};
            if (p.bestTrial != lastBest && p.latest->trial == p.bestTrial) {
                lastBest = p.bestTrial;
                Realized r = replaySteps(*start, p.latest->steps, true);
                m["best_statements"] = r.statements;
                if (r.ok) m["best_tir"] = tirOf(r.schedule, *start);
            }
        }
        progress(m);
    };
    TuneOutcome out = Tuner(script, o, measurer).run(report);
    if (!out.ok) throw UserError(start->loc, out.error);

    std::vector<std::string> names;
    for (auto& v : eval.program.variants)
        names.push_back(v.name);
    json result{{"status", "ok"},
                {"start", out.startVariant},
                {"name", tunedVariantName(out.startVariant, names)},
                {"trials", out.trials.size()},
                {"reused", out.reused.size()},
                {"failed", out.failed},
                {"notes", out.notes},
                {"log", o.logPath}};
    if (out.haveBest) {
        result["best"] = {{"trial", out.best.trial},
                          {"gflops", out.best.gflops},
                          {"ms", out.best.msMedian},
                          {"sketch", out.best.sketch}};
        result["statements"] = out.bestStatements;
        Realized r = replaySteps(*start, out.best.steps, true);
        if (r.ok) result["best_tir"] = tirOf(r.schedule, *start);
    }
    return result;
}

} // namespace loopscope::worker
