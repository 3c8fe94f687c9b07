// Evaluating a script with parameter values and running one variant (at one of its steps) on
// seeded inputs: compile, run, check against the reference, time. The logic loopscope-cli's run
// and bench and the app's worker share.
#pragma once

#include "runtime/LocalRun.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace loopscope {

// A script evaluated with `--set`-style values: names of parameters rebind them, names of
// symbolic sizes (te.var) become their run-time values, other names are listed as unknown.
struct ScriptEvaluation {
    EvalResult result;
    std::map<std::string, std::int64_t> symbols;
    std::vector<std::string> unknownNames;
};
ScriptEvaluation evaluateWithValues(const std::string& source,
                                    const std::map<std::string, std::int64_t>& values);

// "M, K, N" (empty when the program has no parameters).
std::string parameterList(const Program& program);
// "naive, tiled".
std::string variantList(const Program& program);

// The steps of a variant that can run: -1 (after its last step), 0 (untransformed) .. steps.size().
bool isValidStep(const Variant& variant, int step);

enum class RunPhase {
    Compiling, // lowering and code generation
    Checking,  // the first run and the comparison with the reference
    Timing,    // the first run when nothing is checked, then the measurements
};

struct VariantRunOptions {
    int step = -1; // see isValidStep
    bool check = false;
    bool time = false;
    // When the first run takes longer than this (0: no limit), nothing is timed: the first
    // run's time stands (the tuner's cut-off for candidates far slower than its best).
    double maxFirstRunMs = 0;
    BenchmarkOptions benchmark;
    RunConfig config;
    // A GPU variant run without a GPU at smaller sizes than the script's (runtime/CpuCheckSize):
    // which ("N=512"), said in its note.
    std::string checkedAt;
};

struct VariantRunHooks {
    // The phase being entered or advanced, with the run's overall progress (0..1, rising).
    std::function<void(RunPhase, double fraction)> progress;
    // Called once the variant is compiled, before its first run: it may change the options of
    // what follows (the tuner's held candidates get their run's parameters only then).
    std::function<void(PreparedRun&, VariantRunOptions&)> beforeFirstRun;
    // Called after the first run and before the check.
    std::function<void(PreparedRun&)> afterFirstRun;
};

struct VariantRunOutcome {
    double lowerMs = 0;
    double compileMs = 0;
    double runMs = 0;     // the first run
    bool tooSlow = false; // the first run took longer than maxFirstRunMs: not timed
    double flops = 0;
    std::vector<std::string> notes; // e.g. a symbolic size that took its default value
    bool checkRan = false;
    std::vector<OutputCheck> checks;
    bool wrong = false;                // a check found wrong numbers; nothing was timed then
    std::optional<Measurement> timing; // when timed and not wrong
    // A GPU run's reference, timed in turns with it (runOnGpu): its name, median or bandwidth.
    std::string reference;
    double referenceMs = 0;
    double copyGbs = 0, kernelGbs = 0;

    // A check ran, found nothing wrong, and compared elements of every output (none was left out
    // whole for the reference interpreter's step limit).
    bool checked() const;
    double gflops() const;
    // The first failing output's mismatch (or why it could not be compared), e.g.
    // "C[3, 17] = 1.25 but expected 1.5"; empty when nothing is wrong.
    std::string firstProblem() const;
    double maxAbsError() const; // over every checked output
};

// Compiles the variant's schedule after `options.step` steps and runs it once; then, as asked,
// checks the outputs and (unless they are wrong) times it with time_evaluator semantics.
// Throws UserError (the schedule cannot be lowered) or CodegenError (the CPU cannot run it).
VariantRunOutcome runVariant(const Program& program, const Variant& variant,
                             const VariantRunOptions& options, const VariantRunHooks& hooks = {});

// The diagnostic for a variant the host CPU cannot run, at its create_schedule line.
Diagnostic cannotRunDiagnostic(const Variant& variant, const CodegenError& error);

// The name exported code gives the variant's function: the one given to tvm.build, else the
// variant's (a C function cannot be called main, and several exported variants can be linked
// together).
std::string exportedFunctionName(const Variant& variant);

} // namespace loopscope
