// Features of a candidate's lowered loop program for the cost model, in the manner of Ansor's
// (src/auto_scheduler/feature.cc): one row per store statement, with its arithmetic counts, the
// vectorized, unrolled and parallel loops around it, the bytes each buffer it touches moves and
// reuses at each loop level, its working set and arithmetic intensity from the innermost loop
// outwards, and its allocation. Counts are log2(1 + x).
#pragma once

#include "ir/Stmt.h"

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

// The rows of a loop program as lowerStructure gives it (before storage flattening).
FeatureRows extractFeatures(const Stmt& structured);

// One name per column ("vec_len", "buf0_reuse_ct", "working_set_3", ...).
const std::vector<std::string>& featureNames();

} // namespace loopscope
