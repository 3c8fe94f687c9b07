// The tuner's search on its own, with a measurer and a cost model of the test's making (no worker
// process, no XGBoost): the default schedule first, the budget kept, the fastest checked trial as
// the best (a wrong one never), a crash or a cancel handled, a resumed log counted as measured,
// every throughput learnt, and the same seed giving the same trials.
#include "ir/IRMutator.h"
#include "lower/Lower.h"
#include "support/SourceFiles.h"
#include "tune/CostModel.h"
#include "tune/Features.h"
#include "tune/TuneLog.h"
#include "tune/Tuner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace loopscope {
namespace {

namespace fs = std::filesystem;

std::string readSample(const std::string& name)
{
    return readSourceFile("samples/" + name);
}

// The candidate's statements, as the request's script holds them after its variant comment.
std::string candidateOf(const protocol::MeasureRequest& r)
{
    const auto at = r.script.find("# variant: " + r.variant);
    return at == std::string::npos ? r.script : r.script.substr(at);
}

// Times from the candidate's text: each candidate has its own, the same every time.
MeasureOutcome timed(double ms)
{
    MeasureOutcome m;
    m.status = MeasureOutcome::Status::Ok;
    m.msMedian = m.msMin = m.msMax = ms;
    m.flops = 2.0 * 64 * 64 * 64;
    m.checked = true;
    return m;
}

double msOf(const protocol::MeasureRequest& r)
{
    return 1.0 + static_cast<double>(std::hash<std::string>{}(candidateOf(r)) % 1000) / 100.0;
}

class FakeMeasurer : public Measurer {
public:
    std::function<MeasureOutcome(const protocol::MeasureRequest&, int index)> answer =
        [](const protocol::MeasureRequest& r, int) { return timed(msOf(r)); };
    std::vector<protocol::MeasureRequest> requests;

    MachineInfo machine() override
    {
        MachineInfo m;
        m.cpu = "testcpu";
        m.vectorBits = 256;
        m.threads = 2;
        return m;
    }
    MeasureOutcome measure(const protocol::MeasureRequest& r) override
    {
        requests.push_back(r);
        return answer(r, static_cast<int>(requests.size()) - 1);
    }
};

// Scores a candidate by its features' sum; remembers what it was trained on.
class FakeModel : public ThroughputModel {
public:
    std::vector<double> lastThroughputs;
    int trainings = 0;
    int predictions = 0;

    bool train(const std::vector<const FeatureRows*>& programs,
               const std::vector<double>& throughput) override
    {
        EXPECT_EQ(programs.size(), throughput.size());
        lastThroughputs = throughput;
        ++trainings;
        return true;
    }
    bool trained() const override { return trainings > 0; }
    std::vector<double> predict(const std::vector<const FeatureRows*>& programs) const override
    {
        const_cast<FakeModel*>(this)->predictions += static_cast<int>(programs.size());
        std::vector<double> scores;
        for (const FeatureRows* f : programs) {
            double sum = 0;
            for (float v : f->values)
                sum += v;
            scores.push_back(sum);
        }
        return scores;
    }
};

TuneOptions smallGemm(int trials)
{
    TuneOptions o;
    o.variant = "baseline";
    o.sets = {{"M", 64}, {"N", 64}, {"K", 64}};
    o.trials = trials;
    o.batch = 4;
    o.population = 48;
    o.generations = 2;
    o.remeasureTop = 0;
    return o;
}

std::set<std::string> candidates(const std::vector<protocol::MeasureRequest>& requests)
{
    std::set<std::string> out;
    for (auto& r : requests)
        out.insert(candidateOf(r));
    return out;
}

TEST(TunerSearch, MeasuresTheDefaultFirstAndKeepsTheBudget)
{
    FakeMeasurer measurer;
    FakeModel model;
    TuneOutcome out = Tuner(readSample("opt_gemm.py"), smallGemm(10), measurer, &model).run();
    ASSERT_TRUE(out.ok) << out.error;
    ASSERT_EQ(out.trials.size(), 10u);
    EXPECT_EQ(measurer.requests.size(), 10u);
    EXPECT_EQ(candidates(measurer.requests).size(), 10u) << "a candidate was measured twice";
    for (std::size_t i = 0; i < out.trials.size(); ++i)
        EXPECT_EQ(out.trials[i].trial, static_cast<int>(i) + 1);
    // The first trial is the default schedule: the tuner's answer is never slower than it.
    EXPECT_GE(out.times.rounds, 3);
    EXPECT_FALSE(out.trials.front().statements.empty());
}

// At the end the best few and the default are measured again in turns: a candidate whose first
// measurement was lucky (here every candidate but the default measures 2 ms once, then its own
// time of 3 to 13 ms; the default measures 2.5 ms every time) loses to the default, and each
// is measured once per round. (Lucky ones left out of the few would keep their 2 ms: here all 8
// are measured again.)
TEST(TunerSearch, TheBestFewAndTheDefaultAreMeasuredAgainInTurns)
{
    FakeMeasurer measurer;
    std::map<std::string, int> seen;
    std::string defaultCandidate;
    measurer.answer = [&](const protocol::MeasureRequest& r, int index) {
        const std::string c = candidateOf(r);
        if (index == 0) defaultCandidate = c;
        if (c == defaultCandidate) return timed(2.5);
        return timed(seen[c]++ == 0 ? 2.0 : 2.0 + msOf(r));
    };
    FakeModel model;
    TuneOptions o = smallGemm(8);
    o.remeasureTop = 8;
    TuneOutcome out = Tuner(readSample("opt_gemm.py"), o, measurer, &model).run();
    ASSERT_TRUE(out.ok) << out.error;
    ASSERT_TRUE(out.haveBest);
    EXPECT_EQ(out.best.trial, 1) << "a lucky first measurement stayed the best";
    EXPECT_DOUBLE_EQ(out.best.msMedian, 2.5);
    // 8 trials, then 3 rounds of all 8.
    ASSERT_EQ(measurer.requests.size(), 8u + 3u * 8u);
    for (int round = 0; round < 3; ++round) {
        std::set<std::string> inRound;
        for (int i = 0; i < 8; ++i)
            inRound.insert(candidateOf(measurer.requests[8 + round * 8 + i]));
        EXPECT_EQ(inRound.size(), 8u) << "round " << round;
        EXPECT_TRUE(inRound.count(defaultCandidate)) << "round " << round;
    }
}

TEST(TunerSearch, TheBestIsTheFastestCheckedTrialAndNeverAWrongOne)
{
    FakeMeasurer measurer;
    // Every third candidate computes wrong numbers, and is the fastest of all when it does.
    measurer.answer = [](const protocol::MeasureRequest& r, int index) {
        if (index % 3 == 2) {
            MeasureOutcome m = timed(0.01);
            m.status = MeasureOutcome::Status::Wrong;
            m.checked = false;
            m.message = "wrong numbers";
            return m;
        }
        return timed(msOf(r));
    };
    FakeModel model;
    TuneOutcome out = Tuner(readSample("opt_gemm.py"), smallGemm(12), measurer, &model).run();
    ASSERT_TRUE(out.ok) << out.error;
    ASSERT_TRUE(out.haveBest);
    double fastest = 1e9;
    int wrong = 0;
    for (auto& t : out.trials) {
        if (t.status == "wrong") ++wrong;
        if (t.status == "ok") fastest = std::min(fastest, t.msMedian);
    }
    EXPECT_EQ(wrong, 4);
    EXPECT_EQ(out.wrong, 4);
    EXPECT_EQ(out.failed, 4);
    EXPECT_EQ(out.best.status, "ok");
    EXPECT_DOUBLE_EQ(out.best.msMedian, fastest);
}

TEST(TunerSearch, ACrashIsAFailedTrialAndTheRunGoesOn)
{
    FakeMeasurer measurer;
    measurer.answer = [](const protocol::MeasureRequest& r, int index) {
        if (index == 0) {
            MeasureOutcome m;
            m.status = MeasureOutcome::Status::Crashed;
            m.message = "the worker died (signal 11)";
            return m;
        }
        return timed(msOf(r));
    };
    FakeModel model;
    TuneOutcome out = Tuner(readSample("opt_gemm.py"), smallGemm(6), measurer, &model).run();
    ASSERT_TRUE(out.ok) << out.error;
    ASSERT_EQ(out.trials.size(), 6u);
    EXPECT_EQ(out.trials.front().status, "crashed");
    EXPECT_EQ(out.failed, 1);
    EXPECT_TRUE(out.haveBest);
}

TEST(TunerSearch, ACancelEndsTheRunAfterTheTrialInHand)
{
    FakeMeasurer measurer;
    FakeModel model;
    TuneOutcome out =
        Tuner(readSample("opt_gemm.py"), smallGemm(20), measurer, &model).run({}, [&] {
            return measurer.requests.size() >= 3;
        });
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_TRUE(out.cancelled);
    EXPECT_EQ(out.trials.size(), 3u);
}

TEST(TunerSearch, TheModelLearnsEveryMeasuredThroughput)
{
    FakeMeasurer measurer;
    FakeModel model;
    TuneOutcome out = Tuner(readSample("opt_gemm.py"), smallGemm(12), measurer, &model).run();
    ASSERT_TRUE(out.ok) << out.error;
    ASSERT_EQ(model.lastThroughputs.size(), out.trials.size());
    for (std::size_t i = 0; i < out.trials.size(); ++i)
        EXPECT_DOUBLE_EQ(model.lastThroughputs[i], 1000.0 / out.trials[i].msMedian) << i;
    // Once trained, the search ranks what it proposes with the model.
    EXPECT_GT(model.predictions, 0);
    EXPECT_EQ(out.times.candidatesRanked, model.predictions);
}

TEST(TunerSearch, TheSameSeedGivesTheSameTrials)
{
    auto statements = [](std::uint64_t seed) {
        FakeMeasurer measurer;
        FakeModel model;
        TuneOptions o = smallGemm(10);
        o.seed = seed;
        TuneOutcome out = Tuner(readSample("opt_gemm.py"), o, measurer, &model).run();
        std::vector<std::vector<std::string>> all;
        for (auto& t : out.trials)
            all.push_back(t.statements);
        return all;
    };
    EXPECT_EQ(statements(7), statements(7));
    EXPECT_NE(statements(7), statements(8));
}

TEST(TunerSearch, AResumedLogCountsAsMeasured)
{
    const fs::path log =
        fs::temp_directory_path() / ("loopscope-search-" + std::to_string(getpid()) + ".jsonl");
    fs::remove(log);
    FakeMeasurer first;
    FakeModel model;
    TuneOptions o = smallGemm(6);
    o.logPath = log.string();
    TuneOutcome before = Tuner(readSample("opt_gemm.py"), o, first, &model).run();
    ASSERT_TRUE(before.ok) << before.error;
    ASSERT_EQ(readLog(log.string()).records.size(), 6u);

    FakeMeasurer second;
    FakeModel again;
    o.resume = true;
    TuneOutcome after = Tuner(readSample("opt_gemm.py"), o, second, &again).run();
    ASSERT_TRUE(after.ok) << after.error;
    EXPECT_EQ(after.reused.size(), 6u);
    EXPECT_EQ(after.trials.size(), 6u);
    // Nothing the first run measured is measured again.
    const std::set<std::string> a = candidates(first.requests), b = candidates(second.requests);
    for (const std::string& c : b)
        EXPECT_FALSE(a.count(c)) << c;
    // The best of both runs is the best.
    double fastest = 1e9;
    for (auto* records : {&after.reused, &after.trials})
        for (auto& r : *records)
            fastest = std::min(fastest, r.msMedian);
    EXPECT_DOUBLE_EQ(after.best.msMedian, fastest);
    fs::remove(log);
}

} // namespace
} // namespace loopscope

namespace loopscope {
namespace {

// A measurer whose worker says its GPU runner has a GPU (the test's, with a small block).
class FakeGpuMeasurer : public FakeMeasurer {
public:
    bool asked = false;
    void askForGpu() override { asked = true; }
    MachineInfo machine() override
    {
        MachineInfo m = FakeMeasurer::machine();
        if (!asked) return m;
        protocol::GpuDevice d;
        d.name = "Test GPU";
        d.computeCapability = 90;
        d.maxThreadsPerBlock = 256;
        d.sharedPerBlock = 16 * 1024;
        m.gpuDevice = d;
        m.gpu = protocol::gpuDescription(d);
        return m;
    }
};

// A GPU variant is searched from its declaration with the GPU rules: every candidate binds blocks
// and threads, keeps to the device's block (256 threads, 16 KiB of shared memory), and its record
// names the GPU; its statements apply to a block made from the declaration.
TEST(TunerSearch, AGpuVariantIsSearchedWithinTheDevicesLimits)
{
    FakeGpuMeasurer measurer;
    FakeModel model;
    TuneOptions o = smallGemm(8);
    o.variant = "bind";
    o.sets = {{"N", 256}};
    const std::string script = readSample("gpu/matmul_cuda.py");
    TuneOutcome out = Tuner(script, o, measurer, &model).run();
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_TRUE(measurer.asked);
    ASSERT_EQ(out.trials.size(), 8u);
    for (const TuneRecord& r : out.trials) {
        EXPECT_EQ(r.machine.gpu, "Test GPU (sm_90)");
        std::string all;
        for (const std::string& s : r.statements)
            all += s + "\n";
        EXPECT_NE(all.find("te.thread_axis(\"blockIdx.x\")"), std::string::npos) << all;
        EXPECT_EQ(all.find("blockIdx.y"), std::string::npos) << "the start's steps are left out";
    }
    for (const protocol::MeasureRequest& r : measurer.requests) {
        EvalResult e = evaluateScript(r.script, r.sets);
        ASSERT_TRUE(e.ok) << e.error.message << "\n" << r.script;
        const Variant* v = e.program.findVariant(r.variant);
        ASSERT_NE(v, nullptr);
        const Stmt s = lowerStructure(v->schedule());
        EXPECT_LE(gpuSharedBytes(s), 16 * 1024);
        // Every launch within 256 threads.
        struct Launches : IRVisitor {
            std::int64_t most = 0;
            void visitAttr(const AttrNode* op) override
            {
                if (op->key == "thread_extent" && op->target.rfind("threadIdx", 0) == 0)
                    most = std::max(most, constIntOr(op->value, 0));
                visit(op->body);
            }
        } launches;
        launches.visit(s);
        EXPECT_LE(launches.most, 256) << candidateOf(r);
        EXPECT_GT(launches.most, 0) << candidateOf(r);
    }
    EXPECT_TRUE(tunesGpuKernels(
        *evaluateScript(
             scriptWithVariant(
                 script, declaration(*evaluateScript(script, o.sets).program.findVariant("bind")),
                 "tuned", out.bestStatements, false),
             o.sets)
             .program.findVariant("tuned")));
}

} // namespace
} // namespace loopscope
