// Races on shared memory between two barriers: none in what tvm.build makes of the GPU samples
// and test schedules (its barriers are where they must be); without the barriers, the threads of
// a block read tiles and partial sums other threads write, and the race is found and said.
#include "lower/gpu/SharedRaces.h"
#include "ir/IRMutator.h"
#include "lower/Lower.h"
#include "lower/gpu/ThreadAllreduce.h"
#include "runtime/LocalRun.h"
#include "runtime/RuntimeJit.h"
#include "te/Program.h"

#include "support/SourceFiles.h"

#include <gtest/gtest.h>

#include <chrono>

namespace loopscope {
namespace {

// Every variant of a script, as the CPU check runs it: after tvm.build's device lowering.
std::vector<std::pair<std::string, Stmt>>
devicePrograms(const std::string& file, const std::map<std::string, std::int64_t>& sizes = {})
{
    EvalResult r = evaluateScript(readSourceFile(file), sizes);
    EXPECT_TRUE(r.ok) << r.error.message;
    std::vector<std::pair<std::string, Stmt>> out;
    for (const Variant& v : r.program.variants)
        out.push_back(
            {v.name,
             lowerForDevice(lowerSchedule(v.schedule(), v.args, v.funcName).func.body, true)});
    return out;
}

Stmt withoutBarriers(const Stmt& s)
{
    class Remove : public IRMutator {
    protected:
        Stmt visitAttr(const AttrNode* op, const Stmt& self) override
        {
            if (op->key == "tvm_storage_sync") return makeEvaluate(makeInt(0));
            return IRMutator::visitAttr(op, self);
        }
    };
    return Remove().mutate(s);
}

class NoRace : public testing::TestWithParam<const char*> {};

TEST_P(NoRace, NoVariantRacesOnSharedMemory)
{
    for (const auto& [name, program] : devicePrograms(GetParam())) {
        SCOPED_TRACE(name);
        const auto t0 = std::chrono::steady_clock::now();
        const std::optional<SharedRace> race = findSharedRace(program);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        EXPECT_FALSE(race) << describeSharedRace(*race);
        RecordProperty(name + "_ms", std::to_string(ms));
    }
}

INSTANTIATE_TEST_SUITE_P(
    Scripts, NoRace,
    testing::Values("samples/gpu/matmul_cuda.py", "samples/gpu/opt_conv_cuda.py",
                    "samples/gpu/softmax_cuda.py", "samples/gpu/add_relu_cuda.py",
                    "tests/data/gpu/matmul_shared.py", "tests/data/gpu/reductions.py",
                    "tests/data/gpu/launch_inside_loops.py",
                    "tests/data/tvm-gpu/conv_shared_vthread.py"));

TEST(SharedRaces, WithoutBarriersTheTileFetchRacesWithItsReads)
{
    for (const auto& [name, program] : devicePrograms("tests/data/gpu/matmul_shared.py")) {
        if (name != "shared") continue;
        const std::optional<SharedRace> race = findSharedRace(withoutBarriers(program));
        ASSERT_TRUE(race);
        EXPECT_TRUE(race->buffer == "A_shared" || race->buffer == "B_shared") << race->buffer;
        EXPECT_NE(race->first.thread, race->second.thread);
        EXPECT_TRUE(race->first.write || race->second.write);
        const std::string text = describeSharedRace(*race);
        EXPECT_NE(text.find("with no barrier between"), std::string::npos) << text;
        EXPECT_NE(text.find(race->buffer + "["), std::string::npos) << text;
        return;
    }
    FAIL() << "no variant 'shared'";
}

TEST(SharedRaces, WithoutBarriersATreeReductionReadsPartialSumsBeingWritten)
{
    for (const auto& [name, program] : devicePrograms("tests/data/gpu/reductions.py")) {
        if (name != "tree") continue;
        const std::optional<SharedRace> race = findSharedRace(withoutBarriers(program));
        ASSERT_TRUE(race) << "the tree's halves are summed in shared memory";
        EXPECT_NE(race->first.thread, race->second.thread);
        return;
    }
    FAIL() << "no variant 'tree'";
}

// Threads that each fetch the whole tile (the fetch's loops bound to no thread) write the same
// values to the same elements: wasted work, which lowering warns of, but no race.
TEST(SharedRaces, EveryThreadWritingTheSameValueIsNoRace)
{
    const char* script = R"(import tvm
from tvm import te

N = 1024
A = te.placeholder((N,), name="A")
B = te.compute((N,), lambda i: A[i] * 2.0, name="B")
s = te.create_schedule(B.op)
AA = s.cache_read(A, "shared", [B])
bx, tx = s[B].split(B.op.axis[0], factor=64)
s[B].bind(bx, te.thread_axis("blockIdx.x"))
s[B].bind(tx, te.thread_axis("threadIdx.x"))
s[AA].compute_at(s[B], tx)
)";
    EvalResult r = evaluateScript(script);
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    const Stmt program =
        lowerForDevice(lowerSchedule(v.schedule(), v.args, v.funcName).func.body, true);
    const std::optional<SharedRace> race = findSharedRace(program);
    EXPECT_FALSE(race) << describeSharedRace(*race);
    // Without its barrier, thread 5 may read A_shared[5] while another thread writes it.
    EXPECT_TRUE(findSharedRace(withoutBarriers(program)));
}

// Partial sums accumulated in shared memory by several threads at once: one after another (as the
// CPU runs them) they compute the right values, so only the race says what a GPU would do. The
// run notes it at the line of the stage's compute_at.
TEST(SharedRaces, ARunNotesTheRaceAtTheComputeAtOfTheRacedStage)
{
    EvalResult r = evaluateScript(readSourceFile("tests/data/gpu/shared_race.py"));
    ASSERT_TRUE(r.ok) << r.error.message;
    auto jit = createRuntimeJit();
    RunConfig config;
    config.jit = jit.get();
    auto run = PreparedRun::prepare(r.program, r.program.variants.front(), config);
    std::string said;
    for (const std::string& n : run->notes())
        if (n.find("race on shared memory") != std::string::npos) said = n;
    EXPECT_EQ(said.rfind("line 24: race on shared memory: threads (0, 0, 0) and (0, 1, 0)", 0), 0u)
        << said;
    EXPECT_NE(said.find("C_shared[0]"), std::string::npos) << said;
}

} // namespace
} // namespace loopscope
