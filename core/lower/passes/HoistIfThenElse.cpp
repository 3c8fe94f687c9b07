#include "lower/passes/HoistIfThenElse.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

namespace loopscope {

namespace {

class Hoister : public IRMutator {
protected:
    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitFor(op, self);
        auto* f = s.as<ForNode>();
        if (!f || f->forKind == ForKind::ThreadBinding) return s;
        auto* branch = f->body.as<IfThenElseNode>();
        if (!branch || branch->elseCase.defined()) return s;
        if (usesVar(branch->cond, f->var.get())) return s;
        return makeIfThenElse(branch->cond, remakeFor(f, f->min, f->extent, branch->thenCase));
    }
};

} // namespace

Stmt hoistIfThenElse(const Stmt& s)
{
    Hoister h;
    return h.mutate(s);
}

} // namespace loopscope
