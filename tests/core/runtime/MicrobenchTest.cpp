// The machine microbenchmarks return plausible figures: above zero and below a bound from the
// clock and vector width; and the unavoidable traffic of a program.
#include "runtime/Microbench.h"
#include "ir/LlvmIntrinsics.h"
#include "runtime/Traffic.h"
#include "te/Program.h"

#include <gtest/gtest.h>

using namespace loopscope;

TEST(Microbench, PeakFlopsIsPlausible)
{
    PeakFlops one = measurePeakFlops(1);
    EXPECT_EQ(one.threads, 1);
    EXPECT_LE(one.vectorBits, hostVectorBits());
    EXPECT_GE(one.vectorBits, hostVectorBits() == 512 ? 256 : hostVectorBits());
    EXPECT_GT(one.gflops, 0.5);
    EXPECT_LT(one.gflops, peakFlopsBoundGflops(1, one.vectorBits));
}

// An int8 dot product does 4 multiply-adds per 32-bit lane where a float FMA does 1, in one
// instruction with VNNI, in three without; and a core may issue more of them a cycle than FMAs
// (Zen 5 reached about 3 a cycle against 2 FMAs): its peak is at most eight times the bound of a
// float FMA of the same width.
TEST(Microbench, PeakInt8IsPlausibleAndNamesItsInstructions)
{
    PeakInt8 one = measurePeakInt8(1);
    EXPECT_EQ(one.threads, 1);
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2: no int8 kernel is measured";
    EXPECT_GT(one.gops, 1.0);
    EXPECT_LT(one.gops, 8 * peakFlopsBoundGflops(1, hostVectorBits()));
    const auto& features = hostCpuFeatureNames();
    const bool vnni = features.count("avx512vnni") || features.count("avxvnni");
    EXPECT_EQ(one.how.find("vpdpbusd") != std::string::npos, vnni) << one.how;
#endif
}

TEST(Microbench, TriadBandwidthIsPlausible)
{
    Bandwidth b = measureTriadBandwidth(1, 96);
    EXPECT_GT(b.gbPerS, 0.1);
    EXPECT_LT(b.gbPerS, 1000.0); // no single socket streams a terabyte a second
    EXPECT_NEAR(b.megabytes, 96, 1);
}

TEST(Traffic, InputsAndOutputsOnce)
{
    EvalResult r = evaluateScript(R"(
import tvm
from tvm import te
M, K, N = 8, 16, 4
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
P = te.compute((K, N), lambda i, j: B[i, j] * 2.0, name="P")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * P[k, j] + B[k, j], axis=k), name="C")
s = te.create_schedule(C.op)
)");
    ASSERT_TRUE(r.ok) << r.error.message;
    const auto& outputs = r.program.variants.front().snapshots.front().outputs();
    // A (8x16) + B (16x4, read twice but counted once) + C (8x4), float32; P is intermediate.
    EXPECT_DOUBLE_EQ(unavoidableBytes(outputs), (8 * 16 + 16 * 4 + 8 * 4) * 4.0);
    EXPECT_DOUBLE_EQ(arithmeticIntensity(100, 50), 2.0);
    EXPECT_DOUBLE_EQ(arithmeticIntensity(100, 0), 0.0);
}
