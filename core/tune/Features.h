// Features of a candidate's lowered loop program for the cost model, in the manner of Ansor's
// (src/auto_scheduler/feature.cc): one row per store statement, with its arithmetic counts, the
// vectorized, unrolled and parallel loops around it, the bytes each buffer it touches moves and
// reuses at each loop level, its working set and arithmetic intensity from the innermost loop
// outwards, and its allocation. Counts are log2(1 + x).
#pragma once

#include "ir/Stmt.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope {

// Raised whenever the rows change meaning: logs record it, and rows of another version are not
// mixed into training.
constexpr int kFeatureVersion = 1;

struct FeatureRows {
    int width = 0;
    int rows = 0;
    std::vector<float> values; // rows x width, row-major
};

// The rows of a loop program as lowerStructure gives it (before storage flattening). `gpu`: the
// program is GPU kernels, and its rows have the launch's columns too (featureNames(true)).
FeatureRows extractFeatures(const Stmt& structured, bool gpu = false);

// The shared memory a GPU kernel's block allocates in a loop program as lowerStructure gives it,
// in bytes (0 for CPU code).
std::int64_t gpuSharedBytes(const Stmt& structured);

// One name per column ("vec_len", "buf0_reuse_ct", "working_set_3", ...).
// (With `gpu`: also each store's launch, Ansor's is_gpu and thread extents, whether it stores to
// shared memory, and each access's stride from one thread to the next along threadIdx.x.)
const std::vector<std::string>& featureNames(bool gpu = false);

} // namespace loopscope
