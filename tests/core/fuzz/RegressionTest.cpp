// Every script in tests/data/regressions (minimized mismatches the differential tests found) runs
// end to end, and each variant must compute what the reference interpreter computes. A script
// whose first line is `# skip: REASON` documents a bug that is not fixed yet.

#include "support/FuzzRunner.h"
#include "support/SourceFiles.h"

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

fs::path regressionDir()
{
    return fs::path(LOOPSCOPE_SOURCE_DIR) / "tests/data/regressions";
}

std::vector<std::string> regressionScripts()
{
    std::vector<std::string> names;
    std::error_code ec;
    for (auto& entry : fs::directory_iterator(regressionDir(), ec))
        if (entry.path().extension() == ".py") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

TEST(RegressionScripts, DirectoryHasScripts)
{
    EXPECT_FALSE(regressionScripts().empty()) << "no scripts in " << regressionDir();
}

class RegressionTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RegressionTest, EveryVariantMatchesTheReference)
{
    std::string script = readText(regressionDir() / (GetParam() + ".py"));
    ASSERT_FALSE(script.empty());
    const std::string skip = "# skip:";
    if (script.compare(0, skip.size(), skip) == 0)
        GTEST_SKIP() << script.substr(skip.size() + 1, script.find('\n') - skip.size() - 1);
    installCrashReporter();
    CurrentCase current(script, GetParam() + ".py");
    CaseOutcome outcome = runScriptChecked(script, 1);
    EXPECT_EQ(outcome.status, CaseOutcome::Status::Passed)
        << outcome.message << "---- script ----\n"
        << script;
    EXPECT_GT(outcome.variants, 0);
}

INSTANTIATE_TEST_SUITE_P(Scripts, RegressionTest, ::testing::ValuesIn(regressionScripts()),
                         [](const auto& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RegressionTest);

} // namespace
} // namespace loopscope
