// The GPU search space on the GPU samples, tuned from their declarations: the sketches Ansor's GPU
// rules make (a matmul tiled over blocks, virtual threads and threads with shared copies, a
// narrow sum shared among threads), candidates within the block's limits, written as TVM
// statements that lower to the same loop nest, and run on this CPU with their threads as loops,
// matching the reference.
#include "Lowered.h"
#include "lower/Lower.h"
#include "runtime/LocalRun.h"
#include "runtime/RuntimeJit.h"
#include "support/SourceFiles.h"
#include "te/Program.h"
#include "tune/Features.h"
#include "tune/SketchRule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

namespace fs = std::filesystem;
using namespace loopscope;

namespace {

using loopscope::testing::lowered;

// The variant as the tuner starts a GPU search: its declaration, none of its steps.
Variant declared(const Variant& v)
{
    Variant d = v;
    d.steps.clear();
    d.snapshots = {Schedule(v.snapshots.front().outputs())};
    return d;
}

SpaceOptions gpuOptions()
{
    SpaceOptions o;
    o.gpu = GpuLimits{};
    return o;
}

// Whether the schedule's outputs match the reference when its kernels run on this CPU.
bool checksOnCpu(const Program& program, const Variant& v, std::string* why)
{
    auto jit = createRuntimeJit();
    RunConfig config;
    config.jit = jit.get();
    auto run = PreparedRun::prepare(program, v, config);
    if (!run->isGpu()) {
        *why = "no GPU kernel";
        return false;
    }
    run->run();
    auto checks = run->check();
    for (auto& c : checks)
        if (!c.result.ok) {
            *why = c.tensor + ": " + c.result.firstMismatch;
            return false;
        }
    return !checks.empty();
}

struct GpuCase {
    const char* file;
    std::map<std::string, std::int64_t> sizes;
};

void PrintTo(const GpuCase& c, std::ostream* os)
{
    *os << c.file;
}

const GpuCase kGpuCases[] = {
    {"matmul_cuda", {{"N", 128}}},
    {"add_relu_cuda", {{"N", 4096}}},
    {"softmax_cuda", {{"N", 16}, {"M", 256}}},
    {"opt_conv_cuda", {{"batch", 8}, {"in_channel", 16}, {"out_channel", 32}, {"in_size", 8}}},
};

class GpuSpaceOnSamples : public ::testing::TestWithParam<GpuCase> {};

TEST_P(GpuSpaceOnSamples, CandidatesWriteLowerTheSameAndCheck)
{
    const GpuCase& c = GetParam();
    const std::string source = readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / "gpu" /
                                        (std::string(c.file) + ".py"));
    EvalResult eval = evaluateScript(source, c.sizes);
    ASSERT_TRUE(eval.ok) << eval.error.message;
    const Variant start = declared(eval.program.variants.front());
    const SpaceOptions options = gpuOptions();
    std::string why;
    auto sketches = generateSketches(start, options, &why);
    ASSERT_FALSE(sketches.empty()) << why;
    std::mt19937_64 rng(11);
    int checked = 0, realized = 0, tried = 0;
    for (const Sketch& sk : sketches) {
        for (int n = 0; n < 5; ++n) {
            Knobs knobs = n == 0 ? defaultKnobs(sk, options) : sampleKnobs(sk, options, rng);
            ++tried;
            Realized r = realize(start, sk, knobs, options, true);
            if (n == 0) ASSERT_TRUE(r.ok) << c.file << " [" << sk.name << "]: " << r.why;
            if (!r.ok) continue;
            ++realized;
            const std::string tir = lowered(r.schedule, start.args);
            // A drawn candidate the lowering refuses (an unroll step past its bound) is one the
            // tuner sets aside; the default never is.
            if (n > 0 && tir.rfind("error", 0) == 0) continue;
            ASSERT_EQ(tir.rfind("error", 0), std::string::npos)
                << c.file << " [" << sk.name << "]: " << tir;
            std::string script = scriptWithVariant(source, start, "tuned", r.statements, true);
            EvalResult again = evaluateScript(script, c.sizes);
            ASSERT_TRUE(again.ok) << c.file << " [" << sk.name << "]: line " << again.error.loc.line
                                  << ": " << again.error.message << "\n"
                                  << script;
            const Variant* tuned = again.program.findVariant("tuned");
            ASSERT_NE(tuned, nullptr) << script;
            EXPECT_EQ(lowered(tuned->schedule(), tuned->args), tir)
                << c.file << " [" << sk.name << "]\n"
                << script;
            EXPECT_TRUE(checksOnCpu(again.program, *tuned, &why))
                << c.file << " [" << sk.name << "]: " << why << "\n"
                << script;
            ++checked;
        }
    }
    // Most draws keep to the block's limits.
    EXPECT_GE(realized * 2, tried) << c.file;
    EXPECT_GT(checked, 0);
}

INSTANTIATE_TEST_SUITE_P(GpuSamples, GpuSpaceOnSamples, ::testing::ValuesIn(kGpuCases),
                         [](const auto& info) { return std::string(info.param.file); });

// The matmul's sketch is Ansor's for a GPU: C tiled S S S R R S R S in a local cache, its host's
// outer levels bound to blocks, virtual threads and threads, A and B copied to shared memory by
// the block's threads at the reduction's outer level; the default is the tutorial's shape.
TEST(GpuSketches, MatmulIsTiledOverThreadsWithSharedCopies)
{
    const std::string source =
        readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / "gpu" / "matmul_cuda.py");
    EvalResult eval = evaluateScript(source, {{"N", 512}});
    ASSERT_TRUE(eval.ok) << eval.error.message;
    const Variant start = declared(eval.program.variants.front());
    const SpaceOptions options = gpuOptions();
    std::string why;
    auto sketches = generateSketches(start, options, &why);
    ASSERT_EQ(sketches.size(), 1u) << why;
    EXPECT_EQ(sketches[0].name, "C: tiled for the GPU (blocks, virtual threads, threads), summed "
                                "in registers, A, B through shared memory");
    Realized r = realize(start, sketches[0], defaultKnobs(sketches[0], options), options, true);
    ASSERT_TRUE(r.ok) << r.why;
    std::string all;
    for (auto& s : r.statements)
        all += s + "\n";
    for (const char* expected :
         {"C_local = s.cache_write(C, \"local\")",
          "A_shared = s.cache_read(A, \"shared\", [C_local])", "te.thread_axis(\"blockIdx.x\")",
          "te.thread_axis(\"vthread\")", "te.thread_axis(\"threadIdx.x\")",
          "s[A_shared].compute_at(s[C_local]"})
        EXPECT_NE(all.find(expected), std::string::npos) << expected << "\n" << all;
    const std::string tir = lowered(r.schedule, start.args);
    // 64 threads of 2x2 virtual threads, each summing 8x8 elements of a 64x64 tile.
    EXPECT_NE(tir.find("T.launch_thread(\"threadIdx.x\", 64)"), std::string::npos) << tir;
    EXPECT_NE(tir.find("T.launch_thread(\"blockIdx.x\", 64)"), std::string::npos) << tir;
    EXPECT_NE(tir.find("\"shared\""), std::string::npos) << tir;

    // Its features name the launch: every store under 64 threads of 2x2 virtual threads, and the
    // shared copies' stores (each thread one element, neighbours 1 apart) as shared.
    const FeatureRows rows = extractFeatures(lowerStructure(r.schedule), true);
    const auto& names = featureNames(true);
    auto column = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) -
                                        names.begin());
    };
    ASSERT_GT(rows.rows, 2);
    int shared = 0;
    for (int row = 0; row < rows.rows; ++row) {
        const float* f = &rows.values[static_cast<std::size_t>(row * rows.width)];
        EXPECT_EQ(f[column("is_gpu")], 1.0f);
        EXPECT_FLOAT_EQ(f[column("threadIdx_x_len")], std::log2(65.0f));
        EXPECT_FLOAT_EQ(f[column("vthread_len")], std::log2(5.0f));
        shared += f[column("store_shared")] == 1.0f;
    }
    EXPECT_EQ(shared, 2);
    EXPECT_LT(featureNames(false).size(), names.size());
    EXPECT_GT(gpuSharedBytes(lowerStructure(r.schedule)), 0);
}

// A narrow reduction (few outputs, a long sum) gets a branch whose sums are shared among a block's
// threads, as Ansor's cross-thread reduction; a limit past the block's threads is refused.
TEST(GpuSketches, NarrowSumsAreSharedAmongThreadsAndLimitsHold)
{
    const char* script = R"(from tvm import te
A = te.placeholder((8, 4096), name="A")
k = te.reduce_axis((0, 4096), name="k")
S = te.compute((8,), lambda i: te.sum(A[i, k], axis=k), name="S")
s = te.create_schedule(S.op)
)";
    EvalResult eval = evaluateScript(script);
    ASSERT_TRUE(eval.ok) << eval.error.message;
    const Variant& start = eval.program.variants.front();
    SpaceOptions options = gpuOptions();
    std::string why;
    auto sketches = generateSketches(start, options, &why);
    ASSERT_EQ(sketches.size(), 2u) << why;
    EXPECT_EQ(sketches[0].name, "S: each sum shared by a block's threads");
    Realized r = realize(start, sketches[0], defaultKnobs(sketches[0], options), options, true);
    ASSERT_TRUE(r.ok) << r.why;
    const std::string tir = lowered(r.schedule, start.args);
    EXPECT_NE(tir.find("tvm_thread_allreduce"), std::string::npos) << tir;
    std::string fail;
    EXPECT_TRUE(checksOnCpu(
        eval.program,
        [&] {
            EvalResult again =
                evaluateScript(scriptWithVariant(script, start, "tuned", r.statements, true));
            return *again.program.findVariant("tuned");
        }(),
        &fail))
        << fail;

    // Fewer threads allowed than the default blocks of 256: refused with the reason.
    options.gpu->maxThreadsPerBlock = 64;
    const std::string matmul =
        readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / "gpu" / "matmul_cuda.py");
    EvalResult m = evaluateScript(matmul, {{"N", 256}});
    ASSERT_TRUE(m.ok);
    const Variant mm = declared(m.program.variants.front());
    auto mmSketches = generateSketches(mm, options, &why);
    ASSERT_FALSE(mmSketches.empty());
    Knobs knobs = defaultKnobs(mmSketches[0], options);
    // Every tile level of threads at 16: 256 threads a block.
    for (const KnobSpec& k : mmSketches[0].knobs)
        if (k.kind == KnobSpec::Kind::Tile && k.levels == 5)
            knobs[static_cast<std::size_t>(k.offset + 1)] = 16;
    Realized over = realize(mm, mmSketches[0], knobs, options, false);
    EXPECT_FALSE(over.ok);
    EXPECT_NE(over.why.find("a block of 256 threads (at most 64)"), std::string::npos) << over.why;
}

} // namespace
