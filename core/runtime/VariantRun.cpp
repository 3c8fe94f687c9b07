#include "runtime/VariantRun.h"

#include "ir/Printer.h"
#include "runtime/GpuRun.h"

#include <algorithm>
#include <cctype>
#include <chrono>

namespace loopscope {

namespace {

std::string joined(const std::vector<std::string>& names)
{
    std::string out;
    for (auto& n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

} // namespace

ScriptEvaluation evaluateWithValues(const std::string& source,
                                    const std::map<std::string, std::int64_t>& values)
{
    ScriptEvaluation out;
    std::vector<std::string> unused;
    out.result = evaluateScript(source, values, &unused);
    if (!out.result.ok) return out;
    const auto& sizeVars = out.result.program.sizeVars;
    for (auto& n : unused) {
        bool isSymbol = std::any_of(sizeVars.begin(), sizeVars.end(),
                                    [&](const SizeVar& v) { return v.name == n; });
        if (isSymbol)
            out.symbols[n] = values.at(n);
        else
            out.unknownNames.push_back(n);
    }
    return out;
}

std::string parameterList(const Program& program)
{
    std::vector<std::string> names;
    for (auto& p : program.parameters)
        names.push_back(p.name);
    return joined(names);
}

std::string variantList(const Program& program)
{
    std::vector<std::string> names;
    for (auto& v : program.variants)
        names.push_back(v.name);
    return joined(names);
}

bool isValidStep(const Variant& variant, int step)
{
    return step >= -1 && step <= static_cast<int>(variant.steps.size()) &&
           step < static_cast<int>(variant.snapshots.size());
}

bool VariantRunOutcome::checked() const
{
    return checkRan && !wrong &&
           std::none_of(checks.begin(), checks.end(), [](const OutputCheck& c) {
               return c.result.checked == 0 && !c.result.skipped.empty();
           });
}

double VariantRunOutcome::gflops() const
{
    if (!timing || timing->median <= 0) return 0.0;
    return flops / (timing->median * 1e6);
}

std::string VariantRunOutcome::firstProblem() const
{
    for (auto& c : checks) {
        if (c.result.ok) continue;
        if (!c.result.error.empty()) return c.tensor + ": " + c.result.error;
        return c.result.firstMismatch;
    }
    return {};
}

double VariantRunOutcome::maxAbsError() const
{
    double e = 0;
    for (auto& c : checks)
        e = std::max(e, c.result.maxAbsError);
    return e;
}

VariantRunOutcome runVariant(const Program& program, const Variant& variant,
                             const VariantRunOptions& given, const VariantRunHooks& hooks)
{
    VariantRunOptions options = given; // beforeFirstRun may change what follows compiling
    LS_ASSERT(isValidStep(variant, options.step), "no such step");
    // Overall progress: compiling, then checking, then timing, weighted by their usual cost.
    const double compileWeight = 0.3;
    const double checkWeight = options.check ? 0.2 : 0.0;
    const double timeWeight = options.time ? 0.5 : 0.0;
    const double totalWeight = compileWeight + checkWeight + timeWeight;
    auto report = [&](RunPhase phase, double fraction) {
        if (hooks.progress) hooks.progress(phase, std::clamp(fraction, 0.0, 1.0));
    };

    report(RunPhase::Compiling, 0.0);
    auto prepared = PreparedRun::prepare(program, variant, options.config, options.step);
    VariantRunOutcome out;
    out.lowerMs = prepared->lowerMs();
    out.compileMs = prepared->compileMs();
    out.flops = prepared->flops();
    out.notes = prepared->notes();

    if (hooks.beforeFirstRun) hooks.beforeFirstRun(*prepared, options);
    double done = compileWeight / totalWeight;
    auto check = [&] {
        out.checkRan = true;
        out.checks = prepared->check();
        out.wrong = std::any_of(out.checks.begin(), out.checks.end(),
                                [](const OutputCheck& c) { return !c.result.ok; });
    };
    if (prepared->isGpu()) {
        GpuRunner* gpu = options.config.gpu;
        if (gpu && gpu->device()) {
            // On the GPU: one request runs it, times it, and returns the outputs to check.
            report(RunPhase::Timing, done);
            BenchmarkOptions timing = options.benchmark;
            if (!options.time) timing.repeat = 0;
            std::string note;
            GpuReference reference;
            const Measurement m =
                runOnGpu(*prepared, *gpu, timing, &note, options.time ? &reference : nullptr);
            out.reference = reference.name;
            out.referenceMs = reference.ms;
            out.copyGbs = reference.copyGbs;
            out.kernelGbs = reference.kernelGbs;
            out.notes.push_back(note);
            out.runMs = m.msPerRun.empty() ? 0.0 : m.median;
            if (hooks.afterFirstRun) hooks.afterFirstRun(*prepared);
            if (options.check) check();
            if (options.time && !out.wrong && !m.msPerRun.empty()) out.timing = m;
            return out;
        }
        // No GPU: the kernels run on this CPU, blocks in turn and the threads of a block in
        // turn between barriers, to be checked; their CPU times say nothing of a GPU's.
        std::string note = kNoGpuNote;
        if (!options.checkedAt.empty())
            note = "no GPU here: checked on the CPU at " + options.checkedAt + ", not timed";
        const std::string why = gpu ? gpu->unavailable() : std::string();
        if (!why.empty()) note += " (" + why + ")";
        out.notes.push_back(note);
        options.check = true;
        options.time = false;
    }
    report(options.check || !options.time ? RunPhase::Checking : RunPhase::Timing, done);
    auto t0 = std::chrono::steady_clock::now();
    prepared->run();
    out.runMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (hooks.afterFirstRun) hooks.afterFirstRun(*prepared);

    if (options.check) {
        check();
        done += checkWeight / totalWeight;
    }
    out.tooSlow = options.maxFirstRunMs > 0 && out.runMs > options.maxFirstRunMs;
    if (options.time && !out.wrong && !out.tooSlow) {
        report(RunPhase::Timing, done);
        int repeats = std::max(1, options.benchmark.repeat);
        double start = done;
        // One measurement at a time, so progress can be told between them.
        out.timing =
            measureInTurns({[&] { prepared->run(); }}, options.benchmark, [&](int finished) {
                report(RunPhase::Timing, start + timeWeight / totalWeight * finished / repeats);
            }).front();
    }
    return out;
}

Diagnostic cannotRunDiagnostic(const Variant& variant, const CodegenError& error)
{
    return Diagnostic{variant.loc, "variant '" + variant.name + "' cannot run: " + error.what()};
}

std::string exportedFunctionName(const Variant& variant)
{
    if (variant.funcName != "main") return variant.funcName;
    std::string name = scriptName(variant.name);
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "variant_" + name;
    return name;
}

} // namespace loopscope
