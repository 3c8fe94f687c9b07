// The TIR of every variant of every sample, at small sizes, against reviewed golden files in
// tests/data/golden. Set LOOPSCOPE_UPDATE_GOLDEN=1 to rewrite them (then read the diff).
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace loopscope;

namespace {

struct SampleCase {
    const char* file;
    std::map<std::string, std::int64_t> sizes;
};

void PrintTo(const SampleCase& c, std::ostream* os)
{
    *os << c.file;
    for (auto& [name, value] : c.sizes)
        *os << " " << name << "=" << value;
}

const SampleCase kSamples[] = {
    {"opt_gemm", {{"M", 64}, {"N", 64}, {"K", 64}}},
    {"matmul_ladder", {{"M", 64}, {"N", 64}, {"K", 64}}},
    {"add_relu", {{"N", 64}}},
    {"transpose", {{"M", 64}, {"N", 64}}},
    {"softmax", {{"N", 8}, {"M", 32}}},
    {"conv2d", {{"in_channel", 4}, {"out_channel", 4}, {"in_size", 8}}},
};

std::string readText(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string fileName(const std::string& variant)
{
    std::string out;
    for (char c : variant)
        out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return out;
}

class GoldenTir : public testing::TestWithParam<SampleCase> {};

TEST_P(GoldenTir, EveryVariantMatchesItsGoldenFile)
{
    const SampleCase& sample = GetParam();
    fs::path src = fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / (std::string(sample.file) + ".py");
    std::vector<std::string> unused;
    EvalResult r = evaluateScript(readText(src), sample.sizes, &unused);
    ASSERT_TRUE(r.ok) << formatDiagnostic(src.string(), r.error);
    ASSERT_TRUE(unused.empty()) << "not a parameter of " << sample.file << ": " << unused.front();
    ASSERT_FALSE(r.program.variants.empty());
    bool update = std::getenv("LOOPSCOPE_UPDATE_GOLDEN") != nullptr;
    fs::path dir = fs::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/golden" / sample.file;
    for (auto& v : r.program.variants) {
        LoweredFunc f;
        try {
            f = lowerSchedule(v.schedule(), v.args, v.funcName);
        } catch (const UserError& e) {
            FAIL() << v.name << ": " << formatDiagnostic(src.string(), e.diagnostic());
        }
        std::string text =
            printTVMScript(f.func) + "\n# structured\n" + printStructured(f.structured, f.args);
        fs::path golden = dir / (fileName(v.name) + ".tir");
        if (update) {
            fs::create_directories(dir);
            std::ofstream(golden, std::ios::binary) << text;
            continue;
        }
        ASSERT_TRUE(fs::exists(golden))
            << golden << " is missing (run with LOOPSCOPE_UPDATE_GOLDEN=1)";
        EXPECT_EQ(text, readText(golden)) << "variant '" << v.name << "' of " << sample.file;
    }
}

INSTANTIATE_TEST_SUITE_P(Samples, GoldenTir, testing::ValuesIn(kSamples),
                         [](const testing::TestParamInfo<SampleCase>& info) {
                             return std::string(info.param.file);
                         });

// TVM 0.17's own output for three scripts: Loopscope must print the same text.
class TvmOutput : public testing::TestWithParam<const char*> {};

TEST_P(TvmOutput, MatchesWhatTvmPrinted)
{
    fs::path dir = fs::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/tvm";
    fs::path script = dir / (std::string(GetParam()) + ".py");
    ASSERT_TRUE(fs::exists(script)) << "missing " << script;
    ASSERT_TRUE(fs::exists(dir / (std::string(GetParam()) + ".tvm.txt")))
        << "missing TVM's output for " << script;
    EvalResult r = evaluateScript(readText(script));
    ASSERT_TRUE(r.ok) << formatDiagnostic(script.string(), r.error);
    ASSERT_EQ(r.program.variants.size(), 1u);
    const Variant& v = r.program.variants[0];
    LoweredFunc f = lowerSchedule(v.schedule(), v.args, v.funcName);
    std::string expected = readText(dir / (std::string(GetParam()) + ".tvm.txt"));
    std::string actual = printTVMScript(f.func);
    while (!expected.empty() && expected.back() == '\n')
        expected.pop_back();
    while (!actual.empty() && actual.back() == '\n')
        actual.pop_back();
    EXPECT_EQ(actual, expected);
}

INSTANTIATE_TEST_SUITE_P(Examples, TvmOutput,
                         testing::Values("naive", "nondivisible", "full_ladder"));

} // namespace
