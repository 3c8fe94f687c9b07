// Cache footprints against values worked out by hand: a tiled matmul's tiles and panels, a padded
// convolution's input window; the lines of the loops in both printings; sizes in their units.
#include "lower/Footprint.h"
#include "te/Program.h"

#include <gtest/gtest.h>

using namespace loopscope;

namespace {

std::vector<LoopFootprint> footprintsOf(const std::string& script)
{
    EvalResult r = evaluateScript(script);
    EXPECT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    return loopFootprints(lowerSchedule(v.schedule(), v.args, v.funcName));
}

// The first loop of that name (`last`: the last one).
const LoopFootprint* find(const std::vector<LoopFootprint>& loops, const std::string& var,
                          bool last = false)
{
    const LoopFootprint* found = nullptr;
    for (auto& l : loops)
        if (l.var == var && (!found || last)) found = &l;
    return found;
}

double tensorBytes(const LoopFootprint& l, const std::string& tensor, bool whole)
{
    for (auto& t : l.tensors)
        if (t.tensor == tensor) return whole ? t.wholeLoop : t.perIteration;
    return -1;
}

TEST(Footprint, ATiledMatmulsTilesAndPanels)
{
    auto loops = footprintsOf(R"(import tvm
from tvm import te
M = N = K = 256
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
# variant: tiled
s = te.create_schedule(C.op)
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], x_factor=32, y_factor=32)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(io, jo, ko, ki, ii, ji)
)");
    const LoopFootprint* jo = find(loops, "j_outer");
    ASSERT_NE(jo, nullptr);
    // One iteration of j_outer: 32 rows of A (32 x 256), a 256 x 32 panel of B, a 32 x 32 tile
    // of C, 4 bytes each.
    EXPECT_EQ(tensorBytes(*jo, "A", false), 32 * 256 * 4);
    EXPECT_EQ(tensorBytes(*jo, "B", false), 256 * 32 * 4);
    EXPECT_EQ(tensorBytes(*jo, "C", false), 32 * 32 * 4);
    EXPECT_EQ(jo->perIteration, (32 * 256 + 256 * 32 + 32 * 32) * 4);
    // All of j_outer: the same rows of A, all of B, a 32 x 256 strip of C.
    EXPECT_EQ(tensorBytes(*jo, "A", true), 32 * 256 * 4);
    EXPECT_EQ(tensorBytes(*jo, "B", true), 256 * 256 * 4);
    EXPECT_EQ(tensorBytes(*jo, "C", true), 32 * 256 * 4);
    EXPECT_TRUE(jo->exact);
    // One iteration of k_outer: 32 x 4 of A, 4 x 32 of B, the C tile.
    const LoopFootprint* ko = find(loops, "k_outer");
    ASSERT_NE(ko, nullptr);
    EXPECT_EQ(ko->perIteration, (32 * 4 + 4 * 32 + 32 * 32) * 4);
    EXPECT_GT(ko->line, 0);
    EXPECT_GT(ko->structuredLine, 0);
    EXPECT_GT(ko->depth, jo->depth);
    // Its working set outgrows a 16 KiB cache at j_outer's iterations? One iteration of j_outer
    // is 68 KiB: over 16 KiB; one of k_outer is 5 KiB, all of it 68 KiB: k_outer is where.
    auto levels = outgrownLevels(loops, {{1, 16 * 1024, "L1d"}});
    for (std::size_t i = 0; i < loops.size(); ++i)
        EXPECT_EQ(!levels[i].empty(), loops[i].var == "k_outer") << loops[i].var;
}

TEST(Footprint, APaddedConvolutionsInputWindow)
{
    auto loops = footprintsOf(R"(import tvm
from tvm import te
Data = te.placeholder((1, 4, 10, 10), name="Data")
W = te.placeholder((8, 4, 3, 3), name="W")
Apad = te.compute((1, 4, 12, 12), lambda n, c, y, x: tvm.tir.if_then_else(tvm.tir.all(y >= 1, y < 11, x >= 1, x < 11), Data[n, c, y - 1, x - 1], tvm.tir.const(0.0, "float32")), name="Apad")
rc = te.reduce_axis((0, 4), name="rc")
ry = te.reduce_axis((0, 3), name="ry")
rx = te.reduce_axis((0, 3), name="rx")
Conv = te.compute((1, 8, 10, 10), lambda n, f, y, x: te.sum(Apad[n, rc, y + ry, x + rx] * W[f, rc, ry, rx], axis=[rc, ry, rx]), name="Conv")
# variant: default
s = te.create_schedule(Conv.op)
)");
    // The convolution's loop over output channels (f): one iteration reads the whole padded
    // input (4 x 12 x 12), one filter (4 x 3 x 3) and writes one output plane (10 x 10).
    const LoopFootprint* f = find(loops, "f");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(tensorBytes(*f, "Apad", false), 4 * 12 * 12 * 4);
    EXPECT_EQ(tensorBytes(*f, "W", false), 4 * 3 * 3 * 4);
    EXPECT_EQ(tensorBytes(*f, "Conv", false), 10 * 10 * 4);
    EXPECT_EQ(tensorBytes(*f, "W", true), 8 * 4 * 3 * 3 * 4);
    // One output row (the convolution's y, after the padding stage's): a 3-row window of the
    // padded input, all 12 columns.
    const LoopFootprint* y = find(loops, "y", true);
    ASSERT_NE(y, nullptr);
    EXPECT_EQ(tensorBytes(*y, "Apad", false), 4 * 3 * 12 * 4);
    // The padding stage reads all of Data (its reads at y - 1 are clipped to the tensor).
    bool sawPadding = false;
    for (auto& l : loops)
        if (l.depth == 0 && tensorBytes(l, "Data", true) > 0) {
            EXPECT_EQ(tensorBytes(l, "Data", true), 4 * 10 * 10 * 4);
            EXPECT_EQ(tensorBytes(l, "Apad", true), 4 * 12 * 12 * 4);
            sawPadding = true;
        }
    EXPECT_TRUE(sawPadding);
}

TEST(Footprint, SizesAreWrittenInTheirUnits)
{
    EXPECT_EQ(byteSize(512), "512 B");
    EXPECT_EQ(byteSize(4096), "4.0 KiB");
    EXPECT_EQ(byteSize(32 * 1024 * 1024), "32 MiB");
}

} // namespace
