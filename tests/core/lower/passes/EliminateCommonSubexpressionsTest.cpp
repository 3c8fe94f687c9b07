// CommonSubexprElim reproduces the cse_var lets TVM 0.17 prints: the shared examples are rebuilt
// as TVM has them just before CSE, and the result must print as the example's function body.
#include "lower/passes/EliminateCommonSubexpressions.h"
#include "support/SourceFiles.h"

#include "ir/Printer.h"
#include "lower/passes/UnrollLoops.h"
#include "lower/passes/VectorizeLoops.h"

#include "support/FlatBuffer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace loopscope {
namespace {

using testsupport::flatBuffer;

Expr load(const Buffer& b, Expr i)
{
    return makeBufferLoad(b, {std::move(i)});
}
Stmt store(const Buffer& b, Expr i, Expr v)
{
    return makeBufferStore(b, {std::move(i)}, v);
}
Expr ramp(Expr base, int lanes)
{
    return makeRamp(std::move(base), 1, lanes);
}
Stmt loop(const Var& v, std::int64_t extent, Stmt body, ForKind kind = ForKind::Serial)
{
    return makeFor(v, 0, makeInt(extent), kind, std::move(body));
}

// The body of `main` in one of TVM's outputs (tests/data/tvm), as printStmt prints it: the alias
// declarations
// (`C_1 = T.Buffer(...)`) dropped, `C_1[` read as `C[`, indentation relative to the body.
std::string exampleBody(const std::string& file)
{
    const std::string text = readSourceFile("tests/data/tvm/" + file);
    EXPECT_FALSE(text.empty()) << "cannot read " << file;
    std::istringstream in(text);
    std::string line, out;
    bool inBody = false;
    while (std::getline(in, line)) {
        if (line.find("T.func_attr") != std::string::npos) {
            inBody = true;
            continue;
        }
        if (!inBody || line.find("= T.Buffer(") != std::string::npos) continue;
        line = std::regex_replace(line, std::regex("\\b([A-Z][A-Za-z]*)_1\\["), "$1[");
        out += line.substr(std::min<std::size_t>(8, line.size())) + "\n";
    }
    return out;
}

struct Vars {
    Var io{"i.outer"}, jo{"j.outer"}, iiInit{"i.inner.init"}, jioInit{"j.inner.outer.init"};
    Var jiiInit{"j.inner.inner.init"}, ko{"k.outer"}, ii{"i.inner"}, jio{"j.inner.outer"};
    Var ki{"k.inner"}, jii{"j.inner.inner"};
};

// full_ladder.py after VectorizeLoop, UnrollLoop and Simplify: what CSE receives in TVM.
Stmt fullLadderBeforeCse(const Vars& v)
{
    Buffer A = flatBuffer("A", 64), B = flatBuffer("B", 64), C = flatBuffer("C", 64);
    Expr cInit = v.io * 32 + v.iiInit * 8 + v.jo * 4 + v.jioInit * 2;
    Stmt init = loop(v.iiInit, 4,
                     loop(v.jioInit, 2, store(C, ramp(cInit, 2), makeBroadcast(makeFloat(0), 2))));
    Expr cx = v.io * 32 + v.ii * 8 + v.jo * 4 + v.jio * 2;
    Expr ax = v.io * 32 + v.ii * 8 + v.ko * 2;
    Expr bx = v.ko * 16 + v.jo * 4 + v.jio * 2;
    auto update = [&](Expr a, Expr b) {
        return store(C, ramp(cx, 2),
                     load(C, ramp(cx, 2)) + makeBroadcast(load(A, a), 2) * load(B, ramp(b, 2)));
    };
    Stmt body = makeSeq({update(ax, bx), update(ax + 1, bx + 8)});
    Stmt compute = loop(v.ko, 4, loop(v.ii, 4, loop(v.jio, 2, body)));
    return loop(v.io, 2, loop(v.jo, 2, makeSeq({init, compute})), ForKind::Parallel);
}

// full_ladder.py before VectorizeLoop: j.inner.inner vectorized, k.inner unrolled.
Stmt fullLadderScheduled(const Vars& v)
{
    Buffer A = flatBuffer("A", 64), B = flatBuffer("B", 64), C = flatBuffer("C", 64);
    Expr cInit = v.io * 32 + v.iiInit * 8 + v.jo * 4 + v.jioInit * 2 + v.jiiInit;
    Stmt init = loop(
        v.iiInit, 4,
        loop(v.jioInit, 2, loop(v.jiiInit, 2, store(C, cInit, makeFloat(0)), ForKind::Vectorized)));
    Expr cx = v.io * 32 + v.ii * 8 + v.jo * 4 + v.jio * 2 + v.jii;
    Expr ax = v.io * 32 + v.ii * 8 + v.ko * 2 + v.ki;
    Expr bx = v.ko * 16 + v.ki * 8 + v.jo * 4 + v.jio * 2 + v.jii;
    Stmt update = store(C, cx, load(C, cx) + load(A, ax) * load(B, bx));
    Stmt compute = loop(
        v.ko, 4,
        loop(v.ii, 4,
             loop(v.jio, 2,
                  loop(v.ki, 2, loop(v.jii, 2, update, ForKind::Vectorized), ForKind::Unrolled))));
    return loop(v.io, 2, loop(v.jo, 2, makeSeq({init, compute})), ForKind::Parallel);
}

TEST(CommonSubexprElim, FullLadderMatchesTvm)
{
    Vars v;
    Stmt out = eliminateCommonSubexpressions(fullLadderBeforeCse(v));
    EXPECT_EQ(printStmt(out), exampleBody("full_ladder.tvm.txt"));
}

TEST(CommonSubexprElim, FullLadderFromTheScheduledLoops)
{
    Vars v;
    Stmt out = eliminateCommonSubexpressions(unrollLoops(vectorizeLoops(fullLadderScheduled(v))));
    EXPECT_EQ(printStmt(out), exampleBody("full_ladder.tvm.txt"));
}

TEST(CommonSubexprElim, NaiveMatchesTvm)
{
    Buffer A = flatBuffer("A", 64), B = flatBuffer("B", 64), C = flatBuffer("C", 64);
    Var i("i"), j("j"), k("k");
    Stmt update = store(C, i * 8 + j, load(C, i * 8 + j) + load(A, i * 8 + k) * load(B, k * 8 + j));
    Stmt s =
        loop(i, 8, loop(j, 8, makeSeq({store(C, i * 8 + j, makeFloat(0)), loop(k, 8, update)})));
    EXPECT_EQ(printStmt(eliminateCommonSubexpressions(s)), exampleBody("naive.tvm.txt"));
}

TEST(CommonSubexprElim, NondivisibleMatchesTvm)
{
    Buffer A = flatBuffer("A", 100), B = flatBuffer("B", 100), C = flatBuffer("C", 100);
    Var io("i.outer"), ii("i.inner"), j("j"), k("k");
    auto guard = [&](Stmt s) {
        Expr cond = io * 2 + floordiv(ii, 2) < 5;
        return makeIfThenElse(makeCall(DataType::boolean(), CallOp::Likely, {cond}), s);
    };
    Expr c = io * 40 + ii * 10 + j;
    Stmt update = store(C, c, load(C, c) + load(A, io * 40 + ii * 10 + k) * load(B, k * 10 + j));
    Stmt s = loop(
        io, 3,
        loop(ii, 4,
             loop(j, 10, makeSeq({guard(store(C, c, makeFloat(0))), guard(loop(k, 10, update))}))));
    EXPECT_EQ(printStmt(eliminateCommonSubexpressions(s)), exampleBody("nondivisible.tvm.txt"));
}

// Numbering runs over the whole function, in creation order.
TEST(CommonSubexprElim, NumbersContinueAcrossLoopNests)
{
    Buffer A = flatBuffer("A", 64), B = flatBuffer("B", 64);
    Var i("i"), j("j");
    Stmt first = loop(i, 8, store(A, i * 8 + 1, load(B, i * 8 + 1)));
    Stmt second = loop(j, 8, store(B, j * 4 + 2, load(A, j * 4 + 2)));
    EXPECT_EQ(printStmt(eliminateCommonSubexpressions(makeSeq({first, second}))),
              "for i in range(8):\n"
              "    cse_var_1: T.int32 = i * 8 + 1\n"
              "    A[cse_var_1] = B[cse_var_1]\n"
              "for j in range(8):\n"
              "    cse_var_2: T.int32 = j * 4 + 2\n"
              "    B[cse_var_2] = A[cse_var_2]\n");
}

TEST(CommonSubexprElim, SkipsNamesTheProgramUses)
{
    Buffer A = flatBuffer("A", 64);
    Var taken("cse_var_1"), i("i");
    Stmt s =
        makeLetStmt(taken, makeInt(3), loop(i, 8, store(A, i * 8 + taken, load(A, i * 8 + taken))));
    EXPECT_EQ(printStmt(eliminateCommonSubexpressions(s)),
              "cse_var_1: T.int32 = 3\n"
              "for i in range(8):\n"
              "    cse_var_2: T.int32 = i * 8 + cse_var_1\n"
              "    A[cse_var_2] = A[cse_var_2]\n");
}

// Loads and calls are never commoned (their operands are), ramps neither.
TEST(CommonSubexprElim, LoadsCallsAndRampsAreNotCandidates)
{
    Buffer A = flatBuffer("A", 64), B = flatBuffer("B", 64);
    Var i("i");
    Expr x = makeCall(DataType::float32(), CallOp::Exp, {load(A, i)});
    Stmt s = loop(i, 8,
                  makeSeq({store(B, i, x + x), store(B, ramp(i * 4, 4), load(A, ramp(i * 4, 4)))}));
    EXPECT_EQ(printStmt(eliminateCommonSubexpressions(s)),
              "for i in range(8):\n"
              "    cse_var_1: T.int32 = i * 4\n"
              "    B[i] = T.exp(A[i]) + T.exp(A[i])\n"
              "    B[cse_var_1:cse_var_1 + 4] = A[cse_var_1:cse_var_1 + 4]\n");
}

// An expression that only a loop body computes stays in the body; the variables of a symbolic
// size are not defined in the function, so expressions using them are not introduced.
TEST(CommonSubexprElim, NothingLeavesALoopAndFreeVariablesBlock)
{
    Buffer A = flatBuffer("A", 64);
    Var n("n"), i("i"), j("j");
    Stmt inner = loop(j, 4, store(A, i * 4 + j, load(A, i * 4 + j)));
    Stmt free = store(A, i * n, load(A, i * n));
    Stmt s = loop(i, 8, makeSeq({inner, free}));
    EXPECT_EQ(printStmt(eliminateCommonSubexpressions(s)),
              "for i in range(8):\n"
              "    for j in range(4):\n"
              "        cse_var_1: T.int32 = i * 4 + j\n"
              "        A[cse_var_1] = A[cse_var_1]\n"
              "    A[i * n] = A[i * n]\n");
}

// An if reports only what two of its parts (condition, then, else) share: an index used twice
// inside the branch but wrapped in the condition's comparison gets its let inside the branch.
TEST(CommonSubexprElim, IfReportsWhatItsPartsShare)
{
    Buffer A = flatBuffer("A", 64);
    Var i("i"), j("j");
    Expr x = i * 8 + j;
    Expr cond = makeCall(DataType::boolean(), CallOp::Likely, {x < 60});
    Stmt s = loop(i, 8, loop(j, 8, makeIfThenElse(cond, store(A, x, load(A, x) + makeFloat(1)))));
    EXPECT_EQ(printStmt(eliminateCommonSubexpressions(s)),
              "for i, j in T.grid(8, 8):\n"
              "    if T.likely(i * 8 + j < 60):\n"
              "        cse_var_1: T.int32 = i * 8 + j\n"
              "        A[cse_var_1] = A[cse_var_1] + T.float32(1)\n");
}

TEST(CommonSubexprElim, UnchangedStatementIsReturnedAsIs)
{
    Buffer A = flatBuffer("A", 64);
    Var i("i");
    Stmt s = loop(i, 8, store(A, i * 8, load(A, i + 1)));
    EXPECT_TRUE(eliminateCommonSubexpressions(s).same(s));
}

} // namespace
} // namespace loopscope
