// GPU kernels through LLVM's NVPTX back end: the launch nests split from the host, thread indices
// from the special registers, shared memory in its own state space with barriers between the
// fetch and the use, and what the back end would abort on refused first.
#include "codegen/Nvptx.h"
#include "codegen/Codegen.h"
#include "lower/Lower.h"
#include "lower/gpu/ThreadAllreduce.h"
#include "te/Program.h"

#include "support/Occurrences.h"
#include "support/SourceFiles.h"

#include <gtest/gtest.h>

namespace loopscope {
namespace {

PrimFunc gpuFunction(const std::string& script, const std::string& variant = "")
{
    EvalResult r = evaluateScript(script);
    EXPECT_TRUE(r.ok) << r.error.message;
    const Variant* v =
        variant.empty() ? &r.program.variants.front() : r.program.findVariant(variant);
    EXPECT_NE(v, nullptr);
    PrimFunc f = lowerSchedule(v->schedule(), v->args, v->funcName).func;
    f.body = lowerForDevice(f.body, false);
    return f;
}

std::int64_t constant(const Expr& e)
{
    std::int64_t v = -1;
    EXPECT_TRUE(isConstInt(e, &v));
    return v;
}

TEST(Nvptx, VectorAddIsOneKernelOverBlocksAndThreads)
{
    PrimFunc f = gpuFunction(readSourceFile("tests/data/tvm-gpu/vector_add_bind.py"));
    PtxModule m = generatePtx(f, GpuTarget{"cuda", 80});
    EXPECT_EQ(m.arch, "sm_80");
    EXPECT_NE(m.ptx.find(".target sm_80"), std::string::npos) << m.ptx;
    EXPECT_NE(m.ptx.find(".visible .entry main_kernel("), std::string::npos) << m.ptx;
    EXPECT_EQ(testsupport::occurrences(m.ptx, ".param .u64"), 3u) << m.ptx;
    EXPECT_NE(m.ptx.find("%tid.x"), std::string::npos);
    EXPECT_NE(m.ptx.find("%ctaid.x"), std::string::npos);
    EXPECT_EQ(m.ptx.find("bar.sync"), std::string::npos);
    EXPECT_EQ(m.ptx.find(".extern"), std::string::npos);
    ASSERT_EQ(m.kernels.size(), 1u);
    const GpuKernel& k = m.kernels[0];
    EXPECT_EQ(k.buffers, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(constant(k.grid[0]), 64);
    EXPECT_EQ(constant(k.block[0]), 64);
    EXPECT_EQ(constant(k.block[1]), 1);
    EXPECT_EQ(k.sharedBytes, 0);
}

TEST(Nvptx, SharedTilesLiveInSharedMemoryBetweenBarriers)
{
    PrimFunc f = gpuFunction(readSourceFile("tests/data/gpu/matmul_shared.py"), "shared");
    PtxModule m = generatePtx(f, GpuTarget{"cuda", 90});
    EXPECT_NE(m.ptx.find(".version 7.8"), std::string::npos) << m.ptx;
    EXPECT_NE(m.ptx.find(".shared .align 16 .b8 A_shared[1024]"), std::string::npos) << m.ptx;
    EXPECT_NE(m.ptx.find("st.shared.f32"), std::string::npos);
    EXPECT_NE(m.ptx.find("ld.shared.f32"), std::string::npos);
    // Two barriers per step of k_outer (before the fetch, before the products), four steps.
    EXPECT_EQ(testsupport::occurrences(m.ptx, "bar.sync"), 8u) << m.ptx;
    EXPECT_GT(testsupport::occurrences(m.ptx, "fma.rn.f32"), 0u)
        << "multiply-adds fuse, as nvcc's -fmad=true";
    ASSERT_EQ(m.kernels.size(), 1u);
    EXPECT_EQ(m.kernels[0].sharedBytes, 2048);
    EXPECT_EQ(constant(m.kernels[0].grid[1]), 4);
    EXPECT_EQ(constant(m.kernels[0].block[0]), 16);
    EXPECT_EQ(constant(m.kernels[0].block[1]), 16);
}

TEST(Nvptx, ReductionsAcrossThreadsShuffleWithTheSyncFormsOnEveryArchitecture)
{
    const std::string script = readSourceFile("tests/data/gpu/reductions.py");
    for (int sm : {50, 70, 90}) {
        SCOPED_TRACE(sm);
        PtxModule m = generatePtx(gpuFunction(script, "warps"), GpuTarget{"cuda", sm});
        // Five steps within each warp, two over the three warps' results.
        EXPECT_EQ(testsupport::occurrences(m.ptx, "shfl.sync.down.b32"), 7u) << m.ptx;
        EXPECT_EQ(testsupport::occurrences(m.ptx, "shfl.down"), 0u)
            << "the forms without .sync abort LLVM 16";
        EXPECT_GT(testsupport::occurrences(m.ptx, "activemask.b32"), 0u);
        EXPECT_GE(testsupport::occurrences(m.ptx, "bar.sync"), 2u)
            << "the warps' results pass through shared memory";
        if (sm == 50) {
            EXPECT_NE(m.ptx.find(".version 6.3"), std::string::npos) << m.ptx;
        }
        ASSERT_EQ(m.kernels.size(), 1u);
        EXPECT_EQ(m.kernels[0].sharedBytes, 16) << "red_buf_staging[3] and red_result[1]";
    }
    PtxModule tree = generatePtx(gpuFunction(script, "tree"), GpuTarget{"cuda", 80});
    EXPECT_EQ(testsupport::occurrences(tree.ptx, "shfl."), 0u);
    EXPECT_EQ(tree.kernels[0].sharedBytes, 48 * 4);
    PtxModule warp = generatePtx(gpuFunction(script, "warp"), GpuTarget{"cuda", 80});
    EXPECT_EQ(testsupport::occurrences(warp.ptx, "shfl.sync.down.b32"), 5u);
    EXPECT_EQ(testsupport::occurrences(warp.ptx, "shfl.sync.idx.b32"), 1u)
        << "the result broadcast from lane 0";
    EXPECT_EQ(testsupport::occurrences(warp.ptx, "bar.sync"), 0u) << warp.ptx;
}

// LLVM 16's NVPTX back end aborts on llvm.exp, llvm.log and llvm.pow: these come from libclc,
// linked in, leaving PTX that calls nothing outside itself.
TEST(Nvptx, MathFunctionsComeFromLibclcAndTheKernelCallsNothingOutside)
{
    const std::string script = R"(from tvm import te
A = te.placeholder((1024,), name="A")
B = te.compute((1024,), lambda i: te.exp(A[i]) + te.log(A[i]) + te.tanh(A[i]) + te.sigmoid(A[i]), name="B")
s = te.create_schedule(B.op)
bx, tx = s[B].split(B.op.axis[0], factor=64)
s[B].bind(bx, te.thread_axis("blockIdx.x"))
s[B].bind(tx, te.thread_axis("threadIdx.x"))
)";
    PtxModule m = generatePtx(gpuFunction(script), GpuTarget{"cuda", 80});
    EXPECT_NE(m.ptx.find(".visible .entry main_kernel("), std::string::npos) << m.ptx;
    EXPECT_EQ(m.ptx.find(".extern"), std::string::npos) << m.ptx;
    EXPECT_EQ(m.ptx.find("call."), std::string::npos) << "libclc's functions are inlined";
    EXPECT_EQ(m.ptx.find(".visible .func"), std::string::npos) << "only the kernel is visible";
    EXPECT_EQ(m.ptx.find(".weak"), std::string::npos) << "libclc's tables stay private";
    EXPECT_NE(m.ptx.find(".const .align 4 .b8 LOG_INV_TBL"), std::string::npos)
        << "log's table from libclc";

    setenv("LOOPSCOPE_LIBCLC", "/nonexistent/nvptx64--nvidiacl.bc", 1);
    try {
        generatePtx(gpuFunction(script), GpuTarget{"cuda", 80});
        ADD_FAILURE() << "compiled without libclc";
    } catch (const CodegenError& e) {
        EXPECT_NE(std::string(e.what()).find("install Debian's libclc-16"), std::string::npos)
            << e.what();
    }
    unsetenv("LOOPSCOPE_LIBCLC");
}

TEST(Nvptx, AStageOutsideEveryKernelIsRefused)
{
    const std::string script = R"(from tvm import te
A = te.placeholder((1024,), name="A")
B = te.compute((1024,), lambda i: A[i] * 2.0, name="B")
C = te.compute((1024,), lambda i: B[i] + 1.0, name="C")
s = te.create_schedule(C.op)
bx, tx = s[C].split(C.op.axis[0], factor=64)
s[C].bind(bx, te.thread_axis("blockIdx.x"))
s[C].bind(tx, te.thread_axis("threadIdx.x"))
)";
    try {
        generatePtx(gpuFunction(script), GpuTarget{"cuda", 80});
        FAIL() << "B runs on the host";
    } catch (const CodegenError& e) {
        EXPECT_NE(std::string(e.what()).find("Did you forget to bind?"), std::string::npos)
            << e.what();
    }
}

} // namespace
} // namespace loopscope
