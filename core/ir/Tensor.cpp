#include "ir/Tensor.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

#include <algorithm>

namespace loopscope {

Expr makeTensorLoad(Tensor t, std::vector<Expr> indices)
{
    LS_ASSERT(t, "load from no tensor");
    LS_ASSERT(static_cast<int>(indices.size()) == t->ndim(),
              "load from " << t->name << " with " << indices.size() << " indices, it has "
                           << t->ndim() << " dimensions");
    for (auto& i : indices)
        LS_ASSERT(i.defined() && !i.type().isFloat(), t->name << " indexed by a non-integer");
    DataType type = t->dtype;
    for (auto& i : indices)
        if (i.type().lanes > 1) type = type.withLanes(i.type().lanes);
    return std::make_shared<TensorLoadNode>(type, std::move(t), std::move(indices));
}

Tensor makePlaceholder(std::string name, std::vector<Expr> shape, DataType dtype, SourceLoc loc)
{
    for (auto& e : shape)
        LS_ASSERT(e.defined(), "placeholder " << name << " with a missing extent");
    auto op = std::make_shared<OperationNode>();
    op->kind = OperationNode::Kind::Placeholder;
    op->name = std::move(name);
    op->shape = std::move(shape);
    op->dtype = dtype;
    op->loc = loc;
    return op;
}

Tensor makeCompute(std::string name, std::string tag, std::vector<IterVar> axes, Expr body,
                   SourceLoc loc)
{
    LS_ASSERT(body.defined(), "compute " << name << " without a body");
    for (auto& a : axes)
        LS_ASSERT(a, "compute " << name << " with a missing axis");
    auto op = std::make_shared<OperationNode>();
    op->kind = OperationNode::Kind::Compute;
    op->name = std::move(name);
    op->tag = std::move(tag);
    for (auto& a : axes)
        op->shape.push_back(a->dom.extent);
    op->axes = std::move(axes);
    if (auto* r = body.as<ReduceNode>()) op->reduceAxes = r->axes;
    op->dtype = body.type();
    op->body = std::move(body);
    op->loc = loc;
    return op;
}

std::vector<Tensor> inputTensors(const Tensor& op)
{
    std::vector<Tensor> out;
    if (!op->isCompute()) return out;
    forEachExpr(op->body, [&](const Expr& e) {
        if (auto* load = e.as<TensorLoadNode>()) {
            if (std::find(out.begin(), out.end(), load->tensor) == out.end())
                out.push_back(load->tensor);
        }
    });
    return out;
}

namespace {
class InputReplacer : public IRMutator {
public:
    explicit InputReplacer(const std::vector<std::pair<Tensor, Tensor>>& r) : m_replace(r) {}

protected:
    Expr visitTensorLoad(const TensorLoadNode* op, const Expr& self) override
    {
        Expr e = IRMutator::visitTensorLoad(op, self);
        auto* load = e.as<TensorLoadNode>();
        for (auto& [from, to] : m_replace)
            if (load->tensor == from) return makeTensorLoad(to, load->indices);
        return e;
    }

private:
    const std::vector<std::pair<Tensor, Tensor>>& m_replace;
};
} // namespace

Tensor replaceInputs(const Tensor& op, const std::vector<std::pair<Tensor, Tensor>>& replace)
{
    if (!op->isCompute()) return op;
    InputReplacer r(replace);
    Expr body = r.mutate(op->body);
    if (body.same(op->body)) return op;
    auto copy = std::make_shared<OperationNode>(*op);
    copy->body = body;
    return copy;
}

} // namespace loopscope
