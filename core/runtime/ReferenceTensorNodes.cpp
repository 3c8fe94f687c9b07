// The reference interpreter's reads of tensors (input buffers; computes' memoized elements), with
// bounds checks and prefetches ahead of strided reads, and its reductions.
#include "runtime/ReferenceInternal.h"

#include <bit>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace loopscope::reference {

namespace {

[[noreturn]] void outOfBounds(const TensorInfo& t, const std::vector<LoadDim>& dims, Slots s)
{
    std::vector<std::int64_t> index;
    for (const LoadDim& d : dims)
        index.push_back(d.eval(s));
    throw ReferenceError("read of " + formatIndex(t.op->name, index) + " is outside its shape " +
                         formatShape(t.shape));
}

std::int64_t flatOf(const TensorInfo& t, const std::vector<LoadDim>& dims, Slots s)
{
    std::int64_t flat = 0;
    for (const LoadDim& d : dims) {
        std::int64_t v = d.eval(s);
        if (v < 0 || v >= d.extent) outOfBounds(t, dims, s);
        flat += v * d.stride;
    }
    return flat;
}

// Reads that stride through memory as the innermost reduction loop advances (B[k, j] in a matmul)
// prefetch a few iterations ahead: the interpreter's loop is too long for the CPU to overlap those
// cache misses by itself. The offset is in bytes, 0 when consecutive reads share cache lines.
std::int64_t prefetchOffset(std::int64_t streamStride, std::size_t elementBytes)
{
    constexpr std::int64_t kDistance = 16; // iterations ahead
    constexpr std::int64_t kLine = 64;
    std::int64_t bytes = streamStride * static_cast<std::int64_t>(elementBytes);
    return bytes >= kLine || bytes <= -kLine ? bytes * kDistance : 0;
}

void prefetchAhead([[maybe_unused]] const void* p, [[maybe_unused]] std::int64_t offset)
{
#if defined(__GNUC__)
    // Integer arithmetic: the address may lie past the array, which a prefetch tolerates.
    if (offset != 0) {
        auto address = reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(offset);
        __builtin_prefetch(reinterpret_cast<const void*>(address));
    }
#endif
}

// A read of an input buffer; T is the element storage (float16 as its uint16 bits).
template <typename T, bool kHalf = false> class PlaceholderLoad final : public Node {
public:
    PlaceholderLoad(const TensorInfo& t, std::vector<LoadDim> dims, std::int64_t streamStride)
        : m_tensor(t), m_data(static_cast<const T*>(t.buffer->data())), m_dims(std::move(dims)),
          m_ahead(prefetchOffset(streamStride, sizeof(T)))
    {
    }
    double f(Slots s) const override
    {
        std::int64_t flat = flatOf(m_tensor, m_dims, s);
        prefetchAhead(m_data + flat, m_ahead);
        if constexpr (kHalf)
            return doubleFromHalf(m_data[flat]);
        else
            return static_cast<double>(m_data[flat]);
    }
    std::int64_t i(Slots s) const override
    {
        if constexpr (kHalf || std::is_floating_point_v<T>) {
            return truncToInt64(f(s));
        } else {
            std::int64_t flat = flatOf(m_tensor, m_dims, s);
            prefetchAhead(m_data + flat, m_ahead);
            return static_cast<std::int64_t>(m_data[flat]);
        }
    }

private:
    const TensorInfo& m_tensor;
    const T* m_data;
    std::vector<LoadDim> m_dims;
    std::int64_t m_ahead;
};

// A read of a compute: its memoized element, computed on first use.
class ComputeLoad final : public Node {
public:
    ComputeLoad(ReferenceEvaluator::Impl& impl, TensorInfo& t, std::vector<LoadDim> dims,
                std::int64_t streamStride)
        : m_impl(impl), m_tensor(t), m_dims(std::move(dims)),
          m_valuesAhead(prefetchOffset(streamStride, sizeof(std::int64_t))),
          m_knownAhead(prefetchOffset(streamStride, sizeof(std::uint8_t)))
    {
    }
    double f(Slots s) const override
    {
        std::int64_t raw = fetch(s);
        return m_tensor.isFloat ? std::bit_cast<double>(raw) : static_cast<double>(raw);
    }
    std::int64_t i(Slots s) const override
    {
        std::int64_t raw = fetch(s);
        return m_tensor.isFloat ? truncToInt64(std::bit_cast<double>(raw)) : raw;
    }

private:
    std::int64_t fetch(Slots s) const
    {
        std::int64_t flat = flatOf(m_tensor, m_dims, s);
        if (const std::int64_t* values = m_tensor.denseValues.get()) { // the common, fast case
            const std::uint8_t* known = m_tensor.denseKnown.data();
            prefetchAhead(values + flat, m_valuesAhead);
            prefetchAhead(known + flat, m_knownAhead);
            if (known[flat]) return values[flat];
        }
        return m_impl.element(m_tensor, flat);
    }

    ReferenceEvaluator::Impl& m_impl;
    TensorInfo& m_tensor;
    std::vector<LoadDim> m_dims;
    std::int64_t m_valuesAhead, m_knownAhead;
};

// A reduction: nested loops over its axes, the innermost one tight.
class Reduction final : public Node {
public:
    using Axis = ReductionAxis;

    Reduction(ReduceOp op, DataType t, std::vector<Axis> axes, NodePtr source, NodePtr condition)
        : m_op(op), m_wrap(t), m_axes(std::move(axes)), m_source(std::move(source)),
          m_condition(std::move(condition))
    {
        // The identity the lowered init stores (for float max and min the type's lowest and
        // highest finite values, as in TVM), so that empty reductions agree with compiled code.
        Expr identity = reduceIdentity(op, t);
        if (auto* f = identity.as<FloatImmNode>())
            m_identityFloat = f->value;
        else
            m_identityInt = constIntOr(identity, 0);
    }

    double f(Slots s) const override
    {
        double acc = m_identityFloat;
        switch (m_op) {
        case ReduceOp::Sum: loop<ReduceOp::Sum, double>(0, s, acc); break;
        case ReduceOp::Prod: loop<ReduceOp::Prod, double>(0, s, acc); break;
        case ReduceOp::Max: loop<ReduceOp::Max, double>(0, s, acc); break;
        case ReduceOp::Min: loop<ReduceOp::Min, double>(0, s, acc); break;
        }
        return acc;
    }

    std::int64_t i(Slots s) const override
    {
        std::int64_t acc = m_identityInt;
        switch (m_op) {
        case ReduceOp::Sum: loop<ReduceOp::Sum, std::int64_t>(0, s, acc); break;
        case ReduceOp::Prod: loop<ReduceOp::Prod, std::int64_t>(0, s, acc); break;
        case ReduceOp::Max: loop<ReduceOp::Max, std::int64_t>(0, s, acc); break;
        case ReduceOp::Min: loop<ReduceOp::Min, std::int64_t>(0, s, acc); break;
        }
        return acc;
    }

private:
    template <ReduceOp Op, typename T> T combine(T acc, T x) const
    {
        if constexpr (std::is_same_v<T, double>) {
            if constexpr (Op == ReduceOp::Sum)
                return acc + x;
            else if constexpr (Op == ReduceOp::Prod)
                return acc * x;
            else if constexpr (Op == ReduceOp::Max)
                return x > acc ? x : acc;
            else
                return x < acc ? x : acc;
        } else {
            if constexpr (Op == ReduceOp::Sum)
                return m_wrap(addWrap(acc, x));
            else if constexpr (Op == ReduceOp::Prod)
                return m_wrap(mulWrap(acc, x));
            else if constexpr (Op == ReduceOp::Max)
                return x > acc ? x : acc;
            else
                return x < acc ? x : acc;
        }
    }

    template <typename T> T source(Slots s) const
    {
        if constexpr (std::is_same_v<T, double>)
            return m_source->f(s);
        else
            return m_source->i(s);
    }

    template <ReduceOp Op, typename T> void loop(std::size_t d, Slots s, T& acc) const
    {
        if (m_axes.empty()) { // a reduction over nothing: the source, once
            chargeSteps(1);
            if (!m_condition || m_condition->i(s)) acc = combine<Op, T>(acc, source<T>(s));
            return;
        }
        const Axis& axis = m_axes[d];
        std::int64_t lo = axis.min->i(s);
        std::int64_t hi = lo + axis.extent->i(s);
        std::int64_t& v = s[axis.slot];
        if (d + 1 < m_axes.size()) {
            for (v = lo; v < hi; ++v)
                loop<Op, T>(d + 1, s, acc);
            return;
        }
        chargeSteps(hi > lo ? hi - lo : 0);
        if (m_condition) {
            for (v = lo; v < hi; ++v)
                if (m_condition->i(s)) acc = combine<Op, T>(acc, source<T>(s));
        } else {
            for (v = lo; v < hi; ++v)
                acc = combine<Op, T>(acc, source<T>(s));
        }
    }

    ReduceOp m_op;
    Wrap m_wrap;
    double m_identityFloat = 0;
    std::int64_t m_identityInt = 0;
    std::vector<Axis> m_axes;
    NodePtr m_source, m_condition;
};

} // namespace

NodePtr makePlaceholderLoad(const TensorInfo& t, std::vector<LoadDim> dims, std::int64_t stream)
{
    switch (t.dtype.code) {
    case DataType::Float:
        if (t.dtype.bits == 64)
            return std::make_unique<PlaceholderLoad<double>>(t, std::move(dims), stream);
        if (t.dtype.bits == 32)
            return std::make_unique<PlaceholderLoad<float>>(t, std::move(dims), stream);
        return std::make_unique<PlaceholderLoad<std::uint16_t, true>>(t, std::move(dims), stream);
    case DataType::Int:
        if (t.dtype.bits == 8)
            return std::make_unique<PlaceholderLoad<std::int8_t>>(t, std::move(dims), stream);
        if (t.dtype.bits == 16)
            return std::make_unique<PlaceholderLoad<std::int16_t>>(t, std::move(dims), stream);
        if (t.dtype.bits == 32)
            return std::make_unique<PlaceholderLoad<std::int32_t>>(t, std::move(dims), stream);
        return std::make_unique<PlaceholderLoad<std::int64_t>>(t, std::move(dims), stream);
    default: return std::make_unique<PlaceholderLoad<std::uint8_t>>(t, std::move(dims), stream);
    }
}

NodePtr makeComputeLoad(ReferenceEvaluator::Impl& impl, TensorInfo& t, std::vector<LoadDim> dims,
                        std::int64_t streamStride)
{
    return std::make_unique<ComputeLoad>(impl, t, std::move(dims), streamStride);
}

NodePtr makeReduction(ReduceOp op, DataType t, std::vector<ReductionAxis> axes, NodePtr source,
                      NodePtr condition)
{
    return std::make_unique<Reduction>(op, t, std::move(axes), std::move(source),
                                       std::move(condition));
}

} // namespace loopscope::reference
