// What the tuner's rules need to know of each stage of a schedule: its axes and their extents,
// how it reads its inputs (data reuse calls for multi-level tiling; plain element-wise reads allow
// inlining), its consumers, and whether the starting variant's steps already shaped it (pinned).
#pragma once

#include "schedule/Schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope {

struct AxisFacts {
    std::string name;
    std::int64_t extent = 1; // 0 when not a constant
    // The body compares the axis with constants (a row of a constant matrix chosen by it, as
    // Winograd's transforms and TOPI's const_matrix do): with its loop whole and unrolled, each
    // comparison is decided and one branch is left (Ansor's always_unroll_inner).
    bool selected = false;
};

struct StageFacts {
    std::string name;
    bool placeholder = false;
    bool output = false;
    bool reduction = false;
    std::vector<AxisFacts> spatial; // the root data-parallel axes, in order
    std::vector<AxisFacts> reduce;  // the root reduction axes, in order
    // Reads every input at its own axes, in order (or at constant indices), with no expensive
    // call and no branch: inlining it costs nothing (Ansor's IsStrictlyInlineable).
    bool strictlyInlineable = false;
    // An input is read without one of the data-parallel axes (of extent > 1) twice or more, or
    // once in a reduction: the stage reuses data and wants multi-level tiling.
    bool needsTiling = false;
    // A matmul-shaped reduction (C[..., i, j] = sum over k of A[..., i, k] * B[..., k, j]): the
    // input read at the last axis j as its last index and at k but never at the row axis i (B,
    // which packs into panels of j), with an input read at i and k but not j (A). Empty when the
    // stage is not of this shape.
    std::string panelInput;
    // An int8 dot product TOPI's x86 intrinsics compute (dot_16x1x16_uint8_int8_int32): a sum
    // of int32(uint8 A[..., k]) * int32(int8 W[..., j % L, k % 4]), j the last data-parallel
    // axis, k the last reduction axis, L the lanes (j's extent a multiple of L, k's of 4); or with
    // the blocks as axes of their own, W[..., j, k] (j's extent L, k's 4: TOPI's int8 conv2d).
    // The lanes, 0 when it is not; whether j and k must be split to that.
    int int8DotLanes = 0;
    bool int8DotSplitJ = false, int8DotSplitK = false;
    std::vector<std::string> consumers; // the stages that read it
    // The only consumer, when it reads this stage element-wise at its own axes (same extents):
    // the stage can be computed inside that consumer's tiles.
    std::string elementwiseConsumer;
    // The only consumer reads this stage at indices that use each of its data-parallel axes (of
    // extent > 1): one tile of the consumer needs one tile of this stage (with a window's halo),
    // and another tile needs another, so computing the stage inside the consumer's tiles adds
    // little work and keeps it in cache (the padding of a depthwise convolution; not that of a
    // dense one, whose output channels all read every input channel).
    bool tiledByConsumer = false;
    // The starting variant's steps already touched the stage's loops or placement.
    bool pinned = false;
    // Pinned only by splits (no fuse, reorder, annotation or attachment): its split axes keep
    // their pieces and the tuner arranges them with the rest.
    bool onlySplit = false;
    bool hasParallel = false, hasVectorize = false, hasUnroll = false;
    std::int64_t spatialProduct() const;
    std::int64_t reduceProduct() const;
};

// The axes' names, in order.
std::vector<std::string> axisNames(const std::vector<AxisFacts>& axes);

// One entry per stage of `sch`, in the schedule's order (producers first).
std::vector<StageFacts> analyzeStages(const Schedule& sch);

} // namespace loopscope
