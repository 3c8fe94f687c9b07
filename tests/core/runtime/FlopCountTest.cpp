// The operation count behind every GFLOPS figure: arithmetic on values, times the domain.
#include "runtime/FlopCount.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <string>

namespace loopscope {
namespace {

double flopsOf(const std::string& computes)
{
    EvalResult r = evaluateScript("import tvm\nfrom tvm import te\n" + computes +
                                  "\ns = te.create_schedule(Out.op)\n");
    EXPECT_TRUE(r.ok) << r.error.message;
    if (!r.ok || r.program.variants.empty()) return -1;
    return flopCount(r.program.variants.front().snapshots.front().outputs());
}

TEST(FlopCount, AMatmulIsTwoMultiplyAddsPerPointInFloatAsInInt)
{
    for (const char* dtype : {"float32", "int32", "float64"}) {
        std::string t = std::string("\"") + dtype + "\"";
        EXPECT_EQ(
            flopsOf("A = te.placeholder((6, 5), name=\"A\", dtype=" + t +
                    ")\n"
                    "B = te.placeholder((5, 7), name=\"B\", dtype=" +
                    t +
                    ")\n"
                    "k = te.reduce_axis((0, 5), name=\"k\")\n"
                    "Out = te.compute((6, 7), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k))\n"),
            2.0 * 6 * 7 * 5)
            << dtype;
    }
}

TEST(FlopCount, PaddingAndCopiesCountNothingAndIndexArithmeticIsNoWork)
{
    // The padding's condition and its shifted index are arithmetic on indices; the convolution
    // counts one multiply-add per point of its 4 x 4 x 3 x 3 domain; the relu one max per element.
    EXPECT_EQ(flopsOf("A = te.placeholder((4, 4), name=\"A\", dtype=\"int32\")\n"
                      "W = te.placeholder((3, 3), name=\"W\", dtype=\"int32\")\n"
                      "P = te.compute((6, 6), lambda i, j: tvm.tir.if_then_else(tvm.tir.all(i >= "
                      "1, i < 5, j >= 1, j < 5), "
                      "A[i - 1, j - 1], 0), name=\"P\")\n"
                      "ry = te.reduce_axis((0, 3), name=\"ry\")\n"
                      "rx = te.reduce_axis((0, 3), name=\"rx\")\n"
                      "C = te.compute((4, 4), lambda y, x: te.sum(P[y + ry, x + rx] * W[ry, rx], "
                      "axis=[ry, rx]), name=\"C\")\n"
                      "Out = te.compute((4, 4), lambda y, x: te.max(C[y, x], 0), name=\"Out\")\n"),
              2.0 * 4 * 4 * 3 * 3 + 4 * 4);
    EXPECT_EQ(flopsOf("A = te.placeholder((8,), name=\"A\")\n"
                      "Out = te.compute((8,), lambda i: A[7 - i], name=\"Out\")\n"),
              0.0);
}

TEST(FlopCount, IndicesLoadedFromTensorsAreNoWork)
{
    // Only the multiply by 2 counts, not the additions inside the nested indices.
    EXPECT_EQ(flopsOf("A = te.placeholder((16,), name=\"A\", dtype=\"int32\")\n"
                      "B = te.placeholder((16,), name=\"B\", dtype=\"int32\")\n"
                      "C = te.placeholder((8,), name=\"C\", dtype=\"int32\")\n"
                      "Out = te.compute((8,), lambda i: A[B[C[i] + 1] + 1] * 2, name=\"Out\")\n"),
              8.0);
}

TEST(FlopCount, MathCallsCountAsOneOperation)
{
    // exp, the multiply and the add.
    EXPECT_EQ(
        flopsOf("A = te.placeholder((8,), name=\"A\")\n"
                "Out = te.compute((8,), lambda i: te.exp(A[i]) + A[i] * 0.5, name=\"Out\")\n"),
        8.0 * 3);
}

} // namespace
} // namespace loopscope
