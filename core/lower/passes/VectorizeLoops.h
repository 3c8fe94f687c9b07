// Vectorized loops made explicit: the loop variable becomes a ramp of lanes and the body computes
// on vectors (ramps, broadcasts, vector loads and stores), as TVM's VectorizeLoop pass does.
#pragma once

#include "ir/Stmt.h"

namespace loopscope {

// Replaces every For of kind Vectorized whose extent is a constant n >= 2 by its body evaluated on
// n lanes: the loop variable becomes Ramp(0, 1, n); adding a scalar to a ramp or multiplying it by
// a positive constant keeps a ramp, other mixes broadcast the scalar side; loads and stores at
// vector indices become vector accesses (a scalar stored at a vector index is broadcast); math
// intrinsics and `likely` work lane by lane. Statements that cannot be vectorized (an `if` or
// `if_then_else` whose condition becomes a vector, an inner loop whose extent depends on the
// variable, a broadcast of a vector) become `for <var>.s in range(n)` serial loops over the
// original statement, the smallest statement that needs it. Vectorized loops nested in a
// vectorized loop, and vectorized loops without a constant extent >= 2, become serial loops.
// Vector expressions come out simplified (ramp bases in canonical form).
//
// Precondition: after storage flattening (1-D BufferLoad/BufferStore, Allocate of flat buffers)
// and simplification; every loop starts at 0.
Stmt vectorizeLoops(const Stmt& s);

// The body of a loop over the lanes of a vector (`for j.s in range(n)`, see above) computed on n
// lanes after all: an `if` or `if_then_else` whose condition depends on the lane keeps that vector
// condition (its branches run for the lanes where it holds, under a lane mask), and variables
// bound to values that depend on the lane are replaced by their values. Undefined when a part of
// the body still cannot be computed on vectors (an inner loop, an allocation, a ramp of ramps).
// Whether the lanes may run at once at all (no lane reads what another writes) is the caller's
// question.
Stmt vectorizeUnderMasks(const ForNode* loop);

} // namespace loopscope
