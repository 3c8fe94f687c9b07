// `loopscope-cli lower --footprint`, `lower --tails`, `lower --access` and `profile` as a user runs
// them: the tutorial's untransformed loop nest outgrowing L1d at its n loop, a prime-sized split's
// partial tiles, and a profile whose shares add up and land in the loop that does the work.
#include "support/RunShell.h"
#include "support/SourceFiles.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using loopscope::testing::RunResult;
using loopscope::testing::runShell;

RunResult runCli(const std::string& args)
{
    return runShell(std::string(LOOPSCOPE_CLI) + " " + args + " 2>&1");
}

const std::string kGemm256 = "'" +
                             (fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/opt_gemm.py").string() +
                             "' --set M=256 --set N=256 --set K=256 ";

TEST(CliAnalysis, FootprintsOfTheTutorialsBaseline)
{
    RunResult r = runCli("lower " + kGemm256 + "--variant baseline --footprint --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const json j = json::parse(r.output);
    const json& loops = j["variants"][0]["loops"];
    ASSERT_EQ(loops.size(), 3u) << r.output; // m, n, k
    // n: all of B (256 KiB), one row of A and of C; an iteration: a row of A, a column of B, one
    // element of C.
    EXPECT_EQ(loops[1]["loop"], "n");
    EXPECT_EQ(loops[1]["whole_loop_bytes"].get<double>(), (256 * 256 + 256 + 256) * 4);
    EXPECT_EQ(loops[1]["per_iteration_bytes"].get<double>(), (256 + 256 + 1) * 4);
    EXPECT_GT(loops[1]["line"].get<int>(), 0);
    // Text: the host's caches named.
    RunResult text = runCli("lower " + kGemm256 + "--variant baseline --footprint");
    EXPECT_NE(text.output.find("bytes touched per loop (host caches: "), std::string::npos)
        << text.output;
}

// A GPU schedule's accesses at their lines: a shared tile read by columns conflicts 32 ways, the
// kernel's occupancy is given for the architecture asked; a CPU schedule is refused.
TEST(CliAnalysis, AccessesOfAGpuKernel)
{
    const std::string file =
        "'" + (fs::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/gpu/access_patterns.py").string() +
        "' ";
    RunResult r = runShell(std::string(LOOPSCOPE_CLI) + " lower " + file +
                           "--variant 'shared columns' --access --target 'cuda -arch=sm_80' "
                           "--json 2>/dev/null");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const json k = json::parse(r.output)["variants"][0]["kernels"][0];
    EXPECT_EQ(k["threads_per_block"], 1024);
    EXPECT_EQ(k["shared_bytes"], 4096);
    EXPECT_EQ(k["arch"], "sm_80");
    EXPECT_EQ(k["occupancy"]["warps_per_sm"], 64);
    EXPECT_GT(k["ptx_registers"].get<int>(), 0);
    int conflicts = 0;
    for (const json& a : k["accesses"]) {
        EXPECT_GT(a["line"].get<int>(), 0);
        if (a["scope"] == "shared" && a["kind"] == "load") {
            EXPECT_EQ(a["bank_ways"], 32);
            ++conflicts;
        }
        if (a["scope"] == "global") {
            EXPECT_EQ(a["bytes_used"], 128);
            EXPECT_EQ(a["bytes_fetched"], 128);
        }
    }
    EXPECT_EQ(conflicts, 1);

    RunResult text = runCli("lower " + file + "--variant 'shared columns' --access");
    ASSERT_EQ(text.exitCode, 0) << text.output;
    EXPECT_NE(text.output.find("# kernel main_kernel: 1024 threads per block"), std::string::npos)
        << text.output;
    EXPECT_NE(text.output.find("= A_shared_1[threadIdx_x * 32 + threadIdx_y]  # global store T: "
                               "128 of 128 bytes fetched used (coalesced); shared load A.shared: "
                               "32-way bank conflict"),
              std::string::npos)
        << text.output;

    RunResult cpu = runCli("lower " + kGemm256 + "--variant baseline --access");
    EXPECT_EQ(cpu.exitCode, 2) << cpu.output;
    EXPECT_NE(cpu.output.find("--access is for GPU schedules"), std::string::npos) << cpu.output;
}

// A loop of a kernel that no threadIdx is bound around runs in one thread of each block: lower,
// check and run say so at the bind step, and still do their work.
TEST(CliAnalysis, ALoopOutsideEveryThreadOfABlockIsAWarning)
{
    const std::string file =
        "'" + (fs::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/gpu/serial_in_block.py").string() + "'";
    const std::string warning =
        "serial_in_block.py:8:1: warning: loop 'j' of 'B' runs serially in one thread of each "
        "block (no threadIdx is bound around it): bind it, or a part of it, to threadIdx";
    for (const char* command : {"lower ", "check "}) {
        RunResult r = runCli(command + file);
        EXPECT_EQ(r.exitCode, 0) << r.output;
        EXPECT_NE(r.output.find(warning), std::string::npos) << r.output;
    }
    RunResult run = runCli("run " + file + " --check");
    EXPECT_EQ(run.exitCode, 0) << run.output;
    EXPECT_NE(run.output.find("runs serially in one thread of each block"), std::string::npos)
        << run.output;
}

TEST(CliAnalysis, TailsOfAPrimeSizedSplit)
{
    const fs::path script =
        fs::temp_directory_path() / ("loopscope_tails_" + std::to_string(getpid()) + ".py");
    {
        std::ofstream out(script);
        out << "import tvm\nfrom tvm import te\n"
               "A = te.placeholder((97,), name=\"A\")\n"
               "B = te.compute((97,), lambda i: A[i] + 1.0, name=\"B\")\n"
               "# variant: by 8\n"
               "s = te.create_schedule(B.op)\n"
               "io, ii = s[B].split(B.op.axis[0], factor=8)\n"
               "# variant: by 97\n"
               "s = te.create_schedule(B.op)\n"
               "io, ii = s[B].split(B.op.axis[0], factor=97)\n";
    }
    RunResult r = runCli("lower '" + script.string() + "' --tails");
    fs::remove(script);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("i_inner: 8 of 104 iterations (7.7 %) run in a partial tile, 7 (6.7 %) "
                            "guarded off"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("# variant: by 97\nno partial tiles"), std::string::npos) << r.output;
}

TEST(CliAnalysis, AProfileAddsUpAndFindsTheInnerLoop)
{
    RunResult r = runCli("profile " + kGemm256 + "--variant baseline --seconds 0.3 --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const json j = json::parse(r.output);
    ASSERT_GT(j["in_kernel"].get<long>(), 100) << r.output;
    double lines = 0, k = -1;
    for (const json& l : j["lines"]) {
        lines += l["share"].get<double>();
        if (l["text"].get<std::string>().find("for k in range(256)") != std::string::npos)
            k = l["loop_share"].get<double>();
    }
    EXPECT_NEAR(lines, 1.0, 1e-6);
    EXPECT_GT(k, 0.8) << r.output;
    EXPECT_TRUE(j.contains("counters") || j.contains("counters_unavailable"));
}

// `tune --apply` writes its best into the script as a variant, and the script still checks.
TEST(CliAnalysis, TuneApplyAddsAVariantToTheScript)
{
    const fs::path dir =
        fs::temp_directory_path() / ("loopscope_tune_apply_" + std::to_string(getpid()));
    fs::create_directories(dir);
    const fs::path script = dir / "add_relu.py";
    fs::copy_file(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/add_relu.py", script,
                  fs::copy_options::overwrite_existing);
    RunResult r =
        runCli("tune '" + script.string() + "' --set N=4096 --trials 2 --threads 1 --log '" +
               (dir / "log.jsonl").string() + "' --apply");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("added variant 'tuned from"), std::string::npos) << r.output;
    const std::string text = loopscope::readText(script);
    EXPECT_NE(text.find("# variant: tuned from"), std::string::npos) << text;
    RunResult check = runCli("check '" + script.string() + "'");
    EXPECT_EQ(check.exitCode, 0) << check.output;
    std::error_code ec;
    fs::remove_all(dir, ec);
}

} // namespace

namespace {

// Without a GPU, a GPU variant is checked on the CPU at smaller sizes, and says which.
TEST(CliAnalysis, AGpuVariantWithoutAGpuIsCheckedAtASmallerSize)
{
    const std::string file =
        "'" + (fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/gpu/matmul_cuda.py").string() + "'";
    RunResult r = runCli("run " + file + " --variant unrolled --check");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    if (r.output.find("no GPU here") == std::string::npos)
        GTEST_SKIP() << "a GPU is here: the variant ran on it at its own size";
    EXPECT_NE(r.output.find("no GPU here: checked on the CPU at N=512, not timed"),
              std::string::npos)
        << r.output;
    RunResult j = runShell(std::string(LOOPSCOPE_CLI) + " run " + file +
                           " --variant unrolled --check --json 2>/dev/null");
    ASSERT_EQ(j.exitCode, 0) << j.output;
    const json records = json::parse(j.output);
    ASSERT_TRUE(records.is_array() && records.size() == 1u) << j.output;
    EXPECT_EQ(records[0]["N"], 2048);
    EXPECT_EQ(records[0]["checked_at"]["N"], 512);
    EXPECT_EQ(records[0]["checked_at"]["num_thread"], 8);
}

} // namespace
