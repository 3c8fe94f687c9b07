// The Simplify pass: index arithmetic with loop ranges known, decided guards, trivial loops, lets.
#include "lower/passes/SimplifyStmt.h"

#include "ir/Printer.h"

#include "support/FlatBuffer.h"

#include <gtest/gtest.h>

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
    return makeBufferStore(b, {std::move(i)}, std::move(v));
}
Stmt loop(const Var& v, std::int64_t extent, Stmt body, std::int64_t min = 0)
{
    return makeFor(v, makeInt(min), makeInt(extent), ForKind::Serial, std::move(body));
}
Expr likely(Expr c)
{
    return makeCall(DataType::boolean(), CallOp::Likely, {std::move(c)});
}

struct Fixture {
    Buffer A = flatBuffer("A", 64), C = flatBuffer("C", 64);
    Var i{"i"}, io{"io"}, ii{"ii"}, x{"x"};
};

TEST(Simplify, ALoopOfExtentOneStaysWithItsVariableItsMinimum)
{
    // As TVM: the analyzer binds the variable to its one value; Simplify removes no loop.
    Fixture f;
    Stmt s = loop(f.i, 1, store(f.C, f.i + 2, load(f.A, f.i)), 3);
    EXPECT_EQ(printStmt(simplifyStmt(s)), "for i in range(3, 4):\n"
                                          "    C[5] = A[3]\n");
}

TEST(Simplify, ALoopOfExtentZeroDisappears)
{
    Fixture f;
    Stmt empty = loop(f.i, 0, store(f.C, f.i, load(f.A, f.i)));
    EXPECT_FALSE(simplifyStmt(empty).defined());
    Stmt s = makeSeq({empty, store(f.C, makeInt(0), load(f.A, makeInt(1)))});
    EXPECT_EQ(printStmt(simplifyStmt(s)), "C[0] = A[1]\n");
}

TEST(Simplify, AGuardProvenTrueByTheLoopRangeIsRemoved)
{
    Fixture f;
    Stmt s =
        loop(f.i, 8, makeIfThenElse(likely(f.i < makeInt(8)), store(f.C, f.i, load(f.A, f.i))));
    EXPECT_EQ(printStmt(simplifyStmt(s)), "for i in range(8):\n"
                                          "    C[i] = A[i]\n");
}

TEST(Simplify, AGuardProvenFalseLeavesOnlyTheElseBranch)
{
    Fixture f;
    Stmt s = loop(f.i, 8,
                  makeIfThenElse(f.i >= makeInt(8), store(f.C, f.i, load(f.A, f.i)),
                                 store(f.C, f.i, makeFloat(0))));
    EXPECT_EQ(printStmt(simplifyStmt(s)), "for i in range(8):\n"
                                          "    C[i] = T.float32(0)\n");
}

TEST(Simplify, AGuardOfAnUnevenSplitStaysInCanonicalForm)
{
    Fixture f;
    Expr idx = f.io * 4 + f.ii;
    Stmt s = loop(
        f.io, 3,
        loop(f.ii, 4, makeIfThenElse(likely(idx < makeInt(10)), store(f.C, idx, load(f.A, idx)))));
    EXPECT_EQ(printStmt(simplifyStmt(s)), "for io, ii in T.grid(3, 4):\n"
                                          "    if T.likely(io * 2 + ii // 2 < 5):\n"
                                          "        C[io * 4 + ii] = A[io * 4 + ii]\n");
}

TEST(Simplify, AGuardAnEnclosingGuardAlreadyHoldsIsRemoved)
{
    // As TVM's literal constraints: the same condition inside its own guard (likely or not, or
    // one side of a conjunction) is true; the else branch does not know it.
    Fixture f;
    Expr inRange = f.io * 4 + f.ii < makeInt(10);
    Expr other = f.io < makeInt(2);
    Stmt inner = makeSeq({makeIfThenElse(likely(inRange), store(f.C, f.ii, makeFloat(1))),
                          makeIfThenElse(other, store(f.C, f.ii, makeFloat(2)))});
    Stmt s = loop(f.io, 3,
                  loop(f.ii, 4,
                       makeIfThenElse(makeBinary(ExprKind::And, inRange, other), inner,
                                      makeIfThenElse(other, store(f.C, f.ii, makeFloat(3))))));
    EXPECT_EQ(printStmt(simplifyStmt(s)), "for io, ii in T.grid(3, 4):\n"
                                          "    if io * 2 + ii // 2 < 5 and io < 2:\n"
                                          "        C[ii] = T.float32(1)\n"
                                          "        C[ii] = T.float32(2)\n"
                                          "    else:\n"
                                          "        if io < 2:\n"
                                          "            C[ii] = T.float32(3)\n");
}

TEST(Simplify, AGuardReadingMemoryIsNotAssumedAgain)
{
    // A store inside the guard may change what its condition reads.
    Fixture f;
    Expr positive = load(f.A, makeInt(0)) > makeFloat(0);
    Stmt s = makeIfThenElse(
        positive, makeSeq({store(f.A, makeInt(0), makeFloat(-1)),
                           makeIfThenElse(positive, store(f.C, makeInt(0), makeFloat(1)))}));
    EXPECT_EQ(printStmt(simplifyStmt(s)), "if A[0] > T.float32(0):\n"
                                          "    A[0] = T.float32(-1)\n"
                                          "    if A[0] > T.float32(0):\n"
                                          "        C[0] = T.float32(1)\n");
}

TEST(Simplify, DivisionsOfASplitIndexUseTheLoopRanges)
{
    Fixture f;
    Expr idx = f.io * 4 + f.ii;
    Stmt body = store(f.C, floordiv(idx, makeInt(4)), load(f.A, floormod(idx, makeInt(4))));
    EXPECT_EQ(printStmt(simplifyStmt(loop(f.io, 16, loop(f.ii, 4, body)))),
              "for io, ii in T.grid(16, 4):\n"
              "    C[io] = A[ii]\n");
    // Outside the loops ii may be anything, so it may carry.
    EXPECT_EQ(printStmt(simplifyStmt(body)), "C[io + ii // 4] = A[ii % 4]\n");
}

TEST(Simplify, ConstantAndVariableLetsAreSubstitutedOthersKept)
{
    Fixture f;
    Var c("c"), v("v"), k("k");
    Stmt s = makeLetStmt(
        c, f.x * 0 + 5,
        makeLetStmt(v, f.i, makeLetStmt(k, f.i * 2 + 0, store(f.C, c + v, load(f.A, k)))));
    EXPECT_EQ(printStmt(simplifyStmt(loop(f.i, 8, s))), "for i in range(8):\n"
                                                        "    k: T.int32 = i * 2\n"
                                                        "    C[i + 5] = A[k]\n");
}

TEST(Simplify, FloatIdentitiesAndIntegerIdentitiesFold)
{
    Fixture f;
    Stmt s = loop(f.i, 8, store(f.C, f.i * 1 + 0, load(f.A, f.i) * makeFloat(1) + makeFloat(0)));
    EXPECT_EQ(printStmt(simplifyStmt(s)), "for i in range(8):\n"
                                          "    C[i] = A[i]\n");
}

TEST(Simplify, AnAlreadySimpleStatementIsReturnedUnchanged)
{
    Fixture f;
    Stmt s = loop(f.i, 8, store(f.C, f.i, load(f.A, f.i) + makeFloat(1)));
    EXPECT_TRUE(simplifyStmt(s).same(s));
    Stmt changed = loop(f.i, 8, store(f.C, f.i + 0, load(f.A, f.i)));
    EXPECT_FALSE(simplifyStmt(changed).same(changed));
}

} // namespace
} // namespace loopscope
