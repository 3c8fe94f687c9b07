// UnrollLoop expands unrolled loops into copies of their body, and auto-unrolls small serial
// loops under a pragma_auto_unroll_max_step, as TVM's UnrollLoop pass does.
#include "lower/passes/UnrollLoops.h"

#include "ir/IRUtil.h"
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
    return makeBufferStore(b, {std::move(i)}, v);
}
Stmt loop(const Var& v, std::int64_t extent, Stmt body, ForKind kind = ForKind::Serial)
{
    return makeFor(v, 0, makeInt(extent), kind, std::move(body));
}
Stmt pragma(const char* key, std::int64_t value, Stmt body)
{
    return makeAttr(key, "i", makeInt(value), std::move(body));
}

struct Fixture {
    Buffer A = flatBuffer("A", 1024), C = flatBuffer("C", 1024);
    Var i{"i"}, j{"j"}, k{"k"};
};

TEST(UnrollLoop, UnrolledLoopBecomesSimplifiedCopies)
{
    Fixture f;
    Stmt s = loop(f.i, 8,
                  loop(f.k, 3, store(f.C, f.i * 4 + f.k, load(f.A, f.k * 8 + f.i) + makeFloat(1)),
                       ForKind::Unrolled));
    EXPECT_EQ(printStmt(unrollLoops(s)), "for i in range(8):\n"
                                         "    C[i * 4] = A[i] + T.float32(1)\n"
                                         "    C[i * 4 + 1] = A[i + 8] + T.float32(1)\n"
                                         "    C[i * 4 + 2] = A[i + 16] + T.float32(1)\n");
}

TEST(UnrollLoop, VectorIndicesAreSimplifiedToo)
{
    Fixture f;
    Stmt s =
        loop(f.k, 2, store(f.C, makeRamp(f.k * 8 + f.i * 16, 1, 4), makeBroadcast(makeFloat(0), 4)),
             ForKind::Unrolled);
    EXPECT_EQ(printStmt(loop(f.i, 4, unrollLoops(s))),
              "for i in range(4):\n"
              "    C[i * 16:i * 16 + 4] = T.Broadcast(T.float32(0), 4)\n"
              "    C[i * 16 + 8:i * 16 + 8 + 4] = T.Broadcast(T.float32(0), 4)\n");
}

// TVM runs ConvertSSA after unrolling: a loop inside the body is a new variable in every copy
// but the first.
TEST(UnrollLoop, CopiesDefineFreshVariables)
{
    Fixture f;
    Stmt s = loop(f.k, 2, loop(f.j, 4, store(f.C, f.k * 4 + f.j, makeFloat(0))), ForKind::Unrolled);
    Stmt out = unrollLoops(s);
    auto* seq = out.as<SeqNode>();
    ASSERT_NE(seq, nullptr) << printStmt(out);
    ASSERT_EQ(seq->stmts.size(), 2u);
    auto* first = seq->stmts[0].as<ForNode>();
    auto* second = seq->stmts[1].as<ForNode>();
    ASSERT_TRUE(first && second);
    EXPECT_TRUE(first->var.same(f.j));
    EXPECT_FALSE(second->var.same(f.j));
    EXPECT_EQ(second->var.name(), "j");
    EXPECT_EQ(printStmt(second->body), "C[j + 4] = T.float32(0)\n");
    auto* st = second->body.as<BufferStoreNode>();
    ASSERT_NE(st, nullptr);
    EXPECT_TRUE(usesVar(st->indices[0], second->var.get()));
}

TEST(UnrollLoop, ZeroExtentUnrolledLoopIsANoOp)
{
    Fixture f;
    Stmt out = unrollLoops(loop(f.k, 0, store(f.C, f.k, makeFloat(0)), ForKind::Unrolled));
    auto* ev = out.as<EvaluateNode>();
    ASSERT_NE(ev, nullptr);
    EXPECT_TRUE(isZero(ev->value));
}

// Under pragma_auto_unroll_max_step = v, a serial loop is unrolled when extent * stores <= v and
// it contains no loop that stays a loop; the pragma disappears.
struct AutoCase {
    const char* name;
    std::int64_t maxStep;
    const char* expected;
};

void PrintTo(const AutoCase& c, std::ostream* os)
{
    *os << c.name;
}

class AutoUnroll : public testing::TestWithParam<AutoCase> {};

TEST_P(AutoUnroll, FollowsTheStepBudget)
{
    Fixture f;
    // for i in range(2): for j in range(3): C[i*3 + j] = 0; C[i*3 + j + 8] = 1
    Stmt body = makeSeq(
        {store(f.C, f.i * 3 + f.j, makeFloat(0)), store(f.C, f.i * 3 + f.j + 8, makeFloat(1))});
    Stmt s =
        pragma("pragma_auto_unroll_max_step", GetParam().maxStep, loop(f.i, 2, loop(f.j, 3, body)));
    EXPECT_EQ(printStmt(unrollLoops(s)), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(UnrollLoop, AutoUnroll,
                         testing::Values(AutoCase{"BudgetTooSmall", 5,
                                                  "for i, j in T.grid(2, 3):\n"
                                                  "    C[i * 3 + j] = T.float32(0)\n"
                                                  "    C[i * 3 + j + 8] = T.float32(1)\n"},
                                         AutoCase{"InnerLoopFits", 6,
                                                  "for i in range(2):\n"
                                                  "    C[i * 3] = T.float32(0)\n"
                                                  "    C[i * 3 + 8] = T.float32(1)\n"
                                                  "    C[i * 3 + 1] = T.float32(0)\n"
                                                  "    C[i * 3 + 9] = T.float32(1)\n"
                                                  "    C[i * 3 + 2] = T.float32(0)\n"
                                                  "    C[i * 3 + 10] = T.float32(1)\n"},
                                         AutoCase{"BothLoopsFit", 12,
                                                  "C[0] = T.float32(0)\n"
                                                  "C[8] = T.float32(1)\n"
                                                  "C[1] = T.float32(0)\n"
                                                  "C[9] = T.float32(1)\n"
                                                  "C[2] = T.float32(0)\n"
                                                  "C[10] = T.float32(1)\n"
                                                  "C[3] = T.float32(0)\n"
                                                  "C[11] = T.float32(1)\n"
                                                  "C[4] = T.float32(0)\n"
                                                  "C[12] = T.float32(1)\n"
                                                  "C[5] = T.float32(0)\n"
                                                  "C[13] = T.float32(1)\n"}),
                         [](const testing::TestParamInfo<AutoCase>& info) {
                             return info.param.name;
                         });

TEST(UnrollLoop, AutoUnrollStopsAboveALoopThatStays)
{
    Fixture f;
    Stmt inner = loop(f.k, 2000, store(f.C, f.i * 2000 + f.k, makeFloat(0)));
    Stmt s = pragma("pragma_auto_unroll_max_step", 1000, loop(f.i, 2, inner));
    EXPECT_EQ(printStmt(unrollLoops(s)), "for i, k in T.grid(2, 2000):\n"
                                         "    C[i * 2000 + k] = T.float32(0)\n");
}

TEST(UnrollLoop, NonExplicitPragmaMarksLoopsUnrolled)
{
    Fixture f;
    Stmt s =
        pragma("pragma_auto_unroll_max_step", 16,
               pragma("pragma_unroll_explicit", 0, loop(f.i, 4, store(f.C, f.i, makeFloat(0)))));
    EXPECT_EQ(printStmt(unrollLoops(s)), "for i in T.unroll(4):\n"
                                         "    C[i] = T.float32(0)\n");
}

TEST(UnrollLoop, SerialLoopsOutsidePragmasStay)
{
    Fixture f;
    Stmt s = loop(f.i, 4, loop(f.j, 2, store(f.C, f.i * 2 + f.j, makeFloat(0))));
    EXPECT_TRUE(unrollLoops(s).same(s));
}

TEST(UnrollLoop, OtherAttributesStay)
{
    Fixture f;
    Stmt s = pragma("pragma_parallel_launch_point", 1, loop(f.i, 4, store(f.C, f.i, makeFloat(0))));
    EXPECT_TRUE(unrollLoops(s).same(s));
}

} // namespace
} // namespace loopscope
