// An exported TVM script opens in Loopscope again: for every variant of every sample,
// `loopscope-cli export --format tvm` writes a file whose TVM-only code after the
// "# --- run in TVM ---" line Loopscope does not read, so `run --check` on the file compiles and
// checks the variant, and `lower` prints the same loop nest as the variant in the sample.
#include "support/RunShell.h"
#include "support/SourceFiles.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

using loopscope::readText;

namespace {

using loopscope::testing::RunResult;

// Small sizes for each sample, so that every variant compiles and is checked in moments.
const std::map<std::string, std::string> kSmallSizes = {
    {"add_relu", "--set N=1000"},
    {"batch_matmul", "--set NB=3 --set M=20 --set N=40 --set K=24"},
    {"conv2d", "--set in_channel=4 --set out_channel=8 --set in_size=10"},
    {"conv2d_blocked", "--set in_channel=4 --set out_channel=32 --set in_size=10"},
    {"conv2d_nchwc", "--set in_channel=32 --set out_channel=32 --set in_size=10"},
    {"gemm_best", "--set M=72 --set N=80 --set K=64"},
    {"int8_conv2d_nchwc", "--set in_channel=16 --set out_channel=32 --set in_size=14"},
    {"int8_matmul_ladder", "--set M=64 --set N=64 --set K=64"},
    {"matmul_ladder", "--set M=64 --set N=64 --set K=64"},
    {"opt_gemm", "--set M=64 --set N=64 --set K=64"},
    {"softmax", "--set N=8 --set M=32"},
    {"tensorize_tutorial", "--set N=32 --set M=32 --set L=32"},
    {"transpose", "--set M=64 --set N=48"},
};

std::string shellQuoted(const std::string& s)
{
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::vector<std::string> sampleNames()
{
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples"))
        if (entry.path().extension() == ".py") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

class ExportedTvmScript : public testing::TestWithParam<std::string> {
protected:
    void SetUp() override
    {
        dir = fs::temp_directory_path() /
              ("loopscope_tvm_round_trip_" + GetParam() + "_" + std::to_string(getpid()));
        fs::create_directories(dir);
    }
    void TearDown() override
    {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }

    // The CLI's stdout; what it wrote to stderr is in `errors`.
    RunResult cli(const std::string& args)
    {
        fs::path err = dir / "stderr.txt";
        RunResult r = loopscope::testing::runShell(std::string(LOOPSCOPE_CLI) + " " + args + " 2>" +
                                                   shellQuoted(err.string()));
        errors = readText(err);
        return r;
    }

    fs::path dir;
    std::string errors;
};

TEST_P(ExportedTvmScript, RunsCheckedAndLowersToTheVariantsLoopNest)
{
    const std::string sample = GetParam();
    auto sizes = kSmallSizes.find(sample);
    ASSERT_NE(sizes, kSmallSizes.end())
        << "samples/" << sample << ".py has no small sizes here: add them to kSmallSizes";
    const std::string file =
        shellQuoted((fs::path(LOOPSCOPE_SOURCE_DIR) / "samples" / (sample + ".py")).string()) +
        " " + sizes->second;

    RunResult original = cli("lower " + file + " --json");
    ASSERT_EQ(original.exitCode, 0) << errors;
    const nlohmann::json variants = nlohmann::json::parse(original.output)["variants"];
    ASSERT_FALSE(variants.empty()) << original.output;

    for (const auto& variant : variants) {
        const std::string name = variant["name"];
        SCOPED_TRACE("variant " + name);
        const fs::path exported = dir / "exported.py";
        RunResult exportRun = cli("export " + file + " --variant " + shellQuoted(name) +
                                  " --format tvm -o " + shellQuoted(exported.string()));
        ASSERT_EQ(exportRun.exitCode, 0) << errors;
        const std::string text = readText(exported);
        // The file goes on with code only TVM runs.
        const std::size_t marker = text.find("\n# --- run in TVM ---\n");
        ASSERT_NE(marker, std::string::npos) << text;
        EXPECT_NE(text.find("\ndev = tvm.cpu(0)\n", marker), std::string::npos) << text;

        RunResult run = cli("run " + shellQuoted(exported.string()) + " --check --json");
        EXPECT_EQ(run.exitCode, 0) << errors << run.output << "\n" << text;
        if (run.exitCode == 0) {
            const nlohmann::json runs = nlohmann::json::parse(run.output);
            ASSERT_EQ(runs.size(), 1u) << run.output;
            EXPECT_EQ(runs[0]["variant"], name);
            EXPECT_TRUE(runs[0]["checked"].get<bool>()) << run.output;
            for (const auto& check : runs[0]["check"])
                EXPECT_TRUE(check["ok"].get<bool>()) << check.dump();
        }

        RunResult lowered = cli("lower " + shellQuoted(exported.string()) + " --json");
        ASSERT_EQ(lowered.exitCode, 0) << errors << "\n" << text;
        const nlohmann::json again = nlohmann::json::parse(lowered.output)["variants"];
        ASSERT_EQ(again.size(), 1u) << lowered.output;
        EXPECT_EQ(again[0]["name"], name);
        EXPECT_EQ(again[0]["tir"].get<std::string>(), variant["tir"].get<std::string>()) << text;
    }
}

INSTANTIATE_TEST_SUITE_P(Samples, ExportedTvmScript, testing::ValuesIn(sampleNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                             std::string name = info.param;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

} // namespace
