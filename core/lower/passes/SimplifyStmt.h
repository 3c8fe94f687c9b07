// Simplification of a whole statement: index arithmetic in canonical form with loop ranges known,
// guards that always hold removed, loops of extent 1 and constant lets substituted.
#pragma once

#include "ir/Stmt.h"

namespace loopscope {

Stmt simplifyStmt(const Stmt& s);

} // namespace loopscope
