// Which loops over the lanes of a vector (`for j.s in range(n)`, the loops vectorizeLoops leaves
// where a statement cannot be computed on vectors) may still have their lanes computed at once,
// under lane masks: the analysis the code generator asks before it does so, and the loop nest
// view counts.
#pragma once

#include "ir/Stmt.h"

#include <cstdint>

namespace loopscope {

// The widest loop over lanes computed on vectors (a 64-lane mask of float64 is 8 registers of
// AVX-512).
constexpr std::int64_t kMaxMaskedLanes = 64;

// vectorizeUnderMasks of a loop over lanes when its lanes may run at once, as they would one
// after another: every buffer the body writes is read and written only at one index, a ramp with
// a constant non-zero stride, so that each lane touches its own elements; its accesses are of
// scalar elements, at scalar indices or at indices of all the lanes; no vector integer division
// by a variable (a lane that never runs may divide by zero); no other statements than stores,
// lets, conditions and sequences. Undefined otherwise, for loops not marked scalarizedLanes, and
// beyond kMaxMaskedLanes lanes. Code generation computes the lanes of such loops at once.
Stmt lanesAtOnce(const ForNode* loop);

// How many loops over lanes in `s` code generation computes at once (see lanesAtOnce).
int countLanesAtOnce(const Stmt& s);

// An integer division or remainder whose divisor is not a non-zero constant (or a broadcast of
// one): computed for a lane that never runs, it may trap.
bool integerDivisionMayTrap(const BinaryNode* op);

} // namespace loopscope
