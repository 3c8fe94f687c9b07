// From a schedule to the first loop program: each stage's loop nest (reduction init and update,
// guards for uneven splits), realized at the root or inside the loop it is computed at.
#pragma once

#include "ir/Diagnostic.h"
#include "ir/Stmt.h"
#include "schedule/Bound.h"

#include <vector>

namespace loopscope {

// Throws UserError, at the step responsible, for schedules that cannot be lowered (a vectorized
// or unrolled loop whose extent is not a constant, an attach point that no longer exists).
// `warnings`, when given, gets what a GPU would run but slowly (a kernel's loop run by one thread
// of each block).
Stmt scheduleOps(const Schedule& sch, const EffectiveBodies& bodies, const BoundInfo& bounds,
                 std::vector<Diagnostic>* warnings = nullptr);

} // namespace loopscope
