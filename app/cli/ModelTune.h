// `loopscope-cli model tune`: the tuner on a model's tasks, one after the other, the heaviest
// (weight x time with the current schedules) first. Each task's script and tuning log go to the
// model's task folder (resnet.tasks/). Then the task's contenders (its default schedule, its own
// script's variant, its log's best) are timed in turns and the project file beside the model
// records the fastest and a fingerprint of their code, so `model run` and `model bench` run it
// from then on, and a later code generator shows the choice as stale. With no trials (--trials
// 0), only the contenders are compared. Interrupted, it keeps every task finished and every
// record.
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
    int trials = 64;               // per task; 0 (and no seconds): compare the contenders only
    double seconds = 0;            // per task, instead or as well
    int threads = 0;
    std::uint64_t seed = 1;
    bool json = false;
    std::string self;   // argv[0], to find the worker
    std::string runner; // --runner: the command that starts a worker (empty: the one here)
    int runners = 0;    // --runners: how many at once (0: one)
    // --target "cuda -arch=sm_XX": each task's GPU kernels, searched from its declaration and
    // measured on the GPU runner (the one beside the worker, or the one --runner starts); the
    // project's CPU schedules are left as they are.
    std::string target;
};

// The exit status: 0 done, 1 an error (the project file, the model), 2 usage.
int runModelTune(const ModelTuneArgs& args, const Graph& graph);

} // namespace loopscope
