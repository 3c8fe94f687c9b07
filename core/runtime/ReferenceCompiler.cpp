// The reference interpreter's compiler: a tensor-expression definition to a tree of nodes over a
// frame of slots (see ReferenceInternal.h).
#include "runtime/ReferenceInternal.h"

#include <utility>

namespace loopscope {

using namespace reference;

namespace {

// Variables given slots for the extent of a body (a let's, a reduction's), and the innermost
// reduction loop there: when the body is compiled, or its compilation fails, each variable has its
// outer slot back, or none, and the innermost loop is the outer one again.
class ScopedSlots {
public:
    explicit ScopedSlots(Scope& scope) : m_scope(scope), m_outerInnermost(scope.innermostSlot) {}
    ~ScopedSlots()
    {
        m_scope.innermostSlot = m_outerInnermost;
        for (auto it = m_outer.rbegin(); it != m_outer.rend(); ++it) {
            if (it->second >= 0)
                m_scope.slots[it->first] = it->second;
            else
                m_scope.slots.erase(it->first);
        }
    }
    ScopedSlots(const ScopedSlots&) = delete;
    ScopedSlots& operator=(const ScopedSlots&) = delete;

    void bind(const VarNode* v, int slot)
    {
        auto it = m_scope.slots.find(v);
        m_outer.emplace_back(v, it != m_scope.slots.end() ? it->second : -1);
        m_scope.slots[v] = slot;
    }
    void setInnermost(int slot) { m_scope.innermostSlot = slot; }

private:
    Scope& m_scope;
    int m_outerInnermost;
    std::vector<std::pair<const VarNode*, int>> m_outer; // in the order bound
};

std::string unsupported(const std::string& what)
{
    return what + " is not supported by the reference interpreter (it evaluates tensor-expression "
                  "definitions, not lowered code)";
}

} // namespace

NodePtr ReferenceEvaluator::Impl::compile(const Expr& e, Scope& scope)
{
    auto sub = [&](const Expr& x) { return compile(x, scope); };
    auto& slots = scope.slots;
    DataType type = e.type();
    if (!type.isScalar())
        throw ReferenceError(unsupported("the vector expression of type " + type.str()));

    switch (e.kind()) {
    case ExprKind::IntImm: {
        std::int64_t v = e.as<IntImmNode>()->value;
        if (type.isFloat()) return makeConstFloat(static_cast<double>(v));
        return makeConstInt(wrapToType(v, type));
    }
    case ExprKind::FloatImm: {
        double v = e.as<FloatImmNode>()->value;
        if (type.isFloat()) return makeConstFloat(v);
        return makeConstInt(wrapToType(truncToInt64(v), type));
    }
    case ExprKind::Var: {
        const VarNode* v = e.as<VarNode>();
        if (auto it = slots.find(v); it != slots.end()) {
            if (type.isFloat()) return makeSlotFloat(it->second);
            return makeSlotInt(it->second);
        }
        if (auto it = sizes.find(v); it != sizes.end()) {
            if (type.isFloat()) return makeConstFloat(static_cast<double>(it->second));
            return makeConstInt(wrapToType(it->second, type));
        }
        throw ReferenceError("variable '" + v->name + "' has no value (give every te.var a size)");
    }
    case ExprKind::Add:
    case ExprKind::Sub:
    case ExprKind::Mul:
    case ExprKind::Div:
    case ExprKind::Mod:
    case ExprKind::FloorDiv:
    case ExprKind::FloorMod:
    case ExprKind::Min:
    case ExprKind::Max:
    case ExprKind::EQ:
    case ExprKind::NE:
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE:
    case ExprKind::And:
    case ExprKind::Or: {
        auto* b = e.as<BinaryNode>();
        bool floatOperands = b->a.type().isFloat();
        if (b->b.type().isFloat() != floatOperands) {
            throw ReferenceError("operands of a binary operation differ in type: " +
                                 b->a.type().str() + " vs " + b->b.type().str());
        }
        return makeBinaryNode(e.kind(), floatOperands, type, sub(b->a), sub(b->b));
    }
    case ExprKind::Not: return makeNot(sub(e.as<NotNode>()->a));
    case ExprKind::Select: {
        auto* s = e.as<SelectNode>();
        return makeSelect(sub(s->cond), sub(s->t), sub(s->f));
    }
    case ExprKind::Cast: {
        auto* c = e.as<CastNode>();
        DataType from = c->value.type();
        NodePtr v = sub(c->value);
        if (from.isFloat() && type.isFloat()) return v; // intermediates keep double precision
        if (from.isFloat()) return makeCastFloatToInt(std::move(v), type);
        if (type.isFloat()) return makeCastIntToFloat(std::move(v));
        return makeCastIntToInt(std::move(v), type);
    }
    case ExprKind::Call: {
        auto* c = e.as<CallNode>();
        std::size_t arity = c->op == CallOp::IfThenElse ? 3 : c->op == CallOp::Pow ? 2 : 1;
        if (c->args.size() != arity) {
            throw ReferenceError(std::string(callOpName(c->op)) + " takes " +
                                 std::to_string(arity) + " arguments, not " +
                                 std::to_string(c->args.size()));
        }
        if (c->op == CallOp::Likely) return sub(c->args[0]);
        if (c->op == CallOp::IfThenElse)
            return makeIfThenElse(sub(c->args[0]), sub(c->args[1]), sub(c->args[2]));
        std::vector<NodePtr> args;
        for (const Expr& a : c->args) {
            // Math runs in the call's type: convert arguments that differ (e.g. int ** float).
            NodePtr n = sub(a);
            if (a.type().isFloat() != type.isFloat()) {
                if (type.isFloat())
                    n = makeCastIntToFloat(std::move(n));
                else
                    n = makeCastFloatToInt(std::move(n), DataType::int64());
            }
            args.push_back(std::move(n));
        }
        if (type.isFloat()) return makeMathFloat(c->op, std::move(args));
        return makeMathInt(c->op, std::move(args), type);
    }
    case ExprKind::TensorLoad: {
        auto* l = e.as<TensorLoadNode>();
        TensorInfo& t = info(l->tensor);
        if (l->indices.size() != t.shape.size()) {
            throw ReferenceError("read of '" + t.op->name + "' with " +
                                 std::to_string(l->indices.size()) + " indices; it has " +
                                 std::to_string(t.shape.size()) + " dimensions");
        }
        std::vector<LoadDim> dims(t.shape.size());
        std::int64_t streamStride = 0; // elements per step of the innermost reduction loop
        for (std::size_t d = 0; d < dims.size(); ++d) {
            const Expr& index = l->indices[d];
            if (index.type().isFloat())
                throw ReferenceError("index " + std::to_string(d) + " of '" + t.op->name +
                                     "' is a float");
            if (auto* v = index.as<VarNode>(); v && slots.count(v))
                dims[d].slot = slots.at(v);
            else
                dims[d].index = sub(index);
            dims[d].extent = t.shape[d];
            dims[d].stride = t.strides[d];
            if (dims[d].slot >= 0 && dims[d].slot == scope.innermostSlot)
                streamStride += t.strides[d];
        }
        if (t.op->isCompute()) return makeComputeLoad(*this, t, std::move(dims), streamStride);
        return makePlaceholderLoad(t, std::move(dims), streamStride);
    }
    case ExprKind::Let: {
        auto* l = e.as<LetNode>();
        NodePtr value = sub(l->value);
        int slot = scope.slotCount++;
        NodePtr body;
        {
            ScopedSlots bound(scope);
            bound.bind(l->var.get(), slot);
            body = sub(l->body);
        }
        return makeLet(slot, l->value.type().isFloat(), std::move(value), std::move(body));
    }
    case ExprKind::Reduce: {
        auto* r = e.as<ReduceNode>();
        std::vector<ReductionAxis> axes;
        for (const IterVar& iv : r->axes) {
            // Domains are compiled outside the axes they bound.
            ReductionAxis axis{scope.slotCount++, sub(iv->dom.min), sub(iv->dom.extent)};
            axes.push_back(std::move(axis));
        }
        NodePtr source, condition;
        {
            ScopedSlots bound(scope);
            for (std::size_t k = 0; k < r->axes.size(); ++k)
                bound.bind(r->axes[k]->var.get(), axes[k].slot);
            if (!axes.empty()) bound.setInnermost(axes.back().slot);
            source = sub(r->source);
            condition = r->condition.defined() ? sub(r->condition) : nullptr;
        }
        return makeReduction(r->op, type, std::move(axes), std::move(source), std::move(condition));
    }
    case ExprKind::StringImm: throw ReferenceError(unsupported("a string constant"));
    case ExprKind::BufferLoad: throw ReferenceError(unsupported("a buffer load"));
    case ExprKind::Ramp: throw ReferenceError(unsupported("a ramp"));
    case ExprKind::Broadcast: throw ReferenceError(unsupported("a broadcast"));
    }
    throw ReferenceError(unsupported("this expression"));
}

} // namespace loopscope
