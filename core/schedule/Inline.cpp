#include "schedule/Inline.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

#include <algorithm>

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

} // namespace

EffectiveBodies inlineBodies(const Schedule& sch)
{
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
