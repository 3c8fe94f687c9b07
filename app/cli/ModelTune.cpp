#include "ModelTune.h"

#include "Cli.h"

#include "codegen/Codegen.h"
#include "graph/FuseOps.h"
#include "graph/ModelRun.h"
#include "graph/Project.h"
#include "graph/Task.h"
#include "runtime/Benchmark.h"
#include "tune/Measure.h"
#include "tune/TuneLog.h"
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

// Tunes the task from its naive variant into its log (M.tasks/TASK.jsonl), which the project
// then names; false (with the reason in `r`) when nothing was tuned.
bool tuneTask(const ModelTuneArgs& a, const Graph& graph, const Task& task, const fs::path& folder,
              const fs::path& projectFolder, Measurer& measurer, ModelProject* project, json* r,
              int index, std::size_t count)
{
    TaskChoice& choice = project->choice(task.workload, task.name);
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
    std::cerr << "[" << index << "/" << count << "] " << task.name << " (weight " << task.weight
              << "): tuning from '" << kNaiveTaskVariant << "', log " << logPath.string() << "\n";
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
            if (p.phase != TuneProgress::Phase::Measuring || p.trialsDone - lastShown < 16) return;
            lastShown = p.trialsDone;
            std::cerr << "    trial " << p.trialsDone << ": best "
                      << (p.bestGflops > 0 ? fixed(p.bestGflops, 1) + " GFLOPS"
                                           : fixed(p.bestMs, 3) + " ms")
                      << ", " << fixed(p.elapsedS, 0) << " s\n";
        },
        [] { return g_stop.load(); });
    (*r)["log"] = logPath.string();
    (*r)["trials"] = out.trials.size();
    if (!out.ok || !out.haveBest) {
        const std::string reason = out.ok ? "no candidate was checked and timed" : out.error;
        std::cerr << "    " << task.name << ": nothing tuned: " << reason << "\n";
        (*r)["error"] = reason;
        return false;
    }
    (*r)["tuned_ms"] = out.best.msMedian;
    if (choice.script.empty()) choice.script = fs::relative(scriptPath, projectFolder).string();
    choice.log = fs::relative(logPath, projectFolder).string();
    return true;
}

// The task's contenders (default, its script's variant, its log's best) timed in turns; the
// fastest is recorded in the project file as the one that runs, with the fingerprint of the code
// they compiled to. False when the project file cannot be written.
bool compareContenders(const ModelTuneArgs& a, const Graph& graph, const Task& task,
                       const std::string& folder, Measurer& measurer, ModelProject* project,
                       json* r)
{
    std::vector<std::string> notes;
    const std::vector<ScheduleContender> contenders =
        scheduleContenders(*project, graph, task, folder, &notes);
    for (auto& n : notes)
        std::cerr << "    note: " << n << "\n";
    std::string why;
    if (contenders.size() == 1) {
        std::cerr << "    only its default schedule: nothing to compare\n";
        (*r)["kept"] = "default";
        TaskChoice* choice = project->find(task.workload);
        if (!choice || (choice->use.empty() && choice->compared.time.empty())) return true;
        choice->use.clear();
        choice->compared = {};
        if (writeProject(*project, &why)) return true;
        std::cerr << "loopscope-cli: " << why << "\n";
        return false;
    }
    // Rounds, each starting one contender further along, so none is always measured first.
    constexpr int kRounds = 3;
    std::vector<std::vector<double>> ms(contenders.size());
    std::vector<std::string> problem(contenders.size());
    for (int round = 0; round < kRounds && !g_stop; ++round)
        for (std::size_t k = 0; k < contenders.size(); ++k) {
            const std::size_t i = (k + static_cast<std::size_t>(round)) % contenders.size();
            if (!problem[i].empty()) continue;
            const ScheduleContender& c = contenders[i];
            const MeasureOutcome m =
                measurer.measure(candidateRequest(c.script, c.variant, {}, a.threads));
            if (m.status == MeasureOutcome::Status::Ok && m.checked)
                ms[i].push_back(m.msMedian);
            else
                problem[i] = m.status == MeasureOutcome::Status::Ok
                                 ? std::string("not checked")
                                 : std::string(statusName(m.status)) + ": " + m.message;
        }
    if (g_stop) return true;
    json times = json::object();
    std::map<std::string, double> medians;
    int best = -1;
    for (std::size_t i = 0; i < contenders.size(); ++i) {
        const ScheduleContender& c = contenders[i];
        std::cerr << "    " << c.source << ": ";
        if (!problem[i].empty() || ms[i].empty()) {
            std::cerr << problem[i] << "\n";
            (*r)["problems"][c.kind] = problem[i];
            continue;
        }
        std::sort(ms[i].begin(), ms[i].end());
        const double median = ms[i][ms[i].size() / 2];
        medians[c.kind] = median;
        times[c.kind] = median;
        std::cerr << fixed(median, 3) << " ms (" << fixed(ms[i].front(), 3) << " - "
                  << fixed(ms[i].back(), 3) << ")\n";
        if (best < 0 || median < medians[contenders[static_cast<std::size_t>(best)].kind])
            best = static_cast<int>(i);
    }
    (*r)["ms"] = times;
    if (best < 0) {
        std::cerr << "    " << task.name << ": no schedule ran right; the choice stays\n";
        (*r)["error"] = "no schedule ran right";
        return true;
    }
    const ScheduleContender& winner = contenders[static_cast<std::size_t>(best)];
    const std::string code = codeFingerprint(contenders, task.name, &why);
    TaskChoice& choice = project->choice(task.workload, task.name);
    const std::string before = choice.use;
    choice.use = winner.kind;
    if (winner.kind == "tuned") choice.log = winner.log;
    choice.compared = {isoTimeNow(), hostTarget().cpu, code, medians};
    if (code.empty())
        std::cerr << "    its code could not be fingerprinted (" << why
                  << "): the choice will show as stale\n";
    (*r)["kept"] = winner.kind;
    const double base = medians.count("default") ? medians["default"] : 0;
    std::cerr << "    " << task.name << ": " << winner.kind << " runs";
    if (base > 0 && winner.kind != "default")
        std::cerr << " (" << fixed(base / medians[winner.kind], 2) << "x the default)";
    if (!before.empty() && before != winner.kind) std::cerr << ", instead of " << before;
    if (!writeProject(*project, &why)) {
        std::cerr << "\nloopscope-cli: " << why << "\n";
        return false;
    }
    std::cerr << "; recorded in " << a.project << "\n";
    return true;
}

struct Candidate {
    const Task* task = nullptr;
    double ms = 0; // its time in this process with the schedule it has now, for the order
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
        c.task = choiceTask(project, tasks, t.task.workload);
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
    const bool compareOnly = a.trials == 0 && a.seconds <= 0;
    int index = 0;
    for (const Candidate& c : order) {
        if (g_stop) break;
        ++index;
        const Task& task = *c.task;
        json r{{"task", task.name}, {"weight", task.weight}};
        if (!compareOnly) {
            if (!tuneTask(a, graph, task, folder, projectFolder, measurer, &project, &r, index,
                          order.size())) {
                results.push_back(r);
                continue;
            }
        } else {
            std::cerr << "[" << index << "/" << order.size() << "] " << task.name << " (weight "
                      << task.weight << "): its schedules timed in turns\n";
        }
        if (g_stop) break;
        if (!compareContenders(a, graph, task, folder.string(), measurer, &project, &r)) return 1;
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
        std::cout << (compareOnly ? "compared the schedules of " : "tuned ") << results.size()
                  << " of " << order.size() << " tasks" << (g_stop ? " (stopped)" : "")
                  << "; the project file " << a.project
                  << " names the schedules `model run` and `model bench` use\n";
    return 0;
}

} // namespace loopscope
