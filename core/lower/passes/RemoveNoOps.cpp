#include "lower/passes/RemoveNoOps.h"

#include "ir/IRMutator.h"

namespace loopscope {

namespace {

class NoOpRemover : public IRMutator {
protected:
    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitFor(op, self);
        auto* f = s.as<ForNode>();
        return f && f->body.defined() ? s : Stmt();
    }
    Stmt visitIfThenElse(const IfThenElseNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitIfThenElse(op, self);
        auto* i = s.as<IfThenElseNode>();
        if (!i || (!i->thenCase.defined() && !i->elseCase.defined())) return Stmt();
        if (!i->thenCase.defined()) return makeIfThenElse(makeNot(i->cond), i->elseCase);
        return s;
    }
    Stmt visitLetStmt(const LetStmtNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitLetStmt(op, self);
        auto* l = s.as<LetStmtNode>();
        return l && l->body.defined() ? s : Stmt();
    }
    Stmt visitAllocate(const AllocateNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitAllocate(op, self);
        auto* a = s.as<AllocateNode>();
        return a && a->body.defined() ? s : Stmt();
    }
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitAttr(op, self);
        auto* a = s.as<AttrNode>();
        return a && a->body.defined() ? s : Stmt();
    }
    Stmt visitEvaluate(const EvaluateNode* op, const Stmt& self) override
    {
        if (op->value.as<IntImmNode>()) return Stmt();
        return self;
    }
};

} // namespace

Stmt removeNoOps(const Stmt& s)
{
    NoOpRemover r;
    return r.mutate(s);
}

} // namespace loopscope
