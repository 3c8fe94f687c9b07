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

// The number of nodes each stage's body has once its inlined producers are substituted, and its
// depth, counted stage by stage (producers first, each once) before any substitution is made: a
// chain of n stages that each read their producer twice, all inlined, makes an expression of 2^n
// nodes; a chain of deep bodies, one as deep as all of them together.
class InlinedSize {
public:
    explicit InlinedSize(const Schedule& sch)
    {
        // Stages come producers first: each one's producers are measured when it is.
        for (const Stage& st : sch.stages()) {
            if (st.isPlaceholder()) continue;
            long double nodes = 0;
            int depth = 0;
            forEachExprWithDepth(st.op->body, [&](const Expr& sub, int d) {
                nodes += 1;
                depth = std::max(depth, d);
                if (auto* load = sub.as<TensorLoadNode>()) {
                    const Stage* producer = sch.find(load->tensor);
                    if (producer && producer->attach == AttachType::Inline) {
                        auto it = m_sizes.find(producer->op.get());
                        if (it != m_sizes.end()) {
                            nodes += it->second.nodes;
                            depth = std::max(depth, d + it->second.depth);
                        }
                    }
                }
                return true;
            });
            m_sizes[st.op.get()] = {nodes, depth};
        }
    }

    ExprShape of(const Stage& st) const
    {
        auto it = m_sizes.find(st.op.get());
        return it == m_sizes.end() ? ExprShape{} : it->second;
    }

private:
    std::unordered_map<const OperationNode*, ExprShape> m_sizes;
};

void checkInlinedSizes(const Schedule& sch)
{
    InlinedSize sizes(sch);
    for (auto& st : sch.stages()) {
        if (st.isPlaceholder() || st.attach == AttachType::Inline) continue;
        const ExprShape shape = sizes.of(st);
        const bool tooLarge = shape.nodes > static_cast<long double>(kMaxInlinedNodes);
        if (!tooLarge && shape.depth <= kMaxInlinedDepth) continue;
        // Blame the inlined producer it reads that brings the most.
        const Stage* worst = nullptr;
        long double worstSize = -1;
        for (const Tensor& t : tensorsRead(st.op->body)) {
            const Stage* p = sch.find(t);
            if (!p || p->attach != AttachType::Inline) continue;
            const long double size = tooLarge ? sizes.of(*p).nodes : sizes.of(*p).depth;
            if (size > worstSize) worst = p, worstSize = size;
        }
        char count[32];
        std::snprintf(count, sizeof count, "%.3Lg", shape.nodes);
        const std::string what =
            tooLarge
                ? "an expression of " + std::string(count) + " nodes; at most " +
                      std::to_string(kMaxInlinedNodes) + " are supported"
                : "an expression nested " + std::to_string(shape.depth) + " levels deep; at most " +
                      std::to_string(kMaxInlinedDepth) + " are supported";
        throw UserError(worst ? worst->attachLoc : SourceLoc{},
                        "inlining makes the body of '" + st.name() + "' " + what +
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
