#include "schedule/Inline.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Limits.h"

#include <algorithm>
#include <cstdio>

namespace loopscope {

namespace {

class Inliner : public IRMutator {
public:
    explicit Inliner(const Schedule& sch) : m_sch(sch) {}

protected:
    Expr visitTensorLoad(const TensorLoadNode* op, const Expr& self) override
    {
        Expr e = IRMutator::visitTensorLoad(op, self);
        auto* load = e.as<TensorLoadNode>();
        const Stage* st = m_sch.find(load->tensor);
        if (!st || st->attach != AttachType::Inline) return e;
        VarMap vmap;
        for (std::size_t d = 0; d < st->op->axes.size(); ++d)
            vmap[st->op->axes[d]->var.get()] = load->indices[d];
        return mutate(substitute(st->op->body, vmap));
    }

private:
    const Schedule& m_sch;
};

// The number of nodes each stage's body has once its inlined producers are substituted, counted
// stage by stage (each once) before any substitution is made: a chain of n stages that each read
// their producer twice, all inlined, makes an expression of 2^n nodes.
class InlinedSize {
public:
    explicit InlinedSize(const Schedule& sch) : m_sch(sch) {}

    long double of(const Stage& st)
    {
        if (auto it = m_sizes.find(st.op.get()); it != m_sizes.end()) return it->second;
        long double n = 0;
        forEachExpr(st.op->body, [&](const Expr& sub) {
            n += 1;
            if (auto* load = sub.as<TensorLoadNode>()) {
                const Stage* producer = m_sch.find(load->tensor);
                if (producer && producer->attach == AttachType::Inline && m_depth < 4096) {
                    ++m_depth;
                    n += of(*producer);
                    --m_depth;
                }
            }
        });
        m_sizes[st.op.get()] = n;
        return n;
    }

private:
    const Schedule& m_sch;
    std::unordered_map<const OperationNode*, long double> m_sizes;
    int m_depth = 0;
};

void checkInlinedSizes(const Schedule& sch)
{
    InlinedSize sizes(sch);
    for (auto& st : sch.stages()) {
        if (st.isPlaceholder() || st.attach == AttachType::Inline) continue;
        const long double n = sizes.of(st);
        if (n <= static_cast<long double>(kMaxInlinedNodes)) continue;
        // Blame the inlined producer it reads that brings the most.
        const Stage* worst = nullptr;
        long double worstSize = -1;
        for (const Tensor& t : tensorsRead(st.op->body)) {
            const Stage* p = sch.find(t);
            if (p && p->attach == AttachType::Inline && sizes.of(*p) > worstSize)
                worst = p, worstSize = sizes.of(*p);
        }
        char count[32];
        std::snprintf(count, sizeof count, "%.3Lg", n);
        throw UserError(worst ? worst->attachLoc : SourceLoc{},
                        "inlining makes the body of '" + st.name() + "' an expression of " + count +
                            " nodes; at most " + std::to_string(kMaxInlinedNodes) +
                            " are supported" +
                            (worst ? ": compute '" + worst->name() + "' instead of inlining it"
                                   : std::string()));
    }
}

} // namespace

EffectiveBodies inlineBodies(const Schedule& sch)
{
    checkInlinedSizes(sch);
    EffectiveBodies out;
    Inliner inliner(sch);
    for (auto& st : sch.stages()) {
        if (st.isPlaceholder() || st.attach == AttachType::Inline) continue;
        out[st.op.get()] = inliner.mutate(st.op->body);
    }
    return out;
}

std::vector<Tensor> tensorsRead(const Expr& e)
{
    std::vector<Tensor> out;
    forEachExpr(e, [&](const Expr& sub) {
        if (auto* load = sub.as<TensorLoadNode>()) {
            if (std::find(out.begin(), out.end(), load->tensor) == out.end())
                out.push_back(load->tensor);
        }
    });
    return out;
}

} // namespace loopscope
