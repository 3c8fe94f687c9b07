// TE schedules as tir.Schedule calls (export/TensorIRTranslation.h): every CPU sample's variants
// translate, and what a user gets (the export for TVM 0.20 or 0.26, read back by Loopscope) is a
// TensorIR variant with the TE schedule's loop nest; what has no translation is refused at its
// step with the reason.
#include "explore/TensorIRTranslation.h"
#include "export/Export.h"
#include "export/TensorIRScript.h"
#include "export/TvmScript.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "support/SourceFiles.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace fs = std::filesystem;
using namespace loopscope;

namespace {

std::string beforeMarker(const std::string& text)
{
    auto at = text.find(std::string("\n") + kTvmRunMarker + "\n");
    return at == std::string::npos ? text : text.substr(0, at + 1);
}

std::string sample(const std::string& name)
{
    return readSourceFile((fs::path(LOOPSCOPE_SOURCE_DIR) / name).string());
}

Stmt lowered(const Variant& v)
{
    return lowerSchedule(v.schedule(), v.args, v.funcName).func.body;
}

// Exports each variant for `release` and reads the export back: one TensorIR variant, scheduled
// with tir.Schedule, whose loop nest is the TE variant's.
void exportsReadBackWithTheSameLoopNest(const std::string& file, const std::string& release,
                                        const std::map<std::string, std::int64_t>& sizes = {})
{
    const std::string text = sample(file);
    EvalResult r = evaluateScript(text, sizes);
    ASSERT_TRUE(r.ok) << file << ": " << r.error.message;
    for (const Variant& v : r.program.variants) {
        SCOPED_TRACE(file + " [" + v.name + "] for TVM " + release);
        ExportOptions o;
        o.format = "tvm";
        o.tvmRelease = release;
        o.sourceName = file;
        std::string exported;
        try {
            exported = exportVariant(text, r.program, v, o).text;
        } catch (const UserError& e) {
            ADD_FAILURE() << "not exported: " << e.what();
            continue;
        }
        EXPECT_NE(exported.find("te.create_prim_func(["), std::string::npos);
        EvalResult back = evaluateScript(beforeMarker(exported));
        ASSERT_TRUE(back.ok) << back.error.loc.line << ": " << back.error.message << "\n"
                             << exported;
        ASSERT_EQ(back.program.variants.size(), 1u);
        const Variant& tir = back.program.variants.front();
        ASSERT_NE(tir.schedule().tensorIR(), nullptr);
        EXPECT_EQ(tir.name, v.name);
        EXPECT_EQ(loopNestDifference(lowered(v), lowered(tir)), "") << exported;
    }
}

TEST(TensorIRTranslation, EveryCpuSampleExportsForTodaysTvmWithItsLoopNest)
{
    const std::map<std::string, std::int64_t> small = {{"M", 128}, {"N", 128}, {"K", 128}};
    for (const char* file : {"samples/add_relu.py", "samples/batch_matmul.py", "samples/conv2d.py",
                             "samples/conv2d_blocked.py", "samples/conv2d_nchwc.py",
                             "samples/gemm_best.py", "samples/softmax.py", "samples/transpose.py"})
        exportsReadBackWithTheSameLoopNest(file, "0.26");
    exportsReadBackWithTheSameLoopNest("samples/opt_gemm.py", "0.26", small);
    exportsReadBackWithTheSameLoopNest("samples/matmul_ladder.py", "0.20", small);
}

TEST(TensorIRTranslation, GpuTilesInSharedMemoryTranslate)
{
    exportsReadBackWithTheSameLoopNest("samples/gpu/add_relu_cuda.py", "0.26");
    const std::string text = sample("samples/gpu/matmul_cuda.py");
    EvalResult r = evaluateScript(text, {{"N", 256}});
    ASSERT_TRUE(r.ok) << r.error.message;
    for (const char* name : {"bind", "2-D blocks", "shared tiles"}) {
        SCOPED_TRACE(name);
        const TirTranslation t =
            translateToTensorIR(*r.program.findVariant(name), TirSpelling::Tvm026);
        EXPECT_TRUE(t.ok) << t.error.message;
    }
    const TirTranslation t =
        translateToTensorIR(*r.program.findVariant("shared tiles"), TirSpelling::Tvm026);
    std::string all;
    for (const std::string& s : t.statements)
        all += s + "\n";
    EXPECT_NE(all.find(" = sch.cache_read(b_C, 0, \"shared\")"), std::string::npos) << all;
    EXPECT_NE(all.find("sch.bind("), std::string::npos) << all;
    EXPECT_NE(all.find("\"threadIdx.x\")"), std::string::npos) << all;
}

// The tutorial's write cache, call by call: the copy block cache_write makes is where TE's C
// (now the copy) is split, and the block that computes moves into its loop.
TEST(TensorIRTranslation, AWriteCacheBecomesTheCopyBlockAndComputeAt)
{
    const std::string text = sample("samples/opt_gemm.py");
    EvalResult r = evaluateScript(text, {{"M", 128}, {"N", 128}, {"K", 128}});
    ASSERT_TRUE(r.ok);
    const Variant& v = *r.program.findVariant("write cache");
    const TirTranslation t = translateToTensorIR(v, TirSpelling::Tvm020, v.names);
    ASSERT_TRUE(t.ok) << t.error.message;
    const std::vector<std::string> expected = {
        "b_C = sch.get_block(\"C\")",
        "b_C_global = sch.cache_write(b_C, 0, \"global\")",
        "m, n = sch.get_loops(b_C_global)",
        "m_outer, m_inner = sch.split(m, factors=[None, 32])",
        "n_outer, n_inner = sch.split(n, factors=[None, 32])",
        "sch.reorder(n_outer, m_inner)",
        "sch.compute_at(b_C, n_outer, preserve_unit_loops=True)",
        "*_, m_c, n_c, k_loop = sch.get_loops(b_C)",
        "k_outer, k_inner = sch.split(k_loop, factors=[None, 4])",
        "sch.reorder(k_outer, m_c, k_inner, n_c)",
        "sch.vectorize(n_c)",
        "sch.unroll(k_inner)",
        "b_packedB = sch.get_block(\"packedB\")",
        "bigN_loop, k_loop2, littleN_loop = sch.get_loops(b_packedB)",
        "sch.vectorize(littleN_loop)",
        "sch.parallel(bigN_loop)",
        "# C.global's init before its first reduction loop, where TE puts it",
        "sch.decompose_reduction(b_C, k_outer)",
    };
    EXPECT_EQ(t.statements, expected);
    // Each call names the TE step it carries out: cache_write is the first step, the tile the
    // second, compute_at the third; the decomposition is TE's own doing.
    ASSERT_EQ(t.stepOf.size(), expected.size());
    EXPECT_EQ(v.steps[static_cast<std::size_t>(t.stepOf[1])].primitive, "cache_write");
    EXPECT_EQ(v.steps[static_cast<std::size_t>(t.stepOf[3])].primitive, "tile");
    EXPECT_EQ(v.steps[static_cast<std::size_t>(t.stepOf[6])].primitive, "compute_at");
    EXPECT_EQ(t.stepOf.back(), -1);
}

TEST(TensorIRTranslation, WhatHasNoCounterpartIsRefusedAtItsStep)
{
    const std::string script = R"(import tvm
from tvm import te
n = 64
A = te.placeholder((n, n), name="A")
k = te.reduce_axis((0, n), name="k")
B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
C = te.compute((n,), lambda i: B[i] + A[i, 0], name="C")
D = te.compute((n,), lambda i: A[i, 1] * 2.0, name="D")

# variant: rfactor
s = te.create_schedule([C.op, D.op])
ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
BF = s.rfactor(B, ki)

# variant: cache for one reader
s = te.create_schedule([C.op, D.op])
AA = s.cache_read(A, "global", [C])
)";
    EvalResult r = evaluateScript(script);
    ASSERT_TRUE(r.ok) << r.error.message;
    const TirTranslation rf =
        translateToTensorIR(*r.program.findVariant("rfactor"), TirSpelling::Tvm026);
    EXPECT_FALSE(rf.ok);
    EXPECT_EQ(rf.error.loc.line, 13);
    EXPECT_NE(rf.error.message.find("rfactor"), std::string::npos) << rf.error.message;
    const TirTranslation cr =
        translateToTensorIR(*r.program.findVariant("cache for one reader"), TirSpelling::Tvm026);
    EXPECT_FALSE(cr.ok);
    EXPECT_EQ(cr.error.loc.line, 17);
    EXPECT_NE(cr.error.message.find("consumer_blocks"), std::string::npos) << cr.error.message;
    // The export says the same, at the same line.
    ExportOptions o;
    o.format = "tvm";
    o.tvmRelease = "0.26";
    try {
        exportVariant(script, r.program, *r.program.findVariant("rfactor"), o);
        ADD_FAILURE() << "an rfactor exported for TVM 0.26";
    } catch (const UserError& e) {
        EXPECT_EQ(e.loc().line, 13);
        EXPECT_NE(e.message().find("export for TVM 0.26"), std::string::npos) << e.message();
    }
}

// A pragma is an annotation of the loop, "pragma_" before its name.
TEST(TensorIRTranslation, APragmaBecomesALoopAnnotation)
{
    const std::string head = R"(import tvm
from tvm import te
A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
s = te.create_schedule(B.op)
i, j = s[B].op.axis
jo, ji = s[B].split(j, factor=4)
)";
    EvalResult r = evaluateScript(head + "s[B].pragma(jo, \"unroll_explicit\", 1)\n" +
                                  "s[B].pragma(i, \"auto_unroll_max_step\", 16)\n");
    ASSERT_TRUE(r.ok) << r.error.message;
    const TirTranslation t = translateToTensorIR(r.program.variants[0], TirSpelling::Tvm020);
    ASSERT_TRUE(t.ok) << t.error.message;
    std::string all;
    for (const std::string& st : t.statements)
        all += st + "\n";
    EXPECT_NE(all.find("sch.annotate(j_outer, \"pragma_unroll_explicit\", 1)"), std::string::npos)
        << all;
    EXPECT_NE(all.find("sch.annotate(i, \"pragma_auto_unroll_max_step\", 16)"), std::string::npos)
        << all;
    // One without a value has TE's value 1.
    EvalResult bare = evaluateScript(head + "s[B].pragma(jo, \"parallel_launch_point\")\n");
    ASSERT_TRUE(bare.ok) << bare.error.message;
    const TirTranslation u = translateToTensorIR(bare.program.variants[0], TirSpelling::Tvm020);
    ASSERT_TRUE(u.ok) << u.error.message;
    EXPECT_EQ(u.statements.back(), "sch.annotate(j_outer, \"pragma_parallel_launch_point\", 1)");
}

// The check that proves each translation: it sees a loop of another extent, kind or nesting.
TEST(TensorIRTranslation, LoopNestDifferenceSeesWhatDiffers)
{
    const std::string text = sample("samples/matmul_ladder.py");
    EvalResult r = evaluateScript(text, {{"M", 64}, {"N", 64}, {"K", 64}});
    ASSERT_TRUE(r.ok);
    const Stmt naive = lowered(*r.program.findVariant("naive"));
    const Stmt tiled = lowered(*r.program.findVariant("tile 32x32"));
    const Stmt vectorized = lowered(*r.program.findVariant("vectorize"));
    const Stmt parallel = lowered(*r.program.findVariant("parallel"));
    EXPECT_EQ(loopNestDifference(naive, naive), "");
    EXPECT_NE(loopNestDifference(naive, tiled), "");
    EXPECT_NE(loopNestDifference(vectorized, parallel), "");
    EXPECT_NE(loopNestDifference(parallel, vectorized).find("parallel"), std::string::npos)
        << loopNestDifference(parallel, vectorized);
}

} // namespace

namespace {

// The whole script converted: the declarations as written, each variant's schedule as calls,
// and read back, every variant with its TE loop nest (convertToTensorIR checks each).
TEST(TensorIRConversion, TheGemmTutorialConvertsWhole)
{
    const std::string text = sample("samples/opt_gemm.py");
    EvalResult r = evaluateScript(text, {{"M", 128}, {"N", 128}, {"K", 128}});
    ASSERT_TRUE(r.ok);
    const ConvertedScript c = convertToTensorIR(text, r.program, TirSpelling::Tvm026);
    EXPECT_TRUE(c.allConverted());
    ASSERT_EQ(c.variants.size(), r.program.variants.size());
    for (const ConvertedVariant& v : c.variants) {
        EXPECT_TRUE(v.converted) << v.name << ": " << v.calls.error.message;
        EXPECT_EQ(v.checkError, "") << v.name;
    }
    EXPECT_EQ(c.text.find("create_schedule"), std::string::npos) << c.text;
    EXPECT_EQ(c.text.find("tvm.tir."), std::string::npos) << c.text;
    EXPECT_NE(c.text.find("tvm.tirx.indexmod(n, bn)"), std::string::npos);
    EXPECT_NE(c.text.find("func = tvm.tirx.build(sch.mod, target=\"llvm\")"), std::string::npos);
    // The declarations and the comments stay where they were.
    EXPECT_NE(c.text.find("# variant: write cache\n# Accumulate each 32x32 block"),
              std::string::npos);
    EvalResult back = evaluateScript(c.text, {{"M", 128}, {"N", 128}, {"K", 128}});
    ASSERT_TRUE(back.ok) << back.error.loc.line << ": " << back.error.message;
    for (const Variant& v : back.program.variants)
        EXPECT_NE(v.schedule().tensorIR(), nullptr) << v.name;
}

// A variant with no translation stays TE, under a comment that says why; the others convert.
TEST(TensorIRConversion, WhatCannotBeTranslatedStaysTeAndSaysWhy)
{
    const std::string text = R"(import tvm
from tvm import te
n = 64
A = te.placeholder((n, n), name="A")
k = te.reduce_axis((0, n), name="k")
B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")

# variant: split
s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)

# variant: rfactor
s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
BF = s.rfactor(B, ki)
s[BF].parallel(s[BF].op.axis[0])
)";
    EvalResult r = evaluateScript(text);
    ASSERT_TRUE(r.ok) << r.error.message;
    const ConvertedScript c = convertToTensorIR(text, r.program, TirSpelling::Tvm020);
    EXPECT_FALSE(c.allConverted());
    ASSERT_EQ(c.variants.size(), 2u);
    EXPECT_TRUE(c.variants[0].converted);
    EXPECT_EQ(c.variants[0].checkError, "");
    EXPECT_FALSE(c.variants[1].converted);
    EXPECT_EQ(c.variants[1].calls.error.loc.line, 15);
    EXPECT_NE(c.text.find("# Not converted to TensorIR (line 15): rfactor is not translated"),
              std::string::npos)
        << c.text;
    EXPECT_NE(c.text.find("BF = s.rfactor(B, ki)\n"), std::string::npos) << c.text;
    EvalResult back = evaluateScript(c.text);
    ASSERT_TRUE(back.ok) << back.error.loc.line << ": " << back.error.message;
    ASSERT_EQ(back.program.variants.size(), 2u);
    EXPECT_NE(back.program.variants[0].schedule().tensorIR(), nullptr);
    EXPECT_EQ(back.program.variants[1].schedule().tensorIR(), nullptr);
}

// Every GPU matmul of the tutorial, virtual threads and cooperative fetching included, has its
// TensorIR form.
TEST(TensorIRConversion, TheGpuMatmulTutorialConvertsWhole)
{
    const std::string text = sample("samples/gpu/matmul_cuda.py");
    EvalResult r = evaluateScript(text, {{"N", 256}});
    ASSERT_TRUE(r.ok);
    const ConvertedScript c = convertToTensorIR(text, r.program, TirSpelling::Tvm026);
    for (const ConvertedVariant& v : c.variants)
        EXPECT_TRUE(v.converted && v.checkError.empty())
            << v.name << ": " << v.calls.error.message << v.checkError;
    EXPECT_NE(c.text.find("\"vthread.x\")"), std::string::npos);
}

} // namespace

namespace {

// The TensorIR samples made by `convert` still give each variant the loop nest of the TE sample
// they were made from.
TEST(TensorIRConversion, TheConvertedSamplesKeepTheirTeLoopNests)
{
    for (auto [converted, original, sizes] :
         {std::tuple{"samples/tensorir/matmul_ladder.py", "samples/matmul_ladder.py",
                     std::map<std::string, std::int64_t>{{"M", 64}, {"N", 64}, {"K", 64}}},
          std::tuple{"samples/tensorir/matmul_cuda.py", "samples/gpu/matmul_cuda.py",
                     std::map<std::string, std::int64_t>{{"N", 256}}}}) {
        SCOPED_TRACE(converted);
        EvalResult tir = evaluateScript(sample(converted), sizes);
        EvalResult te = evaluateScript(sample(original), sizes);
        ASSERT_TRUE(tir.ok) << tir.error.loc.line << ": " << tir.error.message;
        ASSERT_TRUE(te.ok);
        ASSERT_EQ(tir.program.variants.size(), te.program.variants.size());
        for (const Variant& v : te.program.variants) {
            const Variant* t = tir.program.findVariant(v.name);
            ASSERT_NE(t, nullptr) << v.name;
            EXPECT_NE(t->schedule().tensorIR(), nullptr) << v.name;
            EXPECT_EQ(loopNestDifference(lowered(v), lowered(*t)), "") << v.name;
        }
    }
}

} // namespace

namespace {

// `export --format tvm-trace`: the trace as TVM's trace.as_json() writes it. The expected lines
// are what TVM 0.26 and TVM 0.20 recorded for these exports (json.dumps of as_json(), compacted;
// scripts/tvm-trace-check.py compares every export this way where a TVM build is given).
TEST(TensorIRTrace, JsonIsWhatTvmRecords)
{
    const std::string mm = sample("samples/tensorir/mm_relu.py");
    EvalResult r = evaluateScript(mm);
    ASSERT_TRUE(r.ok);
    ExportOptions o;
    o.format = "tvm-trace";
    o.tvmRelease = "0.26";
    EXPECT_EQ(exportVariant(mm, r.program, *r.program.findVariant("the tutorial's steps"), o).text,
              R"([[["GetSBlock",[],["Y","main"],["b0"]],["GetLoops",["b0"],[],["l1","l2","l3"]],)"
              R"(["Split",["l2","None",8],[true,false],["l4","l5"]],["Reorder",["l4","l3","l5"],)"
              R"([],[]],["GetSBlock",[],["C","main"],["b6"]],["ReverseComputeAt",["b6","l4"],)"
              R"([0,-1],[]],["DecomposeReduction",["b0","l3"],[],["b7"]]],[]])"
              "\n");
    // A TE variant's trace is its translation's, in TVM 0.20's names and integers.
    const std::string gemm = sample("samples/opt_gemm.py");
    EvalResult g = evaluateScript(gemm, {{"M", 256}, {"N", 256}, {"K", 256}});
    ASSERT_TRUE(g.ok);
    o.tvmRelease = "0.20";
    const std::string trace =
        exportVariant(gemm, g.program, *g.program.findVariant("parallel"), o).text;
    EXPECT_EQ(
        trace.rfind(R"([[["GetBlock",[],["C","main"],["b0"]],["CacheWrite",["b0",[]],[0,"global"],)"
                    R"(["b1"]],["GetLoops",["b1"],[],["l2","l3"]],["Split",["l2","None",32],[1,0],)"
                    R"(["l4","l5"]],["Split",["l3","None",32],[1,0],["l6","l7"]],)"
                    R"(["Reorder",["l6","l5"],[],[]],["Parallel",["l4"],[],[]],)",
                    0),
        0u)
        << trace;
    EXPECT_NE(trace.find(R"(["ComputeAt",["b0","l6"],[1,-1],[]])"), std::string::npos);
    EXPECT_NE(trace.find(R"(["DecomposeReduction",["b0","l13"],[],["b19"]]],[]])"),
              std::string::npos);
    o.tvmRelease = "0.17";
    EXPECT_THROW(exportVariant(gemm, g.program, *g.program.findVariant("parallel"), o), UserError);
}

} // namespace

namespace {

// TE's storage_align of a shared tile is TensorIR's storage_align of the cache block's buffer,
// and both pad the tile's rows the same way once lowered.
TEST(TensorIRTranslation, StorageAlignPadsTheSameRows)
{
    const std::string script = R"(import tvm
from tvm import te
n = 128
A = te.placeholder((n, n), name="A")
B = te.compute((n, n), lambda i, j: A[j, i] * 2.0, name="B")

# variant: padded
s = te.create_schedule(B.op)
AS = s.cache_read(A, "shared", [B])
io, jo, ii, ji = s[B].tile(B.op.axis[0], B.op.axis[1], 32, 32)
s[B].bind(io, te.thread_axis("blockIdx.y"))
s[B].bind(jo, te.thread_axis("blockIdx.x"))
s[B].bind(ji, te.thread_axis("threadIdx.x"))
s[AS].compute_at(s[B], jo)
s[AS].storage_align(AS.op.axis[0], 32, 1)
)";
    EvalResult r = evaluateScript(script);
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    const TirTranslation t = translateToTensorIR(v, TirSpelling::Tvm026, v.names);
    ASSERT_TRUE(t.ok) << t.error.message;
    std::string all;
    for (const std::string& s : t.statements)
        all += s + "\n";
    EXPECT_NE(all.find("sch.storage_align(b_A_shared, 0, axis=0, factor=32, offset=1)"),
              std::string::npos)
        << all;
    Schedule tir = v.snapshots.front();
    tir.setTensorIR(t.func);
    const std::string te = printTVMScript(lowerSchedule(v.schedule(), v.args).func);
    const std::string ti = printTVMScript(lowerSchedule(tir, v.args).func);
    EXPECT_NE(te.find("T.allocate([1056], \"float32\", \"shared\")"), std::string::npos) << te;
    EXPECT_NE(ti.find("T.allocate([1056], \"float32\", \"shared\")"), std::string::npos) << ti;
}

} // namespace
