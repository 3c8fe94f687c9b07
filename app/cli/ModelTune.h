// `loopscope-cli model tune`: the tuner on a model's tasks, one after the other, the heaviest
// (weight x time with the current schedules) first. Each task's script and tuning log go to the
// model's task folder (resnet.tasks/), and the project file beside the model records the log as
// the task's schedule once its best beats the schedule it had, so `model run` and `model bench`
// run the tuned model from then on. Interrupted, it keeps every task finished and every record.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope {

class Graph;

struct ModelTuneArgs {
    std::string model;             // the .onnx file
    std::string project;           // its project file
    std::vector<std::string> only; // --task NAME: these tasks (empty: all, heaviest first)
    int top = 0;                   // --top K: the K heaviest (0: all)
    int trials = 64;               // per task
    double seconds = 0;            // per task, instead or as well
    int threads = 0;
    std::uint64_t seed = 1;
    bool json = false;
    std::string self; // argv[0], to find the worker
};

// The exit status: 0 done, 1 an error (the project file, the model), 2 usage.
int runModelTune(const ModelTuneArgs& args, const Graph& graph);

} // namespace loopscope
