// The reference interpreter's nodes for constants, variables' slots, arithmetic (integers wrapped
// to their type, as compiled code wraps), comparisons, selects, casts, math and lets.
#include "runtime/ReferenceInternal.h"

#include <bit>
#include <cmath>
#include <utility>

namespace loopscope::reference {

namespace {

[[noreturn]] void divisionByZero()
{
    throw ReferenceError("integer division by zero");
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

} // namespace

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

namespace {

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
        case CallOp::Nearbyint: return std::nearbyint(x);
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
        case CallOp::Ceil:
        case CallOp::Nearbyint: return x;
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

} // namespace

NodePtr makeConstInt(std::int64_t v)
{
    return std::make_unique<ConstInt>(v);
}
NodePtr makeConstFloat(double v)
{
    return std::make_unique<ConstFloat>(v);
}
NodePtr makeSlotInt(int slot)
{
    return std::make_unique<SlotInt>(slot);
}
NodePtr makeSlotFloat(int slot)
{
    return std::make_unique<SlotFloat>(slot);
}
NodePtr makeNot(NodePtr a)
{
    return std::make_unique<NotInt>(std::move(a));
}
NodePtr makeSelect(NodePtr c, NodePtr t, NodePtr f)
{
    return std::make_unique<SelectEager>(std::move(c), std::move(t), std::move(f));
}
NodePtr makeIfThenElse(NodePtr c, NodePtr t, NodePtr f)
{
    return std::make_unique<IfThenElseLazy>(std::move(c), std::move(t), std::move(f));
}
NodePtr makeCastFloatToInt(NodePtr a, DataType t)
{
    return std::make_unique<CastFloatToInt>(std::move(a), t);
}
NodePtr makeCastIntToFloat(NodePtr a)
{
    return std::make_unique<CastIntToFloat>(std::move(a));
}
NodePtr makeCastIntToInt(NodePtr a, DataType t)
{
    return std::make_unique<CastIntToInt>(std::move(a), t);
}
NodePtr makeMathFloat(CallOp op, std::vector<NodePtr> args)
{
    return std::make_unique<MathFloat>(op, std::move(args));
}
NodePtr makeMathInt(CallOp op, std::vector<NodePtr> args, DataType t)
{
    return std::make_unique<MathInt>(op, std::move(args), t);
}
NodePtr makeLet(int slot, bool floatValue, NodePtr value, NodePtr body)
{
    return std::make_unique<LetInt>(slot, floatValue, std::move(value), std::move(body));
}

} // namespace loopscope::reference
