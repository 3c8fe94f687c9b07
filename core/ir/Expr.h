// Expressions shared by tensor expressions (TE) and the lowered loop program (TIR): immutable nodes
// behind a small handle, so "did a pass change this" is a pointer comparison.
#pragma once

#include "ir/DataType.h"
#include "ir/IRNodes.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loopscope {

// Generated from the node list (ir/IRNodes.h): leaves, the binary operators, the other nodes.
enum class ExprKind : std::uint8_t {
    LS_IR_LEAF_EXPRS(LS_IR_ENUMERATOR) LS_IR_BINARY_EXPRS(LS_IR_ENUMERATOR)
        LS_IR_NODE_EXPRS(LS_IR_ENUMERATOR)
};

struct ExprNode {
    ExprKind kind;
    DataType type;

protected:
    ExprNode(ExprKind k, DataType t) : kind(k), type(t) {}
    ~ExprNode() = default;
};

// A shared, immutable expression; null when default-constructed.
class Expr {
public:
    Expr() = default;
    Expr(std::shared_ptr<const ExprNode> node) : m_node(std::move(node)) {}
    template <typename T> Expr(std::shared_ptr<T> node) : m_node(std::move(node)) {}
    Expr(int value); // an int32 constant, so that `x + 1` reads naturally

    const ExprNode* get() const { return m_node.get(); }
    const ExprNode* operator->() const { return m_node.get(); }
    bool defined() const { return m_node != nullptr; }
    ExprKind kind() const { return m_node->kind; }
    DataType type() const { return m_node->type; }
    bool same(const Expr& other) const { return m_node == other.m_node; }
    const std::shared_ptr<const ExprNode>& node() const { return m_node; }

    // The node as T, or nullptr if it is of another kind.
    template <typename T> const T* as() const
    {
        return m_node && T::isKind(m_node->kind) ? static_cast<const T*>(m_node.get()) : nullptr;
    }

private:
    std::shared_ptr<const ExprNode> m_node;
};

struct IntImmNode : ExprNode {
    std::int64_t value;
    IntImmNode(DataType t, std::int64_t v) : ExprNode(ExprKind::IntImm, t), value(v) {}
    static bool isKind(ExprKind k) { return k == ExprKind::IntImm; }
};

struct FloatImmNode : ExprNode {
    double value;
    FloatImmNode(DataType t, double v) : ExprNode(ExprKind::FloatImm, t), value(v) {}
    static bool isKind(ExprKind k) { return k == ExprKind::FloatImm; }
};

struct StringImmNode : ExprNode {
    std::string value;
    explicit StringImmNode(std::string v)
        : ExprNode(ExprKind::StringImm, DataType::handle()), value(std::move(v))
    {
    }
    static bool isKind(ExprKind k) { return k == ExprKind::StringImm; }
};

// A variable is its node: two variables with the same name are different variables.
struct VarNode : ExprNode {
    std::string name;
    VarNode(std::string n, DataType t) : ExprNode(ExprKind::Var, t), name(std::move(n)) {}
    static bool isKind(ExprKind k) { return k == ExprKind::Var; }
};

class Var : public Expr {
public:
    Var() = default;
    explicit Var(std::string name, DataType type = DataType::int32());
    explicit Var(std::shared_ptr<const VarNode> node) : Expr(std::move(node)) {}
    const VarNode* get() const { return static_cast<const VarNode*>(Expr::get()); }
    const VarNode* operator->() const { return get(); }
    const std::string& name() const { return get()->name; }
};

struct BinaryNode : ExprNode {
    Expr a, b;
    BinaryNode(ExprKind k, DataType t, Expr x, Expr y)
        : ExprNode(k, t), a(std::move(x)), b(std::move(y))
    {
    }
    static bool isKind(ExprKind k) { return k >= ExprKind::Add && k <= ExprKind::Or; }
};

struct NotNode : ExprNode {
    Expr a;
    explicit NotNode(Expr x) : ExprNode(ExprKind::Not, x.type()), a(std::move(x)) {}
    static bool isKind(ExprKind k) { return k == ExprKind::Not; }
};

// Eager select (both sides evaluated); tvm.tir.if_then_else is a Call with lazy branches.
struct SelectNode : ExprNode {
    Expr cond, t, f;
    SelectNode(Expr c, Expr x, Expr y)
        : ExprNode(ExprKind::Select, x.type()), cond(std::move(c)), t(std::move(x)), f(std::move(y))
    {
    }
    static bool isKind(ExprKind k) { return k == ExprKind::Select; }
};

struct CastNode : ExprNode {
    Expr value;
    CastNode(DataType t, Expr v) : ExprNode(ExprKind::Cast, t), value(std::move(v)) {}
    static bool isKind(ExprKind k) { return k == ExprKind::Cast; }
};

enum class CallOp : std::uint8_t {
    Exp,
    Log,
    Sqrt,
    Tanh,
    Sigmoid,
    Fabs,
    Pow,
    Floor,
    Ceil,
    Nearbyint,  // to the nearest integer, halves to even (ONNX's QuantizeLinear rounding)
    IfThenElse, // lazy: only the taken branch is evaluated (needed for padding reads)
    Likely,     // a branch hint on guard conditions
    // GPU only. tvm_thread_allreduce(uint32 1, value, cond, result[0], threads...): the reduction
    // of `value` (where `cond`) over the given threads of each group, stored in every thread's
    // `result`; inside an attribute "reduce_scope" naming the reducer. TE lowering makes it;
    // lower/gpu/ThreadAllreduce turns it into shuffles or shared memory.
    ThreadAllreduce,
    // GPU only, from lower/gpu/ThreadAllreduce: a warp's lanes exchanging values, TVM's
    // tvm_warp_activemask(), tvm_warp_shuffle_down(mask, value, delta, width, warp size) and
    // tvm_warp_shuffle(mask, value, lane, width, warp size).
    WarpActiveMask,
    WarpShuffleDown,
    WarpShuffle,
    // What tensor intrinsics are written with (tensorize). reinterpret(x): x's bits as the call's
    // type (as many bits). call_llvm_pure_intrin / call_llvm_intrin(name, uint32 signature
    // count, args...): the LLVM intrinsic of that name (a StringImm), without or with side
    // effects. call_extern / call_pure_extern(name, args...): a C function. tvm_access_ptr(
    // type_annotation(), data, offset, extent, rw_mask): the address of a buffer's element
    // `offset` (of the annotation's type). type_annotation(): no value, its type only.
    Reinterpret,
    LlvmPureIntrin,
    LlvmIntrin,
    CallExtern,
    CallPureExtern,
    AccessPtr,
    TypeAnnotation,
    // tvm_tuple(...): a list of values, as TVM's buffer_bind_scope holds a region (lowering only).
    TvmTuple,
};
const char* callOpName(CallOp op); // "exp", "if_then_else", ... as TVMScript prints after "T."
// A tensor intrinsic's call (reinterpret ... tvm_tuple): its type is its own, not its arguments',
// and only code generation for the CPU knows it.
bool isIntrinsicCall(CallOp op);

struct CallNode : ExprNode {
    CallOp op;
    std::vector<Expr> args;
    CallNode(DataType t, CallOp o, std::vector<Expr> a)
        : ExprNode(ExprKind::Call, t), op(o), args(std::move(a))
    {
    }
    static bool isKind(ExprKind k) { return k == ExprKind::Call; }
};

struct Range {
    Expr min, extent;
};

enum class IterKind : std::uint8_t { DataPar, Reduce, Opaque };

// An iteration variable of a tensor or schedule: the loop variable with its domain. Immutable;
// what a schedule does with it (split, vectorize, ...) lives in the schedule.
struct IterVarNode {
    Var var;
    Range dom;
    IterKind kind = IterKind::DataPar;
    const std::string& name() const { return var.name(); }
};
using IterVar = std::shared_ptr<const IterVarNode>;
IterVar makeIterVar(std::string name, Range dom, IterKind kind);

struct OperationNode;
using Tensor = std::shared_ptr<const OperationNode>; // one output per operation

// A read of a tensor at multi-dimensional indices (the TE form, before buffers exist).
struct TensorLoadNode : ExprNode {
    Tensor tensor;
    std::vector<Expr> indices;
    TensorLoadNode(DataType t, Tensor ten, std::vector<Expr> idx)
        : ExprNode(ExprKind::TensorLoad, t), tensor(std::move(ten)), indices(std::move(idx))
    {
    }
    static bool isKind(ExprKind k) { return k == ExprKind::TensorLoad; }
};

// A region of memory: the data pointer and the shape it is viewed with.
struct BufferNode {
    std::string name;
    DataType dtype;
    std::vector<Expr> shape;
    Var data; // the storage; several buffers (a tensor and its flattened view) may share it
    std::string scope = "global";
    // A tensor intrinsic's declared buffer (tvm.tir.decl_buffer) says more: its strides (empty:
    // compact), where it starts in its storage (elements; a variable the binding sets) and what
    // that start must be a multiple of (0: anything).
    std::vector<Expr> strides;
    Expr elemOffset;
    int offsetFactor = 0;
    int dataAlignment = -1;
};
using Buffer = std::shared_ptr<const BufferNode>;

struct BufferLoadNode : ExprNode {
    Buffer buffer;
    std::vector<Expr> indices;
    BufferLoadNode(DataType t, Buffer b, std::vector<Expr> idx)
        : ExprNode(ExprKind::BufferLoad, t), buffer(std::move(b)), indices(std::move(idx))
    {
    }
    static bool isKind(ExprKind k) { return k == ExprKind::BufferLoad; }
};

struct RampNode : ExprNode {
    Expr base, stride;
    int lanes;
    RampNode(Expr b, Expr s, int l)
        : ExprNode(ExprKind::Ramp, b.type().withLanes(l)), base(std::move(b)), stride(std::move(s)),
          lanes(l)
    {
    }
    static bool isKind(ExprKind k) { return k == ExprKind::Ramp; }
};

struct BroadcastNode : ExprNode {
    Expr value;
    int lanes;
    BroadcastNode(Expr v, int l)
        : ExprNode(ExprKind::Broadcast, v.type().withLanes(l)), value(std::move(v)), lanes(l)
    {
    }
    static bool isKind(ExprKind k) { return k == ExprKind::Broadcast; }
};

struct LetNode : ExprNode {
    Var var;
    Expr value, body;
    LetNode(Var v, Expr val, Expr b)
        : ExprNode(ExprKind::Let, b.type()), var(std::move(v)), value(std::move(val)),
          body(std::move(b))
    {
    }
    static bool isKind(ExprKind k) { return k == ExprKind::Let; }
};

enum class ReduceOp : std::uint8_t { Sum, Max, Min, Prod };

// A commutative reduction over `axes` (te.sum/te.max/te.min); only appears as a compute's body.
struct ReduceNode : ExprNode {
    ReduceOp op;
    Expr source;
    std::vector<IterVar> axes;
    Expr condition; // may be null
    ReduceNode(ReduceOp o, Expr src, std::vector<IterVar> ax, Expr cond)
        : ExprNode(ExprKind::Reduce, src.type()), op(o), source(std::move(src)),
          axes(std::move(ax)), condition(std::move(cond))
    {
    }
    static bool isKind(ExprKind k) { return k == ExprKind::Reduce; }
};

// Constructors that keep types consistent. They do not simplify beyond folding two constants.
Expr makeInt(std::int64_t v, DataType t = DataType::int32());
Expr makeFloat(double v, DataType t = DataType::float32());
Expr makeConst(DataType t, double v); // a constant of any scalar or vector type
Expr makeBool(bool v);
Expr makeBinary(ExprKind k, Expr a, Expr b);
Expr makeNot(Expr a);
Expr makeSelect(Expr c, Expr t, Expr f);
Expr makeCast(DataType t, Expr v);
Expr makeCall(DataType t, CallOp op, std::vector<Expr> args);
Expr makeTensorLoad(Tensor t, std::vector<Expr> indices);
Expr makeBufferLoad(Buffer b, std::vector<Expr> indices);
// New storage of `size` elements (one flat dimension), its data variable named as the buffer.
Buffer makeFlatBuffer(std::string name, DataType t, Expr size, std::string scope);
Expr makeRamp(Expr base, Expr stride, int lanes);
Expr makeBroadcast(Expr v, int lanes);
Expr makeLet(Var v, Expr value, Expr body);
Expr makeReduce(ReduceOp op, Expr source, std::vector<IterVar> axes, Expr condition);

// The identity element of a reduction for a type (0, -inf as lowest, +inf as highest, 1).
Expr reduceIdentity(ReduceOp op, DataType t);
// A reduction's name ("sum", "max", "min", "prod"), the reduction of that name, and the
// combination of an accumulated value with the next.
const char* reduceOpName(ReduceOp op);
bool reduceOpNamed(const std::string& name, ReduceOp* op);
Expr reduceCombine(ReduceOp op, Expr acc, Expr value);
Expr minValue(DataType t);
Expr maxValue(DataType t);

// Operators fold constants and nothing else.
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);

// Integer division and remainder rounding toward minus infinity (Python's // and %); b != 0.
std::int64_t floorDivInt(std::int64_t a, std::int64_t b);
std::int64_t floorModInt(std::int64_t a, std::int64_t b);

// Constant queries.
bool isConstInt(const Expr& e, std::int64_t* value = nullptr);
bool isConstInt(const Expr& e, std::int64_t value);
inline bool isZero(const Expr& e)
{
    return isConstInt(e, std::int64_t{0});
}
inline bool isOne(const Expr& e)
{
    return isConstInt(e, std::int64_t{1});
}
std::int64_t constIntOr(const Expr& e, std::int64_t fallback);

} // namespace loopscope
