// Hoisting of loop-invariant guards: `for x: if c: body` with c independent of x becomes
// `if c: for x: body`, repeatedly outwards (TVM's HoistIfThenElse).
#pragma once

#include "ir/Stmt.h"

namespace loopscope {

Stmt hoistIfThenElse(const Stmt& s);

} // namespace loopscope
