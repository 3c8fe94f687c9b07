// The profiler: a kernel of two loops whose costs are 3 to 1 is sampled, and the samples land
// in the loops in that ratio (within 10 points, at least 90% of them in the kernel); samples are
// charged to the instruction before the one they caught, lines add up into their loops; and the
// hardware counters say plainly when the machine has none.
#include "runtime/Profiler.h"
#include "codegen/Codegen.h"
#include "lower/Lower.h"
#include "runtime/LocalRun.h"
#include "runtime/RuntimeJit.h"
#include "runtime/ThreadPool.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace loopscope;

namespace {

// Two reductions of the same work per element, the first over three times the rows of the
// second, and a short loop that adds their results.
const char* kTwoLoops = R"(import tvm
from tvm import te
R = 64
K = 4096
A = te.placeholder((4 * R, K), name="A")
k1 = te.reduce_axis((0, K), name="k1")
T1 = te.compute((3 * R,), lambda i: te.sum(A[i, k1] * A[i, k1], axis=k1), name="T1")
k2 = te.reduce_axis((0, K), name="k2")
T2 = te.compute((R,), lambda i: te.sum(A[3 * R + i, k2] * A[3 * R + i, k2], axis=k2), name="T2")
Out = te.compute((R,), lambda i: T2[i] + T1[i] + T1[i + R] + T1[i + 2 * R], name="Out")
# variant: two loops
s = te.create_schedule(Out.op)
)";

int lineOf(const std::string& tir, const std::string& fragment)
{
    std::istringstream in(tir);
    int n = 0;
    for (std::string l; std::getline(in, l);) {
        ++n;
        if (l.find(fragment) != std::string::npos) return n;
    }
    return 0;
}

TEST(Profiler, SamplesLandInTheLoopsInTheRatioOfTheirCost)
{
    setParallelThreads(1);
    EvalResult r = evaluateScript(kTwoLoops);
    ASSERT_TRUE(r.ok) << r.error.message;
    auto jit = createRuntimeJit();
    RunConfig config;
    config.jit = jit.get();
    config.lineInfo = true;
    auto run = PreparedRun::prepare(r.program, r.program.variants.front(), config);
    LineProfile p;
    std::string why;
    ASSERT_TRUE(profileRuns(
        run->kernel(), [&] { run->run(); }, 1.0, 5, &p, &why))
        << why;
    ASSERT_GT(p.samples, 500) << p.method;
    EXPECT_GE(static_cast<double>(p.inKernel), 0.9 * static_cast<double>(p.samples));
    const int first = lineOf(p.tir, "for i in range(192)");
    const int second = lineOf(p.tir, "for i in range(64)");
    ASSERT_GT(first, 0) << p.tir;
    ASSERT_GT(second, 0) << p.tir;
    ASSERT_TRUE(p.isLoop[static_cast<std::size_t>(first - 1)]);
    EXPECT_NEAR(p.loopShare(first), 0.75, 0.10) << p.tir;
    EXPECT_NEAR(p.loopShare(second), 0.25, 0.10) << p.tir;
    EXPECT_GE(p.loopShare(first) + p.loopShare(second), 0.9);
    setParallelThreads(0);
}

TEST(Profiler, SamplesAreChargedToTheInstructionBeforeAndAddUpIntoLoops)
{
    KernelLines k;
    k.tir = "a\n    for i in range(4):\n        x = 1\n        for j in range(2):\n            y = "
            "2\n    z = 3\n";
    k.codeStart = 0x1000;
    k.code = std::string(40, '\0');
    k.instructionOffsets = {0, 4, 8, 12, 16, 20, 24};
    k.instructionText = {"a", "b", "c", "d", "e", "f", "g"};
    // Lines: [0,8) line 2 (for i), [8,16) line 3, [16,24) line 5 (inside for j), [24,40) line 6.
    k.rowOffsets = {0, 8, 16, 24};
    k.rowLines = {2, 3, 5, 6};
    // A sample at 0x1010 (instruction 4's start, line 5) is instruction 3's (line 3); one at
    // 0x1012 and 0x1013 (inside instruction 4) are its own; one outside the code is elsewhere.
    LineProfile p = attributeSamples(k, {0x1010, 0x1012, 0x1012, 0x1013, 0x2000});
    EXPECT_EQ(p.samples, 5);
    EXPECT_EQ(p.inKernel, 4);
    EXPECT_EQ(p.lineSamples[2], 1); // line 3
    EXPECT_EQ(p.lineSamples[4], 3); // line 5
    EXPECT_EQ(p.instructionSamples[3], 1);
    EXPECT_EQ(p.instructionSamples[4], 3);
    EXPECT_TRUE(p.isLoop[1]);
    EXPECT_TRUE(p.isLoop[3]);
    EXPECT_EQ(p.loopSamples[1], 4); // for i: everything in the kernel here
    EXPECT_EQ(p.loopSamples[3], 3); // for j: line 5
    EXPECT_DOUBLE_EQ(p.loopShare(4), 0.75);
}

// A sample in the kernel's code at an instruction on no line (the prologue) is the function's
// own: it is charged to the `def` line, and the lines' shares add up to 1.
TEST(Profiler, SamplesOnNoLineAreTheFunctionsOwn)
{
    KernelLines k;
    k.tir = "@T.prim_func\ndef main():\n    for i in range(4):\n        x = 1\n";
    k.codeStart = 0x1000;
    k.code = std::string(16, '\0');
    k.instructionOffsets = {0, 4, 8, 12};
    k.instructionText = {"push", "a", "b", "ret"};
    // [0,4) on no line (the prologue), [4,12) line 4, [12,16) on no line again.
    k.rowOffsets = {0, 4, 12};
    k.rowLines = {0, 4, 0};
    LineProfile p = attributeSamples(k, {0x1001, 0x1005, 0x1006, 0x100d});
    EXPECT_EQ(p.inKernel, 4);
    EXPECT_EQ(p.lineSamples[1], 2); // def main(): the prologue's and the epilogue's
    EXPECT_EQ(p.lineSamples[3], 2);
    double sum = 0;
    for (int line = 1; line <= 4; ++line)
        sum += p.lineShare(line);
    EXPECT_DOUBLE_EQ(sum, 1.0);
}

TEST(Profiler, HardwareCountersAreReadOrTheirAbsenceSaid)
{
    volatile double x = 0;
    HardwareCounts c = countHardwareEvents([&] {
        for (int i = 0; i < 1000000; ++i)
            x = x + 1.0;
    });
    if (c.available) {
        EXPECT_GT(c.cycles, 0);
        EXPECT_GT(c.instructions, 1e6);
        EXPECT_GT(c.ipc(), 0);
    } else {
        EXPECT_FALSE(c.why.empty());
        EXPECT_EQ(c.cycles, 0);
    }
}

} // namespace
