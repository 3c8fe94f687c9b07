// GPU variants as the host runs them through the GPU runner (loopscope-runner, the real program):
// the request a variant becomes (its PTX, buffers and seeds, each launch's shape), what the host
// says when there is no runner, no driver or a runner that dies, and on a machine with a GPU and
// its driver (a lent machine), a run that comes back checked and timed.
#include "runtime/GpuRun.h"
#include "codegen/Codegen.h"
#include "protocol/Codec.h"
#include "runtime/LocalRun.h"
#include "runtime/RuntimeJit.h"
#include "runtime/VariantRun.h"
#include "support/SourceFiles.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace {

using namespace loopscope;

Program load(const std::string& path)
{
    EvalResult r = evaluateScript(readSourceFile(path));
    EXPECT_TRUE(r.ok) << r.error.message;
    return r.program;
}

bool hasNote(const std::vector<std::string>& notes, const std::string& fragment)
{
    return std::any_of(notes.begin(), notes.end(),
                       [&](const std::string& n) { return n.find(fragment) != std::string::npos; });
}

TEST(GpuRun, AVariantIsOneRequestOfKernelsLaunchesAndSeededBuffers)
{
    const Program p = load("tests/data/gpu/matmul_shared.py");
    auto jit = createRuntimeJit();
    RunConfig config;
    config.jit = jit.get();
    config.seed = 5;
    const Variant& v = *p.findVariant("shared");
    auto run = PreparedRun::prepare(p, v, config);
    ASSERT_TRUE(run->isGpu());
    BenchmarkOptions timing;
    timing.repeat = 7;
    const protocol::GpuRunRequest r = gpuRunRequest(*run, 80, timing);
    EXPECT_NE(r.ptx.find(".target sm_80"), std::string::npos);
    EXPECT_EQ(r.repeat, 7);
    // The arguments in order: the inputs made from the seeds the host's buffers were filled from
    // (so that the host's reference sees the same inputs), the output returned.
    ASSERT_EQ(r.buffers.size(), 3u);
    EXPECT_EQ(r.buffers[0].name, "A");
    EXPECT_EQ(r.buffers[0].seed, run->inputSeed(0));
    EXPECT_EQ(r.buffers[1].seed, run->inputSeed(1));
    EXPECT_FALSE(r.buffers[0].returned);
    EXPECT_EQ(r.buffers[2].name, "C");
    EXPECT_FALSE(r.buffers[2].seed);
    EXPECT_TRUE(r.buffers[2].returned);
    EXPECT_EQ(r.buffers[2].shape, (std::vector<std::int64_t>{64, 64}));
    // One kernel over 4x4 blocks of 16x16 threads, taking A, B and C, named in the PTX.
    ASSERT_EQ(r.launches.size(), 1u);
    const protocol::GpuLaunch& l = r.launches[0];
    EXPECT_NE(r.ptx.find(".entry " + l.kernel + "("), std::string::npos) << l.kernel;
    EXPECT_EQ(l.grid, (std::array<std::int64_t, 3>{4, 4, 1}));
    EXPECT_EQ(l.block, (std::array<std::int64_t, 3>{16, 16, 1}));
    EXPECT_EQ(l.buffers, (std::vector<int>{0, 1, 2}));
}

// Each GPU program's reference line, found from what it computes: cuBLAS's matmul for the
// tutorial's A^T B, cuDNN's convolution (NCHW, KCRS) for the tutorial's HWCN convolution with
// its padding inlined, and neither for an element-wise program, which moves more bytes than it
// does operations (the copy's bandwidth is its reference). A request carries them to the runner.
TEST(GpuRun, EachProgramsReferenceIsFoundFromWhatItComputes)
{
    auto jit = createRuntimeJit();
    RunConfig config;
    config.jit = jit.get();
    auto prepared = [&](const std::string& file, const std::map<std::string, std::int64_t>& sets,
                        const std::string& variant) {
        EvalResult r = evaluateScript(readSourceFile(file), sets);
        EXPECT_TRUE(r.ok) << r.error.message;
        static std::vector<Program> keep;
        keep.push_back(r.program);
        return PreparedRun::prepare(keep.back(), *keep.back().findVariant(variant), config);
    };
    auto conv = prepared("samples/gpu/opt_conv_cuda.py",
                         {{"batch", 8}, {"in_channel", 16}, {"out_channel", 32}, {"in_size", 10}},
                         "how-to");
    const std::optional<protocol::GpuConv> g = gpuConvOf(*conv);
    ASSERT_TRUE(g);
    EXPECT_EQ(*g, (protocol::GpuConv{8, 16, 10, 10, 32, 3, 3, 1, 1, 1, 1}));
    EXPECT_FALSE(gpuGemmOf(*conv));

    auto mm = prepared("samples/gpu/matmul_cuda.py", {{"N", 64}}, "bind");
    EXPECT_TRUE(gpuGemmOf(*mm));
    EXPECT_FALSE(gpuConvOf(*mm));

    auto add = prepared("samples/gpu/add_relu_cuda.py", {{"N", 4096}}, "bind");
    EXPECT_FALSE(gpuGemmOf(*add));
    EXPECT_FALSE(gpuConvOf(*add));
    EXPECT_EQ(argumentBytes(*add), 3 * 4096 * 4);
    EXPECT_LT(add->flops(), static_cast<double>(argumentBytes(*add)));

    protocol::GpuRunRequest request = gpuRunRequest(*conv, 90, BenchmarkOptions{});
    request.cudnn = g;
    request.copyBytes = 1 << 20;
    std::optional<std::int64_t> id;
    const protocol::IncomingRequest back =
        protocol::decodeRequest(protocol::encodeRequest(request, 3), &id);
    EXPECT_EQ(std::get<protocol::GpuRunRequest>(back.request), request);
}

TEST(GpuRun, KernelsThatPassAStageOnGetAWorkspace)
{
    // The softmax's three kernels: the row maxima and sums live in global workspaces between them.
    const Program p = load("samples/gpu/softmax_cuda.py");
    auto jit = createRuntimeJit();
    RunConfig config;
    config.jit = jit.get();
    config.symbols = {};
    const Variant& v = p.variants.front();
    auto run = PreparedRun::prepare(p, v, config);
    const protocol::GpuRunRequest r = gpuRunRequest(*run, 70, {});
    EXPECT_GT(r.launches.size(), 1u);
    EXPECT_GT(r.buffers.size(), v.args.size());
    for (std::size_t i = v.args.size(); i < r.buffers.size(); ++i) {
        EXPECT_EQ(r.buffers[i].dtype, "uint8");
        EXPECT_FALSE(r.buffers[i].seed);
        EXPECT_FALSE(r.buffers[i].returned);
    }
    for (const protocol::GpuLaunch& l : r.launches)
        for (int b : l.buffers)
            EXPECT_LT(static_cast<std::size_t>(b), r.buffers.size());
}

TEST(GpuRun, WithoutAGpuAVariantIsCheckedHereAndNotTimed)
{
    const Program p = load("tests/data/gpu/matmul_shared.py");
    auto jit = createRuntimeJit();
    GpuRunner runner({LOOPSCOPE_RUNNER});
    if (runner.device()) GTEST_SKIP() << "this machine has a GPU: " << runner.device()->name;
    EXPECT_NE(runner.unavailable().find("no NVIDIA driver here"), std::string::npos)
        << runner.unavailable();
    VariantRunOptions options;
    options.config.jit = jit.get();
    options.config.gpu = &runner;
    options.time = true; // asked, but nothing of a CPU's time says what a GPU's would be
    for (const Variant& v : p.variants) {
        SCOPED_TRACE(v.name);
        const VariantRunOutcome out = runVariant(p, v, options);
        EXPECT_TRUE(out.checked());
        EXPECT_FALSE(out.timing);
        EXPECT_TRUE(hasNote(out.notes, std::string(kNoGpuNote) + " (no NVIDIA driver here"));
    }
    // The runner refuses a run with the driver's absence, and the host says so.
    auto run = PreparedRun::prepare(p, p.variants.front(), options.config);
    try {
        runner.run(gpuRunRequest(*run, 80, {}));
        FAIL() << "a GPU run without a driver";
    } catch (const CodegenError& e) {
        EXPECT_NE(std::string(e.what()).find("libcuda.so.1"), std::string::npos) << e.what();
    }
}

TEST(GpuRun, NoRunnerOrOneThatDiesIsSaid)
{
    GpuRunner none({});
    EXPECT_FALSE(none.device());
    EXPECT_NE(none.unavailable().find("not found"), std::string::npos) << none.unavailable();

    GpuRunner dies({"/bin/sh", "-c", "echo the runner cannot start >&2; exit 3"});
    EXPECT_FALSE(dies.device());
    EXPECT_NE(dies.unavailable().find("exit 3): the runner cannot start"), std::string::npos)
        << dies.unavailable();
    EXPECT_THROW(dies.run({}), CodegenError);

    // A runner of another build is refused by its protocol version.
    GpuRunner other(
        {"/bin/sh", "-c",
         "read line; echo '{\"id\":1,\"status\":\"ok\",\"protocol\":99,\"version\":\"9.9\"}'"});
    EXPECT_FALSE(other.device());
    EXPECT_NE(other.unavailable().find("Loopscope 9.9"), std::string::npos) << other.unavailable();
}

TEST(GpuRun, OnAGpuEveryVariantIsCheckedAndTimed)
{
    GpuRunner runner({LOOPSCOPE_RUNNER});
    if (!runner.device()) GTEST_SKIP() << "no GPU here: " << runner.unavailable();
    const Program p = load("tests/data/gpu/matmul_shared.py");
    auto jit = createRuntimeJit();
    VariantRunOptions options;
    options.config.jit = jit.get();
    options.config.gpu = &runner;
    options.check = true;
    options.time = true;
    for (const Variant& v : p.variants) {
        SCOPED_TRACE(v.name);
        const VariantRunOutcome out = runVariant(p, v, options);
        EXPECT_TRUE(out.checked()) << out.firstProblem();
        ASSERT_TRUE(out.timing);
        EXPECT_GT(out.timing->median, 0);
        EXPECT_TRUE(hasNote(out.notes, "ran on " + runner.device()->name));
    }
}

} // namespace
