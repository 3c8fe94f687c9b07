// Visitors over expressions and statements: IRVisitor reads, IRMutator rebuilds only what changed
// (a node whose children are unchanged is returned as is).
#pragma once

#include "ir/Stmt.h"

namespace loopscope {

class IRVisitor {
public:
    virtual ~IRVisitor() = default;
    void visit(const Expr& e);
    void visit(const Stmt& s);

protected:
    virtual void visitLeaf(const Expr&) {}
    virtual void visitBinary(const BinaryNode* op);
    // visitNot(const NotNode*), ..., visitFor(const ForNode*), ...: one per node of ir/IRNodes.h.
#define LS_IR_VISIT(Kind) virtual void visit##Kind(const Kind##Node* op);
    LS_IR_NODE_EXPRS(LS_IR_VISIT)
    LS_IR_STMTS(LS_IR_VISIT)
#undef LS_IR_VISIT
};

class IRMutator {
public:
    virtual ~IRMutator() = default;
    Expr mutate(const Expr& e);
    Stmt mutate(const Stmt& s);
    std::vector<Expr> mutate(const std::vector<Expr>& es, bool* changed);

protected:
    // `self` is the handle of `op`, to be returned when nothing changes.
    virtual Expr visitLeaf(const Expr& self) { return self; }
    virtual Expr visitBinary(const BinaryNode* op, const Expr& self);
    // visitNot(const NotNode*, self), ..., visitFor(const ForNode*, self), ...: one per node of
    // ir/IRNodes.h.
#define LS_IR_MUTATE_EXPR(Kind) virtual Expr visit##Kind(const Kind##Node* op, const Expr& self);
#define LS_IR_MUTATE_STMT(Kind) virtual Stmt visit##Kind(const Kind##Node* op, const Stmt& self);
    LS_IR_NODE_EXPRS(LS_IR_MUTATE_EXPR)
    LS_IR_STMTS(LS_IR_MUTATE_STMT)
#undef LS_IR_MUTATE_EXPR
#undef LS_IR_MUTATE_STMT
};

} // namespace loopscope
