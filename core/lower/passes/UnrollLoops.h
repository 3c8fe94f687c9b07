// Loop unrolling made explicit: unrolled loops become copies of their body, one per iteration, as
// TVM's UnrollLoop pass does (including the pragma-driven automatic unrolling).
#pragma once

#include "ir/Stmt.h"

namespace loopscope {

// Replaces every For of kind Unrolled whose extent is a constant n by n copies of its body with
// the loop variable set to 0, 1, ..., n-1 (expressions that changed are simplified; variables
// defined inside the body get fresh Var objects in every copy but the first, as TVM's ConvertSSA
// does). Inside an Attr "pragma_auto_unroll_max_step" with value v, a serial loop with a constant
// extent is unrolled too when it contains no loop that stays a loop and extent times the number
// of stores (and evaluations) in its unrolled body is at most v, nesting at most 8 deep;
// "pragma_unroll_explicit" = 0 makes such loops ForKind::Unrolled instead of copying them. Both
// pragma attributes are removed. Loops of extent 0 that qualify become `Evaluate(0)`.
//
// Precondition: after vectorization; every loop starts at 0. Unrolled loops without a constant
// extent are not expected (scheduling rejects them) and are left as they are.
Stmt unrollLoops(const Stmt& s);

} // namespace loopscope
