// A task: a group of a model's nodes compiled as one kernel (what Ansor calls a task), written as
// an ordinary TE script (placeholders for what it reads, one compute per operator stage, a default
// schedule) that the editor, the ladder, the tuner and the exports all open as they are.
#pragma once

#include "graph/Graph.h"
#include "tune/Space.h"

#include <map>
#include <string>
#include <vector>

namespace loopscope {

struct Task {
    std::vector<int> nodes; // indices into the graph's nodes, in order
    std::vector<std::string>
        inputs;           // tensors it reads: graph inputs, weights, other tasks' outputs
    std::string output;   // the tensor it writes
    std::string name;     // "conv_relu_3"
    std::string anchor;   // the op that names it ("Conv")
    std::string workload; // operators, shapes and types: equal for identical tasks
    int weight = 1;       // how many tasks of the model share this workload
};

// The script of a task: `# variant: default` (the default schedule) after the declarations, then
// `# variant: naive` (no schedule: where tuning starts); the argument list (inputs, then the
// output) fixed by tvm.build(..., name=task.name).
std::string taskScript(const Graph& graph, const Task& task);
// The same for another machine than this one (its vector width and registers): what the
// default schedule would be there.
std::string taskScript(const Graph& graph, const Task& task, const SpaceOptions& machine);
// The machine a task's default schedule is made for: this one's vector width and registers.
SpaceOptions hostScheduleOptions();
inline constexpr const char* kDefaultTaskVariant = "default";
inline constexpr const char* kNaiveTaskVariant = "naive";
// Of a task whose convolution is computed by Winograd's method (kWinogradTile): the direct
// convolution with its default schedule, beside the default (and naive) Winograd one.
inline constexpr const char* kDirectTaskVariant = "direct";
// The Winograd tile (outputs per side) of the task's convolution, or 0 where it is direct.
int winogradTileOf(const Graph& graph, const Task& task);

// The default schedule's statements for a task's script, applied to `s` (written by taskScript):
// the output's outer data-parallel loops fused and parallel, its innermost contiguous loop
// vectorized, element-wise producers inlined, reductions tiled.
// (Declared here for the tests; taskScript writes it.)
std::vector<std::string> defaultSchedule(const std::string& declarations,
                                         const std::string& outputVar,
                                         const SpaceOptions& machine = hostScheduleOptions());

// The floating-point operations of one run of a task's script (its definitions), or 0 when
// it does not evaluate.
double taskFlops(const std::string& script);

// What a task computes in: "float32", or for a quantized model its integer and float parts,
// "uint8 x int8 -> int32 sums; float32 requantization to uint8" (a QLinearConv),
// "float32 from uint8, to uint8" (a float operator between DequantizeLinear and QuantizeLinear).
std::string taskArithmetic(const Graph& graph, const Task& task);

// The variable a tensor has in task scripts.
std::string scriptVariable(const std::string& tensorName);

// The placeholders of a task's script by the tensor they stand for: the variable each of the
// task's inputs is declared as (unique, in the order of task.inputs).
std::map<std::string, std::string> taskPlaceholders(const Task& task);

} // namespace loopscope
