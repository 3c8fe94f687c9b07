// How the ranges and values of a stage's iteration variables follow from one another through its
// split/fuse/rebase relations (TVM's message passing).
#pragma once

#include "ir/Analyzer.h"
#include "schedule/Schedule.h"

#include <unordered_map>

namespace loopscope {

using RangeMap = std::unordered_map<const IterVarNode*, Range>;
using ValueMap = std::unordered_map<const IterVarNode*, Expr>;

// Given the ranges of the stage's root variables, the ranges of all derived ones (TVM's
// PassDownDomain). Derived variables always start at 0; a split's outer range is the ceiling of
// the quotient, and its factor (or nparts) piece is clipped to a shorter parent, except where the
// piece is or leads to a loop bound to a thread, or `early` (TVM's allow_missing, as rfactor
// calls it: nothing is clipped).
void passDownDomain(const Stage& s, RangeMap& ranges, const Analyzer& an, bool early = false);

// Given each leaf's offset from its range minimum (its loop variable, or 0 for a loop of extent
// 1), the offsets of all variables; then the absolute values (minimum + offset) of every variable.
ValueMap passUpOffsets(const Stage& s, const RangeMap& ranges, ValueMap leafOffsets,
                       const Analyzer& an);
ValueMap offsetsToValues(const Stage& s, const RangeMap& ranges, const ValueMap& offsets,
                         const Analyzer& an);

// Which variables may run past their range because a split above them does not divide evenly.
std::unordered_map<const IterVarNode*, bool>
passUpBoundCheck(const Stage& s, const RangeMap& ranges, const Analyzer& an);

// For each leaf: 1 if it derives from a data-parallel root, 2 if from a reduction root, 3 if both.
std::unordered_map<const IterVarNode*, int> reduceTouchMask(const Stage& s);

// ceil(a / b) for non-negative a and positive b, simplified.
Expr ceilDiv(const Expr& a, const Expr& b, const Analyzer& an);

} // namespace loopscope
