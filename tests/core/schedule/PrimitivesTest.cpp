// Each schedule primitive's effect on the loop structure: the loops of the lowered program
// (pre-order, "name extent kind"), read straight from the IR.
#include "ir/IRMutator.h"
#include "lower/Lower.h"
#include "te/Program.h"

#include <gtest/gtest.h>

using namespace loopscope;

namespace {

const char* kMatmul = R"(
import tvm
from tvm import te
M = N = K = 64
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
s = te.create_schedule(C.op)
i, j = C.op.axis
)";

const char* kChain = R"(
import tvm
from tvm import te
N = 64
A = te.placeholder((N, N), name="A")
B = te.compute((N, N), lambda i, j: A[i, j] + 1, name="B")
C = te.compute((N, N), lambda i, j: B[i, j] * 2, name="C")
s = te.create_schedule(C.op)
)";

class LoopCollector : public IRVisitor {
public:
    std::vector<std::string> loops;
    std::vector<std::string> allocations;

protected:
    void visitFor(const ForNode* op) override
    {
        std::string ext = std::to_string(constIntOr(op->extent, -1));
        loops.push_back(
            op->var.name() + " " + ext +
            (op->forKind == ForKind::Serial ? "" : std::string(" ") + forKindName(op->forKind)));
        IRVisitor::visitFor(op);
    }
    void visitAllocate(const AllocateNode* op) override
    {
        allocations.push_back(op->buffer->name);
        IRVisitor::visitAllocate(op);
    }
};

struct Lowered {
    std::vector<std::string> loops; // of the structured program (before vectorize/unroll)
    std::vector<std::string> allocations;
    std::string error;
};

Lowered lowerScript(const std::string& prefix, const std::string& steps)
{
    Lowered out;
    EvalResult r = evaluateScript(prefix + steps);
    if (!r.ok) {
        out.error = std::to_string(r.error.loc.line) + ": " + r.error.message;
        return out;
    }
    const Variant& v = r.program.variants.back();
    try {
        LoweredFunc f = lowerSchedule(v.schedule(), v.args);
        LoopCollector structured;
        structured.visit(f.structured);
        out.loops = structured.loops;
        LoopCollector final;
        final.visit(f.func.body);
        out.allocations = final.allocations;
    } catch (const UserError& e) {
        out.error = std::to_string(e.loc().line) + ": " + e.message();
    }
    return out;
}

using Loops = std::vector<std::string>;

TEST(Primitives, DefaultScheduleIsDeclarationOrder)
{
    auto l = lowerScript(kMatmul, "");
    EXPECT_EQ(l.loops, (Loops{"i 64", "j 64", "k 64"}));
}

TEST(Primitives, SplitByFactor)
{
    auto l = lowerScript(kMatmul, "io, ii = s[C].split(i, factor=16)\n");
    EXPECT_EQ(l.loops, (Loops{"i.outer 4", "i.inner 16", "j 64", "k 64"}));
}

TEST(Primitives, SplitByNparts)
{
    auto l = lowerScript(kMatmul, "io, ii = s[C].split(i, nparts=16)\n");
    EXPECT_EQ(l.loops, (Loops{"i.outer 16", "i.inner 4", "j 64", "k 64"}));
}

TEST(Primitives, SplitWiderThanTheAxisIsClipped)
{
    auto l = lowerScript(kMatmul, "io, ii = s[C].split(i, factor=128)\n");
    EXPECT_EQ(l.loops, (Loops{"i.inner 64", "j 64", "k 64"}));
}

TEST(Primitives, TileOrdersOuterThenInner)
{
    auto l = lowerScript(kMatmul, "io, jo, ii, ji = s[C].tile(i, j, 8, 16)\n");
    EXPECT_EQ(l.loops, (Loops{"i.outer 8", "j.outer 4", "i.inner 8", "j.inner 16", "k 64"}));
}

TEST(Primitives, FuseNamesAndMultipliesExtents)
{
    auto l = lowerScript(kMatmul, "f = s[C].fuse(i, j)\n");
    EXPECT_EQ(l.loops, (Loops{"i.j.fused 4096", "k 64"}));
}

TEST(Primitives, FuseFoldsLeftToRight)
{
    auto l = lowerScript(kMatmul, "io, ii = s[C].split(i, factor=4)\nf = s[C].fuse(io, ii, j)\n");
    EXPECT_EQ(l.loops, (Loops{"i.outer.i.inner.fused.j.fused 4096", "k 64"}));
}

TEST(Primitives, ReorderKeepsUnnamedAxesInPlace)
{
    auto l = lowerScript(kMatmul, "s[C].reorder(k, i)\n");
    // i and k swap the positions they occupied; j stays in the middle.
    EXPECT_EQ(l.loops, (Loops{"j.init 64", "i.init 64", "k 64", "j 64", "i 64"}));
}

TEST(Primitives, ReorderPutsReductionOutsideAndMovesInit)
{
    auto l = lowerScript(kMatmul, "s[C].reorder(i, k, j)\n");
    // The init gets its own loop (j.init) inside i, before the reduction loop.
    EXPECT_EQ(l.loops, (Loops{"i 64", "j.init 64", "k 64", "j 64"}));
}

TEST(Primitives, AnnotationsSetLoopKinds)
{
    auto l = lowerScript(
        kMatmul,
        "s[C].parallel(i)\nio, ii = s[C].split(j, factor=8)\ns[C].vectorize(ii)\n"
        "ko, ki = s[C].split(k, factor=4)\ns[C].unroll(ki)\ns[C].reorder(i, io, ko, ki, ii)\n");
    EXPECT_EQ(l.loops, (Loops{"i 64 parallel", "j.outer 8", "j.inner.init 8 vectorized",
                              "k.outer 16", "k.inner 4 unroll", "j.inner 8 vectorized"}));
}

TEST(Primitives, ComputeAtPlacesProducerInsideConsumerLoop)
{
    auto l = lowerScript(kChain, "s[B].compute_at(s[C], C.op.axis[0])\n");
    // B computes one row (i has extent 1 and disappears) inside C's row loop.
    EXPECT_EQ(l.loops, (Loops{"i 64", "j 64", "j 64"}));
    EXPECT_EQ(l.allocations, (Loops{"B"}));
}

TEST(Primitives, ComputeAtTileComputesTheTile)
{
    auto l = lowerScript(kChain, "io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 8)\n"
                                 "s[B].compute_at(s[C], jo)\n");
    EXPECT_EQ(l.loops, (Loops{"i.outer 8", "j.outer 8", "i 8", "j 8", "i.inner 8", "j.inner 8"}));
}

TEST(Primitives, ComputeInlineRemovesTheStage)
{
    auto l = lowerScript(kChain, "s[B].compute_inline()\n");
    EXPECT_EQ(l.loops, (Loops{"i 64", "j 64"}));
    EXPECT_TRUE(l.allocations.empty());
}

TEST(Primitives, ComputeRootUndoesComputeAt)
{
    auto l = lowerScript(kChain, "s[B].compute_at(s[C], C.op.axis[0])\ns[B].compute_root()\n");
    EXPECT_EQ(l.loops, (Loops{"i 64", "j 64", "i 64", "j 64"}));
}

TEST(Primitives, CacheWriteAddsALocalStage)
{
    auto l = lowerScript(
        kMatmul, "CC = s.cache_write(C, \"local\")\nio, jo, ii, ji = s[C].tile(i, j, 8, 8)\n"
                 "s[CC].compute_at(s[C], jo)\n");
    EXPECT_EQ(l.loops, (Loops{"i.outer 8", "j.outer 8", "i.c 8", "j.c 8", "k 64", "i.inner 8",
                              "j.inner 8"}));
    EXPECT_EQ(l.allocations, (Loops{"C.local"}));
}

TEST(Primitives, CacheReadAddsACopyStage)
{
    auto l = lowerScript(kChain, "AA = s.cache_read(A, \"global\", [B])\n");
    EXPECT_EQ(l.loops, (Loops{"ax0 64", "ax1 64", "i 64", "j 64", "i 64", "j 64"}));
}

TEST(Primitives, RfactorSplitsTheReduction)
{
    auto l = lowerScript(kMatmul, "ko, ki = s[C].split(k, factor=4)\nCF = s.rfactor(C, ki)\n");
    EXPECT_EQ(l.loops, (Loops{"k.inner 4", "i 64", "j 64", "k.outer 16", "ax0 64", "ax1 64",
                              "k.inner.v 4"}));
}

TEST(Primitives, NonDivisibleSplitIsGuarded)
{
    auto l = lowerScript(kChain, "io, ii = s[C].split(C.op.axis[0], factor=10)\n");
    EXPECT_EQ(l.loops, (Loops{"i 64", "j 64", "i.outer 7", "i.inner 10", "j 64"}));
}

TEST(Primitives, IllegalStepIsReportedAtItsLine)
{
    auto l = lowerScript(kMatmul, "s[C].vectorize(k)\n");
    EXPECT_EQ(l.error.substr(0, 3), "11:") << l.error;
}

} // namespace
