// The reference interpreter's parts (internal to core/runtime). Expressions are compiled once per
// tensor into trees of small nodes: constants, arithmetic, casts, math and lets
// (ReferenceExprNodes.cpp), reads of tensors and reductions (ReferenceTensorNodes.cpp); the
// compiler from expressions to nodes is ReferenceCompiler.cpp; the evaluator's tensors, memoized
// elements and public face are Reference.cpp.
#pragma once

#include "runtime/Reference.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace loopscope {

namespace reference {

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

// The steps left to the element being evaluated (ReferenceEvaluator::value sets it from
// Limits::maxReferenceStepsPerElement): each reduction charges its innermost loop's iterations
// before it runs them.
extern thread_local std::int64_t t_stepsLeft;
[[noreturn]] void throwStepLimit();
inline void chargeSteps(std::int64_t n)
{
    t_stepsLeft -= n;
    if (t_stepsLeft < 0) throwStepLimit();
}

// `name[i, j]` and `[m, n]`, for messages.
std::string formatIndex(const std::string& name, const std::vector<std::int64_t>& index);
std::string formatShape(const std::vector<std::int64_t>& shape);

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

inline std::int64_t addWrap(std::int64_t x, std::int64_t y)
{
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) + static_cast<std::uint64_t>(y));
}
inline std::int64_t subWrap(std::int64_t x, std::int64_t y)
{
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y));
}
inline std::int64_t mulWrap(std::int64_t x, std::int64_t y)
{
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y));
}

// ---- constants, arithmetic, casts, math, lets (ReferenceExprNodes.cpp) ----

NodePtr makeConstInt(std::int64_t v);
NodePtr makeConstFloat(double v);
NodePtr makeSlotInt(int slot);
NodePtr makeSlotFloat(int slot);
// An operation on integers, wrapped to the `result` type, or on floats (whose comparisons give
// integers).
NodePtr makeBinaryNode(ExprKind k, bool floatOperands, DataType result, NodePtr a, NodePtr b);
NodePtr makeNot(NodePtr a);
// Eager, as Select is: both branches are evaluated (and may fail) whatever the condition.
NodePtr makeSelect(NodePtr c, NodePtr t, NodePtr f);
// Lazy, as if_then_else is: padding reads outside the input in the branch not taken.
NodePtr makeIfThenElse(NodePtr c, NodePtr t, NodePtr f);
NodePtr makeCastFloatToInt(NodePtr a, DataType t);
NodePtr makeCastIntToFloat(NodePtr a);
NodePtr makeCastIntToInt(NodePtr a, DataType t);
NodePtr makeMathFloat(CallOp op, std::vector<NodePtr> args);
// Math on integers: abs, pow, floor and ceil are exact; the others go through double.
NodePtr makeMathInt(CallOp op, std::vector<NodePtr> args, DataType t);
// Binds `slot` to `value` (a float's double bits when `floatValue`), then evaluates `body`.
NodePtr makeLet(int slot, bool floatValue, NodePtr value, NodePtr body);

// ---- tensors ----

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

// What the compiler knows where it is in a body: the slots of the variables in scope, and the
// loop variable of the innermost reduction loop (whose loads are worth prefetching).
struct Scope {
    std::unordered_map<const VarNode*, int> slots;
    int slotCount = 0;
    int innermostSlot = -1;
};

// ---- reads of tensors, reductions (ReferenceTensorNodes.cpp) ----

// A read of an input buffer. `streamStride`: elements per step of the innermost reduction loop.
NodePtr makePlaceholderLoad(const TensorInfo& t, std::vector<LoadDim> dims,
                            std::int64_t streamStride);
// A read of a compute: its memoized element, computed on first use.
NodePtr makeComputeLoad(ReferenceEvaluator::Impl& impl, TensorInfo& t, std::vector<LoadDim> dims,
                        std::int64_t streamStride);

struct ReductionAxis {
    int slot;
    NodePtr min, extent;
};
// A reduction: nested loops over its axes, the innermost one tight.
NodePtr makeReduction(ReduceOp op, DataType t, std::vector<ReductionAxis> axes, NodePtr source,
                      NodePtr condition);

} // namespace reference

struct ReferenceEvaluator::Impl {
    Inputs inputs;
    SizeValues sizes;
    std::unordered_map<const OperationNode*, std::unique_ptr<reference::TensorInfo>> tensors;

    reference::TensorInfo& info(const Tensor& op);
    std::int64_t element(reference::TensorInfo& t, std::int64_t flat);
    reference::NodePtr compile(const Expr& e, reference::Scope& scope);
    std::int64_t evalConstant(const Expr& e);
    std::vector<std::int64_t> shapeOf(const OperationNode& op);
};

} // namespace loopscope
