// A model's project file: the schedule choices a user made for its tasks, kept beside the model
// (resnet.onnx -> resnet.loopscope.json) so that a tuned model reopens tuned. For each task, by
// its workload: a script file (the task's own, edited by hand) and the variant to run from it,
// and/or a tuning log whose best record becomes the task's schedule.
//
//   {"version": 1, "model": "resnet.onnx",
//    "tasks": [{"workload": "...", "name": "conv_relu_3",
//               "script": "resnet.tasks/conv_relu_3.py", "variant": "blocked"},
//              {"workload": "...", "name": "conv_add_relu_1",
//               "log": "resnet.tasks/conv_add_relu_1.jsonl"}]}
//
// Paths are relative to the project file's folder. A choice that cannot be honoured (a missing
// script, a log without a checked record for this workload) falls back to the default schedule
// with a note; the model still runs.
#pragma once

#include "graph/ModelRun.h"

#include <string>
#include <vector>

namespace loopscope {

struct TaskChoice {
    std::string workload;
    std::string name;    // the task's name when it was written (for people reading the file)
    std::string script;  // a TE script for the task; empty: the task's default script
    std::string variant; // the variant of `script` to run; empty: "default"
    std::string log;     // a tuning log; its best record for the task is run instead
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

// The task's script with the best record of `logPath` (tuned from any of its variants, the naive
// one usually) as a variant of its own ("tuned", or "tuned_1" when the script has one; its name
// in `variant`), or empty with why (no log, no checked record).
std::string tunedTaskScript(const std::string& script, const std::string& logPath,
                            std::string* variant, std::string* source, std::string* why);

} // namespace loopscope
