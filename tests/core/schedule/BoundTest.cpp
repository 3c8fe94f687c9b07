// Bound inference: the range of every iteration variable from where and how much is consumed.
#include "schedule/Bound.h"

#include "ir/Printer.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <string>

namespace loopscope {
namespace {

// A -> B = A + 1 -> C = B * 2, 64 x 64.
const char* const kChain = R"(from tvm import te
N = 64
A = te.placeholder((N, N), name="A")
B = te.compute((N, N), lambda i, j: A[i, j] + 1, name="B")
C = te.compute((N, N), lambda i, j: B[i, j] * 2, name="C")
s = te.create_schedule(C.op)
)";

// A script's last schedule with its inferred bounds.
struct Inferred {
    Schedule sch;
    BoundInfo info;
    std::string error; // the script's or inferBound's, "LINE: message"

    const Stage& stage(const std::string& name) const
    {
        for (const Stage& s : sch.stages())
            if (s.name() == name) return s;
        throw std::runtime_error("no stage " + name);
    }
    // "min:extent" of the iteration variable `iv` of stage `st`.
    std::string range(const std::string& st, const std::string& iv) const
    {
        for (const IterVar& v : stage(st).allIterVars) {
            if (v->name() != iv) continue;
            const Range& r = info.ranges.at(v.get());
            return printExpr(r.min) + ":" + printExpr(r.extent);
        }
        return "no axis " + iv;
    }
};

Inferred infer(const std::string& script)
{
    Inferred out;
    EvalResult r = evaluateScript(script);
    if (!r.ok) {
        out.error = std::to_string(r.error.loc.line) + ": " + r.error.message;
        return out;
    }
    out.sch = r.program.variants.back().schedule();
    try {
        out.info = inferBound(out.sch, inlineBodies(out.sch));
    } catch (const UserError& e) {
        out.error = std::to_string(e.loc().line) + ": " + e.message();
    }
    return out;
}

TEST(Bound, ASplitOfAnOutputAxisHasCeilOuterAndFactorInner)
{
    Inferred b = infer(std::string(kChain) + "io, ii = s[C].split(C.op.axis[0], factor=16)\n");
    ASSERT_EQ(b.error, "");
    EXPECT_EQ(b.range("C", "i"), "0:64");
    EXPECT_EQ(b.range("C", "i.outer"), "0:4");
    EXPECT_EQ(b.range("C", "i.inner"), "0:16");
    EXPECT_EQ(b.range("C", "j"), "0:64");
    EXPECT_EQ(b.range("B", "i"), "0:64"); // a root producer: everything C reads
}

TEST(Bound, ANonDivisibleSplitRoundsTheOuterExtentUp)
{
    Inferred b = infer(std::string(kChain) + "io, ii = s[C].split(C.op.axis[1], factor=10)\n"
                                             "jo, ji = s[C].split(C.op.axis[0], nparts=5)\n");
    ASSERT_EQ(b.error, "");
    EXPECT_EQ(b.range("C", "j.outer"), "0:7");
    EXPECT_EQ(b.range("C", "j.inner"), "0:10");
    EXPECT_EQ(b.range("C", "i.outer"), "0:5");
    EXPECT_EQ(b.range("C", "i.inner"), "0:13");
    // The analyzer knows every leaf loop's range.
    ConstBound inner = b.info.analyzer.bound(b.stage("C").leafIterVars.back()->var);
    EXPECT_EQ(inner.lo, 0);
    EXPECT_EQ(inner.hi, 9);
}

TEST(Bound, AProducerAtASplitOuterLoopCoversOneTile)
{
    Inferred b = infer(std::string(kChain) + "io, ii = s[C].split(C.op.axis[0], factor=8)\n"
                                             "s[B].compute_at(s[C], io)\n");
    ASSERT_EQ(b.error, "");
    EXPECT_EQ(b.range("B", "i"), "i_outer * 8:8");
    EXPECT_EQ(b.range("B", "j"), "0:64");
    std::vector<LoopRef> path = attachPath(b.sch, b.stage("B"));
    ASSERT_EQ(path.size(), 1u);
    EXPECT_EQ(path[0].stage, &b.stage("C"));
    EXPECT_EQ(path[0].iv->name(), "i.outer");
}

TEST(Bound, AProducerAtASplitInnerLoopCoversOneRow)
{
    Inferred b = infer(std::string(kChain) + "io, ii = s[C].split(C.op.axis[0], factor=8)\n"
                                             "s[B].compute_at(s[C], ii)\n");
    ASSERT_EQ(b.error, "");
    EXPECT_EQ(b.range("B", "i"), "i_outer * 8 + i_inner:1");
    EXPECT_EQ(b.range("B", "j"), "0:64");
    std::vector<LoopRef> path = attachPath(b.sch, b.stage("B"));
    ASSERT_EQ(path.size(), 2u);
    EXPECT_EQ(path[0].iv->name(), "i.outer");
    EXPECT_EQ(path[1].iv->name(), "i.inner");
    EXPECT_TRUE(attachPath(b.sch, b.stage("C")).empty());
}

TEST(Bound, AStencilProducerCoversTheTileAndItsHalo)
{
    Inferred b = infer(R"(from tvm import te
A = te.placeholder((66,), name="A")
B = te.compute((66,), lambda i: A[i] * 2, name="B")
C = te.compute((64,), lambda i: B[i] + B[i + 2], name="C")
s = te.create_schedule(C.op)
io, ii = s[C].split(C.op.axis[0], factor=8)
s[B].compute_at(s[C], io)
)");
    ASSERT_EQ(b.error, "");
    EXPECT_EQ(b.range("B", "i"), "i_outer * 8:10");
}

TEST(Bound, ARootProducerReadAtAnOffsetCoversOnlyWhatIsRead)
{
    Inferred b = infer(R"(from tvm import te
A = te.placeholder((70,), name="A")
B = te.compute((70,), lambda i: A[i] * 2, name="B")
C = te.compute((64,), lambda i: B[i + 3], name="C")
s = te.create_schedule(C.op)
)");
    ASSERT_EQ(b.error, "");
    EXPECT_EQ(b.range("B", "i"), "3:64");
    EXPECT_EQ(b.range("C", "i"), "0:64");
}

TEST(Bound, AnAttachedProducerReadOutsideItsLoopIsAnErrorAtComputeAt)
{
    Inferred b = infer(R"(from tvm import te
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: A[i] + 1, name="B")
C = te.compute((8,), lambda i: B[i] * 2, name="C")
D = te.compute((8,), lambda i: B[i] * 3, name="D")
s = te.create_schedule([C.op, D.op])
s[B].compute_at(s[C], C.op.axis[0])
)");
    EXPECT_EQ(b.error, "7: 'B' is computed inside loop 'i' of 'C', but 'D' also reads it outside "
                       "that loop");
}

} // namespace
} // namespace loopscope
