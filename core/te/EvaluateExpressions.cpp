// Expressions in a script: arithmetic, comparisons and logic on values, indexing tensors, math
// functions and reducers, and the conversions between script values and IR expressions.
#include "te/EvaluatorInternal.h"

#include <limits>

namespace loopscope::te_detail {

Expr Evaluator::indexExpr(const Value& v, SourceLoc loc, const Tensor& t, std::size_t pos)
{
    Expr e = toExpr(v, loc);
    if (!e.type().isIntegral() || !e.type().isScalar()) {
        throw UserError(loc, "index " + std::to_string(pos) + " of tensor '" + t->name + "' is " +
                                 (e.type().isFloat() ? "a " + e.type().str() + " expression"
                                                     : "of type " + e.type().str()) +
                                 "; tensor indices must be integers");
    }
    if (e.type() != DataType::int32()) e = makeCast(DataType::int32(), e);
    return e;
}

Value Evaluator::unary(const ast::Expr& e)
{
    Value v = eval(*e.value);
    if (e.name == "not") {
        if (v.isNumber()) return Value::boolean(!(v.kind == VKind::Float ? v.f != 0 : v.i != 0));
        throw UserError(e.opLoc, "'not' cannot be applied to an expression; use tvm.tir.Not or "
                                 "rewrite the condition");
    }
    if (e.name == "+") return v;
    if (e.name == "-") {
        if (v.kind == VKind::Int || v.kind == VKind::Bool) {
            if (v.i == std::numeric_limits<std::int64_t>::min())
                throw UserError(e.opLoc, "integer overflow: -(" + std::to_string(v.i) +
                                             ") does not fit in 64 bits");
            return Value::integer(-v.i);
        }
        if (v.kind == VKind::Float) return Value::real(-v.f);
        Expr x = toExpr(v, e.value->loc);
        return Value::ofExpr(makeConst(x.type(), 0) - x);
    }
    throw UserError(e.opLoc, "operator '" + e.name + "' is not supported");
}

Value Evaluator::boolOp(const ast::Expr& e)
{
    Value a = eval(*e.lhs);
    if (a.isNumber()) {
        bool truth = a.kind == VKind::Float ? a.f != 0 : a.i != 0;
        if (e.name == "and") return truth ? eval(*e.rhs) : a;
        return truth ? a : eval(*e.rhs);
    }
    throw UserError(e.opLoc, "'" + e.name + "' cannot combine expressions; use tvm.tir." +
                                 (e.name == "and" ? "all" : "any") + "(a, b)");
}

Value Evaluator::binary(const std::string& op, const Value& a, const Value& b, SourceLoc loc)
{
    if (a.isNumber() && b.isNumber()) return numeric(op, a, b, loc);
    if (a.kind == VKind::Str && b.kind == VKind::Str && op == "+") return Value::str(a.s + b.s);
    if ((a.isSeq() || b.isSeq()) && op == "+" && a.kind == b.kind) {
        Value r = a;
        r.items.insert(r.items.end(), b.items.begin(), b.items.end());
        return r;
    }
    if (!isExprLike(a) || !isExprLike(b)) {
        throw UserError(loc, "unsupported operand types for " + op + ": " + typeName(a) + " and " +
                                 typeName(b));
    }
    auto [x, y] = matchTypes(a, b, loc);
    if (op == "+") return Value::ofExpr(x + y);
    if (op == "-") return Value::ofExpr(x - y);
    if (op == "*") return Value::ofExpr(x * y);
    if (op == "/") {
        if (x.type().isIntegral()) {
            throw UserError(loc, "'/' between integer expressions is ambiguous; use '//' for "
                                 "floor division or tvm.tir.truncdiv");
        }
        return Value::ofExpr(makeBinary(ExprKind2::Div, x, y));
    }
    if (op == "//") {
        if (!x.type().isIntegral()) throw UserError(loc, "'//' needs integer expressions");
        return Value::ofExpr(floordiv(x, y));
    }
    if (op == "%") {
        if (!x.type().isIntegral()) throw UserError(loc, "'%' needs integer expressions");
        return Value::ofExpr(floormod(x, y));
    }
    if (op == "**") return Value::ofExpr(makeCall(x.type(), CallOp::Pow, {x, y}));
    throw UserError(loc, "operator '" + op + "' is not supported on expressions");
}

Value Evaluator::numeric(const std::string& op, const Value& a, const Value& b, SourceLoc loc)
{
    // Integers are 64-bit (Python's are unbounded): a result that does not fit is an error, not
    // a wrapped value.
    auto checked = [&](auto operation) {
        std::int64_t r = 0;
        if (operation(&r)) {
            throw UserError(loc, "integer overflow: " + std::to_string(a.i) + " " + op + " " +
                                     std::to_string(b.i) + " does not fit in 64 bits");
        }
        return Value::integer(r);
    };
    bool isFloat = a.kind == VKind::Float || b.kind == VKind::Float;
    double fa = a.kind == VKind::Float ? a.f : static_cast<double>(a.i);
    double fb = b.kind == VKind::Float ? b.f : static_cast<double>(b.i);
    auto zero = [&] {
        if (fb == 0) throw UserError(loc, "division by zero");
    };
    if (op == "/") {
        zero();
        return Value::real(fa / fb);
    }
    if (op == "**") {
        if (!isFloat && b.i >= 0) {
            // By squaring: at most 64 steps, each checked.
            return checked([&](std::int64_t* r) {
                std::int64_t base = a.i;
                *r = 1;
                for (std::int64_t e = b.i; e > 0; e >>= 1) {
                    if ((e & 1) && __builtin_mul_overflow(*r, base, r)) return true;
                    if (e > 1 && __builtin_mul_overflow(base, base, &base)) return true;
                }
                return false;
            });
        }
        return Value::real(std::pow(fa, fb));
    }
    if (isFloat) {
        if (op == "+") return Value::real(fa + fb);
        if (op == "-") return Value::real(fa - fb);
        if (op == "*") return Value::real(fa * fb);
        if (op == "//") {
            zero();
            return Value::real(std::floor(fa / fb));
        }
        if (op == "%") {
            zero();
            return Value::real(fa - std::floor(fa / fb) * fb);
        }
    } else {
        if (op == "+")
            return checked([&](std::int64_t* r) { return __builtin_add_overflow(a.i, b.i, r); });
        if (op == "-")
            return checked([&](std::int64_t* r) { return __builtin_sub_overflow(a.i, b.i, r); });
        if (op == "*")
            return checked([&](std::int64_t* r) { return __builtin_mul_overflow(a.i, b.i, r); });
        const bool minOverMinusOne = a.i == std::numeric_limits<std::int64_t>::min() && b.i == -1;
        if (op == "//") {
            zero();
            return checked([&](std::int64_t* r) {
                if (minOverMinusOne) return true;
                *r = floorDivInt(a.i, b.i);
                return false;
            });
        }
        if (op == "%") {
            zero();
            return Value::integer(minOverMinusOne ? 0 : floorModInt(a.i, b.i));
        }
        if (op == "<<" || op == ">>") {
            if (b.i < 0 || b.i > 62)
                throw UserError(loc, "shift count " + std::to_string(b.i) + " is out of range");
            if (op == ">>") return Value::integer(a.i >> b.i);
            return checked([&](std::int64_t* r) {
                return __builtin_mul_overflow(a.i, std::int64_t{1} << b.i, r);
            });
        }
        if (op == "&") return Value::integer(a.i & b.i);
        if (op == "|") return Value::integer(a.i | b.i);
        if (op == "^") return Value::integer(a.i ^ b.i);
    }
    throw UserError(loc, "operator '" + op + "' is not supported on numbers");
}

Value Evaluator::compare(const std::string& op, const Value& a, const Value& b, SourceLoc loc)
{
    if (a.isNumber() && b.isNumber()) {
        double x = a.kind == VKind::Float ? a.f : static_cast<double>(a.i);
        double y = b.kind == VKind::Float ? b.f : static_cast<double>(b.i);
        bool r = op == "<"    ? x < y
                 : op == "<=" ? x <= y
                 : op == ">"  ? x > y
                 : op == ">=" ? x >= y
                 : op == "==" ? x == y
                              : x != y;
        return Value::boolean(r);
    }
    if (a.kind == VKind::Str && b.kind == VKind::Str && (op == "==" || op == "!="))
        return Value::boolean((a.s == b.s) == (op == "=="));
    if (!isExprLike(a) || !isExprLike(b))
        throw UserError(loc, "cannot compare " + typeName(a) + " with " + typeName(b));
    auto [x, y] = matchTypes(a, b, loc);
    ExprKind2 k = op == "<"    ? ExprKind2::LT
                  : op == "<=" ? ExprKind2::LE
                  : op == ">"  ? ExprKind2::GT
                  : op == ">=" ? ExprKind2::GE
                  : op == "==" ? ExprKind2::EQ
                               : ExprKind2::NE;
    return Value::ofExpr(makeBinary(k, x, y));
}

bool Evaluator::isExprLike(const Value& v)
{
    return v.isNumber() || v.kind == VKind::Expr || v.kind == VKind::IterVar;
}

Expr Evaluator::toExpr(const Value& v, SourceLoc loc, DataType numberType)
{
    switch (v.kind) {
    case VKind::Int:
        if (numberType.isFloat()) return makeFloat(static_cast<double>(v.i), numberType);
        if (numberType.isBool()) return makeBool(v.i != 0);
        if (v.i > INT32_MAX || v.i < INT32_MIN) return makeInt(v.i, DataType::int64());
        return makeInt(v.i, numberType.isIntegral() ? numberType : DataType::int32());
    case VKind::Bool: return makeBool(v.i != 0);
    case VKind::Float:
        return makeFloat(v.f, numberType.isFloat() ? numberType : DataType::float32());
    case VKind::Expr: return v.expr;
    case VKind::IterVar: return v.iv->var;
    default: throw UserError(loc, "expected an expression, found " + typeName(v));
    }
}

// TVM's implicit conversions: Python numbers take the other side's type; between expressions
// integers become floats and narrower types widen.
std::pair<Expr, Expr> Evaluator::matchTypes(const Value& a, const Value& b, SourceLoc loc)
{
    if (a.isNumber() && !b.isNumber()) {
        Expr y = toExpr(b, loc);
        if (a.kind == VKind::Float && y.type().isIntegral())
            return {makeFloat(a.f), makeCast(DataType::float32(), y)};
        return {toExpr(a, loc, y.type()), y};
    }
    if (b.isNumber() && !a.isNumber()) {
        Expr x = toExpr(a, loc);
        if (b.kind == VKind::Float && x.type().isIntegral())
            return {makeCast(DataType::float32(), x), makeFloat(b.f)};
        return {x, toExpr(b, loc, x.type())};
    }
    Expr x = toExpr(a, loc), y = toExpr(b, loc);
    DataType tx = x.type(), ty = y.type();
    if (tx == ty) return {x, y};
    DataType t;
    if (tx.isFloat() && ty.isFloat())
        t = wider(tx, ty);
    else if (tx.isFloat())
        t = tx;
    else if (ty.isFloat())
        t = ty;
    else if (tx.isBool())
        t = ty;
    else if (ty.isBool())
        t = tx;
    else
        t = wider(tx, ty);
    return {makeCast(t, x), makeCast(t, y)};
}

Value Evaluator::exprValue(const Expr& e)
{
    std::int64_t v;
    if (isConstInt(e, &v)) return Value::integer(v);
    return Value::ofExpr(e);
}

Value Evaluator::shapeValue(const Tensor& t)
{
    std::vector<Value> items;
    for (auto& s : t->shape)
        items.push_back(exprValue(s));
    return Value::seq(VKind::List, std::move(items));
}

Expr Evaluator::toIntExpr(const Value& v, SourceLoc loc)
{
    if (v.kind == VKind::Float && v.f == std::floor(v.f))
        return makeInt(static_cast<std::int64_t>(v.f));
    Expr e = toExpr(v, loc);
    if (!e.type().isIntegral())
        throw UserError(loc, "expected an integer, found " + e.type().str());
    return e;
}

Value Evaluator::mathCall(const std::string& fn, const CallArgs& c)
{
    Bound b(c, {{"x", true}});
    Expr x = toExpr(b["x"].value, b["x"].loc, DataType::float32());
    if (fn == "abs" && x.type().isIntegral()) {
        return Value::ofExpr(
            makeSelect(x >= makeConst(x.type(), 0), x, makeConst(x.type(), 0) - x));
    }
    if (!x.type().isFloat()) {
        throw UserError(b["x"].loc, "te." + fn + " needs a floating-point argument, found " +
                                        x.type().str() + " (use .astype(\"float32\"))");
    }
    CallOp op = fn == "exp"         ? CallOp::Exp
                : fn == "log"       ? CallOp::Log
                : fn == "sqrt"      ? CallOp::Sqrt
                : fn == "tanh"      ? CallOp::Tanh
                : fn == "sigmoid"   ? CallOp::Sigmoid
                : fn == "floor"     ? CallOp::Floor
                : fn == "ceil"      ? CallOp::Ceil
                : fn == "nearbyint" ? CallOp::Nearbyint
                                    : CallOp::Fabs;
    return Value::ofExpr(makeCall(x.type(), op, {x}));
}

Value Evaluator::reducerOrMinMax(const std::string& name, const CallArgs& c)
{
    std::string fn = name.substr(name.rfind('.') + 1);
    bool hasAxis = std::any_of(c.keywords.begin(), c.keywords.end(),
                               [](auto& k) { return k.first == "axis"; });
    if (fn != "sum" && !hasAxis && c.positional.size() == 2) {
        auto [x, y] = matchTypes(c.positional[0].value, c.positional[1].value, c.loc);
        return Value::ofExpr(fn == "max" ? max(x, y) : min(x, y));
    }
    Bound b(c, {{"expr", true}, {"axis", true}, {"where", false}, {"init", false}});
    if (!m_inCompute) {
        throw UserError(c.loc, "te." + fn +
                                   " with axis= is a reduction and is only allowed as "
                                   "the body of te.compute");
    }
    Expr source = toExpr(b["expr"].value, b["expr"].loc);
    const Arg& ax = b["axis"];
    std::vector<Value> axes = ax.value.isSeq() ? ax.value.items : std::vector<Value>{ax.value};
    std::vector<IterVar> ivs;
    for (auto& a : axes) {
        if (a.kind != VKind::IterVar)
            throw UserError(ax.loc, "axis= must be a te.reduce_axis (or a list of them), not " +
                                        typeName(a));
        if (a.iv->kind != IterKind::Reduce) {
            throw UserError(ax.loc, "te." + fn + " over '" + axisDisplayName(a.iv->name()) +
                                        "', a data-parallel axis; reduce over a te.reduce_axis");
        }
        ivs.push_back(a.iv);
    }
    Expr cond;
    if (b.has("where")) {
        cond = toExpr(b["where"].value, b["where"].loc);
        if (!cond.type().isBool()) throw UserError(b["where"].loc, "where= must be a condition");
    }
    if (b.has("init")) throw UserError(b["init"].loc, "init= of a reduction is not supported");
    ReduceOp op = fn == "sum" ? ReduceOp::Sum : fn == "max" ? ReduceOp::Max : ReduceOp::Min;
    return Value::ofExpr(makeReduce(op, source, ivs, cond));
}

} // namespace loopscope::te_detail
