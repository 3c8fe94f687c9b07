// VectorizeLoop turns vectorized loops into ramp/broadcast arithmetic the way TVM's Vectorizer
// does, and falls back to a `<var>.s` serial loop where TVM scalarizes.
#include "lower/passes/VectorizeLoops.h"

#include "ir/Printer.h"

#include "support/FlatBuffer.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

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
Stmt loop(const Var& v, Expr extent, Stmt body, ForKind kind = ForKind::Serial)
{
    return makeFor(v, 0, std::move(extent), kind, std::move(body));
}
Expr call(CallOp op, std::vector<Expr> args, DataType t = DataType::float32())
{
    return makeCall(t, op, std::move(args));
}
Expr likely(Expr c)
{
    return call(CallOp::Likely, {std::move(c)}, DataType::boolean());
}

struct Fixture {
    Buffer A = flatBuffer("A", 1024), B = flatBuffer("B", 1024), C = flatBuffer("C", 1024);
    Var i{"i"}, j{"j"}, k{"k"}, n{"n"};
};

struct Case {
    const char* name;
    std::function<Stmt(const Fixture&)> input; // a statement with a vectorized loop over j
    const char* expected;
};

void PrintTo(const Case& c, std::ostream* os)
{
    *os << c.name;
}

// `for i in range(16): for j in T.vectorized(4): body`
Stmt nest(const Fixture& f, Stmt body)
{
    return loop(f.i, 16, loop(f.j, 4, std::move(body), ForKind::Vectorized));
}

const std::vector<Case> kCases = {
    {"ScalarPlusRampIsARamp",
     [](const Fixture& f) { return nest(f, store(f.C, f.i * 4 + f.j, load(f.A, f.i * 4 + f.j))); },
     "for i in range(16):\n"
     "    C[i * 4:i * 4 + 4] = A[i * 4:i * 4 + 4]\n"},
    {"ScalarValueIsBroadcast",
     [](const Fixture& f) {
         return nest(f, store(f.C, f.i * 4 + f.j, load(f.A, f.i) * makeFloat(2)));
     },
     "for i in range(16):\n"
     "    C[i * 4:i * 4 + 4] = T.Broadcast(A[i] * T.float32(2), 4)\n"},
    {"MixedOperandsBroadcastTheScalarSide",
     [](const Fixture& f) {
         return nest(f, store(f.C, f.i * 4 + f.j, load(f.A, f.j) * load(f.B, f.i) + makeFloat(1)));
     },
     "for i in range(16):\n"
     "    C[i * 4:i * 4 + 4] = A[0:4] * T.Broadcast(B[i], 4) + T.Broadcast(T.float32(1), 4)\n"},
    {"NonAffineIndexIsAGather",
     [](const Fixture& f) { return nest(f, store(f.C, f.i * 4 + f.j, load(f.A, f.j * f.j))); },
     "for i in range(16):\n"
     "    C[i * 4:i * 4 + 4] = A[T.Ramp(0, 1, 4) * T.Ramp(0, 1, 4)]\n"},
    {"RampDividedWithinOneBlockIsABroadcastIndex",
     [](const Fixture& f) {
         return nest(f, store(f.C, f.i * 4 + f.j,
                              load(f.A, floordiv(f.i * 8 + f.j, 8)) +
                                  load(f.B, floormod(f.i * 8 + f.j, 8))));
     },
     "for i in range(16):\n"
     "    C[i * 4:i * 4 + 4] = A[T.Broadcast(i, 4)] + B[0:4]\n"},
    {"IntrinsicsWorkLaneByLane",
     [](const Fixture& f) {
         Expr x = load(f.A, f.i * 4 + f.j);
         return nest(f, store(f.C, f.i * 4 + f.j,
                              call(CallOp::Pow, {call(CallOp::Exp, {x}), makeFloat(2)})));
     },
     "for i in range(16):\n"
     "    C[i * 4:i * 4 + 4] = T.pow(T.exp(A[i * 4:i * 4 + 4]), T.Broadcast(T.float32(2), 4))\n"},
    {"IfThenElseWithScalarConditionIsAVectorSelect",
     [](const Fixture& f) {
         Expr v = call(CallOp::IfThenElse, {f.i < 8, load(f.A, f.i * 4 + f.j), makeFloat(0)});
         return nest(f, store(f.C, f.i * 4 + f.j, v));
     },
     "for i in range(16):\n"
     "    C[i * 4:i * 4 + 4] = T.if_then_else(i < 8, A[i * 4:i * 4 + 4], "
     "T.Broadcast(T.float32(0), 4))\n"},
    {"IfThenElseWithVectorConditionScalarizesTheStore",
     [](const Fixture& f) {
         Expr v = call(CallOp::IfThenElse, {f.j < 3, load(f.A, f.i * 4 + f.j), makeFloat(0)});
         return nest(
             f, makeSeq({store(f.C, f.i * 4 + f.j, v), store(f.B, f.i * 4 + f.j, makeFloat(1))}));
     },
     "for i in range(16):\n"
     "    for j_s in range(4):\n"
     "        C[i * 4 + j_s] = T.if_then_else(j_s < 3, A[i * 4 + j_s], T.float32(0))\n"
     "    B[i * 4:i * 4 + 4] = T.Broadcast(T.float32(1), 4)\n"},
    {"GuardWithVectorConditionIsScalarized",
     [](const Fixture& f) {
         Expr x = f.i * 4 + f.j;
         return nest(f, makeIfThenElse(likely(x < f.n), store(f.C, x, load(f.A, x))));
     },
     "for i, j_s in T.grid(16, 4):\n"
     "    if T.likely(i * 4 + j_s < n):\n"
     "        C[i * 4 + j_s] = A[i * 4 + j_s]\n"},
    {"GuardOnOuterVariableStaysAnIf",
     [](const Fixture& f) {
         Expr x = f.i * 4 + f.j;
         return nest(f, makeIfThenElse(likely(f.i < f.n), store(f.C, x, load(f.A, x))));
     },
     "for i in range(16):\n"
     "    if T.likely(i < n):\n"
     "        C[i * 4:i * 4 + 4] = A[i * 4:i * 4 + 4]\n"},
    {"InnerLoopWithVectorExtentIsScalarized",
     [](const Fixture& f) {
         return nest(f, loop(f.k, f.j + 1, store(f.C, f.i * 4 + f.k, load(f.A, f.j))));
     },
     "for i, j_s in T.grid(16, 4):\n"
     "    for k in range(j_s + 1):\n"
     "        C[i * 4 + k] = A[j_s]\n"},
    {"InnerLoopKeepsItsVectorBody",
     [](const Fixture& f) {
         return nest(f, loop(f.k, 8, store(f.C, f.k * 64 + f.i * 4 + f.j, load(f.A, f.k))));
     },
     "for i, k in T.grid(16, 8):\n"
     "    C[k * 64 + i * 4:k * 64 + i * 4 + 4] = T.Broadcast(A[k], 4)\n"},
    {"NestedVectorizedLoopBecomesSerial",
     [](const Fixture& f) {
         Stmt inner = loop(f.k, 2, store(f.C, f.k * 4 + f.j, makeFloat(0)), ForKind::Vectorized);
         return loop(f.j, 4, inner, ForKind::Vectorized);
     },
     "for k in range(2):\n"
     "    C[k * 4:k * 4 + 4] = T.Broadcast(T.float32(0), 4)\n"},
    {"SymbolicExtentRunsSerially",
     [](const Fixture& f) {
         return loop(f.j, f.n, store(f.C, f.j, makeFloat(0)), ForKind::Vectorized);
     },
     "for j in range(n):\n"
     "    C[j] = T.float32(0)\n"},
    {"CastsAndSelectsWiden",
     [](const Fixture& f) {
         Expr v = makeSelect(f.j < 2, makeCast(DataType::float32(), f.j), load(f.A, f.i));
         return nest(f, store(f.C, f.i * 4 + f.j, v));
     },
     "for i in range(16):\n"
     "    C[i * 4:i * 4 + 4] = T.Select(T.Ramp(0, 1, 4) < T.Broadcast(2, 4), "
     "T.Cast(\"float32x4\", T.Ramp(0, 1, 4)), T.Broadcast(A[i], 4))\n"},
};

class VectorizeLoopCases : public testing::TestWithParam<Case> {};

TEST_P(VectorizeLoopCases, PrintsAsTvm)
{
    Fixture f;
    Stmt in = GetParam().input(f);
    EXPECT_EQ(printStmt(vectorizeLoops(in)), GetParam().expected) << "input:\n" << printStmt(in);
}

INSTANTIATE_TEST_SUITE_P(VectorizeLoop, VectorizeLoopCases, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(VectorizeLoop, ScalarizedLoopVariableIsNamedAfterTheLoop)
{
    Fixture f;
    Var ji("j.inner");
    Stmt s = loop(ji, 4, makeIfThenElse(likely(ji < f.n), store(f.C, ji, makeFloat(0))),
                  ForKind::Vectorized);
    Stmt out = vectorizeLoops(s);
    auto* scalar = out.as<ForNode>();
    ASSERT_NE(scalar, nullptr);
    EXPECT_EQ(scalar->var.name(), "j.inner.s");
    EXPECT_EQ(scalar->forKind, ForKind::Serial);
    EXPECT_TRUE(isConstInt(scalar->extent, 4));
}

TEST(VectorizeLoop, VectorTypesFollowTheLanes)
{
    Fixture f;
    Stmt s = loop(f.j, 8, store(f.C, f.j, load(f.A, f.j) + load(f.B, f.j)), ForKind::Vectorized);
    Stmt out = vectorizeLoops(s);
    auto* st = out.as<BufferStoreNode>();
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(st->indices[0].type().str(), "int32x8");
    EXPECT_EQ(st->value.type().str(), "float32x8");
    auto* r = st->indices[0].as<RampNode>();
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(isZero(r->base));
    EXPECT_TRUE(isOne(r->stride));
}

// Multiplying a ramp by a positive constant scales base and stride; subtracting it negates the
// stride.
TEST(VectorizeLoop, RampTimesConstantScalesIt)
{
    Fixture f;
    Stmt s = nest(f, store(f.C, f.j * 8 + f.i, load(f.A, f.i - f.j)));
    Stmt out = vectorizeLoops(s);
    auto* l = out.as<ForNode>();
    ASSERT_NE(l, nullptr);
    auto* st = l->body.as<BufferStoreNode>();
    ASSERT_NE(st, nullptr);
    auto* index = st->indices[0].as<RampNode>();
    auto* loadIndex = st->value.as<BufferLoadNode>()->indices[0].as<RampNode>();
    ASSERT_NE(index, nullptr);
    ASSERT_NE(loadIndex, nullptr);
    EXPECT_TRUE(index->base.same(f.i)) << printExpr(index->base);
    EXPECT_TRUE(isConstInt(index->stride, 8)) << printExpr(index->stride);
    EXPECT_EQ(index->lanes, 4);
    EXPECT_TRUE(loadIndex->base.same(f.i)) << printExpr(loadIndex->base);
    EXPECT_TRUE(isConstInt(loadIndex->stride, -1)) << printExpr(loadIndex->stride);
}

TEST(VectorizeLoop, AllocationInsideGetsOneSlotPerLane)
{
    Fixture f;
    Buffer t = flatBuffer("t", 2);
    Stmt body = makeAllocate(
        t, makeSeq({store(t, makeInt(0), load(f.A, f.j)), store(f.C, f.j, load(t, makeInt(0)))}));
    EXPECT_EQ(printStmt(vectorizeLoops(loop(f.j, 4, body, ForKind::Vectorized))),
              "t = T.allocate([8], \"float32\", \"global\")\n"
              "t[0:4] = A[0:4]\n"
              "C[0:4] = t[0:4]\n");
}

TEST(VectorizeLoop, StatementWithoutVectorizedLoopIsReturnedAsIs)
{
    Fixture f;
    Stmt s = loop(f.i, 16, store(f.C, f.i, load(f.A, f.i)));
    EXPECT_TRUE(vectorizeLoops(s).same(s));
}

} // namespace
} // namespace loopscope
