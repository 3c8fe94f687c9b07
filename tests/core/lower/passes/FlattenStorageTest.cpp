// StorageFlatten: multi-dimensional tensor accesses become row-major indices into flat buffers.
#include "lower/passes/FlattenStorage.h"

#include "ir/Analyzer.h"
#include "ir/Printer.h"
#include "ir/Tensor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace loopscope {
namespace {

Tensor tensor(const std::string& name, std::vector<Expr> shape)
{
    return makePlaceholder(name, std::move(shape), DataType::float32(), {});
}
Stmt loop(const Var& v, Expr extent, Stmt body)
{
    return makeFor(v, makeInt(0), std::move(extent), ForKind::Serial, std::move(body));
}
Expr read(const Tensor& t, std::vector<Expr> idx)
{
    return makeTensorLoad(t, std::move(idx));
}
Stmt write(const Tensor& t, std::vector<Expr> idx, Expr v)
{
    return makeTensorStore(t, std::move(idx), std::move(v));
}

// The first buffer store of a statement, looking through loops, allocations and realizes.
const BufferStoreNode* firstStore(const Stmt& s)
{
    if (auto* st = s.as<BufferStoreNode>()) return st;
    if (auto* f = s.as<ForNode>()) return firstStore(f->body);
    if (auto* a = s.as<AllocateNode>()) return firstStore(a->body);
    if (auto* seq = s.as<SeqNode>()) return firstStore(seq->stmts.front());
    return nullptr;
}

struct Fixture {
    Var i{"i"}, j{"j"}, k{"k"};
};

TEST(StorageFlatten, TwoDimensionalAccessesUseRowMajorStrides)
{
    Fixture f;
    Tensor A = tensor("A", {makeInt(4), makeInt(6)}), C = tensor("C", {makeInt(4), makeInt(6)});
    Stmt body =
        loop(f.i, makeInt(4),
             loop(f.j, makeInt(6), write(C, {f.i, f.j}, read(A, {f.i, f.j}) * makeFloat(2))));
    // The output is realized by scheduleOps too; as an argument it needs no allocation.
    Stmt s = makeRealize(C, {{makeInt(0), makeInt(4)}, {makeInt(0), makeInt(6)}}, "global", body);
    PrimFunc func = flattenStorage(s, {A, C}, {}, "main");
    EXPECT_EQ(func.name, "main");
    EXPECT_EQ(printStmt(func.body), "for i, j in T.grid(4, 6):\n"
                                    "    C[i * 6 + j] = A[i * 6 + j] * T.float32(2)\n");
    ASSERT_EQ(func.params.size(), 2u);
    EXPECT_EQ(func.params[1]->name, "C");
    EXPECT_EQ(func.params[1]->shape.size(), 2u); // parameters keep their shape
    const BufferStoreNode* st = firstStore(func.body);
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(constIntOr(st->buffer->shape.at(0), -1), 24); // accessed through a flat view
    EXPECT_EQ(st->buffer->shape.size(), 1u);
    EXPECT_TRUE(st->buffer->data.same(func.params[1]->data)); // sharing the parameter's data
}

TEST(StorageFlatten, ThreeDimensionalStridesAreProductsOfInnerExtents)
{
    Fixture f;
    Tensor A = tensor("A", {makeInt(2), makeInt(3), makeInt(5)});
    Tensor B = tensor("B", {makeInt(30)});
    Stmt s = write(B, {f.i * 15 + f.j * 5 + f.k}, read(A, {f.i, f.j, f.k}));
    PrimFunc func = flattenStorage(s, {A, B}, {}, "f");
    EXPECT_EQ(printStmt(func.body), "B[i * 15 + j * 5 + k] = A[i * 15 + j * 5 + k]\n");
    const BufferStoreNode* st = firstStore(func.body);
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(st->buffer, func.params[1]); // a one-dimensional argument is its own flat buffer
}

TEST(StorageFlatten, SymbolicShapesGiveSymbolicStrides)
{
    Fixture f;
    Var n("n"), m("m");
    Tensor A = tensor("A", {n, m}), C = tensor("C", {n, m});
    Stmt s = loop(f.i, n, loop(f.j, m, write(C, {f.i, f.j}, read(A, {f.j, f.i}))));
    PrimFunc func = flattenStorage(s, {A, C}, {}, "main");
    // The strides are left as built (1 * m); Simplify, the next pass, folds them.
    const BufferStoreNode* st = firstStore(func.body);
    ASSERT_NE(st, nullptr);
    ASSERT_EQ(st->indices.size(), 1u);
    EXPECT_EQ(printExpr(simplify(st->indices[0])), "i * m + j");
    auto* ld = st->value.as<BufferLoadNode>();
    ASSERT_NE(ld, nullptr);
    EXPECT_EQ(printExpr(simplify(ld->indices.at(0))), "j * m + i");
    // The size: the row stride (1 * m) times the outer extent.
    EXPECT_EQ(printExpr(simplify(st->buffer->shape.at(0))), "m * n");
}

TEST(StorageFlatten, ARealizedTemporaryIsAllocatedAndOffsetByItsRegion)
{
    Fixture f;
    Tensor A = tensor("A", {makeInt(8), makeInt(6)}), B = tensor("B", {makeInt(8), makeInt(6)});
    // Rows 2..5 of B only.
    Stmt fill = loop(f.i, makeInt(4),
                     loop(f.j, makeInt(6), write(B, {f.i + 2, f.j}, read(A, {f.i + 2, f.j}))));
    Stmt s = makeRealize(B, {{makeInt(2), makeInt(4)}, {makeInt(0), makeInt(6)}}, "global", fill);
    PrimFunc func = flattenStorage(s, {A}, {}, "main");
    EXPECT_EQ(printStmt(func.body), "B = T.allocate([24], \"float32\", \"global\")\n"
                                    "for i, j in T.grid(4, 6):\n"
                                    "    B[(i + 2 - 2) * 6 + j] = A[(i + 2) * 6 + j]\n");
    ASSERT_EQ(func.params.size(), 1u);
}

TEST(StorageFlatten, StorageAlignPadsTheStrideOfTheAlignedDimension)
{
    Fixture f;
    Tensor A = tensor("A", {makeInt(4), makeInt(6)}), B = tensor("B", {makeInt(4), makeInt(6)});
    Stmt fill =
        loop(f.i, makeInt(4), loop(f.j, makeInt(6), write(B, {f.i, f.j}, read(A, {f.i, f.j}))));
    Stmt s = makeRealize(B, {{makeInt(0), makeInt(4)}, {makeInt(0), makeInt(6)}}, "local", fill);
    AlignMap aligns;
    aligns[B.get()] = {DimAlign{0, 8, 1}}; // row stride 6 -> 9 = 1 * 8 + 1
    PrimFunc func = flattenStorage(s, {A}, aligns, "main");
    EXPECT_EQ(printStmt(func.body), "B = T.allocate([36], \"float32\", \"local\")\n"
                                    "for i, j in T.grid(4, 6):\n"
                                    "    B[i * 9 + j] = A[i * 6 + j]\n");
}

} // namespace
} // namespace loopscope
