// Tuning rounds for a GPU that only batch jobs reach: `tune --rounds-out` writes a round of
// candidates as kernel bundles (checked on this CPU first, each carrying its tuning record);
// `loopscope-runner --measure` times a round where there is a GPU and writes nothing where there
// is none; `tune --rounds-in` appends a timed round's times to the log as records naming the GPU,
// marks it learnt (learning it again adds nothing) and writes the next round of new candidates.
#include "support/RunShell.h"
#include "support/SourceFiles.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;
using json = nlohmann::json;
using loopscope::testing::RunResult;
using loopscope::testing::runShell;

namespace {

RunResult run(const std::string& command)
{
    return runShell(command + " 2>&1");
}

std::vector<fs::path> bundles(const fs::path& round)
{
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(round))
        if (e.path().filename().string().rfind("trial-", 0) == 0) out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

json readJson(const fs::path& p)
{
    std::ifstream in(p);
    return json::parse(in);
}

std::vector<json> readLines(const fs::path& p)
{
    std::vector<json> out;
    std::ifstream in(p);
    for (std::string line; std::getline(in, line);)
        if (!line.empty()) out.push_back(json::parse(line));
    return out;
}

TEST(CliTuneRounds, ARoundIsWrittenTimedElsewhereLearntAndFollowed)
{
    const fs::path dir =
        fs::temp_directory_path() / ("loopscope_rounds_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const fs::path rounds = dir / "rounds", log = dir / "tune.jsonl";
    const std::string tune =
        std::string(LOOPSCOPE_CLI) + " tune '" + LOOPSCOPE_SOURCE_DIR +
        "/samples/gpu/matmul_cuda.py' --variant bind --set N=256 --trials 4 --target 'cuda "
        "-arch=sm_80' --log '" +
        log.string() + "' ";

    RunResult first = run(tune + "--rounds-out '" + rounds.string() + "'");
    ASSERT_EQ(first.exitCode, 0) << first.output;
    EXPECT_NE(first.output.find("loopscope-runner --measure " + (rounds / "round-001").string()),
              std::string::npos)
        << first.output;
    const auto round1 = bundles(rounds / "round-001");
    ASSERT_EQ(round1.size(), 4u) << first.output;
    std::set<std::string> seen;
    for (const fs::path& b : round1) {
        const json bundle = readJson(b);
        EXPECT_EQ(bundle["arch"], "sm_80");
        EXPECT_NE(bundle["request"]["ptx"].get<std::string>().find(".target sm_80"),
                  std::string::npos);
        const json& record = bundle["tune"];
        EXPECT_EQ(record["status"], "untimed");
        EXPECT_TRUE(record["checked"].get<bool>()) << "checked on this CPU before it is written";
        EXPECT_EQ(record["sizes"]["N"], 256);
        EXPECT_FALSE(record["statements"].empty());
        seen.insert(record["steps"].dump());
    }
    EXPECT_EQ(seen.size(), 4u);

    // The runner times the round where it finds a GPU; elsewhere it writes nothing.
    RunResult measured =
        run(std::string(LOOPSCOPE_RUNNER) + " --measure '" + rounds.string() + "'");
    const fs::path times = rounds / "round-001" / "times.jsonl";
    if (measured.exitCode != 0) {
        EXPECT_NE(measured.output.find("no GPU to time"), std::string::npos) << measured.output;
        EXPECT_FALSE(fs::exists(times));
        // What the runner writes for a round it timed, for the rest of the test here: one line
        // per bundle (these times are made up; only their handling is under test).
        std::ofstream out(times);
        double ms = 0.5;
        for (const fs::path& b : round1) {
            out << json{{"bundle", b.filename().string()},
                        {"status", "ok"},
                        {"ms", {ms, ms + 0.01, ms + 0.02}},
                        {"host", "gpu1"},
                        {"time", "2026-11-29T12:00:00Z"},
                        {"accelerator", "NVIDIA H100 (sm_90, driver 12.4, 1980/2619 MHz)"}}
                       .dump()
                << "\n";
            ms -= 0.1;
        }
    } else {
        ASSERT_EQ(readLines(times).size(), round1.size()) << measured.output;
    }

    RunResult second = run(tune + "--rounds-in '" + rounds.string() + "'");
    ASSERT_EQ(second.exitCode, 0) << second.output;
    EXPECT_NE(second.output.find("learnt 4 record(s) of 1 round(s)"), std::string::npos)
        << second.output;
    EXPECT_TRUE(fs::exists(rounds / "round-001" / "learnt"));
    const auto records = readLines(log);
    ASSERT_EQ(records.size(), 4u);
    for (const json& r : records) {
        EXPECT_FALSE(r["machine"]["accelerator"].get<std::string>().empty()) << r.dump();
        EXPECT_EQ(r["workload"], records.front()["workload"]);
        if (r["status"] == "ok") {
            EXPECT_GT(r["ms_median"].get<double>(), 0);
        }
    }
    // The next round: new candidates, numbered after the learnt ones.
    const auto round2 = bundles(rounds / "round-002");
    ASSERT_FALSE(round2.empty()) << second.output;
    for (const fs::path& b : round2) {
        const json record = readJson(b)["tune"];
        EXPECT_GT(record["trial"].get<int>(), 4);
        EXPECT_EQ(seen.count(record["steps"].dump()), 0u) << "measured already: " << b;
    }

    // Learning again adds nothing.
    RunResult third = run(tune + "--rounds-in '" + rounds.string() + "'");
    ASSERT_EQ(third.exitCode, 0) << third.output;
    EXPECT_NE(third.output.find("learnt 0 record(s) of 0 round(s)"), std::string::npos)
        << third.output;
    EXPECT_EQ(readLines(log).size(), 4u);

    // A CPU variant searched for a GPU (--target): from its declaration, its steps left out.
    RunResult retargeted =
        run(std::string(LOOPSCOPE_CLI) + " tune '" + LOOPSCOPE_SOURCE_DIR +
            "/samples/opt_gemm.py' --variant parallel --set M=128 --set N=128 --set K=128 "
            "--trials 2 --target 'cuda -arch=sm_80' --log '" +
            (dir / "gemm.jsonl").string() + "' --rounds-out '" + (dir / "gemm").string() + "'");
    ASSERT_EQ(retargeted.exitCode, 0) << retargeted.output;
    EXPECT_NE(retargeted.output.find("the search for GPU kernels starts from the declaration of "
                                     "variant 'parallel'"),
              std::string::npos)
        << retargeted.output;
    EXPECT_EQ(bundles(dir / "gemm" / "round-001").size(), 2u);

    // Rounds are of GPU kernels.
    RunResult cpu = run(std::string(LOOPSCOPE_CLI) + " tune '" + LOOPSCOPE_SOURCE_DIR +
                        "/samples/opt_gemm.py' --set M=64 --set N=64 --set K=64 --rounds-out '" +
                        (dir / "cpu").string() + "'");
    EXPECT_EQ(cpu.exitCode, 1) << cpu.output;
    EXPECT_NE(cpu.output.find("rounds written for a GPU to time are of GPU kernels"),
              std::string::npos)
        << cpu.output;
    fs::remove_all(dir);
}

} // namespace
