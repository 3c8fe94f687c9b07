// The size a GPU variant is checked at without a GPU: the script's sizes halved until the check is
// within its budget, each staying a multiple of the split factors it was a multiple of, thread
// counts and tiles left as written; a size written as arithmetic is a parameter too.
#include "runtime/CpuCheckSize.h"

#include "support/SourceFiles.h"

#include <gtest/gtest.h>

namespace loopscope {
namespace {

TEST(CpuCheckSize, TheGpuMatmulIsCheckedAtASmallerNWithItsTilesAsWritten)
{
    const std::string source = readSourceFile("samples/gpu/matmul_cuda.py");
    const EvalResult r = evaluateScript(source);
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = *r.program.findVariant("unrolled");
    EXPECT_TRUE(bindsGpuThreads(v));
    const std::optional<CpuCheckSize> s = cpuCheckSize(source, {}, r.program, v);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->text, "N=512");
    EXPECT_EQ(s->values.at("N"), 512);
    EXPECT_EQ(s->values.at("num_thread"), 8); // changes no operation count: as written
    ASSERT_TRUE(s->evaluated.ok);
    EXPECT_NE(s->evaluated.program.findVariant("unrolled"), nullptr);
    // A size already small is checked as it is.
    const EvalResult small = evaluateScript(source, {{"N", 256}});
    ASSERT_TRUE(small.ok);
    EXPECT_FALSE(
        cpuCheckSize(source, {{"N", 256}}, small.program, *small.program.findVariant("unrolled"))
            .has_value());
}

TEST(CpuCheckSize, HalvingStopsWhereASplitWouldLeaveATail)
{
    const std::string source = R"(import tvm
from tvm import te
N = 3 * 1024
A = te.placeholder((N, N), name="A")
B = te.compute((N, N), lambda i, j: A[i, j] * 2.0, name="B")
s = te.create_schedule(B.op)
i, j = s[B].op.axis
io, ii = s[B].split(i, factor=64)
s[B].bind(io, te.thread_axis("blockIdx.x"))
s[B].bind(ii, te.thread_axis("threadIdx.x"))
)";
    const EvalResult r = evaluateScript(source);
    ASSERT_TRUE(r.ok) << r.error.message;
    ASSERT_EQ(r.program.parameters.size(), 1u); // N = 3 * 1024
    EXPECT_EQ(r.program.parameters[0].value, 3072);
    const std::optional<CpuCheckSize> s =
        cpuCheckSize(source, {}, r.program, r.program.variants[0], /*budgetFlops=*/1);
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->text, "N=192"); // 96 is no multiple of 64
}

} // namespace
} // namespace loopscope
