// The TVM export: one variant of a script as a standalone TVM script. What Loopscope evaluates of
// it (everything before the "# --- run in TVM ---" marker) must give the same loop program as the
// variant in the original script; the rest is TVM's build, check and timing code.
#include "export/TvmScript.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "support/SourceFiles.h"
#include "te/Ast.h"

#include "support/Occurrences.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace loopscope;
using loopscope::testsupport::occurrences;

namespace {

std::string beforeMarker(const std::string& text)
{
    auto at = text.find(std::string("\n") + kTvmRunMarker + "\n");
    return at == std::string::npos ? text : text.substr(0, at + 1);
}

std::string tir(const Variant& v)
{
    return printTVMScript(lowerSchedule(v.schedule(), v.args, v.funcName).func);
}

const std::map<std::string, std::int64_t> kGemmSizes = {{"M", 64}, {"N", 64}, {"K", 64}};

class OptGemmWriteCache : public testing::Test {
protected:
    void SetUp() override
    {
        source = readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/opt_gemm.py");
        EvalResult r = evaluateScript(source, kGemmSizes);
        ASSERT_TRUE(r.ok) << r.error.message;
        program = r.program;
        variant = program.findVariant("write cache");
        ASSERT_NE(variant, nullptr);
        TvmScriptOptions options;
        options.source = "opt_gemm.py";
        exported = exportTvmScript(source, program, *variant, options);
        evaluated = beforeMarker(exported);
    }

    std::string source, exported, evaluated;
    Program program;
    const Variant* variant = nullptr;
};

TEST_F(OptGemmWriteCache, KeepsExactlyThisVariantsSchedule)
{
    EXPECT_EQ(occurrences(evaluated, "te.create_schedule("), 1u) << exported;
    for (auto& step : variant->steps)
        EXPECT_NE(evaluated.find(step.text + "\n"), std::string::npos) << step.text;
    // Statements only the other variants have.
    for (const char* other :
         {"s[C].reorder(mo, no, ko, ki, mi, ni)", "s[C].vectorize(ni)", "s[C].parallel(mo)",
          "func = tvm.build(s, [A, B, C], target=\"llvm\", name=\"mmult\")",
          "# variant: array packing"})
        EXPECT_EQ(evaluated.find(other), std::string::npos) << other << "\n" << exported;
    EXPECT_NE(evaluated.find("# variant: write cache\n"), std::string::npos) << exported;
    // Re-evaluated, it has one variant with the same steps.
    EvalResult again = evaluateScript(evaluated);
    ASSERT_TRUE(again.ok) << again.error.loc.line << ": " << again.error.message << "\n"
                          << exported;
    ASSERT_EQ(again.program.variants.size(), 1u);
    const Variant& v = again.program.variants.front();
    EXPECT_EQ(v.name, "write cache");
    ASSERT_EQ(v.steps.size(), variant->steps.size());
    for (std::size_t i = 0; i < v.steps.size(); ++i)
        EXPECT_EQ(v.steps[i].text, variant->steps[i].text);
}

TEST_F(OptGemmWriteCache, KeepsTheDeclarationsWithTheExportedParameters)
{
    for (const char* decl :
         {"import tvm\n", "from tvm import te\n", "M = 64  # 1024 in the original script\n",
          "bn = 32\n", "kfactor = 4\n", "k = te.reduce_axis((0, K), \"k\")\n",
          "A = te.placeholder((M, K), name=\"A\")\n", "packedB = te.compute((N / bn, K, bn)",
          "lambda m, n: te.sum(A[m, k] * packedB[n // bn, k, tvm.tir.indexmod(n, bn)], axis=k)"})
        EXPECT_NE(evaluated.find(decl), std::string::npos) << decl << "\n" << exported;
    // The comment explaining array packing travels with packedB.
    EXPECT_NE(evaluated.find("# B is still read with a stride of N"), std::string::npos)
        << exported;
    EXPECT_NE(exported.rfind("# Variant \"write cache\" of opt_gemm.py", 0), std::string::npos)
        << exported;
}

TEST_F(OptGemmWriteCache, EndsWithTheTvmBoilerplate)
{
    std::string tail = exported.substr(evaluated.size());
    EXPECT_EQ(tail.rfind(std::string(kTvmRunMarker) + "\n", 0), 0u) << tail;
    for (const char* line :
         {"import numpy as np\n", "import tvm.testing\n", "dev = tvm.cpu(0)\n",
          "func = tvm.build(s, [A, B, C], target=\"llvm\", name=\"main\")\n",
          "nd_A = tvm.nd.array(rng.uniform(-1, 1, size=(64, 64)).astype(\"float32\"), dev)\n",
          "nd_C = tvm.nd.array(np.zeros((64, 64), dtype=\"float32\"), dev)\n",
          "func(nd_A, nd_B, nd_C)\n", "ref_s = te.create_schedule(C.op)\n",
          "ref_func = tvm.build(ref_s, [A, B, C], target=\"llvm\")\n",
          "ref_func(nd_A, nd_B, ref_C)\n",
          "tvm.testing.assert_allclose(nd_C.numpy(), ref_C.numpy(), rtol=0.0001, atol=1e-05)\n",
          "flops = 524288\n", // 2 * 64^3
          "evaluator = func.time_evaluator(func.entry_name, dev, number=10, repeat=3)\n",
          "ms = evaluator(nd_A, nd_B, nd_C).median * 1e3\n"})
        EXPECT_NE(tail.find(line), std::string::npos) << line << "\n" << tail;
}

TEST_F(OptGemmWriteCache, TheWholeFileParses)
{
    ast::ParseResult parsed = ast::parseScript(exported);
    EXPECT_TRUE(parsed.ok) << parsed.error.loc.line << ": " << parsed.error.message << "\n"
                           << exported;
}

TEST_F(OptGemmWriteCache, ReevaluatedGivesTheSameLoopProgram)
{
    EvalResult again = evaluateScript(evaluated);
    ASSERT_TRUE(again.ok) << again.error.message;
    EXPECT_EQ(tir(again.program.variants.front()), tir(*variant));
}

// The whole file, TVM's code included: Loopscope stops reading at the marker line.
TEST_F(OptGemmWriteCache, TheWholeFileEvaluatesAsTheVariant)
{
    EvalResult whole = evaluateScript(exported);
    ASSERT_TRUE(whole.ok) << whole.error.loc.line << ": " << whole.error.message << "\n"
                          << exported;
    ASSERT_EQ(whole.program.variants.size(), 1u);
    EXPECT_EQ(whole.program.variants.front().name, "write cache");
    EXPECT_EQ(tir(whole.program.variants.front()), tir(*variant));
}

// A variant that builds its own function: that build (with its name) is reused, not repeated.
TEST(TvmScript, ReusesTheVariantsOwnBuild)
{
    std::string source = readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/opt_gemm.py");
    EvalResult r = evaluateScript(source, kGemmSizes);
    ASSERT_TRUE(r.ok);
    std::string exported = exportTvmScript(source, r.program, *r.program.findVariant("parallel"));
    EXPECT_EQ(occurrences(exported, "tvm.build(s,"), 1u) << exported;
    EXPECT_NE(beforeMarker(exported).find(
                  "func = tvm.build(s, [A, B, C], target=\"llvm\", name=\"mmult\")"),
              std::string::npos)
        << exported;
}

// Every variant of every sample, exported and evaluated again, lowers to the same TIR.
struct Sample {
    const char* file;
    std::map<std::string, std::int64_t> sizes;
};

void PrintTo(const Sample& s, std::ostream* os)
{
    *os << s.file;
}

class TvmScriptRoundTrip : public testing::TestWithParam<Sample> {};

TEST_P(TvmScriptRoundTrip, EveryVariantLowersToTheSameTir)
{
    std::string source = readText(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" /
                                  (std::string(GetParam().file) + ".py"));
    EvalResult r = evaluateScript(source, GetParam().sizes);
    ASSERT_TRUE(r.ok) << r.error.message;
    for (auto& v : r.program.variants) {
        std::string exported = exportTvmScript(source, r.program, v);
        EvalResult again = evaluateScript(beforeMarker(exported));
        ASSERT_TRUE(again.ok) << v.name << ": " << again.error.loc.line << ": "
                              << again.error.message << "\n"
                              << exported;
        ASSERT_EQ(again.program.variants.size(), 1u) << exported;
        EXPECT_EQ(again.program.variants.front().name, v.name) << exported;
        EXPECT_EQ(tir(again.program.variants.front()), tir(v)) << v.name << "\n" << exported;
        EXPECT_TRUE(ast::parseScript(exported).ok) << exported;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Samples, TvmScriptRoundTrip,
    testing::Values(Sample{"opt_gemm", {{"M", 64}, {"N", 64}, {"K", 64}}},
                    Sample{"matmul_ladder", {{"M", 64}, {"N", 64}, {"K", 64}}},
                    Sample{"conv2d", {{"in_channel", 4}, {"out_channel", 4}, {"in_size", 8}}},
                    Sample{"conv2d_blocked",
                           {{"in_channel", 4}, {"out_channel", 32}, {"in_size", 8}}},
                    Sample{"softmax", {{"N", 8}, {"M", 32}}}, Sample{"add_relu", {{"N", 64}}},
                    Sample{"transpose", {{"M", 64}, {"N", 64}}}),
    [](const testing::TestParamInfo<Sample>& info) { return std::string(info.param.file); });

// A symbolic size stays symbolic in the script; the inputs the TVM code makes use its value.
TEST(TvmScript, SymbolicSizesTakeTheirRunValue)
{
    std::string source =
        "import tvm\nfrom tvm import te\n\nn = te.var(\"n\")\nA = te.placeholder((n,), "
        "name=\"A\")\n"
        "B = te.compute((n,), lambda i: A[i] + 1.0, name=\"B\")\n\n# variant: plain\n"
        "s = te.create_schedule(B.op)\n";
    EvalResult r = evaluateScript(source);
    ASSERT_TRUE(r.ok) << r.error.message;
    TvmScriptOptions options;
    options.symbols["n"] = 100;
    std::string exported = exportTvmScript(source, r.program, r.program.variants.front(), options);
    EXPECT_NE(exported.find("n = te.var(\"n\")\n"), std::string::npos) << exported;
    EXPECT_NE(exported.find("size=(100,)"), std::string::npos) << exported;
    EXPECT_NE(exported.find("symbolic sizes: n = 100"), std::string::npos) << exported;
    EXPECT_NE(exported.find("flops = 100\n"), std::string::npos) << exported;
}

} // namespace

#include "export/Export.h"

namespace {

// A TensorIR variant exported for TVM 0.20 or 0.26 is TVMScript plus the trace: read back by
// Loopscope it schedules to the same loop nest in the release's spelling, and the TVM part
// builds with that release's API. (scripts/tvm-export-check.sh runs the exports in TVM itself;
// tests/data/tvm-export/RESULTS.txt is what it printed.)
TEST(TensorIRExport, EachReleaseGetsItsSpellingAndTheSameLoopNest)
{
    const fs::path root(LOOPSCOPE_SOURCE_DIR);
    for (const char* script : {"samples/tensorir/mm_relu.py", "samples/tensorir/mm_relu_module.py",
                               "tests/data/tvm-tir/row_sum_rfactor.py"}) {
        const std::string text = readSourceFile((root / script).string());
        EvalResult r = evaluateScript(text);
        ASSERT_TRUE(r.ok) << script << ": " << r.error.message;
        for (const Variant& v : r.program.variants) {
            for (const auto& [release, spelling] :
                 {std::pair{"0.20", TirSpelling::Tvm020}, std::pair{"0.26", TirSpelling::Tvm026}}) {
                SCOPED_TRACE(std::string(script) + " [" + v.name + "] for TVM " + release);
                ExportOptions o;
                o.format = "tvm";
                o.tvmRelease = release;
                const std::string out = exportVariant(text, r.program, v, o).text;
                const bool s26 = spelling == TirSpelling::Tvm026;
                EXPECT_NE(out.find(s26 ? "tvm.s_tir.Schedule(Module)" : "tvm.tir.Schedule(Module)"),
                          std::string::npos);
                EXPECT_NE(out.find(s26 ? "lib = tvm.tirx.build(" : "lib = tvm.tir.build("),
                          std::string::npos);
                EXPECT_EQ(out.find(s26 ? "get_block(" : "get_sblock("), std::string::npos);
                EvalResult back = evaluateScript(beforeMarker(out));
                ASSERT_TRUE(back.ok) << back.error.loc.line << ": " << back.error.message << "\n"
                                     << out;
                ASSERT_EQ(back.program.variants.size(), 1u);
                const TirFunc* mine = v.schedule().tensorIR();
                const TirFunc* theirs = back.program.variants[0].schedule().tensorIR();
                ASSERT_TRUE(mine && theirs);
                // The same loop nest; names of te.create_prim_func's variables as TVM prints them.
                EXPECT_EQ(printTensorIR(*theirs, spelling), printTensorIR(*mine, spelling));
            }
        }
    }
}

TEST(TensorIRExport, ATeScheduleIsTranslatedForTodaysTvmAndATensorIRoneRefusedFor017)
{
    const fs::path root(LOOPSCOPE_SOURCE_DIR);
    const std::string te = readSourceFile((root / "samples/add_relu.py").string());
    EvalResult r = evaluateScript(te);
    ASSERT_TRUE(r.ok);
    ExportOptions o;
    o.format = "tvm";
    o.tvmRelease = "0.26";
    const std::string exported = exportVariant(te, r.program, r.program.variants.front(), o).text;
    EXPECT_NE(exported.find("prim_func = te.create_prim_func([A, B, relu])"), std::string::npos)
        << exported;
    EXPECT_NE(exported.find("sch = tvm.s_tir.Schedule(prim_func)"), std::string::npos);
    EXPECT_EQ(exported.find("create_schedule"), std::string::npos) << exported;
    const std::string tir = readSourceFile((root / "samples/tensorir/mm_relu.py").string());
    EvalResult t = evaluateScript(tir);
    ASSERT_TRUE(t.ok);
    o.tvmRelease = "";
    try {
        exportVariant(tir, t.program, t.program.variants.front(), o);
        ADD_FAILURE() << "a TensorIR variant exported for TVM 0.17";
    } catch (const UserError& e) {
        EXPECT_NE(std::string(e.what()).find("--tvm 0.20"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(isTvmRelease("0.26"));
    EXPECT_FALSE(isTvmRelease("0.27"));
    EXPECT_FALSE(isTvmRelease("1.0"));
}

} // namespace
