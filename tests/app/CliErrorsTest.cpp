// Every script in tests/data/errors is a mistake a user could make. `loopscope-cli check` must
// exit with 1 and report it at the expected line, in the expected words. The first line of each
// script says what is expected: "# expect: LINE: message fragment".
#include "RunShell.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

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
// allocating, instead of ending in std::bad_alloc or swapping.
TEST(CliLimits, BuffersLargerThanTheMachineAreRefusedAtTheVariant)
{
    RunResult r = runCli("run " + std::string(LOOPSCOPE_SOURCE_DIR) +
                         "/samples/opt_gemm.py --variant baseline --set M=200000 --set N=200000 "
                         "--set K=200000");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("opt_gemm.py:27:1: error: the buffers of variant 'baseline' need "
                            "480.0 GB; this machine has"),
              std::string::npos)
        << r.output;
}
