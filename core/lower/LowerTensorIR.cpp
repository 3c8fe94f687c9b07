#include "lower/LowerTensorIR.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Tensor.h"

namespace loopscope {

namespace {

Stmt realizeAll(const std::vector<BlockAlloc>& allocs, Stmt body)
{
    for (auto it = allocs.rbegin(); it != allocs.rend(); ++it) {
        std::vector<Range> bounds;
        for (const Expr& e : it->tensor->shape)
            bounds.push_back({makeInt(0), e});
        body = makeRealize(it->tensor, std::move(bounds), it->scope, body);
    }
    return body;
}

class LowerBlocks : public IRMutator {
protected:
    // A loop bound to a GPU thread launches it, as TE's bound loops do: `blockIdx_x =
    // T.launch_thread("blockIdx.x", 16)` with the loop's variable replaced by the thread's.
    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        if (op->forKind != ForKind::ThreadBinding) return IRMutator::visitFor(op, self);
        Var thread(op->threadTag);
        Stmt body = mutate(substitute(op->body, VarMap{{op->var.get(), thread}}));
        const bool virtualThread = op->threadTag.rfind("vthread", 0) == 0;
        return makeAttr(virtualThread ? "virtual_thread" : "thread_extent", op->threadTag,
                        op->extent, body, thread.get());
    }

    Stmt visitBlock(const BlockNode* op, const Stmt& self) override
    {
        (void)self;
        VarMap bindings;
        for (const BlockIter& it : op->iters)
            bindings[it.var.get()] = it.binding;
        std::vector<Stmt> parts;
        if (op->init.defined()) {
            Expr first;
            for (const BlockIter& it : op->iters) {
                if (it.kind != BlockIterKind::Reduce) continue;
                Expr atStart = makeBinary(ExprKind::EQ, it.binding, it.dom.min);
                first = first.defined() ? makeBinary(ExprKind::And, first, atStart) : atStart;
            }
            Stmt init = mutate(substitute(op->init, bindings));
            parts.push_back(first.defined() ? makeIfThenElse(first, init) : init);
        }
        parts.push_back(mutate(substitute(op->body, bindings)));
        Stmt body = makeSeq(std::move(parts));
        if (op->predicate.defined())
            body = makeIfThenElse(substitute(op->predicate, bindings), body);
        return realizeAll(op->allocs, body);
    }
};

} // namespace

Stmt lowerTensorIR(const TirFunc& f)
{
    return realizeAll(f.allocs, LowerBlocks().mutate(f.body));
}

} // namespace loopscope
