// `loopscope-cli model` end to end: ONNX's own test data (Debian's libonnx-testdata) with no
// failure, the sample models against the outputs PyTorch computed, a wrong expected output found
// and reported, every exported task a script the other commands open, and bad input answered
// with an error and an exit status.
#include "support/RunShell.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

using loopscope::testing::RunResult;

RunResult runCli(const std::string& args, bool withErrors = false)
{
    return loopscope::testing::runShell(std::string(LOOPSCOPE_CLI) + " " + args +
                                        (withErrors ? " 2>&1" : " 2>/dev/null"));
}

std::string quoted(const fs::path& p)
{
    return "'" + p.string() + "' ";
}

const fs::path kModels = fs::path(LOOPSCOPE_SOURCE_DIR) / "samples/models";
const fs::path kTestData = "/usr/share/libonnx-testdata/data";

class TempDir {
public:
    TempDir()
        : m_path(fs::temp_directory_path() / ("loopscope-cli-model-" + std::to_string(getpid()) +
                                              "-" + std::to_string(++s_count)))
    {
        fs::create_directories(m_path);
    }
    ~TempDir() { fs::remove_all(m_path); }
    const fs::path& path() const { return m_path; }

private:
    static inline int s_count = 0;
    fs::path m_path;
};

} // namespace

TEST(CliModel, OnnxTestDataHasNoFailure)
{
    ASSERT_TRUE(fs::is_directory(kTestData / "node"))
        << kTestData << " is missing: the setup installs Debian's libonnx-testdata";
    RunResult r = runCli(
        "model test " + quoted(kTestData / "node") + quoted(kTestData / "pytorch-converted") +
        quoted(kTestData / "pytorch-operator") + quoted(kTestData / "simple") + "--json");
    ASSERT_EQ(r.exitCode, 0) << r.output.substr(0, 4000);
    auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j["failed"], 0);
    EXPECT_GE(j["passed"].get<int>(), 290);
    // 1-D and 3-D convolutions and pools run, padded, strided, dilated and grouped.
    int windows = 0;
    for (auto& c : j["cases"]) {
        const std::string name = fs::path(c["case"].get<std::string>()).filename().string();
        for (const char* kind : {"Conv1d", "Conv3d", "Pool1d", "Pool3d", "pool_1d", "pool_3d"})
            if (name.find(kind) != std::string::npos) {
                ++windows;
                EXPECT_EQ(c["status"], "pass") << c.dump();
            }
    }
    EXPECT_GE(windows, 29);
    // Every skip says why, and no case is both run and skipped.
    int skipped = 0;
    for (auto& c : j["cases"]) {
        if (c["status"] != "skip") continue;
        ++skipped;
        EXPECT_FALSE(c["reason"].get<std::string>().empty()) << c.dump();
    }
    EXPECT_EQ(skipped, j["skipped"].get<int>());
    std::string failures;
    for (auto& c : j["cases"])
        if (c["status"] == "fail") failures += c.dump() + "\n";
    EXPECT_TRUE(failures.empty()) << failures;
}

TEST(CliModel, SampleModelsMatchTheOutputsTheyCameWith)
{
    for (const char* name : {"resnet_tiny", "mobilenet_tiny", "mlp", "encoder_block"}) {
        RunResult r = runCli("model test " + quoted(kModels / name) + "--json");
        ASSERT_EQ(r.exitCode, 0) << name << "\n" << r.output;
        auto j = nlohmann::json::parse(r.output);
        EXPECT_EQ(j["passed"], 1) << name << "\n" << r.output;
        // Every task against the reference interpreter, too.
        RunResult check =
            runCli("model run " + quoted(kModels / name / "model.onnx") + "--check --json");
        ASSERT_EQ(check.exitCode, 0) << name << "\n" << check.output;
        auto c = nlohmann::json::parse(check.output);
        EXPECT_TRUE(c["checked"].get<bool>());
        EXPECT_EQ(c["checks"].size(), c["tasks"].get<std::size_t>());
    }
}

// `model quantize` writes a QDQ model the importer reads back: its convolutions run as integer
// tasks that match the reference, as the committed sample it made does, and an MLP's dense
// layers become QGemm; a model with nothing to quantize and a bad --calibrate are refused with
// why.
TEST(CliModel, QuantizeWritesAModelThatRunsInIntegers)
{
    TempDir dir;
    const fs::path out = dir.path() / "int8.onnx";
    RunResult q = runCli("model quantize " + quoted(kModels / "resnet_tiny/model.onnx") +
                         quoted(out) + "--samples 2 --calibrate percentile=99.9 --json");
    ASSERT_EQ(q.exitCode, 0) << q.output;
    auto j = nlohmann::json::parse(q.output);
    EXPECT_EQ(j["operators"], 29); // 20 convolutions, 8 residual adds, the dense layer
    EXPECT_EQ(j["weights"], 21);
    EXPECT_EQ(j["calibration"], "percentile");
    EXPECT_EQ(j["ranges"].size(), j["activations"].get<std::size_t>());
    for (const fs::path& model : {out, kModels / "resnet_tiny_int8/model.onnx"}) {
        RunResult info = runCli("model info " + quoted(model) + "--json");
        ASSERT_EQ(info.exitCode, 0) << info.output;
        int integer = 0;
        const auto tasks = nlohmann::json::parse(info.output)["tasks"];
        for (auto& t : tasks)
            integer += t["arithmetic"].get<std::string>().find("int32 sums") != std::string::npos;
        EXPECT_EQ(integer, 21) << model; // the convolutions and the dense layer
        RunResult check = runCli("model run " + quoted(model) + "--check --json");
        ASSERT_EQ(check.exitCode, 0) << model << "\n" << check.output;
        EXPECT_TRUE(nlohmann::json::parse(check.output)["checked"].get<bool>());
    }
    // The MLP's dense layers become QGemm tasks.
    RunResult mlp = runCli("model quantize " + quoted(kModels / "mlp/model.onnx") +
                           quoted(dir.path() / "mlp.onnx") + "--json");
    ASSERT_EQ(mlp.exitCode, 0) << mlp.output;
    EXPECT_EQ(nlohmann::json::parse(mlp.output)["weights"], 3);
    RunResult mlpCheck = runCli("model run " + quoted(dir.path() / "mlp.onnx") + "--check");
    EXPECT_EQ(mlpCheck.exitCode, 0) << mlpCheck.output;
    RunResult relu = runCli("model quantize " + quoted(kTestData / "node/test_relu/model.onnx") +
                                quoted(dir.path() / "relu.onnx"),
                            true);
    EXPECT_EQ(relu.exitCode, 1) << relu.output;
    EXPECT_NE(relu.output.find("to quantize"), std::string::npos) << relu.output;
    RunResult bad = runCli("model quantize " + quoted(kModels / "resnet_tiny/model.onnx") +
                               quoted(out) + "--calibrate median",
                           true);
    EXPECT_EQ(bad.exitCode, 2) << bad.output;
    EXPECT_NE(bad.output.find("--calibrate"), std::string::npos) << bad.output;
}

TEST(CliModel, AWrongExpectedOutputIsAFailure)
{
    TempDir dir;
    const fs::path c = dir.path() / "mlp";
    fs::copy(kModels / "mlp", c, fs::copy_options::recursive);
    // The outputs of other inputs (seed 5) as the expected ones.
    RunResult other = runCli("model run " + quoted(c / "model.onnx") + "--seed 5 --output-dir " +
                             quoted(dir.path() / "other"));
    ASSERT_EQ(other.exitCode, 0) << other.output;
    ASSERT_TRUE(fs::exists(dir.path() / "other/output_0.pb"));
    fs::copy_file(dir.path() / "other/output_0.pb", c / "test_data_set_0/output_0.pb",
                  fs::copy_options::overwrite_existing);
    RunResult r = runCli("model test " + quoted(c) + "--json");
    EXPECT_EQ(r.exitCode, 3) << r.output;
    auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j["failed"], 1);
    ASSERT_EQ(j["cases"].size(), 1u);
    EXPECT_NE(j["cases"][0]["reason"].get<std::string>().find("expected"), std::string::npos)
        << r.output;
}

TEST(CliModel, OutputsAreWrittenInTheTestDataLayout)
{
    TempDir dir;
    RunResult r = runCli("model run " + quoted(kModels / "mlp/model.onnx") +
                         "--input input=" + quoted(kModels / "mlp/test_data_set_0/input_0.pb") +
                         "--output-dir " + quoted(dir.path() / "set"));
    ASSERT_EQ(r.exitCode, 0) << r.output;
    // Written from the same inputs: the case with these outputs passes.
    fs::create_directories(dir.path() / "case/test_data_set_0");
    fs::copy_file(kModels / "mlp/model.onnx", dir.path() / "case/model.onnx");
    fs::copy_file(kModels / "mlp/test_data_set_0/input_0.pb",
                  dir.path() / "case/test_data_set_0/input_0.pb");
    fs::copy_file(dir.path() / "set/output_0.pb", dir.path() / "case/test_data_set_0/output_0.pb");
    RunResult t = runCli("model test " + quoted(dir.path() / "case") + "--json");
    EXPECT_EQ(t.exitCode, 0) << t.output;
}

TEST(CliModel, ExportedTasksAreScriptsTheOtherCommandsOpen)
{
    TempDir dir;
    RunResult r = runCli("model tasks " + quoted(kModels / "resnet_tiny/model.onnx") + "--export " +
                         quoted(dir.path()) + "--json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    int scripts = 0;
    for (auto& entry : fs::directory_iterator(dir.path())) {
        if (entry.path().extension() != ".py") continue;
        ++scripts;
        RunResult run = runCli("run " + quoted(entry.path()) + "--check --json");
        EXPECT_EQ(run.exitCode, 0) << entry.path() << "\n" << run.output;
    }
    EXPECT_GE(scripts, 8);
    // One script per workload (tasks of the same workload share it).
    auto j = nlohmann::json::parse(r.output);
    std::set<std::string> workloads;
    for (auto& t : j["tasks"])
        workloads.insert(t["workload"].get<std::string>());
    EXPECT_EQ(static_cast<int>(workloads.size()), scripts);
}

TEST(CliModel, BenchReportsAMedianAndATableOfTasks)
{
    RunResult r = runCli("model bench " + quoted(kModels / "mlp/model.onnx") + "--repeat 3 --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto j = nlohmann::json::parse(r.output);
    EXPECT_GT(j["median_ms"].get<double>(), 0);
    ASSERT_FALSE(j["tasks"].empty());
    for (auto& t : j["tasks"])
        for (const char* field :
             {"name", "workload", "weight", "gflop", "ms", "weight_ms", "gflops", "source"})
            EXPECT_TRUE(t.contains(field)) << field << " in " << t.dump();
    // The task to tune next first.
    for (std::size_t i = 1; i < j["tasks"].size(); ++i)
        EXPECT_GE(j["tasks"][i - 1]["weight_ms"].get<double>(),
                  j["tasks"][i]["weight_ms"].get<double>());
}

TEST(CliModel, BadInputIsAnErrorWithAStatus)
{
    TempDir dir;
    const fs::path junk = dir.path() / "junk.onnx";
    {
        FILE* f = std::fopen(junk.c_str(), "wb");
        std::fputs("not a model", f);
        std::fclose(f);
    }
    RunResult r = runCli("model info " + quoted(junk), true);
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("junk.onnx"), std::string::npos) << r.output;

    r = runCli("model run " + quoted(kModels / "mlp/model.onnx") + "--shape input=9x9", true);
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("input"), std::string::npos) << r.output;

    r = runCli("model run " + quoted(kModels / "mlp/model.onnx") + "--input input=" + quoted(junk),
               true);
    EXPECT_EQ(r.exitCode, 1) << r.output;

    r = runCli("model frobnicate x.onnx", true);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    r = runCli("model run", true);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    r = runCli("model make nosuchnet " + quoted(dir.path() / "x.onnx"), true);
    EXPECT_NE(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("resnet18"), std::string::npos) << r.output;
}

// `model tune --trials 0` times every task's contenders again and keeps the fastest; a choice
// whose contenders' code has changed since (here: its recorded fingerprint) is stale in `model
// bench` until then.
TEST(CliModel, TrialsZeroComparesTheChoicesAgain)
{
    TempDir dir;
    const fs::path c = dir.path() / "mlp";
    fs::copy(kModels / "mlp", c, fs::copy_options::recursive);
    const std::string model = quoted(c / "model.onnx");
    RunResult r = runCli("model tune " + model + "--top 1 --trials 4 --threads 1 --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const std::string task = nlohmann::json::parse(r.output)["tasks"][0]["task"];
    const fs::path projectPath = c / "model.loopscope.json";
    auto readProjectJson = [&] {
        std::ifstream in(projectPath);
        return nlohmann::json::parse(in);
    };
    nlohmann::json project = readProjectJson();
    ASSERT_EQ(project["tasks"].size(), 1u);
    project["tasks"][0]["compared"]["code"] = "0000000000000000";
    std::ofstream(projectPath, std::ios::out | std::ios::trunc) << project.dump(2);
    RunResult bench = runCli("model bench " + model + "--repeat 3", true);
    ASSERT_EQ(bench.exitCode, 0) << bench.output;
    EXPECT_NE(bench.output.find("task " + task + "'s schedule may be stale"), std::string::npos)
        << bench.output;

    r = runCli("model tune " + model + "--task " + task + " --trials 0 --threads 1 --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output)["tasks"][0];
    EXPECT_FALSE(j.contains("trials")) << r.output; // nothing tuned
    ASSERT_TRUE(j["ms"].contains("default") && j["ms"].contains("tuned")) << r.output;
    const std::string kept = j["kept"];
    for (auto& [kind, ms] : j["ms"].items())
        EXPECT_LE(j["ms"][kept].get<double>(), ms.get<double>()) << kind;
    project = readProjectJson();
    EXPECT_EQ(project["tasks"][0]["use"], kept);
    EXPECT_NE(project["tasks"][0]["compared"]["code"], "0000000000000000");
    bench = runCli("model bench " + model + "--repeat 3", true);
    EXPECT_EQ(bench.output.find("stale"), std::string::npos) << bench.output;
}

// `model tune --target cuda` tunes each task's GPU kernels on the GPU runner and leaves the
// project's CPU schedules alone; without a GPU it says so and writes nothing, and a CPU target is
// a usage error.
TEST(CliModel, TuningForAGpuNeedsOneAndLeavesTheProjectAlone)
{
    TempDir dir;
    const fs::path c = dir.path() / "mlp";
    fs::copy(kModels / "mlp", c, fs::copy_options::recursive);
    const std::string model = quoted(c / "model.onnx");
    RunResult r =
        runCli("model tune " + model + "--top 1 --trials 4 --target 'cuda -arch=sm_80'", true);
    if (r.exitCode == 1) {
        EXPECT_NE(r.output.find("the tasks' GPU kernels are timed on a GPU, and there is none "
                                "here"),
                  std::string::npos)
            << r.output;
        EXPECT_FALSE(fs::exists(c / "model.loopscope.json"));
        EXPECT_TRUE(fs::is_empty(c / "model.tasks"));
    } else {
        ASSERT_EQ(r.exitCode, 0) << r.output;
        EXPECT_NE(r.output.find("the project file's CPU schedules are as they were"),
                  std::string::npos)
            << r.output;
    }
    RunResult cpu = runCli("model tune " + model + "--target 'llvm'", true);
    EXPECT_EQ(cpu.exitCode, 2) << cpu.output;
    EXPECT_NE(cpu.output.find("--target: model tune takes a GPU's"), std::string::npos)
        << cpu.output;
}

// A shape given as an input is bound as a constant with --input, and the model is specialised on
// it; without it the refusal says how to give it.
TEST(CliModel, AnIntegerInputGivenAtCompileTimeIsBoundAsAConstant)
{
    const fs::path c = kTestData / "node" / "test_reshape_reordered_all_dims";
    if (!fs::exists(c)) GTEST_SKIP() << "no ONNX test data at " << c;
    TempDir dir;
    RunResult r = runCli("model run " + quoted(c / "model.onnx"), true);
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("--input shape=FILE.pb"), std::string::npos) << r.output;
    const fs::path data = c / "test_data_set_0";
    r = runCli("model info " + quoted(c / "model.onnx") +
               "--input shape=" + quoted(data / "input_1.pb") + "--json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(nlohmann::json::parse(r.output)["inputs"].size(), 1u) << r.output;
    r = runCli(
        "model run " + quoted(c / "model.onnx") + "--input data=" + quoted(data / "input_0.pb") +
        "--input shape=" + quoted(data / "input_1.pb") + "--output-dir " + quoted(dir.path()));
    ASSERT_EQ(r.exitCode, 0) << r.output;
    std::ifstream got(dir.path() / "output_0.pb", std::ios::binary),
        want(data / "output_0.pb", std::ios::binary);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(got), {}),
              std::string(std::istreambuf_iterator<char>(want), {}));
    // A name that is not an input, and a value of the wrong type, are errors.
    r = runCli("model run " + quoted(c / "model.onnx") +
                   "--input nope=" + quoted(data / "input_1.pb"),
               true);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.output.find("--input names 'nope', which is not an input of"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("(its inputs: data, shape)"), std::string::npos) << r.output;
    r = runCli("model run " + quoted(c / "model.onnx") +
                   "--input data=" + quoted(data / "input_1.pb"),
               true);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.output.find("input 'data' is float32; the value given for it is int64"),
              std::string::npos)
        << r.output;
}

TEST(CliModel, MadeModelsImportAndRun)
{
    TempDir dir;
    const fs::path m = dir.path() / "block.onnx";
    RunResult r = runCli("model make resnet-block " + quoted(m) + "--seed 3");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    r = runCli("model info " + quoted(m) + "--json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto j = nlohmann::json::parse(r.output);
    // The two convolutions, and the block's input and output moved into and out of blocks of
    // 16 channels.
    EXPECT_EQ(j["tasks"].size(), 4u);
    r = runCli("model run " + quoted(m) + "--check");
    EXPECT_EQ(r.exitCode, 0) << r.output;
}

TEST(CliModel, TuningATaskRecordsItInTheProjectFile)
{
    TempDir dir;
    const fs::path c = dir.path() / "mlp";
    fs::copy(kModels / "mlp", c, fs::copy_options::recursive);
    RunResult r =
        runCli("model tune " + quoted(c / "model.onnx") + "--top 1 --trials 6 --threads 1 --json");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto j = nlohmann::json::parse(r.output);
    ASSERT_EQ(j["tasks"].size(), 1u) << r.output;
    const auto& t = j["tasks"][0];
    ASSERT_TRUE(t.contains("tuned_ms")) << r.output;
    EXPECT_TRUE(fs::exists(c / "model.tasks" / (t["task"].get<std::string>() + ".py")));
    EXPECT_TRUE(fs::exists(c / "model.tasks" / (t["task"].get<std::string>() + ".jsonl")));
    // The default and the tuned schedule timed in turns; the faster one is recorded.
    ASSERT_TRUE(t["ms"].contains("default") && t["ms"].contains("tuned")) << r.output;
    const bool recorded = t["kept"] == "tuned";
    EXPECT_EQ(recorded, t["ms"]["tuned"].get<double>() < t["ms"]["default"].get<double>());
    ASSERT_TRUE(fs::exists(c / "model.loopscope.json"));
    // The model runs with what the project file says, checked.
    RunResult run = runCli("model run " + quoted(c / "model.onnx") + "--check --json");
    ASSERT_EQ(run.exitCode, 0) << run.output;
    RunResult bench = runCli("model bench " + quoted(c / "model.onnx") + "--repeat 3 --json");
    ASSERT_EQ(bench.exitCode, 0) << bench.output;
    int tuned = 0;
    const auto rows = nlohmann::json::parse(bench.output)["tasks"];
    for (auto& row : rows)
        if (row["source"].get<std::string>().rfind("tuned", 0) == 0) ++tuned;
    EXPECT_EQ(tuned, recorded ? 1 : 0) << bench.output;
    // --default-schedules leaves the project file aside; an unreadable one is an error.
    bench =
        runCli("model bench " + quoted(c / "model.onnx") + "--repeat 3 --default-schedules --json");
    ASSERT_EQ(bench.exitCode, 0) << bench.output;
    const auto defaults = nlohmann::json::parse(bench.output)["tasks"];
    for (auto& row : defaults)
        EXPECT_EQ(row["source"], "default");
    {
        FILE* f = std::fopen((c / "broken.json").c_str(), "wb");
        std::fputs("{\"version\": 1, \"tasks\": 3}", f);
        std::fclose(f);
    }
    RunResult broken = runCli(
        "model run " + quoted(c / "model.onnx") + "--schedules " + quoted(c / "broken.json"), true);
    EXPECT_EQ(broken.exitCode, 1) << broken.output;
    EXPECT_NE(broken.output.find("broken.json"), std::string::npos) << broken.output;
}
