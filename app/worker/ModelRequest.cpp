#include "ModelRequest.h"

#include "graph/FuseOps.h"
#include "graph/Interpreter.h"
#include "graph/ModelRun.h"
#include "graph/OnnxImport.h"
#include "graph/Operators.h"
#include "graph/Passes.h"
#include "graph/Project.h"
#include "graph/Task.h"
#include "runtime/Benchmark.h"
#include "runtime/ThreadPool.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace loopscope::worker {

using json = nlohmann::json;

namespace {

double msSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The model cannot run: an error result about the document (the model), in the user's words.
json failure(const std::string& message)
{
    return json{{"status", "error"}, {"kind", "document"}, {"message", message}};
}

// Nodes with their operator, inputs, outputs (with shapes) and the index of their task; views
// (which no task computes) have task -1.
json graphJson(const Graph& g, const std::vector<Task>& tasks)
{
    std::vector<int> taskOf(g.nodes.size(), -1);
    for (std::size_t t = 0; t < tasks.size(); ++t)
        for (int n : tasks[t].nodes)
            taskOf[static_cast<std::size_t>(n)] = static_cast<int>(t);
    json nodes = json::array();
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const GraphNode& n = g.nodes[i];
        json outs = json::array();
        for (auto& o : n.outputs) {
            const GraphTensor* t = g.find(o);
            outs.push_back({{"name", o}, {"shape", t ? dimsText(t->shape) : ""}});
        }
        json ins = json::array();
        for (auto& in : n.inputs)
            if (!in.empty() && !g.tensor(in).isConstant()) ins.push_back(in);
        nodes.push_back({{"name", n.name},
                         {"op", n.op},
                         {"inputs", ins},
                         {"outputs", outs},
                         {"task", taskOf[i]}});
    }
    json inputs = json::array();
    for (auto& i : g.inputs)
        inputs.push_back({{"name", i}, {"shape", dimsText(g.tensor(i).shape)}});
    return {{"nodes", nodes}, {"inputs", inputs}, {"outputs", g.outputs}};
}

void putComparison(json& j, const Comparison& c)
{
    j["ok"] = c.ok;
    j["max_abs_error"] = c.maxAbsError;
    j["max_rel_error"] = c.maxRelError;
    j["first"] = c.first;
}

} // namespace

json runModelRequest(const json& request,
                     const std::function<void(const std::string&, double)>& progress)
{
    if (!request.contains("model") || !request.at("model").is_string())
        throw std::invalid_argument("the request needs \"model\", the path of an ONNX file");
    const std::string path = request.at("model").get<std::string>();
    const std::string schedules = request.value("schedules", "");
    const bool check = request.value("check", true);
    const int repeat = std::max(1, request.value("repeat", 10));
    const std::uint64_t seed = request.value("seed", std::uint64_t{1});
    setParallelThreads(request.value("threads", 0));

    progress("importing", 0.0);
    auto t0 = std::chrono::steady_clock::now();
    ImportOptions options;
    if (request.contains("shapes"))
        options.shapes =
            request.at("shapes").get<std::map<std::string, std::vector<std::int64_t>>>();
    ImportResult imported = importOnnx(path, options);
    if (!imported.ok)
        return failure(std::filesystem::path(path).filename().string() + ": " + imported.error);
    try {
        optimizeGraph(imported.graph);
    } catch (const GraphError& e) {
        return failure(e.what());
    }
    const Graph& g = imported.graph;
    const double importMs = msSince(t0);
    const std::vector<Task> tasks = fuseOps(g);

    std::vector<std::string> notes = imported.notes;
    ModelOptions modelOptions;
    std::string projectPath;
    ModelProject project;
    if (schedules != "none") {
        projectPath = schedules.empty() ? projectPathFor(path) : schedules;
        std::string why;
        if (!readProject(projectPath, &project, &why)) return failure(why);
        modelOptions = resolveProject(project, g, tasks, &notes);
        if (project.tasks.empty()) projectPath.clear();
    }

    // What the window draws and opens: the graph, each task's nodes and script.
    json result{{"status", "ok"},
                {"model", path},
                {"project", projectPath},
                {"import_ms", importMs},
                {"graph", graphJson(g, tasks)},
                {"notes", notes}};
    std::map<std::string, const TaskChoice*> chosen;
    for (auto& c : project.tasks)
        chosen[c.workload] = &c;
    json list = json::array();
    for (const Task& t : tasks) {
        json nodes = json::array();
        for (int n : t.nodes)
            nodes.push_back(g.nodes[static_cast<std::size_t>(n)].name);
        json j{{"name", t.name}, {"workload", t.workload}, {"anchor", t.anchor},
               {"nodes", nodes}, {"weight", t.weight},     {"output", t.output}};
        const std::string script = taskScript(g, t);
        j["script"] = script;
        j["gflop"] = taskFlops(script) / 1e9;
        auto c = chosen.find(t.workload);
        j["source"] = "default";
        if (c != chosen.end()) {
            if (!c->second->script.empty()) j["script_file"] = c->second->script;
            if (!c->second->log.empty()) j["log_file"] = c->second->log;
            if (!c->second->variant.empty()) j["variant"] = c->second->variant;
        }
        if (auto s = modelOptions.sources.find(t.workload); s != modelOptions.sources.end())
            j["source"] = s->second;
        list.push_back(j);
    }
    result["tasks"] = list;
    if (!request.value("run", true)) return result;

    progress("compiling", 0.1);
    std::string why;
    auto model = CompiledModel::compile(g, modelOptions, &why);
    if (!model) return failure(why);
    result["compile_ms"] = model->compileMs();
    result["buffer_bytes"] = model->bufferBytes();
    result["threads"] = parallelThreads();

    std::map<std::string, HostBuffer> inputs;
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
        const GraphTensor& t = g.tensor(g.inputs[i]);
        HostBuffer b(t.dtype, t.shape);
        b.fillRandom(seed + i);
        if (!model->setInput(t.name, b, &why)) return failure(why);
        inputs[t.name] = std::move(b);
    }

    std::optional<ModelCheck> checked;
    if (check) {
        progress("checking", 0.3);
        try {
            checked = model->check(inputs, interpret(g, inputs));
        } catch (const GraphError& e) {
            notes.push_back(std::string("the reference could not run: ") + e.what());
            result["notes"] = notes;
        }
    }
    progress("timing", 0.6);
    model->run();
    BenchmarkOptions whole;
    whole.repeat = repeat;
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
    result["median_ms"] = total.median;
    result["min_ms"] = total.min;
    result["max_ms"] = total.max;

    // The tasks compiled are the model's tasks in order, less those with nothing to compute.
    for (std::size_t i = 0; i < model->tasks().size(); ++i) {
        const CompiledTask& t = model->tasks()[i];
        for (json& j : result["tasks"]) {
            if (j["name"] != t.task.name) continue;
            const double flops = j["gflop"].get<double>() * 1e9;
            j["source"] = t.source;
            j["variant"] = t.variant;
            j["ms"] = taskMs[i];
            j["share"] = sum > 0 ? taskMs[i] / sum : 0;
            j["gflops"] = taskMs[i] > 0 ? flops / taskMs[i] / 1e6 : 0;
            if (checked) putComparison(j, checked->tasks[i].comparison);
        }
    }
    if (checked) {
        json outputs = json::array();
        for (auto& e : checked->outputs) {
            json o{{"name", e.name}};
            putComparison(o, e.comparison);
            outputs.push_back(o);
        }
        result["outputs"] = outputs;
        result["checked"] = checked->ok();
        if (checked->firstWrongTask >= 0)
            result["first_wrong_task"] =
                checked->tasks[static_cast<std::size_t>(checked->firstWrongTask)].name;
    }
    progress("timing", 1.0);
    return result;
}

json runModelChoiceRequest(const json& request)
{
    for (const char* key : {"model", "workload"})
        if (!request.contains(key) || !request.at(key).is_string())
            throw std::invalid_argument(std::string("the request needs \"") + key + "\"");
    const std::string model = request.at("model").get<std::string>();
    const std::string path = request.value("schedules", "").empty()
                                 ? projectPathFor(model)
                                 : request.at("schedules").get<std::string>();
    ModelProject project;
    std::string why;
    if (!readProject(path, &project, &why)) return failure(why);
    if (project.model.empty()) project.model = std::filesystem::path(model).filename().string();
    const std::string workload = request.at("workload").get<std::string>();
    const std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
    // Paths inside the project's folder are kept relative to it, so that the folder can move.
    auto relative = [&](const std::string& p) {
        const auto abs = std::filesystem::absolute(p).lexically_normal();
        const auto rel = abs.lexically_relative(folder);
        return !rel.empty() && rel.native().rfind("..", 0) != 0 ? rel.string() : abs.string();
    };
    if (request.value("reset", false)) {
        project.tasks.erase(
            std::remove_if(project.tasks.begin(), project.tasks.end(),
                           [&](const TaskChoice& c) { return c.workload == workload; }),
            project.tasks.end());
    } else {
        TaskChoice& c = project.choice(workload, request.value("name", ""));
        if (request.contains("script"))
            c.script = relative(request.at("script").get<std::string>());
        if (request.contains("variant")) c.variant = request.at("variant").get<std::string>();
        if (request.contains("log")) {
            const std::string log = request.at("log").get<std::string>();
            c.log = log.empty() ? std::string() : relative(log);
        }
    }
    if (!writeProject(project, &why)) return failure(why);
    return {{"status", "ok"}, {"project", path}};
}

} // namespace loopscope::worker
