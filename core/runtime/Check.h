// Comparison of a kernel's output with the reference interpreter: every element of small outputs,
// corners plus seeded random samples of large ones.
#pragma once

#include "runtime/Buffer.h"
#include "runtime/Reference.h"

#include <cstdint>
#include <string>

namespace loopscope {

struct CheckResult {
    bool ok = false;
    std::int64_t checked = 0; // elements compared
    double maxAbsError = 0;
    double maxRelError = 0;    // over elements whose expected value is not zero
    std::string firstMismatch; // "C[3, 17] = 1.25 but expected 1.5"; empty when none
    std::int64_t mismatches = 0;
    // Set (and ok false) when the comparison could not run: the output buffer's shape or type
    // differs, or the reference failed (a ReferenceError's message).
    std::string error;
    // Set when elements were left out because the reference interpreter would need more steps
    // for them than Limits allows (ok then speaks of the elements compared): says which and why.
    std::string skipped;
};

// Tolerances callers use: float32 rtol 1e-4 atol 1e-5, float64 rtol 1e-9 atol 1e-12, float16
// rtol 1e-2 atol 1e-3 (it has 11 significant bits); integers and bool are compared exactly.
struct Tolerance {
    double rtol = 1e-4;
    double atol = 1e-5;
};
Tolerance defaultTolerance(DataType t);

// Compares `actual` (the output as computed) with `reference`'s values of `output`. An element
// mismatches when |a - r| > atol * scale + rtol * |r| (floats, `scale` the largest magnitude of
// the elements compared, at least 1: a long float32 sum rounds in units of its partial sums; NaN
// matches only NaN, an infinity only itself) or when a != r (integers, bool). With more than
// `maxFullElements` elements, compares every corner (first or last index in each dimension) and
// then 2,000 points drawn from `seed`.
CheckResult checkOutput(const ReferenceEvaluator& reference, const Tensor& output,
                        const HostBuffer& actual, double rtol, double atol, std::uint64_t seed,
                        std::int64_t maxFullElements = std::int64_t{1} << 16);

} // namespace loopscope
