// Every script in tests/data/errors is a mistake a user could make. `loopscope-cli check` must
// exit with 1 and report it at the expected line, in the expected words. The first line of each
// script says what is expected: "# expect: LINE: message fragment".
#include "support/RunShell.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using loopscope::testing::RunResult;

// stdout and stderr together.
RunResult runCli(const std::string& args)
{
    return loopscope::testing::runShell(std::string(LOOPSCOPE_CLI) + " " + args + " 2>&1");
}

struct Expectation {
    int line = 0;
    std::string fragment;
};

Expectation readExpectation(const fs::path& file)
{
    std::ifstream in(file);
    std::string first;
    std::getline(in, first);
    Expectation e;
    const std::string prefix = "# expect: ";
    if (first.rfind(prefix, 0) != 0) return e;
    std::string rest = first.substr(prefix.size());
    auto colon = rest.find(':');
    e.line = std::stoi(rest.substr(0, colon));
    e.fragment = rest.substr(colon + 2);
    return e;
}

std::vector<fs::path> errorScripts()
{
    std::vector<fs::path> out;
    for (auto& entry : fs::directory_iterator(fs::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/errors"))
        if (entry.path().extension() == ".py") out.push_back(entry.path());
    std::sort(out.begin(), out.end());
    return out;
}

class CliErrors : public testing::TestWithParam<fs::path> {};

TEST_P(CliErrors, ReportsTheMistakeAtItsLine)
{
    fs::path file = GetParam();
    Expectation e = readExpectation(file);
    ASSERT_GT(e.line, 0) << file << " has no '# expect: LINE: message' first line";
    RunResult r = runCli("check '" + file.string() + "'");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    std::string where = file.string() + ":" + std::to_string(e.line) + ":";
    EXPECT_NE(r.output.find(where), std::string::npos)
        << "expected a diagnostic at " << where << "\n"
        << r.output;
    EXPECT_NE(r.output.find(": error: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(e.fragment), std::string::npos)
        << "expected '" << e.fragment << "' in:\n"
        << r.output;
}

INSTANTIATE_TEST_SUITE_P(Scripts, CliErrors, testing::ValuesIn(errorScripts()),
                         [](const testing::TestParamInfo<fs::path>& info) {
                             return info.param.stem().string();
                         });

TEST(CliErrorsCorpus, HasAtLeastFortyDistinctMistakes)
{
    EXPECT_GE(errorScripts().size(), 40u);
}

TEST(CliUsage, UnknownCommandIsAUsageError)
{
    RunResult r = runCli("frobnicate x.py");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("unknown command"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("usage: loopscope-cli COMMAND FILE"), std::string::npos) << r.output;
}

// Every command answers its own --help at once (exit 0, without reading a file or starting a
// worker), naming itself and the options every command shares.
TEST(CliUsage, EveryCommandAnswersItsOwnHelp)
{
    for (const char* command : {"lower", "check", "run", "bench", "sweep", "profile", "machine",
                                "tune", "export", "model"}) {
        RunResult r = runCli(std::string(command) + " --help");
        EXPECT_EQ(r.exitCode, 0) << command << ":\n" << r.output;
        EXPECT_NE(r.output.find("usage: loopscope-cli " + std::string(command)), std::string::npos)
            << command << ":\n"
            << r.output;
        // -h too, and after other arguments.
        r = runCli(std::string(command) + " some.py -h");
        EXPECT_EQ(r.exitCode, 0) << command << " -h:\n" << r.output;
    }
    RunResult tune = runCli("tune --help");
    EXPECT_NE(tune.output.find("--trials N"), std::string::npos) << tune.output;
    EXPECT_EQ(tune.output.find("  export FILE"), std::string::npos) << tune.output; // its own
    EXPECT_NE(tune.output.find("--max-unroll N"), std::string::npos) << tune.output;
}

// A mistake in a command's options shows that command's usage, not every command's.
TEST(CliUsage, AnUnknownOptionShowsItsCommandsUsage)
{
    RunResult r = runCli("tune x.py --frobnicate");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("unknown option '--frobnicate' for tune"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("usage: loopscope-cli tune FILE"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("  sweep  FILE"), std::string::npos) << r.output;
}

// A run's --target chooses the CPU model only: this machine's features stay.
// --runner and --runners: an empty command or no runner at all is a usage error, before any
// worker is started.
TEST(CliUsage, RunnerOptionsRefuseAnEmptyCommandAndNoRunners)
{
    const std::string sample = "'" + std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/add_relu.py'";
    RunResult r = runCli("tune " + sample + " --runner '  ' 2>&1");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--runner needs the command that starts loopscope-worker"),
              std::string::npos)
        << r.output;
    r = runCli("tune " + sample + " --runners 0 2>&1");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--runners must be 1 or more"), std::string::npos) << r.output;
    r = runCli("model tune model.onnx --runners 0 2>&1");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--runners: '0' is not a positive number"), std::string::npos)
        << r.output;
    r = runCli("model tune model.onnx --runner '' 2>&1");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--runner needs the command"), std::string::npos) << r.output;
}

TEST(CliUsage, ARunsTargetNamesACpuModelOnly)
{
    const std::string gemm = "'" + std::string(LOOPSCOPE_SOURCE_DIR) +
                             "/samples/opt_gemm.py' --set M=64 --set N=64 " +
                             "--set K=64 --variant baseline ";
    RunResult r = runCli("run " + gemm + "--check --target 'llvm -mcpu=generic'");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    r = runCli("run " + gemm + "--target 'llvm -mcpu=znver99'");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--target: -mcpu=znver99 names no CPU"), std::string::npos) << r.output;
    r = runCli("bench " + gemm + "--target 'llvm -mcpu=generic -mattr=+avx512f'");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("takes \"llvm -mcpu=CPU\" alone"), std::string::npos) << r.output;
}

// --forbid takes the primitives the tuner writes, and says which those are.
TEST(CliUsage, ForbidTakesThePrimitivesTheTunerWrites)
{
    const std::string gemm = "'" + std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/opt_gemm.py' ";
    RunResult r = runCli("tune " + gemm + "--forbid split,storage_align");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find(
                  "--forbid: 'storage_align' is not a primitive the tuner writes (it "
                  "writes: split, reorder, fuse, parallel, vectorize, unroll, pragma, "
                  "compute_at, compute_inline, cache_write, cache_read, rfactor, bind, tensorize)"),
              std::string::npos)
        << r.output;
    r = runCli("tune " + gemm + "--forbid splat");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--forbid: 'splat' is not a schedule primitive"), std::string::npos)
        << r.output;
}

TEST(CliUsage, UnknownParameterIsAUsageError)
{
    RunResult r = runCli("check " + std::string(LOOPSCOPE_SOURCE_DIR) +
                         "/samples/matmul_ladder.py --set Q=4");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("no such parameter"), std::string::npos) << r.output;
    // The command line is well formed; the usage text would bury the answer.
    EXPECT_EQ(r.output.find("usage:"), std::string::npos) << r.output;
}

TEST(CliUsage, UnknownVariantIsAUsageError)
{
    RunResult r = runCli("lower " + std::string(LOOPSCOPE_SOURCE_DIR) +
                         "/samples/matmul_ladder.py --variant nope");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("no variant 'nope'"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("usage:"), std::string::npos) << r.output;
}

TEST(CliUsage, MissingFileIsAUsageError)
{
    RunResult r = runCli("lower /nonexistent/script.py");
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("cannot read '/nonexistent/script.py'"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("usage:"), std::string::npos) << r.output;
}

TEST(CliLower, JsonHasEveryVariant)
{
    RunResult r = runCli("lower " + std::string(LOOPSCOPE_SOURCE_DIR) +
                         "/samples/matmul_ladder.py --set M=64 --set N=64 --set K=64 --json");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    for (const char* name : {"\"naive\"", "\"tile 32x32\"", "\"split k\"", "\"vectorize\"",
                             "\"parallel\"", "\"unroll\""})
        EXPECT_NE(r.output.find(name), std::string::npos) << name;
}

TEST(CliLower, GpuBindingsAreShownAndNoted)
{
    RunResult r =
        runCli("lower " + std::string(LOOPSCOPE_SOURCE_DIR) + "/tests/data/scripts/gpu_bind.py");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("threadIdx_x = T.launch_thread(\"threadIdx.x\", 64)"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("note: variant 's' binds loops to GPU thread axes"), std::string::npos)
        << r.output;
}

TEST(CliLower, StructuredShowsLoopKindsBeforeExpansion)
{
    RunResult r = runCli(
        "lower " + std::string(LOOPSCOPE_SOURCE_DIR) +
        "/samples/matmul_ladder.py --variant unroll --set M=64 --set N=64 --set K=64 --structured");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("for k_inner in T.unroll(4):"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("T.vectorized(8)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("C[i_outer * 32 + i_inner"), std::string::npos) << r.output;
}

} // namespace

// Buffers larger than the machine's memory are refused at the variant, before any compiling or
// allocating, instead of ending in std::bad_alloc or swapping: eleven float32 tensors of 2e9
// elements (each within 32-bit indices) need 88 GB.
TEST(CliLimits, BuffersLargerThanTheMachineAreRefusedAtTheVariant)
{
    const std::string file = "/tmp/loopscope-memory-" + std::to_string(::getpid()) + ".py";
    {
        std::ofstream out(file);
        out << "from tvm import te\nN = 2000000000\n";
        std::string sum;
        for (int i = 0; i < 10; ++i) {
            out << "A" << i << " = te.placeholder((N,), name=\"A" << i << "\")\n";
            sum += (i ? " + A" : "A") + std::to_string(i) + "[i]";
        }
        out << "B = te.compute((N,), lambda i: " << sum << ", name=\"B\")\n"
            << "s = te.create_schedule(B.op)\n";
    }
    RunResult r = runCli("run " + file);
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find(":14:1: error: the buffers of variant 's' need 88.0 GB; this machine "
                            "has"),
              std::string::npos)
        << r.output;
    std::remove(file.c_str());
}

// --max-unroll moves the unroll bound, just under and just over a kernel's count of copies
// (64 copies of C's body and 64 x 64 of B's: 4,160).
TEST(CliLimits, MaxUnrollSetsTheBoundOnUnrolledCopies)
{
    const std::string file =
        std::string(LOOPSCOPE_SOURCE_DIR) + "/tests/data/errors/unroll_inside_unrolled_consumer.py";
    RunResult at = runCli("check " + file + " --max-unroll 4160");
    EXPECT_EQ(at.exitCode, 0) << at.output;
    RunResult over = runCli("check " + file + " --max-unroll 4159");
    EXPECT_EQ(over.exitCode, 1) << over.output;
    EXPECT_NE(over.output.find("4160 copies of loop bodies"), std::string::npos) << over.output;
    EXPECT_NE(over.output.find("at most 4159 are made in one kernel"), std::string::npos)
        << over.output;
    RunResult bad = runCli("check " + file + " --max-unroll 0");
    EXPECT_EQ(bad.exitCode, 2) << bad.output;
    EXPECT_NE(bad.output.find("--max-unroll must be at least 1"), std::string::npos) << bad.output;
}

// An element that needs more reference steps than --max-reference-steps is not compared, and
// the check says so instead of "ok".
TEST(CliLimits, MaxReferenceStepsLeavesCostlyElementsUncomparedAndSaysSo)
{
    const std::string file = std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/opt_gemm.py";
    const std::string sizes = " --variant baseline --set M=64 --set N=64 --set K=64 --check";
    RunResult at = runCli("run " + file + sizes + " --max-reference-steps 64");
    EXPECT_EQ(at.exitCode, 0) << at.output;
    EXPECT_NE(at.output.find("C ok (4096 elements"), std::string::npos) << at.output;
    RunResult under = runCli("run " + file + sizes + " --max-reference-steps 63");
    EXPECT_EQ(under.exitCode, 0) << under.output;
    EXPECT_NE(under.output.find("C not checked: C[0, 0] needs more than 63 steps of the "
                                "reference interpreter"),
              std::string::npos)
        << under.output;
}

// Indices are 32-bit: the largest tensor that fits passes, one element more is refused at its
// shape (constant sizes) or at the variant (symbolic sizes given at run time), not left to wrap.
TEST(CliLimits, TensorsPast32BitIndicesAreRefused)
{
    const std::string addRelu = std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/add_relu.py";
    RunResult at = runCli("check " + addRelu + " --set N=2147483647");
    EXPECT_EQ(at.exitCode, 0) << at.output;
    RunResult over = runCli("check " + addRelu + " --set N=2147483648");
    EXPECT_EQ(over.exitCode, 1) << over.output;
    EXPECT_NE(over.output.find("add_relu.py:7:20: error: 'A' would have 2147483648 elements; "
                               "tensors are indexed with 32-bit integers"),
              std::string::npos)
        << over.output;

    const std::string symbolic = "/tmp/loopscope-symbolic-" + std::to_string(::getpid()) + ".py";
    {
        std::ofstream out(symbolic);
        out << "from tvm import te\n"
               "n = te.var(\"n\")\n"
               "A = te.placeholder((n, n), name=\"A\")\n"
               "B = te.compute((n, n), lambda i, j: A[i, j] * 2, name=\"B\")\n"
               "s = te.create_schedule(B.op)\n";
    }
    RunResult big = runCli("run " + symbolic + " --set n=46341");
    EXPECT_EQ(big.exitCode, 1) << big.output;
    EXPECT_NE(big.output.find(":5:1: error: tensor 'A' would have 2147488281 elements with these "
                              "sizes"),
              std::string::npos)
        << big.output;
    std::remove(symbolic.c_str());
}
