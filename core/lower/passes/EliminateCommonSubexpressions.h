// Common subexpression elimination: arithmetic computed more than once becomes a `cse_var_N` let,
// exactly as TVM's CommonSubexprElimTIR pass does it (same candidates, order, names, placement).
#pragma once

#include "ir/Stmt.h"

namespace loopscope {

// Introduces `LetStmt(cse_var_N, e, ...)` for every eligible expression e computed at least twice
// by a statement, wrapped around that statement, with every occurrence replaced. N counts from 1
// over the whole statement in creation order, skipping names the input already uses. As in TVM:
// candidates are pure arithmetic (no loads, calls, ramps or broadcasts, though their operands are
// searched), largest first (ties broken by TVM's legacy text form); a loop or `if` reports only
// what at least two of its parts (min/extent/body, condition/then/else) compute, so nothing is
// hoisted out of a loop body; a candidate whose variables are not all defined at that point
// (enclosing loops and lets; free variables such as symbolic sizes count as undefined, as
// function parameters are buffer handles) is not introduced, but its operands are considered.
//
// Precondition: the final lowered body (run last); variables are defined once.
Stmt eliminateCommonSubexpressions(const Stmt& s);

} // namespace loopscope
