// The GPU runner as a host talks to it, on a machine without a GPU (as every CI machine is): it
// answers ping with what it found, refuses a GPU run with the reason, another build's client and
// the worker's commands. Where a GPU and its driver are present (a lent machine), a run of a
// kernel compiled here comes back checked and timed.
#include "support/RunShell.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

using json = nlohmann::json;

// The runner's replies to these request lines, one each.
std::vector<json> ask(const std::vector<json>& requests)
{
    std::string input;
    for (auto& r : requests)
        input += r.dump() + "\n";
    auto result = loopscope::testing::runShell("printf '%s' '" + input + "' | " +
                                               std::string(LOOPSCOPE_RUNNER));
    EXPECT_EQ(result.exitCode, 0) << result.output;
    std::vector<json> out;
    std::istringstream lines(result.output);
    for (std::string line; std::getline(lines, line);)
        out.push_back(json::parse(line));
    return out;
}

TEST(Runner, SaysWhatItIsAndRefusesWhatIsNotItsToDo)
{
    const json run = {{"id", 2},
                      {"cmd", "gpu_run"},
                      {"ptx", ".version 7.0\n"},
                      {"buffers", json::array({{{"name", "A"}, {"shape", {64}}, {"seed", 1}}})},
                      {"launches", json::array({{{"kernel", "main_kernel"}, {"buffers", {0}}}})}};
    std::vector<json> replies = ask({{{"id", 1}, {"cmd", "ping"}},
                                     run,
                                     {{"id", 3}, {"cmd", "measure"}, {"script", "x"}},
                                     {{"id", 4}, {"cmd", "ping"}, {"protocol", 99}}});
    ASSERT_EQ(replies.size(), 4u);
    const json& ping = replies[0];
    EXPECT_EQ(ping["status"], "ok");
    EXPECT_EQ(ping["triple"], "nvptx64-nvidia-cuda");
    EXPECT_EQ(ping["commands"], json({"gpu_run", "ping"}));
    const bool gpu = !ping["gpu"]["name"].get<std::string>().empty();
    if (!gpu) {
        EXPECT_NE(ping["cpu_note"].get<std::string>().find("no NVIDIA driver"), std::string::npos)
            << ping.dump();
        // No driver: the run is refused with the reason, and the runner lives on.
        EXPECT_EQ(replies[1]["status"], "error");
        EXPECT_EQ(replies[1]["kind"], "codegen");
        EXPECT_NE(replies[1]["message"].get<std::string>().find("libcuda.so.1"), std::string::npos);
    } else {
        // A driver: this PTX has no kernel, which the driver says.
        EXPECT_EQ(replies[1]["status"], "error") << replies[1].dump();
    }
    EXPECT_EQ(replies[2]["status"], "error");
    EXPECT_NE(replies[2]["message"].get<std::string>().find("not measure"), std::string::npos);
    EXPECT_EQ(replies[3]["kind"], "protocol");
    EXPECT_NE(replies[3]["message"].get<std::string>().find("same build"), std::string::npos);
}

TEST(Runner, AMalformedRunIsARequestError)
{
    std::vector<json> replies =
        ask({{{"id", 1}, {"cmd", "gpu_run"}, {"ptx", "x"}, {"launches", json::array()}},
             {{"id", 2},
              {"cmd", "gpu_run"},
              {"ptx", "x"},
              {"launches", json::array({{{"kernel", "k"}, {"grid", {1, 0, 1}}}})}},
             {{"id", 3},
              {"cmd", "gpu_run"},
              {"ptx", "x"},
              {"launches", json::array({{{"kernel", "k"}, {"buffers", {3}}}})}}});
    ASSERT_EQ(replies.size(), 3u);
    for (auto& r : replies) {
        EXPECT_EQ(r["status"], "error") << r.dump();
        EXPECT_EQ(r["kind"], "request") << r.dump();
    }
    EXPECT_NE(replies[0]["message"].get<std::string>().find("at least one kernel"),
              std::string::npos);
    EXPECT_NE(replies[1]["message"].get<std::string>().find("three integers of at least 1"),
              std::string::npos);
    EXPECT_NE(replies[2]["message"].get<std::string>().find("indices of the request's buffers"),
              std::string::npos);
}

TEST(Runner, TheCommandLineRunsGpuVariantsThroughTheRunnerItIsGiven)
{
    // The runner beside the tool, or the one --runner starts (as `ssh HOST loopscope-runner`
    // would): without a GPU, checked and not timed, with the reason.
    const std::string script =
        " '" + std::string(LOOPSCOPE_SOURCE_DIR) + "/tests/data/gpu/matmul_shared.py' ";
    for (const std::string runner :
         {std::string(), " --runner 'exec " + std::string(LOOPSCOPE_RUNNER) + "'"}) {
        auto r = loopscope::testing::runShell(std::string(LOOPSCOPE_CLI) + " bench" + script +
                                              "--check" + runner + " 2>&1");
        EXPECT_EQ(r.exitCode, 0) << r.output;
        if (r.output.find("ran on ") != std::string::npos) continue; // a machine with a GPU
        EXPECT_NE(r.output.find("no GPU here: checked on the CPU, not timed (no NVIDIA driver"),
                  std::string::npos)
            << r.output;
        EXPECT_NE(r.output.find("not timed: C ok"), std::string::npos) << r.output;
    }
    // A program that is not a GPU runner is said to be one.
    auto worker = loopscope::testing::runShell(std::string(LOOPSCOPE_CLI) + " run" + script +
                                               "--runner '" + LOOPSCOPE_WORKER + "' 2>&1");
    EXPECT_EQ(worker.exitCode, 0) << worker.output;
    EXPECT_NE(worker.output.find("does not run GPU kernels"), std::string::npos) << worker.output;
}

} // namespace
