// Tails of non-divisible splits against counts made here, loop by loop, over prime extents: a
// split on each axis (one guard each, a vectorized loop falling back to a serial one), a split of
// a split (two guards reading common loops, counted together), a reduction split, and a schedule
// whose splits all divide (no tails).
#include "lower/Tails.h"
#include "te/Program.h"

#include <gtest/gtest.h>

using namespace loopscope;

namespace {

const char* kHeader = R"(import tvm
from tvm import te
N = 97
M = 61
A = te.placeholder((N, M), name="A", dtype="float32")
B = te.compute((N, M), lambda i, j: A[i, j] * 2.0, name="B")
)";

TailReport tailsOf(const std::string& script)
{
    EvalResult r = evaluateScript(script);
    EXPECT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    return guardedTails(lowerSchedule(v.schedule(), v.args, v.funcName));
}

const GuardedTail* find(const TailReport& r, const std::string& loop)
{
    for (auto& t : r.tails)
        if (t.loop == loop) return &t;
    return nullptr;
}

TEST(Tails, ASplitOnEachAxisMatchesACount)
{
    TailReport r = tailsOf(std::string(kHeader) + R"(
# variant: split
s = te.create_schedule(B.op)
i, j = s[B].op.axis
io, ii = s[B].split(i, factor=8)
jo, ji = s[B].split(j, factor=16)
s[B].reorder(io, jo, ii, ji)
s[B].vectorize(ji)
)");
    // The count: every iteration of the four loops; a tile is a value of the outer loop.
    long all = 0, tail = 0, off = 0;
    for (int io = 0; io < 13; ++io)
        for (int jo = 0; jo < 4; ++jo)
            for (int ii = 0; ii < 8; ++ii)
                for (int ji = 0; ji < 16; ++ji) {
                    ++all;
                    const bool partialI = io * 8 + 8 > 97, partialJ = jo * 16 + 16 > 61;
                    tail += (partialI || partialJ) ? 1 : 0;
                    off += (io * 8 + ii >= 97 || jo * 16 + ji >= 61) ? 1 : 0;
                }
    EXPECT_EQ(r.storeIterations, all);
    EXPECT_NEAR(r.tailShare, double(tail) / double(all), 1e-12);
    EXPECT_NEAR(r.offShare, double(off) / double(all), 1e-12);
    EXPECT_EQ(r.uncounted, 0);
    ASSERT_EQ(r.tails.size(), 2u);
    const GuardedTail* i = find(r, "i_inner");
    ASSERT_NE(i, nullptr);
    EXPECT_EQ(i->iterations, 13 * 8);
    EXPECT_EQ(i->inTail, 8);
    EXPECT_EQ(i->guardedOff, 13 * 8 - 97);
    EXPECT_EQ(i->loops, (std::vector<std::string>{"i_outer", "i_inner"}));
    EXPECT_GT(i->loopLine, 0);
    ASSERT_EQ(i->lines.size(), 1u);
    EXPECT_GT(i->lines.front(), i->loopLine);
    // The guard keeps j_inner from vectorizing: it runs as a serial loop, and its tail is that
    // loop's.
    const GuardedTail* j = find(r, "j_inner_s");
    ASSERT_NE(j, nullptr);
    EXPECT_EQ(j->iterations, 4 * 16);
    EXPECT_EQ(j->inTail, 16);
    EXPECT_EQ(j->guardedOff, 4 * 16 - 61);
    EXPECT_EQ(describeTail(*i),
              "i_inner: 8 of 104 iterations (7.7 %) run in a partial tile, 7 (6.7 %) guarded off");
}

TEST(Tails, ASplitOfASplitIsCountedAsOne)
{
    TailReport r = tailsOf(std::string(kHeader) + R"(
# variant: nested
s = te.create_schedule(B.op)
i, j = s[B].op.axis
io, ii = s[B].split(i, factor=8)
ioo, ioi = s[B].split(io, factor=3)
)");
    long all = 0, tail = 0, off = 0;
    for (int ioo = 0; ioo < 5; ++ioo)
        for (int ioi = 0; ioi < 3; ++ioi) {
            int pass = 0;
            for (int ii = 0; ii < 8; ++ii) {
                ++all;
                const bool ok = ioo * 24 + ioi * 8 + ii < 97 && ioo * 3 + ioi < 13;
                pass += ok ? 1 : 0;
            }
            if (pass < 8) tail += 8, off += 8 - pass;
        }
    ASSERT_EQ(r.tails.size(), 1u);
    const GuardedTail& t = r.tails.front();
    EXPECT_EQ(t.loop, "i_inner");
    EXPECT_EQ(t.lines.size(), 2u); // both guards
    EXPECT_EQ(t.iterations, all);
    EXPECT_EQ(t.inTail, tail);
    EXPECT_EQ(t.guardedOff, off);
    EXPECT_EQ(t.guardedOff, 120 - 97);
    // j does not take part: the shares over the store are the group's.
    EXPECT_NEAR(r.tailShare, double(tail) / double(all), 1e-12);
    EXPECT_NEAR(r.offShare, double(off) / double(all), 1e-12);
}

TEST(Tails, AReductionSplit)
{
    TailReport r = tailsOf(R"(import tvm
from tvm import te
M = 13
K = 101
A = te.placeholder((M, K), name="A")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M,), lambda i: te.sum(A[i, k], axis=k), name="C")
# variant: k by 4
s = te.create_schedule(C.op)
ko, ki = s[C].split(k, factor=4)
)");
    ASSERT_EQ(r.tails.size(), 1u);
    const GuardedTail& t = r.tails.front();
    EXPECT_EQ(t.loop, "k_inner");
    EXPECT_EQ(t.iterations, 26 * 4);
    EXPECT_EQ(t.inTail, 4);
    EXPECT_EQ(t.guardedOff, 26 * 4 - 101);
    // The init store runs 13 times, unguarded; the update 13 x 104 times, 13 x 4 in the tail.
    EXPECT_EQ(r.storeIterations, 13 + 13 * 104);
    EXPECT_NEAR(r.tailShare, 13.0 * 4 / (13 + 13 * 104), 1e-12);
}

TEST(Tails, DividingSplitsHaveNone)
{
    TailReport r = tailsOf(R"(import tvm
from tvm import te
A = te.placeholder((96, 64), name="A")
B = te.compute((96, 64), lambda i, j: A[i, j] + 1.0, name="B")
# variant: tiled
s = te.create_schedule(B.op)
io, jo, ii, ji = s[B].tile(B.op.axis[0], B.op.axis[1], x_factor=32, y_factor=16)
s[B].vectorize(ji)
)");
    EXPECT_TRUE(r.tails.empty());
    EXPECT_EQ(r.tailShare, 0);
    EXPECT_EQ(r.offShare, 0);
}

} // namespace
