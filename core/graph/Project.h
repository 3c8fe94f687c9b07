// A model's project file: the schedule choices a user made for its tasks, kept beside the model
// (resnet.onnx -> resnet.loopscope.json) so that a tuned model reopens tuned. For each task, by
// its workload: a script file (the task's own, edited by hand) and the variant to run from it,
// and/or a tuning log whose best record becomes the task's schedule.
//
//   {"version": 1, "model": "resnet.onnx",
//    "tasks": [{"workload": "...", "name": "conv_relu_3",
//               "script": "resnet.tasks/conv_relu_3.py", "variant": "blocked"},
//              {"workload": "...", "name": "conv_add_relu_1",
//               "log": "resnet.tasks/conv_add_relu_1.jsonl", "use": "tuned",
//               "compared": {"time": "2026-11-28T06:00:00Z", "cpu": "znver1",
//                            "code": "5f0c...", "ms": {"default": 0.91, "tuned": 0.64}}}]}
//
// Paths are relative to the project file's folder. A choice that cannot be honoured (a missing
// script, a log without a checked record for this workload) falls back to the default schedule
// with a note; the model still runs. A file that is not a project (or names a contender other
// than default, script and tuned in "use") is refused with the reason.
//
// A task's contenders are its default schedule, the variant of its own script ("script") and the
// best record of its tuning log ("tuned"). `model tune` times them in turns and records which one
// runs ("use") and a fingerprint of the code they compiled to ("compared"). A new code generator,
// new default schedules or another CPU change that code: the choice is then stale, until it is
// compared again (`model tune --trials 0`).
#pragma once

#include "graph/ModelRun.h"

#include <map>
#include <string>
#include <vector>

namespace loopscope {

struct TaskChoice {
    std::string workload;
    std::string name;    // the task's name when it was written (for people reading the file)
    std::string script;  // a TE script for the task; empty: the task's default script
    std::string variant; // the variant of `script` to run; empty: "default"
    std::string log;     // a tuning log; its best record for the task is run instead
    // Which contender runs: "default", "direct" (a convolution's direct computation where the
    // default is Winograd's), "script" or "tuned"; empty: the log's best where it has one, else
    // the script's variant, else the default.
    std::string use;
    // The last time the contenders were timed against each other.
    struct Compared {
        std::string time;                 // ISO 8601, UTC
        std::string cpu;                  // as LLVM names it
        std::string code;                 // codeFingerprint of the contenders then
        std::map<std::string, double> ms; // by contender
        bool operator==(const Compared&) const = default;
    } compared;
};

// A schedule a task could run, as a whole script and the variant to run from it.
struct ScheduleContender {
    std::string kind;    // "default", "direct", "script", "tuned"
    std::string script;  // the whole script
    std::string variant; // the variant run from it
    std::string source;  // as a run reports it ("tuned (best of 64 ...)")
    std::string log;     // tuned: the log it is the best of (as the project names it)
};

struct ModelProject {
    std::string path;  // the project file
    std::string model; // the model's file name, as written
    std::vector<TaskChoice> tasks;

    TaskChoice* find(const std::string& workload);
    // The choice for a workload, made when there is none.
    TaskChoice& choice(const std::string& workload, const std::string& name);
};

// "resnet.onnx" -> "resnet.loopscope.json"; the task folder "resnet.tasks".
std::string projectPathFor(const std::string& modelPath);
std::string taskFolderFor(const std::string& modelPath);

// Reads a project file. A missing file is an empty project (true); a file that is not a project
// is false with why.
bool readProject(const std::string& path, ModelProject* project, std::string* why);
// Writes it whole or not at all (a new copy renamed over the old).
bool writeProject(const ModelProject& project, std::string* why);

// The model options the project's choices make for these tasks: scripts, variants and a source
// for each ("hand script conv_relu_3.py, variant blocked", "tuning log: best of 64, 201.3
// GFLOPS"); `notes` says what could not be honoured.
ModelOptions resolveProject(const ModelProject& project, const Graph& graph,
                            const std::vector<Task>& tasks, std::vector<std::string>* notes);

// The task a workload's choice was written for (its script's names, and so its tuning log's
// workload key, are that task's): the one the choice names, else the first of the workload; null
// when the model has none.
const Task* choiceTask(const ModelProject& project, const std::vector<Task>& tasks,
                       const std::string& workload);

// The task's contenders: the default schedule always; its script's variant where the project
// names a script that is not the default one; the best of its tuning log (the project's, else
// TASK.jsonl in `taskFolder`) where it has a checked record. `notes` says why one that was named
// could not be made.
std::vector<ScheduleContender> scheduleContenders(const ModelProject& project, const Graph& graph,
                                                  const Task& task, const std::string& taskFolder,
                                                  std::vector<std::string>* notes);

// A fingerprint of the code the contenders compile to on this machine: each one lowered and
// handed to LLVM (the code generator's own output, before LLVM's optimizer), with LLVM's version
// and the CPU. Empty with why when one cannot be lowered.
std::string codeFingerprint(const std::vector<ScheduleContender>& contenders,
                            const std::string& functionName, std::string* why);

// Why a task's choice may no longer be its fastest, or empty: never compared (a choice other than
// the default), or its contenders compile to other code than when they were. `task` is the
// choice's own (choiceTask).
std::string staleReason(const ModelProject& project, const Graph& graph, const Task& task,
                        const std::string& taskFolder);

// The task's script with the best record of `logPath` (tuned from any of its variants, the naive
// one usually) as a variant of its own ("tuned", or "tuned_1" when the script has one; its name
// in `variant`), or empty with why (no log, no checked record).
std::string tunedTaskScript(const std::string& script, const std::string& logPath,
                            std::string* variant, std::string* source, std::string* why);

} // namespace loopscope
