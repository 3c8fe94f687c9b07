// The tuner end to end, with the real worker process measuring every candidate: it finds a
// checked schedule for every sample and for generated programs (random shapes and dtypes, random
// pinned schedules); pinned steps survive; forbidden primitives never appear; a crashing
// candidate does not end the run; a log resumes.
#include "tune/Tuner.h"
#include "app/worker/QuickTuning.h"
#include "runtime/GpuRun.h"
#include "support/FuzzRunner.h"
#include "support/RandomSchedule.h"
#include "support/SourceFiles.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace loopscope;
using loopscope::testing::quickTuning;

namespace {

fs::path scratch()
{
    fs::path p = fs::temp_directory_path() / ("loopscope-tuner-test-" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
}

// The tuned variant written into the script evaluates, and its own steps begin with the start's.
void expectAppliedScriptEvaluates(const std::string& script, const TuneOutcome& out,
                                  const std::map<std::string, std::int64_t>& sizes)
{
    EvalResult eval = evaluateScript(script, sizes);
    ASSERT_TRUE(eval.ok);
    const Variant* start = eval.program.findVariant(out.startVariant);
    ASSERT_NE(start, nullptr);
    std::string applied = scriptWithVariant(script, *start, "tuned", out.bestStatements, false);
    EvalResult again = evaluateScript(applied, sizes);
    ASSERT_TRUE(again.ok) << again.error.loc.line << ": " << again.error.message << "\n" << applied;
    const Variant* tuned = again.program.findVariant("tuned");
    ASSERT_NE(tuned, nullptr);
    ASSERT_GE(tuned->steps.size(), start->steps.size());
    for (std::size_t i = 0; i < start->steps.size(); ++i)
        EXPECT_EQ(tuned->steps[i].text, start->steps[i].text) << "pinned step " << i;
    // Every variant after it is still there.
    EXPECT_EQ(again.program.variants.size(), eval.program.variants.size() + 1);
}

struct SampleCase {
    const char* file;
    const char* variant;
    std::map<std::string, std::int64_t> sizes;
};

// A failure names the sample and variant, not the bytes of the case.
void PrintTo(const SampleCase& c, std::ostream* os)
{
    *os << c.file << ", variant " << c.variant;
    for (auto& [name, value] : c.sizes)
        *os << " " << name << "=" << value;
}

const SampleCase kSamples[] = {
    {"opt_gemm", "baseline", {{"M", 128}, {"N", 128}, {"K", 128}}},
    {"opt_gemm", "blocking", {{"M", 128}, {"N", 128}, {"K", 128}}},
    {"matmul_ladder", "naive", {{"M", 96}, {"N", 64}, {"K", 80}}},
    {"gemm_best", "register blocked", {{"M", 128}, {"N", 128}, {"K", 64}}},
    {"add_relu", "separate", {{"N", 10000}}},
    {"transpose", "naive", {{"M", 256}, {"N", 128}}},
    {"softmax", "stages", {{"N", 64}, {"M", 100}}},
    {"conv2d", "naive", {{"in_channel", 8}, {"out_channel", 16}, {"in_size", 14}}},
    {"conv2d_blocked", "naive", {{"in_channel", 8}, {"out_channel", 32}, {"in_size", 14}}},
};

class TunerOnSamples : public ::testing::TestWithParam<SampleCase> {};

TEST_P(TunerOnSamples, FindsACheckedSchedule)
{
    const SampleCase& c = GetParam();
    const std::string script =
        readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / (std::string(c.file) + ".py"));
    WorkerMeasurer measurer(LOOPSCOPE_WORKER);
    TuneOptions o = quickTuning(6);
    o.variant = c.variant;
    o.sets = c.sizes;
    TuneOutcome out = Tuner(script, o, measurer).run();
    ASSERT_TRUE(out.ok) << out.error;
    // A variant whose steps pin nearly everything leaves few candidates: the space runs out.
    EXPECT_GE(out.trials.size(), 1u);
    EXPECT_LE(out.trials.size(), 6u);
    ASSERT_TRUE(out.haveBest) << c.file << ": " << out.trials.front().status << " "
                              << out.trials.front().error;
    EXPECT_TRUE(out.best.checked);
    EXPECT_EQ(out.best.status, "ok");
    EXPECT_GT(out.best.msMedian, 0);
    EXPECT_EQ(out.wrong, 0) << "a candidate computed wrong numbers";
    expectAppliedScriptEvaluates(script, out, c.sizes);
}

INSTANTIATE_TEST_SUITE_P(Samples, TunerOnSamples, ::testing::ValuesIn(kSamples),
                         [](const auto& info) {
                             std::string n =
                                 std::string(info.param.file) + "_" + info.param.variant;
                             for (auto& ch : n)
                                 if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return n;
                         });

// The panel rule finds batched and odd-shaped matmuls: the first candidate (the default, the
// machine's register block over packed panels of B) and every one after it compute the right
// numbers, tails and a batch axis included.
TEST(Tuner, RegisterBlocksOverPanelsFitBatchedAndOddShapedMatmuls)
{
    const char* scripts[] = {
        R"(from tvm import te
A = te.placeholder((3, 37, 29), name="A")
B = te.placeholder((3, 29, 53), name="B")
k = te.reduce_axis((0, 29), name="k")
C = te.compute((3, 37, 53), lambda b, i, j: te.sum(A[b, i, k] * B[b, k, j], axis=k), name="C")
s = te.create_schedule(C.op)
)",
        R"(from tvm import te
A = te.placeholder((67, 31), name="A")
B = te.placeholder((31, 45), name="B")
k = te.reduce_axis((0, 31), name="k")
C = te.compute((67, 45), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
s = te.create_schedule(C.op)
)",
    };
    WorkerMeasurer measurer(LOOPSCOPE_WORKER);
    for (const char* script : scripts) {
        SCOPED_TRACE(script);
        TuneOptions o = quickTuning(6);
        TuneOutcome out = Tuner(script, o, measurer).run();
        ASSERT_TRUE(out.ok) << out.error;
        ASSERT_FALSE(out.trials.empty());
        EXPECT_EQ(out.trials.front().sketch, "C: register blocks over panels of B");
        for (const TuneRecord& t : out.trials) {
            EXPECT_EQ(t.status, "ok") << t.sketch << ": " << t.error;
            EXPECT_TRUE(t.checked) << t.sketch;
        }
        EXPECT_EQ(out.wrong, 0) << "a candidate computed wrong numbers";
    }
}

// Programs of the differential generator, from their random (pinned) schedules and from no
// schedule at all.
TEST(Tuner, FindsCheckedSchedulesForGeneratedPrograms)
{
    WorkerMeasurer measurer(LOOPSCOPE_WORKER);
    int tuned = 0, noGpu = 0;
    for (std::uint64_t seed : {11u, 23u, 37u, 41u, 58u, 64u}) {
        FuzzCase fc = generateCase(seed);
        auto symbols = scriptSymbols(fc.script);
        // The program alone: everything up to its create_schedule.
        auto at = fc.script.find("s = te.create_schedule(");
        ASSERT_NE(at, std::string::npos);
        auto end = fc.script.find('\n', at);
        const std::string bare = fc.script.substr(0, end + 1);
        for (const std::string& script : {bare, fc.script}) {
            TuneOptions o = quickTuning(3);
            o.sets = symbols;
            TuneOutcome out = Tuner(script, o, measurer).run();
            // A schedule that binds GPU threads is GPU kernels, timed only on a GPU.
            if (!out.ok &&
                out.error.find("are timed on a GPU, and there is none here") != std::string::npos) {
                EvalResult eval = evaluateScript(script, symbols);
                ASSERT_TRUE(eval.ok);
                EXPECT_TRUE(tunesGpuKernels(eval.program.variants.front())) << script;
                ++noGpu;
                continue;
            }
            ASSERT_TRUE(out.ok) << fc.description << ": " << out.error << "\n" << script;
            EXPECT_EQ(out.wrong, 0) << fc.description << "\n" << script;
            ASSERT_TRUE(out.haveBest)
                << fc.description << ": "
                << (out.trials.empty() ? "no trial"
                                       : out.trials.front().status + " " + out.trials.front().error)
                << "\n"
                << script;
            ++tuned;
        }
    }
    EXPECT_EQ(tuned + noGpu, 12);
    EXPECT_GE(tuned, 6);
}

TEST(Tuner, ForbiddenPrimitivesNeverAppear)
{
    const std::string script = readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / "opt_gemm.py");
    WorkerMeasurer measurer(LOOPSCOPE_WORKER);
    TuneOptions o = quickTuning(8);
    o.sets = {{"M", 128}, {"N", 128}, {"K", 128}};
    o.forbidden = {"parallel", "cache_write", "pragma"};
    TuneOutcome out = Tuner(script, o, measurer).run();
    ASSERT_TRUE(out.ok) << out.error;
    ASSERT_TRUE(out.haveBest);
    for (auto& r : out.trials) {
        for (auto& s : r.steps)
            EXPECT_FALSE(o.forbidden.count(s.primitive)) << describe(s);
        for (auto& line : r.statements) {
            EXPECT_EQ(line.find(".parallel("), std::string::npos) << line;
            EXPECT_EQ(line.find("cache_write"), std::string::npos) << line;
            EXPECT_EQ(line.find(".pragma("), std::string::npos) << line;
        }
    }
}

TEST(Tuner, PinnedStepsSurviveAndPinnedSplitsAreNotSplitAgain)
{
    // The user fixed k's split (4) and made the outer loop parallel.
    const std::string script = R"(from tvm import te
M = N = K = 128
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
# variant: pinned
s = te.create_schedule(C.op)
ko, ki = s[C].split(k, factor=4)
)";
    WorkerMeasurer measurer(LOOPSCOPE_WORKER);
    TuneOptions o = quickTuning(6);
    TuneOutcome out = Tuner(script, o, measurer).run();
    ASSERT_TRUE(out.ok) << out.error;
    ASSERT_TRUE(out.haveBest);
    for (auto& r : out.trials) {
        for (auto& s : r.steps) {
            if (s.primitive == "split") {
                EXPECT_NE(s.allLoops()[0], "k") << describe(s);
                EXPECT_NE(s.allLoops()[0], "k.outer") << describe(s);
                EXPECT_NE(s.allLoops()[0], "k.inner") << describe(s);
            }
        }
    }
    expectAppliedScriptEvaluates(script, out, {});
}

TEST(Tuner, ACrashingCandidateDoesNotEndTheRun)
{
    const std::string script = readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / "add_relu.py");
    WorkerMeasurer measurer(LOOPSCOPE_WORKER, {"LOOPSCOPE_WORKER_TESTING=1"});
    TuneOptions o = quickTuning(4);
    o.sets = {{"N", 4096}};
    o.testingCrashFirst = true;
    TuneOutcome out = Tuner(script, o, measurer).run();
    ASSERT_TRUE(out.ok) << out.error;
    ASSERT_EQ(out.trials.size(), 4u);
    EXPECT_EQ(out.trials[0].status, "crashed");
    EXPECT_NE(out.trials[0].error.find("SIGSEGV"), std::string::npos) << out.trials[0].error;
    EXPECT_TRUE(out.haveBest);
    EXPECT_GE(measurer.restarts(), 1);
}

// A worker of another build (here: a script that answers as one speaking protocol 99) is
// refused with a message naming both protocols and its version; nothing is measured.
TEST(Tuner, AWorkerOfAnotherProtocolIsRefused)
{
    const fs::path fake = scratch() / "worker-of-another-build.sh";
    {
        std::ofstream out(fake);
        out << "#!/bin/sh\nwhile read line; do\n"
               "  echo '{\"id\": 1, \"status\": \"ok\", \"protocol\": 99, \"version\": "
               "\"9.9.9\"}'\n"
               "done\n";
    }
    fs::permissions(fake, fs::perms::owner_all);
    WorkerMeasurer measurer(fake.string());
    EXPECT_NE(measurer.machine().problem.find("the worker (Loopscope 9.9.9) speaks worker "
                                              "protocol 99"),
              std::string::npos)
        << measurer.machine().problem;
    const std::string script = readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / "add_relu.py");
    TuneOutcome out = Tuner(script, quickTuning(4), measurer).run();
    EXPECT_FALSE(out.ok);
    EXPECT_NE(out.error.find("both sides need the same build"), std::string::npos) << out.error;
    EXPECT_TRUE(out.trials.empty());
}

TEST(Tuner, AResumedLogCountsAsMeasuredAndGrows)
{
    const std::string script = readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / "opt_gemm.py");
    const fs::path log = scratch() / "resume.jsonl";
    fs::remove(log);
    WorkerMeasurer measurer(LOOPSCOPE_WORKER);
    TuneOptions o = quickTuning(4);
    o.sets = {{"M", 64}, {"N", 64}, {"K", 64}};
    o.logPath = log.string();
    o.remeasureTop = 0;
    TuneOutcome first = Tuner(script, o, measurer).run();
    ASSERT_TRUE(first.ok) << first.error;
    EXPECT_EQ(readLog(log).records.size(), 4u);

    o.resume = true;
    o.seed = 2;
    TuneOutcome second = Tuner(script, o, measurer).run();
    ASSERT_TRUE(second.ok) << second.error;
    EXPECT_EQ(second.reused.size(), 4u);
    EXPECT_EQ(second.trials.size(), 4u);
    EXPECT_EQ(second.trials.front().trial, 5);
    LogContents all = readLog(log);
    ASSERT_EQ(all.records.size(), 8u);
    std::set<std::string> keys;
    for (auto& r : all.records) {
        std::string key;
        for (auto& s : r.steps)
            key += describe(s) + ";";
        EXPECT_TRUE(keys.insert(key).second) << "measured twice: " << key;
    }
    // The log's best applies without tuning.
    o.trials = 0;
    TuneOutcome apply = Tuner(script, o, measurer).run();
    ASSERT_TRUE(apply.ok);
    EXPECT_TRUE(apply.trials.empty());
    ASSERT_TRUE(apply.haveBest);
    const TuneRecord* best = bestRecord(
        all.records, first.workload, {{"K", 64}, {"M", 64}, {"N", 64}, {"bn", 32}, {"kfactor", 4}});
    ASSERT_NE(best, nullptr);
    EXPECT_EQ(apply.best.statements, best->statements);

    // At another size, the records warm the model up but count for nothing else.
    o.trials = 2;
    o.resume = true;
    o.sets = {{"M", 96}, {"N", 64}, {"K", 64}};
    TuneOutcome other = Tuner(script, o, measurer).run();
    ASSERT_TRUE(other.ok);
    EXPECT_TRUE(other.reused.empty());
    EXPECT_FALSE(other.notes.empty());
    fs::remove_all(log.parent_path());
}

} // namespace

namespace {

protocol::MeasureRequest gemmRequest(const std::string& variant, int threads)
{
    protocol::MeasureRequest r =
        candidateRequest(readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / "opt_gemm.py"),
                         variant, {{"M", 64}, {"N", 64}, {"K", 64}}, threads);
    r.repeat = 2;
    r.minRepeatMs = 5;
    return r;
}

} // namespace

// Where the machine has a core more than the measurement uses, the next candidate compiles in a
// second worker while one is measured; with every core measuring, nothing overlaps.
TEST(WorkerMeasurer, CompilesTheNextCandidateWhileOneIsMeasuredWhereACoreIsFree)
{
    WorkerMeasurer measurer(LOOPSCOPE_WORKER);
    if (measurer.machine().threads < 2) GTEST_SKIP() << "one core: nothing can overlap";
    const protocol::MeasureRequest a = gemmRequest("blocking", 1),
                                   b = gemmRequest("vectorization", 1),
                                   c = gemmRequest("loop permutation", 1);
    for (const protocol::MeasureRequest* r : {&a, &b, &c}) {
        const protocol::MeasureRequest* next = r == &a ? &b : r == &b ? &c : nullptr;
        MeasureOutcome m = measurer.measureAhead(*r, next);
        EXPECT_EQ(m.status, MeasureOutcome::Status::Ok) << r->variant << ": " << m.message;
        EXPECT_TRUE(m.checked);
        EXPECT_GT(m.msMedian, 0);
    }
    EXPECT_EQ(measurer.overlapped(), 2);
    // A candidate held for next that is not measured next is dropped; the one asked for runs.
    MeasureOutcome m = measurer.measureAhead(a, &b);
    EXPECT_EQ(m.status, MeasureOutcome::Status::Ok) << m.message;
    m = measurer.measureAhead(c, nullptr);
    EXPECT_EQ(m.status, MeasureOutcome::Status::Ok) << m.message;
    EXPECT_EQ(measurer.overlapped(), 2);

    WorkerMeasurer allCores(LOOPSCOPE_WORKER);
    const protocol::MeasureRequest a0 = gemmRequest("blocking", 0),
                                   b0 = gemmRequest("vectorization", 0);
    EXPECT_EQ(allCores.measureAhead(a0, &b0).status, MeasureOutcome::Status::Ok);
    EXPECT_EQ(allCores.measureAhead(b0, nullptr).status, MeasureOutcome::Status::Ok);
    EXPECT_EQ(allCores.overlapped(), 0);
}

// A held candidate that crashes, or that the worker refuses before compiling, is reported as
// itself; the candidates around it are measured.
TEST(WorkerMeasurer, AHeldCandidateThatFailsIsReportedAndTheNextGoesOn)
{
    WorkerMeasurer measurer(LOOPSCOPE_WORKER, {"LOOPSCOPE_WORKER_TESTING=1"});
    if (measurer.machine().threads < 2) GTEST_SKIP() << "one core: nothing can overlap";
    protocol::MeasureRequest ok = gemmRequest("blocking", 1),
                             crash = gemmRequest("vectorization", 1),
                             missing = gemmRequest("no such variant", 1),
                             last = gemmRequest("loop permutation", 1);
    crash.testing.crash = true;
    EXPECT_EQ(measurer.measureAhead(ok, &crash).status, MeasureOutcome::Status::Ok);
    MeasureOutcome m = measurer.measureAhead(crash, &missing);
    EXPECT_EQ(m.status, MeasureOutcome::Status::Crashed);
    EXPECT_NE(m.message.find("SIGSEGV"), std::string::npos) << m.message;
    m = measurer.measureAhead(missing, &last);
    EXPECT_EQ(m.status, MeasureOutcome::Status::Error);
    EXPECT_NE(m.message.find("no such variant"), std::string::npos) << m.message;
    m = measurer.measureAhead(last, nullptr);
    EXPECT_EQ(m.status, MeasureOutcome::Status::Ok) << m.message;
    EXPECT_TRUE(m.checked);
    EXPECT_EQ(measurer.overlapped(), 3);
    EXPECT_GE(measurer.restarts(), 1);
}

namespace {

// A tir.Schedule variant tunes what it declares, and the answer is tir.Schedule calls on the
// variant's own schedule variable, in its spelling, from the function as declared: written as a
// new variant, it reads back as TensorIR and checks. A TVMScript module's variant, whose buffers
// no TE variable holds, is refused with the reason.
TEST(Tuner, ATensorIRVariantIsTunedAndAnsweredInTensorIR)
{
    const std::string script =
        readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / "tensorir" / "mm_relu.py");
    WorkerMeasurer measurer(LOOPSCOPE_WORKER);
    TuneOptions o = quickTuning(4);
    o.variant = "the tutorial's steps";
    o.sets = {{"M", 64}, {"N", 64}, {"K", 64}};
    TuneOutcome out = Tuner(script, o, measurer).run();
    ASSERT_TRUE(out.ok) << out.error;
    ASSERT_TRUE(out.haveBest);
    ASSERT_FALSE(out.bestStatements.empty());
    for (const std::string& s : out.bestStatements)
        EXPECT_TRUE(s.rfind("#", 0) == 0 || s.find("sch.") != std::string::npos) << s;
    EXPECT_NE(out.bestStatements.front().find(" = sch.get_block(\""), std::string::npos)
        << out.bestStatements.front();
    EvalResult eval = evaluateScript(script, o.sets);
    ASSERT_TRUE(eval.ok);
    const std::string applied = scriptWithVariant(script, *eval.program.findVariant(o.variant),
                                                  "tuned", out.bestStatements, false);
    EvalResult again = evaluateScript(applied, o.sets);
    ASSERT_TRUE(again.ok) << again.error.loc.line << ": " << again.error.message << "\n" << applied;
    const Variant* tuned = again.program.findVariant("tuned");
    ASSERT_NE(tuned, nullptr);
    EXPECT_NE(tuned->schedule().tensorIR(), nullptr);
    EXPECT_EQ(again.program.variants.size(), eval.program.variants.size() + 1);

    const std::string module =
        readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / "tensorir" / "mm_relu_module.py");
    TuneOptions m = quickTuning(4);
    TuneOutcome refused = Tuner(module, m, measurer).run();
    EXPECT_FALSE(refused.ok);
    EXPECT_NE(refused.error.find("needs its te.compute declarations"), std::string::npos)
        << refused.error;
}

// A GPU variant is searched from its declaration with the GPU rules and measured on the GPU by
// the worker's GPU runner. Without a GPU nothing is measured, and the error says why and what to
// give; with one (a lent machine), every measured candidate is checked there and timed, and its
// record names the GPU.
TEST(Tuner, AGpuVariantIsTunedOnTheGpuOrSaysWhyNot)
{
    const std::string script =
        readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / "gpu" / "matmul_cuda.py");
    WorkerMeasurer measurer(LOOPSCOPE_WORKER, {std::string("LOOPSCOPE_RUNNER_COMMAND=exec '") +
                                               LOOPSCOPE_RUNNER + "'"});
    TuneOptions o = quickTuning(6);
    o.variant = "bind";
    o.sets = {{"N", 512}};
    TuneOutcome out = Tuner(script, o, measurer).run();
    ASSERT_FALSE(out.notes.empty());
    EXPECT_NE(out.notes.front().find("the search for GPU kernels starts from the declaration"),
              std::string::npos)
        << out.notes.front();
    if (!out.ok) {
        EXPECT_NE(out.error.find("are timed on a GPU, and there is none here"), std::string::npos)
            << out.error;
        EXPECT_NE(out.error.find("--runner 'ssh gpu1 loopscope-runner'"), std::string::npos);
        EXPECT_TRUE(out.trials.empty());
        GpuRunner runner({LOOPSCOPE_RUNNER});
        if (!runner.device()) GTEST_SKIP() << "no GPU here: " << runner.unavailable();
        FAIL() << "a GPU is here, and the tuning failed: " << out.error;
    }
    ASSERT_TRUE(out.haveBest);
    EXPECT_FALSE(out.machine.gpu.empty());
    for (const TuneRecord& r : out.trials) {
        EXPECT_EQ(r.machine.gpu, out.machine.gpu);
        if (r.ok()) EXPECT_TRUE(r.checked);
    }
    // The answer is written from the declaration: it evaluates, binds threads and checks.
    EvalResult eval = evaluateScript(script, o.sets);
    ASSERT_TRUE(eval.ok);
    const std::string applied = scriptWithVariant(script, *eval.program.findVariant("bind"),
                                                  "tuned", out.bestStatements, false);
    EvalResult again = evaluateScript(applied, o.sets);
    ASSERT_TRUE(again.ok) << again.error.loc.line << ": " << again.error.message << "\n" << applied;
    EXPECT_TRUE(tunesGpuKernels(*again.program.findVariant("tuned")));
}

} // namespace
