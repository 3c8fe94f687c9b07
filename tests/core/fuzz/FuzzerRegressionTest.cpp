// The inputs the libFuzzer targets (fuzz/) once failed on, replayed in the ordinary test build:
// fuzz/regressions/script holds texts the front end must answer with a program or a diagnostic
// (no crash, no internal error), fuzz/regressions/schedule the bytes of generator choices whose
// case must compute what the reference interpreter computes.
#include "ir/Diagnostic.h"
#include "lower/Lower.h"
#include "support/FuzzRunner.h"
#include "support/RandomSchedule.h"
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
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
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

} // namespace
} // namespace loopscope
