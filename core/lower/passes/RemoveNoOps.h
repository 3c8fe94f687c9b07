// Removal of statements that do nothing: empty loops, branches, sequences and allocations.
#pragma once

#include "ir/Stmt.h"

namespace loopscope {

Stmt removeNoOps(const Stmt& s);

} // namespace loopscope
