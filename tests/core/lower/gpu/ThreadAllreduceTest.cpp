// Reductions across threads as tvm.build lowers them (TVM's LowerThreadAllreduce): shuffles
// within a warp, within sub-warp groups, over several warps through shared memory, or a tree in
// shared memory; and on the CPU, shuffles as exchanges through shared memory.
#include "lower/gpu/ThreadAllreduce.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "lower/gpu/ThreadSync.h"
#include "support/Occurrences.h"
#include "support/SourceFiles.h"
#include "te/Program.h"

#include <gtest/gtest.h>

namespace loopscope {
namespace {

struct Lowered {
    std::string text; // the device program, printed
    LoweredFunc f;
};

Lowered lowerVariant(const std::string& variant, bool forCpu = false)
{
    EvalResult r = evaluateScript(readSourceFile("tests/data/gpu/reductions.py"));
    EXPECT_TRUE(r.ok) << r.error.message;
    const Variant* v = r.program.findVariant(variant);
    EXPECT_NE(v, nullptr);
    Lowered out{"", lowerSchedule(v->schedule(), v->args, v->funcName)};
    PrimFunc device = out.f.func;
    device.body = lowerForDevice(device.body, forCpu);
    out.text = printTVMScript(device);
    return out;
}

struct Expected {
    const char* variant;
    std::size_t shuffleDowns, broadcasts, sharedBuffers;
};

void PrintTo(const Expected& e, std::ostream* os)
{
    *os << e.variant;
}

class ThreadAllreduce : public testing::TestWithParam<Expected> {};

TEST_P(ThreadAllreduce, LowersAsTvmBuildDoes)
{
    const Expected& e = GetParam();
    Lowered l = lowerVariant(e.variant);
    EXPECT_NE(printTVMScript(l.f.func).find("T.tvm_thread_allreduce("), std::string::npos)
        << "tvm.lower keeps the call";
    EXPECT_EQ(l.text.find("T.tvm_thread_allreduce("), std::string::npos) << l.text;
    EXPECT_EQ(testsupport::occurrences(l.text, "T.tvm_warp_shuffle_down("), e.shuffleDowns)
        << l.text;
    EXPECT_EQ(testsupport::occurrences(l.text, "T.tvm_warp_shuffle("), e.broadcasts) << l.text;
    EXPECT_EQ(testsupport::occurrences(l.text, ", \"shared\")"), e.sharedBuffers) << l.text;
    if (e.sharedBuffers > 0) {
        EXPECT_GT(testsupport::occurrences(l.text, "T.tvm_storage_sync(\"shared\")"), 0u) << l.text;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Variants, ThreadAllreduce,
    testing::Values(Expected{"warp", 5, 1, 0},     // 32 threads: 16, 8, 4, 2, 1, then lane 0's
                    Expected{"groups", 4, 1, 0},   // 16 threads per row: 8, 4, 2, 1
                    Expected{"warps", 7, 0, 2},    // 3 warps: 5 in each, 2 over their results
                    Expected{"tree", 0, 0, 1},     // 48 threads
                    Expected{"across_y", 0, 0, 1}, // over threadIdx.y, rows on x
                    Expected{"tail", 5, 1, 0}),    // 20 threads, the first step guarded
    [](const testing::TestParamInfo<Expected>& info) { return std::string(info.param.variant); });

TEST(ThreadAllreduceSteps, APartnerPastTheLastThreadIsNotCombined)
{
    Lowered l = lowerVariant("tail");
    EXPECT_NE(l.text.find("if threadIdx_x + 16 < 20:"), std::string::npos) << l.text;
    EXPECT_EQ(l.text.find("if threadIdx_x + 8 < 20:"), std::string::npos) << l.text;
}

TEST(ThreadAllreduceSteps, TheTreeHalvesWithABarrierBeforeEveryStep)
{
    Lowered l = lowerVariant("tree");
    // 48 threads: the 16 past 32 folded in, then 16, 8, 4, 2, 1; each reads another's slot.
    for (const char* step : {"if threadIdx_x < 16:", "if threadIdx_x < 8:", "if threadIdx_x < 4:",
                             "if threadIdx_x < 2:", "if threadIdx_x < 1:"})
        EXPECT_NE(l.text.find(step), std::string::npos) << step << "\n" << l.text;
    EXPECT_EQ(testsupport::occurrences(l.text, "T.tvm_storage_sync(\"shared\")"), 7u) << l.text;
}

TEST(ThreadAllreduceSteps, OnTheCpuShufflesBecomeExchangesThroughSharedMemory)
{
    Lowered l = lowerVariant("warps", true);
    EXPECT_EQ(l.text.find("T.tvm_warp_"), std::string::npos) << l.text;
    EXPECT_EQ(testsupport::occurrences(l.text, "T.allocate([96], \"float32\", \"shared\")"), 7u)
        << l.text;
}

} // namespace
} // namespace loopscope
