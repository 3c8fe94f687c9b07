// What the LLVM code generator hands to LLVM, beyond computing the right numbers (which the
// differential tests cover): zero fills of a contiguous block (in any loop order) become one
// memset, rows of a smaller fill or copy are one rolled loop of vector accesses, copies never
// become memcpy calls, a loop is versioned on the `likely` guards it cannot change, index
// arithmetic over non-negative terms carries nuw, and a parallel body is its own (not inlined)
// function, and the packed entry calls the function rather than holding a copy of it.
#include "codegen/Codegen.h"
#include "codegen/InvariantLoads.h"
#include "ir/IRMutator.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "runtime/LocalRun.h"
#include "support/SourceFiles.h"
#include "support/TestJit.h"
#include "te/Program.h"

#include "support/FlatBuffer.h"
#include "support/Occurrences.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

using namespace loopscope;
using loopscope::testsupport::flatBuffer;
using loopscope::testsupport::occurrences;

namespace {

const char* kScript = R"(import tvm
from tvm import te

M = 64
N = 64
K = 16
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

# variant: block cache
s = te.create_schedule(C.op)
CC = s.cache_write(C, "global")
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 32, 32)
s[CC].compute_at(s[C], jo)
mc, nc = s[CC].op.axis
(kk,) = s[CC].op.reduce_axis
ko, ki = s[CC].split(kk, factor=4)
s[CC].reorder(ko, mc, ki, nc)
s[C].parallel(io)

# variant: local block cache
s = te.create_schedule(C.op)
CC = s.cache_write(C, "local")
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 16, 32)
s[CC].compute_at(s[C], jo)
mc, nc = s[CC].op.axis
(kk,) = s[CC].op.reduce_axis
ko, ki = s[CC].split(kk, factor=4)
s[CC].reorder(ko, mc, ki, nc)

# variant: tiled block cache
s = te.create_schedule(C.op)
CC = s.cache_write(C, "global")
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 32, 32)
s[CC].compute_at(s[C], jo)
mc, nc = s[CC].op.axis
(kk,) = s[CC].op.reduce_axis
mo, no, mi, ni = s[CC].tile(mc, nc, 4, 8)
s[CC].reorder(kk, no, mo, mi, ni)
s[CC].unroll(mi)
s[CC].vectorize(ni)

# variant: guarded register tile
s = te.create_schedule(C.op)
CC = s.cache_write(C, "local")
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 6, 8)
s[CC].compute_at(s[C], jo)
mc, nc = s[CC].op.axis
(kk,) = s[CC].op.reduce_axis
s[CC].reorder(kk, mc, nc)
s[CC].unroll(mc)
s[CC].vectorize(nc)

# variant: guarded split k
s = te.create_schedule(C.op)
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 24, 24)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(io, jo, ko, ii, ji, ki)

# variant: wide guarded body
s = te.create_schedule(C.op)
i, j = s[C].op.axis
io, ii = s[C].split(i, factor=6)
ko, ki = s[C].split(k, factor=8)
s[C].reorder(io, ko, ki, ii, j)
s[C].unroll(ki)
s[C].unroll(ii)
s[C].vectorize(j)

# variant: split columns
s = te.create_schedule(C.op)
jo, ji = s[C].split(C.op.axis[1], factor=24)

# variant: row fills
s = te.create_schedule(C.op)
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 32, 32)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(io, jo, ko, ii, ji, ki)

# variant: unrolled rows
s = te.create_schedule(C.op)
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 32, 32)
ko, ki = s[C].split(k, factor=4)
s[C].reorder(io, jo, ko, ii, ji, ki)
s[C].unroll(ii)
s[C].pragma(io, "unroll_explicit", False)

# variant: guarded vector columns
s = te.create_schedule(C.op)
i, j = s[C].op.axis
jo, ji = s[C].split(j, factor=24)
s[C].reorder(i, jo, k, ji)
s[C].vectorize(ji)

# variant: local cache
s = te.create_schedule(C.op)
CC = s.cache_write(C, "local")
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], 4, 8)
s[CC].compute_at(s[C], jo)
)";

struct Compiled {
    Program program;
    const Variant* variant = nullptr;
    PrimFunc func;
};

Compiled lowerVariant(const std::string& name)
{
    Compiled c;
    EvalResult r = evaluateScript(kScript);
    EXPECT_TRUE(r.ok) << r.error.message;
    c.program = std::move(r.program);
    c.variant = c.program.findVariant(name);
    EXPECT_NE(c.variant, nullptr);
    c.func = lowerSchedule(c.variant->schedule(), c.variant->args, c.variant->funcName).func;
    return c;
}

// The module as the code generator builds it, before LLVM optimizes it.
std::string unoptimizedIr(const PrimFunc& f)
{
    return emitCode(f, EmitKind::UnoptimizedLLVMIR);
}

void expectRight(const Compiled& c)
{
    auto run = PreparedRun::prepare(c.program, *c.variant, testRunConfig());
    run->run();
    for (auto& out : run->check())
        EXPECT_TRUE(out.result.ok) << out.tensor << ": " << out.result.firstMismatch;
}

} // namespace

TEST(CodegenLLVM, ContiguousZeroBlockBecomesOneMemset)
{
    Compiled c = lowerVariant("block cache");
    std::string before = unoptimizedIr(c.func);
    // The 32 x 32 float write cache (4 KB) is cleared by one memset of its whole size.
    EXPECT_NE(before.find("call void @llvm.memset.p0.i64(ptr align 4 %"), std::string::npos)
        << before;
    EXPECT_NE(before.find(", i8 0, i64 4096, i1 false)"), std::string::npos) << before;
    expectRight(c);
}

TEST(CodegenLLVM, TiledZeroBlockBecomesOneMemset)
{
    Compiled c = lowerVariant("tiled block cache");
    std::string before = unoptimizedIr(c.func);
    // The same 4 KB cache, cleared tile by tile (columns of tiles outer, four rows of 8-float
    // vectors per step): together the stores cover it, so it is one memset too, not a loop nest
    // that LLVM would unroll into 128 vector stores.
    EXPECT_EQ(occurrences(before, "call void @llvm.memset.p0.i64("), 1u) << before;
    EXPECT_NE(before.find(", i8 0, i64 4096, i1 false)"), std::string::npos) << before;
    EXPECT_EQ(before.find("store <8 x float> zeroinitializer"), std::string::npos) << before;
    expectRight(c);
}

TEST(CodegenLLVM, LoopsAreVersionedOnTheGuardsOfEdgeTiles)
{
    Compiled c = lowerVariant("guarded register tile");
    std::string before = unoptimizedIr(c.func);
    // 6 does not divide 64, so the tile's last two rows are guarded in the reduction loop (on the
    // row of tiles only), and the copy to C guards its rows (on the row of tiles and the row in
    // the tile, which grows). All hold throughout a row of tiles if they hold for its last row:
    // the loop over the columns of tiles is emitted twice, once, marked likely, for when they
    // do, without the guards; once as it is, for the last row of tiles.
    EXPECT_EQ(occurrences(before, "\nguards_hold:"), 1u) << before;
    EXPECT_EQ(occurrences(before, "\nguards_edge:"), 1u) << before;
    EXPECT_NE(before.find("!{!\"branch_weights\", i32 2000, i32 1}"), std::string::npos) << before;
    EXPECT_EQ(occurrences(before, "fmul <8 x float>"), 2u * 6u)
        << before; // each row, in each version
    EXPECT_EQ(occurrences(before, "\nif_then"), 3u)
        << before; // the guards, in the copy for the edge only
    expectRight(c);
}

TEST(CodegenLLVM, EachGuardIsDecidedPerTile)
{
    Compiled c = lowerVariant("guarded split k");
    std::string before = unoptimizedIr(c.func);
    // 24 divides neither axis of 64: a row of the tile is guarded on (the row of tiles, the row
    // in the tile), a column on (the column of tiles, the column in the tile). Each is decided
    // where its tile is known, not above, where it would hold for no tile: the row guards (of
    // the init and of the update) once, in the loop over the columns of tiles; the column guards
    // in that loop's body, at the init's loop and at the reduction's.
    EXPECT_EQ(occurrences(before, "\nguards_hold"), 3u) << before;
    // The copies for edge tiles are left as loops: LLVM would spend as long on them as on the rest.
    EXPECT_NE(before.find("!\"llvm.loop.vectorize.enable\", i1 false"), std::string::npos)
        << before;
    expectRight(c);
}

TEST(CodegenLLVM, TheEdgeOfALoopOverPanelsIsVersionedAgainPerPanel)
{
    EvalResult r = evaluateScript(R"(import tvm
from tvm import te
A = te.placeholder((4, 16), name="A")
B = te.placeholder((16, 60), name="B")
k = te.reduce_axis((0, 16), name="k")
C = te.compute((4, 60), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
s = te.create_schedule(C.op)
i, j = s[C].op.axis
jo, ji = s[C].split(j, factor=24)
jio, jii = s[C].split(ji, factor=8)
s[C].reorder(i, jo, jio, k, jii)
)");
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    PrimFunc f = lowerSchedule(v.schedule(), v.args, v.funcName).func;
    std::string before = unoptimizedIr(f);
    // Columns in blocks of 24, each three panels of 8: 60 leaves the last block one full panel,
    // one partial and one empty. Decided over the panel loop, the column guard fails for the
    // whole last block; in that copy it is decided again per panel (over the init's row and
    // over the reduction loop), so the last block's full panel runs without it too.
    EXPECT_EQ(occurrences(before, "\nguards_hold"), 3u) << before;

    auto kernel = testJit().compile(f);
    std::vector<float> a(4 * 16), b(16 * 60), c(4 * 60, -1.0f);
    for (std::size_t x = 0; x < a.size(); ++x)
        a[x] = static_cast<float>(x % 7) - 3.0f;
    for (std::size_t x = 0; x < b.size(); ++x)
        b[x] = static_cast<float>(x % 5) - 2.0f;
    void* buffers[] = {a.data(), b.data(), c.data()};
    kernel->run(buffers, nullptr);
    for (int row = 0; row < 4; ++row)
        for (int col = 0; col < 60; ++col) {
            float want = 0;
            for (int kk = 0; kk < 16; ++kk)
                want += a[row * 16 + kk] * b[kk * 60 + col];
            ASSERT_EQ(c[row * 60 + col], want) << row << ", " << col;
        }
}

TEST(CodegenLLVM, TheInnerLoopOfASplitIsVersionedPerOuterStep)
{
    Compiled c = lowerVariant("split columns");
    std::string before = unoptimizedIr(c.func);
    // 24 does not divide 64: the inner loop of the split guards its body on (outer step, inner
    // step). For a given outer step the guard holds throughout the inner loop if it holds at its
    // last step, so the inner loop is versioned there: all steps but the last outer one run it
    // without the guard.
    EXPECT_EQ(occurrences(before, "\nguards_hold"), 1u) << before;
    expectRight(c);
}

TEST(CodegenLLVM, AWideGuardedBodyIsNotCopied)
{
    Compiled c = lowerVariant("wide guarded body");
    std::string before = unoptimizedIr(c.func);
    // The reduction loop's body is 48 guarded rows of 64-lane multiply-adds (8 steps of k
    // unrolled, 6 rows unrolled): over 15,000 scalar operations. Copying it would double what
    // LLVM spends on it for a small gain, so it keeps its guards.
    EXPECT_EQ(before.find("guards_hold"), std::string::npos) << before;
    EXPECT_NE(before.find("if_then"), std::string::npos) << before;
}

TEST(CodegenLLVM, SmallStridedFillsAndCopiesStayLoops)
{
    for (const char* name : {"row fills", "block cache"}) {
        Compiled c = lowerVariant(name);
        std::string ir = emitCode(c.func, EmitKind::LLVMIR);
        // Rows of 32 floats (128 bytes, 256 bytes apart) are not turned into memsets, and the
        // copy of the write cache into C is not turned into memcpys.
        EXPECT_EQ(ir.find("@memcpy"), std::string::npos) << name;
        EXPECT_EQ(ir.find("@llvm.memcpy"), std::string::npos) << name;
        if (std::string(name) == "row fills") {
            EXPECT_EQ(ir.find("memset."), std::string::npos) << ir;
        }
        expectRight(c);
    }
}

TEST(CodegenLLVM, RowsOfASmallFillAreOneRolledLoopOfVectorStores)
{
    Compiled c = lowerVariant("row fills");
    std::string ir = emitCode(c.func, EmitKind::LLVMIR);
    // Each 128-byte row of C's init is four 32-byte stores, and the 32 rows stay a loop instead
    // of becoming 1,024 scalar stores that LLVM compares pairwise.
    EXPECT_EQ(occurrences(ir, "store <8 x float> zeroinitializer"), 4u) << ir;
    EXPECT_EQ(occurrences(ir, "!\"llvm.loop.unroll.disable\""), 1u) << ir;
    expectRight(c);
}

TEST(CodegenLLVM, RowsOfASmallCopyAreOneRolledLoopOfVectorCopies)
{
    Compiled c = lowerVariant("block cache");
    std::string ir = unoptimizedIr(c.func);
    // The write cache goes back to C row by row: four 32-byte loads and stores per row, in a
    // loop LLVM leaves rolled. (The computation itself is scalar before LLVM vectorizes it.)
    EXPECT_EQ(occurrences(ir, "load <8 x float>"), 4u) << ir;
    EXPECT_EQ(occurrences(ir, "store <8 x float>"), 4u) << ir;
    EXPECT_EQ(occurrences(ir, "!\"llvm.loop.unroll.disable\""), 1u) << ir;
    expectRight(c);
}

TEST(CodegenLLVM, RowsTheUserUnrollsAreNotKeptRolled)
{
    Compiled c = lowerVariant("unrolled rows");
    std::string ir = unoptimizedIr(c.func);
    // The init's row loop is an unroll loop (kept a loop by unroll_explicit=False): its rows are
    // still vector stores, but whether to unroll it is LLVM's call, not held back.
    EXPECT_EQ(occurrences(ir, "store <8 x float> zeroinitializer"), 4u) << ir;
    EXPECT_EQ(ir.find("llvm.loop.unroll.disable"), std::string::npos) << ir;
    expectRight(c);
}

TEST(CodegenLLVM, FillsOfAStackBufferAreLeftToLLVM)
{
    Compiled c = lowerVariant("local cache");
    std::string ir = unoptimizedIr(c.func);
    // The 4 x 8 local cache may live in registers, which needs LLVM to unroll its init itself.
    EXPECT_EQ(ir.find("llvm.loop.unroll.disable"), std::string::npos) << ir;
    EXPECT_EQ(ir.find("store <8 x float> zeroinitializer"), std::string::npos) << ir;
    expectRight(c);
}

TEST(CodegenLLVM, NonNegativeIndexArithmeticHasNoUnsignedWrap)
{
    Compiled c = lowerVariant("row fills");
    std::string ir = unoptimizedIr(c.func);
    // Loop counters start at 0 and count up; products and sums of them with positive constants
    // are flagged, so LLVM need not prove it.
    EXPECT_NE(ir.find("mul nuw nsw i64 %i_outer, 2048"), std::string::npos) << ir;
    EXPECT_NE(ir.find("add nuw nsw i64 %k_outer, 1"), std::string::npos) << ir;
    EXPECT_EQ(ir.find("add nsw i64 %k_outer, 1"), std::string::npos) << ir;
}

TEST(CodegenLLVM, ParallelBodyIsItsOwnFunction)
{
    Compiled c = lowerVariant("block cache");
    std::string ir = emitCode(c.func, EmitKind::LLVMIR);
    // The task unpacks the closure and calls the body, which keeps its noalias buffer arguments
    // and is optimized once, not again inside the task.
    EXPECT_NE(ir.find("void @main_parallel_0_body(i64 %0, i64 %1, ptr noalias"), std::string::npos)
        << ir;
    EXPECT_NE(ir.find("call fastcc void @main_parallel_0_body("), std::string::npos) << ir;
    expectRight(c);
}

TEST(CodegenLLVM, PackedEntryCallsTheFunctionInsteadOfCopyingIt)
{
    EvalResult r = evaluateScript(R"(import tvm
from tvm import te
A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
s = te.create_schedule(B.op)
)");
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    std::string ir =
        emitCode(lowerSchedule(v.schedule(), v.args, v.funcName).func, EmitKind::LLVMIR);
    // The loops are optimized and compiled once: the packed entry only unpacks its arguments and
    // calls the function. (LLVM would inline a body this small, which then took twice as long.)
    std::size_t packed = ir.find("define void @main_packed(");
    ASSERT_NE(packed, std::string::npos) << ir;
    std::string entry = ir.substr(packed, ir.find("\n}", packed) - packed);
    EXPECT_NE(entry.find("call void @main("), std::string::npos) << entry;
    EXPECT_EQ(entry.find("br "), std::string::npos) << entry;
}

// The JIT generates machine code as exported objects do: a multiply feeding an add is one fused
// multiply-add (rounded once), on a host that has the instruction.
TEST(CodegenLLVM, JitCodeFusesMultiplyAdd)
{
    if (hostTarget().features.find("+fma") == std::string::npos)
        GTEST_SKIP() << "the host has no FMA";
    EvalResult r = evaluateScript(R"(import tvm
from tvm import te
A = te.placeholder((64,), name="A")
B = te.placeholder((64,), name="B")
C = te.placeholder((64,), name="C")
D = te.compute((64,), lambda i: A[i] * B[i] + C[i], name="D")
s = te.create_schedule(D.op)
)");
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    auto kernel = testJit().compile(lowerSchedule(v.schedule(), v.args, v.funcName).func);
    // (1 + 2^-12)^2 - 1 is 2^-11 + 2^-24 exactly; rounding the product first loses the 2^-24.
    const float a = 1.0f + std::ldexp(1.0f, -12);
    std::vector<float> av(64, a), bv(64, a), cv(64, -1.0f), dv(64, 0.0f);
    void* buffers[] = {av.data(), bv.data(), cv.data(), dv.data()};
    kernel->run(buffers, nullptr);
    EXPECT_EQ(dv[0], std::fma(a, a, -1.0f));
    EXPECT_EQ(dv[63], std::ldexp(1.0f, -11) + std::ldexp(1.0f, -24));
}

// The parts of a TVM target string that choose the machine code; the rest is recorded only.
TEST(CodegenLLVM, TargetStringsNameACpuAndItsFeatures)
{
    EXPECT_TRUE(parseTarget("llvm").isHost());
    EXPECT_TRUE(parseTarget("llvm -num-cores=2 -opt-level=3").isHost());
    EXPECT_TRUE(parseTarget("llvm -mcpu=native").isHost());
    TargetChoice c =
        parseTarget("llvm -mcpu=znver4 -mattr=avx512f,-avx512bw,+fma -mtriple=x86_64-linux-gnu");
    EXPECT_EQ(c.cpu, "znver4");
    EXPECT_EQ(c.attrs, (std::vector<std::string>{"+avx512f", "-avx512bw", "+fma"}));
    EXPECT_EQ(c.triple, "x86_64-linux-gnu");
    EXPECT_THROW(parseTarget("llvm -mtriple=aarch64-linux-gnu"), CodegenError);
    EXPECT_THROW(parseTarget("llvm -mtriple=x86_64-apple-darwin"), CodegenError); // not ELF
    EXPECT_THROW(parseTarget("llvm -mcpu znver4"), CodegenError);
    EXPECT_THROW(parseTarget("llvm -march=znver4"), CodegenError);
    EXPECT_THROW(parseTarget("llvm znver4"), CodegenError);
    EXPECT_NO_THROW(checkTarget("llvm -mcpu=znver4 -mattr=-avx512f"));
    EXPECT_NO_THROW(checkTarget("llvm -mattr=-avx2"));           // the host's features, changed
    EXPECT_NO_THROW(checkTarget("llvm -mattr=+prefer-256-bit")); // a tuning feature
    EXPECT_THROW(checkTarget("llvm -mcpu=pentium9"), CodegenError);
    EXPECT_THROW(checkTarget("llvm -mattr=+avx9000"), CodegenError);
}

// A parallel loop whose extent is a symbolic size its body does not use: the outlined body still
// receives the size (it bounds the range it is given).
TEST(CodegenLLVM, ParallelLoopOverASymbolicSize)
{
    EvalResult r = evaluateScript(R"(import tvm
from tvm import te
n = te.var("n")
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: A[i] * 2.0, name="B")
s = te.create_schedule(B.op)
s[B].parallel(B.op.axis[0])
)");
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    auto kernel = testJit().compile(lowerSchedule(v.schedule(), v.args, v.funcName).func);
    std::vector<float> a(1000), b(1000, 0.0f);
    for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = static_cast<float>(i);
    void* buffers[] = {a.data(), b.data()};
    std::int64_t sizes[] = {1000};
    kernel->run(buffers, sizes);
    for (std::size_t i = 0; i < b.size(); ++i)
        ASSERT_EQ(b[i], 2.0f * static_cast<float>(i)) << i;
}

TEST(CodegenLLVM, LanesAGuardDependsOnRunOnVectorsUnderMasks)
{
    Compiled c = lowerVariant("guarded vector columns");
    // 24 does not divide 64: the vectorized columns are guarded lane by lane, which TVM (and the
    // lowered loop nest) runs as a serial loop over the lanes.
    std::string tir = printTVMScript(c.func);
    EXPECT_NE(tir.find("for j_inner_init_s in range(24):"), std::string::npos) << tir;
    EXPECT_NE(tir.find("for k, j_inner_s in T.grid(16, 24):"), std::string::npos) << tir;
    std::string before = unoptimizedIr(c.func);
    // The first two blocks of columns run without the guards (see versionOnGuards), on plain
    // vectors; the last one on vectors too, its 8 columns past the end masked off: the init's
    // store, the update's loads of C and B and its store (of 32 lanes, see maskedWidth).
    EXPECT_EQ(occurrences(before, "\nguards_hold"), 1u) << before;
    EXPECT_EQ(occurrences(before, "call void @llvm.masked.store.v32f32.p0("), 2u) << before;
    EXPECT_EQ(occurrences(before, "call <32 x float> @llvm.masked.load.v32f32.p0("), 2u) << before;
    EXPECT_EQ(before.find("for_j_inner_s"), std::string::npos) << before;

    auto kernel = testJit().compile(c.func);
    const int n = 64, kk = 16;
    std::vector<float> a(n * kk), b(kk * n), out(n * n + 24, -7.0f);
    for (std::size_t x = 0; x < a.size(); ++x)
        a[x] = static_cast<float>(x % 7) - 3.0f;
    for (std::size_t x = 0; x < b.size(); ++x)
        b[x] = static_cast<float>(x % 5) - 2.0f;
    void* buffers[] = {a.data(), b.data(), out.data()};
    kernel->run(buffers, nullptr);
    for (int row = 0; row < n; ++row)
        for (int col = 0; col < n; ++col) {
            float want = 0;
            for (int x = 0; x < kk; ++x)
                want += a[row * kk + x] * b[x * n + col];
            ASSERT_EQ(out[row * n + col], want) << row << ", " << col;
        }
    for (int x = n * n; x < n * n + 24; ++x)
        EXPECT_EQ(out[x], -7.0f) << "wrote past the end, at " << x;
}

// A loop over lanes in which a lane reads what another one writes keeps running lane by lane:
// A[j + 1] = A[j] + 1 carries each lane's result into the next.
TEST(CodegenLLVM, LanesThatReadEachOthersResultsStayALoop)
{
    Buffer a = flatBuffer("A", 16);
    Var j("j.s");
    Stmt store = makeBufferStore(a, {j + makeInt(1)},
                                 makeBufferLoad(a, {j}) + makeFloat(1.0, DataType::float32()));
    auto loop = std::make_shared<ForNode>(
        j, makeInt(0), makeInt(8), ForKind::Serial,
        makeIfThenElse(makeCall(DataType::boolean(), CallOp::Likely, {j < makeInt(5)}), store));
    loop->scalarizedLanes = true;
    PrimFunc f{"chain", {a}, loop};
    std::string before = unoptimizedIr(f);
    EXPECT_EQ(before.find("llvm.masked"), std::string::npos) << before;
    auto kernel = testJit().compile(f);
    std::vector<float> data(16, 0.0f);
    data[0] = 1.0f;
    void* buffers[] = {data.data()};
    kernel->run(buffers, nullptr);
    for (int x = 0; x <= 5; ++x)
        EXPECT_EQ(data[x], 1.0f + x) << x;
    EXPECT_EQ(data[6], 0.0f);
}

// The loop over `name` in `s`, or null.
const ForNode* findLoop(const Stmt& s, const std::string& name)
{
    struct Finder : IRVisitor {
        std::string name;
        const ForNode* found = nullptr;
        void visitFor(const ForNode* op) override
        {
            if (op->var.name() == name && !found) found = op;
            IRVisitor::visitFor(op);
        }
    } finder;
    finder.name = name;
    finder.visit(s);
    return finder.found;
}

// In the write cache's nest `for k.outer, i.c, k.inner, j.c: CC[i.c, j.c] += A[i, k] * B[k, j]`,
// a row i.c reads 4 x 32 floats of B that the next row reads again, and writes only the cache.
TEST(CodegenLLVM, InvariantLoadsAreWhatEachIterationReadsAgain)
{
    Compiled c = lowerVariant("block cache");
    auto loadsOf = [&](const char* loop) {
        const ForNode* f = findLoop(c.func.body, loop);
        EXPECT_NE(f, nullptr) << loop;
        return f ? invariantLoads(f, 256) : std::nullopt;
    };
    auto row = loadsOf("i.c");
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->bytes, 4 * 32 * 4);
    ASSERT_EQ(row->written.size(), 1u);
    EXPECT_EQ(row->written[0]->name, "C.global");
    EXPECT_FALSE(row->allocates);
    EXPECT_EQ(loadsOf("k.inner").value().bytes, 0); // A and B both move with k
    EXPECT_EQ(loadsOf("j.c").value().bytes, 4);     // one element of A
    // 32 x 4 x 32 inner iterations are no straight-line body.
    EXPECT_FALSE(loadsOf("k.outer").has_value());
}

// A value changes with the loop when it depends on its counter through a let, through an inner
// loop's bounds, or through a load from a buffer the body writes.
TEST(CodegenLLVM, InvariantLoadsFollowLetsBoundsAndLoadedIndices)
{
    auto a = flatBuffer("A", 256), out = flatBuffer("Out", 256);
    auto idx = flatBuffer("Idx", 8, DataType::int32());
    Var i("i"), j("j"), t("t"), u("u");
    auto store = [&](Expr value) { return makeBufferStore(out, {i * makeInt(8) + j}, value); };
    auto count = [&](const Stmt& body) {
        auto loop = makeFor(i, makeInt(0), makeInt(16), ForKind::Serial, body);
        return invariantLoads(loop.as<ForNode>(), 256).value().bytes;
    };
    // A[j] over 8 values of j: 32 bytes, whatever i is. Through a let of an inner variable: the
    // same.
    EXPECT_EQ(
        count(makeFor(j, makeInt(0), makeInt(8), ForKind::Serial, store(makeBufferLoad(a, {j})))),
        32);
    EXPECT_EQ(count(makeFor(j, makeInt(0), makeInt(8), ForKind::Serial,
                            makeLetStmt(t, j + makeInt(3), store(makeBufferLoad(a, {t}))))),
              32);
    // A let chain from i: nothing is read again.
    EXPECT_EQ(count(makeLetStmt(t, i * makeInt(2),
                                makeLetStmt(u, t + makeInt(1), store(makeBufferLoad(a, {u}))))),
              0);
    // An inner loop starting at i * 8.
    EXPECT_EQ(count(makeFor(j, i * makeInt(8), makeInt(8), ForKind::Serial,
                            store(makeBufferLoad(a, {j})))),
              0);
    // An index loaded from a buffer the body writes.
    Stmt indirect =
        makeSeq({makeBufferStore(idx, {makeInt(0)}, i),
                 makeFor(j, makeInt(0), makeInt(8), ForKind::Serial,
                         store(makeBufferLoad(a, {makeBufferLoad(idx, {makeInt(0)})})))});
    EXPECT_EQ(count(indirect), 0);
    // A buffer allocated in the body is said so.
    auto tmp = flatBuffer("tmp", 8);
    auto loop = makeFor(
        i, makeInt(0), makeInt(16), ForKind::Serial,
        makeAllocate(tmp, makeBufferStore(tmp, {makeInt(0)}, makeBufferLoad(a, {makeInt(0)}))));
    auto withAllocation = invariantLoads(loop.as<ForNode>(), 256);
    ASSERT_TRUE(withAllocation.has_value());
    EXPECT_TRUE(withAllocation->allocates);
    EXPECT_EQ(withAllocation->bytes, 4);
}

// That row loop would have LLVM keep 16 vectors of B in AVX2's 16 registers: it is not
// unrolled there, and neither are the loops around it, which would only copy it. The loops
// inside it are LLVM's. With AVX-512's 32 registers all are left to LLVM.
TEST(CodegenLLVM, ALoopReadingMoreThanHalfTheRegistersAgainStaysRolled)
{
    Compiled c = lowerVariant("block cache");
    std::string avx2 = emitCode(c.func, EmitKind::UnoptimizedLLVMIR, "llvm -mcpu=znver3");
    std::string avx512 = emitCode(c.func, EmitKind::UnoptimizedLLVMIR, "llvm -mcpu=znver4");
    for (const char* loop : {"i_c", "k_outer", "j_outer", "i_outer"}) {
        std::string latch = std::string("br label %for_") + loop + ", !llvm.loop";
        EXPECT_NE(avx2.find(latch), std::string::npos) << loop << "\n" << avx2;
        EXPECT_EQ(avx512.find(latch), std::string::npos) << loop << "\n" << avx512;
    }
    for (const char* loop : {"k_inner", "j_c"}) {
        std::string latch = std::string("br label %for_") + loop + ", !llvm.loop";
        EXPECT_EQ(avx2.find(latch), std::string::npos) << loop << "\n" << avx2;
    }
    expectRight(c);
}

// A 16 x 32 local cache (2 KB) fits AVX-512's registers, not AVX2's: only there may LLVM unroll
// the rows to promote it, and on AVX2 its row loop is kept rolled like a cache in memory.
TEST(CodegenLLVM, ALocalCacheTooLargeForTheRegistersDoesNotKeepItsLoopUnrollable)
{
    Compiled c = lowerVariant("local block cache");
    const std::string latch = "br label %for_i_c, !llvm.loop";
    std::string avx2 = emitCode(c.func, EmitKind::UnoptimizedLLVMIR, "llvm -mcpu=znver3");
    std::string avx512 = emitCode(c.func, EmitKind::UnoptimizedLLVMIR, "llvm -mcpu=znver4");
    EXPECT_NE(avx2.find(latch), std::string::npos) << avx2;
    EXPECT_EQ(avx512.find(latch), std::string::npos) << avx512;
    expectRight(c);
}

// A vector load at a wide stride is one gather where the target's gathers are fast (AVX-512),
// and lane by lane where they are not (AVX2 on AMD cores).
TEST(CodegenLLVM, AStridedVectorLoadIsAGatherWhereGathersAreFast)
{
    auto a = flatBuffer("A", 128), b = flatBuffer("B", 16);
    Stmt body = makeBufferStore(b, {makeRamp(makeInt(0), makeInt(1), 16)},
                                makeBufferLoad(a, {makeRamp(makeInt(3), makeInt(8), 16)}));
    PrimFunc f{"strided", {a, b}, body};
    EXPECT_NE(emitCode(f, EmitKind::UnoptimizedLLVMIR, "llvm -mcpu=znver4")
                  .find("@llvm.masked.gather.v16f32"),
              std::string::npos);
    std::string avx2 = emitCode(f, EmitKind::UnoptimizedLLVMIR, "llvm -mcpu=znver3");
    EXPECT_EQ(avx2.find("gather"), std::string::npos) << avx2;
    EXPECT_EQ(occurrences(avx2, "load float"), 16u) << avx2;
    auto kernel = testJit().compile(f);
    std::vector<float> in(128), out(16, 0.0f);
    for (int x = 0; x < 128; ++x)
        in[x] = static_cast<float>(x);
    void* buffers[] = {in.data(), out.data()};
    kernel->run(buffers, nullptr);
    for (int x = 0; x < 16; ++x)
        EXPECT_EQ(out[x], 3.0f + 8 * x) << x;
}

// A vector load at a stride of 2 to 4 (a stride-2 convolution's input along x) is one load of
// the elements from the first lane's to the last's and a shuffle, on every target: no element
// past the last lane's is read (the ramps end at the buffers' last elements, which the
// sanitizers' build would catch).
TEST(CodegenLLVM, ASmallStrideIsOneLoadAndAShuffle)
{
    for (int stride : {2, 3, 4}) {
        SCOPED_TRACE(stride);
        const int n = 15 * stride + 1 + 5; // the ramp starts at 5 and ends at the last element
        auto a = flatBuffer("A", n), b = flatBuffer("B", 16);
        Stmt body = makeBufferStore(b, {makeRamp(makeInt(0), makeInt(1), 16)},
                                    makeBufferLoad(a, {makeRamp(makeInt(5), makeInt(stride), 16)}));
        PrimFunc f{"strided", {a, b}, body};
        for (const char* target : {"llvm -mcpu=znver3", "llvm -mcpu=znver4"}) {
            std::string ir = emitCode(f, EmitKind::UnoptimizedLLVMIR, target);
            EXPECT_NE(ir.find("load <" + std::to_string(15 * stride + 1) + " x float>"),
                      std::string::npos)
                << ir;
            EXPECT_NE(ir.find("shufflevector"), std::string::npos) << ir;
            EXPECT_EQ(ir.find("gather"), std::string::npos) << ir;
        }
        auto kernel = testJit().compile(f);
        std::vector<float> in(static_cast<std::size_t>(n)), out(16, 0.0f);
        for (int x = 0; x < n; ++x)
            in[static_cast<std::size_t>(x)] = static_cast<float>(x);
        void* buffers[] = {in.data(), out.data()};
        kernel->run(buffers, nullptr);
        for (int x = 0; x < 16; ++x)
            EXPECT_EQ(out[static_cast<std::size_t>(x)], 5.0f + static_cast<float>(stride * x)) << x;
    }
}

// Lanes that all read one address (a broadcast index, or a ramp of stride 0) load it once.
TEST(CodegenLLVM, LanesReadingOneAddressLoadItOnce)
{
    auto a = flatBuffer("A", 64), b = flatBuffer("B", 32);
    Stmt body =
        makeSeq({makeBufferStore(b, {makeRamp(makeInt(0), makeInt(1), 16)},
                                 makeBufferLoad(a, {makeBroadcast(makeInt(5), 16)})),
                 makeBufferStore(b, {makeRamp(makeInt(16), makeInt(1), 16)},
                                 makeBufferLoad(a, {makeRamp(makeInt(7), makeInt(0), 16)}))});
    PrimFunc f{"same", {a, b}, body};
    for (const char* target : {"llvm -mcpu=znver3", "llvm -mcpu=znver4"}) {
        std::string ir = emitCode(f, EmitKind::UnoptimizedLLVMIR, target);
        EXPECT_EQ(occurrences(ir, "load float"), 2u) << ir;
        EXPECT_EQ(ir.find("gather"), std::string::npos) << ir;
    }
    auto kernel = testJit().compile(f);
    std::vector<float> in(64), out(32, 0.0f);
    for (int x = 0; x < 64; ++x)
        in[x] = static_cast<float>(x);
    void* buffers[] = {in.data(), out.data()};
    kernel->run(buffers, nullptr);
    for (int x = 0; x < 32; ++x)
        EXPECT_EQ(out[x], x < 16 ? 5.0f : 7.0f) << x;
}

// gemm_best's 4 x 16 write cache in `local` scope ends up in registers: LLVM replaces its stack
// slot with four 16-float values (two AVX2 registers each) carried around the loop over k, and
// the numbers are right.
TEST(CodegenLLVM, GemmBestsLocalWriteCacheEndsUpInRegisters)
{
    const std::string text = readSourceFile("samples/gemm_best.py");
    EvalResult r = evaluateScript(text, {{"M", 128}, {"N", 128}, {"K", 96}});
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.at(0);
    PrimFunc f = lowerSchedule(v.schedule(), v.args, v.funcName).func;
    std::string before = unoptimizedIr(f);
    EXPECT_NE(before.find("alloca float, i64 64,"), std::string::npos) << before;
    std::string ir = emitCode(f, EmitKind::LLVMIR, "llvm -mcpu=znver3");
    // What is left on the stack: packed B (12,288 floats) and the parallel loop's closure.
    EXPECT_EQ(occurrences(ir, " = alloca "), 2u) << ir;
    EXPECT_NE(ir.find("alloca [12288 x float]"), std::string::npos) << ir;
    EXPECT_EQ(occurrences(ir, "phi <16 x float>"), 4u) << ir;
    auto run = PreparedRun::prepare(r.program, v, testRunConfig());
    run->run();
    for (auto& out : run->check())
        EXPECT_TRUE(out.result.ok) << out.tensor << ": " << out.result.firstMismatch;
}

// A run is compiled for the host CPU whatever the script's target says; it notes that only when
// the target names something else than the host.
TEST(CodegenLLVM, ARunNotesATargetOnlyWhenItIsNotTheHost)
{
    auto notesFor = [](const std::string& target) {
        EvalResult r = evaluateScript("A = te.placeholder((8,), name=\"A\")\n"
                                      "B = te.compute((8,), lambda i: A[i] + 1.0, name=\"B\")\n"
                                      "s = te.create_schedule(B.op)\n"
                                      "f = tvm.build(s, [A, B], target=\"" +
                                      target + "\")\n");
        EXPECT_TRUE(r.ok) << r.error.message;
        auto run = PreparedRun::prepare(r.program, r.program.variants.front(), testRunConfig());
        return run->notes();
    };
    const std::string host = hostTarget().cpu;
    EXPECT_TRUE(notesFor("llvm").empty());
    // The host's CPU by name is the host where it has all of that CPU's features.
    EXPECT_EQ(notesFor("llvm -mcpu=" + host).empty(), targetIsHost("llvm -mcpu=" + host));
    const std::string other = host == "skylake-avx512" ? "znver4" : "skylake-avx512";
    EXPECT_EQ(notesFor("llvm -mcpu=" + other).size(), 1u);
    EXPECT_EQ(notesFor("llvm -mcpu=" + host + " -mattr=-avx2").size(), 1u);
}

// exp of float32 vectors is computed in the vector's lanes (no libm call per lane), within two
// units in the last place of the true value wherever that is a normal float, and exactly at the
// edges: infinite past 88.72, zero far below, NaN for NaN. A scalar exp stays libm's (which
// LLVM's own vectorizer may call on vectors), held to the same.
TEST(CodegenLLVM, ExpOfAVectorIsComputedInItsLanes)
{
    constexpr int n = 4096;
    EvalResult r = evaluateScript(R"(import tvm
from tvm import te
A = te.placeholder((4096,), name="A")
B = te.compute((4096,), lambda i: te.exp(A[i]), name="B")

# variant: vector
s = te.create_schedule(B.op)
io, ii = s[B].split(B.op.axis[0], factor=16)
s[B].vectorize(ii)

# variant: scalar
s = te.create_schedule(B.op)
)");
    ASSERT_TRUE(r.ok) << r.error.message;
    std::vector<float> in(n);
    for (int x = 0; x < n; ++x)
        in[x] = -100.0f + 200.0f * static_cast<float>(x) / n;
    const float inf = std::numeric_limits<float>::infinity();
    in[0] = inf;
    in[1] = -inf;
    in[2] = std::numeric_limits<float>::quiet_NaN();
    in[3] = 0.0f;
    in[4] = 88.72f;
    in[5] = 1e-8f;
    for (const char* name : {"vector", "scalar"}) {
        SCOPED_TRACE(name);
        const Variant* v = nullptr;
        for (auto& candidate : r.program.variants)
            if (candidate.name == name) v = &candidate;
        ASSERT_NE(v, nullptr);
        PrimFunc f = lowerSchedule(v->schedule(), v->args, v->funcName).func;
        const std::string ir = emitCode(f, EmitKind::LLVMIR, "llvm -mcpu=znver4");
        if (std::string(name) == "vector") EXPECT_EQ(ir.find("exp"), std::string::npos) << ir;
        auto kernel = testJit().compile(f);
        std::vector<float> out(n, -1.0f);
        void* buffers[] = {in.data(), out.data()};
        kernel->run(buffers, nullptr);
        EXPECT_EQ(out[0], inf);
        EXPECT_EQ(out[1], 0.0f);
        EXPECT_TRUE(std::isnan(out[2]));
        EXPECT_EQ(out[3], 1.0f);
        for (int x = 4; x < n; ++x) {
            const double want = std::exp(static_cast<double>(in[x]));
            if (want < std::numeric_limits<float>::min()) {
                EXPECT_LE(out[x], std::numeric_limits<float>::min()) << in[x];
            } else if (want > std::numeric_limits<float>::max()) {
                EXPECT_EQ(out[x], inf) << in[x];
            } else {
                EXPECT_LE(std::fabs(out[x] - want) / want, 2.4e-7) << "exp(" << in[x] << ")";
            }
        }
    }
}

// A vector load whose lanes are runs of contiguous elements (32 columns of weights in panels of
// 16: j // 16 * K * 16 + j % 16) is one vector load per run, not a gather, also where the index
// is a vector let; the numbers are right.
TEST(CodegenLLVM, AVectorOfContiguousRunsIsOneLoadPerRun)
{
    auto a = flatBuffer("A", 400), b = flatBuffer("B", 32);
    auto bc = [](std::int64_t v) { return makeBroadcast(makeInt(v), 32); };
    const Expr lanes = makeRamp(makeInt(0), makeInt(1), 32);
    const Expr index =
        makeBinary(ExprKind::Add,
                   makeBinary(ExprKind::Add, bc(7),
                              makeBinary(ExprKind::Mul,
                                         makeBinary(ExprKind::FloorDiv, lanes, bc(16)), bc(100))),
                   makeBinary(ExprKind::FloorMod, lanes, bc(16)));
    Var at("at", DataType::int32().withLanes(32));
    Stmt body = makeLetStmt(
        at, index,
        makeBufferStore(b, {makeRamp(makeInt(0), makeInt(1), 32)}, makeBufferLoad(a, {at})));
    PrimFunc f{"runs", {a, b}, body};
    for (const char* target : {"llvm -mcpu=znver3", "llvm -mcpu=znver4"}) {
        std::string ir = emitCode(f, EmitKind::UnoptimizedLLVMIR, target);
        EXPECT_EQ(ir.find("gather"), std::string::npos) << ir;
        EXPECT_EQ(occurrences(ir, "load <16 x float>"), 2u) << ir;
    }
    auto kernel = testJit().compile(f);
    std::vector<float> in(400), out(32, 0.0f);
    for (int x = 0; x < 400; ++x)
        in[x] = static_cast<float>(x);
    void* buffers[] = {in.data(), out.data()};
    kernel->run(buffers, nullptr);
    for (int x = 0; x < 32; ++x)
        EXPECT_EQ(out[x], static_cast<float>(7 + x / 16 * 100 + x % 16)) << x;
}

extern "C" {
void* loopscope_alloc(std::int64_t bytes);
void loopscope_free(void* p);
}

// A large temporary of generated code is taken from the blocks the thread freed last where one
// has its size (its pages are mapped and touched already), 64-byte aligned; others are new.
TEST(CodegenLLVM, WorkspacesOfTheSameSizeAreReused)
{
    void* a = loopscope_alloc(1 << 20);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 64, 0u);
    static_cast<char*>(a)[(1 << 20) - 1] = 1; // all of it is ours
    loopscope_free(a);
    void* b = loopscope_alloc(1 << 20);
    EXPECT_EQ(b, a);
    void* c = loopscope_alloc(1 << 20); // while b is in use: another block
    EXPECT_NE(c, b);
    void* d = loopscope_alloc(3 << 20);
    EXPECT_NE(d, b);
    EXPECT_NE(d, c);
    for (void* p : {b, c, d})
        loopscope_free(p);
    loopscope_free(nullptr);
}
