// Differential testing: random legal schedules of random small TE programs are lowered, compiled,
// run, and must compute what the reference interpreter computes. LOOPSCOPE_FUZZ_CASES sets how
// many cases are compared (2,000 by default; a schedule lowering refuses does not count, and the
// next seed is taken), split over shards that ctest can run in parallel.
//
// Compiling dominates the time of a case (LLVM's O3 pipeline takes about 115 ms of CPU even for
// these tiny kernels, O1 about 100 ms, O0 about 20 ms), so every ninth seed compiles at O3, as
// runs do, every other third seed at O1 and the rest at O0: every program family still meets
// LLVM's optimizer, and 2,000 cases take about 130 s of CPU (about a minute on two idle cores).
// (Nine and the shard count have no common factor, so each shard gets its share of O3 cases.)
// LOOPSCOPE_FUZZ_OPT=N compiles every case at level N instead; LOOPSCOPE_FUZZ_VERBOSE prints the
// schedules lowering refused. loopscope-fuzz (bench/FuzzSchedules.cpp) runs further seeds for as
// long as asked.

#include "support/FuzzRunner.h"
#include "support/RandomSchedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace loopscope {
namespace {

constexpr int kShards = 4;
constexpr int kMaxReportedFailures = 10;

int optLevelFor(int seed)
{
    const char* env = std::getenv("LOOPSCOPE_FUZZ_OPT");
    if (env && *env) return std::atoi(env);
    if (seed % 9 == 0) return 3;
    return seed % 3 == 0 ? 1 : 0;
}

int caseCount()
{
    const char* env = std::getenv("LOOPSCOPE_FUZZ_CASES");
    if (env && *env) return std::max(0, std::atoi(env));
    return 2000;
}

class DifferentialTest : public ::testing::TestWithParam<int> {};

TEST_P(DifferentialTest, RandomSchedulesMatchTheReference)
{
    installCrashReporter();
    const int shard = GetParam();
    const bool verbose = std::getenv("LOOPSCOPE_FUZZ_VERBOSE") != nullptr;
    int passed = 0, rejected = 0, failed = 0;
    // Every kShards-th seed, until this shard's share of cases has been compared (or lowering
    // has refused more schedules than that, which fails below).
    const int share = (caseCount() + kShards - 1 - shard) / kShards;
    int seed = shard + 1 - kShards;
    while (passed + failed < share && rejected <= share) {
        seed += kShards;
        FuzzCase c;
        try {
            c = generateCase(static_cast<std::uint64_t>(seed));
        } catch (const std::exception& e) {
            ++failed;
            ADD_FAILURE() << "the generator failed for seed " << seed << ": " << e.what();
            continue;
        }
        CurrentCase current(c.script, c.description);
        CaseOutcome outcome = runScriptChecked(c.script, optLevelFor(seed));
        switch (outcome.status) {
        case CaseOutcome::Status::Passed: ++passed; break;
        case CaseOutcome::Status::Rejected:
            ++rejected;
            if (verbose)
                std::printf("rejected: %s\n%s%s\n", c.description.c_str(), outcome.message.c_str(),
                            c.script.c_str());
            break;
        case CaseOutcome::Status::Failed:
            if (++failed <= kMaxReportedFailures) {
                ADD_FAILURE() << c.description << " (LLVM O" << optLevelFor(seed) << ")\n"
                              << outcome.message << "---- script ----\n"
                              << c.script;
            }
            break;
        }
    }
    std::printf("shard %d: %d passed, %d refused while lowering, %d failed\n", shard, passed,
                rejected, failed);
    EXPECT_EQ(failed, 0) << failed << " case(s) failed (the first " << kMaxReportedFailures
                         << " are shown above)";
    // The generator keeps only steps the evaluator accepts; lowering refuses about 1% of what is
    // left (attachments a later step invalidated, as in TVM). Many more refusals would mean the
    // test checks little: set LOOPSCOPE_FUZZ_VERBOSE to see them.
    const int tried = passed + rejected + failed;
    EXPECT_LE(rejected, std::max(2, tried / 10))
        << "lowering refused " << rejected << " of " << tried << " schedules";
}

INSTANTIATE_TEST_SUITE_P(Shards, DifferentialTest, ::testing::Range(0, kShards));

// What this machine cannot run is compiled at least: random cases through LLVM's back end for
// AVX-512 (the masked loads, gathers and wide vectors of a Zen 4) and for an AVX2 core with fast
// gathers. A failure of the back end or of the code generator fails; refusals are counted as above.
TEST(DifferentialCompile, RandomSchedulesCompileForOtherCpus)
{
    installCrashReporter();
    int compiled = 0, rejected = 0;
    const char* targets[] = {"llvm -mcpu=znver4", "llvm -mcpu=skylake"};
    for (int seed = 100001; seed <= 100160; ++seed) {
        FuzzCase c = generateCase(static_cast<std::uint64_t>(seed));
        const char* target = targets[seed % 2];
        CurrentCase current(c.script, c.description);
        CaseOutcome outcome = compileScriptFor(c.script, target);
        if (outcome.status == CaseOutcome::Status::Failed)
            ADD_FAILURE() << c.description << " (" << target << ")\n"
                          << outcome.message << "---- script ----\n"
                          << c.script;
        compiled += outcome.status == CaseOutcome::Status::Passed;
        rejected += outcome.status == CaseOutcome::Status::Rejected;
    }
    EXPECT_LE(rejected, 16) << "lowering refused " << rejected << " of 160 schedules";
    std::printf("%d cases compiled for other CPUs, %d refused\n", compiled, rejected);
}

} // namespace
} // namespace loopscope
