#include "graph/Project.h"

#include "codegen/Codegen.h"
#include "graph/Task.h"
#include "ir/Diagnostic.h"
#include "lower/Lower.h"
#include "te/Program.h"
#include "te/StepWriter.h"
#include "tune/StepReplay.h"
#include "tune/TuneLog.h"
#include "tune/Tuner.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace loopscope {

namespace {

bool readText(const fs::path& p, std::string* out)
{
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    *out = ss.str();
    return true;
}

// A string field of a JSON object, or "" where it is missing or not a string.
std::string stringAt(const json& object, const char* key)
{
    return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : "";
}

std::string stem(const std::string& modelPath)
{
    fs::path p(modelPath);
    return (p.parent_path() / p.stem()).string();
}

} // namespace

TaskChoice* ModelProject::find(const std::string& workload)
{
    for (auto& t : tasks)
        if (t.workload == workload) return &t;
    return nullptr;
}

TaskChoice& ModelProject::choice(const std::string& workload, const std::string& name)
{
    if (TaskChoice* t = find(workload)) return *t;
    tasks.push_back({workload, name, "", "", "", "", {}});
    return tasks.back();
}

std::string projectPathFor(const std::string& modelPath)
{
    return stem(modelPath) + ".loopscope.json";
}

std::string taskFolderFor(const std::string& modelPath)
{
    return stem(modelPath) + ".tasks";
}

bool readProject(const std::string& path, ModelProject* project, std::string* why)
{
    *project = ModelProject{};
    project->path = path;
    std::string text;
    if (!fs::exists(path)) return true;
    if (!readText(path, &text)) {
        *why = "cannot read " + path;
        return false;
    }
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        *why = path + " is not a project file (not a JSON object)";
        return false;
    }
    if (j.value("version", 0) != 1) {
        *why = path + ": version " + j.value("version", json(nullptr)).dump() +
               " is not one this Loopscope reads (1)";
        return false;
    }
    project->model = j.value("model", "");
    if (!j.contains("tasks")) return true;
    if (!j["tasks"].is_array()) {
        *why = path + ": \"tasks\" is not a list";
        return false;
    }
    int index = 0;
    for (auto& t : j["tasks"]) {
        ++index;
        auto text = [&](const char* key) { return stringAt(t, key); };
        if (!t.is_object() || text("workload").empty()) {
            *why = path + ": task " + std::to_string(index) + " has no \"workload\"";
            return false;
        }
        TaskChoice c{text("workload"),
                     text("name"),
                     text("script"),
                     text("variant"),
                     text("log"),
                     text("use"),
                     {}};
        if (!c.use.empty() && c.use != "default" && c.use != "script" && c.use != "tuned" &&
            c.use != kDirectTaskVariant) {
            *why = path + ": task " + std::to_string(index) + ": \"use\" is '" + c.use +
                   "', not one of default, direct, script, tuned";
            return false;
        }
        if (t.contains("compared") && t["compared"].is_object()) {
            const json& k = t["compared"];
            c.compared.time = stringAt(k, "time");
            c.compared.cpu = stringAt(k, "cpu");
            c.compared.code = stringAt(k, "code");
            if (k.contains("ms") && k["ms"].is_object())
                for (auto& [kind, ms] : k["ms"].items())
                    if (ms.is_number()) c.compared.ms[kind] = ms.get<double>();
        }
        project->tasks.push_back(std::move(c));
    }
    return true;
}

bool writeProject(const ModelProject& project, std::string* why)
{
    json tasks = json::array();
    for (auto& t : project.tasks) {
        json j{{"workload", t.workload}, {"name", t.name}};
        if (!t.script.empty()) j["script"] = t.script;
        if (!t.variant.empty()) j["variant"] = t.variant;
        if (!t.log.empty()) j["log"] = t.log;
        if (!t.use.empty()) j["use"] = t.use;
        if (!t.compared.time.empty())
            j["compared"] = {{"time", t.compared.time},
                             {"cpu", t.compared.cpu},
                             {"code", t.compared.code},
                             {"ms", t.compared.ms}};
        tasks.push_back(j);
    }
    const json j{{"version", 1}, {"model", project.model}, {"tasks", tasks}};
    return writeFileSafely(project.path, j.dump(2) + "\n", why);
}

std::string tunedTaskScript(const std::string& script, const std::string& logPath,
                            std::string* variant, std::string* source, std::string* why)
{
    EvalResult eval = evaluateScript(script);
    if (!eval.ok) {
        *why = "the task's script has an error at line " + std::to_string(eval.error.loc.line) +
               ": " + eval.error.message;
        return {};
    }
    LogContents log = readLog(logPath);
    if (!log.exists) {
        *why = "no tuning log " + logPath;
        return {};
    }
    // The best record of any variant the tuning started from (the naive loops, or a variant
    // whose steps it kept).
    const Variant* start = nullptr;
    const TuneRecord* best = nullptr;
    for (const Variant& v : eval.program.variants) {
        const TuneRecord* r = bestRecord(log.records, workloadKey(v), {});
        if (r && (!best || r->msMedian < best->msMedian)) {
            best = r;
            start = &v;
        }
    }
    if (!best) {
        *why = "the tuning log " + fs::path(logPath).filename().string() +
               " has no checked record for this task";
        return {};
    }
    int measured = 0;
    for (auto& r : log.records)
        if (r.workload == best->workload) ++measured;
    std::ostringstream s;
    s << "tuned (best of " << measured << " in " << fs::path(logPath).filename().string();
    if (best->gflops > 0)
        s << ", " << static_cast<int>(best->gflops * 10 + 0.5) / 10.0 << " GFLOPS";
    s << " on " << (best->machine.cpu.empty() ? "an unnamed CPU" : best->machine.cpu)
      << (best->machine.host.empty() ? "" : " (" + best->machine.host + ")") << ")";
    *source = s.str();
    std::set<std::string> used;
    for (const Variant& v : eval.program.variants)
        used.insert(v.name);
    *variant = uniqueName("tuned", used);
    return scriptWithVariant(script, *start, *variant, best->statements, false);
}

const Task* choiceTask(const ModelProject& project, const std::vector<Task>& tasks,
                       const std::string& workload)
{
    std::string name;
    for (const TaskChoice& c : project.tasks)
        if (c.workload == workload) name = c.name;
    const Task* task = nullptr;
    for (auto& t : tasks)
        if (t.workload == workload && (!task || t.name == name)) task = &t;
    return task;
}

std::vector<ScheduleContender> scheduleContenders(const ModelProject& project, const Graph& graph,
                                                  const Task& task, const std::string& taskFolder,
                                                  std::vector<std::string>* notes)
{
    const fs::path folder = fs::path(project.path).parent_path();
    auto resolve = [&](const std::string& p) {
        return fs::path(p).is_absolute() ? fs::path(p) : folder / p;
    };
    const TaskChoice* c = nullptr;
    for (const TaskChoice& t : project.tasks)
        if (t.workload == task.workload) c = &t;
    std::vector<ScheduleContender> out;
    const std::string fallback = taskScript(graph, task);
    out.push_back({"default", fallback, kDefaultTaskVariant, "default", ""});
    // A convolution computed by Winograd's method by default: the direct one too.
    if (winogradTileOf(graph, task) > 0)
        out.push_back(
            {kDirectTaskVariant, fallback, kDirectTaskVariant, "default, direct convolution", ""});
    std::string script = fallback;
    if (c && !c->script.empty()) {
        std::string text;
        const std::string variant = c->variant.empty() ? kDefaultTaskVariant : c->variant;
        if (!readText(resolve(c->script), &text)) {
            notes->push_back(task.name + ": cannot read " + c->script);
        } else {
            script = text;
            if (text != fallback || variant != kDefaultTaskVariant)
                out.push_back(
                    {"script", text, variant,
                     "script " + fs::path(c->script).filename().string() + ", variant " + variant,
                     ""});
        }
    }
    // The project's log, else the one `model tune` writes.
    std::string log = c ? c->log : "";
    if (log.empty()) {
        const fs::path standard = fs::path(taskFolder) / (task.name + ".jsonl");
        std::error_code ec;
        if (fs::exists(standard, ec)) {
            log = fs::relative(fs::absolute(standard), fs::absolute(folder.empty() ? "." : folder),
                               ec)
                      .string();
            if (ec || log.empty()) log = fs::absolute(standard).string();
        }
    }
    if (!log.empty()) {
        std::string variant, source, why;
        std::string tuned = tunedTaskScript(script, resolve(log).string(), &variant, &source, &why);
        if (tuned.empty())
            notes->push_back(task.name + ": " + why);
        else
            out.push_back({"tuned", tuned, variant, source, log});
    }
    return out;
}

std::string codeFingerprint(const std::vector<ScheduleContender>& contenders,
                            const std::string& functionName, std::string* why)
{
    const HostTarget host = hostTarget();
    std::string text = "llvm " + host.llvmVersion + "\n" + host.cpu + " " + host.features + "\n";
    for (const ScheduleContender& c : contenders) {
        EvalResult eval = evaluateScript(c.script);
        const Variant* v = eval.ok ? eval.program.findVariant(c.variant) : nullptr;
        if (!v) {
            *why = c.kind + ": " +
                   (eval.ok ? "no variant '" + c.variant + "'"
                            : "line " + std::to_string(eval.error.loc.line) + ": " +
                                  eval.error.message);
            return {};
        }
        try {
            const PrimFunc f = lowerSchedule(v->schedule(), v->args, functionName).func;
            text += c.kind + " " + fnv1aHex(emitCode(f, EmitKind::UnoptimizedLLVMIR)) + "\n";
        } catch (const UserError& e) {
            *why = c.kind + ": line " + std::to_string(e.loc().line) + ": " + e.message();
            return {};
        } catch (const CodegenError& e) {
            *why = c.kind + ": " + e.what();
            return {};
        }
    }
    return fnv1aHex(text);
}

std::string staleReason(const ModelProject& project, const Graph& graph, const Task& task,
                        const std::string& taskFolder)
{
    const TaskChoice* c = nullptr;
    for (const TaskChoice& t : project.tasks)
        if (t.workload == task.workload) c = &t;
    if (!c) return {};
    const bool chosen = !c->script.empty() || !c->log.empty() || !c->use.empty();
    if (c->compared.time.empty())
        return chosen ? "never timed against the default schedule; `model tune --trials 0` "
                        "compares them"
                      : "";
    std::vector<std::string> notes;
    const auto contenders = scheduleContenders(project, graph, task, taskFolder, &notes);
    std::string why;
    const std::string now = codeFingerprint(contenders, task.name, &why);
    if (now == c->compared.code) return {};
    std::string reason = "chosen on " + c->compared.time.substr(0, 10) + " on " +
                         (c->compared.cpu.empty() ? "an unnamed CPU" : c->compared.cpu) + "; ";
    const std::string cpu = hostTarget().cpu;
    if (!why.empty())
        reason += "a contender no longer compiles (" + why + ")";
    else if (c->compared.code.empty())
        reason += "its code could not be fingerprinted then";
    else if (!c->compared.cpu.empty() && c->compared.cpu != cpu)
        reason += "this is " + cpu;
    else
        reason += "the code its schedules compile to has changed since";
    return reason + "; `model tune --trials 0` compares them again";
}

ModelOptions resolveProject(const ModelProject& project, const Graph& graph,
                            const std::vector<Task>& tasks, std::vector<std::string>* notes)
{
    ModelOptions o;
    const fs::path folder = fs::path(project.path).parent_path();
    auto resolve = [&](const std::string& p) {
        return fs::path(p).is_absolute() ? fs::path(p) : folder / p;
    };
    for (const TaskChoice& c : project.tasks) {
        const Task* task = choiceTask(project, tasks, c.workload);
        const std::string label = c.name.empty() ? std::string("a task") : "task " + c.name;
        if (!task) {
            notes->push_back(project.path + ": " + label + " is not in this model (left alone)");
            continue;
        }
        if (c.use == "default") continue;
        if (c.use == kDirectTaskVariant && winogradTileOf(graph, *task) > 0) {
            o.scripts[c.workload] = taskScript(graph, *task);
            o.variants[c.workload] = kDirectTaskVariant;
            o.sources[c.workload] = "default, direct convolution";
            continue;
        }
        std::string script;
        std::string source = "default";
        if (!c.script.empty()) {
            if (!readText(resolve(c.script), &script)) {
                notes->push_back(label + ": cannot read " + c.script +
                                 "; the default schedule runs");
                continue;
            }
            source = "script " + fs::path(c.script).filename().string();
        } else {
            script = taskScript(graph, *task);
        }
        std::string variant = c.variant.empty() ? kDefaultTaskVariant : c.variant;
        if (!c.log.empty() && c.use != "script") {
            std::string tunedSource, tunedVariant, why;
            std::string tuned =
                tunedTaskScript(script, resolve(c.log).string(), &tunedVariant, &tunedSource, &why);
            if (tuned.empty()) {
                notes->push_back(label + ": " + why + "; " +
                                 (c.script.empty() ? "the default schedule runs"
                                                   : "variant '" + variant + "' runs"));
            } else {
                script = tuned;
                variant = tunedVariant;
                source = tunedSource;
            }
        } else if (!c.script.empty()) {
            source += ", variant " + variant;
        }
        if (source == "default") continue;
        o.scripts[c.workload] = script;
        o.variants[c.workload] = variant;
        o.sources[c.workload] = source;
    }
    return o;
}

} // namespace loopscope
