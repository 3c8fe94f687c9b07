// `loopscope-cli sweep` and `machine` end to end: the JSON and CSV have one row per variant and
// value with the documented columns, a point over the per-point limit is skipped (not an error),
// and usage errors exit 2.
#include "support/RunShell.h"
#include "support/SourceFiles.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using loopscope::testing::RunResult;

RunResult runCli(const std::string& args)
{
    return loopscope::testing::runShell(std::string(LOOPSCOPE_CLI) + " " + args + " 2>/dev/null");
}

const std::string kGemm =
    "'" + (fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/opt_gemm.py").string() + "' ";

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string line;
    while (std::getline(ss, line))
        out.push_back(line);
    return out;
}

} // namespace

TEST(CliSweep, JsonHasOnePointPerVariantAndValue)
{
    RunResult r =
        runCli("sweep " + kGemm +
               "--param M,N,K --values 32,64 --variant baseline --variant blocking --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto points = nlohmann::json::parse(r.output);
    ASSERT_EQ(points.size(), 4u);
    std::vector<std::pair<std::string, int>> seen;
    for (auto& p : points) {
        for (const char* field : {"variant", "M", "N", "K", "ms_median", "ms_min", "ms_max",
                                  "gflops", "checked", "skipped", "intensity"})
            EXPECT_TRUE(p.contains(field)) << field << " in " << p.dump();
        EXPECT_EQ(p["M"], p["N"]);
        EXPECT_EQ(p["M"], p["K"]);
        EXPECT_TRUE(p["checked"].get<bool>());
        EXPECT_FALSE(p["skipped"].get<bool>());
        EXPECT_GT(p["gflops"].get<double>(), 0.0);
        EXPECT_LE(p["ms_min"].get<double>(), p["ms_median"].get<double>());
        EXPECT_LE(p["ms_median"].get<double>(), p["ms_max"].get<double>());
        seen.push_back({p["variant"].get<std::string>(), p["M"].get<int>()});
    }
    std::vector<std::pair<std::string, int>> expected{
        {"baseline", 32}, {"blocking", 32}, {"baseline", 64}, {"blocking", 64}};
    EXPECT_EQ(seen, expected);
    // Matmul of n: 2n^3 flops over 3 n^2 floats of 4 bytes.
    EXPECT_NEAR(points[2]["intensity"].get<double>(), 2.0 * 64 / 12.0, 1e-9);
}

TEST(CliSweep, CsvHasHeaderAndRows)
{
    fs::path csv =
        fs::temp_directory_path() / ("loopscope_sweep_" + std::to_string(getpid()) + ".csv");
    RunResult r =
        runCli("sweep " + kGemm + "--param M,N,K --values 32,64 --variant blocking --csv '" +
               csv.string() + "'");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto rows = lines(loopscope::readText(csv));
    fs::remove(csv);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0], "variant,M,N,K,threads,ms_median,ms_min,ms_max,gflops,flops,bytes,intensity,"
                       "checked,skipped,failed,message");
    EXPECT_EQ(rows[1].rfind("blocking,32,32,32,", 0), 0u) << rows[1];
    EXPECT_EQ(rows[2].rfind("blocking,64,64,64,", 0), 0u) << rows[2];
    // flops of 64^3 x 2, bytes 3 x 64^2 x 4 and their ratio are in the row.
    EXPECT_NE(rows[2].find(",524288,49152,10.6667,true,false,false,"), std::string::npos)
        << rows[2];
    // The table names every point too.
    EXPECT_NE(r.output.find("blocking"), std::string::npos);
}

TEST(CliSweep, PointOverTheLimitIsSkipped)
{
    RunResult r =
        runCli("sweep " + kGemm +
               "--param M,N,K --values 32,384 --variant baseline --max-point-s 0.005 --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto points = nlohmann::json::parse(r.output);
    ASSERT_EQ(points.size(), 2u);
    EXPECT_FALSE(points[0]["skipped"].get<bool>());
    EXPECT_TRUE(points[1]["skipped"].get<bool>());
    EXPECT_FALSE(points[1].contains("gflops"));
    EXPECT_TRUE(points[1].contains("message"));
}

TEST(CliSweep, UsageErrors)
{
    EXPECT_EQ(runCli("sweep " + kGemm + "--values 64").exitCode, 2);           // no --param
    EXPECT_EQ(runCli("sweep " + kGemm + "--param Q --values 64").exitCode, 2); // no such parameter
    EXPECT_EQ(runCli("sweep " + kGemm + "--param M --values 0").exitCode, 2);  // not a size
    EXPECT_EQ(runCli("sweep " + kGemm + "--param M --variant nope").exitCode, 2); // no such variant
}

TEST(CliMachine, JsonHasPlausibleFigures)
{
    RunResult r = runCli("machine --threads 1 --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto m = nlohmann::json::parse(r.output);
    EXPECT_GT(m["peak_gflops"].get<double>(), 0.5);
    EXPECT_GT(m["bandwidth_gbs"].get<double>(), 0.1);
    EXPECT_EQ(m["peak_threads"].get<int>(), 1);
    // What was read from the machine: the CPU under both names, the caches and their source.
    EXPECT_FALSE(m["cpu"].get<std::string>().empty());
    EXPECT_FALSE(m["llvm_cpu"].get<std::string>().empty());
    if (m["llvm_cpu"] == "generic" || m["cpu"] != m["llvm_cpu"])
        EXPECT_NE(m["cpu_note"].get<std::string>().find("does not know this CPU"),
                  std::string::npos)
            << r.output;
    else
        EXPECT_EQ(m["cpu_note"], "");
    const std::string source = m["caches_source"];
    EXPECT_TRUE(source == "sysfs" || source == "CPUID") << r.output;
    EXPECT_FALSE(m["caches"].empty());
    EXPECT_GE(m["usable_cores"].get<int>(), 1);
}

// A CPU LLVM does not know is scheduled as the nearest it does, and says so; the text names both.
TEST(CliMachine, ACpuLlvmDoesNotKnowIsGivenTheNearestModel)
{
    const std::string asGeneric = "env LOOPSCOPE_LLVM_HOST_CPU=generic " LOOPSCOPE_CLI;
    RunResult r = loopscope::testing::runShell(asGeneric + " machine --threads 1 --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto m = nlohmann::json::parse(r.output);
    EXPECT_EQ(m["llvm_cpu"], "generic");
    EXPECT_NE(m["cpu"], "generic") << r.output; // every machine so far has a model near it
    EXPECT_NE(m["cpu_note"].get<std::string>().find("the nearest model it knows"),
              std::string::npos)
        << r.output;
    r = loopscope::testing::runShell(asGeneric + " machine --threads 1");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("names this CPU generic"), std::string::npos) << r.output;
}

TEST(CliSweep, ChartIsDrawnAsPngAndSvg)
{
    fs::path dir = fs::temp_directory_path() / ("loopscope-chart-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string png = (dir / "lines.png").string();
    const std::string svg = (dir / "roofline.svg").string();
    RunResult r = runCli("sweep " + kGemm + "--param M,N,K --values 32,64 --variant baseline " +
                         "--variant blocking --threads 1 --chart '" + png + "'");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const std::string bytes = loopscope::readText(png);
    ASSERT_GT(bytes.size(), 8000u); // axes, two lines and a legend, not an empty picture
    EXPECT_EQ(bytes.substr(1, 3), "PNG");

    r = runCli("sweep " + kGemm + "--param M,N,K --values 32,64 --variant baseline --threads 1 " +
               "--chart-kind roofline --chart '" + svg + "'");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const std::string text = loopscope::readText(svg);
    EXPECT_NE(text.find("<svg"), std::string::npos);
    EXPECT_NE(text.find("baseline"), std::string::npos); // the legend
    EXPECT_NE(text.find("Roofline"), std::string::npos) << text.substr(0, 400);
    fs::remove_all(dir);

    EXPECT_EQ(runCli("sweep " + kGemm + "--param M --values 32 --variant baseline --threads 1 " +
                     "--chart /nonexistent-folder/a.png")
                  .exitCode,
              2);
    EXPECT_EQ(runCli("sweep " + kGemm + "--param M --values 32 --chart out.gif").exitCode, 2);
    EXPECT_EQ(
        runCli("sweep " + kGemm + "--param M --values 32 --chart a.png --chart-kind pie").exitCode,
        2);
}

// The chart program is found next to the CLI; where it is missing, or refuses what it is given,
// the sweep says so and writes nothing.
TEST(CliSweep, AChartProgramThatIsMissingOrRefusesIsReported)
{
    const std::string sweep = "sweep " + kGemm +
                              "--param M --values 32 --variant baseline --threads 1 --chart " +
                              (fs::temp_directory_path() / "loopscope-never.png").string();
    RunResult r = loopscope::testing::runShell("LOOPSCOPE_CHART=/nonexistent/loopscope-chart " +
                                               std::string(LOOPSCOPE_CLI) + " " + sweep + " 2>&1");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("cannot start /nonexistent/loopscope-chart"), std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(fs::temp_directory_path() / "loopscope-never.png"));

    const std::string chart = LOOPSCOPE_CHART;
    r = loopscope::testing::runShell("echo '[1, 2' | " + chart + " 2>&1");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("loopscope-chart: standard input is not JSON"), std::string::npos)
        << r.output;
    r = loopscope::testing::runShell("echo '{\"chart_request\": 99, \"path\": \"x.png\"}' | " +
                                     chart + " 2>&1");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("a chart request of version 99; this program reads version 1"),
              std::string::npos)
        << r.output;
    r = loopscope::testing::runShell(
        "echo '{\"chart_request\": 1, \"path\": \"x.png\", \"points\": [{}]}' | " + chart +
        " 2>&1");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("point 1 is not a sweep point"), std::string::npos) << r.output;
}
