#include "ir/Printer.h"
#include "support/SourceFiles.h"

#include "ir/Tensor.h"

#include "support/FlatBuffer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace loopscope {
namespace {

using testsupport::flatBuffer;

// ---- building IR by hand ----

Buffer paramBuffer(const std::string& name, std::vector<Expr> shape,
                   DataType dtype = DataType::float32())
{
    auto b = std::make_shared<BufferNode>();
    b->name = name;
    b->dtype = dtype;
    b->shape = std::move(shape);
    b->data = Var(name, DataType::handle());
    return b;
}

// The flattened view of `b`: same name and storage, one dimension.
Buffer flatAlias(const Buffer& b, Expr size)
{
    auto alias = std::make_shared<BufferNode>(*b);
    alias->shape = {std::move(size)};
    return alias;
}

Expr load(const Buffer& b, Expr i)
{
    return makeBufferLoad(b, {std::move(i)});
}
Stmt store(const Buffer& b, Expr i, Expr v)
{
    return makeBufferStore(b, {std::move(i)}, std::move(v));
}
Expr f32(double v)
{
    return makeFloat(v);
}
Expr ramp(Expr base, int lanes)
{
    return makeRamp(std::move(base), 1, lanes);
}

Stmt loop(const Var& v, std::int64_t extent, Stmt body, ForKind kind = ForKind::Serial)
{
    return makeFor(v, 0, makeInt(extent), kind, std::move(body));
}

Stmt let(const Var& v, Expr value, Stmt body)
{
    return makeLetStmt(v, std::move(value), std::move(body));
}

// C = A x B with n x n float32 matrices, and the flattened aliases the lowered body uses.
struct Gemm {
    Buffer A, B, C, A1, B1, C1;
    PrimFunc func;
};

Gemm gemm(std::int64_t n)
{
    Gemm g;
    g.A = paramBuffer("A", {makeInt(n), makeInt(n)});
    g.B = paramBuffer("B", {makeInt(n), makeInt(n)});
    g.C = paramBuffer("C", {makeInt(n), makeInt(n)});
    g.A1 = flatAlias(g.A, makeInt(n * n));
    g.B1 = flatAlias(g.B, makeInt(n * n));
    g.C1 = flatAlias(g.C, makeInt(n * n));
    g.func.params = {g.A, g.B, g.C};
    return g;
}

std::string header(const std::string& params)
{
    return "# from tvm.script import ir as I\n"
           "# from tvm.script import tir as T\n"
           "\n"
           "@I.ir_module\n"
           "class Module:\n"
           "    @T.prim_func\n"
           "    def main(" +
           params +
           "):\n"
           "        T.func_attr({\"from_legacy_te_schedule\": T.bool(True), \"tir.noalias\": "
           "T.bool(True)})\n";
}

// The body lines of a printed function (after T.func_attr), with the 8 spaces of indentation
// removed, so that tests read like the TIR they check.
std::string bodyOf(const std::string& script)
{
    std::size_t at = script.find("T.func_attr(");
    at = script.find('\n', at) + 1;
    std::istringstream in(script.substr(at));
    std::string out, line;
    while (std::getline(in, line))
        out += line.substr(std::min<std::size_t>(8, line.size())) + "\n";
    return out;
}

PrimFunc singleParamFunc(const Buffer& param, Stmt body)
{
    PrimFunc f;
    f.params = {param};
    f.body = std::move(body);
    return f;
}

// ---- the three examples of tests/data/tvm (what TVM 0.17 printed), after all passes ----

const char* const kNaiveText = R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        T.func_attr({"from_legacy_te_schedule": T.bool(True), "tir.noalias": T.bool(True)})
        for i, j in T.grid(8, 8):
            C_1 = T.Buffer((64,), data=C.data)
            C_1[i * 8 + j] = T.float32(0)
            for k in range(8):
                cse_var_2: T.int32 = i * 8
                cse_var_1: T.int32 = cse_var_2 + j
                A_1 = T.Buffer((64,), data=A.data)
                B_1 = T.Buffer((64,), data=B.data)
                C_1[cse_var_1] = C_1[cse_var_1] + A_1[cse_var_2 + k] * B_1[k * 8 + j]
)";

const char* const kNondivisibleText = R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((10, 10), "float32"), B: T.Buffer((10, 10), "float32"), C: T.Buffer((10, 10), "float32")):
        T.func_attr({"from_legacy_te_schedule": T.bool(True), "tir.noalias": T.bool(True)})
        for i_outer, i_inner, j in T.grid(3, 4, 10):
            C_1 = T.Buffer((100,), data=C.data)
            if T.likely(i_outer * 2 + i_inner // 2 < 5):
                C_1[i_outer * 40 + i_inner * 10 + j] = T.float32(0)
            if T.likely(i_outer * 2 + i_inner // 2 < 5):
                for k in range(10):
                    cse_var_2: T.int32 = i_outer * 40 + i_inner * 10
                    cse_var_1: T.int32 = cse_var_2 + j
                    A_1 = T.Buffer((100,), data=A.data)
                    B_1 = T.Buffer((100,), data=B.data)
                    C_1[cse_var_1] = C_1[cse_var_1] + A_1[cse_var_2 + k] * B_1[k * 10 + j]
)";

const char* const kFullLadderText = R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        T.func_attr({"from_legacy_te_schedule": T.bool(True), "tir.noalias": T.bool(True)})
        for i_outer in T.parallel(2):
            for j_outer in range(2):
                C_1 = T.Buffer((64,), data=C.data)
                for i_inner_init, j_inner_outer_init in T.grid(4, 2):
                    C_1[i_outer * 32 + i_inner_init * 8 + j_outer * 4 + j_inner_outer_init * 2:i_outer * 32 + i_inner_init * 8 + j_outer * 4 + j_inner_outer_init * 2 + 2] = T.Broadcast(T.float32(0), 2)
                for k_outer, i_inner, j_inner_outer in T.grid(4, 4, 2):
                    cse_var_6: T.int32 = j_outer * 4
                    cse_var_5: T.int32 = j_inner_outer * 2
                    cse_var_4: T.int32 = i_outer * 32 + i_inner * 8
                    cse_var_3: T.int32 = k_outer * 16 + cse_var_6 + cse_var_5
                    cse_var_2: T.int32 = cse_var_4 + k_outer * 2
                    cse_var_1: T.int32 = cse_var_4 + cse_var_6 + cse_var_5
                    A_1 = T.Buffer((64,), data=A.data)
                    B_1 = T.Buffer((64,), data=B.data)
                    C_1[cse_var_1:cse_var_1 + 2] = C_1[cse_var_1:cse_var_1 + 2] + T.Broadcast(A_1[cse_var_2], 2) * B_1[cse_var_3:cse_var_3 + 2]
                    C_1[cse_var_1:cse_var_1 + 2] = C_1[cse_var_1:cse_var_1 + 2] + T.Broadcast(A_1[cse_var_2 + 1], 2) * B_1[cse_var_3 + 8:cse_var_3 + 8 + 2]
)";

PrimFunc naiveFunc()
{
    Gemm g = gemm(8);
    Var i("i"), j("j"), k("k"), c1("cse_var_1"), c2("cse_var_2");
    Stmt init = store(g.C1, i * 8 + j, f32(0));
    Stmt update =
        let(c2, i * 8,
            let(c1, c2 + j,
                store(g.C1, c1, load(g.C1, c1) + load(g.A1, c2 + k) * load(g.B1, k * 8 + j))));
    g.func.body = loop(i, 8, loop(j, 8, makeSeq({init, loop(k, 8, update)})));
    return g.func;
}

PrimFunc nondivisibleFunc()
{
    Gemm g = gemm(10);
    Var io("i.outer"), ii("i.inner"), j("j"), k("k"), c1("cse_var_1"), c2("cse_var_2");
    Expr guard = makeCall(DataType::boolean(), CallOp::Likely, {io * 2 + floordiv(ii, 2) < 5});
    Stmt init = makeIfThenElse(guard, store(g.C1, io * 40 + ii * 10 + j, f32(0)));
    Stmt update = makeIfThenElse(
        guard, loop(k, 10,
                    let(c2, io * 40 + ii * 10,
                        let(c1, c2 + j,
                            store(g.C1, c1,
                                  load(g.C1, c1) + load(g.A1, c2 + k) * load(g.B1, k * 10 + j))))));
    g.func.body = loop(io, 3, loop(ii, 4, loop(j, 10, makeSeq({init, update}))));
    return g.func;
}

PrimFunc fullLadderFunc()
{
    Gemm g = gemm(8);
    Var io("i.outer"), jo("j.outer"), iiInit("i.inner.init"), jioInit("j.inner.outer.init");
    Var ko("k.outer"), ii("i.inner"), jio("j.inner.outer");
    Var c1("cse_var_1"), c2("cse_var_2"), c3("cse_var_3"), c4("cse_var_4"), c5("cse_var_5"),
        c6("cse_var_6");
    Stmt init = loop(iiInit, 4,
                     loop(jioInit, 2,
                          store(g.C1, ramp(io * 32 + iiInit * 8 + jo * 4 + jioInit * 2, 2),
                                makeBroadcast(f32(0), 2))));
    auto update = [&](Expr a, Expr b) {
        return store(g.C1, ramp(c1, 2),
                     load(g.C1, ramp(c1, 2)) +
                         makeBroadcast(load(g.A1, a), 2) * load(g.B1, ramp(b, 2)));
    };
    Stmt body = let(c6, jo * 4,
                    let(c5, jio * 2,
                        let(c4, io * 32 + ii * 8,
                            let(c3, ko * 16 + c6 + c5,
                                let(c2, c4 + ko * 2,
                                    let(c1, c4 + c6 + c5,
                                        makeSeq({update(c2, c3), update(c2 + 1, c3 + 8)})))))));
    Stmt mainNest = loop(ko, 4, loop(ii, 4, loop(jio, 2, body)));
    g.func.body = loop(io, 2, loop(jo, 2, makeSeq({init, mainNest})), ForKind::Parallel);
    return g.func;
}

TEST(PrinterExamples, Naive)
{
    EXPECT_EQ(printTVMScript(naiveFunc()), kNaiveText);
}

TEST(PrinterExamples, Nondivisible)
{
    EXPECT_EQ(printTVMScript(nondivisibleFunc()), kNondivisibleText);
}

TEST(PrinterExamples, FullLadder)
{
    EXPECT_EQ(printTVMScript(fullLadderFunc()), kFullLadderText);
}

#ifdef LOOPSCOPE_TVM_EXAMPLES_DIR
std::string readExample(const std::string& name)
{
    return readText(std::string(LOOPSCOPE_TVM_EXAMPLES_DIR) + "/" + name + ".tvm.txt");
}

// The embedded texts above are the files TVM printed, byte for byte.
TEST(PrinterExamples, MatchFilesOnDisk)
{
    EXPECT_EQ(printTVMScript(naiveFunc()), readExample("naive"));
    EXPECT_EQ(printTVMScript(nondivisibleFunc()), readExample("nondivisible"));
    EXPECT_EQ(printTVMScript(fullLadderFunc()), readExample("full_ladder"));
}
#endif

// ---- expressions ----

TEST(PrinterExpr, ParenthesesFollowPythonPrecedence)
{
    Var a("a"), b("b"), c("c");
    EXPECT_EQ(printExpr(a + b + c), "a + b + c");
    EXPECT_EQ(printExpr(a + (b + c)), "a + (b + c)");
    EXPECT_EQ(printExpr(a - (b - c)), "a - (b - c)");
    EXPECT_EQ(printExpr((a - b) - c), "a - b - c");
    EXPECT_EQ(printExpr((a + b) * c), "(a + b) * c");
    EXPECT_EQ(printExpr(a * (b * c)), "a * (b * c)");
    EXPECT_EQ(printExpr(a + b * c), "a + b * c");
    EXPECT_EQ(printExpr(floordiv(a + b, c)), "(a + b) // c");
    EXPECT_EQ(printExpr(floormod(a, b * c)), "a % (b * c)");
    EXPECT_EQ(printExpr(a * 2 + b < c), "a * 2 + b < c");
    EXPECT_EQ(printExpr((a < b) && (b < c)), "a < b and b < c");
    Expr orExpr = makeBinary(ExprKind::Or, a < b, makeBinary(ExprKind::And, b < c, a < c));
    EXPECT_EQ(printExpr(orExpr), "a < b or b < c and a < c");
    Expr andOfOr = makeBinary(ExprKind::And, makeBinary(ExprKind::Or, a < b, b < c), a < c);
    EXPECT_EQ(printExpr(andOfOr), "(a < b or b < c) and a < c");
    EXPECT_EQ(printExpr(makeNot(a < b)), "not a < b");
    EXPECT_EQ(printExpr(makeNot(makeBinary(ExprKind::And, a < b, b < c))), "not (a < b and b < c)");
}

TEST(PrinterExpr, CallForms)
{
    Var a("a"), b("b");
    Var x("x", DataType::float32()), y("y", DataType::float32());
    EXPECT_EQ(printExpr(makeBinary(ExprKind::Div, a, b)), "T.Div(a, b)");
    EXPECT_EQ(printExpr(makeBinary(ExprKind::Div, x, y)), "x / y");
    EXPECT_EQ(printExpr(makeBinary(ExprKind::Mod, a, b)), "T.truncmod(a, b)");
    EXPECT_EQ(printExpr(min(a, b + 1)), "T.min(a, b + 1)");
    EXPECT_EQ(printExpr(max(a, b)), "T.max(a, b)");
    EXPECT_EQ(printExpr(makeSelect(a < b, x, y)), "T.Select(a < b, x, y)");
    EXPECT_EQ(printExpr(makeCast(DataType::float32(), a)), "T.Cast(\"float32\", a)");
    EXPECT_EQ(printExpr(makeCall(DataType::float32(), CallOp::Exp, {x})), "T.exp(x)");
    EXPECT_EQ(printExpr(makeCall(DataType::float32(), CallOp::IfThenElse, {a < b, x, f32(0)})),
              "T.if_then_else(a < b, x, T.float32(0))");
    EXPECT_EQ(printExpr(makeRamp(a, b, 4)), "T.Ramp(a, b, 4)");
    EXPECT_EQ(printExpr(makeBroadcast(x, 8)), "T.Broadcast(x, 8)");
}

// TVM builds `a + 0` with tvm::add, which would fold it, so the printer spells the node out.
TEST(PrinterExpr, FoldableOperandsPrintAsCalls)
{
    Var a("a");
    auto node = [](ExprKind k, Expr x, Expr y) {
        return Expr(std::make_shared<BinaryNode>(k, x.type(), x, y));
    };
    EXPECT_EQ(printExpr(node(ExprKind::Add, a, 0)), "T.Add(a, 0)");
    EXPECT_EQ(printExpr(node(ExprKind::Mul, a, 1)), "T.Mul(a, 1)");
    EXPECT_EQ(printExpr(node(ExprKind::Add, 2, 3)), "T.Add(2, 3)");
    EXPECT_EQ(printExpr(node(ExprKind::Sub, 0, a)), "0 - a");
}

TEST(PrinterExpr, Constants)
{
    EXPECT_EQ(printExpr(makeInt(8)), "8");
    EXPECT_EQ(printExpr(makeInt(-3)), "-3");
    EXPECT_EQ(printExpr(makeInt(8, DataType::int64())), "T.int64(8)");
    EXPECT_EQ(printExpr(makeBool(true)), "T.bool(True)");
    EXPECT_EQ(printExpr(makeBool(false)), "T.bool(False)");
    EXPECT_EQ(printExpr(f32(0)), "T.float32(0)");
    EXPECT_EQ(printExpr(f32(1)), "T.float32(1)");
    EXPECT_EQ(printExpr(f32(0.5)), "T.float32(0.5)");
    EXPECT_EQ(printExpr(f32(0.1)), "T.float32(0.10000000000000001)");
    EXPECT_EQ(printExpr(f32(static_cast<double>(0.1f))), "T.float32(0.10000000149011612)");
    EXPECT_EQ(printExpr(f32(-2.5)), "T.float32(-2.5)");
    EXPECT_EQ(printExpr(minValue(DataType::float32())), "T.float32(-3.4028234663852886e+38)");
    EXPECT_EQ(printExpr(f32(1e20)), "T.float32(1e+20)");
    EXPECT_EQ(printExpr(makeFloat(2, DataType::float64())), "T.float64(2)");
    EXPECT_EQ(printExpr(f32(std::numeric_limits<double>::infinity())), "T.float32(\"inf\")");
}

TEST(PrinterExpr, BufferIndicesAndSlices)
{
    Buffer c = flatBuffer("C", 64);
    Var b("b"), s("s");
    EXPECT_EQ(printExpr(load(c, b * 2)), "C[b * 2]");
    EXPECT_EQ(printExpr(load(c, ramp(b, 4))), "C[b:b + 4]");
    EXPECT_EQ(printExpr(load(c, makeRamp(b, 2, 4))), "C[b:b + 8:2]");
    EXPECT_EQ(printExpr(load(c, ramp(makeInt(8), 4))), "C[8:12]");
    EXPECT_EQ(printExpr(load(c, makeRamp(b, s, 4))), "C[T.Ramp(b, s, 4)]");
    EXPECT_EQ(printExpr(load(c, ramp(b + 8, 2))), "C[b + 8:b + 8 + 2]");
}

TEST(PrinterExpr, NamesAreSanitizedNotUniquified)
{
    Var io("i.outer"), io2("i.outer");
    EXPECT_EQ(printExpr(io + io2), "i_outer + i_outer");
    EXPECT_EQ(scriptName("C.local"), "C_local");
    EXPECT_EQ(scriptName("k.inner.v"), "k_inner_v");
    EXPECT_EQ(scriptName("a-b c"), "a_b_c");
}

// ---- statements ----

TEST(PrinterStmt, LoopKinds)
{
    Buffer c = flatBuffer("C", 64);
    Var i("i"), j("j");
    EXPECT_EQ(printStmt(loop(i, 8, store(c, i, f32(0)), ForKind::Parallel)),
              "for i in T.parallel(8):\n    C[i] = T.float32(0)\n");
    EXPECT_EQ(printStmt(loop(i, 8, store(c, i, f32(0)), ForKind::Vectorized)),
              "for i in T.vectorized(8):\n    C[i] = T.float32(0)\n");
    EXPECT_EQ(printStmt(loop(i, 8, store(c, i, f32(0)), ForKind::Unrolled)),
              "for i in T.unroll(8):\n    C[i] = T.float32(0)\n");
    EXPECT_EQ(
        printStmt(makeFor(i, 0, 64, ForKind::ThreadBinding, store(c, i, f32(0)), "threadIdx.x")),
        "for i in T.thread_binding(64, thread=\"threadIdx.x\"):\n    C[i] = T.float32(0)\n");
    EXPECT_EQ(printStmt(makeFor(i, 2, 6, ForKind::Serial, store(c, i, f32(0)))),
              "for i in range(2, 8):\n    C[i] = T.float32(0)\n");
    Var n("n");
    EXPECT_EQ(printStmt(makeFor(i, 2, n, ForKind::Serial, store(c, i, f32(0)))),
              "for i in range(2, 2 + n):\n    C[i] = T.float32(0)\n");
}

TEST(PrinterStmt, GridJoinsOnlyDirectlyNestedSerialLoops)
{
    Buffer c = flatBuffer("C", 64);
    Var i("i"), j("j"), k("k");
    Stmt s = store(c, i * 8 + j, f32(0));
    EXPECT_EQ(printStmt(loop(i, 8, loop(j, 8, s))),
              "for i, j in T.grid(8, 8):\n    C[i * 8 + j] = T.float32(0)\n");
    // A parallel loop ends the grid and starts no grid of its own.
    EXPECT_EQ(printStmt(loop(i, 8, loop(j, 8, s, ForKind::Parallel))),
              "for i in range(8):\n    for j in T.parallel(8):\n        C[i * 8 + j] = "
              "T.float32(0)\n");
    EXPECT_EQ(printStmt(loop(i, 8, loop(j, 8, loop(k, 2, s), ForKind::Vectorized))),
              "for i in range(8):\n    for j in T.vectorized(8):\n        for k in range(2):\n"
              "            C[i * 8 + j] = T.float32(0)\n");
    // A non-zero minimum ends the grid.
    EXPECT_EQ(printStmt(loop(i, 8, makeFor(j, 1, 7, ForKind::Serial, s))),
              "for i in range(8):\n    for j in range(1, 8):\n        C[i * 8 + j] = "
              "T.float32(0)\n");
    // An extent that depends on an outer grid variable ends the grid.
    EXPECT_EQ(printStmt(loop(i, 8, makeFor(j, 0, i + 1, ForKind::Serial, s))),
              "for i in range(8):\n    for j in range(i + 1):\n        C[i * 8 + j] = "
              "T.float32(0)\n");
    // A sequence body ends the grid.
    EXPECT_EQ(printStmt(loop(i, 8, makeSeq({s, loop(j, 8, loop(k, 2, s))}))),
              "for i in range(8):\n    C[i * 8 + j] = T.float32(0)\n    for j, k in T.grid(8, 2):\n"
              "        C[i * 8 + j] = T.float32(0)\n");
}

TEST(PrinterStmt, IfElseLetAndEvaluate)
{
    Buffer c = flatBuffer("C", 64);
    Var i("i"), x("x");
    Stmt branch = makeIfThenElse(i < 4, store(c, i, f32(1)), store(c, i, f32(2)));
    EXPECT_EQ(printStmt(branch),
              "if i < 4:\n    C[i] = T.float32(1)\nelse:\n    C[i] = T.float32(2)\n");
    EXPECT_EQ(printStmt(let(x, i * 2, store(c, x, f32(0)))),
              "x: T.int32 = i * 2\nC[x] = T.float32(0)\n");
    // A LetStmt that is not the last statement of its sequence cannot be flattened.
    EXPECT_EQ(printStmt(makeSeq({let(x, i * 2, store(c, x, f32(0))), store(c, i, f32(1))})),
              "with T.LetStmt(i * 2) as x:\n    C[x] = T.float32(0)\nC[i] = T.float32(1)\n");
    EXPECT_EQ(printStmt(makeEvaluate(makeCall(DataType::float32(), CallOp::Exp, {f32(1)}))),
              "T.exp(T.float32(1))\n");
    EXPECT_EQ(printStmt(makeEvaluate(i + 1)), "T.evaluate(i + 1)\n");
    EXPECT_EQ(
        printStmt(makeAttr("pragma_auto_unroll_max_step", "i.outer", 16, store(c, i, f32(0)))),
        "T.attr(\"i_outer\", \"pragma_auto_unroll_max_step\", 16)\nC[i] = T.float32(0)\n");
    EXPECT_EQ(printStmt(makeSeq(
                  {makeAttr("pragma_x", "i", 1, store(c, i, f32(0))), store(c, i, f32(1))})),
              "with T.attr(\"i\", \"pragma_x\", 1):\n    C[i] = T.float32(0)\nC[i] = "
              "T.float32(1)\n");
}

// ---- names, scopes and declarations in whole functions ----

TEST(PrinterScript, NestedLoopsWithOneNameAreUniquifiedSiblingsReuseIt)
{
    Buffer a = paramBuffer("A", {makeInt(8), makeInt(8)});
    Buffer a1 = flatAlias(a, makeInt(64));
    Var outer("i"), inner("i"), sibling("i");
    Stmt body = makeSeq(
        {loop(outer, 8, loop(inner, 8, store(a1, outer * 8 + inner, f32(0)), ForKind::Parallel)),
         loop(sibling, 64, store(a1, sibling, f32(1)))});
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(a, body))),
              "A_1 = T.Buffer((64,), data=A.data)\n"
              "for i in range(8):\n"
              "    for i_1 in T.parallel(8):\n"
              "        A_1[i * 8 + i_1] = T.float32(0)\n"
              "for i in range(64):\n"
              "    A_1[i] = T.float32(1)\n");
}

TEST(PrinterScript, NamesClashingWithParamsAndPrefixes)
{
    Buffer t = paramBuffer("T", {makeInt(4)});
    Buffer t1 = flatAlias(t, makeInt(4));
    Var v("A.b");
    PrimFunc f = singleParamFunc(t, loop(v, 4, store(t1, v, f32(0))));
    std::string text = printTVMScript(f);
    EXPECT_EQ(text, header("T_1: T.Buffer((4,), \"float32\")") +
                        "        for A_b in range(4):\n"
                        "            T_2 = T.Buffer((4,), data=T_1.data)\n"
                        "            T_2[A_b] = T.float32(0)\n");
}

TEST(PrinterScript, AliasGoesBeforeTheStatementHoldingAllUses)
{
    Buffer a = paramBuffer("A", {makeInt(4), makeInt(4)});
    Buffer a1 = flatAlias(a, makeInt(16));
    Var i("i"), j("j"), x("x");
    // Uses in two statements of the loop body: declared before the first of them.
    Stmt two =
        loop(i, 4, makeSeq({store(a1, i, f32(0)), loop(j, 4, store(a1, i * 4 + j, f32(1)))}));
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(a, two))),
              "for i in range(4):\n"
              "    A_1 = T.Buffer((16,), data=A.data)\n"
              "    A_1[i] = T.float32(0)\n"
              "    for j in range(4):\n"
              "        A_1[i * 4 + j] = T.float32(1)\n");
    // Uses in two top-level statements: declared at function level.
    Stmt top = makeSeq({loop(i, 4, store(a1, i, f32(0))), loop(j, 4, store(a1, j, f32(1)))});
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(a, top))),
              "A_1 = T.Buffer((16,), data=A.data)\n"
              "for i in range(4):\n"
              "    A_1[i] = T.float32(0)\n"
              "for j in range(4):\n"
              "    A_1[j] = T.float32(1)\n");
    // A use in a let's value is declared before the let line.
    Stmt inLet = loop(i, 4, let(x, makeCast(DataType::int32(), load(a1, i)), store(a1, x, f32(0))));
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(a, inLet))),
              "for i in range(4):\n"
              "    A_1 = T.Buffer((16,), data=A.data)\n"
              "    x: T.int32 = T.Cast(\"int32\", A_1[i])\n"
              "    A_1[x] = T.float32(0)\n");
    // All uses in the condition of an if: declared before the if.
    Stmt inCond = loop(i, 4, makeIfThenElse(load(a1, i) < f32(0), store(a1, i, f32(0))));
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(a, inCond))),
              "for i in range(4):\n"
              "    A_1 = T.Buffer((16,), data=A.data)\n"
              "    if A_1[i] < T.float32(0):\n"
              "        A_1[i] = T.float32(0)\n");
}

TEST(PrinterScript, AliasInsideIfBranch)
{
    Buffer a = paramBuffer("A", {makeInt(16)});
    Buffer a1 = flatAlias(a, makeInt(16));
    Var i("i"), j("j");
    // When the branch is itself a loop, the branch's frame wins over the loop's: the declaration
    // goes before the loop, inside the if.
    Stmt loopBranch = loop(i, 4, makeIfThenElse(i < 3, loop(j, 4, store(a1, i * 4 + j, f32(0)))));
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(a, loopBranch))),
              "for i in range(4):\n"
              "    if i < 3:\n"
              "        A_1 = T.Buffer((16,), data=A.data)\n"
              "        for j in range(4):\n"
              "            A_1[i * 4 + j] = T.float32(0)\n");
    Stmt body = loop(i, 4,
                     makeIfThenElse(i < 3, makeSeq({loop(j, 4, store(a1, i * 4 + j, f32(0))),
                                                    store(a1, i, f32(1))})));
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(a, body))),
              "for i in range(4):\n"
              "    if i < 3:\n"
              "        A_1 = T.Buffer((16,), data=A.data)\n"
              "        for j in range(4):\n"
              "            A_1[i * 4 + j] = T.float32(0)\n"
              "        A_1[i] = T.float32(1)\n");
}

TEST(PrinterScript, OrderOfSeveralDeclarationsIsOrderOfFirstUse)
{
    Gemm g = gemm(4);
    Var i("i");
    // The stored buffer comes before the buffers the value reads.
    Stmt body = loop(i, 16, store(g.C1, i, load(g.B1, i) + load(g.A1, i)));
    PrimFunc f = g.func;
    f.body = body;
    EXPECT_EQ(bodyOf(printTVMScript(f)), "for i in range(16):\n"
                                         "    C_1 = T.Buffer((16,), data=C.data)\n"
                                         "    B_1 = T.Buffer((16,), data=B.data)\n"
                                         "    A_1 = T.Buffer((16,), data=A.data)\n"
                                         "    C_1[i] = B_1[i] + A_1[i]\n");
}

TEST(PrinterScript, AllocateAndItsAlias)
{
    Buffer c = paramBuffer("C", {makeInt(32)});
    Buffer c1 = flatAlias(c, makeInt(32));
    Buffer local = flatBuffer("C.local", 32, DataType::float32(), "local");
    Var i("i"), j("j");
    Stmt body = makeAllocate(local, makeSeq({loop(i, 32, store(local, i, f32(0))),
                                             loop(j, 32, store(c1, j, load(local, j)))}));
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(c, body))),
              "C_local = T.allocate([32], \"float32\", \"local\")\n"
              "C_local_1 = T.Buffer((32,), data=C_local, scope=\"local\")\n"
              "for i in range(32):\n"
              "    C_local_1[i] = T.float32(0)\n"
              "for j in range(32):\n"
              "    C_1 = T.Buffer((32,), data=C.data)\n"
              "    C_1[j] = C_local_1[j]\n");
}

TEST(PrinterScript, AllocateNotLastIsAWithBlockAndVectorDtypeIsShown)
{
    Buffer c = paramBuffer("C", {makeInt(8)});
    Buffer c1 = flatAlias(c, makeInt(8));
    Buffer packed = flatBuffer("packedB", 4, DataType::float32().withLanes(2));
    Var i("i"), j("j");
    Stmt fill = loop(i, 4, store(packed, i, makeBroadcast(f32(0), 2)));
    Stmt body = makeSeq({makeAllocate(packed, fill), loop(j, 8, store(c1, j, f32(1)))});
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(c, body))),
              "with T.allocate([4], \"float32x2\", \"global\") as packedB:\n"
              "    for i in range(4):\n"
              "        packedB_1 = T.Buffer((4,), \"float32x2\", data=packedB)\n"
              "        packedB_1[i] = T.Broadcast(T.float32(0), 2)\n"
              "for j in range(8):\n"
              "    C_1 = T.Buffer((8,), data=C.data)\n"
              "    C_1[j] = T.float32(1)\n");
}

TEST(PrinterScript, NonFloatParamsAndSymbolicShapes)
{
    Var n("n");
    Buffer a = paramBuffer("A", {n}, DataType{DataType::Int, 8, 1});
    Buffer a1 = flatAlias(a, n);
    Var i("i");
    PrimFunc f =
        singleParamFunc(a, makeFor(i, 0, n, ForKind::Serial, store(a1, i, makeInt(0, a->dtype))));
    EXPECT_EQ(printTVMScript(f),
              "# from tvm.script import ir as I\n"
              "# from tvm.script import tir as T\n"
              "\n"
              "@I.ir_module\n"
              "class Module:\n"
              "    @T.prim_func\n"
              "    def main(A: T.handle):\n"
              "        T.func_attr({\"from_legacy_te_schedule\": T.bool(True), \"tir.noalias\": "
              "T.bool(True)})\n"
              "        n = T.int32()\n"
              "        A_1 = T.match_buffer(A, (n,), \"int8\")\n"
              "        for i in range(n):\n"
              "            A_2 = T.Buffer((n,), \"int8\", data=A_1.data)\n"
              "            A_2[i] = T.int8(0)\n");
}

TEST(PrinterScript, FreeVariableIsDeclaredWhereItIsUsed)
{
    Buffer a = paramBuffer("A", {makeInt(8)});
    Buffer a1 = flatAlias(a, makeInt(8));
    Var i("i"), m("m");
    Stmt body = loop(i, 8, store(a1, i, makeCast(DataType::float32(), m)));
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(a, body))),
              "for i in range(8):\n"
              "    A_1 = T.Buffer((8,), data=A.data)\n"
              "    m = T.int32()\n"
              "    A_1[i] = T.Cast(\"float32\", m)\n");
}

TEST(PrinterScript, ThreadExtentLaunchesItsVariable)
{
    Buffer a = paramBuffer("A", {makeInt(64)});
    Buffer a1 = flatAlias(a, makeInt(64));
    Var tx("threadIdx.x");
    Stmt body = makeAttr("thread_extent", "threadIdx.x", 64, store(a1, tx, f32(0)));
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(a, body))),
              "threadIdx_x = T.launch_thread(\"threadIdx.x\", 64)\n"
              "A_1 = T.Buffer((64,), data=A.data)\n"
              "A_1[threadIdx_x] = T.float32(0)\n");
}

TEST(PrinterScript, EmptyBodyPrintsPass)
{
    Buffer a = paramBuffer("A", {makeInt(8)});
    Var i("i");
    EXPECT_EQ(bodyOf(printTVMScript(singleParamFunc(a, loop(i, 8, Stmt())))),
              "for i in range(8):\n    pass\n");
}

// ---- the structured (pre-flattening) form ----

TEST(PrinterStructured, RealizeTensorStoresAndLoads)
{
    Tensor a = makePlaceholder("A", {makeInt(10), makeInt(10)}, DataType::float32(), {});
    IterVar ai = makeIterVar("i", {makeInt(0), makeInt(10)}, IterKind::DataPar);
    IterVar aj = makeIterVar("j", {makeInt(0), makeInt(10)}, IterKind::DataPar);
    Tensor b = makeCompute("B", "", {ai, aj}, makeTensorLoad(a, {ai->var, aj->var}) + f32(1), {});
    Tensor c = makeCompute("C", "", {ai, aj}, makeTensorLoad(b, {ai->var, aj->var}) * f32(2), {});
    Var i("i"), j("j"), i2("i"), j2("j");
    Stmt produce =
        loop(i, 10, loop(j, 10, makeTensorStore(b, {i, j}, makeTensorLoad(a, {i, j}) + f32(1))));
    Stmt consume =
        loop(i2, 10,
             loop(j2, 10, makeTensorStore(c, {i2, j2}, makeTensorLoad(b, {i2, j2}) * f32(2)),
                  ForKind::Vectorized));
    Stmt body = makeRealize(b, {{makeInt(0), makeInt(10)}, {makeInt(0), makeInt(10)}}, "global",
                            makeSeq({produce, consume}));
    EXPECT_EQ(printStructured(body, {a, c}),
              "@T.prim_func\n"
              "def main(A: T.Buffer((10, 10), \"float32\"), C: T.Buffer((10, 10), \"float32\")):\n"
              "    with T.realize(B[0:10, 0:10], \"global\"):\n"
              "        for i, j in T.grid(10, 10):\n"
              "            B[i, j] = A[i, j] + T.float32(1)\n"
              "        for i in range(10):\n"
              "            for j in T.vectorized(10):\n"
              "                C[i, j] = B[i, j] * T.float32(2)\n");
}

TEST(PrinterStructured, ReduceBodiesPrintForDiagnostics)
{
    Tensor a = makePlaceholder("A", {makeInt(4), makeInt(4)}, DataType::float32(), {});
    IterVar i = makeIterVar("i", {makeInt(0), makeInt(4)}, IterKind::DataPar);
    IterVar k = makeIterVar("k", {makeInt(0), makeInt(4)}, IterKind::Reduce);
    Expr sum = makeReduce(ReduceOp::Sum, makeTensorLoad(a, {i->var, k->var}), {k}, Expr());
    EXPECT_EQ(printExpr(sum), "te.sum(A[i, k], axis=[k])");
}

} // namespace
} // namespace loopscope
