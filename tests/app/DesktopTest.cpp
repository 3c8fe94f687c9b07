// The desktop binary end to end, offscreen, with fresh settings and data folders as a new user
// has: `--run` runs a variant's ladder and `--sweep` runs the Charts dock's sweep over the
// default sizes before the window is rendered to a PNG.
#include "RunShell.h"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using loopscope::testing::RunResult;

RunResult runApp(const std::string& args, const fs::path& home)
{
    std::string env = "QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME='" + (home / "config").string() +
                      "' XDG_DATA_HOME='" + (home / "data").string() + "' ";
    return loopscope::testing::runShell(env + LOOPSCOPE_APP + " " + args + " 2>/dev/null");
}

bool isPng(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    std::array<char, 8> head{};
    in.read(head.data(), head.size());
    return in && std::string(head.data(), 8) == "\x89PNG\r\n\x1a\n";
}

class Desktop : public testing::Test {
protected:
    void SetUp() override
    {
        home = fs::temp_directory_path() /
               ("loopscope-desktop-" + std::to_string(::getpid()) + "-" +
                testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(home);
        fs::create_directories(home);
    }
    void TearDown() override { fs::remove_all(home); }
    fs::path home;
    const std::string sample =
        "'" + (fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/add_relu.py").string() + "'";
};

} // namespace

TEST_F(Desktop, SweepRunsEveryVariantThenRendersTheWindow)
{
    fs::path png = home / "sweep.png";
    RunResult r = runApp(sample + " --sweep --screenshot '" + png.string() + "'", home);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("sweep finished in"), std::string::npos) << r.output;
    ASSERT_TRUE(isPng(png));
    EXPECT_GT(fs::file_size(png), 20000u); // a drawn window, not an empty image
    // The measured points are kept in the data folder for the next session.
    bool stored = false;
    for (auto& e : fs::recursive_directory_iterator(home / "data"))
        if (e.path().filename() == "sweep-points.json" && fs::file_size(e.path()) > 100)
            stored = true;
    EXPECT_TRUE(stored);
}

TEST_F(Desktop, RunRendersAfterTheLadder)
{
    fs::path png = home / "ladder.png";
    RunResult r =
        runApp(sample + " --variant fused --run --screenshot '" + png.string() + "'", home);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    ASSERT_TRUE(isPng(png));
    EXPECT_GT(fs::file_size(png), 20000u);
}

TEST_F(Desktop, MissingScriptFailsTheScreenshot)
{
    fs::path png = home / "none.png";
    RunResult r = runApp("'" + (home / "no-such-script.py").string() + "' --screenshot '" +
                             png.string() + "'",
                         home);
    EXPECT_NE(r.exitCode, 0);
    EXPECT_FALSE(fs::exists(png));
}
