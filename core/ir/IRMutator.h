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
    virtual void visitNot(const NotNode* op);
    virtual void visitSelect(const SelectNode* op);
    virtual void visitCast(const CastNode* op);
    virtual void visitCall(const CallNode* op);
    virtual void visitTensorLoad(const TensorLoadNode* op);
    virtual void visitBufferLoad(const BufferLoadNode* op);
    virtual void visitRamp(const RampNode* op);
    virtual void visitBroadcast(const BroadcastNode* op);
    virtual void visitLet(const LetNode* op);
    virtual void visitReduce(const ReduceNode* op);

    virtual void visitFor(const ForNode* op);
    virtual void visitTensorStore(const TensorStoreNode* op);
    virtual void visitBufferStore(const BufferStoreNode* op);
    virtual void visitRealize(const RealizeNode* op);
    virtual void visitAllocate(const AllocateNode* op);
    virtual void visitLetStmt(const LetStmtNode* op);
    virtual void visitIfThenElse(const IfThenElseNode* op);
    virtual void visitSeq(const SeqNode* op);
    virtual void visitAttr(const AttrNode* op);
    virtual void visitEvaluate(const EvaluateNode* op);
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
    virtual Expr visitNot(const NotNode* op, const Expr& self);
    virtual Expr visitSelect(const SelectNode* op, const Expr& self);
    virtual Expr visitCast(const CastNode* op, const Expr& self);
    virtual Expr visitCall(const CallNode* op, const Expr& self);
    virtual Expr visitTensorLoad(const TensorLoadNode* op, const Expr& self);
    virtual Expr visitBufferLoad(const BufferLoadNode* op, const Expr& self);
    virtual Expr visitRamp(const RampNode* op, const Expr& self);
    virtual Expr visitBroadcast(const BroadcastNode* op, const Expr& self);
    virtual Expr visitLet(const LetNode* op, const Expr& self);
    virtual Expr visitReduce(const ReduceNode* op, const Expr& self);

    virtual Stmt visitFor(const ForNode* op, const Stmt& self);
    virtual Stmt visitTensorStore(const TensorStoreNode* op, const Stmt& self);
    virtual Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self);
    virtual Stmt visitRealize(const RealizeNode* op, const Stmt& self);
    virtual Stmt visitAllocate(const AllocateNode* op, const Stmt& self);
    virtual Stmt visitLetStmt(const LetStmtNode* op, const Stmt& self);
    virtual Stmt visitIfThenElse(const IfThenElseNode* op, const Stmt& self);
    virtual Stmt visitSeq(const SeqNode* op, const Stmt& self);
    virtual Stmt visitAttr(const AttrNode* op, const Stmt& self);
    virtual Stmt visitEvaluate(const EvaluateNode* op, const Stmt& self);
};

}  // namespace loopscope
