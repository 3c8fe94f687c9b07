#include "runtime/Reference.h"

#include <bit>
#include <cmath>
#include <type_traits>
#include <utility>

namespace loopscope {

namespace {

// Expressions are compiled once per tensor into a tree of small nodes over a frame of int64 slots
// (loop variables, let variables; a float let variable keeps its double bits in its slot). Each
// node answers f() if its type is a float and i() if it is an integer or bool; the compiler only
// asks a node for the form its type has.
using Slots = std::int64_t*;

class Node {
public:
    virtual ~Node() = default;
    virtual double f(Slots s) const { return static_cast<double>(i(s)); }
    virtual std::int64_t i(Slots s) const { return truncToInt64(f(s)); }
};
using NodePtr = std::unique_ptr<Node>;

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

[[noreturn]] void divisionByZero()
{
    throw ReferenceError("integer division by zero");
}

// Wrapping of an int64 result to an integer type's width, decided once per node.
class Wrap {
public:
    Wrap() = default;
    explicit Wrap(DataType t)
    {
        if (t.isBool())
            m_mode = Mode::Bool;
        else if (t.bits >= 64)
            m_mode = Mode::None;
        else if (t.isUInt())
            m_mode = Mode::Unsigned;
        else
            m_mode = Mode::Signed;
        m_shift = 64 - t.bits;
    }
    std::int64_t operator()(std::int64_t v) const
    {
        switch (m_mode) {
        case Mode::None: return v;
        case Mode::Signed:
            return static_cast<std::int64_t>(static_cast<std::uint64_t>(v) << m_shift) >> m_shift;
        case Mode::Unsigned:
            return static_cast<std::int64_t>((static_cast<std::uint64_t>(v) << m_shift) >> m_shift);
        case Mode::Bool: return v != 0;
        }
        return v;
    }

private:
    enum class Mode : std::uint8_t { None, Signed, Unsigned, Bool };
    Mode m_mode = Mode::None;
    int m_shift = 0;
};

std::int64_t addWrap(std::int64_t x, std::int64_t y)
{
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) + static_cast<std::uint64_t>(y));
}
std::int64_t subWrap(std::int64_t x, std::int64_t y)
{
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y));
}
std::int64_t mulWrap(std::int64_t x, std::int64_t y)
{
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y));
}
std::int64_t truncDiv(std::int64_t x, std::int64_t y)
{
    if (y == 0) divisionByZero();
    if (y == -1) return subWrap(0, x); // INT64_MIN / -1 wraps instead of trapping
    return x / y;
}
std::int64_t truncMod(std::int64_t x, std::int64_t y)
{
    if (y == 0) divisionByZero();
    if (y == -1) return 0;
    return x % y;
}
std::int64_t floorDiv(std::int64_t x, std::int64_t y)
{
    std::int64_t q = truncDiv(x, y);
    if (truncMod(x, y) != 0 && ((x < 0) != (y < 0))) --q;
    return q;
}
std::int64_t floorMod(std::int64_t x, std::int64_t y)
{
    std::int64_t r = truncMod(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}
std::int64_t powInt(std::int64_t x, std::int64_t n)
{
    if (n < 0) return x == 1 ? 1 : x == -1 ? (n % 2 ? -1 : 1) : 0; // 1/x^|n| truncates to 0
    std::int64_t r = 1;
    while (n > 0) { // square and multiply, wrapping like repeated multiplication would
        if (n & 1) r = mulWrap(r, x);
        x = mulWrap(x, x);
        n >>= 1;
    }
    return r;
}

// ---- leaves -----------------------------------------------------------------------------------

class ConstInt final : public Node {
public:
    explicit ConstInt(std::int64_t v) : m_v(v) {}
    std::int64_t i(Slots) const override { return m_v; }

private:
    std::int64_t m_v;
};

class ConstFloat final : public Node {
public:
    explicit ConstFloat(double v) : m_v(v) {}
    double f(Slots) const override { return m_v; }

private:
    double m_v;
};

class SlotInt final : public Node {
public:
    explicit SlotInt(int slot) : m_slot(slot) {}
    std::int64_t i(Slots s) const override { return s[m_slot]; }

private:
    int m_slot;
};

class SlotFloat final : public Node {
public:
    explicit SlotFloat(int slot) : m_slot(slot) {}
    double f(Slots s) const override { return std::bit_cast<double>(s[m_slot]); }

private:
    int m_slot;
};

// ---- arithmetic -------------------------------------------------------------------------------

template <ExprKind K> std::int64_t applyInt(std::int64_t x, std::int64_t y)
{
    if constexpr (K == ExprKind::Add)
        return addWrap(x, y);
    else if constexpr (K == ExprKind::Sub)
        return subWrap(x, y);
    else if constexpr (K == ExprKind::Mul)
        return mulWrap(x, y);
    else if constexpr (K == ExprKind::Div)
        return truncDiv(x, y);
    else if constexpr (K == ExprKind::Mod)
        return truncMod(x, y);
    else if constexpr (K == ExprKind::FloorDiv)
        return floorDiv(x, y);
    else if constexpr (K == ExprKind::FloorMod)
        return floorMod(x, y);
    else if constexpr (K == ExprKind::Min)
        return x < y ? x : y;
    else if constexpr (K == ExprKind::Max)
        return x > y ? x : y;
    else if constexpr (K == ExprKind::EQ)
        return x == y;
    else if constexpr (K == ExprKind::NE)
        return x != y;
    else if constexpr (K == ExprKind::LT)
        return x < y;
    else if constexpr (K == ExprKind::LE)
        return x <= y;
    else if constexpr (K == ExprKind::GT)
        return x > y;
    else if constexpr (K == ExprKind::GE)
        return x >= y;
    else if constexpr (K == ExprKind::And)
        return x != 0 && y != 0;
    else
        return x != 0 || y != 0;
}

template <ExprKind K> double applyFloat(double x, double y)
{
    if constexpr (K == ExprKind::Add)
        return x + y;
    else if constexpr (K == ExprKind::Sub)
        return x - y;
    else if constexpr (K == ExprKind::Mul)
        return x * y;
    else if constexpr (K == ExprKind::Div)
        return x / y;
    else if constexpr (K == ExprKind::Mod)
        return std::fmod(x, y);
    else if constexpr (K == ExprKind::FloorDiv)
        return std::floor(x / y);
    else if constexpr (K == ExprKind::FloorMod)
        return x - std::floor(x / y) * y;
    else if constexpr (K == ExprKind::Min)
        return x < y ? x : y;
    else
        return x > y ? x : y;
}

template <ExprKind K> bool compareFloat(double x, double y)
{
    if constexpr (K == ExprKind::EQ)
        return x == y;
    else if constexpr (K == ExprKind::NE)
        return x != y;
    else if constexpr (K == ExprKind::LT)
        return x < y;
    else if constexpr (K == ExprKind::LE)
        return x <= y;
    else if constexpr (K == ExprKind::GT)
        return x > y;
    else if constexpr (K == ExprKind::GE)
        return x >= y;
    else if constexpr (K == ExprKind::And)
        return x != 0 && y != 0;
    else
        return x != 0 || y != 0;
}

template <ExprKind K> class BinaryInt final : public Node {
public:
    BinaryInt(NodePtr a, NodePtr b, Wrap w) : m_a(std::move(a)), m_b(std::move(b)), m_wrap(w) {}
    std::int64_t i(Slots s) const override { return m_wrap(applyInt<K>(m_a->i(s), m_b->i(s))); }

private:
    NodePtr m_a, m_b;
    Wrap m_wrap;
};

template <ExprKind K> class BinaryFloat final : public Node {
public:
    BinaryFloat(NodePtr a, NodePtr b) : m_a(std::move(a)), m_b(std::move(b)) {}
    double f(Slots s) const override { return applyFloat<K>(m_a->f(s), m_b->f(s)); }

private:
    NodePtr m_a, m_b;
};

template <ExprKind K> class CompareFloat final : public Node {
public:
    CompareFloat(NodePtr a, NodePtr b) : m_a(std::move(a)), m_b(std::move(b)) {}
    std::int64_t i(Slots s) const override { return compareFloat<K>(m_a->f(s), m_b->f(s)); }

private:
    NodePtr m_a, m_b;
};

template <ExprKind K>
NodePtr makeBinaryNode(bool floatOperands, DataType result, NodePtr a, NodePtr b)
{
    constexpr bool isComparison = K >= ExprKind::EQ;
    if (!floatOperands)
        return std::make_unique<BinaryInt<K>>(std::move(a), std::move(b), Wrap(result));
    if constexpr (isComparison)
        return std::make_unique<CompareFloat<K>>(std::move(a), std::move(b));
    else
        return std::make_unique<BinaryFloat<K>>(std::move(a), std::move(b));
}

NodePtr makeBinaryNode(ExprKind k, bool floatOperands, DataType result, NodePtr a, NodePtr b)
{
    switch (k) {
#define LS_BINARY_CASE(K)                                                                          \
    case ExprKind::K:                                                                              \
        return makeBinaryNode<ExprKind::K>(floatOperands, result, std::move(a), std::move(b));
        LS_BINARY_CASE(Add)
        LS_BINARY_CASE(Sub)
        LS_BINARY_CASE(Mul)
        LS_BINARY_CASE(Div)
        LS_BINARY_CASE(Mod)
        LS_BINARY_CASE(FloorDiv)
        LS_BINARY_CASE(FloorMod)
        LS_BINARY_CASE(Min)
        LS_BINARY_CASE(Max)
        LS_BINARY_CASE(EQ)
        LS_BINARY_CASE(NE)
        LS_BINARY_CASE(LT)
        LS_BINARY_CASE(LE)
        LS_BINARY_CASE(GT)
        LS_BINARY_CASE(GE)
        LS_BINARY_CASE(And)
        LS_BINARY_CASE(Or)
#undef LS_BINARY_CASE
    default: break;
    }
    throw ReferenceError("not a binary operation");
}

class NotInt final : public Node {
public:
    explicit NotInt(NodePtr a) : m_a(std::move(a)) {}
    std::int64_t i(Slots s) const override { return m_a->i(s) == 0; }

private:
    NodePtr m_a;
};

// Eager, as Select is: both branches are evaluated (and may fail) whatever the condition.
class SelectEager final : public Node {
public:
    SelectEager(NodePtr c, NodePtr t, NodePtr f)
        : m_c(std::move(c)), m_t(std::move(t)), m_f(std::move(f))
    {
    }
    double f(Slots s) const override
    {
        bool c = m_c->i(s) != 0;
        double t = m_t->f(s), f = m_f->f(s);
        return c ? t : f;
    }
    std::int64_t i(Slots s) const override
    {
        bool c = m_c->i(s) != 0;
        std::int64_t t = m_t->i(s), f = m_f->i(s);
        return c ? t : f;
    }

private:
    NodePtr m_c, m_t, m_f;
};

// Lazy, as if_then_else is: padding reads outside the input in the branch not taken.
class IfThenElseLazy final : public Node {
public:
    IfThenElseLazy(NodePtr c, NodePtr t, NodePtr f)
        : m_c(std::move(c)), m_t(std::move(t)), m_f(std::move(f))
    {
    }
    double f(Slots s) const override { return m_c->i(s) ? m_t->f(s) : m_f->f(s); }
    std::int64_t i(Slots s) const override { return m_c->i(s) ? m_t->i(s) : m_f->i(s); }

private:
    NodePtr m_c, m_t, m_f;
};

class CastFloatToInt final : public Node {
public:
    CastFloatToInt(NodePtr a, DataType t) : m_a(std::move(a)), m_toBool(t.isBool()), m_wrap(t) {}
    std::int64_t i(Slots s) const override
    {
        double v = m_a->f(s);
        return m_toBool ? v != 0 : m_wrap(truncToInt64(v));
    }

private:
    NodePtr m_a;
    bool m_toBool;
    Wrap m_wrap;
};

class CastIntToFloat final : public Node {
public:
    explicit CastIntToFloat(NodePtr a) : m_a(std::move(a)) {}
    double f(Slots s) const override { return static_cast<double>(m_a->i(s)); }

private:
    NodePtr m_a;
};

class CastIntToInt final : public Node {
public:
    CastIntToInt(NodePtr a, DataType t) : m_a(std::move(a)), m_wrap(t) {}
    std::int64_t i(Slots s) const override { return m_wrap(m_a->i(s)); }

private:
    NodePtr m_a;
    Wrap m_wrap;
};

class MathFloat final : public Node {
public:
    MathFloat(CallOp op, std::vector<NodePtr> args) : m_op(op), m_args(std::move(args)) {}
    double f(Slots s) const override
    {
        double x = m_args[0]->f(s);
        switch (m_op) {
        case CallOp::Exp: return std::exp(x);
        case CallOp::Log: return std::log(x);
        case CallOp::Sqrt: return std::sqrt(x);
        case CallOp::Tanh: return std::tanh(x);
        case CallOp::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
        case CallOp::Fabs: return std::fabs(x);
        case CallOp::Pow: return std::pow(x, m_args[1]->f(s));
        case CallOp::Floor: return std::floor(x);
        case CallOp::Ceil: return std::ceil(x);
        default: return x;
        }
    }

private:
    CallOp m_op;
    std::vector<NodePtr> m_args;
};

// Math on integers: abs, pow, floor and ceil are exact; the others go through double.
class MathInt final : public Node {
public:
    MathInt(CallOp op, std::vector<NodePtr> args, DataType t)
        : m_op(op), m_args(std::move(args)), m_wrap(t)
    {
    }
    std::int64_t i(Slots s) const override
    {
        std::int64_t x = m_args[0]->i(s);
        switch (m_op) {
        case CallOp::Fabs: return m_wrap(x < 0 ? subWrap(0, x) : x);
        case CallOp::Pow: return m_wrap(powInt(x, m_args[1]->i(s)));
        case CallOp::Floor:
        case CallOp::Ceil: return x;
        default: break;
        }
        double v = static_cast<double>(x);
        switch (m_op) {
        case CallOp::Exp: v = std::exp(v); break;
        case CallOp::Log: v = std::log(v); break;
        case CallOp::Sqrt: v = std::sqrt(v); break;
        case CallOp::Tanh: v = std::tanh(v); break;
        case CallOp::Sigmoid: v = 1.0 / (1.0 + std::exp(-v)); break;
        default: break;
        }
        return m_wrap(truncToInt64(v));
    }

private:
    CallOp m_op;
    std::vector<NodePtr> m_args;
    Wrap m_wrap;
};

class LetInt final : public Node {
public:
    LetInt(int slot, bool floatValue, NodePtr value, NodePtr body)
        : m_slot(slot), m_floatValue(floatValue), m_value(std::move(value)), m_body(std::move(body))
    {
    }
    double f(Slots s) const override
    {
        bind(s);
        return m_body->f(s);
    }
    std::int64_t i(Slots s) const override
    {
        bind(s);
        return m_body->i(s);
    }

private:
    void bind(Slots s) const
    {
        s[m_slot] = m_floatValue ? std::bit_cast<std::int64_t>(m_value->f(s)) : m_value->i(s);
    }
    int m_slot;
    bool m_floatValue;
    NodePtr m_value, m_body;
};

// ---- tensors ----------------------------------------------------------------------------------

// A tensor as the interpreter knows it: its concrete shape and, for a placeholder, its buffer;
// for a compute, its compiled body, the frame it runs in and its memoized elements.
struct TensorInfo {
    Tensor op; // held, so that no other operation can reuse the address the cache is keyed by
    DataType dtype;
    bool isFloat = false;
    std::vector<std::int64_t> shape, strides;
    std::int64_t count = 1;

    const HostBuffer* buffer = nullptr;

    NodePtr body;
    std::vector<std::int64_t> frame; // a tensor's body is never re-entered (the graph is a DAG)

    // Memoized elements: a double's bits for floats, the value for integers.
    static constexpr std::int64_t kDenseLimit = std::int64_t{1} << 22;
    std::unique_ptr<std::int64_t[]> denseValues;
    std::vector<std::uint8_t> denseKnown;
    std::unordered_map<std::int64_t, std::int64_t> sparse;
};

// One dimension of a load: a plain loop variable (the common case) is read from its slot directly.
struct LoadDim {
    int slot = -1;
    NodePtr index;
    std::int64_t extent = 0, stride = 0;

    std::int64_t eval(Slots s) const { return slot >= 0 ? s[slot] : index->i(s); }
};

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

// What the compiler knows where it is in a body: the slots of the variables in scope, and the
// loop variable of the innermost reduction loop (whose loads are worth prefetching).
struct Scope {
    std::unordered_map<const VarNode*, int> slots;
    int slotCount = 0;
    int innermostSlot = -1;
};

} // namespace

struct ReferenceEvaluator::Impl {
    Inputs inputs;
    SizeValues sizes;
    std::unordered_map<const OperationNode*, std::unique_ptr<TensorInfo>> tensors;

    TensorInfo& info(const Tensor& op);
    std::int64_t element(TensorInfo& t, std::int64_t flat);
    NodePtr compile(const Expr& e, Scope& scope);
    std::int64_t evalConstant(const Expr& e);
    std::vector<std::int64_t> shapeOf(const OperationNode& op);
};

namespace {

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
    struct Axis {
        int slot;
        NodePtr min, extent;
    };

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
        } else if (m_condition) {
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

std::vector<std::int64_t> rowMajorStrides(const std::vector<std::int64_t>& shape)
{
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (std::size_t d = shape.size(); d-- > 1;)
        strides[d - 1] = strides[d] * shape[d];
    return strides;
}

std::string unsupported(const std::string& what)
{
    return what + " is not supported by the reference interpreter (it evaluates tensor-expression "
                  "definitions, not lowered code)";
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
        if (type.isFloat()) return std::make_unique<ConstFloat>(static_cast<double>(v));
        return std::make_unique<ConstInt>(wrapToType(v, type));
    }
    case ExprKind::FloatImm: {
        double v = e.as<FloatImmNode>()->value;
        if (type.isFloat()) return std::make_unique<ConstFloat>(v);
        return std::make_unique<ConstInt>(wrapToType(truncToInt64(v), type));
    }
    case ExprKind::Var: {
        const VarNode* v = e.as<VarNode>();
        if (auto it = slots.find(v); it != slots.end()) {
            if (type.isFloat()) return std::make_unique<SlotFloat>(it->second);
            return std::make_unique<SlotInt>(it->second);
        }
        if (auto it = sizes.find(v); it != sizes.end()) {
            if (type.isFloat())
                return std::make_unique<ConstFloat>(static_cast<double>(it->second));
            return std::make_unique<ConstInt>(wrapToType(it->second, type));
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
    case ExprKind::Not: return std::make_unique<NotInt>(sub(e.as<NotNode>()->a));
    case ExprKind::Select: {
        auto* s = e.as<SelectNode>();
        return std::make_unique<SelectEager>(sub(s->cond), sub(s->t), sub(s->f));
    }
    case ExprKind::Cast: {
        auto* c = e.as<CastNode>();
        DataType from = c->value.type();
        NodePtr v = sub(c->value);
        if (from.isFloat() && type.isFloat()) return v; // intermediates keep double precision
        if (from.isFloat()) return std::make_unique<CastFloatToInt>(std::move(v), type);
        if (type.isFloat()) return std::make_unique<CastIntToFloat>(std::move(v));
        return std::make_unique<CastIntToInt>(std::move(v), type);
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
            return std::make_unique<IfThenElseLazy>(sub(c->args[0]), sub(c->args[1]),
                                                    sub(c->args[2]));
        std::vector<NodePtr> args;
        for (const Expr& a : c->args) {
            // Math runs in the call's type: convert arguments that differ (e.g. int ** float).
            NodePtr n = sub(a);
            if (a.type().isFloat() != type.isFloat()) {
                if (type.isFloat())
                    n = std::make_unique<CastIntToFloat>(std::move(n));
                else
                    n = std::make_unique<CastFloatToInt>(std::move(n), DataType::int64());
            }
            args.push_back(std::move(n));
        }
        if (type.isFloat()) return std::make_unique<MathFloat>(c->op, std::move(args));
        return std::make_unique<MathInt>(c->op, std::move(args), type);
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
        if (t.op->isCompute())
            return std::make_unique<ComputeLoad>(*this, t, std::move(dims), streamStride);
        return makePlaceholderLoad(t, std::move(dims), streamStride);
    }
    case ExprKind::Let: {
        auto* l = e.as<LetNode>();
        NodePtr value = sub(l->value);
        int slot = scope.slotCount++;
        auto saved = slots.find(l->var.get()) != slots.end() ? slots[l->var.get()] : -1;
        slots[l->var.get()] = slot;
        NodePtr body = sub(l->body);
        if (saved >= 0)
            slots[l->var.get()] = saved;
        else
            slots.erase(l->var.get());
        return std::make_unique<LetInt>(slot, l->value.type().isFloat(), std::move(value),
                                        std::move(body));
    }
    case ExprKind::Reduce: {
        auto* r = e.as<ReduceNode>();
        std::vector<Reduction::Axis> axes;
        std::vector<std::pair<const VarNode*, int>> saved;
        for (const IterVar& iv : r->axes) {
            // Domains are compiled outside the axes they bound.
            Reduction::Axis axis{scope.slotCount++, sub(iv->dom.min), sub(iv->dom.extent)};
            axes.push_back(std::move(axis));
        }
        for (std::size_t k = 0; k < r->axes.size(); ++k) {
            const VarNode* v = r->axes[k]->var.get();
            auto it = slots.find(v);
            saved.emplace_back(v, it != slots.end() ? it->second : -1);
            slots[v] = axes[k].slot;
        }
        int outerInnermost = scope.innermostSlot;
        if (!axes.empty()) scope.innermostSlot = axes.back().slot;
        NodePtr source = sub(r->source);
        NodePtr condition = r->condition.defined() ? sub(r->condition) : nullptr;
        scope.innermostSlot = outerInnermost;
        for (auto it = saved.rbegin(); it != saved.rend(); ++it) {
            if (it->second >= 0)
                slots[it->first] = it->second;
            else
                slots.erase(it->first);
        }
        return std::make_unique<Reduction>(r->op, type, std::move(axes), std::move(source),
                                           std::move(condition));
    }
    case ExprKind::StringImm: throw ReferenceError(unsupported("a string constant"));
    case ExprKind::BufferLoad: throw ReferenceError(unsupported("a buffer load"));
    case ExprKind::Ramp: throw ReferenceError(unsupported("a ramp"));
    case ExprKind::Broadcast: throw ReferenceError(unsupported("a broadcast"));
    }
    throw ReferenceError(unsupported("this expression"));
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

} // namespace

double ReferenceEvaluator::value(const Tensor& t, const std::vector<std::int64_t>& index) const
{
    TensorInfo& info = m_impl->info(t);
    std::int64_t flat = checkedFlat(info, index);
    if (info.buffer) return info.buffer->get(flat);
    try {
        std::int64_t raw = m_impl->element(info, flat);
        return info.isFloat ? std::bit_cast<double>(raw) : static_cast<double>(raw);
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
        std::int64_t raw = m_impl->element(info, flat);
        return info.isFloat ? truncToInt64(std::bit_cast<double>(raw)) : raw;
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
