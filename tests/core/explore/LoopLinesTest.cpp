// Each loop of a step's printed TIR traced to the stage and axis it is, by the loop's variable:
// stages whose axes have the same names, a stage computed inside another's loop, a reduction's
// init loops, a T.grid line's several loops, and the loops unrolling copies.
#include "explore/Explorer.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace loopscope;

namespace {

// The loops as "var: stage.axis" (" init" for an init loop; "?" untraced), one a line.
std::string described(const std::vector<PrintedLoop>& loops)
{
    std::ostringstream out;
    for (const PrintedLoop& l : loops)
        out << l.line << " " << l.var << ": " << (l.stage.empty() ? "?" : l.stage + "." + l.axis)
            << (l.init ? " init" : "") << "\n";
    return out.str();
}

const StepView& lastStep(const std::string& script)
{
    static Exploration x;
    x = explore(script);
    EXPECT_TRUE(x.ok) << x.error.message;
    EXPECT_FALSE(x.variants.empty());
    return x.variants.front().steps.back();
}

const char* const kHeader = "import tvm\nfrom tvm import te\n";

} // namespace

TEST(LoopLines, StagesWithTheSameAxisNamesAreToldApartInsideOneAnother)
{
    const StepView& step = lastStep(std::string(kHeader) + R"(A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
C = te.compute((64, 64), lambda i, j: B[i, j] + 1.0, name="C")
s = te.create_schedule(C.op)
s[B].compute_at(s[C], C.op.axis[0])
)");
    // C's loop over i holds B's loop over j, then C's own.
    for (const auto* loops : {&step.tirLoops, &step.structuredLoops}) {
        const std::string d = described(*loops);
        ASSERT_EQ(loops->size(), 3u) << d << step.tir;
        EXPECT_EQ((*loops)[0].stage + (*loops)[0].axis, "Ci") << d << step.tir;
        EXPECT_EQ((*loops)[1].stage + (*loops)[1].axis, "Bj") << d << step.tir;
        EXPECT_EQ((*loops)[2].stage + (*loops)[2].axis, "Cj") << d << step.tir;
        EXPECT_LT((*loops)[0].line, (*loops)[1].line);
    }
}

TEST(LoopLines, AReductionsInitLoopsAreItsAxes)
{
    const StepView& step = lastStep(std::string(kHeader) + R"(A = te.placeholder((64, 64), name="A")
B = te.placeholder((64, 64), name="B")
k = te.reduce_axis((0, 64), name="k")
C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
s = te.create_schedule(C.op)
io, ii = s[C].split(C.op.axis[0], factor=8)
jo, ji = s[C].split(C.op.axis[1], factor=8)
s[C].reorder(io, jo, k, ii, ji)
)");
    for (const auto* loops : {&step.tirLoops, &step.structuredLoops}) {
        const std::string d = described(*loops);
        int inits = 0;
        for (const PrintedLoop& l : *loops) {
            EXPECT_EQ(l.stage, "C") << d << step.tir;
            if (!l.init) continue;
            ++inits;
            EXPECT_EQ(l.var, l.axisVar + ".init") << d;
        }
        EXPECT_EQ(inits, 2) << d << step.tir;
        // i_inner_init, j_inner_init share a T.grid line, outer to inner.
        const PrintedLoop* first = nullptr;
        for (const PrintedLoop& l : *loops)
            if (l.init && !first) first = &l;
        ASSERT_NE(first, nullptr);
        const PrintedLoop* inner = printedLoopAt(*loops, first->line, 1);
        ASSERT_NE(inner, nullptr) << d;
        EXPECT_EQ(first->axis, "i_inner") << d;
        EXPECT_EQ(inner->axis, "j_inner") << d;
        EXPECT_TRUE(inner->init);
    }
}

TEST(LoopLines, ATGridLinesLoopsAreOuterToInner)
{
    const StepView& step = lastStep(std::string(kHeader) + R"(A = te.placeholder((64, 64), name="A")
C = te.compute((64, 64), lambda i, j: A[i, j] + 1.0, name="C")
s = te.create_schedule(C.op)
io, ii = s[C].split(C.op.axis[0], factor=32)
)");
    ASSERT_EQ(step.tirLoops.size(), 3u) << described(step.tirLoops);
    const int line = step.tirLoops.front().line;
    ASSERT_NE(printedLoopAt(step.tirLoops, line, 2), nullptr) << step.tir;
    EXPECT_EQ(printedLoopAt(step.tirLoops, line, 0)->axis, "i_outer");
    EXPECT_EQ(printedLoopAt(step.tirLoops, line, 1)->axis, "i_inner");
    EXPECT_EQ(printedLoopAt(step.tirLoops, line, 2)->axis, "j");
    EXPECT_EQ(printedLoopAt(step.tirLoops, line, 2)->axisVar, "j");
    EXPECT_EQ(printedLoopAt(step.tirLoops, line, 3), nullptr);
    EXPECT_EQ(printedLoopAt(step.tirLoops, line + 1, 0), nullptr);
}

TEST(LoopLines, LoopsInsideUnrolledCopiesAreTheirAxes)
{
    const StepView& step = lastStep(std::string(kHeader) + R"(A = te.placeholder((4, 64), name="A")
C = te.compute((4, 64), lambda i, j: A[i, j] + 1.0, name="C")
s = te.create_schedule(C.op)
s[C].unroll(C.op.axis[0])
)");
    // Four copies of the loop over j, each but the first over a fresh variable.
    const std::string d = described(step.tirLoops);
    ASSERT_EQ(step.tirLoops.size(), 4u) << d << step.tir;
    for (const PrintedLoop& l : step.tirLoops)
        EXPECT_EQ(l.stage + "." + l.axis, "C.j") << d << step.tir;
}

namespace {

std::string lineOf(const std::string& text, int line)
{
    std::istringstream in(text);
    std::string l;
    for (int n = 0; n < line && std::getline(in, l); ++n) {
    }
    return l;
}

// A TensorIR variant's footprints are computed on its compiled form and placed on the loops of
// both printings: the compiled one and the blocks' (sch.mod.show()), matched by variable.
TEST(LoopLines, ATensorIRVariantsFootprintsAreOnBothPrintings)
{
    const Exploration x = explore(R"(import tvm
from tvm import te
M = 128
A = te.placeholder((M, M), name="A")
B = te.placeholder((M, M), name="B")
k = te.reduce_axis((0, M), name="k")
Y = te.compute((M, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
C = te.compute((M, M), lambda i, j: te.max(Y[i, j], te.const(0, "float32")), name="C")
sch = tvm.tir.Schedule(te.create_prim_func([A, B, C]))
b = sch.get_block("Y")
i, j, kk = sch.get_loops(b)
j0, j1 = sch.split(j, factors=[None, 48])
sch.reorder(j0, kk, j1)
)");
    ASSERT_TRUE(x.ok) << x.error.message;
    const StepView& s = x.variants.at(0).steps.back();
    ASSERT_FALSE(s.footprints.empty());
    int onBlocks = 0;
    for (const LoopFootprint& f : s.footprints) {
        SCOPED_TRACE(f.var);
        ASSERT_GT(f.structuredLine, 0);
        const std::string compiled = lineOf(s.structured, f.structuredLine);
        EXPECT_NE(compiled.find("for "), std::string::npos) << compiled;
        EXPECT_NE(compiled.find(f.var), std::string::npos) << compiled;
        if (f.line == 0) continue;
        ++onBlocks;
        const std::string l = lineOf(s.tir, f.line);
        EXPECT_NE(l.find("for "), std::string::npos) << l;
        EXPECT_NE(l.find(f.var), std::string::npos) << l;
    }
    EXPECT_EQ(onBlocks, static_cast<int>(s.footprints.size()));
    // The split by 48 leaves a tail: the guard is on the split loop of the blocks' printing.
    ASSERT_EQ(s.tails.tails.size(), 1u);
    EXPECT_NE(lineOf(s.tir, s.tails.tails[0].loopLine).find("j_1"), std::string::npos) << s.tir;
}

} // namespace
