// The inputs the libFuzzer targets (fuzz/) once failed on, replayed in the ordinary test build:
// fuzz/regressions/script holds texts the front end must answer with a program or a diagnostic
// (no crash, no internal error), fuzz/regressions/schedule the bytes of generator choices whose
// case must compute what the reference interpreter computes, fuzz/regressions/onnx files the ONNX
// loader must read or refuse with a reason.
#include "ir/Diagnostic.h"
#include "lower/Lower.h"
#include "support/FuzzRunner.h"
#include "support/OnnxReplay.h"
#include "support/RandomSchedule.h"
#include "support/SourceFiles.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace loopscope {
namespace {

std::vector<fs::path> inputs(const std::string& target)
{
    std::vector<fs::path> out;
    std::error_code ec;
    for (auto& e :
         fs::directory_iterator(fs::path(LOOPSCOPE_SOURCE_DIR) / "fuzz/regressions" / target, ec))
        if (e.is_regular_file()) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::string bytesOf(const fs::path& p)
{
    return readText(p);
}

TEST(FuzzerRegressions, ScriptInputsGetAProgramOrADiagnostic)
{
    ASSERT_FALSE(inputs("script").empty()) << "no inputs in fuzz/regressions/script";
    for (const fs::path& p : inputs("script")) {
        SCOPED_TRACE(p.filename().string());
        EvalResult r = evaluateScript(bytesOf(p));
        if (!r.ok) {
            EXPECT_GT(r.error.loc.line, 0)
                << "a diagnostic without a location: " << r.error.message;
            continue;
        }
        for (const Variant& v : r.program.variants) {
            try {
                lowerSchedule(v.schedule(), v.args, v.funcName);
            } catch (const UserError&) {
            }
        }
    }
}

TEST(FuzzerRegressions, ScheduleInputsComputeWhatTheReferenceComputes)
{
    if (inputs("schedule").empty()) GTEST_SKIP() << "the schedule target has found nothing yet";
    for (const fs::path& p : inputs("schedule")) {
        SCOPED_TRACE(p.filename().string());
        const std::string bytes = bytesOf(p);
        FuzzCase c =
            generateCase(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
        CaseOutcome r = runScriptChecked(c.script, 1);
        EXPECT_NE(r.status, CaseOutcome::Status::Failed) << r.message << c.script;
    }
}

TEST(FuzzerRegressions, OnnxInputsAreReadOrRefusedWithAReason)
{
    // Besides what the target once failed on, ONNX files cut short and flipped.
    std::vector<std::string> cases;
    for (const fs::path& p : inputs("onnx"))
        cases.push_back(bytesOf(p));
    const std::string mlp =
        bytesOf(fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/models/mlp/model.onnx");
    ASSERT_FALSE(mlp.empty());
    for (std::size_t keep :
         {std::size_t{0}, std::size_t{1}, std::size_t{17}, mlp.size() / 3, mlp.size() - 1})
        cases.push_back(mlp.substr(0, keep));
    std::string flipped = mlp.substr(0, 4096);
    for (std::size_t i = 7; i < flipped.size(); i += 97)
        flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    cases.push_back(flipped);
    for (const std::string& bytes : cases) {
        std::string refusal;
        if (!replayOnnxBytes(bytes, &refusal)) EXPECT_FALSE(refusal.empty());
    }
}

} // namespace
} // namespace loopscope
