// The reference for a model: every node evaluated in order by its operator's reference semantics
// (float64 values and accumulation, independent of tasks, TE, schedules and LLVM), and the
// comparison of a computed tensor with it at ONNX's backend-test tolerances.
#pragma once

#include "graph/Graph.h"

#include <map>
#include <string>

namespace loopscope {

// Every tensor's value (floats as float64); `inputs` by name. Throws GraphError.
std::map<std::string, HostBuffer> interpret(const Graph& graph,
                                            const std::map<std::string, HostBuffer>& inputs);

struct Comparison {
    bool ok = true;
    std::int64_t elements = 0;
    std::int64_t mismatches = 0;
    double maxAbsError = 0;
    double maxRelError = 0; // over elements whose expected value is not zero
    std::string first;      // "[0, 3, 1, 2]: 0.25 but expected 0.5"
};

// An element mismatches when |a - e| > atol + rtol * |e| (NaN matches NaN); shapes must agree.
Comparison compareTensors(const HostBuffer& actual, const HostBuffer& expected, double rtol,
                          double atol);

} // namespace loopscope
