#include "ModelTune.h"

#include "Cli.h"
#include "TuneCommand.h"

#include "codegen/Codegen.h"
#include "graph/FuseOps.h"
#include "graph/ModelRun.h"
#include "graph/Project.h"
#include "graph/Task.h"
#include "ir/Host.h"
#include "runtime/Benchmark.h"
#include "tune/Measure.h"
#include "tune/TuneLog.h"
#include "tune/Tuner.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace loopscope {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

std::atomic<bool> g_stop{false};

void onInterrupt(int)
{
    g_stop = true;
}

// The project file, as tasks tuned at once read and record their choices.
std::mutex g_project;

// A task's lines to standard error, whole and prefixed with its name, so that tasks tuned at once
// do not mix their words.
class PrefixedLines : private std::streambuf {
public:
    explicit PrefixedLines(std::string prefix) : m_prefix(std::move(prefix)), m_stream(this) {}
    ~PrefixedLines() override
    {
        if (!m_line.empty()) emit();
    }
    std::ostream& stream() { return m_stream; }

private:
    int overflow(int c) override
    {
        if (c == traits_type::eof()) return 0;
        m_line += static_cast<char>(c);
        if (c == '\n') emit();
        return c;
    }
    void emit()
    {
        static std::mutex out;
        std::lock_guard<std::mutex> lock(out);
        std::cerr << m_prefix << m_line << std::flush;
        m_line.clear();
    }
    std::string m_prefix;
    std::string m_line;
    std::ostream m_stream;
};

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
              int index, std::size_t count, std::ostream& log)
{
    std::string ownScript;
    {
        std::lock_guard<std::mutex> lock(g_project);
        ownScript = project->choice(task.workload, task.name).script;
    }
    // The script tuned: the project's own for the task, else the default one written out.
    fs::path scriptPath;
    std::string script;
    if (!ownScript.empty()) {
        scriptPath =
            fs::path(ownScript).is_absolute() ? fs::path(ownScript) : projectFolder / ownScript;
        script = readText(scriptPath);
    } else {
        scriptPath = folder / (task.name + ".py");
        script = taskScript(graph, task);
        std::ofstream(scriptPath, std::ios::binary | std::ios::trunc) << script;
    }
    const fs::path logPath = folder / (task.name + ".jsonl");
    log << "[" << index << "/" << count << "] " << task.name << " (weight " << task.weight
        << "): tuning from '" << kNaiveTaskVariant << "', log " << logPath.string() << "\n";
    TuneOptions o;
    o.variant = kNaiveTaskVariant;
    o.trials = a.trials;
    o.seconds = a.seconds;
    o.threads = a.threads;
    o.seed = a.seed;
    o.logPath = logPath.string();
    o.resume = true;
    o.target = a.target;
    Tuner tuner(script, o, measurer);
    int lastShown = 0;
    TuneOutcome out = tuner.run(
        [&](const TuneProgress& p) {
            if (p.phase != TuneProgress::Phase::Measuring || p.trialsDone - lastShown < 16) return;
            lastShown = p.trialsDone;
            log << "    trial " << p.trialsDone << ": best "
                << (p.bestGflops > 0 ? fixed(p.bestGflops, 1) + " GFLOPS"
                                     : fixed(p.bestMs, 3) + " ms")
                << ", " << fixed(p.elapsedS, 0) << " s\n";
        },
        [] { return g_stop.load(); });
    (*r)["log"] = logPath.string();
    (*r)["trials"] = out.trials.size();
    if (!out.ok || !out.haveBest) {
        const std::string reason = out.ok ? "no candidate was checked and timed" : out.error;
        log << "    " << task.name << ": nothing tuned: " << reason << "\n";
        (*r)["error"] = reason;
        return false;
    }
    for (auto& n : out.notes)
        log << "    note: " << n << "\n";
    (*r)["tuned_ms"] = out.best.msMedian;
    (*r)["times"] = {{"search_ms", out.times.searchMs},
                     {"train_ms", out.times.trainMs},
                     {"measure_ms", out.times.measureMs}};
    {
        std::lock_guard<std::mutex> lock(g_project);
        TaskChoice& choice = project->choice(task.workload, task.name);
        if (choice.script.empty()) choice.script = fs::relative(scriptPath, projectFolder).string();
        choice.log = fs::relative(logPath, projectFolder).string();
    }
    return true;
}

// The task's contenders (default, its script's variant, its log's best) timed in turns; the
// fastest is recorded in the project file as the one that runs, with the fingerprint of the code
// they compiled to. False when the project file cannot be written.
bool compareContenders(const ModelTuneArgs& a, const Graph& graph, const Task& task,
                       const std::string& folder, Measurer& measurer, ModelProject* project,
                       json* r, std::ostream& log)
{
    std::vector<std::string> notes;
    std::vector<ScheduleContender> contenders;
    {
        std::lock_guard<std::mutex> lock(g_project);
        contenders = scheduleContenders(*project, graph, task, folder, &notes);
    }
    for (auto& n : notes)
        log << "    note: " << n << "\n";
    std::string why;
    if (contenders.size() == 1) {
        log << "    only its default schedule: nothing to compare\n";
        (*r)["kept"] = "default";
        std::lock_guard<std::mutex> lock(g_project);
        TaskChoice* choice = project->find(task.workload);
        if (!choice || (choice->use.empty() && choice->compared.time.empty())) return true;
        choice->use.clear();
        choice->compared = {};
        if (writeProject(*project, &why)) return true;
        log << "loopscope-cli: " << why << "\n";
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
        log << "    " << c.source << ": ";
        if (!problem[i].empty() || ms[i].empty()) {
            log << problem[i] << "\n";
            (*r)["problems"][c.kind] = problem[i];
            continue;
        }
        std::sort(ms[i].begin(), ms[i].end());
        const double median = ms[i][ms[i].size() / 2];
        medians[c.kind] = median;
        times[c.kind] = median;
        log << fixed(median, 3) << " ms (" << fixed(ms[i].front(), 3) << " - "
            << fixed(ms[i].back(), 3) << ")\n";
        if (best < 0 || median < medians[contenders[static_cast<std::size_t>(best)].kind])
            best = static_cast<int>(i);
    }
    (*r)["ms"] = times;
    if (best < 0) {
        log << "    " << task.name << ": no schedule ran right; the choice stays\n";
        (*r)["error"] = "no schedule ran right";
        return true;
    }
    const ScheduleContender& winner = contenders[static_cast<std::size_t>(best)];
    const std::string code = codeFingerprint(contenders, task.name, &why);
    std::lock_guard<std::mutex> lock(g_project);
    TaskChoice& choice = project->choice(task.workload, task.name);
    const std::string before = choice.use;
    choice.use = winner.kind;
    if (winner.kind == "tuned") choice.log = winner.log;
    // The CPU the contenders were timed on: the runners' where they measured them.
    const MachineInfo timedOn = measurer.machine();
    choice.compared = {isoTimeNow(), timedOn.cpu.empty() ? hostTarget().cpu : timedOn.cpu, code,
                       medians};
    if (code.empty())
        log << "    its code could not be fingerprinted (" << why
            << "): the choice will show as stale\n";
    (*r)["kept"] = winner.kind;
    const double base = medians.count("default") ? medians["default"] : 0;
    log << "    " << task.name << ": " << winner.kind << " runs";
    if (base > 0 && winner.kind != "default")
        log << " (" << fixed(base / medians[winner.kind], 2) << "x the default)";
    if (!before.empty() && before != winner.kind) log << ", instead of " << before;
    if (!writeProject(*project, &why)) {
        log << "\nloopscope-cli: " << why << "\n";
        return false;
    }
    log << "; recorded in " << a.project << "\n";
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
    const auto started = std::chrono::steady_clock::now();
    // GPU kernels: measured by the worker here on its GPU runner (the one --runner starts).
    const bool gpu = !a.target.empty();
    std::string refused;
    std::unique_ptr<Measurer> measurerOwned =
        cliMeasurer(a.self, a.runner, a.runners, gpu, &refused);
    if (!measurerOwned) {
        std::cerr << "loopscope-cli: " << refused << "\n";
        return 2;
    }
    Measurer& measurer = *measurerOwned;
    const MachineInfo machine = measurer.machine();
    if (gpu && !machine.gpuDevice) {
        std::cerr << "loopscope-cli: the tasks' GPU kernels are timed on a GPU, and there is none "
                     "here ("
                  << machine.gpuProblem
                  << "): give the command that starts loopscope-runner where there is one "
                     "(--runner 'ssh gpu1 loopscope-runner')\n";
        return 1;
    }
    if (!machine.problem.empty()) {
        std::cerr << "loopscope-cli: " << machine.problem << "\n";
        return 1;
    }
    // With several runners, several tasks are tuned at once (as many as this machine has cores
    // for their searches), so that the runners measure one task's batch while another's is
    // searched; each task's candidates go to whichever runner is free.
    const int lanes = measurer.runners() > 1
                          ? std::max(1, std::min({measurer.runners(), usableCores(),
                                                  static_cast<int>(order.size())}))
                          : 1;
    if (measurer.runners() > 1 || !a.runner.empty())
        std::cerr << "measuring on " << measurer.runners() << " runner"
                  << (measurer.runners() == 1 ? "" : "s") << " (" << describeMachine(machine) << ")"
                  << (lanes > 1 ? ", " + std::to_string(lanes) + " tasks at once" : "") << "\n";
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    std::vector<json> perTask(order.size());
    const bool compareOnly = a.trials == 0 && a.seconds <= 0;
    std::atomic<std::size_t> nextTask{0};
    std::atomic<bool> failedWrite{false};
    double searchMs = 0, trainMs = 0, waitMs = 0;
    std::mutex timesMutex;
    auto lane = [&] {
        while (!g_stop && !failedWrite) {
            const std::size_t at = nextTask.fetch_add(1);
            if (at >= order.size()) return;
            const Task& task = *order[at].task;
            PrefixedLines log(lanes > 1 ? task.name + ": " : "");
            json r{{"task", task.name}, {"weight", task.weight}};
            const int index = static_cast<int>(at) + 1;
            if (!compareOnly) {
                if (!tuneTask(a, graph, task, folder, projectFolder, measurer, &project, &r, index,
                              order.size(), log.stream())) {
                    perTask[at] = r;
                    continue;
                }
                std::lock_guard<std::mutex> lock(timesMutex);
                searchMs += r["times"].value("search_ms", 0.0);
                trainMs += r["times"].value("train_ms", 0.0);
                waitMs += r["times"].value("measure_ms", 0.0);
            } else {
                log.stream() << "[" << index << "/" << order.size() << "] " << task.name
                             << " (weight " << task.weight << "): its schedules timed in turns\n";
            }
            if (g_stop) break;
            // The project's schedules are the CPU's: GPU kernels are not contenders there.
            if (gpu) {
                perTask[at] = r;
                continue;
            }
            if (!compareContenders(a, graph, task, folder.string(), measurer, &project, &r,
                                   log.stream()))
                failedWrite = true;
            perTask[at] = r;
        }
    };
    if (lanes == 1) {
        lane();
    } else {
        std::vector<std::thread> threads;
        for (int i = 0; i < lanes; ++i)
            threads.emplace_back(lane);
        for (auto& t : threads)
            t.join();
    }
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    if (failedWrite) return 1;
    json results = json::array();
    for (auto& r : perTask)
        if (!r.is_null()) results.push_back(r);
    const double wallMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    const std::string summary = runnerSummary(measurer, searchMs, trainMs, waitMs, wallMs, lanes);
    if (!summary.empty()) std::cerr << summary;
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
                  << (gpu ? " for " + machine.gpu +
                                "; their records are in the tasks' logs, and the project file's "
                                "CPU schedules are as they were\n"
                          : "; the project file " + a.project +
                                " names the schedules `model run` and `model bench` use\n");
    return 0;
}

} // namespace loopscope
