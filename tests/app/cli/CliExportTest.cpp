// `loopscope-cli export`: every format to stdout and to a file, the header next to an object, and
// the usage errors (exit 2) for a missing or unknown variant or format.
#include "support/RunShell.h"
#include "support/SourceFiles.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

using loopscope::readText;

namespace {

using loopscope::testing::RunResult;
using loopscope::testing::runShell;

RunResult runCli(const std::string& args, bool withStderr = true)
{
    return runShell(std::string(LOOPSCOPE_CLI) + " " + args +
                    (withStderr ? " 2>&1" : " 2>/dev/null"));
}

const std::string kGemm = "'" + (fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/opt_gemm.py").string() +
                          "' --set M=64 --set N=64 --set K=64 ";

class CliExport : public testing::Test {
protected:
    void SetUp() override
    {
        dir = fs::temp_directory_path() / ("loopscope_cli_export_" + std::to_string(getpid()));
        fs::create_directories(dir);
    }
    void TearDown() override
    {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
    fs::path dir;
};

TEST_F(CliExport, TextFormatsGoToStdout)
{
    RunResult tvm = runCli("export " + kGemm + "--variant 'write cache' --format tvm", false);
    EXPECT_EQ(tvm.exitCode, 0) << tvm.output;
    EXPECT_NE(tvm.output.find("s[CC].compute_at(s[C], no)"), std::string::npos) << tvm.output;
    EXPECT_NE(tvm.output.find("# --- run in TVM ---"), std::string::npos) << tvm.output;
    EXPECT_NE(tvm.output.find("M = 64"), std::string::npos) << tvm.output;

    // Without name= in the script, the function is named after the variant.
    RunResult c = runCli("export " + kGemm + "--variant 'write cache' --format c", false);
    EXPECT_EQ(c.exitCode, 0) << c.output;
    EXPECT_NE(
        c.output.find("void write_cache(float* restrict A, float* restrict B, float* restrict C)"),
        std::string::npos)
        << c.output;

    RunResult llvm = runCli("export " + kGemm + "--variant parallel --format llvm", false);
    EXPECT_EQ(llvm.exitCode, 0) << llvm.output;
    EXPECT_NE(llvm.output.find("define void @mmult("), std::string::npos) << llvm.output;

    RunResult assembly = runCli("export " + kGemm + "--variant parallel --format asm", false);
    EXPECT_EQ(assembly.exitCode, 0) << assembly.output;
    EXPECT_NE(assembly.output.find("mmult:"), std::string::npos) << assembly.output;
}

TEST_F(CliExport, WritesFiles)
{
    for (const char* format : {"tvm", "c", "llvm", "asm"}) {
        fs::path out = dir / (std::string("gemm.") + format);
        RunResult r = runCli("export " + kGemm + "--variant blocking --format " + format + " -o '" +
                             out.string() + "'");
        EXPECT_EQ(r.exitCode, 0) << format << ": " << r.output;
        EXPECT_TRUE(r.output.empty()) << format << ": " << r.output;
        ASSERT_TRUE(fs::exists(out)) << out;
        EXPECT_GT(fs::file_size(out), 100u) << out;
    }
}

TEST_F(CliExport, ObjectComesWithItsHeader)
{
    fs::path out = dir / "gemm.o";
    RunResult r =
        runCli("export " + kGemm + "--variant parallel --format obj -o '" + out.string() + "'");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    ASSERT_TRUE(fs::exists(out));
    std::string object = readText(out);
    ASSERT_GE(object.size(), 4u);
    EXPECT_EQ(object.substr(0, 4), "\x7f"
                                   "ELF");
    fs::path header = dir / "gemm.h";
    ASSERT_TRUE(fs::exists(header));
    std::string h = readText(header);
    EXPECT_NE(h.find("void mmult(float* A, float* B, float* C);"), std::string::npos) << h;
    EXPECT_NE(h.find("#ifndef"), std::string::npos) << h;

    // A C program links the object (with the runtime the header carries) and gets the product.
    if (std::system("gcc --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gcc is not installed";
    std::ofstream(dir / "main.c") << R"(#define LOOPSCOPE_RUNTIME_IMPLEMENTATION
#include "gemm.h"
#include <math.h>
#include <stdio.h>
static float A[64 * 64], B[64 * 64], C[64 * 64];
int main(void)
{
    for (int i = 0; i < 64 * 64; ++i) {
        A[i] = (float)(i % 7) - 3.0f;
        B[i] = (float)(i % 5) - 2.0f;
    }
    mmult(A, B, C);
    for (int i = 0; i < 64; ++i) {
        for (int j = 0; j < 64; ++j) {
            float s = 0.0f;
            for (int k = 0; k < 64; ++k) s += A[i * 64 + k] * B[k * 64 + j];
            if (fabsf(s - C[i * 64 + j]) > 1e-3f) {
                printf("C[%d, %d] = %g, expected %g\n", i, j, C[i * 64 + j], s);
                return 1;
            }
        }
    }
    printf("ok\n");
    return 0;
}
)";
    std::string d = "'" + dir.string() + "/";
    RunResult cc = runShell("gcc -std=c11 -O2 -fopenmp -Wall -Werror -o " + d + "main' " + d +
                            "main.c' " + d + "gemm.o' -lm");
    ASSERT_EQ(cc.exitCode, 0) << cc.output;
    RunResult run = runShell(d + "main'");
    EXPECT_EQ(run.exitCode, 0) << run.output;
    EXPECT_EQ(run.output, "ok\n");
}

TEST_F(CliExport, UsageErrors)
{
    struct Case {
        std::string args;
        std::string message;
    };
    const Case cases[] = {
        {"export " + kGemm + "--format c", "export needs --variant NAME: "},
        {"export " + kGemm + "--format c", "has 7 variants (baseline, blocking, "},
        {"export " + kGemm + "--variant nosuch --format c", "no variant 'nosuch'"},
        {"export " + kGemm + "--variant parallel", "needs --format"},
        {"export " + kGemm + "--variant parallel --format pdf", "unknown format 'pdf'"},
        {"export " + kGemm + "--variant parallel --format obj", "--format obj needs -o"},
        {"export " + kGemm + "--variant parallel --variant blocking --format c",
         "export writes one variant"},
        {"export " + kGemm + "--variant parallel --format c --json", "unknown option '--json'"},
        {"export " + kGemm + "--variant parallel --format tvm --tvm 0.27",
         "--tvm '0.27': a TVM release from 0.17 to 0.26"},
        {"export " + kGemm + "--variant parallel --format tvm --tvm latest",
         "--tvm 'latest': a TVM release from 0.17 to 0.26"},
    };
    for (auto& c : cases) {
        RunResult r = runCli(c.args);
        EXPECT_EQ(r.exitCode, 2) << c.args << "\n" << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    }
}

TEST_F(CliExport, UnwritableOutputIsSaidWithoutTheUsageText)
{
    RunResult r =
        runCli("export " + kGemm + "--variant parallel --format llvm -o /proc/loopscope-out.ll");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("cannot write '/proc/loopscope-out.ll'"), std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("usage:"), std::string::npos) << r.output;
}

TEST_F(CliExport, AScriptsOnlyVariantNeedsNoName)
{
    fs::path script = dir / "one.py";
    std::ofstream(script)
        << "A = te.placeholder((8,), name=\"A\")\nB = te.compute((8,), lambda i: A[i] + 1.0, "
           "name=\"B\")\n# variant: split\ns = te.create_schedule(B.op)\n"
           "s[B].split(B.op.axis[0], factor=4)\n";
    RunResult r = runCli("export '" + script.string() + "' --format c");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("variant split"), std::string::npos) << r.output;
}

TEST_F(CliExport, DocumentErrorsExitWithOne)
{
    fs::path script = dir / "broken.py";
    std::ofstream(script)
        << "A = te.placeholder((8,), name=\"A\")\nB = te.compute((8,), lambda i: A[i] + 1.0, "
           "name=\"B\")\n# variant: v\ns = te.create_schedule(B.op)\ns[B].split(B.op.axis[0], "
           "factor=0)\n";
    RunResult r = runCli("export '" + script.string() + "' --variant v --format c");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find(":5:"), std::string::npos) << r.output;
}

// Code for another CPU, as tvm.build(..., target="llvm -mcpu=...") makes it: the script's target,
// or --target instead. (This host need not have the CPU's instructions: nothing here runs.)
TEST_F(CliExport, AssemblyIsForTheTargetsCpu)
{
    fs::path script = dir / "wide.py";
    std::ofstream(script) << "A = te.placeholder((256,), name=\"A\")\n"
                             "B = te.compute((256,), lambda i: A[i] * 2.0, name=\"B\")\n"
                             "s = te.create_schedule(B.op)\n"
                             "xo, xi = s[B].split(B.op.axis[0], factor=16)\n"
                             "s[B].vectorize(xi)\n"
                             "f = tvm.build(s, [A, B], target=\"llvm -mcpu=skylake-avx512\")\n";
    RunResult avx512 = runCli("export '" + script.string() + "' --format asm", false);
    EXPECT_EQ(avx512.exitCode, 0) << avx512.output;
    EXPECT_NE(avx512.output.find("%zmm"), std::string::npos) << avx512.output;

    RunResult sse = runCli(
        "export '" + script.string() + "' --format llvm --target 'llvm -mcpu=x86-64'", false);
    EXPECT_EQ(sse.exitCode, 0) << sse.output;
    EXPECT_NE(sse.output.find("\"target-cpu\"=\"x86-64\""), std::string::npos) << sse.output;
    RunResult sseAsm =
        runCli("export '" + script.string() + "' --format asm --target 'llvm -mcpu=x86-64'", false);
    EXPECT_EQ(sseAsm.exitCode, 0) << sseAsm.output;
    EXPECT_EQ(sseAsm.output.find("%ymm"), std::string::npos) << sseAsm.output;
    EXPECT_NE(sseAsm.output.find("%xmm"), std::string::npos) << sseAsm.output;

    // -mattr changes the CPU's features: AVX-512 off leaves 256-bit vectors.
    RunResult noAvx512 =
        runCli("export '" + script.string() +
                   "' --format asm --target 'llvm -mcpu=skylake-avx512 -mattr=-avx512f'",
               false);
    EXPECT_EQ(noAvx512.exitCode, 0) << noAvx512.output;
    EXPECT_EQ(noAvx512.output.find("%zmm"), std::string::npos) << noAvx512.output;
    EXPECT_NE(noAvx512.output.find("%ymm"), std::string::npos) << noAvx512.output;

    // Without -mcpu, -mattr changes the host's features: no AVX, no 256-bit vectors.
    RunResult noAvx =
        runCli("export '" + script.string() + "' --format asm --target 'llvm -mattr=-avx'", false);
    EXPECT_EQ(noAvx.exitCode, 0) << noAvx.output;
    EXPECT_EQ(noAvx.output.find("%ymm"), std::string::npos) << noAvx.output;
    EXPECT_NE(noAvx.output.find("%xmm"), std::string::npos) << noAvx.output;

    // The TVM script builds for --target; the C source has no CPU in it.
    RunResult tvm =
        runCli("export '" + script.string() + "' --format tvm --target 'llvm -mcpu=znver4'", false);
    EXPECT_EQ(tvm.exitCode, 0) << tvm.output;
    EXPECT_NE(tvm.output.find("target=\"llvm -mcpu=znver4\""), std::string::npos) << tvm.output;
    RunResult c =
        runCli("export '" + script.string() + "' --format c --target 'llvm -mcpu=znver4'");
    EXPECT_EQ(c.exitCode, 0) << c.output;
    EXPECT_NE(c.output.find("note: --target does not change C source"), std::string::npos)
        << c.output;

    // A run is compiled for the host, and says so.
    RunResult run = runCli("run '" + script.string() + "' --check");
    EXPECT_EQ(run.exitCode, 0) << run.output;
    EXPECT_NE(run.output.find("note: target 'llvm -mcpu=skylake-avx512' applies to exported code"),
              std::string::npos)
        << run.output;
}

// run --check says how far the numbers are from the reference, absolutely and relatively.
TEST_F(CliExport, RunCheckPrintsTheLargestAbsoluteAndRelativeErrors)
{
    fs::path script = dir / "scale.py";
    std::ofstream(script) << "A = te.placeholder((8,), name=\"A\")\n"
                             "B = te.compute((8,), lambda i: A[i] * 3.0, name=\"B\")\n"
                             "s = te.create_schedule(B.op)\n";
    RunResult r = runCli("run '" + script.string() + "' --check");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("B ok (8 elements, max abs error 0.0000000, max rel error 0)"),
              std::string::npos)
        << r.output;
}

TEST_F(CliExport, UnknownCpuOrFeatureIsNamedWhereItWasWritten)
{
    fs::path script = dir / "cpu.py";
    std::ofstream(script) << "A = te.placeholder((8,), name=\"A\")\n"
                             "B = te.compute((8,), lambda i: A[i] + 1.0, name=\"B\")\n"
                             "s = te.create_schedule(B.op)\n"
                             "f = tvm.build(s, [A, B], target=\"llvm -mcpu=znver99\")\n";
    RunResult r = runCli("export '" + script.string() + "' --format asm");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("cpu.py:4:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("-mcpu=znver99 names no CPU"), std::string::npos) << r.output;

    RunResult flag =
        runCli("export '" + script.string() + "' --format obj -o '" + (dir / "k.o").string() +
               "' --target 'llvm -mcpu=znver3 -mattr=+avx9000'");
    EXPECT_EQ(flag.exitCode, 2) << flag.output;
    EXPECT_NE(flag.output.find("--target: -mattr: 'avx9000' is not a feature"), std::string::npos)
        << flag.output;
    EXPECT_FALSE(fs::exists(dir / "k.o"));

    RunResult arm = runCli("export '" + script.string() +
                           "' --format asm --target 'llvm -mtriple=aarch64-linux-gnu'");
    EXPECT_EQ(arm.exitCode, 2) << arm.output;
    EXPECT_NE(arm.output.find("Loopscope generates x86-64 Linux code"), std::string::npos)
        << arm.output;

    RunResult cuda = runCli("export '" + script.string() + "' --format asm --target cuda");
    RunResult rocm = runCli("export '" + script.string() + "' --format asm --target rocm");
    EXPECT_EQ(rocm.exitCode, 2) << rocm.output;
    EXPECT_NE(rocm.output.find("--target 'rocm' is not supported"), std::string::npos)
        << rocm.output;
    EXPECT_EQ(cuda.exitCode, 2) << cuda.output;
    EXPECT_NE(cuda.output.find("--target 'cuda' names a GPU"), std::string::npos) << cuda.output;
}

} // namespace

TEST_F(CliExport, LlvmArgsReachLlvm)
{
    std::string cli = std::string(LOOPSCOPE_CLI) + " export " + kGemm +
                      "--variant parallel --format obj -o '" + (dir / "k.o").string() + "' 2>&1";
    RunResult timed = runShell("LOOPSCOPE_LLVM_ARGS=-time-passes " + cli);
    EXPECT_EQ(timed.exitCode, 0) << timed.output;
    EXPECT_NE(timed.output.find("Pass execution timing report"), std::string::npos) << timed.output;
    // A bad option is named with where it came from, and the export still happens.
    RunResult bad = runShell("LOOPSCOPE_LLVM_ARGS=-no-such-option " + cli);
    EXPECT_EQ(bad.exitCode, 0) << bad.output;
    EXPECT_NE(
        bad.output.find("LOOPSCOPE_LLVM_ARGS: Unknown command line argument '-no-such-option'"),
        std::string::npos)
        << bad.output;
    EXPECT_TRUE(fs::exists(dir / "k.o"));
}

TEST_F(CliExport, GpuKernelsExportAsPtxForTheTargetsArchitecture)
{
    const std::string file =
        "'" + (fs::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/gpu/matmul_shared.py").string() + "' ";
    RunResult ptx = runCli("export " + file + "--variant shared --format ptx", false);
    EXPECT_EQ(ptx.exitCode, 0) << ptx.output;
    EXPECT_NE(ptx.output.find(".visible .entry shared_kernel("), std::string::npos) << ptx.output;
    EXPECT_NE(ptx.output.find("bar.sync"), std::string::npos) << ptx.output;
    RunResult sm90 = runCli(
        "export " + file + "--variant shared --format ptx --target 'nvptx -mcpu=sm_90'", false);
    EXPECT_EQ(sm90.exitCode, 0) << sm90.output;
    EXPECT_NE(sm90.output.find(".target sm_90"), std::string::npos) << sm90.output;

    RunResult old =
        runCli("export " + file + "--variant shared --format ptx --target 'cuda -arch=sm_35'");
    EXPECT_EQ(old.exitCode, 2) << old.output;
    EXPECT_NE(old.output.find("sm_50 to sm_90"), std::string::npos) << old.output;
    RunResult cpu = runCli("export " + file + "--variant shared --format asm");
    EXPECT_EQ(cpu.exitCode, 1) << cpu.output;
    EXPECT_NE(cpu.output.find("--format ptx"), std::string::npos) << cpu.output;
}

TEST_F(CliExport, AKernelBundleHoldsWhatTheRunnerAloneNeeds)
{
    using json = nlohmann::json;
    // What scripts/gpu-check.sh carries to a machine with a GPU: the gpu_run request, cuBLAS's
    // matmul for a matmul, the operation count, and the reference's values at some elements.
    const std::string file =
        "'" + (fs::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/gpu/matmul_shared.py").string() + "' ";
    RunResult r = runCli(
        "export " + file + "--variant shared --format bundle --target 'cuda -arch=sm_90'", false);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const json b = json::parse(r.output);
    EXPECT_EQ(b["variant"], "shared");
    EXPECT_EQ(b["arch"], "sm_90");
    EXPECT_EQ(b["flops"], 2.0 * 64 * 64 * 64);
    const json& request = b["request"];
    EXPECT_EQ(request["cmd"], "gpu_run");
    EXPECT_NE(request["ptx"].get<std::string>().find(".target sm_90"), std::string::npos);
    EXPECT_EQ(request["cublas"], json({{"m", 64},
                                       {"n", 64},
                                       {"k", 64},
                                       {"a", 0},
                                       {"b", 1},
                                       {"c", 2},
                                       {"trans_a", false},
                                       {"trans_b", false}}));
    ASSERT_EQ(b["expected"].size(), 1u);
    const json& e = b["expected"][0];
    EXPECT_EQ(e["tensor"], "C");
    EXPECT_EQ(e["indices"].size(), e["values"].size());
    EXPECT_GT(e["values"].size(), 1000u);
    // The first element of C = A x B, from the inputs the runner makes from the seeds: the
    // reference's value, a sum of 64 products of numbers in [-1, 1).
    EXPECT_EQ(e["indices"][0], 0);
    EXPECT_LE(std::abs(e["values"][0].get<double>()), 64.0);

    // The tutorial's A^T B: A is stored k-major, so cuBLAS reads it transposed.
    const std::string tutorial =
        "'" + (fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/gpu/matmul_cuda.py").string() + "' ";
    RunResult t =
        runCli("export " + tutorial + "--variant bind --format bundle --set N=128", false);
    ASSERT_EQ(t.exitCode, 0) << t.output;
    EXPECT_EQ(json::parse(t.output)["request"]["cublas"]["trans_a"], true);

    // No bundle of CPU code.
    RunResult cpu = runCli("export " + kGemm + "--variant parallel --format bundle");
    EXPECT_EQ(cpu.exitCode, 1) << cpu.output;
    EXPECT_NE(cpu.output.find("binds no loop to a GPU thread"), std::string::npos) << cpu.output;
}

// --tvm picks the form: a TE schedule as it is for 0.17-0.19 and as tir.Schedule calls from 0.20
// (an rfactor refused at its step), a tir.Schedule variant only from 0.20 (refused at the
// variant for 0.17); the TensorIR export is the release's spelling.
TEST_F(CliExport, TvmReleaseChoosesTheFormAndRefusesAtTheVariant)
{
    RunResult te = runCli("export " + kGemm + "--variant parallel --format tvm --tvm 0.26");
    EXPECT_EQ(te.exitCode, 0) << te.output;
    EXPECT_NE(te.output.find("sch = tvm.s_tir.Schedule(prim_func)"), std::string::npos)
        << te.output;
    EXPECT_NE(te.output.find("sch.parallel(m_outer)"), std::string::npos) << te.output;
    const std::string rfactor =
        "'" +
        (fs::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/regressions/rfactor_vectorized_partials.py")
            .string() +
        "' --format tvm --tvm 0.20";
    RunResult rf = runCli("export " + rfactor);
    EXPECT_EQ(rf.exitCode, 1) << rf.output;
    EXPECT_NE(rf.output.find("rfactor_vectorized_partials.py:"), std::string::npos) << rf.output;
    EXPECT_NE(rf.output.find("rfactor is not translated"), std::string::npos) << rf.output;

    const std::string tir =
        "'" + (fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/tensorir/mm_relu_module.py").string() +
        "' --variant \"the tutorial's steps\" --format tvm";
    RunResult old = runCli("export " + tir);
    EXPECT_EQ(old.exitCode, 1) << old.output;
    EXPECT_NE(old.output.find("mm_relu_module.py:"), std::string::npos) << old.output;
    EXPECT_NE(old.output.find("export it for TVM 0.20 or later"), std::string::npos) << old.output;

    RunResult v20 = runCli("export " + tir + " --tvm 0.22");
    EXPECT_EQ(v20.exitCode, 0) << v20.output;
    EXPECT_NE(v20.output.find("sch = tvm.tir.Schedule(Module)"), std::string::npos) << v20.output;
    EXPECT_NE(v20.output.find("b0 = sch.get_block(name=\"Y\""), std::string::npos) << v20.output;
    RunResult v26 = runCli("export " + tir + " --tvm 0.24");
    EXPECT_EQ(v26.exitCode, 0) << v26.output;
    EXPECT_NE(v26.output.find("sch = tvm.s_tir.Schedule(Module)"), std::string::npos) << v26.output;
    EXPECT_NE(v26.output.find("lib = tvm.tirx.build(sch.mod"), std::string::npos) << v26.output;
}

// convert writes the whole script for today's TVM: every variant of the GEMM tutorial as
// tir.Schedule calls on te.create_prim_func, which Loopscope reads back; a variant with no
// translation (an rfactor) stays TE with the reason, at its line, and the exit status says so.
TEST_F(CliExport, ConvertWritesTheWholeScriptForTodaysTvm)
{
    const fs::path out = fs::path(testing::TempDir()) / "opt_gemm_tensorir.py";
    RunResult all = runCli("convert " + kGemm + "--tvm 0.26 -o '" + out.string() + "'");
    EXPECT_EQ(all.exitCode, 0) << all.output;
    const std::string text = readText(out.string());
    EXPECT_NE(text.find("sch = tvm.s_tir.Schedule(te.create_prim_func([A, B, C]))"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("create_schedule"), std::string::npos) << text;
    RunResult lowered = runCli("lower '" + out.string() + "' --set M=64 --set N=64 --set K=64");
    EXPECT_EQ(lowered.exitCode, 0) << lowered.output;
    EXPECT_NE(lowered.output.find("T.sblock(\"C_update\")"), std::string::npos);

    const std::string rfactor =
        "'" +
        (fs::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/regressions/rfactor_vectorized_partials.py")
            .string() +
        "'";
    RunResult some = runCli("convert " + rfactor + " --tvm 0.20");
    EXPECT_EQ(some.exitCode, 1) << some.output;
    EXPECT_NE(some.output.find("rfactor_vectorized_partials.py:15:1: error: variant 'rfactor' "
                               "stays a TE schedule: rfactor is not translated"),
              std::string::npos)
        << some.output;
    EXPECT_NE(some.output.find("# Not converted to TensorIR (line 15): "), std::string::npos);

    RunResult bad = runCli("convert " + kGemm + "--tvm 0.17");
    EXPECT_EQ(bad.exitCode, 2) << bad.output;
    EXPECT_NE(bad.output.find("from 0.20 to 0.26"), std::string::npos) << bad.output;
}
