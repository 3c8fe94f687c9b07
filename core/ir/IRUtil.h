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

// Number of nodes, a measure of how much work an expression is.
int exprSize(const Expr& e);

// Calls f on every node of e, parents before children.
void forEachExpr(const Expr& e, const std::function<void(const Expr&)>& f);

} // namespace loopscope
