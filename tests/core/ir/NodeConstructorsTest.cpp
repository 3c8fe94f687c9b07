// Node constructors refuse nodes that cannot mean anything: an internal error (a bug in the
// caller, reported at the boundary), never a node that crashes a pass later.
#include "ir/Diagnostic.h"
#include "ir/Expr.h"
#include "ir/Stmt.h"
#include "ir/Tensor.h"

#include <gtest/gtest.h>

namespace loopscope {
namespace {

Tensor matrix()
{
    return makePlaceholder("A", {makeInt(4), makeInt(4)}, DataType::float32(), {});
}

TEST(NodeConstructors, LoadsAndStoresNeedOneIndexPerDimension)
{
    Var i("i");
    EXPECT_NO_THROW(makeTensorLoad(matrix(), {i, i}));
    EXPECT_THROW(makeTensorLoad(matrix(), {i}), InternalError);
    EXPECT_THROW(makeTensorStore(matrix(), {i, i, i}, makeFloat(1)), InternalError);
    EXPECT_THROW(makeTensorLoad(matrix(), {i, makeFloat(0.5)}), InternalError);
}

TEST(NodeConstructors, OperandsMustAgree)
{
    EXPECT_THROW(makeBinary(ExprKind::Add, makeInt(1), makeFloat(1)), InternalError);
    EXPECT_THROW(makeSelect(makeBool(true), makeInt(1), makeFloat(2)), InternalError);
    EXPECT_THROW(makeSelect(Expr(), makeInt(1), makeInt(2)), InternalError);
    EXPECT_THROW(makeCall(DataType::float32(), CallOp::Exp, {}), InternalError);
    EXPECT_THROW(makeCall(DataType::float32(), CallOp::Pow, {makeFloat(2)}), InternalError);
    EXPECT_NO_THROW(makeCall(DataType::float32(), CallOp::Pow, {makeFloat(2), makeFloat(3)}));
}

TEST(NodeConstructors, VectorsHaveLanes)
{
    EXPECT_THROW(makeRamp(makeInt(0), makeInt(1), 1), InternalError);
    EXPECT_THROW(makeBroadcast(makeBroadcast(makeInt(0), 4), 4), InternalError);
    EXPECT_NO_THROW(makeRamp(makeInt(0), makeInt(1), 8));
}

TEST(NodeConstructors, StatementsHaveTheirParts)
{
    Var i("i");
    EXPECT_THROW(makeFor(i, Expr(), makeInt(4), ForKind::Serial, makeEvaluate(makeInt(0))),
                 InternalError);
    EXPECT_THROW(makeEvaluate(Expr()), InternalError);
    EXPECT_THROW(makeIfThenElse(Expr(), makeEvaluate(makeInt(0)), Stmt()), InternalError);
    EXPECT_THROW(makeCompute("B", "", {}, Expr(), {}), InternalError);
}

TEST(NodeConstructors, TheMessageSaysWhat)
{
    try {
        makeTensorLoad(matrix(), {Var("i")});
        FAIL() << "accepted a load with one index into a matrix";
    } catch (const InternalError& e) {
        EXPECT_NE(std::string(e.what()).find("load from A with 1 indices, it has 2 dimensions"),
                  std::string::npos)
            << e.what();
    }
}

} // namespace
} // namespace loopscope
