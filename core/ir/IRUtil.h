// Small structural utilities over the IR: substitution, structural equality and hashing, variable
// use queries.
#pragma once

#include "ir/Stmt.h"

#include <cstddef>
#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace loopscope {

using VarMap = std::unordered_map<const VarNode*, Expr>;
using VarSet = std::unordered_set<const VarNode*>;

Expr substitute(const Expr& e, const VarMap& map);
Stmt substitute(const Stmt& s, const VarMap& map);

// Same structure, same constants, same variables (by identity), same tensors and buffers.
bool exprEqual(const Expr& a, const Expr& b);
std::size_t exprHash(const Expr& e);

struct ExprHash {
    std::size_t operator()(const Expr& e) const { return exprHash(e); }
};
struct ExprEqual {
    bool operator()(const Expr& a, const Expr& b) const { return exprEqual(a, b); }
};

bool usesVar(const Expr& e, const VarNode* v);
bool usesAnyVar(const Expr& e, const VarSet& vars);
bool usesAnyVar(const Stmt& s, const VarSet& vars);
void collectVars(const Expr& e, VarSet* out);
// The handle of a variable `s` uses, found by its node (a launch's `ref`); null when `s` does not
// use it.
Var findVar(const Stmt& s, const void* node);

// `e` without a `likely` hint around it (the condition itself).
Expr withoutLikely(const Expr& e);

// `e` with the let-bound variables of `lets` replaced by their values, through lets bound to other
// lets (at most 8 levels deep): for reasoning about an index where lets are in scope.
Expr substituteLets(Expr e, const VarMap& lets);

// Whether some statement of `s` (itself included) satisfies `pred`; the walk reads statements
// only and stops at the first.
bool anyStmt(const Stmt& s, const std::function<bool(const StmtNode*)>& pred);
// Whether `s` holds an attribute statement satisfying `pred`.
bool anyAttr(const Stmt& s, const std::function<bool(const AttrNode*)>& pred);

// Number of nodes, a measure of how much work an expression is.
int exprSize(const Expr& e);

// Calls f on every node of e, parents before children.
void forEachExpr(const Expr& e, const std::function<void(const Expr&)>& f);
// The same, with each subexpression's depth (1 for e itself); f returns false to leave out the
// subexpression's children.
void forEachExprWithDepth(const Expr& e, const std::function<bool(const Expr&, int)>& f);
// The depth of e (1 for a leaf), or limit + 1 when it is deeper: the walk itself never goes
// deeper than limit + 1, so it is safe on any expression.
int exprDepthUpTo(const Expr& e, int limit);

// The size of an expression as a tree (shared subexpressions counted each time they occur, as
// every pass that walks it meets them) and its depth, measured on the shared graph: a value built
// by doubling itself 100 times is measured in 100 steps. Past depthLimit the walk stops (the
// depth then exceeds depthLimit).
struct ExprShape {
    long double nodes = 0;
    int depth = 0;
};
ExprShape exprShape(const Expr& e, int depthLimit);

} // namespace loopscope
