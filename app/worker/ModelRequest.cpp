#include "ModelRequest.h"

#include "graph/FuseOps.h"
#include "graph/Interpreter.h"
#include "graph/ModelRun.h"
#include "graph/OnnxImport.h"
#include "graph/Operators.h"
#include "graph/Passes.h"
#include "graph/Project.h"
#include "graph/Task.h"
#include "ir/Diagnostic.h"
#include "runtime/Benchmark.h"
#include "runtime/ThreadPool.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace loopscope::worker {

namespace {

double msSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The model cannot run: an error result about the document (the model), in the user's words.
[[noreturn]] void failure(const std::string& message)
{
    throw UserError({}, message);
}

// Nodes with their operator, inputs, outputs (with shapes) and the index of their task; views
// (which no task computes) have task -1.
void putGraph(const Graph& g, const std::vector<Task>& tasks, protocol::ModelReply* r)
{
    std::vector<int> taskOf(g.nodes.size(), -1);
    for (std::size_t t = 0; t < tasks.size(); ++t)
        for (int n : tasks[t].nodes)
            taskOf[static_cast<std::size_t>(n)] = static_cast<int>(t);
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const GraphNode& n = g.nodes[i];
        protocol::ModelNode node;
        node.name = n.name;
        node.op = n.op;
        for (auto& o : n.outputs) {
            const GraphTensor* t = g.find(o);
            node.outputs.push_back({o, t ? tensorShapeText(*t) : ""});
        }
        for (auto& in : n.inputs)
            if (!in.empty() && !g.tensor(in).isConstant()) node.inputs.push_back(in);
        node.task = taskOf[i];
        r->nodes.push_back(std::move(node));
    }
    for (auto& i : g.inputs)
        r->inputs.push_back({i, dimsText(g.tensor(i).shape)});
    r->outputs = g.outputs;
}

} // namespace

protocol::ModelReply
runModelRequest(const protocol::ModelRequest& request,
                const std::function<void(const std::string&, double)>& progress)
{
    const std::string& path = request.model;
    setParallelThreads(request.threads);

    progress("importing", 0.0);
    auto t0 = std::chrono::steady_clock::now();
    ImportOptions options;
    options.shapes = request.shapes;
    ImportResult imported = importOnnx(path, options);
    if (!imported.ok)
        failure(std::filesystem::path(path).filename().string() + ": " + imported.error);
    try {
        optimizeGraph(imported.graph);
    } catch (const GraphError& e) {
        failure(e.what());
    }
    const Graph& g = imported.graph;
    const double importMs = msSince(t0);
    const std::vector<Task> tasks = fuseOps(g);

    std::vector<std::string> notes = imported.notes;
    ModelOptions modelOptions;
    std::string projectPath;
    ModelProject project;
    if (request.schedules != "none") {
        projectPath = request.schedules.empty() ? projectPathFor(path) : request.schedules;
        std::string why;
        if (!readProject(projectPath, &project, &why)) failure(why);
        modelOptions = resolveProject(project, g, tasks, &notes);
        if (project.tasks.empty()) projectPath.clear();
    }

    // What the window draws and opens: the graph, each task's nodes and script.
    protocol::ModelReply result;
    result.model = path;
    result.project = projectPath;
    result.importMs = importMs;
    putGraph(g, tasks, &result);
    std::map<std::string, const TaskChoice*> chosen;
    std::map<std::string, std::string> stale; // by workload
    for (auto& c : project.tasks)
        chosen[c.workload] = &c;
    for (const Task& t : tasks) {
        protocol::ModelTask j;
        j.name = t.name;
        j.workload = t.workload;
        j.anchor = t.anchor;
        for (int n : t.nodes)
            j.nodes.push_back(g.nodes[static_cast<std::size_t>(n)].name);
        j.weight = t.weight;
        j.output = t.output;
        j.arithmetic = taskArithmetic(g, t);
        j.script = taskScript(g, t);
        j.gflop = taskFlops(j.script) / 1e9;
        j.source = "default";
        if (auto c = chosen.find(t.workload); c != chosen.end()) {
            j.scriptFile = c->second->script;
            j.logFile = c->second->log;
            j.variant = c->second->variant;
        }
        if (auto s = modelOptions.sources.find(t.workload); s != modelOptions.sources.end())
            j.source = s->second;
        if (auto known = stale.find(t.workload); known != stale.end()) {
            j.stale = known->second;
        } else {
            j.stale = staleReason(project, g, *choiceTask(project, tasks, t.workload),
                                  taskFolderFor(path));
            stale[t.workload] = j.stale;
        }
        result.tasks.push_back(std::move(j));
    }
    result.notes = notes;
    if (!request.run) return result;

    progress("compiling", 0.1);
    std::string why;
    auto model = CompiledModel::compile(g, modelOptions, &why);
    if (!model) failure(why);
    result.ran = true;
    result.compileMs = model->compileMs();
    result.bufferBytes = model->bufferBytes();
    result.threads = parallelThreads();

    std::map<std::string, HostBuffer> inputs;
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
        const GraphTensor& t = g.tensor(g.inputs[i]);
        HostBuffer b(t.dtype, t.shape);
        b.fillRandom(request.seed + i);
        if (!model->setInput(t.name, b, &why)) failure(why);
        inputs[t.name] = std::move(b);
    }

    std::optional<ModelCheck> checked;
    if (request.check) {
        progress("checking", 0.3);
        try {
            checked = model->check(inputs, interpret(g, inputs));
        } catch (const GraphError& e) {
            result.notes.push_back(std::string("the reference could not run: ") + e.what());
        }
    }
    progress("timing", 0.6);
    model->run();
    BenchmarkOptions whole;
    whole.repeat = request.repeat;
    whole.minRepeatMs = 20;
    const Measurement total = measure([&] { model->run(); }, whole);
    BenchmarkOptions per;
    per.repeat = 5;
    per.minRepeatMs = 10;
    std::vector<double> taskMs;
    double sum = 0;
    for (std::size_t i = 0; i < model->tasks().size(); ++i) {
        taskMs.push_back(measure([&] { model->runTask(i); }, per).median);
        sum += taskMs.back();
    }
    result.medianMs = total.median;
    result.minMs = total.min;
    result.maxMs = total.max;

    // The tasks compiled are the model's tasks in order, less those with nothing to compute.
    for (std::size_t i = 0; i < model->tasks().size(); ++i) {
        const CompiledTask& t = model->tasks()[i];
        for (protocol::ModelTask& j : result.tasks) {
            if (j.name != t.task.name) continue;
            j.source = t.source;
            j.variant = t.variant;
            j.measured = true;
            j.ms = taskMs[i];
            j.share = sum > 0 ? taskMs[i] / sum : 0;
            j.gflops = taskMs[i] > 0 ? j.gflop * 1e9 / taskMs[i] / 1e6 : 0;
            if (checked) {
                const Comparison& c = checked->tasks[i].comparison;
                j.checked = true;
                j.ok = c.ok;
                j.maxAbsError = c.maxAbsError;
                j.maxRelError = c.maxRelError;
                j.first = c.first;
            }
        }
    }
    if (checked) {
        for (auto& e : checked->outputs)
            result.outputChecks.push_back({e.name, e.comparison.ok, e.comparison.maxAbsError,
                                           e.comparison.maxRelError, e.comparison.first});
        result.checked = true;
        result.checkPassed = checked->ok();
        if (checked->firstWrongTask >= 0)
            result.firstWrongTask =
                checked->tasks[static_cast<std::size_t>(checked->firstWrongTask)].name;
    }
    progress("timing", 1.0);
    return result;
}

protocol::ModelChoiceReply runModelChoiceRequest(const protocol::ModelChoiceRequest& request)
{
    const std::string& model = request.model;
    const std::string path = request.schedules.empty() ? projectPathFor(model) : request.schedules;
    ModelProject project;
    std::string why;
    if (!readProject(path, &project, &why)) failure(why);
    if (project.model.empty()) project.model = std::filesystem::path(model).filename().string();
    const std::string& workload = request.workload;
    const std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
    // Paths inside the project's folder are kept relative to it, so that the folder can move.
    auto relative = [&](const std::string& p) {
        const auto abs = std::filesystem::absolute(p).lexically_normal();
        const auto rel = abs.lexically_relative(folder);
        return !rel.empty() && rel.native().rfind("..", 0) != 0 ? rel.string() : abs.string();
    };
    if (request.reset) {
        project.tasks.erase(
            std::remove_if(project.tasks.begin(), project.tasks.end(),
                           [&](const TaskChoice& c) { return c.workload == workload; }),
            project.tasks.end());
    } else {
        TaskChoice& c = project.choice(workload, request.name);
        const TaskChoice before = c;
        if (request.script) c.script = relative(*request.script);
        if (request.variant) c.variant = *request.variant;
        if (request.log) c.log = request.log->empty() ? std::string() : relative(*request.log);
        // The user's own choice: it runs as the fields say, and was never timed against the
        // others. (Naming the script it already had changes nothing.)
        if (c.script != before.script || c.variant != before.variant || c.log != before.log) {
            c.use.clear();
            c.compared = {};
        }
    }
    if (!writeProject(project, &why)) failure(why);
    return {path};
}

} // namespace loopscope::worker
