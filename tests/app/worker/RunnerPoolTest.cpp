// Runners started by a command, measuring candidates at once: the real worker, started through
// the shell as a user's --runner command is. A runner killed while it has a candidate costs that
// one measurement (it is measured again on another runner); a candidate whose own code crashes
// crashes on two runners and is recorded as crashed; a runner of another build, or a program that
// cannot compile (the GPU runner), is refused before anything is measured; records say which
// machine measured them, and the cost model learns only from records of this machine's kind.
#include "tune/RunnerPool.h"
#include "app/worker/QuickTuning.h"
#include "runtime/GpuRun.h"
#include "support/SourceFiles.h"
#include "tune/TuneLog.h"
#include "tune/Tuner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <mutex>

#include <unistd.h>

namespace fs = std::filesystem;
using namespace loopscope;
using loopscope::testing::quickTuning;

namespace {

fs::path scratch()
{
    fs::path p =
        fs::temp_directory_path() / ("loopscope-runner-pool-test-" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
}

// What a user writes: a command through the shell.
std::string workerCommand()
{
    return std::string("exec '") + LOOPSCOPE_WORKER + "'";
}

struct Notes {
    std::mutex mutex;
    std::vector<std::string> lines;
    std::string all()
    {
        std::lock_guard<std::mutex> lock(mutex);
        std::string s;
        for (auto& l : lines)
            s += l + "\n";
        return s;
    }
};

void collect(RunnerPool& pool, Notes& notes)
{
    pool.onNote([&notes](const std::string& n) {
        std::lock_guard<std::mutex> lock(notes.mutex);
        notes.lines.push_back(n);
    });
}

TEST(RunnerPool, ARunnerKilledWithACandidateCostsOnlyThatMeasurement)
{
    const fs::path marker = scratch() / "lost-once";
    fs::remove(marker);
    RunnerPool pool(
        shellCommand(workerCommand()), 2,
        {"LOOPSCOPE_WORKER_TESTING=1", "LOOPSCOPE_WORKER_TESTING_LOSE_ONCE=" + marker.string()},
        workerCommand());
    Notes notes;
    collect(pool, notes);
    ASSERT_EQ(pool.runners(), 2);
    const std::string script = readSourceFile("samples/opt_gemm.py");
    TuneOptions o = quickTuning(8);
    o.sets = {{"M", 64}, {"N", 64}, {"K", 64}};
    TuneOutcome out = Tuner(script, o, pool).run();
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_TRUE(fs::exists(marker)) << "no runner was killed: the test tested nothing";
    ASSERT_EQ(out.trials.size(), 8u);
    for (auto& t : out.trials)
        EXPECT_EQ(t.status, "ok") << "trial " << t.trial << ": " << t.error;
    int lost = 0, measured = 0;
    for (auto& s : pool.stats()) {
        lost += s.lost;
        measured += s.measured;
        EXPECT_FALSE(s.setAside);
    }
    EXPECT_EQ(lost, 1);
    EXPECT_GE(measured, 8);
    EXPECT_NE(notes.all().find("measured again on another runner"), std::string::npos)
        << notes.all();
    EXPECT_NE(notes.all().find("was killed (SIGKILL)"), std::string::npos) << notes.all();
}

TEST(RunnerPool, ACandidateWhoseCodeCrashesCrashesOnTwoRunnersAndIsRecordedSo)
{
    RunnerPool pool(shellCommand(workerCommand()), 2, {"LOOPSCOPE_WORKER_TESTING=1"},
                    workerCommand());
    const std::string script = readSourceFile("samples/add_relu.py");
    TuneOptions o = quickTuning(4);
    o.sets = {{"N", 4096}};
    o.testingCrashFirst = true;
    TuneOutcome out = Tuner(script, o, pool).run();
    ASSERT_TRUE(out.ok) << out.error;
    ASSERT_EQ(out.trials.size(), 4u);
    int crashed = 0;
    for (auto& t : out.trials)
        if (t.status == "crashed") {
            ++crashed;
            EXPECT_NE(t.error.find("SIGSEGV"), std::string::npos) << t.error;
            EXPECT_NE(t.error.find("before that on runner"), std::string::npos) << t.error;
        }
    EXPECT_EQ(crashed, 1);
    EXPECT_TRUE(out.haveBest);
}

TEST(RunnerPool, RecordsNameTheMachineThatMeasuredThem)
{
    const fs::path log = scratch() / "machines.jsonl";
    fs::remove(log);
    RunnerPool pool(shellCommand(workerCommand()), 2, {}, workerCommand());
    const MachineInfo m = pool.machine();
    ASSERT_TRUE(m.problem.empty()) << m.problem;
    EXPECT_FALSE(m.cpu.empty());
    EXPECT_FALSE(m.host.empty());
    const std::string script = readSourceFile("samples/opt_gemm.py");
    TuneOptions o = quickTuning(4);
    o.sets = {{"M", 64}, {"N", 64}, {"K", 64}};
    o.logPath = log.string();
    o.remeasureTop = 0;
    TuneOutcome out = Tuner(script, o, pool).run();
    ASSERT_TRUE(out.ok) << out.error;
    LogContents read = readLog(log.string());
    ASSERT_EQ(read.records.size(), 4u);
    for (auto& r : read.records) {
        EXPECT_EQ(r.machine.cpu, m.cpu);
        EXPECT_EQ(r.machine.cpuName, m.cpuName);
        EXPECT_EQ(r.machine.host, m.host);
        EXPECT_EQ(r.machine.threads, m.threads);
        EXPECT_TRUE(sameMachineKind(r.machine, m));
    }

    // Records of another machine stay in the log but do not train this machine's model.
    {
        std::ofstream append(log, std::ios::app);
        for (TuneRecord r : read.records) {
            r.machine.cpu = "znver5";
            r.machine.cpuName = "AMD EPYC 9R45";
            r.machine.threads = 192;
            r.machine.host = "node9";
            append << recordLine(r) << "\n";
        }
    }
    TuneOptions again = o;
    again.trials = 2;
    TuneOutcome second = Tuner(script, again, pool).run();
    ASSERT_TRUE(second.ok) << second.error;
    std::string notes;
    for (auto& n : second.notes)
        notes += n + "\n";
    EXPECT_NE(notes.find("4 record(s) of this program"), std::string::npos) << notes;
    EXPECT_NE(notes.find("were measured on another machine (znver5 (AMD EPYC 9R45), 192 cores)"),
              std::string::npos)
        << notes;
}

// A runner of another build: refused with both versions, before anything is measured.
TEST(RunnerPool, ARunnerOfAnotherBuildIsRefused)
{
    const fs::path fake = scratch() / "runner-of-another-build.sh";
    {
        std::ofstream out(fake);
        out << "#!/bin/sh\nwhile read line; do\n"
               "  echo '{\"id\": 1, \"status\": \"ok\", \"protocol\": 99, \"version\": "
               "\"9.9.9\"}'\n"
               "done\n";
    }
    fs::permissions(fake, fs::perms::owner_all);
    RunnerPool pool(shellCommand("exec '" + fake.string() + "'"), 2, {}, "ssh node7 fake");
    const std::string script = readSourceFile("samples/add_relu.py");
    TuneOutcome out = Tuner(script, quickTuning(4), pool).run();
    EXPECT_FALSE(out.ok);
    EXPECT_NE(out.error.find("speaks worker protocol 99"), std::string::npos) << out.error;
    EXPECT_NE(out.error.find("both sides need the same build"), std::string::npos) << out.error;
    EXPECT_TRUE(out.trials.empty());
}

// The GPU runner runs PTX compiled elsewhere: it cannot measure a candidate, and says so.
TEST(RunnerPool, AProgramThatCannotCompileIsNotTakenForAWorker)
{
    RunnerPool pool(shellCommand(std::string("exec '") + LOOPSCOPE_RUNNER + "'"), 1, {},
                    "ssh gpu1 loopscope-runner");
    const MachineInfo m = pool.machine();
    EXPECT_NE(m.problem.find("cannot compile and measure"), std::string::npos) << m.problem;
    EXPECT_NE(m.problem.find("loopscope-worker on the far side"), std::string::npos) << m.problem;
}

// A command that starts nothing: every runner is set aside, and the run says why.
TEST(RunnerPool, ACommandThatStartsNoWorkerSaysWhy)
{
    RunnerPool pool(shellCommand("echo 'node7: Connection refused' >&2; exit 255"), 2, {},
                    "ssh node7 loopscope-worker");
    Notes notes;
    collect(pool, notes);
    const MachineInfo m = pool.machine();
    EXPECT_NE(m.problem.find("no runner could be started with 'ssh node7 loopscope-worker'"),
              std::string::npos)
        << m.problem;
    EXPECT_NE(m.problem.find("Connection refused"), std::string::npos) << m.problem;
    EXPECT_NE(notes.all().find("runner 2"), std::string::npos) << notes.all();
}

} // namespace

namespace {

// A pool asked for the GPU asks each runner (a worker) what its own GPU runner has: the pool's
// machine names that GPU, or says why there is none, as one worker would.
TEST(RunnerPool, EachRunnerIsAskedForItsGpu)
{
    RunnerPool pool(shellCommand(workerCommand()), 2,
                    {std::string("LOOPSCOPE_RUNNER_COMMAND=exec '") + LOOPSCOPE_RUNNER + "'"},
                    "the test's workers");
    pool.askForGpu();
    const MachineInfo m = pool.machine();
    ASSERT_TRUE(m.problem.empty()) << m.problem;
    GpuRunner runner({LOOPSCOPE_RUNNER});
    if (runner.device()) {
        ASSERT_TRUE(m.gpuDevice);
        EXPECT_EQ(m.gpuDevice->name, runner.device()->name);
        EXPECT_FALSE(m.gpu.empty());
    } else {
        EXPECT_FALSE(m.gpuDevice);
        EXPECT_EQ(m.gpuProblem, runner.unavailable()) << m.gpuProblem;
    }
}

} // namespace
