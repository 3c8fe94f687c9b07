#include "ir/Expr.h"

#include "ir/Diagnostic.h"

#include <cmath>
#include <limits>

namespace loopscope {

Expr::Expr(int value) : m_node(std::make_shared<IntImmNode>(DataType::int32(), value)) {}

Var::Var(std::string name, DataType type) : Expr(std::make_shared<VarNode>(std::move(name), type))
{
}

const char* callOpName(CallOp op)
{
    switch (op) {
    case CallOp::Exp: return "exp";
    case CallOp::Log: return "log";
    case CallOp::Sqrt: return "sqrt";
    case CallOp::Tanh: return "tanh";
    case CallOp::Sigmoid: return "sigmoid";
    case CallOp::Fabs: return "fabs";
    case CallOp::Pow: return "pow";
    case CallOp::Floor: return "floor";
    case CallOp::Ceil: return "ceil";
    case CallOp::Nearbyint: return "nearbyint";
    case CallOp::IfThenElse: return "if_then_else";
    case CallOp::Likely: return "likely";
    case CallOp::ThreadAllreduce: return "tvm_thread_allreduce";
    case CallOp::WarpActiveMask: return "tvm_warp_activemask";
    case CallOp::WarpShuffleDown: return "tvm_warp_shuffle_down";
    case CallOp::WarpShuffle: return "tvm_warp_shuffle";
    case CallOp::Reinterpret: return "reinterpret";
    case CallOp::LlvmPureIntrin: return "call_llvm_pure_intrin";
    case CallOp::LlvmIntrin: return "call_llvm_intrin";
    case CallOp::CallExtern: return "call_extern";
    case CallOp::CallPureExtern: return "call_pure_extern";
    case CallOp::AccessPtr: return "tvm_access_ptr";
    case CallOp::TypeAnnotation: return "type_annotation";
    case CallOp::TvmTuple: return "tvm_tuple";
    }
    return "?";
}

bool isIntrinsicCall(CallOp op)
{
    switch (op) {
    case CallOp::Reinterpret:
    case CallOp::LlvmPureIntrin:
    case CallOp::LlvmIntrin:
    case CallOp::CallExtern:
    case CallOp::CallPureExtern:
    case CallOp::AccessPtr:
    case CallOp::TypeAnnotation:
    case CallOp::TvmTuple: return true;
    default: return false;
    }
}

IterVar makeIterVar(std::string name, Range dom, IterKind kind)
{
    auto iv = std::make_shared<IterVarNode>();
    iv->var = Var(std::move(name), DataType::int32());
    iv->dom = std::move(dom);
    iv->kind = kind;
    return iv;
}

Expr makeInt(std::int64_t v, DataType t)
{
    return std::make_shared<IntImmNode>(t, v);
}
Expr makeFloat(double v, DataType t)
{
    return std::make_shared<FloatImmNode>(t, v);
}
Expr makeBool(bool v)
{
    return std::make_shared<IntImmNode>(DataType::boolean(), v ? 1 : 0);
}

Expr makeConst(DataType t, double v)
{
    Expr scalar;
    DataType e = t.element();
    if (e.isFloat())
        scalar = makeFloat(v, e);
    else if (e.isBool())
        scalar = makeBool(v != 0);
    else
        scalar = makeInt(static_cast<std::int64_t>(v), e);
    return t.lanes > 1 ? makeBroadcast(scalar, t.lanes) : scalar;
}

bool isConstInt(const Expr& e, std::int64_t* value)
{
    if (auto* imm = e.as<IntImmNode>()) {
        if (value) *value = imm->value;
        return true;
    }
    return false;
}

bool isConstInt(const Expr& e, std::int64_t value)
{
    std::int64_t v;
    return isConstInt(e, &v) && v == value;
}

std::int64_t constIntOr(const Expr& e, std::int64_t fallback)
{
    std::int64_t v;
    return isConstInt(e, &v) ? v : fallback;
}

std::int64_t floorDivInt(std::int64_t a, std::int64_t b)
{
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

std::int64_t floorModInt(std::int64_t a, std::int64_t b)
{
    return a - floorDivInt(a, b) * b;
}

namespace {

bool isComparison(ExprKind k)
{
    return k >= ExprKind::EQ && k <= ExprKind::GE;
}

// Folds two integer constants; returns null when the operation cannot be folded.
Expr foldInts(ExprKind k, DataType t, std::int64_t x, std::int64_t y)
{
    switch (k) {
    case ExprKind::Add: return makeInt(x + y, t);
    case ExprKind::Sub: return makeInt(x - y, t);
    case ExprKind::Mul: return makeInt(x * y, t);
    case ExprKind::Div: return y != 0 ? makeInt(x / y, t) : Expr();
    case ExprKind::Mod: return y != 0 ? makeInt(x % y, t) : Expr();
    case ExprKind::FloorDiv: return y != 0 ? makeInt(floorDivInt(x, y), t) : Expr();
    case ExprKind::FloorMod: return y != 0 ? makeInt(floorModInt(x, y), t) : Expr();
    case ExprKind::Min: return makeInt(std::min(x, y), t);
    case ExprKind::Max: return makeInt(std::max(x, y), t);
    case ExprKind::EQ: return makeBool(x == y);
    case ExprKind::NE: return makeBool(x != y);
    case ExprKind::LT: return makeBool(x < y);
    case ExprKind::LE: return makeBool(x <= y);
    case ExprKind::GT: return makeBool(x > y);
    case ExprKind::GE: return makeBool(x >= y);
    case ExprKind::And: return makeBool(x && y);
    case ExprKind::Or: return makeBool(x || y);
    default: return Expr();
    }
}

} // namespace

Expr makeBinary(ExprKind k, Expr a, Expr b)
{
    LS_ASSERT(a.defined() && b.defined(), "binary operand is null");
    LS_ASSERT(a.type() == b.type(),
              "binary operands differ in type: " + a.type().str() + " vs " + b.type().str());
    DataType t = a.type();
    if (isComparison(k)) t = DataType::boolean().withLanes(a.type().lanes);
    std::int64_t x, y;
    if (isConstInt(a, &x) && isConstInt(b, &y)) {
        if (Expr folded = foldInts(k, t, x, y); folded.defined()) return folded;
    }
    return std::make_shared<BinaryNode>(k, t, std::move(a), std::move(b));
}

Expr makeNot(Expr a)
{
    LS_ASSERT(a.defined(), "'not' of nothing");
    if (std::int64_t v; isConstInt(a, &v)) return makeBool(v == 0);
    return std::make_shared<NotNode>(std::move(a));
}

Expr makeSelect(Expr c, Expr t, Expr f)
{
    LS_ASSERT(c.defined() && t.defined() && f.defined(), "select with a missing operand");
    LS_ASSERT(t.type() == f.type(),
              "select branches differ in type: " << t.type().str() << " vs " << f.type().str());
    LS_ASSERT(c.type().lanes == 1 || c.type().lanes == t.type().lanes,
              "select condition has " << c.type().lanes << " lanes, its branches "
                                      << t.type().lanes);
    return std::make_shared<SelectNode>(std::move(c), std::move(t), std::move(f));
}

Expr makeCast(DataType t, Expr v)
{
    LS_ASSERT(v.defined(), "cast of nothing to " << t.str());
    if (v.type() == t) return v;
    if (std::int64_t x; isConstInt(v, &x) && t.isScalar())
        return makeConst(t, static_cast<double>(x));
    if (auto* f = v.as<FloatImmNode>(); f && t.isScalar()) {
        if (t.isFloat()) return makeFloat(f->value, t);
        return makeConst(t, std::trunc(f->value));
    }
    return std::make_shared<CastNode>(t, std::move(v));
}

Expr makeCall(DataType t, CallOp op, std::vector<Expr> args)
{
    std::size_t arity = op == CallOp::Pow                                              ? 2
                        : op == CallOp::IfThenElse                                     ? 3
                        : op == CallOp::WarpActiveMask || op == CallOp::TypeAnnotation ? 0
                        : op == CallOp::WarpShuffleDown || op == CallOp::WarpShuffle   ? 5
                        : op == CallOp::AccessPtr                                      ? 5
                                                                                       : 1;
    const bool variadic = op == CallOp::LlvmPureIntrin || op == CallOp::LlvmIntrin ||
                          op == CallOp::CallExtern || op == CallOp::CallPureExtern ||
                          op == CallOp::TvmTuple;
    LS_ASSERT(op == CallOp::ThreadAllreduce ? args.size() >= 5
              : variadic                    ? !args.empty()
                                            : args.size() == arity,
              callOpName(op) << " takes " << arity << " arguments, given " << args.size());
    for (auto& a : args)
        LS_ASSERT(a.defined(), callOpName(op) << " with a missing argument");
    return std::make_shared<CallNode>(t, op, std::move(args));
}

Expr makeTensorLoad(Tensor t, std::vector<Expr> indices); // defined in te/Tensor.cpp

Buffer makeFlatBuffer(std::string name, DataType t, Expr size, std::string scope)
{
    auto b = std::make_shared<BufferNode>();
    b->data = Var(name, DataType::handle());
    b->name = std::move(name);
    b->dtype = t;
    b->shape = {std::move(size)};
    b->scope = std::move(scope);
    return b;
}

Expr makeBufferLoad(Buffer b, std::vector<Expr> indices)
{
    LS_ASSERT(b, "load from no buffer");
    for (auto& i : indices)
        LS_ASSERT(i.defined() && !i.type().isFloat(),
                  "buffer " << b->name << " indexed by a non-integer");
    DataType t = b->dtype;
    for (auto& i : indices)
        if (i.type().lanes > 1) t = t.withLanes(i.type().lanes);
    return std::make_shared<BufferLoadNode>(t, std::move(b), std::move(indices));
}

Expr makeRamp(Expr base, Expr stride, int lanes)
{
    LS_ASSERT(base.defined() && stride.defined(), "ramp with a missing base or stride");
    LS_ASSERT(lanes > 1, "ramp of " << lanes << " lanes");
    LS_ASSERT(base.type().isScalar() && stride.type().isScalar(), "ramp of vectors");
    return std::make_shared<RampNode>(std::move(base), std::move(stride), lanes);
}

Expr makeBroadcast(Expr v, int lanes)
{
    LS_ASSERT(v.defined(), "broadcast of nothing");
    LS_ASSERT(v.type().isScalar(), "broadcast of a vector");
    LS_ASSERT(lanes >= 1, "broadcast to " << lanes << " lanes");
    return std::make_shared<BroadcastNode>(std::move(v), lanes);
}

Expr makeLet(Var v, Expr value, Expr body)
{
    LS_ASSERT(v.defined() && value.defined() && body.defined(), "let with a missing part");
    return std::make_shared<LetNode>(std::move(v), std::move(value), std::move(body));
}

Expr makeReduce(ReduceOp op, Expr source, std::vector<IterVar> axes, Expr condition)
{
    LS_ASSERT(source.defined(), "reduction of nothing");
    for (auto& a : axes)
        LS_ASSERT(a, "reduction over a missing axis");
    return std::make_shared<ReduceNode>(op, std::move(source), std::move(axes),
                                        std::move(condition));
}

Expr minValue(DataType t)
{
    DataType e = t.element();
    Expr v;
    if (e.isFloat()) {
        v = makeFloat(e.bits == 64   ? -std::numeric_limits<double>::max()
                      : e.bits == 16 ? -65504.0
                                     : -static_cast<double>(std::numeric_limits<float>::max()),
                      e);
    } else if (e.isUInt() || e.isBool()) {
        v = makeConst(e, 0);
    } else {
        v = makeInt(e.bits >= 64 ? std::numeric_limits<std::int64_t>::min()
                                 : -(std::int64_t{1} << (e.bits - 1)),
                    e);
    }
    return t.lanes > 1 ? makeBroadcast(v, t.lanes) : v;
}

Expr maxValue(DataType t)
{
    DataType e = t.element();
    Expr v;
    if (e.isFloat()) {
        v = makeFloat(e.bits == 64   ? std::numeric_limits<double>::max()
                      : e.bits == 16 ? 65504.0
                                     : static_cast<double>(std::numeric_limits<float>::max()),
                      e);
    } else if (e.isBool()) {
        v = makeBool(true);
    } else if (e.isUInt()) {
        v = makeInt(e.bits >= 64 ? -1 : (std::int64_t{1} << e.bits) - 1, e);
    } else {
        v = makeInt(e.bits >= 64 ? std::numeric_limits<std::int64_t>::max()
                                 : (std::int64_t{1} << (e.bits - 1)) - 1,
                    e);
    }
    return t.lanes > 1 ? makeBroadcast(v, t.lanes) : v;
}

Expr reduceIdentity(ReduceOp op, DataType t)
{
    switch (op) {
    case ReduceOp::Sum: return makeConst(t, 0);
    case ReduceOp::Prod: return makeConst(t, 1);
    case ReduceOp::Max: return minValue(t);
    case ReduceOp::Min: return maxValue(t);
    }
    return Expr();
}

const char* reduceOpName(ReduceOp op)
{
    switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    }
    return "?";
}

bool reduceOpNamed(const std::string& name, ReduceOp* op)
{
    for (ReduceOp r : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}) {
        if (name == reduceOpName(r)) {
            *op = r;
            return true;
        }
    }
    return false;
}

Expr reduceCombine(ReduceOp op, Expr acc, Expr value)
{
    switch (op) {
    case ReduceOp::Sum: return std::move(acc) + std::move(value);
    case ReduceOp::Prod: return std::move(acc) * std::move(value);
    case ReduceOp::Max: return max(std::move(acc), std::move(value));
    case ReduceOp::Min: return min(std::move(acc), std::move(value));
    }
    return Expr();
}

Expr operator+(Expr a, Expr b)
{
    return makeBinary(ExprKind::Add, std::move(a), std::move(b));
}
Expr operator-(Expr a, Expr b)
{
    return makeBinary(ExprKind::Sub, std::move(a), std::move(b));
}
Expr operator*(Expr a, Expr b)
{
    return makeBinary(ExprKind::Mul, std::move(a), std::move(b));
}
Expr operator<(Expr a, Expr b)
{
    return makeBinary(ExprKind::LT, std::move(a), std::move(b));
}
Expr operator<=(Expr a, Expr b)
{
    return makeBinary(ExprKind::LE, std::move(a), std::move(b));
}
Expr operator>(Expr a, Expr b)
{
    return makeBinary(ExprKind::GT, std::move(a), std::move(b));
}
Expr operator>=(Expr a, Expr b)
{
    return makeBinary(ExprKind::GE, std::move(a), std::move(b));
}
Expr operator&&(Expr a, Expr b)
{
    return makeBinary(ExprKind::And, std::move(a), std::move(b));
}
Expr floordiv(Expr a, Expr b)
{
    return makeBinary(ExprKind::FloorDiv, std::move(a), std::move(b));
}
Expr floormod(Expr a, Expr b)
{
    return makeBinary(ExprKind::FloorMod, std::move(a), std::move(b));
}
Expr min(Expr a, Expr b)
{
    return makeBinary(ExprKind::Min, std::move(a), std::move(b));
}
Expr max(Expr a, Expr b)
{
    return makeBinary(ExprKind::Max, std::move(a), std::move(b));
}

} // namespace loopscope
