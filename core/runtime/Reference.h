// The reference interpreter: evaluates tensor-expression definitions directly, element by element,
// independent of schedules, lowering and code generation, to say what a kernel must compute.
#pragma once

#include "ir/Tensor.h"
#include "runtime/Buffer.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace loopscope {

// The interpreter could not evaluate an element: a missing input or size, an input of the wrong
// shape, a read outside a tensor (an internal error: a well-formed definition never does that),
// an integer division by zero. The message names the tensor and the index involved.
class ReferenceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An element needs more steps (innermost reduction iterations, its producers' included) than
// Limits::maxReferenceStepsPerElement allows: it was not evaluated.
class ReferenceStepLimit : public ReferenceError {
public:
    using ReferenceError::ReferenceError;
};

// Semantics, per element, in the definition's own terms:
// - integers: int64 arithmetic wrapped to each operation's type, as the compiled code wraps;
//   Div/Mod truncate (C), FloorDiv/FloorMod round toward negative infinity;
// - floats: double arithmetic throughout; a tensor's elements are rounded to its dtype only when
//   stored (float32 results must then be compared with a tolerance);
// - casts: float to integer truncates toward zero, to bool is "!= 0";
// - Select evaluates both branches, if_then_else only the taken one, likely is the identity;
// - reductions run over the cartesian product of their axes' domains [min, min + extent) where
//   the condition holds, starting from the identity the lowered code initializes with: 0, 1, or
//   for max / min the type's lowest / highest value (finite for floats, as in TVM).
// Elements of computes are memoized, so shared producers are evaluated once per element.
// Not thread-safe: evaluation fills caches, even through const methods.
class ReferenceEvaluator {
public:
    using Inputs = std::unordered_map<const OperationNode*, const HostBuffer*>;
    using SizeValues = std::unordered_map<const VarNode*, std::int64_t>;

    // `inputs` gives a buffer for each placeholder that will be read (the buffers must outlive
    // the evaluator); `sizes` gives a value to each symbolic size (te.var) that appears.
    explicit ReferenceEvaluator(Inputs inputs, SizeValues sizes = {});
    ~ReferenceEvaluator();
    ReferenceEvaluator(const ReferenceEvaluator&) = delete;
    ReferenceEvaluator& operator=(const ReferenceEvaluator&) = delete;

    // One element of `t` as its dtype stores it, converted to double. Throws ReferenceError, and
    // ReferenceStepLimit when the element needs more steps than limits() allows.
    double value(const Tensor& t, const std::vector<std::int64_t>& index) const;
    // The same element as int64: exact for integer and bool tensors; floats truncate.
    std::int64_t valueInt(const Tensor& t, const std::vector<std::int64_t>& index) const;

    // The shape of `t` with the symbolic sizes substituted (needs no input buffers, so it can size
    // them). Throws ReferenceError.
    std::vector<std::int64_t> shape(const Tensor& t) const;

    // Forgets every memoized element and compiled body (the inputs' contents may have changed, or
    // their storage: a buffer must not be reallocated while the evaluator uses it).
    void clearCache();

    struct Impl;

private:
    std::unique_ptr<Impl> m_impl;
};

} // namespace loopscope
