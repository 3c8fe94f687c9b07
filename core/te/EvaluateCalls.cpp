// Calls in a script: te.placeholder, te.compute, te.reduce_axis, te.create_schedule,
// tvm.lower/tvm.build and the other builtins, with their arguments checked.
#include "te/EvaluatorInternal.h"

#include "ir/GpuTarget.h"
#include "te/Builtins.h"

#include "ir/Limits.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

namespace loopscope::te_detail {

Value Evaluator::call(const ast::Expr& e)
{
    Value f = eval(*e.value);
    CallArgs args;
    args.loc = e.loc;
    args.function = calleeName(f, *e.value);
    for (auto& a : e.items) {
        if (a->kind != ExprKind::Starred) {
            args.positional.push_back({argValue(*a), a->loc, a.get()});
            continue;
        }
        // f(*loops): each item of the sequence an argument of its own.
        Value seq = eval(*a->value);
        if (!seq.isSeq())
            throw UserError(a->value->loc,
                            "only a list or tuple can be unpacked with '*', not " + typeName(seq));
        for (const Value& item : seq.items)
            args.positional.push_back({item, a->loc});
    }
    for (auto& k : e.keywords)
        args.keywords.push_back({k.name, {argValue(*k.value), k.value->loc, k.value.get()}});
    if (f.kind == VKind::Builtin) return builtin(f.s, args);
    if (f.kind == VKind::Method) return callMethod(*f.self, f.s, args);
    if (f.kind == VKind::Function) return callFunction(f, args);
    throw UserError(e.loc, typeName(f) + " is not callable");
}

Value Evaluator::argValue(const ast::Expr& a)
{
    if (a.kind == ExprKind::Lambda) {
        Value v;
        v.kind = VKind::Lambda;
        v.lambda = &a;
        return v;
    }
    return eval(a);
}

std::string Evaluator::calleeName(const Value& f, const ast::Expr& callee)
{
    if (f.kind == VKind::Builtin) return f.s;
    if (f.kind == VKind::Method) return callee.kind == ExprKind::Attribute ? callee.name : f.s;
    if (f.kind == VKind::Function) return f.def->name;
    return "call";
}

void Evaluator::rejectLambdas(const CallArgs& c)
{
    for (auto& a : c.positional)
        if (a.value.kind == VKind::Lambda)
            throw UserError(a.loc, "lambda is only supported as the body of te.compute");
    for (auto& [n, a] : c.keywords)
        if (a.value.kind == VKind::Lambda)
            throw UserError(a.loc, "lambda is only supported as the body of te.compute");
}

std::string Evaluator::stringArg(const Arg& a, const std::string& what)
{
    if (a.value.kind != VKind::Str)
        throw UserError(a.loc, what + " must be a string, not " + typeName(a.value));
    return a.value.s;
}

DataType Evaluator::dtypeArg(const Arg& a)
{
    std::string s = stringArg(a, "dtype");
    auto t = DataType::parse(s);
    if (!t || !t->isScalar()) {
        throw UserError(a.loc, "unknown dtype '" + s +
                                   "'; supported: float32, float64, float16, "
                                   "int8, int16, int32, int64, uint8, bool");
    }
    return *t;
}

// An extent: a positive integer (an integral float is accepted, as in N / bn) or a te.var.
Expr Evaluator::extentArg(const Value& v, SourceLoc loc, const std::string& what)
{
    if (v.kind == VKind::Float) {
        if (v.f != std::floor(v.f))
            throw UserError(loc, what + " " + formatFloat(v.f) + " is not a whole number");
        return extentArg(Value::integer(static_cast<std::int64_t>(v.f)), loc, what);
    }
    if (v.kind == VKind::Int) {
        if (v.i <= 0) {
            throw UserError(loc,
                            what + " is " + std::to_string(v.i) + "; extents must be positive");
        }
        return makeInt(v.i);
    }
    if (v.kind == VKind::Expr && v.expr.type().isIntegral()) return v.expr;
    throw UserError(loc, what + " must be an integer, not " + typeName(v));
}

std::string Evaluator::formatFloat(double f)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", f);
    return buf;
}

std::vector<Expr> Evaluator::shapeArg(const Arg& a, const std::string& tensorName)
{
    std::vector<Value> dims = a.value.isSeq() ? a.value.items : std::vector<Value>{a.value};
    if (dims.empty()) throw UserError(a.loc, "the shape of '" + tensorName + "' is empty");
    std::vector<Expr> out;
    for (std::size_t d = 0; d < dims.size(); ++d)
        out.push_back(extentArg(dims[d], a.loc,
                                "dimension " + std::to_string(d) + " of '" + tensorName + "'"));
    // Element counts and byte offsets are 64-bit: a shape whose bytes would not fit is refused
    // here, not left to wrap around in the index arithmetic.
    long double elements = 1;
    for (const Expr& e : out)
        if (std::int64_t n; isConstInt(e, &n)) elements *= static_cast<long double>(n);
    if (elements * 8 > static_cast<long double>(std::numeric_limits<std::int64_t>::max())) {
        char count[32];
        std::snprintf(count, sizeof count, "%.3Lg", elements);
        throw UserError(a.loc, "'" + tensorName + "' would have " + count +
                                   " elements: its byte offsets overflow 64 bits");
    }
    // Loops and indices are 32-bit integers here (TVM would promote such a shape to int64): a
    // tensor is refused where its indices would wrap around.
    if (elements > static_cast<long double>(kMaxIndex)) {
        char count[32];
        std::snprintf(count, sizeof count, "%.0Lf", elements);
        throw UserError(a.loc, "'" + tensorName + "' would have " + count +
                                   " elements; tensors are indexed with 32-bit integers, so at "
                                   "most " +
                                   std::to_string(kMaxIndex) + " are supported");
    }
    return out;
}

Value Evaluator::builtin(const std::string& name, const CallArgs& c)
{
    const Builtin* fn = findBuiltin(name);
    if (!fn) throw UserError(c.loc, name + "() is not supported");
    if (fn->call != BuiltinCall::Compute) rejectLambdas(c);
    switch (fn->call) {
    case BuiltinCall::Print: return Value::none();
    case BuiltinCall::Placeholder: {
        Bound b(c, {{"shape", true}, {"dtype", false}, {"name", false}});
        std::string tname = b.has("name") ? stringArg(b["name"], "name") : "placeholder";
        DataType t = b.has("dtype") ? dtypeArg(b["dtype"]) : DataType::float32();
        Tensor ten = makePlaceholder(tname, shapeArg(b["shape"], tname), t, c.loc);
        m_program.tensors.push_back(ten);
        return Value::ofTensor(VKind::Tensor, ten);
    }
    case BuiltinCall::Compute: return compute(c);
    case BuiltinCall::ReduceAxis: return reduceAxis(c);
    case BuiltinCall::Var: {
        Bound b(c, {{"name", false}, {"dtype", false}});
        std::string n = b.has("name") ? stringArg(b["name"], "name") : "tindex";
        DataType t = b.has("dtype") ? dtypeArg(b["dtype"]) : DataType::int32();
        Var v(n, t);
        m_program.sizeVars.push_back({n, v, c.loc});
        return Value::ofExpr(v);
    }
    case BuiltinCall::ThreadAxis: {
        Bound b(c, {{"dom", false}, {"tag", false}, {"name", false}});
        const Arg* tag = b.has("tag")                                        ? &b["tag"]
                         : b.has("dom") && b["dom"].value.kind == VKind::Str ? &b["dom"]
                                                                             : nullptr;
        if (!tag)
            throw UserError(c.loc, "te.thread_axis needs a thread tag such as \"threadIdx.x\"");
        // Each call is an object of its own: loops bound to one object share its variable.
        Value axis = Value::named(VKind::ThreadAxis, stringArg(*tag, "thread tag"));
        axis.i = ++m_threadAxes;
        return axis;
    }
    case BuiltinCall::Reducer:
    case BuiltinCall::MinMax: return reducerOrMinMax(name, c);
    case BuiltinCall::Math: return mathCall(fn->name, c);
    case BuiltinCall::CreateSchedule: return createSchedule(c);
    case BuiltinCall::CreatePrimFunc: return createPrimFunc(c);
    case BuiltinCall::TirSchedule: return createTirSchedule(c);
    case BuiltinCall::Const: {
        Bound b(c, {{"value", true}, {"dtype", false}});
        DataType t = b.has("dtype")                          ? vectorDtypeArg(b["dtype"])
                     : b["value"].value.kind == VKind::Float ? DataType::float32()
                                                             : DataType::int32();
        const Value& v = b["value"].value;
        if (!v.isNumber()) throw UserError(b["value"].loc, "tvm.tir.const needs a number");
        return Value::ofExpr(makeConst(t, v.kind == VKind::Float ? v.f : static_cast<double>(v.i)));
    }
    case BuiltinCall::IfThenElse:
    case BuiltinCall::Select: {
        Bound b(c, {{"cond", true}, {"t", true}, {"f", true}});
        Expr cond = toExpr(b["cond"].value, b["cond"].loc);
        if (!cond.type().isBool())
            throw UserError(b["cond"].loc, "the condition must be a comparison");
        auto [t, f] = matchTypes(b["t"].value, b["f"].value, b["t"].loc);
        if (fn->call == BuiltinCall::Select) return Value::ofExpr(makeSelect(cond, t, f));
        return Value::ofExpr(makeCall(t.type(), CallOp::IfThenElse, {cond, t, f}));
    }
    case BuiltinCall::All:
    case BuiltinCall::Any: {
        if (c.positional.empty()) throw UserError(c.loc, name + "() needs at least one condition");
        const bool all = fn->call == BuiltinCall::All;
        Expr acc;
        for (auto& a : c.positional) {
            Expr x = toExpr(a.value, a.loc, DataType::boolean());
            if (!x.type().isBool())
                throw UserError(a.loc, "each argument of " + name + " must be a condition");
            acc = acc.defined() ? makeBinary(all ? ExprKind2::And : ExprKind2::Or, acc, x) : x;
        }
        return Value::ofExpr(acc);
    }
    case BuiltinCall::FloorDiv:
    case BuiltinCall::FloorMod:
    case BuiltinCall::TruncDiv:
    case BuiltinCall::TruncMod: {
        Bound b(c, {{"a", true}, {"b", true}});
        auto [x, y] = matchTypes(b["a"].value, b["b"].value, c.loc);
        if (!x.type().isIntegral()) throw UserError(c.loc, name + " needs integer operands");
        if (isZero(y)) throw UserError(b["b"].loc, "division by zero");
        const ExprKind2 k = fn->call == BuiltinCall::FloorDiv   ? ExprKind2::FloorDiv
                            : fn->call == BuiltinCall::FloorMod ? ExprKind2::FloorMod
                            : fn->call == BuiltinCall::TruncDiv ? ExprKind2::Div
                                                                : ExprKind2::Mod;
        return Value::ofExpr(makeBinary(k, x, y));
    }
    case BuiltinCall::MaxValue:
    case BuiltinCall::MinValue: {
        Bound b(c, {{"dtype", true}});
        DataType t = dtypeArg(b["dtype"]);
        return Value::ofExpr(fn->call == BuiltinCall::MaxValue ? maxValue(t) : minValue(t));
    }
    case BuiltinCall::Cast: {
        Bound b(c, {{"dtype", true}, {"value", true}});
        return Value::ofExpr(
            makeCast(dtypeArg(b["dtype"]), toExpr(b["value"].value, b["value"].loc)));
    }
    case BuiltinCall::TypedValue: {
        Bound b(c, {{"x", true}});
        const DataType t = *DataType::parse(fn->name);
        const Value& x = b["x"].value;
        if (x.isNumber() || x.kind == VKind::Bool)
            return Value::ofExpr(
                makeConst(t, x.kind == VKind::Float ? x.f : static_cast<double>(x.i)));
        return Value::ofExpr(makeCast(t, toExpr(x, b["x"].loc)));
    }
    case BuiltinCall::LowerOrBuild: return lowerOrBuild(name, c);
    case BuiltinCall::DeclBuffer:
    case BuiltinCall::DeclTensorIntrin:
    case BuiltinCall::IrBuilder:
    case BuiltinCall::CallIntrin:
    case BuiltinCall::Reinterpret:
    case BuiltinCall::CallLlvmIntrin:
    case BuiltinCall::CallExtern:
    case BuiltinCall::LlvmIntrinsicId:
    case BuiltinCall::TargetHasFeatures:
    case BuiltinCall::Simd32BitLanes: return intrinsicBuiltin(name, c);
    case BuiltinCall::Target: {
        Bound b(c, {{"target", true}, {"host", false}});
        std::string t = stringArg(b["target"], "target");
        checkTarget(t, b["target"].loc);
        return Value::named(VKind::Target, t);
    }
    case BuiltinCall::Range: {
        // range(stop), range(start, stop[, step]): a list of integers, for a 'for' statement.
        if (c.positional.empty() || c.positional.size() > 3 || !c.keywords.empty())
            throw UserError(c.loc, "range(stop) or range(start, stop[, step])");
        std::int64_t v[3] = {0, 0, 1};
        for (std::size_t k = 0; k < c.positional.size(); ++k) {
            if (c.positional[k].value.kind != VKind::Int)
                throw UserError(c.positional[k].loc,
                                "range() takes integers, not " + typeName(c.positional[k].value));
            v[c.positional.size() == 1 ? 1 : k] = c.positional[k].value.i;
        }
        if (v[2] == 0) throw UserError(c.positional[2].loc, "range() step must not be zero");
        constexpr std::int64_t kMaxRange = 4096;
        std::vector<Value> items;
        for (std::int64_t i = v[0]; v[2] > 0 ? i < v[1] : i > v[1]; i += v[2]) {
            if (items.size() == kMaxRange)
                throw UserError(c.loc, "range() of more than " + std::to_string(kMaxRange) +
                                           " numbers is not supported");
            items.push_back(Value::integer(i));
        }
        return Value::seq(VKind::List, std::move(items));
    }
    case BuiltinCall::Len:
    case BuiltinCall::Int:
    case BuiltinCall::Float: {
        Bound b(c, {{"x", true}});
        const Value& x = b["x"].value;
        if (fn->call == BuiltinCall::Len && x.isSeq())
            return Value::integer(static_cast<std::int64_t>(x.items.size()));
        if (fn->call == BuiltinCall::Int && x.isNumber())
            return Value::integer(x.kind == VKind::Float ? static_cast<std::int64_t>(x.f) : x.i);
        if (fn->call == BuiltinCall::Float && x.isNumber())
            return Value::real(x.kind == VKind::Float ? x.f : static_cast<double>(x.i));
        throw UserError(c.loc, name + "() is not supported here");
    }
    }
    throw UserError(c.loc, name + "() is not supported");
}

Value Evaluator::reduceAxis(const CallArgs& c)
{
    Bound b(c, {{"dom", true}, {"name", false}, {"thread_tag", false}});
    const Arg& d = b["dom"];
    if (!d.value.isSeq() || d.value.items.size() != 2)
        throw UserError(d.loc, "te.reduce_axis takes a range (begin, end)");
    std::string n = b.has("name") ? stringArg(b["name"], "name") : "rv";
    Expr lo = extentOrZero(d.value.items[0], d.loc);
    Expr hi = toIntExpr(d.value.items[1], d.loc);
    Expr ext = simplify(hi - lo);
    if (std::int64_t e; isConstInt(ext, &e) && e <= 0) {
        throw UserError(d.loc, "reduce axis '" + n + "' has extent " + std::to_string(e) +
                                   "; its range must not be empty");
    }
    for (const Expr& bound : {lo, hi}) {
        if (std::int64_t v; isConstInt(bound, &v) && (v > kMaxIndex || v < -kMaxIndex)) {
            throw UserError(d.loc, "reduce axis '" + n + "' reaches " + std::to_string(v) +
                                       "; loops are 32-bit integers, so at most " +
                                       std::to_string(kMaxIndex) + " is supported");
        }
    }
    IterVar iv = makeIterVar(n, {lo, ext}, IterKind::Reduce);
    m_reduceVars.insert(iv->var.get());
    return Value::ofIterVar(iv);
}

Value Evaluator::compute(const CallArgs& c)
{
    Bound b(
        c,
        {{"shape", true}, {"fcompute", true}, {"name", false}, {"tag", false}, {"attrs", false}});
    for (auto& [n, a] : c.keywords)
        if (n != "fcompute" && a.value.kind == VKind::Lambda)
            throw UserError(a.loc, "lambda is only supported as the body of te.compute");
    std::string tname = b.has("name") ? stringArg(b["name"], "name") : "compute";
    std::string tag = b.has("tag") ? stringArg(b["tag"], "tag") : "";
    std::vector<Expr> shape = shapeArg(b["shape"], tname);
    const Arg& f = b["fcompute"];
    if (f.value.kind != VKind::Lambda)
        throw UserError(f.loc, "te.compute needs a lambda as its second argument, not " +
                                   typeName(f.value));
    const ast::Expr& lam = *f.value.lambda;
    if (lam.params.size() != shape.size()) {
        throw UserError(lam.loc, "the lambda of '" + tname + "' takes " +
                                     std::to_string(lam.params.size()) + " argument" +
                                     (lam.params.size() == 1 ? "" : "s") + " but the shape has " +
                                     std::to_string(shape.size()) + " dimension" +
                                     (shape.size() == 1 ? "" : "s"));
    }
    std::vector<IterVar> axes;
    // The lambda's parameters shadow names of the script while its body is evaluated; only the
    // names they shadow are put back (copying the whole environment made a script of n
    // computes take n^2 time).
    std::vector<std::pair<std::string, std::optional<Value>>> shadowed;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        const std::string& name = lam.params[d];
        auto it = m_env.find(name);
        shadowed.emplace_back(name, it == m_env.end() ? std::nullopt : std::optional(it->second));
    }
    auto restore = [&] {
        for (auto p = shadowed.rbegin(); p != shadowed.rend(); ++p) {
            if (p->second)
                m_env[p->first] = *p->second;
            else
                m_env.erase(p->first);
        }
    };
    for (std::size_t d = 0; d < shape.size(); ++d) {
        axes.push_back(makeIterVar(lam.params[d], {makeInt(0), shape[d]}, IterKind::DataPar));
        m_env[lam.params[d]] = Value::ofIterVar(axes.back());
    }
    bool wasIn = m_inCompute;
    m_inCompute = true;
    Value body;
    try {
        body = eval(*lam.value);
    } catch (...) {
        restore();
        m_inCompute = wasIn;
        throw;
    }
    restore();
    m_inCompute = wasIn;
    Expr e = toExpr(body, lam.value->loc);
    checkReductions(e, lam.value->loc, tname);
    checkBuilt(e, lam.value->loc);
    Tensor t = makeCompute(tname, tag, axes, e, c.loc);
    m_program.tensors.push_back(t);
    return Value::ofTensor(VKind::Tensor, t);
}

// Reductions only at the top of a compute body; reduce axes only inside their reduction.
void Evaluator::checkReductions(const Expr& body, SourceLoc loc, const std::string& tname)
{
    auto* r = body.as<ReduceNode>();
    bool nested = false;
    auto visit = [&](const Expr& root) {
        forEachExpr(root, [&](const Expr& e) {
            if (e.as<ReduceNode>()) nested = true;
        });
    };
    if (r) {
        visit(r->source);
        if (r->condition.defined()) visit(r->condition);
    } else {
        visit(body);
    }
    if (nested) {
        throw UserError(loc, "a reduction must be the whole body of te.compute ('" + tname +
                                 "'); compute it as its own tensor and use that");
    }
    std::set<const VarNode*> allowed;
    if (r)
        for (auto& a : r->axes)
            allowed.insert(a->var.get());
    VarSet used;
    collectVars(body, &used);
    for (const VarNode* v : used) {
        if (m_reduceVars.count(v) && !allowed.count(v)) {
            throw UserError(loc, "reduce axis '" + v->name + "' is used in '" + tname +
                                     "' outside a reduction over it; add it to axis= of te.sum");
        }
    }
}

Value Evaluator::createSchedule(const CallArgs& c)
{
    Bound b(c, {{"ops", true}});
    const Arg& a = b["ops"];
    std::vector<Value> ops = a.value.isSeq() ? a.value.items : std::vector<Value>{a.value};
    std::vector<Tensor> outs;
    for (auto& o : ops) {
        if (o.kind != VKind::Op && o.kind != VKind::Tensor)
            throw UserError(a.loc,
                            "te.create_schedule takes an operation (C.op), not " + typeName(o));
        if (o.tensor->isPlaceholder())
            throw UserError(a.loc, "'" + o.tensor->name +
                                       "' is a placeholder; schedule a computed tensor");
        outs.push_back(o.tensor);
    }
    Value s;
    s.kind = VKind::Schedule;
    s.variant = addVariant(std::move(outs));
    touch(s.variant);
    return s;
}

int Evaluator::addVariant(std::vector<Tensor> outs)
{
    Variant v;
    // A "# variant: NAME" comment names the first schedule created after it (the nearest one
    // since the previous te.create_schedule).
    v.name = m_assignName.empty() ? "s" : m_assignName;
    int line = m_stmt->loc.line;
    auto it = m_variantComments.lower_bound(line);
    if (it != m_variantComments.begin()) {
        --it;
        if (it->first > m_lastScheduleLine) v.name = it->second;
    }
    m_lastScheduleLine = m_stmt->endLine;
    std::string base = v.name;
    for (int k = 2; m_program.findVariant(v.name); ++k)
        v.name = base + "_" + std::to_string(k);
    v.loc = m_stmt->loc;
    v.lastLine = m_stmt->endLine;
    v.snapshots.push_back(Schedule(outs));
    const auto& stages = v.snapshots.back().stages();
    if (const auto n = std::count_if(stages.begin(), stages.end(),
                                     [](const Stage& st) { return !st.isPlaceholder(); });
        n > kMaxStages) {
        throw UserError(m_stmt->loc, "this schedule would compute " + std::to_string(n) +
                                         " stages; at most " + std::to_string(kMaxStages) +
                                         " are supported in one kernel");
    }
    keepStageCopies(v.snapshots.back().stages().size());
    m_program.variants.push_back(std::move(v));
    return static_cast<int>(m_program.variants.size()) - 1;
}

Value Evaluator::lowerOrBuild(const std::string& name, const CallArgs& c)
{
    Bound b = name == "tvm.lower" ? Bound(c, {{"inp", true},
                                              {"args", false},
                                              {"name", false},
                                              {"binds", false},
                                              {"simple_mode", false}})
              : name != "tvm.build"
                  ? Bound(c, {{"mod", true}, {"target", false}, {"pipeline", false}})
                  : Bound(c, {{"inputs", true},
                              {"args", false},
                              {"target", false},
                              {"target_host", false},
                              {"name", false},
                              {"binds", false}});
    const Arg& s = b[name == "tvm.lower" ? "inp" : name == "tvm.build" ? "inputs" : "mod"];
    // A TensorIR variant builds from its module (sch.mod), as today's TVM builds it.
    const bool tensorIR = s.value.kind == VKind::TirModule || s.value.kind == VKind::TirSchedule;
    if (s.value.kind != VKind::Schedule && !(tensorIR && name != "tvm.lower"))
        throw UserError(s.loc, name + " needs " +
                                   (name == "tvm.build" ? "a schedule or sch.mod" : "sch.mod") +
                                   ", not " + typeName(s.value));
    Variant& v = m_program.variants[static_cast<std::size_t>(s.value.variant)];
    touch(s.value.variant);
    m_lowered.insert(s.value.variant);
    if (b.has("args")) {
        const Arg& a = b["args"];
        if (!a.value.isSeq()) throw UserError(a.loc, "the arguments must be a list of tensors");
        std::vector<Tensor> args;
        for (auto& t : a.value.items) {
            if (t.kind != VKind::Tensor)
                throw UserError(a.loc, "argument list entries must be tensors, not " + typeName(t));
            if (!v.schedule().find(t.tensor)) {
                throw UserError(a.loc, "tensor '" + t.tensor->name +
                                           "' in the argument list is not part of this schedule");
            }
            args.push_back(t.tensor);
        }
        v.args = args;
        v.argsFromScript = true;
        checkArgs(v, a.loc);
    }
    if (b.has("name")) v.funcName = stringArg(b["name"], "name");
    if (b.has("target")) {
        const Value& t = b["target"].value;
        if (t.kind == VKind::Str) {
            checkTarget(t.s, b["target"].loc);
            v.target = t.s;
            v.targetLoc = b["target"].loc;
        } else if (t.kind == VKind::Target) {
            v.target = t.s;
            v.targetLoc = b["target"].loc;
        } else {
            throw UserError(b["target"].loc, "target must be a string such as \"llvm\"");
        }
    }
    if (name == "tvm.build" && !tensorIR && isGpuTarget(v.target)) checkBoundForGpu(v, v.targetLoc);
    Value r;
    r.kind = VKind::Lowered;
    r.variant = s.value.variant;
    return r;
}

// A target is a CPU's ("llvm ...") or an NVIDIA GPU's ("cuda", "nvptx", with an architecture).
void Evaluator::checkTarget(const std::string& target, SourceLoc loc)
{
    if (target.rfind("llvm", 0) == 0) return;
    if (isGpuTarget(target)) {
        std::string why;
        if (!parseGpuTarget(target, &why)) throw UserError(loc, "target '" + target + "': " + why);
        return;
    }
    throw UserError(loc, "target '" + target +
                             "' is not supported; Loopscope generates code for CPUs (\"llvm "
                             "...\") and NVIDIA GPUs (\"cuda\", \"cuda -arch=sm_80\", \"nvptx "
                             "-mcpu=sm_80\")");
}

// On a GPU every stage that is stored runs inside a kernel: in loops bound to GPU threads, or
// computed inside such loops. TVM refuses the rest when it builds ("Did you forget to bind?").
void Evaluator::checkBoundForGpu(const Variant& v, SourceLoc loc)
{
    const Schedule& sch = v.schedule();
    for (auto& st : sch.stages()) {
        if (st.isPlaceholder() || st.attach != AttachType::Root) continue;
        const bool bound =
            std::any_of(st.leafIterVars.begin(), st.leafIterVars.end(), [&](const IterVar& iv) {
                const IterVarAttr* a = st.attr(iv);
                return a && a->kind == ForKind::ThreadBinding;
            });
        if (bound) continue;
        throw UserError(loc, "target '" + v.target + "' runs on a GPU, but no loop of '" +
                                 st.name() +
                                 "' is bound to a GPU thread axis, so it would run on the host. "
                                 "Did you forget to bind? (s[" +
                                 st.name() + "].bind(axis, te.thread_axis(\"blockIdx.x\")))");
    }
}

// Every placeholder the schedule reads and every output must be an argument.
void Evaluator::checkArgs(const Variant& v, SourceLoc loc)
{
    for (auto& st : v.schedule().stages()) {
        bool needed = st.isPlaceholder() || st.isOutput;
        if (!needed) continue;
        bool present = std::any_of(v.args.begin(), v.args.end(),
                                   [&](const Tensor& t) { return t == st.op || t == st.originOp; });
        if (!present) {
            throw UserError(loc, std::string(st.isOutput ? "output" : "input") + " '" + st.name() +
                                     "' is missing from the argument list");
        }
    }
}

} // namespace loopscope::te_detail
