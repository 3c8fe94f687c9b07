// The desktop binary end to end, offscreen, with fresh settings and data folders as a new user
// has: `--run` runs a variant's ladder and `--sweep` runs the Charts dock's sweep over the
// default sizes before the window is rendered to a PNG.
#include "support/RunShell.h"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>
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

// Scripts at and past the core's bounds (a thousand-stage chain with 498 steps, a doubling chain
// inlined, a quarter million unrolled copies, 4 x 1,024 unrolled loop bodies): the window opens
// each, analyses it or says why not, renders and exits, never growing past about 1 GB.
TEST_F(Desktop, ScriptsAtAndPastTheBoundsKeepTheWindowSmall)
{
    auto write = [&](const std::string& name, const std::string& body) {
        std::ofstream(home / name) << "import tvm\nfrom tvm import te\n" << body;
        return "'" + (home / name).string() + "'";
    };
    std::string chain = "A = te.placeholder((8,), name=\"A\")\n"
                        "T0 = te.compute((8,), lambda i: A[i] + 1.0, name=\"T0\")\n";
    for (int k = 1; k < 1000; ++k)
        chain += "T" + std::to_string(k) + " = te.compute((8,), lambda i: T" +
                 std::to_string(k - 1) + "[i] * 2.0, name=\"T" + std::to_string(k) + "\")\n";
    chain += "s = te.create_schedule(T999.op)\n";
    for (int k = 0; k < 498; ++k)
        chain += "s[T" + std::to_string(k) + "].compute_inline()\n";
    std::string doubling = "A = te.placeholder((8,), name=\"A\")\n"
                           "T0 = te.compute((8,), lambda i: A[i] + 1.0, name=\"T0\")\n";
    for (int k = 1; k < 40; ++k)
        doubling += "T" + std::to_string(k) + " = te.compute((8,), lambda i: T" +
                    std::to_string(k - 1) + "[i] * T" + std::to_string(k - 1) + "[i], name=\"T" +
                    std::to_string(k) + "\")\n";
    doubling += "s = te.create_schedule(T39.op)\n";
    for (int k = 0; k < 39; ++k)
        doubling += "s[T" + std::to_string(k) + "].compute_inline()\n";
    const std::string grid = "A = te.placeholder((512, 512), name=\"A\")\n"
                             "B = te.compute((512, 512), lambda i, j: A[i, j] * 2, name=\"B\")\n"
                             "s = te.create_schedule(B.op)\n"
                             "s[B].unroll(B.op.axis[0])\n"
                             "s[B].unroll(B.op.axis[1])\n";
    const std::string columns = "A = te.placeholder((4, 1024), name=\"A\")\n"
                                "B = te.compute((4, 1024), lambda i, j: A[i, j] * 2, name=\"B\")\n"
                                "s = te.create_schedule(B.op)\n"
                                "s[B].unroll(B.op.axis[1])\n";
    for (const std::string& script : {write("chain.py", chain), write("doubling.py", doubling),
                                      write("grid.py", grid), write("columns.py", columns)}) {
        const fs::path png = home / "window.png";
        RunResult r = runApp(script + " --screenshot '" + png.string() + "'", home);
        EXPECT_EQ(r.exitCode, 0) << script << "\n" << r.output;
        EXPECT_TRUE(isPng(png)) << script;
        fs::remove(png);
    }
    struct rusage usage {};
    ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &usage), 0);
    EXPECT_LT(usage.ru_maxrss, 1024L * 1024)
        << "the largest window took " << usage.ru_maxrss << " KB";
}
