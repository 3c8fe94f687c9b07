// tensorize, as TVM 0.17's MakeTensorize (src/te/operation/tensorize.cc): the stage's computation
// under the tensorized loop is matched with the intrinsic's, and the intrinsic's statements are
// bound to the regions of the stage's tensors there ("buffer_bind_scope", which storage
// flattening resolves: lower/passes/FlattenStorage.cpp).
#pragma once

#include "ir/Analyzer.h"
#include "ir/Diagnostic.h"
#include "ir/TensorIntrin.h"
#include "schedule/Schedule.h"

#include <unordered_map>
#include <vector>

namespace loopscope {

// The attribute around an intrinsic's statement that binds one of its buffers (`ref`) to a
// region of a tensor: value is tvm_tuple(T[begins...], extent0, extent1, ...), the tensor read at
// the region's first element followed by the region's extents.
inline constexpr const char* kBufferBindScope = "buffer_bind_scope";

struct TensorRegionOf {
    Tensor tensor;
    std::vector<Expr> mins, extents;
};

// The stage's tensors where the intrinsic stands in for it: its inputs paired in order with the
// intrinsic's, and its output.
struct TensorizeMatch {
    std::vector<TensorRegionOf> inputs;
    TensorRegionOf output;
};

// Matches the stage's computation `body` (its root axes ranging over `rootRegion`, in the
// variables of the loops outside the tensorized one) with the intrinsic's. Refuses at `loc` with
// what differs: the dimensions, the types, the computation (TVM: "Failed to match the compute
// with TensorIntrin").
TensorizeMatch matchTensorIntrin(const Stage& s, const Expr& body,
                                 const std::unordered_map<const IterVarNode*, Range>& rootRegion,
                                 const TensorIntrinNode& intrin, const Analyzer& an, SourceLoc loc);

// `stmt`, one of the intrinsic's, with its output buffer bound to the output's region and, when
// `inputs`, its input buffers to theirs.
Stmt bindTensorIntrin(Stmt stmt, const TensorIntrinNode& intrin, const TensorizeMatch& match,
                      bool inputs);

} // namespace loopscope
