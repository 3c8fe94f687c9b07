// The TIR printer's expressions: constants, operators with TVM's precedence and folding rules,
// calls, loads with their slice indices, ramps, broadcasts, lets and (in TE bodies) reductions.
#include "ir/PrinterInternal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace loopscope::printer_detail {

// C++ ostream with precision 17 in the default float field, as TVM 0.17 prints FloatImm values;
// from 0.20 on, Python's repr: the shortest digits that read back as the value, in fixed
// notation between 1e-4 and 1e16, else as d.ddde+XX; a whole number always in fixed notation
// with ".0".
std::string floatText(double v, bool python)
{
    if (std::isnan(v)) return "\"nan\"";
    if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
    char buf[400]; // a whole double has up to 309 digits
    if (!python) {
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return buf;
    }
    if (std::nearbyint(v) == v) {
        // A whole number in fixed notation with one decimal, however large (TVM's printer:
        // showpoint, fixed, precision 1): -3.4e38 prints all 39 digits.
        std::snprintf(buf, sizeof buf, "%.1f", v);
        return buf;
    }
    int digits = 1;
    for (; digits < 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, v);
    const std::string sci = buf;
    const std::size_t e = sci.find('e');
    const int exponent = std::atoi(sci.c_str() + e + 1);
    if (exponent >= -4 && exponent < 16) {
        const int decimals = std::max(0, digits - 1 - exponent);
        std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
        std::string fixed = buf;
        if (fixed.find('.') == std::string::npos) fixed += ".0";
        return fixed;
    }
    std::string mantissa = sci.substr(0, e);
    char exp[16];
    std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return mantissa + exp;
}

namespace {

struct BinaryInfo {
    const char* op;   // Python operator, or null when TVMScript always uses a call
    int prec;         // precedence of the operator
    const char* call; // T.<call>(a, b) form
};

BinaryInfo binaryInfo(ExprKind k)
{
    switch (k) {
    case ExprKind::Add: return {"+", kAdd, "Add"};
    case ExprKind::Sub: return {"-", kAdd, "Sub"};
    case ExprKind::Mul: return {"*", kMul, "Mul"};
    case ExprKind::Div: return {"/", kMul, "Div"};
    case ExprKind::FloorDiv: return {"//", kMul, "FloorDiv"};
    case ExprKind::FloorMod: return {"%", kMul, "FloorMod"};
    case ExprKind::Mod: return {nullptr, kAtom, "truncmod"};
    case ExprKind::Min: return {nullptr, kAtom, "min"};
    case ExprKind::Max: return {nullptr, kAtom, "max"};
    case ExprKind::EQ: return {"==", kCompare, "EQ"};
    case ExprKind::NE: return {"!=", kCompare, "NE"};
    case ExprKind::LT: return {"<", kCompare, "LT"};
    case ExprKind::LE: return {"<=", kCompare, "LE"};
    case ExprKind::GT: return {">", kCompare, "GT"};
    case ExprKind::GE: return {">=", kCompare, "GE"};
    case ExprKind::And: return {"and", kAnd, "And"};
    case ExprKind::Or: return {"or", kOr, "Or"};
    default: return {nullptr, kAtom, "?"};
    }
}

bool isConstValue(const Expr& e, double v)
{
    if (auto* i = e.as<IntImmNode>()) return static_cast<double>(i->value) == v;
    if (auto* f = e.as<FloatImmNode>()) return f->value == v;
    return false;
}

// Whether TVM's operator constructor (tvm::add, tvm::floordiv, ...) would fold this pair instead
// of building the node: then TVMScript prints the explicit `T.Add(a, b)` form (arith/const_fold.h).
bool constructorFolds(ExprKind k, const Expr& a, const Expr& b)
{
    bool ca = a.as<IntImmNode>() || a.as<FloatImmNode>();
    bool cb = b.as<IntImmNode>() || b.as<FloatImmNode>();
    if (ca && cb && a.kind() == b.kind()) return true;
    switch (k) {
    case ExprKind::Add: return isConstValue(a, 0) || isConstValue(b, 0);
    case ExprKind::Sub: return isConstValue(b, 0);
    case ExprKind::Mul:
        return isConstValue(a, 0) || isConstValue(a, 1) || isConstValue(b, 0) || isConstValue(b, 1);
    case ExprKind::Div:
    case ExprKind::FloorDiv:
    case ExprKind::Mod:
    case ExprKind::FloorMod: return isConstValue(a, 0) || isConstValue(b, 1);
    case ExprKind::And:
    case ExprKind::Or: return a.as<IntImmNode>() || b.as<IntImmNode>();
    default: return false;
    }
}

} // namespace

std::string Printer::tuple(const std::vector<Expr>& items)
{
    std::vector<std::string> parts;
    for (const Expr& e : items)
        parts.push_back(expr(e).text);
    if (parts.size() == 1) return "(" + parts[0] + ",)";
    return "(" + join(parts) + ")";
}

std::string Printer::args(std::initializer_list<Expr> items)
{
    std::vector<std::string> parts;
    for (const Expr& e : items)
        parts.push_back(expr(e).text);
    return join(parts);
}

// A buffer index: a ramp with a constant stride is a slice `base:base + lanes*stride[:stride]`.
std::string Printer::index(const Expr& e)
{
    auto* ramp = e.as<RampNode>();
    auto* stride = ramp ? ramp->stride.as<IntImmNode>() : nullptr;
    if (!stride) return expr(e).text;
    std::int64_t span = static_cast<std::int64_t>(ramp->lanes) * stride->value;
    Expr stop = ramp->base;
    if (span != 0) {
        stop = makeBinary(ExprKind::Add, ramp->base, makeInt(span, ramp->base.type()));
    }
    std::string out = expr(ramp->base).text + ":" + expr(stop).text;
    if (stride->value != 1) out += ":" + expr(ramp->stride).text;
    return out;
}

std::string Printer::indices(const std::vector<Expr>& idx)
{
    if (idx.empty()) return "()";
    std::vector<std::string> parts;
    for (const Expr& e : idx)
        parts.push_back(index(e));
    return join(parts);
}

Doc Printer::intDoc(const IntImmNode* op)
{
    if (op->type == DataType::int32()) return {std::to_string(op->value), kAtom};
    if (op->type.isBool()) return {op->value ? "T.bool(True)" : "T.bool(False)", kAtom};
    return {"T." + op->type.str() + "(" + std::to_string(op->value) + ")", kAtom};
}

Doc Printer::binary(const BinaryNode* op)
{
    Doc a = expr(op->a);
    Doc b = expr(op->b);
    BinaryInfo info = binaryInfo(op->kind);
    bool sugar = info.op && !constructorFolds(op->kind, op->a, op->b);
    if (op->kind == ExprKind::Div && op->a.type().isIntegral()) sugar = false;
    if (!sugar) return {std::string("T.") + info.call + "(" + a.text + ", " + b.text + ")"};
    std::string left = a.prec < info.prec ? "(" + a.text + ")" : a.text;
    std::string right = b.prec <= info.prec ? "(" + b.text + ")" : b.text;
    return {left + " " + info.op + " " + right, info.prec};
}

Doc Printer::expr(const Expr& e)
{
    if (!e.defined()) return {"None"};
    switch (e.kind()) {
    case ExprKind::IntImm: return intDoc(e.as<IntImmNode>());
    case ExprKind::FloatImm: {
        auto* op = e.as<FloatImmNode>();
        return {"T." + op->type.str() + "(" + floatText(op->value, m_options.tensorIR) + ")"};
    }
    case ExprKind::StringImm: return {quoted(e.as<StringImmNode>()->value)};
    case ExprKind::Var: return {varName(e.as<VarNode>())};
    case ExprKind::Not: {
        auto* op = e.as<NotNode>();
        Doc a = expr(op->a);
        bool literal = op->a.kind() == ExprKind::StringImm ||
                       (op->a.kind() == ExprKind::IntImm && op->a.type() == DataType::int32());
        if (literal) return {"T.Not(" + a.text + ")"};
        return {"not " + (a.prec < kNot ? "(" + a.text + ")" : a.text), kNot};
    }
    case ExprKind::Select: {
        auto* op = e.as<SelectNode>();
        return {"T.Select(" + args({op->cond, op->t, op->f}) + ")"};
    }
    case ExprKind::Cast: {
        auto* op = e.as<CastNode>();
        return {"T.Cast(" + quoted(op->type.str()) + ", " + expr(op->value).text + ")"};
    }
    case ExprKind::Call: {
        auto* op = e.as<CallNode>();
        std::vector<std::string> parts;
        // TVMScript puts the type first for the calls whose type it cannot infer.
        switch (op->op) {
        case CallOp::Reinterpret:
        case CallOp::LlvmPureIntrin:
        case CallOp::LlvmIntrin:
        case CallOp::CallExtern:
        case CallOp::CallPureExtern:
        case CallOp::TypeAnnotation: parts.push_back(quoted(op->type.str())); break;
        default: break;
        }
        for (const Expr& a : op->args)
            parts.push_back(expr(a).text);
        return {std::string("T.") + callOpName(op->op) + "(" + join(parts) + ")"};
    }
    case ExprKind::TensorLoad: {
        auto* op = e.as<TensorLoadNode>();
        std::string name = tensorName(op->tensor.get());
        return {name + "[" + indices(op->indices) + "]"};
    }
    case ExprKind::BufferLoad: {
        auto* op = e.as<BufferLoadNode>();
        std::string name = bufferName(op->buffer.get());
        return {name + "[" + indices(op->indices) + "]"};
    }
    case ExprKind::Ramp: {
        auto* op = e.as<RampNode>();
        return {"T.Ramp(" + args({op->base, op->stride}) + ", " + std::to_string(op->lanes) + ")"};
    }
    case ExprKind::Broadcast: {
        auto* op = e.as<BroadcastNode>();
        return {"T.Broadcast(" + expr(op->value).text + ", " + std::to_string(op->lanes) + ")"};
    }
    case ExprKind::Let: {
        auto* op = e.as<LetNode>();
        std::string value = expr(op->value).text;
        std::string name = m_objNames.count(op->var.get())
                               ? m_objNames[op->var.get()]
                               : define(op->var.get(), op->var.name(), current());
        return {"T.Let(" + expr(op->body).text + ", where={" + name + ": " + value + "})"};
    }
    case ExprKind::Reduce: return reduce(e.as<ReduceNode>());
    default: return binary(e.as<BinaryNode>());
    }
}

// Only in TE bodies (diagnostics): te.sum(A[i, k] * B[k, j], axis=[k]).
Doc Printer::reduce(const ReduceNode* op)
{
    static const char* names[] = {"sum", "max", "min", "prod"};
    std::vector<std::string> axes;
    for (const IterVar& iv : op->axes)
        axes.push_back(scriptName(iv->name()));
    std::string text = std::string("te.") + names[static_cast<int>(op->op)] + "(" +
                       expr(op->source).text + ", axis=[" + join(axes) + "]";
    if (op->condition.defined()) text += ", where=" + expr(op->condition).text;
    return {text + ")"};
}

} // namespace loopscope::printer_detail
