// Operator fusion in the manner of Relay's FuseOps (src/relay/transforms/fuse_ops.cc): a node
// joins the group that computes its input when that input has no other reader and the patterns
// allow it: element-wise and broadcast operators after a convolution, dense, pool or injective
// group (conv -> bias -> relu is one task); injective after injective; a reduction after
// element-wise producers. A convolution or dense starts a group of its own; views (Reshape,
// Flatten, Squeeze, Unsqueeze, Identity, Dropout) are not computed at all (their output shares
// their input's buffer). Groups of identical workloads are one task with a weight.
#pragma once

#include "graph/Task.h"

#include <vector>

namespace loopscope {

struct FuseOptions {
    bool fuse = true;       // false: one task per node
    int maxGroupNodes = 32; // Relay's cap is 256
};

// The tasks in execution order; identical workloads have the same workload key, and each task's
// weight counts them.
std::vector<Task> fuseOps(const Graph& graph, const FuseOptions& options = {});

// The node whose output a view ultimately shows: follows views back to a computed tensor or a
// graph input or constant.
std::string viewSource(const Graph& graph, const std::string& tensor);

} // namespace loopscope
