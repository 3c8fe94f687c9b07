// GPU schedules checked on the CPU: kernels run as loops, with the threads of a block in turn
// between barriers, give the reference's results; without the barriers, the shared-memory
// schedule reads tiles other threads have not fetched yet and the check fails.
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "lower/gpu/EmulateThreads.h"
#include "lower/gpu/ThreadAllreduce.h"
#include "runtime/LocalRun.h"
#include "runtime/RuntimeJit.h"

#include "support/SourceFiles.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>

namespace loopscope {
namespace {

bool allOk(const std::vector<OutputCheck>& checks)
{
    for (auto& c : checks)
        if (!c.result.ok) return false;
    return !checks.empty();
}

// Runs a variant's lowered program on the CPU as `asCpu` makes it, in place of the run's own,
// and says whether its outputs pass the check; then whether they do after the run's own program.
struct Checks {
    bool altered = false, own = false;
};
Checks checkAlteredThenOwn(const Program& program, const Variant& v,
                           const std::function<Stmt(const Stmt&)>& asCpu)
{
    auto jit = createRuntimeJit();
    RunConfig config;
    config.jit = jit.get();
    auto run = PreparedRun::prepare(program, v, config);
    PrimFunc altered = run->lowered().func;
    altered.body = asCpu(altered.body);
    auto kernel = jit->compile(altered, 3, false);
    std::vector<void*> pointers;
    for (auto& b : run->buffers())
        pointers.push_back(const_cast<void*>(b.data()));
    kernel->run(pointers.data(), nullptr);
    Checks out;
    out.altered = allOk(run->check());
    run->run();
    out.own = allOk(run->check());
    return out;
}

class GpuEmulation : public testing::TestWithParam<const char*> {};

TEST_P(GpuEmulation, EveryVariantMatchesTheReference)
{
    EvalResult r = evaluateScript(readSourceFile(GetParam()));
    ASSERT_TRUE(r.ok) << r.error.message;
    auto jit = createRuntimeJit();
    RunConfig config;
    config.jit = jit.get();
    for (auto& v : r.program.variants) {
        SCOPED_TRACE(v.name);
        auto run = PreparedRun::prepare(r.program, v, config);
        run->run();
        EXPECT_TRUE(allOk(run->check()));
        EXPECT_TRUE(run->isGpu());
    }
}

INSTANTIATE_TEST_SUITE_P(
    Scripts, GpuEmulation,
    testing::Values("tests/data/gpu/matmul_shared.py", "tests/data/gpu/reductions.py",
                    "tests/data/gpu/launch_inside_loops.py",
                    "tests/data/gpu/double_buffer_reduction.py",
                    "tests/data/tvm-gpu/row_max_allreduce.py",
                    "tests/data/tvm-gpu/vector_add_bind.py",
                    "tests/data/tvm-gpu/conv_shared_vthread.py",
                    "tests/data/gpu-without-golden/reduction_store_predicate.py"));

// set_store_predicate: the first thread of the cross-thread reduction stores its result, under
// the predicate the script gives (once: not a second guard of Loopscope's own); a predicate
// naming a thread the stage does not bind is refused at its line.
TEST(GpuEmulation, AStorePredicateGuardsTheStoreOfTheSharedSum)
{
    const std::string text =
        readSourceFile("tests/data/gpu-without-golden/reduction_store_predicate.py");
    EvalResult r = evaluateScript(text);
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants[0];
    EXPECT_EQ(v.steps.back().primitive, "set_store_predicate");
    const std::string lowered = printTVMScript(lowerSchedule(v.schedule(), v.args).func);
    const std::size_t guard = lowered.find("if threadIdx_x == 0:");
    ASSERT_NE(guard, std::string::npos) << lowered;
    EXPECT_EQ(lowered.find("if threadIdx_x == 0:", guard + 1), std::string::npos) << lowered;
    EXPECT_NE(lowered.find("T.tvm_thread_allreduce("), std::string::npos) << lowered;

    std::string unbound = text;
    unbound.replace(unbound.find("tx.var.equal(0)"), 15,
                    "te.thread_axis(\"threadIdx.z\").var.equal(0)");
    EvalResult u = evaluateScript(unbound);
    ASSERT_TRUE(u.ok) << u.error.message;
    try {
        lowerSchedule(u.program.variants[0].schedule(), u.program.variants[0].args);
        ADD_FAILURE() << "a predicate of an unbound thread lowered";
    } catch (const UserError& e) {
        EXPECT_EQ(e.diagnostic().loc.line, 24);
        EXPECT_NE(e.diagnostic().message.find("no loop of 'B' is bound to it"), std::string::npos)
            << e.diagnostic().message;
    }
}

TEST(GpuEmulation, WithoutBarriersTheSharedTilesAreReadBeforeTheyAreFetched)
{
    EvalResult r = evaluateScript(readSourceFile("tests/data/gpu/matmul_shared.py"));
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant* v = r.program.findVariant("shared");
    ASSERT_NE(v, nullptr);
    const Checks c = checkAlteredThenOwn(r.program, *v, emulateThreadsOnCpu);
    EXPECT_FALSE(c.altered);
    EXPECT_TRUE(c.own);
}

// A reduction across threads whose shuffles exchange values without barriers between the
// writes and the reads gives wrong sums: the check sees what a missing barrier would do.
TEST(GpuEmulation, ShufflesWithoutBarriersReadValuesNotYetExchanged)
{
    EvalResult r = evaluateScript(readSourceFile("tests/data/gpu/reductions.py"));
    ASSERT_TRUE(r.ok) << r.error.message;
    for (const char* name : {"warp", "warps", "tree"}) {
        SCOPED_TRACE(name);
        const Variant* v = r.program.findVariant(name);
        ASSERT_NE(v, nullptr);
        const Checks c = checkAlteredThenOwn(r.program, *v, [](const Stmt& body) {
            return emulateThreadsOnCpu(exchangeShufflesInSharedMemory(lowerThreadAllreduce(body)));
        });
        EXPECT_FALSE(c.altered);
        EXPECT_TRUE(c.own);
    }
}

// The GPU samples at sizes the CPU checks in seconds: every variant matches the reference.
struct GpuSample {
    const char* file;
    std::map<std::string, std::int64_t> sizes;
};

void PrintTo(const GpuSample& s, std::ostream* os)
{
    *os << s.file;
}

class GpuSamples : public testing::TestWithParam<GpuSample> {};

TEST_P(GpuSamples, EveryVariantMatchesTheReferenceAtSmallSizes)
{
    EvalResult r = evaluateScript(readSourceFile(GetParam().file), GetParam().sizes);
    ASSERT_TRUE(r.ok) << r.error.message;
    auto jit = createRuntimeJit();
    RunConfig config;
    config.jit = jit.get();
    for (auto& v : r.program.variants) {
        SCOPED_TRACE(v.name);
        auto run = PreparedRun::prepare(r.program, v, config);
        run->run();
        EXPECT_TRUE(allOk(run->check()));
    }
}

INSTANTIATE_TEST_SUITE_P(
    Samples, GpuSamples,
    testing::Values(GpuSample{"samples/gpu/matmul_cuda.py", {{"N", 128}}},
                    GpuSample{
                        "samples/gpu/opt_conv_cuda.py",
                        {{"batch", 64}, {"in_channel", 16}, {"out_channel", 128}, {"in_size", 4}}},
                    GpuSample{"samples/gpu/softmax_cuda.py", {{"N", 8}, {"M", 512}}},
                    GpuSample{"samples/gpu/add_relu_cuda.py", {{"N", 4096}}}),
    [](const testing::TestParamInfo<GpuSample>& info) {
        return std::filesystem::path(info.param.file).stem().string();
    });

} // namespace
} // namespace loopscope
