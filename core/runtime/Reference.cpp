// The reference interpreter's evaluator: the tensors as it knows them (concrete shapes, input
// buffers, compiled bodies), their memoized elements, and ReferenceEvaluator's methods.
#include "runtime/Reference.h"

#include "runtime/ReferenceInternal.h"

#include "ir/Limits.h"

#include <bit>
#include <limits>
#include <utility>

namespace loopscope {

namespace reference {

std::string formatIndex(const std::string& name, const std::vector<std::int64_t>& index)
{
    std::string s = name + "[";
    for (std::size_t d = 0; d < index.size(); ++d) {
        if (d) s += ", ";
        s += std::to_string(index[d]);
    }
    return s + "]";
}

std::string formatShape(const std::vector<std::int64_t>& shape)
{
    return formatIndex("", shape);
}

thread_local std::int64_t t_stepsLeft = std::numeric_limits<std::int64_t>::max();

void throwStepLimit()
{
    throw ReferenceStepLimit("");
}

} // namespace reference

using namespace reference;

namespace {

std::vector<std::int64_t> rowMajorStrides(const std::vector<std::int64_t>& shape)
{
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (std::size_t d = shape.size(); d-- > 1;)
        strides[d - 1] = strides[d] * shape[d];
    return strides;
}

} // namespace

std::vector<std::int64_t> ReferenceEvaluator::Impl::shapeOf(const OperationNode& op)
{
    std::vector<std::int64_t> shape;
    for (const Expr& extent : op.shape) {
        std::int64_t n = evalConstant(extent);
        if (n < 0) {
            throw ReferenceError("dimension " + std::to_string(shape.size()) + " of '" + op.name +
                                 "' is " + std::to_string(n));
        }
        shape.push_back(n);
    }
    return shape;
}

std::int64_t ReferenceEvaluator::Impl::evalConstant(const Expr& e)
{
    Scope scope;
    NodePtr node = compile(e, scope);
    std::vector<std::int64_t> frame(static_cast<std::size_t>(scope.slotCount) + 1);
    return node->i(frame.data());
}

TensorInfo& ReferenceEvaluator::Impl::info(const Tensor& op)
{
    if (auto it = tensors.find(op.get()); it != tensors.end()) return *it->second;

    auto t = std::make_unique<TensorInfo>();
    t->op = op;
    t->dtype = op->dtype;
    t->isFloat = op->dtype.isFloat();
    if (!HostBuffer::supports(op->dtype))
        throw ReferenceError("tensor '" + op->name + "' has unsupported type " + op->dtype.str());
    t->shape = shapeOf(*op);
    for (std::int64_t n : t->shape)
        t->count *= n;
    t->strides = rowMajorStrides(t->shape);

    if (op->isPlaceholder()) {
        auto in = inputs.find(op.get());
        if (in == inputs.end() || !in->second)
            throw ReferenceError("no input buffer for placeholder '" + op->name + "'");
        const HostBuffer& b = *in->second;
        if (b.dtype() != op->dtype || b.shape() != t->shape) {
            throw ReferenceError("input buffer for '" + op->name + "' is " + b.describe() +
                                 " but the placeholder is " + op->dtype.str() +
                                 formatShape(t->shape));
        }
        t->buffer = &b;
    } else {
        Scope scope;
        for (const IterVar& axis : op->axes)
            scope.slots[axis->var.get()] = scope.slotCount++;
        t->body = compile(op->body, scope);
        t->frame.assign(static_cast<std::size_t>(scope.slotCount) + 1, 0);
    }
    return *tensors.emplace(op.get(), std::move(t)).first->second;
}

std::int64_t ReferenceEvaluator::Impl::element(TensorInfo& t, std::int64_t flat)
{
    bool dense = t.count < TensorInfo::kDenseLimit;
    if (dense) {
        if (!t.denseValues) {
            t.denseValues =
                std::make_unique_for_overwrite<std::int64_t[]>(static_cast<std::size_t>(t.count));
            t.denseKnown.assign(static_cast<std::size_t>(t.count), 0);
        }
        if (t.denseKnown[static_cast<std::size_t>(flat)]) return t.denseValues[flat];
    } else if (auto it = t.sparse.find(flat); it != t.sparse.end()) {
        return it->second;
    }

    std::int64_t rest = flat;
    for (std::size_t d = 0; d < t.shape.size(); ++d) {
        t.frame[d] = rest / t.strides[d];
        rest %= t.strides[d];
    }
    std::int64_t raw =
        t.isFloat ? std::bit_cast<std::int64_t>(roundToType(t.body->f(t.frame.data()), t.dtype))
                  : wrapToType(t.body->i(t.frame.data()), t.dtype);
    if (dense) {
        t.denseValues[flat] = raw;
        t.denseKnown[static_cast<std::size_t>(flat)] = 1;
    } else {
        t.sparse.emplace(flat, raw);
    }
    return raw;
}

ReferenceEvaluator::ReferenceEvaluator(Inputs inputs, SizeValues sizes)
    : m_impl(std::make_unique<Impl>())
{
    m_impl->inputs = std::move(inputs);
    m_impl->sizes = std::move(sizes);
}

ReferenceEvaluator::~ReferenceEvaluator() = default;

namespace {

// The flat index of an element requested from outside, checked against the tensor's shape.
std::int64_t checkedFlat(const TensorInfo& t, const std::vector<std::int64_t>& index)
{
    bool ok = index.size() == t.shape.size();
    std::int64_t flat = 0;
    for (std::size_t d = 0; ok && d < index.size(); ++d) {
        ok = index[d] >= 0 && index[d] < t.shape[d];
        flat += index[d] * t.strides[d];
    }
    if (!ok) {
        throw ReferenceError("element " + formatIndex(t.op->name, index) + " requested, outside " +
                             "its shape " + formatShape(t.shape));
    }
    return flat;
}

[[noreturn]] void throwStepLimitFor(const Tensor& t, const std::vector<std::int64_t>& index)
{
    throw ReferenceStepLimit(formatIndex(t->name, index) + " needs more than " +
                             std::to_string(limits().maxReferenceStepsPerElement) +
                             " steps of the reference interpreter (the limit per element is in "
                             "Run ▸ Settings, or --max-reference-steps)");
}

} // namespace

double ReferenceEvaluator::value(const Tensor& t, const std::vector<std::int64_t>& index) const
{
    TensorInfo& info = m_impl->info(t);
    std::int64_t flat = checkedFlat(info, index);
    if (info.buffer) return info.buffer->get(flat);
    try {
        t_stepsLeft = limits().maxReferenceStepsPerElement;
        std::int64_t raw = m_impl->element(info, flat);
        return info.isFloat ? std::bit_cast<double>(raw) : static_cast<double>(raw);
    } catch (const ReferenceStepLimit&) {
        throwStepLimitFor(t, index);
    } catch (const ReferenceError& e) {
        throw ReferenceError(std::string(e.what()) + " (while computing " +
                             formatIndex(t->name, index) + ")");
    }
}

std::int64_t ReferenceEvaluator::valueInt(const Tensor& t,
                                          const std::vector<std::int64_t>& index) const
{
    TensorInfo& info = m_impl->info(t);
    std::int64_t flat = checkedFlat(info, index);
    if (info.buffer) return info.buffer->getInt(flat);
    try {
        t_stepsLeft = limits().maxReferenceStepsPerElement;
        std::int64_t raw = m_impl->element(info, flat);
        return info.isFloat ? truncToInt64(std::bit_cast<double>(raw)) : raw;
    } catch (const ReferenceStepLimit&) {
        throwStepLimitFor(t, index);
    } catch (const ReferenceError& e) {
        throw ReferenceError(std::string(e.what()) + " (while computing " +
                             formatIndex(t->name, index) + ")");
    }
}

std::vector<std::int64_t> ReferenceEvaluator::shape(const Tensor& t) const
{
    return m_impl->shapeOf(*t);
}

void ReferenceEvaluator::clearCache()
{
    m_impl->tensors.clear(); // compiled bodies too: they hold the inputs' data pointers
}

} // namespace loopscope
