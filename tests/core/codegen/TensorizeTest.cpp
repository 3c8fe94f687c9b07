// tensorize: the tutorial's GEMV prints as TVM 0.17 prints it, TOPI's VNNI dot product lowers to
// vpdpbusd and runs right, and what does not match is refused at the step with what differs.
#include "codegen/Codegen.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "runtime/LocalRun.h"
#include "support/SourceFiles.h"
#include "support/TestJit.h"
#include "te/Program.h"
#include "te/TopiIntrinsics.h"

#include <gtest/gtest.h>

namespace loopscope {
namespace {

// The tutorial's matmul (A x B^T), its y split by 16 for a 16 x L GEMV, and the intrinsic as the
// tutorial declares it; `extra` goes between the schedule and the tensorize step, `intrin` is the
// call that makes the intrinsic.
std::string gemvScript(const std::string& extra = "",
                       const std::string& intrin = "intrin_gemv(factor, L)",
                       const std::string& bStrides = "strides=[te.var(\"s1\"), 1]")
{
    return R"(import tvm
from tvm import te

N, M, L = 1024, 512, 64
A = te.placeholder((N, L), name="A")
B = te.placeholder((M, L), name="B")
k = te.reduce_axis((0, L), name="k")
C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
s = te.create_schedule(C.op)
factor = 16
x, y = C.op.axis
(z,) = C.op.reduce_axis
yo, yi = s[C].split(y, factor=factor)
s[C].reorder(x, yo, yi, z)
)" + extra +
           R"(

def intrin_gemv(m, l):
    a = te.placeholder((l,), name="a")
    b = te.placeholder((m, l), name="b")
    k = te.reduce_axis((0, l), name="k")
    c = te.compute((m,), lambda i: te.sum(a[k] * b[i, k], axis=k), name="c")
    Ab = tvm.tir.decl_buffer(a.shape, a.dtype, name="A", offset_factor=1, strides=[1])
    Bb = tvm.tir.decl_buffer(b.shape, b.dtype, name="B", offset_factor=1, )" +
           bStrides + R"()
    Cb = tvm.tir.decl_buffer(c.shape, c.dtype, name="C", offset_factor=1, strides=[1])

    def intrin_func(ins, outs):
        aa, bb = ins
        cc = outs[0]

        def _body():
            ib = tvm.tir.ir_builder.create()
            ib.emit(tvm.tir.call_extern("int32", "gemv_update", cc.access_ptr("w"),
                                        aa.access_ptr("r"), bb.access_ptr("r"), m, l,
                                        bb.strides[0]))
            return ib.get()

        def _reduce_reset():
            ib = tvm.tir.ir_builder.create()
            ib.emit(tvm.tir.call_extern("int32", "gemv_reset", cc.access_ptr("w"), m))
            return ib.get()

        return _body(), _reduce_reset(), _body()

    return te.decl_tensor_intrin(c.op, intrin_func, binds={a: Ab, b: Bb, c: Cb})


s[C].tensorize(yi, )" +
           intrin + R"()
)";
}

struct Lowered {
    EvalResult eval;
    std::string text;
    std::string error;
    int errorLine = 0;
};

Lowered lower(const std::string& script)
{
    Lowered out;
    out.eval = evaluateScript(script);
    if (!out.eval.ok) {
        out.error = out.eval.error.message;
        out.errorLine = out.eval.error.loc.line;
        return out;
    }
    const Variant& v = out.eval.program.variants.back();
    try {
        out.text = printTVMScript(lowerSchedule(v.schedule(), v.args, v.funcName).func);
    } catch (const UserError& e) {
        out.error = e.what();
        out.errorLine = e.loc().line;
    }
    return out;
}

int lineOf(const std::string& script, const std::string& text)
{
    const std::size_t at = script.find(text);
    return at == std::string::npos
               ? -1
               : 1 + static_cast<int>(std::count(script.begin(), script.begin() + at, '\n'));
}

TEST(Tensorize, TheTutorialsGemvPrintsAsTvmPrintsIt)
{
    Lowered l = lower(gemvScript());
    ASSERT_TRUE(l.error.empty()) << l.error;
    EXPECT_EQ(l.text, R"(# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1024, 64), "float32"), B: T.Buffer((512, 64), "float32"), C: T.Buffer((1024, 512), "float32")):
        T.func_attr({"from_legacy_te_schedule": T.bool(True), "tir.noalias": T.bool(True)})
        for i, j_outer in T.grid(1024, 32):
            T.call_extern("int32", "gemv_update", T.tvm_access_ptr(T.type_annotation("float32"), C.data, i * 512 + j_outer * 16, 16, 2), T.tvm_access_ptr(T.type_annotation("float32"), A.data, i * 64, 64, 1), T.tvm_access_ptr(T.type_annotation("float32"), B.data, j_outer * 1024, 1024, 1), 16, 64, 64)
)");
}

// The reduction split around the tensorized loop: the output is reset before the outer reduction
// loop, and each of its iterations is an update (the tutorial's reduce-update).
TEST(Tensorize, AReductionLoopOutsideResetsThenUpdates)
{
    Lowered l = lower(gemvScript("zo, zi = s[C].split(z, factor=factor)\n"
                                 "s[C].reorder(x, yo, zo, yi, zi)\n",
                                 "intrin_gemv(factor, factor)"));
    ASSERT_TRUE(l.error.empty()) << l.error;
    const std::string reset = "T.call_extern(\"int32\", \"gemv_reset\", T.tvm_access_ptr(T."
                              "type_annotation(\"float32\"), C.data, i * 512 + j_outer * 16, 16, "
                              "2), 16)";
    const std::size_t r = l.text.find(reset);
    const std::size_t loop = l.text.find("for k_outer in range(4):");
    const std::size_t update = l.text.find("\"gemv_update\"");
    ASSERT_NE(r, std::string::npos) << l.text;
    ASSERT_NE(loop, std::string::npos) << l.text;
    EXPECT_LT(r, loop);
    EXPECT_LT(loop, update);
    // The update reads A and B where the outer reduction loop is: 16 of A's row, B's rows.
    EXPECT_NE(l.text.find("A.data, i * 64 + cse_var_1, 16, 1)"), std::string::npos) << l.text;
    EXPECT_NE(l.text.find("B.data, j_outer * 1024 + cse_var_1, 1024, 1), 16, 16, 64)"),
              std::string::npos)
        << l.text;
}

TEST(Tensorize, WhatDoesNotMatchIsRefusedAtTheStepWithWhatDiffers)
{
    // The intrinsic for 8 rows where the loop runs 16.
    std::string script = gemvScript("", "intrin_gemv(8, L)");
    Lowered l = lower(script);
    EXPECT_EQ(l.errorLine, lineOf(script, "s[C].tensorize"));
    EXPECT_NE(l.error.find("runs 16 iterations of its data-parallel axis 'j', the intrinsic's "
                           "axis 'i' 8"),
              std::string::npos)
        << l.error;

    // The intrinsic adds where the stage multiplies: the computations differ there.
    script = gemvScript();
    const std::string body = "a[k] * b[i, k]";
    script.replace(script.find(body), body.size(), "a[k] + b[i, k]");
    l = lower(script);
    EXPECT_EQ(l.errorLine, lineOf(script, "s[C].tensorize"));
    EXPECT_NE(l.error.find("Failed to match the compute with TensorIntrin tensor_intrin's "
                           "declaration"),
              std::string::npos)
        << l.error;
    EXPECT_NE(l.error.find("they differ at"), std::string::npos) << l.error;

    // A split that leaves a tail inside the tensorized loops.
    script = gemvScript();
    script.replace(script.find("N, M, L = 1024, 512, 64"), 23, "N, M, L = 1024, 500, 64");
    l = lower(script);
    EXPECT_NE(l.error.find("split by factors that divide the extents"), std::string::npos)
        << l.error;

    // Reduction loops outside the tensorized one and an intrinsic without an update.
    script = gemvScript("zo, zi = s[C].split(z, factor=factor)\ns[C].reorder(x, yo, zo, yi, zi)\n",
                        "intrin_gemv(factor, factor)");
    script.replace(script.find("return _body(), _reduce_reset(), _body()"), 41, "return _body()");
    l = lower(script);
    EXPECT_NE(l.error.find("has no reduce_update statement, which the reduction loops 'k_outer' "
                           "outside the tensorized loop need"),
              std::string::npos)
        << l.error;
}

// A buffer declared without strides is compact: bound to 16 rows of 16 of B's 64 columns it
// would read the wrong elements, and binding refuses it, as TVM does.
TEST(Tensorize, ACompactBufferOnAStridedRegionIsRefused)
{
    std::string script =
        gemvScript("zo, zi = s[C].split(z, factor=factor)\ns[C].reorder(x, yo, zo, yi, zi)\n",
                   "intrin_gemv(factor, factor)", "strides=[]");
    script.replace(script.find("bb.strides[0]"), 13, "64");
    Lowered l = lower(script);
    EXPECT_EQ(l.errorLine, lineOf(script, "s[C].tensorize"));
    EXPECT_NE(l.error.find("Cannot bind a compact buffer to a strided region: the intrinsic's "
                           "buffer 'B', bound to 'B', declares no strides"),
              std::string::npos)
        << l.error;
}

TEST(Tensorize, ACallToACFunctionNothingDefinesIsRefusedByName)
{
    EvalResult r = evaluateScript(gemvScript());
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.back();
    const PrimFunc f = lowerSchedule(v.schedule(), v.args, v.funcName).func;
    // An object may call it: whoever links the object gives the function.
    EXPECT_NE(emitCode(f, EmitKind::Assembly).find("gemv_update"), std::string::npos);
    try {
        testJit().compile(f);
        FAIL() << "linked a call to gemv_update";
    } catch (const CodegenError& e) {
        EXPECT_NE(std::string(e.what()).find("'gemv_update'"), std::string::npos) << e.what();
    }
}

// The tutorial's C functions, imported as LLVM IR (pragma import_llvm): both tensorized variants
// (the whole GEMV; reset and update) compute the matmul.
TEST(Tensorize, TheTutorialsCFunctionsImportedAsLlvmIrRunRight)
{
    EvalResult r = evaluateScript(readSourceFile("samples/tensorize_tutorial.py"),
                                  {{"N", 32}, {"M", 32}, {"L", 32}});
    ASSERT_TRUE(r.ok) << r.error.message;
    for (const char* name : {"tensorized GEMV", "reduce-update"}) {
        SCOPED_TRACE(name);
        const Variant* v = r.program.findVariant(name);
        ASSERT_NE(v, nullptr);
        auto run = PreparedRun::prepare(r.program, *v, testRunConfig());
        run->run();
        for (auto& out : run->check())
            EXPECT_TRUE(out.result.ok) << out.tensor << ": " << out.result.firstMismatch;
    }
    // IR that does not parse is refused where it does not.
    std::string script = readSourceFile("samples/tensorize_tutorial.py");
    script.replace(script.find("define dso_local i32 @gemv_reset"), 6, "defin");
    r = evaluateScript(script, {{"N", 32}, {"M", 32}, {"L", 32}});
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant* v = r.program.findVariant("tensorized GEMV");
    const PrimFunc f = lowerSchedule(v->schedule(), v->args, v->funcName).func;
    try {
        testJit().compile(f);
        FAIL() << "compiled IR that does not parse";
    } catch (const CodegenError& e) {
        EXPECT_NE(std::string(e.what()).find("pragma import_llvm: its LLVM IR does not parse at "
                                             "line"),
                  std::string::npos)
            << e.what();
    }
}

// TOPI's VNNI intrinsic, its source unchanged, on a small dense of TOPI's layout (NC16n4c).
std::string vnniScript(const std::string& intrinsic)
{
    return std::string(topiX86TensorIntrinSource()) + R"(
M, N, K = 64, 64, 64
X = te.placeholder((M, K), dtype="uint8", name="X")
W = te.placeholder((N // 16, K // 4, 16, 4), dtype="int8", name="W")
ak = te.reduce_axis((0, K), name="k")
C = te.compute(
    (M, N),
    lambda i, j: te.sum(
        X[i, ak].astype("int32")
        * W[tvm.tir.indexdiv(j, 16), tvm.tir.indexdiv(ak, 4), j % 16, ak % 4].astype("int32"),
        axis=ak,
    ),
    name="C",
)
s = te.create_schedule(C.op)
a_y, a_x = C.op.axis
(a_k,) = C.op.reduce_axis
a_yo, a_yi = s[C].split(a_y, factor=32)
a_xo, a_xi = s[C].split(a_x, factor=16)
a_ko, a_ki = s[C].split(a_k, factor=4)
s[C].reorder(a_yo, a_xo, a_yi, a_ko, a_xi, a_ki)
s[C].tensorize(a_xi, )" +
           intrinsic + R"(())
)";
}

TEST(Tensorize, TopisVnniDotProductLowersToVpdpbusd)
{
    Lowered l = lower(vnniScript("dot_16x1x16_uint8_int8_int32_cascadelake"));
    ASSERT_TRUE(l.error.empty()) << l.error;
    // The reset before the reduction, then vpdpbusd on the sums, the activations' four bytes
    // broadcast as a word, and 64 bytes of weights.
    const std::size_t reset = l.text.find("= T.Broadcast(0, 16)\n");
    ASSERT_NE(reset, std::string::npos) << l.text;
    EXPECT_NE(l.text.find("for k_outer in range(16):", reset), std::string::npos) << l.text;
    EXPECT_NE(l.text.find("T.call_llvm_pure_intrin(\"int32x16\", "
                          "\"llvm.x86.avx512.vpdpbusd.512\", T.uint32(3), C_1["),
              std::string::npos)
        << l.text;
    EXPECT_NE(l.text.find("T.Broadcast(T.reinterpret(\"int32\", X_1["), std::string::npos)
        << l.text;
    EXPECT_NE(l.text.find("T.reinterpret(\"int32x16\", W_1["), std::string::npos) << l.text;

    // Compiled for a CPU without VNNI it is refused by name and feature, not by LLVM.
    const Variant& v = l.eval.program.variants.back();
    const PrimFunc f = lowerSchedule(v.schedule(), v.args, v.funcName).func;
    try {
        emitCode(f, EmitKind::Assembly, "llvm -mcpu=znver3");
        FAIL() << "compiled vpdpbusd for Zen 3";
    } catch (const CodegenError& e) {
        EXPECT_NE(std::string(e.what()).find("llvm.x86.avx512.vpdpbusd.512 needs the CPU "
                                             "feature avx512vnni"),
                  std::string::npos)
            << e.what();
    }
    const std::string assembly = emitCode(f, EmitKind::Assembly, "llvm -mcpu=cascadelake");
    EXPECT_NE(assembly.find("vpdpbusd"), std::string::npos);
}

// TOPI's pmaddubsw + pmaddwd form in AVX2's 8 lanes (what an AVX2 machine runs), on weights
// packed in blocks of 8: it computes the declaration, here too.
TEST(Tensorize, TheAvx2FormInEightLanesRunsRight)
{
    std::string s = topiX86TensorIntrinSource();
    const std::string lanes = "int32_lanes = get_simd_32bit_lanes()";
    ASSERT_NE(s.find(lanes), std::string::npos);
    s.replace(s.find(lanes), lanes.size(), "int32_lanes = 8");
    s += R"(
M, N, K = 32, 32, 64
X = te.placeholder((M, K), dtype="uint8", name="X")
W = te.placeholder((N // 8, K // 4, 8, 4), dtype="int8", name="W")
ak = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(X[i, ak].astype("int32") * W[j // 8, ak // 4, j % 8, ak % 4].astype("int32"), axis=ak), name="C")
s = te.create_schedule(C.op)
i, j = C.op.axis
(k,) = C.op.reduce_axis
jo, ji = s[C].split(j, factor=8)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(i, jo, ko, ji, ki)
s[C].tensorize(ji, dot_16x1x16_uint8_int8_int32_skylake())
)";
    EvalResult r = evaluateScript(s);
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.back();
    const std::string lowered =
        printTVMScript(lowerSchedule(v.schedule(), v.args, v.funcName).func);
    EXPECT_NE(lowered.find("\"llvm.x86.avx2.pmadd.ub.sw\""), std::string::npos) << lowered;
    auto run = PreparedRun::prepare(r.program, v, testRunConfig());
    run->run();
    for (auto& out : run->check())
        EXPECT_TRUE(out.result.ok) << out.tensor << ": " << out.result.firstMismatch;
}

// The dispatcher picks what this machine has (vpdpbusd, else pmaddubsw + pmaddwd), and the
// tensorized variant computes what the declaration says.
TEST(Tensorize, TheIntrinsicThisMachineHasRunsRight)
{
    std::string script = vnniScript("dot_16x1x16_uint8_int8_int32");
    EvalResult r = evaluateScript(script);
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.back();
    // The skylake form on an AVX2 machine has 8 lanes; the layout above has 16: only where the
    // intrinsic is 16 wide (AVX-512) does this schedule match it.
    const std::string lowered = [&] {
        try {
            return printTVMScript(lowerSchedule(v.schedule(), v.args, v.funcName).func);
        } catch (const UserError& e) {
            return std::string(e.what());
        }
    }();
    if (lowered.find("int32x16") == std::string::npos)
        GTEST_SKIP() << "this machine's intrinsic is not 16 lanes wide: " << lowered;
    auto run = PreparedRun::prepare(r.program, v, testRunConfig());
    run->run();
    for (auto& out : run->check())
        EXPECT_TRUE(out.result.ok) << out.tensor << ": " << out.result.firstMismatch;
}

} // namespace
} // namespace loopscope
