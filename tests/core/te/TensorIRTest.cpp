// TensorIR scripts: te.create_prim_func and tir.Schedule (both spellings), printed as TVM prints
// `sch.mod.show()`, refused where TVM refuses, and run and checked like any variant.
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "runtime/RuntimeJit.h"
#include "runtime/VariantRun.h"
#include "te/Program.h"

#include "support/SourceFiles.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace loopscope;

namespace {

const char* kMmRelu = R"(import tvm
from tvm import te

M = 128
N = 128
K = 128
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
Y = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="Y")
C = te.compute((M, N), lambda i, j: te.max(Y[i, j], te.const(0, "float32")), name="C")
func = te.create_prim_func([A, B, C])

# variant: mm_relu
sch = tvm.tir.Schedule(func)
block_Y = sch.get_block("Y")
i, j, k = sch.get_loops(block_Y)
j0, j1 = sch.split(j, factors=[None, 4])
sch.reorder(j0, k, j1)
block_C = sch.get_block("C")
sch.reverse_compute_at(block_C, j0)
sch.decompose_reduction(block_Y, k)

# variant: today
sch = tvm.s_tir.Schedule(func)
block_Y = sch.get_sblock("Y")
i, j, k = sch.get_loops(block_Y)
i0, i1 = sch.split(i, factors=[8, None])
sch.parallel(i0)
)";

std::string printed(const Variant& v, int step = -1)
{
    const Schedule& s = step < 0 ? v.schedule() : v.snapshots.at(static_cast<std::size_t>(step));
    EXPECT_TRUE(s.tensorIR());
    return s.tensorIR() ? printTensorIR(*s.tensorIR(), s.tensorIR()->spelling) : "";
}

std::string trimmed(std::string s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

TEST(TensorIR, PrintsWhatTvm020PrintedForItsExamples)
{
    const std::filesystem::path dir =
        std::filesystem::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/tvm-tir";
    int compared = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".py") continue;
        std::filesystem::path golden = entry.path();
        golden.replace_extension(".tvm020.txt");
        if (!std::filesystem::exists(golden)) continue; // a script the tutorial tests read
        SCOPED_TRACE(entry.path().filename().string());
        EvalResult r = evaluateScript(readSourceFile(entry.path().string()));
        ASSERT_TRUE(r.ok) << r.error.message << " at line " << r.error.loc.line;
        ASSERT_EQ(r.program.variants.size(), 1u);
        EXPECT_EQ(trimmed(printed(r.program.variants[0])),
                  trimmed(readSourceFile(golden.string())));
        ++compared;
    }
    // vector_add_split (split, parallel, vectorize), row_sum_rfactor, reverse_compute_inline,
    // storage_align, transform_layout, loop_annotations, blockize
    EXPECT_EQ(compared, 7);
}

TEST(TensorIR, TheTutorialsStepsPrintAsTvmPrintsThem)
{
    EvalResult r = evaluateScript(kMmRelu);
    ASSERT_TRUE(r.ok) << r.error.message << " at line " << r.error.loc.line;
    ASSERT_EQ(r.program.variants.size(), 2u);
    const Variant& v = r.program.variants[0];
    EXPECT_EQ(v.name, "mm_relu");
    ASSERT_EQ(v.steps.size(), 4u);
    EXPECT_EQ(v.steps[0].primitive, "split");
    EXPECT_EQ(v.steps[0].stage, "Y");
    EXPECT_EQ(v.steps[2].primitive, "reverse_compute_at");
    EXPECT_EQ(v.steps[2].stage, "C");
    EXPECT_EQ(v.steps[3].primitive, "decompose_reduction");

    // Before any step: te.create_prim_func's blocks, the intermediate allocated at the root.
    const std::string start = printed(v, 0);
    EXPECT_NE(start.find("    def main(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, "
                         "128), \"float32\"), C: T.Buffer((128, 128), \"float32\")):\n"
                         "        T.func_attr({\"tir.noalias\": T.bool(True)})\n"
                         "        # with T.block(\"root\"):\n"
                         "        Y = T.alloc_buffer((128, 128))\n"
                         "        for i, j, k in T.grid(128, 128, 128):\n"
                         "            with T.block(\"Y\"):\n"
                         "                v_i, v_j, v_k = T.axis.remap(\"SSR\", [i, j, k])\n"
                         "                T.reads(A[v_i, v_k], B[v_k, v_j])\n"
                         "                T.writes(Y[v_i, v_j])\n"
                         "                with T.init():\n"
                         "                    Y[v_i, v_j] = T.float32(0.0)\n"
                         "                Y[v_i, v_j] = Y[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]\n"),
              std::string::npos)
        << start;

    // After split, reorder, reverse_compute_at and decompose_reduction, as the deep-dive
    // tutorial shows it (there with factor 8).
    const std::string last = printed(v);
    EXPECT_NE(last.find("        for i, j_0 in T.grid(128, 32):\n"
                        "            for j_1_init in range(4):\n"
                        "                with T.block(\"Y_init\"):\n"
                        "                    v_i = T.axis.spatial(128, i)\n"
                        "                    v_j = T.axis.spatial(128, j_0 * 4 + j_1_init)\n"
                        "                    T.reads()\n"
                        "                    T.writes(Y[v_i, v_j])\n"
                        "                    Y[v_i, v_j] = T.float32(0.0)\n"
                        "            for k, j_1 in T.grid(128, 4):\n"
                        "                with T.block(\"Y_update\"):\n"
                        "                    v_i = T.axis.spatial(128, i)\n"
                        "                    v_j = T.axis.spatial(128, j_0 * 4 + j_1)\n"
                        "                    v_k = T.axis.reduce(128, k)\n"
                        "                    T.reads(Y[v_i, v_j], A[v_i, v_k], B[v_k, v_j])\n"),
              std::string::npos)
        << last;
    EXPECT_NE(last.find("            for ax0 in range(4):\n"
                        "                with T.block(\"C\"):\n"
                        "                    v_i = T.axis.spatial(128, i)\n"
                        "                    v_j = T.axis.spatial(128, j_0 * 4 + ax0)\n"
                        "                    T.reads(Y[v_i, v_j])\n"
                        "                    T.writes(C[v_i, v_j])\n"
                        "                    C[v_i, v_j] = T.max(Y[v_i, v_j], T.float32(0.0))\n"),
              std::string::npos)
        << last;
    EXPECT_EQ(last.find("for i, j in T.grid(128, 128)"), std::string::npos) << last;
}

TEST(TensorIR, TheV026SpellingPrintsSblocksAsTvm026Does)
{
    EvalResult r = evaluateScript(kMmRelu);
    ASSERT_TRUE(r.ok) << r.error.message;
    const std::string text = printed(r.program.variants[1]);
    EXPECT_EQ(text.rfind("# from tvm.script import ir as I\n# from tvm.script import tirx as T\n"
                         "# from tvm.tirx.layout import Axis\n",
                         0),
              0u)
        << text;
    EXPECT_NE(text.find("    @T.prim_func(s_tir=True)\n"), std::string::npos) << text;
    EXPECT_NE(text.find("        T.func_attr({\"tirx.noalias\": True})\n"
                        "        # with T.sblock(\"root\"):\n"
                        "        Y = T.sblock_alloc_buffer((128, 128))\n"
                        "        for i_0 in T.parallel(8):\n"
                        "            for i_1, j, k in T.grid(16, 128, 128):\n"
                        "                with T.sblock(\"Y\"):\n"
                        "                    v_i = T.axis.spatial(128, i_0 * 16 + i_1)\n"
                        "                    v_j, v_k = T.axis.remap(\"SR\", [j, k])\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("T.block("), std::string::npos) << text;
}

struct Refusal {
    const char* steps;
    const char* says;
    int line, column; // of the argument at fault, in the steps (1-based)
};

TEST(TensorIR, RefusalsAreLocatedAndSayWhy)
{
    const std::string head = R"(import tvm
from tvm import te
A = te.placeholder((64, 64), name="A")
k = te.reduce_axis((0, 64), name="k")
B = te.compute((64,), lambda i: te.sum(A[i, k], axis=k), name="B")
sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
blk = sch.get_block("B")
i, k = sch.get_loops(blk)
)";
    const int first = 9;
    const Refusal cases[] = {
        {"sch.get_block(\"C\")\n", "no block named 'C' (the blocks: B)", first, 15},
        {"sch.parallel(k)\n", "reduction variable 'v_k' of block 'B'", first, 14},
        {"i0, i1 = sch.split(i, factors=[None, 8])\nsch.vectorize(i)\n",
         "no longer in the function", first + 1, 15},
        {"sch.split(i, factors=[None, None])\n", "at most one factor can be None", first, 22},
        {"sch.split(i, factors=[4, 8])\n", "less than the loop's extent (64)", first, 22},
        {"sch.reorder(k, i, k)\n", "given twice", first, 19},
        {"sch.decompose_reduction(blk, k)\nsch.decompose_reduction(blk, k)\n", "has no init",
         first + 1, 25},
        {"sch.rfactor(i, 0)\n", "is not a loop of the reduction", first, 13},
        {"sch.rfactor(k, 2)\n", "factor_axis must be between -2 and 1", first, 16},
        {"sch.decompose_reduction(blk, k)\nsch.rfactor(k, 0)\n", "rfactor before decompose",
         first + 1, 13},
    };
    for (const Refusal& c : cases) {
        SCOPED_TRACE(c.steps);
        EvalResult r = evaluateScript(head + c.steps);
        ASSERT_FALSE(r.ok);
        EXPECT_NE(r.error.message.find(c.says), std::string::npos) << r.error.message;
        EXPECT_EQ(r.error.loc.line, c.line);
        EXPECT_EQ(r.error.loc.col, c.column);
    }
}

TEST(TensorIR, EveryStepRunsAndChecks)
{
    EvalResult r = evaluateScript(kMmRelu);
    ASSERT_TRUE(r.ok) << r.error.message;
    auto jit = createRuntimeJit();
    for (const Variant& v : r.program.variants) {
        for (int step = 0; step <= static_cast<int>(v.steps.size()); ++step) {
            SCOPED_TRACE(v.name + " after " + std::to_string(step) + " steps");
            VariantRunOptions o;
            o.step = step;
            o.check = true;
            o.config.jit = jit.get();
            VariantRunOutcome out = runVariant(r.program, v, o);
            EXPECT_TRUE(out.checked()) << out.firstProblem();
        }
    }
}

} // namespace

namespace {

TEST(TensorIR, BoundLoopsLaunchThreadsAndBuildSetsTheTarget)
{
    EvalResult r = evaluateScript(R"(import tvm
from tvm import te
A = te.placeholder((1024,), name="A")
B = te.compute((1024,), lambda i: A[i] * 2.0, name="B")
sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
(i,) = sch.get_loops(sch.get_block("B"))
bx, tx = sch.split(i, factors=[None, 64])
sch.bind(bx, "blockIdx.x")
sch.bind(tx, "threadIdx.x")
mod = tvm.build(sch.mod, target="cuda")
)");
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants[0];
    EXPECT_EQ(v.target, "cuda");
    const std::string blocks = printed(v);
    EXPECT_NE(blocks.find("for i_0 in T.thread_binding(16, thread=\"blockIdx.x\"):"),
              std::string::npos)
        << blocks;
    const std::string compiled = printTVMScript(lowerSchedule(v.schedule(), v.args).func);
    EXPECT_NE(compiled.find("blockIdx_x = T.launch_thread(\"blockIdx.x\", 16)"), std::string::npos)
        << compiled;
    EXPECT_NE(compiled.find("T.func_attr({\"tir.noalias\": T.bool(True)})"), std::string::npos)
        << compiled;
    EXPECT_NE(compiled.find("T.float32(2.0)"), std::string::npos) << compiled;
}

} // namespace

namespace {

VariantRunOutcome runChecked(const Program& p, const Variant& v)
{
    auto jit = createRuntimeJit();
    VariantRunOptions o;
    o.check = true;
    o.config.jit = jit.get();
    return runVariant(p, v, o);
}

TEST(TensorIR, ACacheWriteUnderATileIsAllocatedAsTheTile)
{
    EvalResult r = evaluateScript(R"(import tvm
from tvm import te

M = 256
N = 256
K = 256
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
func = te.create_prim_func([A, B, C])

# variant: blocked
sch = tvm.tir.Schedule(func)
block = sch.get_block("C")
i, j, k = sch.get_loops(block)
i0, i1 = sch.split(i, factors=[None, 4])
j0, j1 = sch.split(j, factors=[None, 16])
sch.reorder(i0, j0, k, i1, j1)
cw = sch.cache_write(block, 0, "local")
sch.reverse_compute_at(cw, j0)
sch.vectorize(j1)
sch.parallel(i0)
sch.decompose_reduction(block, k)
)");
    ASSERT_TRUE(r.ok) << r.error.message << " at line " << r.error.loc.line;
    const Variant& v = r.program.variants[0];
    const std::string blocks = printed(v);
    EXPECT_NE(blocks.find("        C_local = T.alloc_buffer((256, 256), scope=\"local\")\n"),
              std::string::npos)
        << blocks;
    EXPECT_NE(blocks.find("                for ax0, ax1 in T.grid(4, 16):\n"
                          "                    with T.block(\"C_local\"):\n"
                          "                        v0 = T.axis.spatial(256, i_0 * 4 + ax0)\n"
                          "                        v1 = T.axis.spatial(256, j_0 * 16 + ax1)\n"
                          "                        T.reads(C_local[v0, v1])\n"
                          "                        T.writes(C[v0, v1])\n"
                          "                        C[v0, v1] = C_local[v0, v1]\n"),
              std::string::npos)
        << blocks;
    // Lowered, the cache holds one tile (TVM's CompactBufferAllocation), not the whole matrix.
    const std::string compiled = printTVMScript(lowerSchedule(v.schedule(), v.args).func);
    EXPECT_NE(compiled.find("C_local = T.allocate([64], \"float32\", \"local\")"),
              std::string::npos)
        << compiled;
    EXPECT_TRUE(runChecked(r.program, v).checked());
}

TEST(TensorIR, ComputeInlineFoldsAValueIntoItsReaders)
{
    const std::string fused = R"(import tvm
from tvm import te

N = 1024
A = te.placeholder((N,), name="A")
B = te.placeholder((N,), name="B")
T0 = te.compute((N,), lambda i: A[i] + B[i], name="T0")
C = te.compute((N,), lambda i: te.max(T0[i], te.const(0, "float32")), name="C")
func = te.create_prim_func([A, B, C])

# variant: fused
sch = tvm.tir.Schedule(func)
sch.compute_inline(sch.get_block("T0"))
(i,) = sch.get_loops(sch.get_block("C"))
sch.vectorize(i)
)";
    EvalResult r = evaluateScript(fused);
    ASSERT_TRUE(r.ok) << r.error.message << " at line " << r.error.loc.line;
    const Variant& v = r.program.variants[0];
    const std::string blocks = printed(v);
    EXPECT_NE(blocks.find("                T.reads(A[v_i], B[v_i])\n"
                          "                T.writes(C[v_i])\n"
                          "                C[v_i] = T.max(A[v_i] + B[v_i], T.float32(0.0))\n"),
              std::string::npos)
        << blocks;
    EXPECT_EQ(blocks.find("T0"), std::string::npos) << blocks;
    EXPECT_TRUE(runChecked(r.program, v).checked());

    EvalResult output = evaluateScript(fused + "sch.compute_inline(sch.get_block(\"C\"))\n");
    ASSERT_FALSE(output.ok);
    EXPECT_NE(output.error.message.find("an argument of the function"), std::string::npos)
        << output.error.message;
    EXPECT_EQ(output.error.loc.line, 16);
    EXPECT_EQ(output.error.loc.col, 20);
}

TEST(TensorIR, AGpuMatmulWithASharedCacheChecksOnTheCpu)
{
    EvalResult r = evaluateScript(R"(import tvm
from tvm import te

N = 256
A = te.placeholder((N, N), name="A")
B = te.placeholder((N, N), name="B")
k = te.reduce_axis((0, N), name="k")
C = te.compute((N, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
func = te.create_prim_func([A, B, C])

# variant: shared
sch = tvm.tir.Schedule(func)
block = sch.get_block("C")
i, j, k = sch.get_loops(block)
bi, ti = sch.split(i, factors=[None, 16])
bj, tj = sch.split(j, factors=[None, 16])
ko, ki = sch.split(k, factors=[None, 16])
sch.reorder(bi, bj, ti, tj, ko, ki)
sch.bind(bi, "blockIdx.y")
sch.bind(bj, "blockIdx.x")
sch.bind(ti, "threadIdx.y")
sch.bind(tj, "threadIdx.x")
AS = sch.cache_read(block, 0, "shared")
sch.compute_at(AS, ko)
cl = sch.cache_write(block, 0, "local")
sch.reverse_compute_at(cl, tj)
mod = tvm.build(sch.mod, target="cuda")
)");
    ASSERT_TRUE(r.ok) << r.error.message << " at line " << r.error.loc.line;
    const Variant& v = r.program.variants[0];
    EXPECT_EQ(v.target, "cuda");
    const std::string blocks = printed(v);
    // Shared memory is one copy for the block's threads: the copy covers the rows of every
    // threadIdx.y (TVM relaxes the loops bound to threadIdx for a shared buffer).
    EXPECT_NE(blocks.find(
                  "                        for k_0 in range(16):\n"
                  "                            for ax0, ax1 in T.grid(16, 16):\n"
                  "                                with T.block(\"A_shared\"):\n"
                  "                                    v0 = T.axis.spatial(256, i_0 * 16 + ax0)\n"
                  "                                    v1 = T.axis.spatial(256, k_0 * 16 + ax1)\n"),
              std::string::npos)
        << blocks;
    EXPECT_NE(blocks.find("T.reads(A_shared[v_i, v_k], B[v_k, v_j])"), std::string::npos) << blocks;
    EXPECT_TRUE(runChecked(r.program, v).checked());
}

} // namespace

namespace {

TEST(TensorIR, ScopesAndAnnotationsPrintAsTvmPrintsThem)
{
    const std::string head = R"(import tvm
from tvm import te
A = te.placeholder((64, 64), name="A")
T0 = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="T0")
B = te.compute((64, 64), lambda i, j: T0[i, j] + 1.0, name="B")
sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
t = sch.get_block("T0")
)";
    EvalResult r = evaluateScript(head + R"(sch.set_scope(t, 0, "local")
sch.annotate(t, "meta_schedule.unroll_explicit", 16)
sch.annotate(t, "note", "kept")
sch.unannotate(t, "note")
)");
    ASSERT_TRUE(r.ok) << r.error.message;
    const std::string text = printed(r.program.variants[0]);
    // As TVM 0.20 printed it: the buffer renamed after its scope.
    EXPECT_NE(text.find("        T0_local = T.alloc_buffer((64, 64), scope=\"local\")\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("                T.writes(T0_local[v_i, v_j])\n"
                        "                T.block_attr({\"meta_schedule.unroll_explicit\": 16})\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("note"), std::string::npos) << text;

    EvalResult arg = evaluateScript(head + "sch.set_scope(sch.get_block(\"B\"), 0, \"local\")\n");
    ASSERT_FALSE(arg.ok);
    EXPECT_NE(arg.error.message.find("an argument of the function"), std::string::npos)
        << arg.error.message;
    EvalResult missing = evaluateScript(head + "sch.unannotate(t, \"nothing\")\n");
    ASSERT_FALSE(missing.ok);
    EXPECT_NE(missing.error.message.find("has no annotation 'nothing'"), std::string::npos)
        << missing.error.message;
    EXPECT_EQ(missing.error.loc.col, 19);
    EvalResult scope = evaluateScript(head + "sch.set_scope(t, 0, \"registers\")\n");
    ASSERT_FALSE(scope.ok);
    EXPECT_NE(scope.error.message.find("unknown storage scope 'registers'"), std::string::npos)
        << scope.error.message;
    EXPECT_EQ(scope.error.loc.col, 21);
}

} // namespace

namespace {

std::string tutorialNames(std::string s)
{
    for (const char* v : {"v_i", "v_j", "v_k"}) {
        const std::string from = v, to = std::string("v") + v[2];
        for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at))
            s.replace(at, from.size(), to);
    }
    return s;
}

// The sample's tutorial variant against what TVM 0.20 printed for each step of the tutorial,
// and for its trace.
TEST(TensorIR, TheTutorialPrintsStepByStepAsTvm020PrintedIt)
{
    const std::filesystem::path root(LOOPSCOPE_SOURCE_DIR);
    EvalResult r = evaluateScript(readSourceFile((root / "samples/tensorir/mm_relu.py").string()));
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant* v = r.program.findVariant("the tutorial's steps");
    ASSERT_TRUE(v);
    const char* goldens[] = {"00_mm_relu", "01_split", "02_reorder", "03_reverse_compute_at",
                             "04_decompose_reduction"};
    ASSERT_EQ(v->snapshots.size(), std::size(goldens));
    const std::filesystem::path dir = root / "tests/data/tvm-tir/tutorial-0.20";
    for (std::size_t k = 0; k < std::size(goldens); ++k) {
        SCOPED_TRACE(goldens[k]);
        EXPECT_EQ(trimmed(tutorialNames(printed(*v, static_cast<int>(k)))),
                  trimmed(readSourceFile((dir / (std::string(goldens[k]) + ".txt")).string())));
    }
    EXPECT_EQ(trimmed(traceText(*v)), trimmed(readSourceFile((dir / "05_trace.txt").string())));

    // The same steps in v0.24-v0.26's spelling, against what TVM 0.26 printed.
    const Variant* today = r.program.findVariant("today's spelling");
    ASSERT_TRUE(today);
    ASSERT_EQ(today->snapshots.size(), std::size(goldens));
    const std::filesystem::path dir26 = root / "tests/data/tvm-tir/tutorial-0.26";
    for (std::size_t k = 0; k < std::size(goldens); ++k) {
        SCOPED_TRACE(std::string("0.26 ") + goldens[k]);
        EXPECT_EQ(trimmed(tutorialNames(printed(*today, static_cast<int>(k)))),
                  trimmed(readSourceFile((dir26 / (std::string(goldens[k]) + ".txt")).string())));
    }
    EXPECT_EQ(trimmed(traceText(*today)),
              trimmed(readSourceFile((dir26 / "05_trace.txt").string())));
}

} // namespace

namespace {

TEST(TensorIR, ProducersAndConsumersAreTheBlocksOnEitherSide)
{
    EvalResult r = evaluateScript(std::string(kMmRelu) + R"(
# variant: neighbours
sch = tvm.tir.Schedule(func)
c = sch.get_block("C")
(y,) = sch.get_producers(c)
(c2,) = sch.get_consumers(y)
none = sch.get_producers(y)
sch.compute_inline(c2)
)");
    ASSERT_FALSE(r.ok); // C writes an argument: the inline is refused at c2, so c2 is C
    EXPECT_NE(r.error.message.find("the block 'C' writes 'C'"), std::string::npos)
        << r.error.message;
    EvalResult ok = evaluateScript(std::string(kMmRelu) + R"(
# variant: neighbours
sch = tvm.tir.Schedule(func)
c = sch.get_block("C")
(y,) = sch.get_producers(c)
sch.decompose_reduction(y, sch.get_loops(y)[2])
)");
    ASSERT_TRUE(ok.ok) << ok.error.message;
    const Variant* v = ok.program.findVariant("neighbours");
    ASSERT_TRUE(v);
    EXPECT_NE(printed(*v).find("with T.block(\"Y_update\")"), std::string::npos);
    EXPECT_NE(traceText(*v).find("  b1, = sch.get_producers(block=b0)\n"), std::string::npos)
        << traceText(*v);
}

} // namespace

namespace {

// The tutorial's mm_relu module written in TVMScript, in both spellings: each step prints as TVM
// printed it (byte for byte, names included), the trace too, and every step runs and checks.
TEST(TensorIR, TheTutorialsTvmScriptModulePrintsAsTvmPrintsIt)
{
    const std::filesystem::path root(LOOPSCOPE_SOURCE_DIR);
    const char* goldens[] = {"00_mm_relu", "01_split", "02_reorder", "03_reverse_compute_at",
                             "04_decompose_reduction"};
    for (const auto& [script, dir] :
         {std::pair{"samples/tensorir/mm_relu_module.py", "tests/data/tvm-tir/tutorial-0.26"},
          std::pair{"tests/data/tvm-tir/mm_relu_module_020.py",
                    "tests/data/tvm-tir/tutorial-0.20"}}) {
        SCOPED_TRACE(script);
        EvalResult r = evaluateScript(readSourceFile((root / script).string()));
        ASSERT_TRUE(r.ok) << r.error.loc.line << ": " << r.error.message;
        const Variant* v = r.program.findVariant("the tutorial's steps");
        ASSERT_TRUE(v);
        ASSERT_EQ(v->snapshots.size(), std::size(goldens));
        for (std::size_t k = 0; k < std::size(goldens); ++k) {
            SCOPED_TRACE(goldens[k]);
            EXPECT_EQ(trimmed(printed(*v, static_cast<int>(k))),
                      trimmed(readSourceFile(
                          (root / dir / (std::string(goldens[k]) + ".txt")).string())));
        }
        EXPECT_EQ(trimmed(traceText(*v)),
                  trimmed(readSourceFile((root / dir / "05_trace.txt").string())));
        for (const Variant& each : r.program.variants) {
            SCOPED_TRACE(each.name);
            VariantRunOutcome out = runChecked(r.program, each);
            EXPECT_TRUE(out.checked()) << out.firstProblem();
        }
    }
}

// Python a schedule uses: a for over blocks, starred targets and arguments, slices of loop lists.
TEST(TensorIR, ForStarredTargetsAndSlicesScheduleAsPythonWould)
{
    const std::string script = std::string(kMmRelu) + R"(
# variant: python
sch = tvm.tir.Schedule(func)
i, *rest = sch.get_loops(sch.get_block("Y"))
sch.reorder(*rest[::-1])
*outer, last = sch.get_loops(sch.get_block("C"))
for block in [sch.get_block("Y"), sch.get_block("C")]:
    loops = sch.get_loops(block)
    sch.parallel(loops[:1][0])
)";
    EvalResult r = evaluateScript(script);
    ASSERT_TRUE(r.ok) << r.error.loc.line << ": " << r.error.message;
    const Variant* v = r.program.findVariant("python");
    ASSERT_TRUE(v);
    const std::string p = printed(*v);
    EXPECT_NE(p.find("for i in T.parallel(128):\n            for k, j in T.grid(128, 128):"),
              std::string::npos)
        << p;
    EXPECT_NE(p.find("for i in T.parallel(128):\n            for j in range(128):"),
              std::string::npos)
        << p;
    // Each step the for made is located at its statement inside the for.
    ASSERT_GE(v->steps.size(), 3u);
    EXPECT_EQ(v->steps.back().loc.line, v->steps[v->steps.size() - 2].loc.line);
    EXPECT_EQ(v->steps.back().text, "sch.parallel(loops[:1][0])");
}

struct ModuleRefusal {
    const char* replace; // text of the tutorial's 0.20 module to replace
    const char* with;
    const char* message; // the start of the diagnostic
};

TEST(TensorIR, TvmScriptThatIsNotADeclaredComputationIsRefusedAtItsLine)
{
    const std::filesystem::path root(LOOPSCOPE_SOURCE_DIR);
    const std::string module =
        readSourceFile((root / "tests/data/tvm-tir/mm_relu_module_020.py").string());
    const ModuleRefusal cases[] = {
        {"Y[vi, vj] = T.float32(0)", "Y[vi, vj] = T.float32(1)",
         "the block 'Y' starts its sum at a value other than the reduction's identity"},
        {"C[vi, vj] = T.max(Y[vi, vj], T.float32(0))", "C[vi, 0] = T.max(Y[vi, vj], T.float32(0))",
         "the block 'C' stores at an index that is not one of its spatial variables"},
        {"Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]", "Y[vi, vj] = A[vi, vk] * B[vk, vj]",
         "the block 'Y' does not update 'Y' as a sum, max or min"},
        {"for i, j in T.grid(128, 128):", "for i, j in T.grid(128, 64):",
         "the block 'C' covers part of 'C'"},
        {"    def main(", "    def main(D: T.handle, ", "the parameter 'D' needs its buffer"},
        {"with T.block(\"C\"):", "with T.block(\"Y\"):", "a second block named 'Y'"},
        {"Y = T.alloc_buffer((128, 128))",
         "Y = T.alloc_buffer((128, 128))\n            Z = T.alloc_buffer((4,))",
         "the buffer 'Z' is allocated but no block writes it"},
        {"vi, vj = T.axis.remap(\"SS\", [i, j])", "vi, vj = T.axis.remap(\"SX\", [i, j])",
         "T.axis.remap's kinds are S (spatial) and R (reduce)"},
        {"with T.init():", "if True:", "an 'if' statement inside a TVMScript function"},
        {"@T.prim_func\n    ", "", "a 'def' is read only as a TVMScript function (@T.prim_func)"},
        {"= T.alloc_buffer", "= T.sblock_alloc_buffer", "this mixes TVM's two spellings"},
        {"sch = tvm.tir.Schedule(MyModule)", "sch = tvm.s_tir.Schedule(MyModule)",
         "'main' is written in TVM v0.20-v0.23's spelling (T.block)"},
        {"C[vi, vj] = T.max(Y[vi, vj], T.float32(0))", "C[vi, vj] = vi + vj",
         "the value is int32 but 'C' holds float32"},
    };
    // Two stores of different types in one block: refused as not one store, not an internal error
    // where its reads are inferred.
    {
        std::string text = module;
        for (const auto& [from, to] :
             {std::pair<std::string, std::string>{
                  "Y = T.alloc_buffer((128, 128))",
                  "Y = T.alloc_buffer((128, 128))\n            Z = T.alloc_buffer((128, 128), "
                  "\"int32\")"},
              {"C[vi, vj] = T.max(Y[vi, vj], T.float32(0))",
               "C[vi, vj] = T.max(Y[vi, vj], T.float32(0))\n                    Z[vi, vj] = vi"}}) {
            const std::size_t at = text.find(from);
            ASSERT_NE(at, std::string::npos);
            text.replace(at, from.size(), to);
        }
        EvalResult r = evaluateScript(text);
        ASSERT_FALSE(r.ok);
        EXPECT_EQ(r.error.message.rfind("the block 'C' is not one store of a value", 0), 0u)
            << r.error.message;
    }
    for (const ModuleRefusal& c : cases) {
        SCOPED_TRACE(c.with);
        std::string text = module;
        const std::size_t at = text.find(c.replace);
        ASSERT_NE(at, std::string::npos);
        text.replace(at, std::string(c.replace).size(), c.with);
        EvalResult r = evaluateScript(text);
        ASSERT_FALSE(r.ok);
        EXPECT_EQ(r.error.message.rfind(c.message, 0), 0u) << r.error.message;
        // Located at the line of what was changed, or at the block or function it belongs to.
        const int line = static_cast<int>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
        EXPECT_GE(r.error.loc.line, line - 8) << r.error.message;
        EXPECT_LE(r.error.loc.line, line + 1) << r.error.message;
    }
}

} // namespace

namespace {

// reverse_compute_inline refuses as TVM does: the producer of a ReLU after a matmul is a
// reduction, not a complete block.
TEST(TensorIR, ReverseComputeInlineIntoAReductionIsRefusedAtTheBlock)
{
    EvalResult r = evaluateScript(R"(import tvm
from tvm import te
A = te.placeholder((64, 64), name="A")
k = te.reduce_axis((0, 64), name="k")
Y = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * A[k, j], axis=k), name="Y")
C = te.compute((64, 64), lambda i, j: te.max(Y[i, j], 0.0), name="C")
sch = tvm.tir.Schedule(te.create_prim_func([A, C]))
c = sch.get_block("C")
sch.reverse_compute_inline(c)
)");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.loc.line, 9);
    EXPECT_NE(r.error.message.find("must have a single producer that is a complete block"),
              std::string::npos)
        << r.error.message;
}

} // namespace

namespace {

// compute_inline of a chain of blocks that each read their producer twice doubles the value at
// each step: refused once it would pass what lowering takes, at the step, in no time.
TEST(TensorIR, AnInliningThatExplodesIsRefusedAtItsStep)
{
    std::string script = "import tvm\nfrom tvm import te\nA = te.placeholder((8,), name=\"A\")\n"
                         "T0 = te.compute((8,), lambda i: A[i] + 1.0, name=\"T0\")\n";
    const int n = 24;
    for (int k = 1; k <= n; ++k)
        script += "T" + std::to_string(k) + " = te.compute((8,), lambda i: T" +
                  std::to_string(k - 1) + "[i] * T" + std::to_string(k - 1) + "[i], name=\"T" +
                  std::to_string(k) + "\")\n";
    script += "sch = tvm.tir.Schedule(te.create_prim_func([A, T" + std::to_string(n) + "]))\n";
    for (int k = 0; k < n; ++k)
        script += "sch.compute_inline(sch.get_block(\"T" + std::to_string(k) + "\"))\n";
    EvalResult r = evaluateScript(script);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.message.find("makes the value of block"), std::string::npos)
        << r.error.message;
    EXPECT_NE(r.error.message.find("at most 200000 are supported"), std::string::npos);
}

} // namespace

namespace {

// A reduction's loop bound to threadIdx is a cross-thread reduction: TVM lowers it with an
// allreduce, which Loopscope's TensorIR lowering does not have, so it is refused at the loop
// rather than run with the threads racing on the sum.
// A reduction whose loop is bound to threadIdx lowers as TVM's LowerCrossThreadReduction
// lowers it (each thread's share, then tvm_thread_allreduce, then the first thread's store) and
// computes the sum; one bound to blockIdx, or without its init, is refused.
TEST(TensorIR, ACrossThreadReductionLowersAndChecks)
{
    const std::string head = R"(import tvm
from tvm import te
A = te.placeholder((64, 256), name="A")
k = te.reduce_axis((0, 256), name="k")
B = te.compute((64,), lambda i: te.sum(A[i, k], axis=k), name="B")
sch = tvm.tir.Schedule(te.create_prim_func([A, B]))
b = sch.get_block("B")
i, kk = sch.get_loops(b)
sch.bind(i, "blockIdx.x")
)";
    EvalResult r = evaluateScript(head + R"(ko, ki = sch.split(kk, factors=[None, 32])
sch.bind(ki, "threadIdx.x")
mod = tvm.build(sch.mod, target="cuda")
)");
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants[0];
    const std::string compiled = printTVMScript(lowerSchedule(v.schedule(), v.args).func);
    for (const char* part :
         {"in_thread_B_1[0] = T.float32(0.0)\n        for k_0 in range(8):\n",
          "T.tvm_thread_allreduce(T.uint32(1), in_thread_B_1[0], T.bool(True), "
          "cross_thread_B_1[0], threadIdx_x)",
          "if threadIdx_x == 0:\n            B[blockIdx_x] = cross_thread_B_1[0]"})
        EXPECT_NE(compiled.find(part), std::string::npos) << part << "\n" << compiled;
    const VariantRunOutcome out = runChecked(r.program, v);
    EXPECT_TRUE(out.checked()) << out.firstProblem();

    EvalResult blocks = evaluateScript(head + "sch.bind(kk, \"blockIdx.y\")\n");
    ASSERT_FALSE(blocks.ok);
    EXPECT_EQ(blocks.error.loc.line, 10);
    EXPECT_NE(blocks.error.message.find("only loops of spatial variables can be bound"),
              std::string::npos)
        << blocks.error.message;

    EvalResult decomposed =
        evaluateScript(head + "sch.bind(kk, \"threadIdx.x\")\nsch.decompose_reduction(b, kk)\n");
    ASSERT_TRUE(decomposed.ok) << decomposed.error.message;
    const Variant& d = decomposed.program.variants[0];
    try {
        lowerSchedule(d.schedule(), d.args);
        ADD_FAILURE() << "a decomposed cross-thread reduction lowered";
    } catch (const UserError& e) {
        EXPECT_NE(e.diagnostic().message.find("without its initialization"), std::string::npos)
            << e.diagnostic().message;
    }
}

// blockize refuses what its loops do not divide exactly, at the loop; what it makes checks.
TEST(TensorIR, BlockizeRefusesWhatItCannotDivide)
{
    const std::string head = R"(import tvm
from tvm import te
A = te.placeholder((64, 64), name="A")
Y = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="Y")
C = te.compute((64, 64), lambda i, j: Y[i, j] + 1.0, name="C")
sch = tvm.tir.Schedule(te.create_prim_func([A, C]))
b = sch.get_block("Y")
i, j = sch.get_loops(b)
)";
    auto error = [&](const std::string& steps) {
        EvalResult r = evaluateScript(head + steps);
        return r.ok ? std::string("ok") : r.error.message;
    };
    EXPECT_NE(error("f = sch.fuse(i, j)\nfo, fi = sch.split(f, factors=[None, 48])\n"
                    "sch.blockize(fi)\n")
                  .find("is guarded (T.where)"),
              std::string::npos);
    EXPECT_NE(error("f = sch.fuse(i, j)\nfo, fi = sch.split(f, factors=[None, 32])\n"
                    "sch.blockize(fi)\n")
                  .find("is not a sum of loops times constants"),
              std::string::npos);
    EXPECT_NE(
        error("sch.reverse_compute_at(sch.get_block(\"C\"), i)\nsch.blockize(j)\n").find("ok"),
        std::string::npos); // j holds Y alone
    EXPECT_NE(error("sch.reverse_compute_at(sch.get_block(\"C\"), i)\nsch.blockize(i)\n")
                  .find("'i' holds more"),
              std::string::npos);
    EXPECT_NE(error("sch.reorder(j, i)\nsch.blockize(i)\nsch.blockize(j)\n").find("ok"),
              std::string::npos);
    EvalResult r = evaluateScript(head + "jo, ji = sch.split(j, factors=[None, 8])\n"
                                         "outer = sch.blockize(ji)\n"
                                         "sch.parallel(i)\n");
    ASSERT_TRUE(r.ok) << r.error.message;
    const VariantRunOutcome out = runChecked(r.program, r.program.variants[0]);
    EXPECT_TRUE(out.checked()) << out.firstProblem();
}

// transform_layout refuses what it cannot lay out one to one, at the argument at fault.
TEST(TensorIR, TransformLayoutRefusesWhatItCannotMap)
{
    const std::string head = R"(import tvm
from tvm import te
A = te.placeholder((64, 48), name="A")
Y = te.compute((64, 48), lambda i, j: A[i, j] * 2.0, name="Y")
C = te.compute((64, 48), lambda i, j: Y[i, j] + 1.0, name="C")
sch = tvm.tir.Schedule(te.create_prim_func([A, C]))
b = sch.get_block("Y")
)";
    auto error = [&](const std::string& call) {
        EvalResult r = evaluateScript(head + call + "\n");
        return r.ok ? std::string("ok") : std::to_string(r.error.loc.col) + ": " + r.error.message;
    };
    EXPECT_EQ(error("sch.transform_layout(b, (\"write\", 0), lambda i, j: (j, i))"), "ok");
    EXPECT_EQ(error("sch.transform_layout(b, \"Y\", lambda i, j: (i // 8, j, i % 8))"), "ok");
    EXPECT_NE(error("sch.transform_layout(b, (\"read\", 0), lambda i, j: (j, i))")
                  .find("25: transform_layout: 'A' is an argument of the function"),
              std::string::npos);
    EXPECT_NE(error("sch.transform_layout(b, (\"write\", 0), lambda i: (i,))")
                  .find("the index map takes 1 index but 'Y' has 2 dimensions"),
              std::string::npos);
    EXPECT_NE(error("sch.transform_layout(b, (\"write\", 0), lambda i, j: (i // 5, j, i % 5))")
                  .find("not one to one on 'Y' (3072 elements into 3120)"),
              std::string::npos);
    EXPECT_NE(error("sch.transform_layout(b, (\"write\", 0), lambda i, j: (i, j), pad_value=0.0)")
                  .find("pad_value is not supported yet"),
              std::string::npos);
    EXPECT_NE(error("sch.transform_layout(b, \"Z\", lambda i, j: (i, j))")
                  .find("does not access a buffer named 'Z'"),
              std::string::npos);
    // Every read and write of the buffer follows it: the variant still computes C.
    EvalResult r = evaluateScript(
        head + "sch.transform_layout(b, (\"write\", 0), lambda i, j: (j // 16, i, j % 16))\n");
    ASSERT_TRUE(r.ok) << r.error.message;
    const std::string text = printed(r.program.variants[0]);
    EXPECT_NE(text.find("Y = T.alloc_buffer((3, 64, 16))"), std::string::npos) << text;
    EXPECT_NE(text.find("T.reads(Y[v_j // 16, v_i, v_j % 16])"), std::string::npos) << text;
}

} // namespace
