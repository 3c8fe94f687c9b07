#include "ModelTune.h"

#include "Cli.h"

#include "graph/FuseOps.h"
#include "graph/ModelRun.h"
#include "graph/Project.h"
#include "graph/Task.h"
#include "runtime/Benchmark.h"
#include "tune/Measure.h"
#include "tune/Tuner.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

namespace loopscope {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::atomic<bool> g_stop{false};

void onInterrupt(int)
{
    g_stop = true;
}

using cli::fixed;

std::string readText(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Candidate {
    const Task* task = nullptr;
    std::string script, variant; // what runs now
    double ms = 0;               // its time in this process, for the order
};

} // namespace

int runModelTune(const ModelTuneArgs& a, const Graph& graph)
{
    ModelProject project;
    std::string why;
    if (!readProject(a.project, &project, &why)) {
        std::cerr << "loopscope-cli: " << why << "\n";
        return 1;
    }
    if (project.model.empty()) project.model = fs::path(a.model).filename().string();
    const fs::path projectFolder = fs::absolute(a.project).parent_path();
    const std::vector<Task> tasks = fuseOps(graph);
    std::vector<std::string> notes;
    ModelOptions options = resolveProject(project, graph, tasks, &notes);
    for (auto& n : notes)
        std::cerr << "note: " << n << "\n";

    // The order: weight x time with the schedules the model has now.
    auto model = CompiledModel::compile(graph, options, &why);
    if (!model) {
        std::cerr << a.model << ": error: " << why << "\n";
        return 1;
    }
    model->fillInputs(1);
    std::vector<Candidate> order;
    std::set<std::string> seen;
    BenchmarkOptions quick;
    quick.repeat = 3;
    quick.minRepeatMs = 10;
    // In order, every task run once, so that each finds its inputs as a run leaves them.
    for (std::size_t i = 0; i < model->tasks().size(); ++i) {
        const CompiledTask& t = model->tasks()[i];
        model->runTask(i);
        if (!seen.insert(t.task.workload).second) continue;
        Candidate c;
        for (auto& task : tasks)
            if (task.workload == t.task.workload) c.task = &task;
        c.script = t.script;
        c.variant = t.variant;
        c.ms = measure([&] { model->runTask(i); }, quick).median * t.task.weight;
        order.push_back(c);
    }
    std::stable_sort(order.begin(), order.end(),
                     [](const Candidate& x, const Candidate& y) { return x.ms > y.ms; });
    if (!a.only.empty()) {
        std::vector<Candidate> chosen;
        for (const std::string& name : a.only) {
            auto it = std::find_if(order.begin(), order.end(),
                                   [&](const Candidate& c) { return c.task->name == name; });
            if (it == order.end()) {
                std::string known;
                for (auto& c : order)
                    known += (known.empty() ? "" : ", ") + c.task->name;
                std::cerr << "loopscope-cli: the model has no task '" << name
                          << "' (tasks: " << known << ")\n";
                return 2;
            }
            chosen.push_back(*it);
        }
        order = chosen;
    }
    if (a.top > 0 && order.size() > static_cast<std::size_t>(a.top))
        order.resize(static_cast<std::size_t>(a.top));

    const fs::path folder = taskFolderFor(fs::absolute(a.model).string());
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) {
        std::cerr << "loopscope-cli: cannot make " << folder << ": " << ec.message() << "\n";
        return 1;
    }
    WorkerMeasurer measurer(findWorkerExecutable(a.self));
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    json results = json::array();
    int index = 0;
    for (const Candidate& c : order) {
        if (g_stop) break;
        ++index;
        const Task& task = *c.task;
        TaskChoice& choice = project.choice(task.workload, task.name);
        // The script tuned: the project's own for the task, else the default one written out.
        fs::path scriptPath;
        std::string script;
        if (!choice.script.empty()) {
            scriptPath = fs::path(choice.script).is_absolute() ? fs::path(choice.script)
                                                               : projectFolder / choice.script;
            script = readText(scriptPath);
        } else {
            scriptPath = folder / (task.name + ".py");
            script = taskScript(graph, task);
            std::ofstream(scriptPath, std::ios::binary | std::ios::trunc) << script;
        }
        const fs::path logPath = folder / (task.name + ".jsonl");
        std::cerr << "[" << index << "/" << order.size() << "] " << task.name << " (weight "
                  << task.weight << "): tuning from '" << kNaiveTaskVariant << "', log "
                  << logPath.string() << "\n";
        TuneOptions o;
        o.variant = kNaiveTaskVariant;
        o.trials = a.trials;
        o.seconds = a.seconds;
        o.threads = a.threads;
        o.seed = a.seed;
        o.logPath = logPath.string();
        o.resume = true;
        Tuner tuner(script, o, measurer);
        int lastShown = 0;
        TuneOutcome out = tuner.run(
            [&](const TuneProgress& p) {
                if (p.phase != TuneProgress::Phase::Measuring || p.trialsDone - lastShown < 16)
                    return;
                lastShown = p.trialsDone;
                std::cerr << "    trial " << p.trialsDone << ": best "
                          << (p.bestGflops > 0 ? fixed(p.bestGflops, 1) + " GFLOPS"
                                               : fixed(p.bestMs, 3) + " ms")
                          << ", " << fixed(p.elapsedS, 0) << " s\n";
            },
            [] { return g_stop.load(); });
        json r{{"task", task.name}, {"weight", task.weight}, {"log", logPath.string()}};
        if (!out.ok || !out.haveBest) {
            const std::string reason = out.ok ? "no candidate was checked and timed" : out.error;
            std::cerr << "    " << task.name << ": nothing tuned: " << reason << "\n";
            r["error"] = reason;
            results.push_back(r);
            continue;
        }
        // What runs now, measured the same way.
        const MeasureOutcome current =
            measurer.measure(candidateRequest(c.script, c.variant, {}, a.threads));
        const double tunedMs = out.best.msMedian;
        const bool better =
            current.status != MeasureOutcome::Status::Ok || tunedMs < current.msMedian;
        r["tuned_ms"] = tunedMs;
        r["previous_ms"] = current.msMedian;
        r["trials"] = out.trials.size();
        r["kept"] = better ? "tuned" : "previous";
        std::cerr << "    " << task.name << ": " << fixed(current.msMedian, 3) << " ms -> tuned "
                  << fixed(tunedMs, 3) << " ms";
        if (better) {
            choice.script = fs::relative(scriptPath, projectFolder).string();
            choice.log = fs::relative(logPath, projectFolder).string();
            choice.variant.clear();
            if (!writeProject(project, &why)) {
                std::cerr << "\nloopscope-cli: " << why << "\n";
                return 1;
            }
            std::cerr << " (" << fixed(current.msMedian / tunedMs, 2) << "x), recorded in "
                      << a.project << "\n";
        } else {
            std::cerr << ": not faster; the schedule it had stays\n";
        }
        results.push_back(r);
    }
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    if (a.json)
        std::cout << json{{"ok", true},
                          {"project", a.project},
                          {"tasks", results},
                          {"cancelled", g_stop.load()}}
                         .dump(2)
                  << "\n";
    else
        std::cout << "tuned " << results.size() << " of " << order.size() << " tasks"
                  << (g_stop ? " (stopped)" : "") << "; the project file " << a.project
                  << " names the schedules `model run` and `model bench` use\n";
    return 0;
}

} // namespace loopscope
