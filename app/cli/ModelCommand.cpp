#include "ModelCommand.h"

#include "Cli.h"
#include "Commands.h"
#include "ModelTune.h"
#include "TuneCommand.h"
#include "ir/GpuTarget.h"

#include "graph/FuseOps.h"
#include "graph/Interpreter.h"
#include "graph/ModelMaker.h"
#include "graph/ModelRun.h"
#include "graph/OnnxImport.h"
#include "graph/Operators.h"
#include "graph/Passes.h"
#include "graph/Project.h"
#include "graph/Quantize.h"
#include "graph/Task.h"
#include "runtime/Benchmark.h"
#include "runtime/ThreadPool.h"
#include "te/Program.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace loopscope {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

using cli::kOk;
using cli::kUsage;
using cli::UsageError;
constexpr int kError = cli::kDocumentError, kWrong = cli::kWrongNumbers;

const char* kModelUsage =
    "usage: loopscope-cli model info  M.onnx [--shape NAME=DIMS ...] [--input NAME=FILE.pb ...]\n"
    "                                 [--passes] [--json]\n"
    "       loopscope-cli model run   M.onnx [--input NAME=FILE.pb ...] [--shape NAME=DIMS ...]\n"
    "                                 [--output-dir D] [--check] [--seed N] [--threads N]\n"
    "                                 [--schedules F | --default-schedules] [--json]\n"
    "       loopscope-cli model bench M.onnx [--shape NAME=DIMS ...] [--threads N] [--repeat R]\n"
    "                                 [--schedules F | --default-schedules] [--json]\n"
    "       loopscope-cli model tune  M.onnx [--task NAME ...] [--top K] [--trials N | --time S]\n"
    "                                 [--threads N] [--seed N] [--schedules F] [--json]\n"
    "                                 [--runner 'COMMAND'] [--runners N]\n"
    "                                 [--target \"cuda -arch=sm_XX\"]\n"
    "       loopscope-cli model tasks M.onnx [--shape NAME=DIMS ...] [--export DIR] [--json]\n"
    "       loopscope-cli model test  DIR ... [--json]\n"
    "       loopscope-cli model make  KIND OUT.onnx [--seed N]\n"
    "       loopscope-cli model quantize M.onnx OUT.onnx [--calibrate minmax|percentile[=P]]\n"
    "                                 [--samples N] [--seed N] [--input NAME=FILE.pb ...] "
    "[--json]\n"
    "\n"
    "  info   the model's operators, inputs and outputs, and its tasks: fused groups of operators\n"
    "         compiled as one kernel, with their weight (how often the same workload occurs)\n"
    "         and GFLOP; --passes prints the graph after each graph pass\n"
    "  run    compile every task and run the model on the inputs (TensorProto files, or seeded\n"
    "         random values); --output-dir writes output_0.pb, ... in the graph's output order;\n"
    "         --check compares every task's output with the reference interpreter (float64)\n"
    "         and names the first wrong task (exit 3)\n"
    "  bench  end-to-end latency (median of R runs) and each task's time, weight x time\n"
    "  tune   the tuner on each task (the heaviest first; --trials per task, default 64), its\n"
    "         script and log in M.tasks/; then the task's default schedule, its script's variant\n"
    "         and its log's best are timed in turns and the fastest is recorded in the project\n"
    "         file; --trials 0 only times them again (after a Loopscope update, on another CPU);\n"
    "         --runners N measures on N workers at once, each started by --runner (a command:\n"
    "         'srun -N1 -n1 --exclusive loopscope-worker'), and tunes tasks side by side;\n"
    "         --target \"cuda ...\" tunes each task's GPU kernels instead, measured on the GPU\n"
    "         runner (beside the worker, or the one --runner starts), the records in the\n"
    "         tasks' logs; the project's CPU schedules stay as they are\n"
    "  tasks  the tasks; --export DIR writes each as a TE script the editor opens\n"
    "  test   ONNX's test cases (a folder with model.onnx and test_data_set_0/, or folders of\n"
    "         them, such as /usr/share/libonnx-testdata/data/node): each runs and is compared\n"
    "         with its expected outputs, or is skipped with the reason\n"
    "  make   write a model of a known architecture with seeded random weights; KIND is\n"
    "         resnet18 (torchvision's ResNet-18 at 224x224, 45 MB), mobilenetv2 (torchvision's\n"
    "         MobileNetV2 at 224x224), encoder (a transformer encoder block, 64 tokens x 128,\n"
    "         4 heads), resnet-block or mlp (8x784 -> 512 -> 256 -> 10, as MNIST's)\n"
    "  quantize  write a QDQ model (int8) from a float one, as ONNX Runtime's static\n"
    "         quantization does: batch norms folded, weights int8 with a scale per output\n"
    "         channel, convolution biases int32, and uint8 activations around every\n"
    "         convolution, matmul by weights and residual add, their ranges calibrated on the\n"
    "         --input values (each --input of a name is one more calibration input) or on\n"
    "         --samples seeded random inputs (default 4); --calibrate percentile=99.99 takes\n"
    "         that percentile of the values instead of their extremes (minmax)\n"
    "\n"
    "--shape NAME=DIMS gives an input's shape (1x3x224x224), needed for dynamic dimensions.\n"
    "--input NAME=FILE.pb (a TensorProto) gives an input's value at compile time: integers (a\n"
    "shape, axes, starts, split sizes) are bound as constants and the model is specialised on\n"
    "them, as Relay's freeze_params does; floating-point data is the input `run` runs on, and\n"
    "gives its shape to the other subcommands. Every subcommand but test and make takes it.\n"
    "The project file (M.loopscope.json beside M.onnx, or --schedules F) names each task's\n"
    "schedule: a script and variant, or a tuning log; --default-schedules ignores it.\n";

using cli::fixed;

std::vector<std::int64_t> parseDims(const std::string& text)
{
    std::vector<std::int64_t> dims;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, 'x')) {
        try {
            std::size_t used = 0;
            long long v = std::stoll(item, &used);
            if (used != item.size() || v < 1) throw std::invalid_argument("");
            dims.push_back(v);
        } catch (const std::logic_error&) {
            throw UsageError("--shape: '" + text + "' is not dimensions such as 1x3x224x224");
        }
    }
    if (dims.empty()) throw UsageError("--shape: no dimensions in '" + text + "'");
    return dims;
}

struct Args {
    std::string sub;
    std::vector<std::string> files;
    ImportOptions import;
    std::vector<std::pair<std::string, std::string>> inputs; // NAME=FILE
    std::map<std::string, HostBuffer> given;                 // their values, read
    std::vector<HostBuffer> values;                          // each --input's, in order
    std::string outputDir, exportDir;
    std::string schedules; // the project file (empty: the one beside the model)
    bool defaultSchedules = false;
    bool check = false, json = false, passes = false;
    int threads = 0, repeat = 10;
    std::uint64_t seed = 1;
    std::vector<std::string> tuneTasks; // --task
    int top = 0, trials = 64;
    double seconds = 0;
    std::string runner; // --runner
    int runners = 0;    // --runners
    std::string target; // --target (tune: a GPU's)
    std::string self;
    QuantizeOptions quantize; // --calibrate, --samples
};

// A whole number at least `least`, for --threads, --repeat, --seed, --trials (0 or more) and
// --top (1 or more).
std::int64_t countOf(const std::string& flag, const std::string& v, std::int64_t least)
{
    try {
        std::size_t used = 0;
        const long long n = std::stoll(v, &used);
        if (used == v.size() && n >= least) return n;
    } catch (const std::logic_error&) {
    }
    throw UsageError(flag + ": '" + v + "' is not a " + (least > 0 ? "positive number" : "number"));
}

// The options of one subcommand.
std::vector<cli::Option> optionsOf(Args& a)
{
    const std::string& sub = a.sub;
    auto keyValue = [](const std::string& flag, const std::string& v) {
        auto eq = v.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError(flag + " takes NAME=VALUE, not '" + v + "'");
        return std::make_pair(v.substr(0, eq), v.substr(eq + 1));
    };
    std::vector<cli::Option> o = {
        {"--shape", "", true,
         [&a, keyValue](const std::string& v) {
             auto [name, dims] = keyValue("--shape", v);
             a.import.shapes[name] = parseDims(dims);
         }},
        {"--json", "", false, [&a](const std::string&) { a.json = true; }},
        {"--threads", "", true,
         [&a](const std::string& v) { a.threads = static_cast<int>(countOf("--threads", v, 0)); }},
        {"--repeat", "", true,
         [&a](const std::string& v) {
             a.repeat = std::max(1, static_cast<int>(countOf("--repeat", v, 0)));
         }},
        {"--seed", "", true,
         [&a](const std::string& v) {
             a.seed = static_cast<std::uint64_t>(countOf("--seed", v, 0));
         }},
    };
    if (sub != "test" && sub != "make")
        o.push_back({"--input", "", true, [&a, keyValue](const std::string& v) {
                         a.inputs.push_back(keyValue("--input", v));
                     }});
    if (sub == "run") {
        o.push_back({"--output-dir", "", true, [&a](const std::string& v) { a.outputDir = v; }});
        o.push_back({"--check", "", false, [&a](const std::string&) { a.check = true; }});
    }
    if (sub == "quantize") {
        o.push_back({"--calibrate", "", true, [&a](const std::string& v) {
                         if (v == "minmax") {
                             a.quantize.percentile = false;
                             return;
                         }
                         if (v.rfind("percentile", 0) != 0)
                             throw UsageError("--calibrate: '" + v +
                                              "' is not minmax, percentile or percentile=P");
                         a.quantize.percentile = true;
                         if (v.size() > 10) {
                             if (v[10] != '=')
                                 throw UsageError("--calibrate: '" + v + "': percentile=P");
                             a.quantize.percent =
                                 cli::parseNumber(v.substr(11), "--calibrate", "percent");
                             if (!(a.quantize.percent > 50 && a.quantize.percent <= 100))
                                 throw UsageError("--calibrate: a percentile in (50, 100], not " +
                                                  v.substr(11));
                         }
                     }});
        o.push_back({"--samples", "", true, [&a](const std::string& v) {
                         a.quantize.samples = static_cast<int>(countOf("--samples", v, 1));
                     }});
    }
    if (sub == "tasks")
        o.push_back({"--export", "", true, [&a](const std::string& v) { a.exportDir = v; }});
    if (sub == "info")
        o.push_back({"--passes", "", false, [&a](const std::string&) { a.passes = true; }});
    if (sub == "run" || sub == "bench" || sub == "tune")
        o.push_back({"--schedules", "", true, [&a](const std::string& v) { a.schedules = v; }});
    if (sub == "run" || sub == "bench")
        o.push_back({"--default-schedules", "", false,
                     [&a](const std::string&) { a.defaultSchedules = true; }});
    if (sub == "tune") {
        o.push_back({"--task", "", true, [&a](const std::string& v) { a.tuneTasks.push_back(v); }});
        o.push_back({"--time", "", true, [&a](const std::string& v) {
                         a.seconds = cli::parseNumber(v, "--time", "seconds");
                         if (!(a.seconds > 0))
                             throw UsageError("--time: '" + v + "' is not a number of seconds");
                         a.trials = 0;
                     }});
        o.push_back({"--top", "", true, [&a](const std::string& v) {
                         a.top = static_cast<int>(countOf("--top", v, 1));
                     }});
        o.push_back({"--trials", "", true, [&a](const std::string& v) {
                         a.trials = static_cast<int>(countOf("--trials", v, 0));
                     }});
        o.push_back({"--runner", "", true, [&a](const std::string& v) {
                         a.runner = v;
                         checkRunnerOptions(a.runner);
                     }});
        o.push_back({"--runners", "", true, [&a](const std::string& v) {
                         a.runners = static_cast<int>(countOf("--runners", v, 1));
                     }});
        o.push_back({"--target", "", true, [&a](const std::string& v) {
                         std::string why;
                         if (!parseGpuTarget(v, &why))
                             throw UsageError("--target: model tune takes a GPU's (\"cuda "
                                              "-arch=sm_90\"): each task's GPU kernels" +
                                              (why.empty() ? std::string() : ": " + why));
                         a.target = v;
                     }});
    }
    return o;
}

Args parseArgs(int argc, char** argv)
{
    Args a;
    if (argc < 2) throw UsageError("model needs a subcommand: info, run, bench, tasks or test");
    a.sub = argv[1];
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
            std::cout << kModelUsage;
            std::exit(kOk);
        }
    if (a.sub != "info" && a.sub != "run" && a.sub != "bench" && a.sub != "tasks" &&
        a.sub != "test" && a.sub != "make" && a.sub != "tune" && a.sub != "quantize")
        throw UsageError("unknown model subcommand '" + a.sub + "'");
    a.files = cli::parseCommandLine(argc, argv, 2, "model " + a.sub, optionsOf(a));
    if (a.files.empty())
        throw UsageError("model " + a.sub + " needs " +
                         (a.sub == "test" ? "a folder" : "a model (M.onnx)"));
    if (a.sub == "make" && a.files.size() != 2)
        throw UsageError("model make takes a kind and an output file");
    if (a.sub == "quantize" && a.files.size() != 2)
        throw UsageError("model quantize takes a model and an output file");
    if (a.sub != "test" && a.sub != "make" && a.sub != "quantize" && a.files.size() > 1)
        throw UsageError("model " + a.sub + " takes one model");
    return a;
}

json taskJson(const Graph& g, const Task& t, double flops)
{
    json nodes = json::array();
    for (int i : t.nodes)
        nodes.push_back(g.nodes[static_cast<std::size_t>(i)].name);
    return {{"name", t.name},         {"anchor", t.anchor},
            {"nodes", nodes},         {"weight", t.weight},
            {"gflop", flops / 1e9},   {"output", t.output},
            {"workload", t.workload}, {"arithmetic", taskArithmetic(g, t)}};
}

int modelInfo(const Args& a, const ImportResult& r)
{
    const Graph& g = r.graph;
    std::map<std::string, int> ops;
    for (auto& n : g.nodes)
        ++ops[n.op];
    std::vector<Task> tasks;
    if (r.unsupported.empty()) tasks = fuseOps(g);
    std::vector<double> flops;
    double total = 0;
    for (auto& t : tasks) {
        flops.push_back(taskFlops(taskScript(g, t)));
        total += flops.back();
    }
    if (a.json) {
        json j{{"ok", true}, {"model", a.files[0]}, {"opset", g.opset}, {"nodes", g.nodes.size()}};
        j["operators"] = ops;
        json ins = json::array(), outs = json::array();
        for (auto& i : g.inputs)
            ins.push_back(
                {{"name", i}, {"dtype", g.tensor(i).dtype.str()}, {"shape", g.tensor(i).shape}});
        for (auto& o : g.outputs)
            outs.push_back(
                {{"name", o}, {"dtype", g.tensor(o).dtype.str()}, {"shape", g.tensor(o).shape}});
        j["inputs"] = ins;
        j["outputs"] = outs;
        j["unsupported"] = r.unsupported;
        json ts = json::array();
        for (std::size_t i = 0; i < tasks.size(); ++i)
            ts.push_back(taskJson(g, tasks[i], flops[i]));
        j["tasks"] = ts;
        j["gflop"] = total / 1e9;
        j["notes"] = r.notes;
        std::cout << j.dump(2) << "\n";
        return kOk;
    }
    std::cout << a.files[0] << ": opset " << g.opset << ", " << g.nodes.size() << " nodes\n";
    for (auto& i : g.inputs)
        std::cout << "  input  " << i << ": " << g.tensor(i).dtype.str() << " "
                  << dimsText(g.tensor(i).shape) << "\n";
    for (auto& o : g.outputs)
        if (const GraphTensor* t = g.find(o))
            std::cout << "  output " << o << ": " << t->dtype.str() << " " << dimsText(t->shape)
                      << "\n";
    std::cout << "operators:";
    for (auto& [op, n] : ops)
        std::cout << " " << op << " x" << n;
    std::cout << "\n";
    for (auto& u : r.unsupported)
        std::cout << "unsupported: " << u << "\n";
    if (!tasks.empty()) {
        std::set<std::string> distinct;
        for (auto& t : tasks)
            distinct.insert(t.workload);
        std::cout << tasks.size() << " tasks (" << distinct.size() << " distinct workloads), "
                  << fixed(total / 1e9, 3) << " GFLOP in all\n";
        std::cout << "  " << std::left << std::setw(28) << "task" << std::setw(8) << "weight"
                  << std::setw(10) << "GFLOP"
                  << "operators\n";
        for (std::size_t i = 0; i < tasks.size(); ++i) {
            std::string chain;
            for (int n : tasks[i].nodes)
                chain += (chain.empty() ? "" : " -> ") + g.nodes[static_cast<std::size_t>(n)].op;
            const std::string arithmetic = taskArithmetic(g, tasks[i]);
            std::cout << "  " << std::left << std::setw(28) << tasks[i].name << std::setw(8)
                      << tasks[i].weight << std::setw(10) << fixed(flops[i] / 1e9, 4) << chain
                      << (arithmetic == "float32" ? "" : "   [" + arithmetic + "]") << "\n";
        }
    }
    std::cout.flush(); // the notes after the table, in a terminal as in a pipe
    for (auto& n : r.notes)
        std::cerr << "note: " << n << "\n";
    return kOk;
}

// The values of the model's inputs: those given (less those bound as constants), the others
// seeded.
std::map<std::string, HostBuffer> readInputs(const Args& a, const Graph& g, std::string* why)
{
    std::map<std::string, HostBuffer> values;
    for (auto& [name, b] : a.given) {
        if (bindsAsConstant(b)) continue; // a weight of the model now
        if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end()) {
            *why = "--input names '" + name + "', which is not an input of the model";
            return {};
        }
        values[name] = b;
    }
    // Seeded values for the inputs not given.
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
        const std::string& name = g.inputs[i];
        if (values.count(name)) continue;
        HostBuffer b(g.tensor(name).dtype, g.tensor(name).shape);
        b.fillRandom(a.seed + i);
        values[name] = std::move(b);
    }
    return values;
}

// The tasks' indices, the largest weight x time first.
std::vector<std::size_t> byWeightedTime(const CompiledModel& model,
                                        const std::vector<Measurement>& perTask)
{
    std::vector<std::size_t> order(model.tasks().size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](auto x, auto y) {
        return perTask[x].median * model.tasks()[x].task.weight >
               perTask[y].median * model.tasks()[y].task.weight;
    });
    return order;
}

// Milliseconds that the tasks of `workload` take inside the model, all occurrences together.
double workloadInModel(const CompiledModel& model, const std::vector<double>& inModel,
                       const std::string& workload)
{
    double sum = 0;
    for (std::size_t i = 0; i < model.tasks().size() && i < inModel.size(); ++i)
        if (model.tasks()[i].task.workload == workload) sum += inModel[i];
    return sum;
}

int modelRun(const Args& a, const ImportResult& r, bool bench)
{
    const Graph& g = r.graph;
    setParallelThreads(a.threads);
    std::string why;
    auto inputs = readInputs(a, g, &why);
    if (!why.empty()) {
        std::cerr << "loopscope-cli: " << why << "\n";
        return kError;
    }
    // The schedules: the project file's choices (beside the model unless --schedules names
    // one), or the defaults.
    ModelOptions options;
    std::string projectPath;
    if (!a.defaultSchedules) {
        projectPath = a.schedules.empty() ? projectPathFor(a.files[0]) : a.schedules;
        if (!a.schedules.empty() && !fs::exists(projectPath)) {
            std::cerr << "loopscope-cli: no project file " << projectPath << "\n";
            return kError;
        }
        ModelProject project;
        if (!readProject(projectPath, &project, &why)) {
            std::cerr << "loopscope-cli: " << why << "\n";
            return kError;
        }
        std::vector<std::string> notes;
        const std::vector<Task> tasks = fuseOps(g);
        options = resolveProject(project, g, tasks, &notes);
        if (bench) {
            // A time is only as good as the choices behind it.
            std::set<std::string> seen;
            for (const Task& each : tasks) {
                if (!seen.insert(each.workload).second) continue;
                const Task& t = *choiceTask(project, tasks, each.workload);
                if (std::string why = staleReason(project, g, t, taskFolderFor(a.files[0]));
                    !why.empty())
                    notes.push_back("task " + t.name + "'s schedule may be stale: " + why);
            }
        }
        for (auto& n : notes)
            std::cerr << "note: " << n << "\n";
        if (project.tasks.empty()) projectPath.clear();
    }
    auto t0 = std::chrono::steady_clock::now();
    auto model = CompiledModel::compile(g, options, &why);
    if (!model) {
        std::cerr << a.files[0] << ": error: " << why << "\n";
        if (a.json) std::cout << json{{"ok", false}, {"error", why}}.dump(2) << "\n";
        return kError;
    }
    const double compileMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    for (auto& [name, value] : inputs)
        if (!model->setInput(name, value, &why)) {
            std::cerr << "loopscope-cli: " << why << "\n";
            return kError;
        }
    model->run();
    json j{{"ok", true},
           {"model", a.files[0]},
           {"compile_ms", compileMs},
           {"tasks", model->tasks().size()},
           {"project", projectPath},
           {"buffer_bytes", model->bufferBytes()},
           {"intermediate_bytes", model->intermediateBytes()},
           {"unplanned_intermediate_bytes", model->unplannedIntermediateBytes()}};
    int status = kOk;
    // The check: every task's output against the reference interpreter's tensor, in order; the
    // first wrong one is named.
    if (a.check) {
        std::map<std::string, HostBuffer> reference;
        try {
            reference = interpret(g, inputs);
        } catch (const GraphError& e) {
            std::cerr << a.files[0] << ": error: the reference: " << e.what() << "\n";
            return kError;
        }
        const ModelCheck check = model->check(inputs, reference);
        auto entries = [](const std::vector<ModelCheck::Entry>& list, const char* key) {
            json out = json::array();
            for (const auto& e : list)
                out.push_back({{key, e.name},
                               {"ok", e.comparison.ok},
                               {"max_abs_error", e.comparison.maxAbsError},
                               {"max_rel_error", e.comparison.maxRelError},
                               {"first", e.comparison.first}});
            return out;
        };
        j["checks"] = entries(check.tasks, "task");
        j["output_checks"] = entries(check.outputs, "output");
        j["checked"] = check.ok();
        if (check.firstWrongTask >= 0) {
            const auto& e = check.tasks[static_cast<std::size_t>(check.firstWrongTask)];
            j["first_wrong_task"] = e.name;
            std::cerr << a.files[0] << ": task " << e.name
                      << " computes wrong numbers from the reference's inputs: "
                      << e.comparison.first << " (max abs error " << e.comparison.maxAbsError
                      << ", max rel error " << e.comparison.maxRelError << ")\n";
        }
        for (const auto& e : check.outputs)
            if (!e.comparison.ok)
                std::cerr << a.files[0] << ": output " << e.name
                          << " end to end: " << e.comparison.first << " (max abs error "
                          << e.comparison.maxAbsError << ", max rel error "
                          << e.comparison.maxRelError << ")\n";
        if (!check.ok()) status = kWrong;
    }
    if (!a.outputDir.empty()) {
        fs::create_directories(a.outputDir);
        for (std::size_t i = 0; i < g.outputs.size(); ++i) {
            const std::string path =
                (fs::path(a.outputDir) / ("output_" + std::to_string(i) + ".pb")).string();
            if (!writeTensorFile(path, g.outputs[i], model->value(g.outputs[i]), &why)) {
                std::cerr << "loopscope-cli: " << why << "\n";
                return kError;
            }
        }
    }
    std::vector<Measurement> perTask;
    std::vector<double> inModel; // per task: its median inside whole-model runs
    Measurement total;
    if (bench) {
        BenchmarkOptions o;
        o.repeat = a.repeat;
        o.minRepeatMs = 100;
        total = measure([&] { model->run(); }, o);
        BenchmarkOptions per;
        per.repeat = 5;
        per.minRepeatMs = 20;
        for (std::size_t i = 0; i < model->tasks().size(); ++i)
            perTask.push_back(measure([&, i] { model->runTask(i); }, per));
        // Each task where it runs in the model: after the task before it, its weights and
        // inputs where that one left them in the caches, not hot from its own last run.
        std::vector<std::vector<double>> runs(model->tasks().size());
        for (int r = 0; r < std::max(5, a.repeat); ++r) {
            const std::vector<double> ms = model->runTimed();
            for (std::size_t i = 0; i < ms.size(); ++i)
                runs[i].push_back(ms[i]);
        }
        for (auto& list : runs) {
            std::sort(list.begin(), list.end());
            inModel.push_back(list[list.size() / 2]);
        }
        j["median_ms"] = total.median;
        j["min_ms"] = total.min;
        j["max_ms"] = total.max;
        j["threads"] = parallelThreads();
    }
    if (a.json) {
        if (bench) {
            // One row per workload, the one to tune next first (weight x ms, Ansor's objective).
            json ts = json::array();
            std::set<std::string> shown;
            for (auto i : byWeightedTime(*model, perTask)) {
                const CompiledTask& t = model->tasks()[i];
                if (!shown.insert(t.task.workload).second) continue;
                const double flops = taskFlops(t.script);
                const double ms = perTask[i].median;
                ts.push_back({{"name", t.task.name},
                              {"workload", t.task.workload},
                              {"weight", t.task.weight},
                              {"gflop", flops / 1e9},
                              {"source", t.source},
                              {"variant", t.variant},
                              {"ms", ms},
                              {"weight_ms", ms * t.task.weight},
                              {"in_model_ms", workloadInModel(*model, inModel, t.task.workload)},
                              {"gflops", ms > 0 ? flops / ms / 1e6 : 0}});
            }
            j["tasks"] = ts;
        }
        std::cout << j.dump(2) << "\n";
        return status;
    }
    std::cout << a.files[0] << ": " << model->tasks().size() << " tasks compiled in "
              << fixed(compileMs, 0) << " ms, "
              << fixed(static_cast<double>(model->bufferBytes()) / 1e6, 1)
              << " MB of buffers (intermediate tensors share "
              << fixed(static_cast<double>(model->intermediateBytes()) / 1e6, 1) << " MB for "
              << fixed(static_cast<double>(model->unplannedIntermediateBytes()) / 1e6, 1) << ")\n";
    const auto& cs = model->compileStats();
    std::cout << "compiling: task scripts " << fixed(cs.scriptMs, 0) << " ms, evaluating "
              << fixed(cs.evaluateMs, 0) << " ms, lowering " << fixed(cs.lowerMs, 0) << " ms, LLVM "
              << fixed(cs.codegenMs, 0) << " ms (" << cs.kernels << " kernels on " << cs.threads
              << " threads)\n";
    if (a.check)
        std::cout << (status == kOk ? "check: every task and output matches the reference\n"
                                    : "check: wrong numbers\n");
    if (bench) {
        std::cout << "end to end: " << fixed(total.median, 3) << " ms median ("
                  << fixed(total.min, 3) << "-" << fixed(total.max, 3) << ", "
                  << total.msPerRun.size() << " runs, " << parallelThreads() << " threads)\n";
        double alone = 0, within = 0;
        for (std::size_t i = 0; i < perTask.size(); ++i) {
            alone += perTask[i].median;
            within += inModel[i];
        }
        std::cout << "tasks: " << fixed(alone, 3)
                  << " ms timed alone (each hot from its own runs), " << fixed(within, 3)
                  << " ms inside the model (\"in model\": after the task "
                  << "before it)\n";
        // The table users tune from: weight x time first.
        std::cout << "  " << std::left << std::setw(28) << "task" << std::right << std::setw(7)
                  << "weight" << std::setw(9) << "GFLOP" << std::setw(10) << "ms" << std::setw(12)
                  << "weight*ms" << std::setw(10) << "in model" << std::setw(9) << "GFLOPS"
                  << "  schedule\n";
        std::set<std::string> shown;
        for (auto i : byWeightedTime(*model, perTask)) {
            const CompiledTask& t = model->tasks()[i];
            if (!shown.insert(t.task.workload).second) continue;
            const double flops = taskFlops(t.script);
            std::cout << "  " << std::left << std::setw(28) << t.task.name << std::right
                      << std::setw(7) << t.task.weight << std::setw(9) << fixed(flops / 1e9, 3)
                      << std::setw(10) << fixed(perTask[i].median, 3) << std::setw(12)
                      << fixed(perTask[i].median * t.task.weight, 3) << std::setw(10)
                      << fixed(workloadInModel(*model, inModel, t.task.workload), 3) << std::setw(9)
                      << fixed(perTask[i].median > 0 ? flops / perTask[i].median / 1e6 : 0, 1)
                      << "  " << t.source << "\n";
        }
    }
    if (!a.outputDir.empty()) std::cout << "outputs written to " << a.outputDir << "\n";
    return status;
}

int modelTasks(const Args& a, const ImportResult& r)
{
    const Graph& g = r.graph;
    std::vector<Task> tasks = fuseOps(g);
    json list = json::array();
    std::set<std::string> written;
    if (!a.exportDir.empty()) fs::create_directories(a.exportDir);
    for (auto& t : tasks) {
        const std::string script = taskScript(g, t);
        json j = taskJson(g, t, taskFlops(script));
        if (!a.exportDir.empty() && written.insert(t.workload).second) {
            const std::string path = (fs::path(a.exportDir) / (t.name + ".py")).string();
            std::ofstream out(path);
            out << script;
            j["script"] = path;
        }
        list.push_back(j);
    }
    if (a.json) {
        std::cout << json{{"ok", true}, {"tasks", list}}.dump(2) << "\n";
    } else {
        for (auto& j : list)
            std::cout << j["name"].get<std::string>() << "  weight " << j["weight"].get<int>()
                      << "  " << fixed(j["gflop"].get<double>(), 4) << " GFLOP"
                      << (j.contains("script") ? "  -> " + j["script"].get<std::string>() : "")
                      << "\n";
    }
    return kOk;
}

// Each --input of a name is one calibration input more: the first of every name make the first,
// and so on; a name given fewer times repeats its last value.
std::vector<std::map<std::string, HostBuffer>> calibrationInputs(const Args& a,
                                                                 const ImportResult& r)
{
    std::map<std::string, std::vector<const HostBuffer*>> byName;
    std::vector<std::map<std::string, HostBuffer>> samples;
    if (a.inputs.empty()) return samples;
    for (std::size_t i = 0; i < a.inputs.size(); ++i)
        byName[a.inputs[i].first].push_back(&a.values[i]);
    std::size_t count = 0;
    for (auto& [name, values] : byName)
        count = std::max(count, values.size());
    for (std::size_t s = 0; s < count; ++s) {
        std::map<std::string, HostBuffer> in;
        for (auto& name : r.graph.inputs) {
            auto it = byName.find(name);
            if (it == byName.end())
                throw UsageError("--input gives no value for the model's input '" + name +
                                 "': give every input, or none (seeded inputs)");
            in.emplace(name, *it->second[std::min(s, it->second.size() - 1)]);
        }
        samples.push_back(std::move(in));
    }
    return samples;
}

int modelQuantize(Args& a, ImportResult& r)
{
    QuantizeReport report;
    try {
        a.quantize.inputs = calibrationInputs(a, r);
        a.quantize.seed = a.seed;
        report = quantizeGraph(r.graph, a.quantize);
    } catch (const GraphError& e) {
        std::cerr << a.files[0] << ": error: " << e.what() << "\n";
        return kError;
    } catch (const UsageError& e) {
        std::cerr << "loopscope-cli: " << e.what() << "\n";
        return kUsage;
    }
    std::string why;
    if (!writeOnnxModel(r.graph, a.files[1], &why)) {
        std::cerr << "loopscope-cli: " << why << "\n";
        return kError;
    }
    if (a.json) {
        std::cout << json{{"ok", true},
                          {"model", a.files[1]},
                          {"operators", report.operators},
                          {"weights", report.weights},
                          {"activations", report.activations},
                          {"samples", report.samples},
                          {"calibration", a.quantize.percentile ? "percentile" : "minmax"},
                          {"ranges", report.ranges}}
                         .dump(2)
                  << "\n";
        return kOk;
    }
    std::cout << "wrote " << a.files[1] << ": " << report.operators << " operators quantized, "
              << report.weights << " weights per channel (int8), " << report.activations
              << " activations (uint8) calibrated on " << report.samples << " input"
              << (report.samples == 1 ? "" : "s") << " ("
              << (a.quantize.percentile ? "percentile " + fixed(a.quantize.percent, 3)
                                        : std::string("min-max"))
              << ")\n";
    for (auto& line : report.ranges)
        std::cout << "  " << line << "\n";
    return kOk;
}

} // namespace

int runModelCommand(int argc, char** argv, const std::string& self)
{
    Args a;
    try {
        a = parseArgs(argc, argv);
        a.self = self;
        if (a.sub == "test") return runModelTests(a.files, a.json);
        if (a.sub == "make") {
            std::string why;
            if (!makeModel(a.files[0], a.files[1], a.seed, &why)) {
                std::cerr << "loopscope-cli: " << why << "\n";
                return kUsage;
            }
            std::cout << "wrote " << a.files[1] << "\n";
            return kOk;
        }
    } catch (const UsageError& e) {
        std::cerr << "loopscope-cli: " << e.what() << "\n\n" << kModelUsage;
        return kUsage;
    }
    ImportOptions options = a.import;
    options.allowUnsupported = a.sub == "info";
    // Values given at compile time: integers (a Reshape's shape, a Slice's starts) are bound as
    // constants, so the model is specialised on them; data decides its input's shape.
    const std::vector<std::string> inputNames =
        a.inputs.empty() ? std::vector<std::string>{} : modelInputNames(a.files[0]);
    for (auto& [name, file] : a.inputs) {
        std::string tensorName, why;
        HostBuffer b;
        // (A model that cannot be read is the import's to say.)
        if (!inputNames.empty() &&
            std::find(inputNames.begin(), inputNames.end(), name) == inputNames.end()) {
            std::string known;
            for (auto& n : inputNames)
                known += (known.empty() ? "" : ", ") + n;
            std::cerr << "loopscope-cli: --input names '" << name << "', which is not an input of "
                      << a.files[0] << " (its inputs: " << known << ")\n";
            return kError;
        }
        if (!readTensorFile(file, &tensorName, &b, &why)) {
            std::cerr << "loopscope-cli: --input " << name << ": " << why << "\n";
            return kError;
        }
        if (bindsAsConstant(b))
            options.constants[name] = b;
        else if (!options.shapes.count(name))
            options.shapes[name] = b.shape();
        a.values.push_back(b);
        a.given[name] = std::move(b);
    }
    ImportResult r = importOnnx(a.files[0], options);
    if (!r.ok) {
        std::cerr << a.files[0] << ": error: " << r.error << "\n";
        if (a.json) std::cout << json{{"ok", false}, {"error", r.error}}.dump(2) << "\n";
        return kError;
    }
    if (a.sub == "quantize") return modelQuantize(a, r);
    std::vector<GraphSnapshot> passes;
    if (r.unsupported.empty()) {
        try {
            optimizeGraph(r.graph, &passes);
        } catch (const GraphError& e) {
            std::cerr << a.files[0] << ": error: " << e.what() << "\n";
            return kError;
        }
    }
    if (a.passes && !a.json)
        for (auto& p : passes)
            std::cout << "# after " << p.pass << (p.changed ? "" : " (no change)") << ": "
                      << p.nodes << " nodes\n"
                      << p.text << "\n";
    if (a.sub == "info") return modelInfo(a, r);
    if (a.sub == "tasks") return modelTasks(a, r);
    if (a.sub == "tune") {
        ModelTuneArgs t;
        t.model = a.files[0];
        t.project = a.schedules.empty() ? projectPathFor(a.files[0]) : a.schedules;
        t.only = a.tuneTasks;
        t.top = a.top;
        t.trials = a.trials;
        t.seconds = a.seconds;
        t.threads = a.threads;
        t.seed = a.seed;
        t.json = a.json;
        t.self = a.self;
        t.runner = a.runner;
        t.target = a.target;
        t.runners = a.runners;
        return runModelTune(t, r.graph);
    }
    return modelRun(a, r, a.sub == "bench");
}

namespace cli {

int commandModel(int argc, char** argv)
{
    return runModelCommand(argc, argv, "/proc/self/exe");
}

} // namespace cli

} // namespace loopscope
