#include "lower/LowerTensorIR.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Tensor.h"
#include "schedule/TensorIR.h"

#include <map>
#include <unordered_map>

namespace loopscope {

namespace {

Stmt realize(const AllocPlacement& p, Stmt body)
{
    return makeRealize(p.alloc.tensor, p.region, p.alloc.scope, std::move(body));
}

class LowerBlocks : public IRMutator {
public:
    explicit LowerBlocks(const std::vector<AllocPlacement>& plans)
    {
        for (const AllocPlacement& p : plans)
            m_under[p.loop].push_back(&p);
    }
    // Each loop bound to a GPU thread's variable, to the thread's.
    VarMap threads;

    Stmt realizedAtRoot(Stmt body) { return realizeUnder(nullptr, std::move(body)); }

protected:
    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        if (op->forKind != ForKind::ThreadBinding) {
            Stmt s = IRMutator::visitFor(op, self);
            auto* l = s.as<ForNode>();
            if (!m_under.count(op) || !l) return s;
            return remakeFor(l, l->min, l->extent, realizeUnder(op, l->body));
        }
        // A loop bound to a GPU thread launches it, as TE's bound loops do: `blockIdx_x =
        // T.launch_thread("blockIdx.x", 16)` with the loop's variable replaced by the thread's.
        // A loop inside one launched on the same thread is that thread again, not a second
        // launch (TVM's UnifyThreadBinding): cooperative fetching binds copy loops to the
        // threadIdx of the loops around them.
        if (auto outer = m_launched.find(op->threadTag); outer != m_launched.end()) {
            threads[op->var.get()] = outer->second;
            return realizeUnder(op, mutate(op->body));
        }
        Var thread(op->threadTag);
        threads[op->var.get()] = thread;
        m_launched[op->threadTag] = thread;
        Stmt body = realizeUnder(op, mutate(op->body));
        m_launched.erase(op->threadTag);
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
        for (auto it = op->allocs.rbegin(); it != op->allocs.rend(); ++it) {
            std::vector<Range> bounds;
            for (const Expr& e : it->tensor->shape)
                bounds.push_back({makeInt(0), e});
            body = makeRealize(it->tensor, std::move(bounds), it->scope, body);
        }
        return body;
    }

private:
    Stmt realizeUnder(const ForNode* loop, Stmt body)
    {
        auto it = m_under.find(loop);
        if (it == m_under.end()) return body;
        for (auto p = it->second.rbegin(); p != it->second.rend(); ++p)
            body = realize(**p, body);
        return body;
    }

    std::unordered_map<const ForNode*, std::vector<const AllocPlacement*>> m_under;
    std::map<std::string, Var> m_launched; // the threads launched around what is lowered now
};

} // namespace

Stmt lowerTensorIR(const TirFunc& f)
{
    const std::vector<AllocPlacement> plans = planAllocations(f);
    LowerBlocks lower(plans);
    Stmt body = lower.realizedAtRoot(lower.mutate(f.body));
    return lower.threads.empty() ? body : substitute(body, lower.threads);
}

} // namespace loopscope
