// Evaluates a parsed TE script top to bottom, as Python would, into a Program. Every value a
// script can hold is a Value; every mistake is a UserError at the offending place.
#include "te/EvaluatorInternal.h"
#include "te/TopiIntrinsics.h"

#include "ir/Limits.h"
#include "schedule/TensorIR.h"
#include "te/Builtins.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <set>

namespace loopscope {

bool bindsGpuThreads(const Variant& variant)
{
    return std::any_of(variant.steps.begin(), variant.steps.end(),
                       [](const Step& s) { return s.primitive == "bind"; });
}

const Variant* Program::findVariant(const std::string& name) const
{
    for (auto& v : variants)
        if (v.name == name) return &v;
    return nullptr;
}

const Parameter* Program::findParameter(const std::string& name) const
{
    for (auto& p : parameters)
        if (p.name == name) return &p;
    return nullptr;
}

namespace te_detail {

void Evaluator::run(const ast::Module& mod)
{
    for (auto& c : mod.comments) {
        if (!c.ownLine) continue;
        m_commentLines.insert(c.loc.line);
        const std::string prefix = "variant:";
        if (c.text.rfind(prefix, 0) == 0) {
            std::string name = c.text.substr(prefix.size());
            name.erase(0, name.find_first_not_of(" \t"));
            name.erase(name.find_last_not_of(" \t") + 1);
            if (!name.empty()) m_variantComments[c.loc.line] = name;
        }
    }
    // A variant's names are those bound after the last statement that touched it. They are
    // recorded when a statement leaves it alone (with that statement's bindings set aside), not
    // after every statement that touches it: recording reads the whole environment, and a chain
    // of n steps on one variant took n^2 of that (3,000 splits: minutes).
    std::set<int> pending; // touched by the last statement, not recorded since
    try {
        for (auto& st : mod.body) {
            m_stmt = &st;
            m_touched.clear();
            m_lowered.clear();
            m_rebound.clear();
            execute(st);
            recordLeftAlone(pending);
            for (int v : m_touched) {
                auto& var = m_program.variants[static_cast<std::size_t>(v)];
                var.lastLine = std::max(var.lastLine, st.endLine);
                if (!m_lowered.count(v))
                    var.scheduleEndLine = std::max(var.scheduleEndLine, st.endLine);
            }
            pending = m_touched;
        }
    } catch (const UserError&) {
        // The variants evaluated before the mistake stay usable (the app keeps showing them),
        // with the names bound before the statement that failed.
        m_touched.clear();
        recordLeftAlone(pending);
        finishVariants();
        throw;
    }
    for (int v : pending)
        recordNames(m_program.variants[static_cast<std::size_t>(v)]);
    finishVariants();
}

void Evaluator::bind(const std::string& name, const Value& v)
{
    auto it = m_env.find(name);
    m_rebound.emplace_back(name, it == m_env.end() ? std::nullopt : std::optional(it->second));
    m_env[name] = v;
}

void Evaluator::recordLeftAlone(const std::set<int>& pending)
{
    std::vector<int> left;
    for (int v : pending)
        if (!m_touched.count(v)) left.push_back(v);
    if (left.empty()) return;
    // The environment as it was before this statement: its bindings undone, then put back.
    std::vector<std::pair<std::string, std::optional<Value>>> now;
    for (auto& [name, before] : m_rebound) {
        auto it = m_env.find(name);
        now.emplace_back(name, it == m_env.end() ? std::nullopt : std::optional(it->second));
    }
    auto set = [this](const std::string& name, const std::optional<Value>& value) {
        if (value)
            m_env[name] = *value;
        else
            m_env.erase(name);
    };
    for (auto p = m_rebound.rbegin(); p != m_rebound.rend(); ++p)
        set(p->first, p->second);
    for (int v : left)
        recordNames(m_program.variants[static_cast<std::size_t>(v)]);
    for (auto p = now.rbegin(); p != now.rend(); ++p)
        set(p->first, p->second);
}

void Evaluator::execute(const ast::Stmt& st)
{
    switch (st.kind) {
    case ast::StmtKind::Import:
    case ast::StmtKind::Pass: return;
    case ast::StmtKind::Expr: eval(*st.value); return;
    case ast::StmtKind::Assign: {
        // Parameters: a top-level assignment of an integer literal (not one in a function).
        std::int64_t literal = 0;
        if (m_callDepth == 0 && isIntLiteral(*st.value, &literal)) {
            for (auto& t : st.targets)
                if (t->kind == ExprKind::Name) bindParameter(*t, literal);
            for (auto& t : st.targets)
                if (t->kind != ExprKind::Name) assign(*t, Value::integer(literal));
            return;
        }
        // `M, K, N = 1024, 1024, 1024`: each name is a parameter too.
        if (m_callDepth == 0 && st.value->kind == ExprKind::Tuple) {
            bool allLiterals = true;
            for (auto& item : st.value->items)
                allLiterals = allLiterals && isIntLiteral(*item, &literal);
            for (auto& t : st.targets) {
                if (!allLiterals || (t->kind != ExprKind::Tuple && t->kind != ExprKind::List) ||
                    t->items.size() != st.value->items.size())
                    continue;
                bool names = true;
                for (auto& x : t->items)
                    names = names && x->kind == ExprKind::Name;
                if (!names) continue;
                for (std::size_t k = 0; k < t->items.size(); ++k) {
                    isIntLiteral(*st.value->items[k], &literal);
                    bindParameter(*t->items[k], literal);
                }
                return;
            }
        }
        m_assignName = st.targets.front()->kind == ExprKind::Name ? st.targets.front()->name : "";
        Value v = eval(*st.value);
        m_assignName.clear();
        for (auto& t : st.targets)
            assign(*t, v);
        return;
    }
    case ast::StmtKind::For: executeFor(st); return;
    case ast::StmtKind::Def:
        if (st.decorators.empty()) {
            Value f;
            f.kind = VKind::Function;
            f.def = &st;
            if (m_callDepth > 0)
                f.closure = std::make_shared<const std::unordered_map<std::string, Value>>(m_env);
            bind(st.name, f);
            return;
        }
        [[fallthrough]];
    case ast::StmtKind::Class: bind(st.name, readTvmScript(st)); return;
    case ast::StmtKind::With:
        throw UserError(st.loc, "'with' blocks are read only inside a TVMScript function "
                                "(@T.prim_func): T.block, T.sblock and T.init");
    case ast::StmtKind::Return:
        if (m_callDepth == 0) throw UserError(st.loc, "'return' outside a function");
        m_returned = st.value ? eval(*st.value) : Value::none();
        return;
    case ast::StmtKind::Assert:
        if (!truth(eval(*st.value), st.value->loc)) {
            std::string message;
            if (!st.targets.empty()) {
                Value m = eval(*st.targets[0]);
                message = m.kind == VKind::Str ? m.s : typeName(m);
            }
            throw UserError(st.loc, "AssertionError" + (message.empty() ? "" : ": " + message));
        }
        return;
    case ast::StmtKind::If: {
        const ast::Stmt* outer = m_stmt;
        executeBody(truth(eval(*st.value), st.value->loc) ? st.body : st.orelse);
        m_stmt = outer;
        return;
    }
    }
}

void Evaluator::executeBody(const std::vector<ast::Stmt>& body)
{
    for (const ast::Stmt& inner : body) {
        m_stmt = &inner;
        execute(inner);
        if (m_returned) return;
    }
}

bool Evaluator::truth(const Value& v, SourceLoc loc)
{
    switch (v.kind) {
    case VKind::None: return false;
    case VKind::Int:
    case VKind::Bool: return v.i != 0;
    case VKind::Float: return v.f != 0;
    case VKind::Str: return !v.s.empty();
    case VKind::Tuple:
    case VKind::List: return !v.items.empty();
    case VKind::Expr: {
        std::int64_t c = 0;
        if (isConstInt(v.expr, &c)) return c != 0;
        throw UserError(loc, "this condition is an expression of the program, known only when "
                             "it runs; an 'if' of the script needs a value known now (for a "
                             "condition in the program use tvm.tir.if_then_else)");
    }
    default: return true;
    }
}

Value Evaluator::callFunction(const Value& f, const CallArgs& c)
{
    const ast::Stmt& def = *f.def;
    constexpr int kMaxCallDepth = 100;
    constexpr std::int64_t kMaxCalls = 10000; // over the whole script
    if (m_callDepth >= kMaxCallDepth)
        throw UserError(c.loc, "functions call each other more than " +
                                   std::to_string(kMaxCallDepth) + " deep here");
    if (++m_calls > kMaxCalls)
        throw UserError(c.loc, "the script calls its functions more than " +
                                   std::to_string(kMaxCalls) + " times");
    std::vector<Param> params;
    for (const ast::Param& p : def.params)
        params.push_back({p.name.c_str(), p.defaultValue == nullptr});
    CallArgs named = c;
    named.function = def.name;
    Bound b(named, params);
    std::vector<std::pair<std::string, Value>> values;
    for (const ast::Param& p : def.params)
        values.emplace_back(p.name, b.has(p.name) ? b[p.name].value : eval(*p.defaultValue));
    for (auto& [name, v] : values)
        if (v.kind == VKind::Lambda)
            throw UserError(b[name].loc, "a lambda can only be the body of te.compute here, not "
                                         "an argument of a function of the script");

    auto saved = m_env;
    const std::size_t rebound = m_rebound.size();
    const ast::Stmt* outer = m_stmt;
    auto restore = [&] {
        m_env = std::move(saved);
        m_rebound.resize(rebound);
        m_stmt = outer;
        --m_callDepth;
        m_returned.reset();
    };
    if (f.closure)
        for (auto& [name, v] : *f.closure)
            m_env[name] = v;
    for (auto& [name, v] : values)
        m_env[name] = v;
    ++m_callDepth;
    try {
        executeBody(def.body);
    } catch (...) {
        restore();
        throw;
    }
    Value result = m_returned.value_or(Value::none());
    restore();
    return result;
}

// `for b in [b0, b1]: ...`: the body once per item of a list or tuple, each statement in turn
// the one being evaluated (a step it makes is located at it).
void Evaluator::executeFor(const ast::Stmt& st)
{
    Value seq = eval(*st.value);
    if (!seq.isSeq())
        throw UserError(st.value->loc,
                        "a 'for' statement goes over a list or tuple here (blocks, loops, "
                        "names), not " +
                            typeName(seq));
    const ast::Stmt* outer = m_stmt;
    constexpr std::int64_t kMaxIterations = 100000; // over the whole script
    for (const Value& item : seq.items) {
        if (++m_forIterations > kMaxIterations)
            throw UserError(st.loc, "the script's 'for' statements run more than " +
                                        std::to_string(kMaxIterations) + " times");
        assign(*st.targets[0], item);
        executeBody(st.body);
        if (m_returned) break;
    }
    m_stmt = outer;
}

// A parameter takes its --set value if one is given; the first assignment is the one listed.
void Evaluator::bindParameter(const ast::Expr& target, std::int64_t literal)
{
    std::int64_t v = literal;
    bool overridden = false;
    if (auto it = m_overrides.find(target.name); it != m_overrides.end()) {
        v = it->second;
        overridden = true;
        usedOverrides.insert(target.name);
    }
    if (!m_program.findParameter(target.name))
        m_program.parameters.push_back({target.name, v, target.loc, overridden});
    bind(target.name, Value::integer(overridden ? v : literal));
}

bool Evaluator::isIntLiteral(const ast::Expr& e, std::int64_t* out)
{
    if (e.kind == ExprKind::Int) {
        *out = e.intValue;
        return true;
    }
    if (e.kind == ExprKind::Unary && e.name == "-" && e.value->kind == ExprKind::Int) {
        *out = -e.value->intValue;
        return true;
    }
    // Arithmetic on integer literals alone (`N = 1024 * 1024`, `1 << 20`): a size written as
    // an expression is a parameter too. Within 2^62, so that no step overflows.
    if (e.kind == ExprKind::Binary && e.lhs && e.rhs) {
        std::int64_t a = 0, b = 0;
        if (!isIntLiteral(*e.lhs, &a) || !isIntLiteral(*e.rhs, &b)) return false;
        constexpr std::int64_t kLimit = std::int64_t(1) << 62;
        auto fits = [&](long double v) { return v > -kLimit && v < kLimit; };
        const std::string& op = e.name;
        long double r = 0;
        if (op == "+")
            r = static_cast<long double>(a) + b;
        else if (op == "-")
            r = static_cast<long double>(a) - b;
        else if (op == "*")
            r = static_cast<long double>(a) * b;
        else if (op == "//" && b > 0 && a >= 0)
            r = static_cast<long double>(a / b);
        else if (op == "%" && b > 0 && a >= 0)
            r = static_cast<long double>(a % b);
        else if (op == "<<" && b >= 0 && b < 62)
            r = static_cast<long double>(a) * (std::int64_t(1) << b);
        else if (op == "**" && b >= 0 && b < 63) {
            r = 1;
            for (std::int64_t k = 0; k < b && fits(r); ++k)
                r *= a;
        } else
            return false;
        if (!fits(r)) return false;
        *out = static_cast<std::int64_t>(r);
        return true;
    }
    return false;
}

void Evaluator::checkBuilt(const Expr& e, SourceLoc loc) const
{
    // Variables let a script build an expression over many statements (y = y * y, 100 times):
    // bounded here, where it is named, before any pass walks it.
    const ExprShape shape = exprShape(e, kMaxBuiltDepth);
    if (shape.depth > kMaxBuiltDepth) {
        throw UserError(loc, "this expression is nested more than " +
                                 std::to_string(kMaxBuiltDepth) +
                                 " levels deep; split it into several stages");
    }
    if (shape.nodes > static_cast<long double>(kMaxInlinedNodes)) {
        char count[32];
        std::snprintf(count, sizeof count, "%.3Lg", shape.nodes);
        throw UserError(loc, "this expression has " + std::string(count) + " nodes; at most " +
                                 std::to_string(kMaxInlinedNodes) +
                                 " are supported: split it into several stages");
    }
}

void Evaluator::assign(const ast::Expr& target, const Value& v)
{
    if (target.kind == ExprKind::Name) {
        if (v.kind == VKind::Expr && v.expr.defined()) checkBuilt(v.expr, target.loc);
        bind(target.name, v);
        return;
    }
    if (target.kind == ExprKind::Subscript)
        throw UserError(target.loc, "cannot assign to a subscript; only names (or tuples and lists "
                                    "of names) can be assigned in a TE script");
    // Tuple or list unpacking.
    if (!v.isSeq()) {
        throw UserError(target.loc, "cannot unpack " + typeName(v) + " into " +
                                        std::to_string(target.items.size()) + " names");
    }
    // `i, *rest = loops`: the starred name takes what the others leave, as a list.
    const auto star =
        std::find_if(target.items.begin(), target.items.end(),
                     [](const ast::ExprPtr& t) { return t->kind == ExprKind::Starred; });
    if (star != target.items.end()) {
        const std::size_t before = static_cast<std::size_t>(star - target.items.begin());
        const std::size_t after = target.items.size() - before - 1;
        if (v.items.size() < before + after)
            throw UserError(target.loc, "cannot unpack " + std::to_string(v.items.size()) +
                                            " values into at least " +
                                            std::to_string(before + after) + " names");
        for (std::size_t k = 0; k < before; ++k)
            assign(*target.items[k], v.items[k]);
        const std::size_t restEnd = v.items.size() - after;
        assign(*(*star)->value,
               Value::seq(VKind::List,
                          std::vector<Value>(v.items.begin() + before, v.items.begin() + restEnd)));
        for (std::size_t k = 0; k < after; ++k)
            assign(*target.items[before + 1 + k], v.items[restEnd + k]);
        return;
    }
    if (v.items.size() != target.items.size()) {
        throw UserError(target.loc, "cannot unpack " + std::to_string(v.items.size()) + " value" +
                                        (v.items.size() == 1 ? "" : "s") + " into " +
                                        std::to_string(target.items.size()) + " name" +
                                        (target.items.size() == 1 ? "" : "s"));
    }
    for (std::size_t k = 0; k < v.items.size(); ++k)
        assign(*target.items[k], v.items[k]);
}

Value Evaluator::eval(const ast::Expr& e)
{
    switch (e.kind) {
    case ExprKind::Name: return lookup(e);
    case ExprKind::Int: return Value::integer(e.intValue);
    case ExprKind::Float: return Value::real(e.floatValue);
    case ExprKind::String: return Value::str(e.name);
    case ExprKind::Bool: return Value::boolean(e.boolValue);
    case ExprKind::None: return Value::none();
    case ExprKind::Tuple:
    case ExprKind::List: {
        std::vector<Value> items;
        for (auto& it : e.items) {
            if (it->kind != ExprKind::Starred) {
                items.push_back(eval(*it));
                continue;
            }
            Value seq = eval(*it->value);
            if (!seq.isSeq())
                throw UserError(it->value->loc, "only a list or tuple can be unpacked with '*', "
                                                "not " +
                                                    typeName(seq));
            items.insert(items.end(), seq.items.begin(), seq.items.end());
        }
        return Value::seq(e.kind == ExprKind::Tuple ? VKind::Tuple : VKind::List, std::move(items));
    }
    case ExprKind::Starred:
        throw UserError(e.loc, "a starred expression ('*args') can only be an argument, an item "
                               "of a list or tuple, or an assignment target");
    case ExprKind::Slice:
        throw UserError(e.loc, "a slice ('a[1:2]') can only index a list or tuple here");
    case ExprKind::Dict: {
        std::vector<Value> items;
        for (auto& it : e.items)
            items.push_back(eval(*it));
        return Value::seq(VKind::Dict, std::move(items));
    }
    case ExprKind::Attribute: return attribute(eval(*e.value), e);
    case ExprKind::Subscript: return subscript(e);
    case ExprKind::Call: return call(e);
    case ExprKind::Binary: return binary(e.name, eval(*e.lhs), eval(*e.rhs), e.opLoc);
    case ExprKind::Unary: return unary(e);
    case ExprKind::Compare: return compare(e.name, eval(*e.lhs), eval(*e.rhs), e.opLoc);
    case ExprKind::BoolOp: return boolOp(e);
    case ExprKind::Lambda:
        throw UserError(e.loc, "lambda is only supported as the body of te.compute");
    case ExprKind::IfExp:
        throw UserError(e.loc, "conditional expressions ('a if c else b') are not supported; "
                               "use tvm.tir.if_then_else(c, a, b)");
    }
    throw UserError(e.loc, "unsupported expression");
}

Value Evaluator::lookup(const ast::Expr& e)
{
    if (auto it = m_env.find(e.name); it != m_env.end()) return it->second;
    if (e.name == "tvm") return Value::named(VKind::Module, "tvm");
    if (e.name == "te") return Value::named(VKind::Module, "te");
    if (findBuiltin({}, e.name)) return Value::named(VKind::Builtin, e.name);
    // TOPI's intrinsics, as `from tvm.topi.x86.tensor_intrin import ...` names them.
    if (auto it = topiFunctions().find(e.name); it != topiFunctions().end()) return it->second;
    // TOPI's x86 helpers, as `from tvm.target.x86 import target_has_features` names them.
    if (findBuiltin("tvm.target.x86", e.name))
        return Value::named(VKind::Builtin, "tvm.target.x86." + e.name);
    if (e.name == "np" || e.name == "numpy") {
        throw UserError(e.loc, "numpy is not available in a TE script: Loopscope evaluates the "
                               "script itself, and runs and checks variants without Python");
    }
    // A script is not Python: nothing in it reads or writes files, opens connections or starts
    // programs. The names a Python script would do that with say so.
    static const std::set<std::string> outside = {
        "open",    "exec",    "eval",    "compile",   "__import__", "input",      "globals",
        "locals",  "getattr", "setattr", "os",        "sys",        "subprocess", "shutil",
        "pathlib", "socket",  "io",      "importlib", "builtins",   "ctypes",     "pickle"};
    if (outside.count(e.name)) {
        throw UserError(e.loc, "name '" + e.name +
                                   "' is not defined: a TE script is not Python, and nothing in "
                                   "it reads or writes files or starts programs");
    }
    throw UserError(e.loc, "name '" + e.name + "' is not defined");
}

Value Evaluator::attribute(const Value& obj, const ast::Expr& e)
{
    const std::string& a = e.name;
    SourceLoc loc = e.opLoc.line ? e.opLoc : e.loc;
    switch (obj.kind) {
    case VKind::Module: return moduleAttribute(obj.s, a, loc);
    case VKind::Tensor:
        if (a == "op") return Value::ofTensor(VKind::Op, obj.tensor);
        if (a == "shape") return shapeValue(obj.tensor);
        if (a == "dtype") return Value::str(obj.tensor->dtype.str());
        if (a == "name") return Value::str(obj.tensor->name);
        if (a == "ndim") return Value::integer(obj.tensor->ndim());
        break;
    case VKind::Op: {
        if (a == "axis" || a == "reduce_axis") {
            std::vector<Value> items;
            for (auto& iv : a == "axis" ? obj.tensor->axes : obj.tensor->reduceAxes)
                items.push_back(Value::ofIterVar(iv));
            return Value::seq(VKind::List, std::move(items));
        }
        if (a == "name") return Value::str(obj.tensor->name);
        if (a == "output") return method(obj, a);
        if (a == "input_tensors") {
            std::vector<Value> items;
            for (auto& t : inputTensors(obj.tensor))
                items.push_back(Value::ofTensor(VKind::Tensor, t));
            return Value::seq(VKind::List, std::move(items));
        }
        break;
    }
    case VKind::IterVar:
        if (a == "var") return Value::ofExpr(obj.iv->var);
        if (a == "dom") {
            return Value::seq(VKind::Tuple,
                              {exprValue(obj.iv->dom.min), exprValue(obj.iv->dom.extent)});
        }
        break;
    case VKind::Schedule:
        if (isSchedulePrimitive(a) || a == "normalize") return method(obj, a);
        break;
    case VKind::Stage:
        if (a == "op") {
            const Stage* st = schedule(obj.variant).find(obj.tensor);
            return Value::ofTensor(VKind::Op, st->op);
        }
        if (a == "leaf_iter_vars" || a == "all_iter_vars") {
            const Stage* st = schedule(obj.variant).find(obj.tensor);
            std::vector<Value> items;
            for (auto& iv : a == "leaf_iter_vars" ? st->leafIterVars : st->allIterVars)
                items.push_back(Value::ofIterVar(iv));
            return Value::seq(VKind::List, std::move(items));
        }
        if (isStagePrimitive(a)) return method(obj, a);
        break;
    case VKind::TirSchedule:
    case VKind::TirModule:
    case VKind::TirTrace:
    case VKind::TirLoop:
    case VKind::TirBlock: return tirAttribute(obj, a, loc);
    case VKind::Target:
        if (a == "kind") return obj;
        if (a == "name") return Value::str("llvm");
        break;
    case VKind::ThreadAxis:
        // The thread's variable, named by its tag: in a stage's store predicate it is the
        // stage's loop bound to that thread.
        if (a == "var") return Value::ofExpr(Var(obj.s));
        break;
    case VKind::Expr:
        if (a == "astype" || a == "equal") return method(obj, a);
        if (a == "dtype") return Value::str(obj.expr.type().str());
        break;
    case VKind::Str:
        if (a == "format") break;
        break;
    case VKind::Buffer:
    case VKind::IRBuilder:
    case VKind::TensorIntrin: return intrinsicAttribute(obj, a, loc);
    default: break;
    }
    if ((obj.kind == VKind::Expr || obj.kind == VKind::IterVar) && (a == "astype" || a == "equal"))
        return method(obj, a);
    std::string hint;
    if (obj.kind == VKind::Tensor && (a == "axis" || a == "reduce_axis"))
        hint = " (did you mean ." + std::string("op.") + a + "?)";
    if (obj.kind == VKind::Stage && a == "axis") hint = " (did you mean .op.axis?)";
    throw UserError(loc, typeName(obj) + " has no attribute '" + a + "'" + hint);
}

Value Evaluator::method(const Value& obj, const std::string& name)
{
    Value m = Value::named(VKind::Method, name);
    m.self = std::make_shared<Value>(obj);
    return m;
}

Value Evaluator::moduleAttribute(const std::string& mod, const std::string& a, SourceLoc loc)
{
    const auto& submodules = tvmSubmodules();
    if (mod == "tvm" && std::find(submodules.begin(), submodules.end(), a) != submodules.end())
        return Value::named(VKind::Module, a == "te" ? "te" : "tvm." + a);
    if (mod == "tvm.s_tir" && a == "schedule") return Value::named(VKind::Module, "tvm.s_tir");
    if (mod == "tvm.tir" && a == "ir_builder")
        return Value::named(VKind::Module, "tvm.tir.ir_builder");
    if (mod == "tvm.target" && (a == "codegen" || a == "x86"))
        return Value::named(VKind::Module, "tvm.target." + a);
    if ((mod == "tvm" && a == "topi") || (mod == "tvm.topi" && a == "x86") ||
        (mod == "tvm.topi.x86" && a == "tensor_intrin"))
        return Value::named(VKind::Module, mod + "." + a);
    if (mod == "tvm.topi.x86.tensor_intrin") {
        auto it = topiFunctions().find(a);
        if (it != topiFunctions().end()) return it->second;
        std::string names;
        for (auto& [name, f] : topiFunctions())
            names += (names.empty() ? "" : ", ") + name;
        throw UserError(loc, "TOPI's tvm.topi.x86.tensor_intrin has no '" + a + "' here; it has " +
                                 names);
    }
    if (findBuiltin(mod, a)) return Value::named(VKind::Builtin, mod + "." + a);
    if (mod == "tvm" && (a == "nd" || a == "device" || a == "cpu" || a == "testing" ||
                         a == "runtime" || a == "transform" || a == "autotvm")) {
        throw UserError(loc, "tvm." + a +
                                 " is not supported in a TE script: Loopscope runs, "
                                 "checks and benchmarks variants itself (loopscope-cli run/bench)");
    }
    throw UserError(loc,
                    "module '" + mod + "' has no attribute '" + a + "' that Loopscope supports");
}

Value Evaluator::subscript(const ast::Expr& e)
{
    Value obj = eval(*e.value);
    SourceLoc loc = e.opLoc.line ? e.opLoc : e.loc;
    if (obj.kind == VKind::Schedule) {
        if (e.items.size() != 1) throw UserError(loc, "a schedule is indexed by one tensor: s[C]");
        Value t = eval(*e.items[0]);
        if (t.kind != VKind::Tensor && t.kind != VKind::Op)
            throw UserError(e.items[0]->loc,
                            "a schedule is indexed by a tensor, not " + typeName(t));
        Schedule& sch = schedule(obj.variant);
        if (!sch.find(t.tensor))
            throw UserError(e.items[0]->loc,
                            "tensor '" + t.tensor->name + "' is not part of this schedule");
        Value st = Value::ofTensor(VKind::Stage, sch.find(t.tensor)->originOp);
        st.variant = obj.variant;
        touch(obj.variant);
        return st;
    }
    if (obj.kind == VKind::Tensor) {
        std::vector<Expr> idx;
        std::vector<SourceLoc> locs;
        for (auto& it : e.items) {
            Value v = eval(*it);
            if (v.isSeq()) { // A[(i, j)] or A[idx] with a tuple
                for (auto& x : v.items) {
                    idx.push_back(indexExpr(x, it->loc, obj.tensor, idx.size()));
                    locs.push_back(it->loc);
                }
                continue;
            }
            idx.push_back(indexExpr(v, it->loc, obj.tensor, idx.size()));
            locs.push_back(it->loc);
        }
        if (static_cast<int>(idx.size()) != obj.tensor->ndim()) {
            throw UserError(loc, "tensor '" + obj.tensor->name + "' has " +
                                     std::to_string(obj.tensor->ndim()) + " dimension" +
                                     (obj.tensor->ndim() == 1 ? "" : "s") +
                                     " but is indexed with " + std::to_string(idx.size()) + " ind" +
                                     (idx.size() == 1 ? "ex" : "ices"));
        }
        return Value::ofExpr(makeTensorLoad(obj.tensor, idx));
    }
    if (obj.kind == VKind::IRModule) {
        // Module["main"]: one of its functions.
        if (e.items.size() != 1) throw UserError(loc, "a module is indexed by a function's name");
        Value n = eval(*e.items[0]);
        for (const Value& f : obj.items)
            if (n.kind == VKind::Str && f.s == n.s) return f;
        std::string names;
        for (const Value& f : obj.items)
            names += (names.empty() ? "" : ", ") + f.s;
        throw UserError(e.items[0]->loc,
                        "the module '" + obj.s + "' has no function " +
                            (n.kind == VKind::Str ? "'" + n.s + "'" : typeName(n)) + " (it has " +
                            names + ")");
    }
    if (obj.isSeq()) {
        if (e.items.size() != 1)
            throw UserError(loc, "a " + std::string(obj.kind == VKind::List ? "list" : "tuple") +
                                     " takes one index");
        if (e.items[0]->kind == ExprKind::Slice) return slice(obj, *e.items[0]);
        Value i = eval(*e.items[0]);
        if (i.kind != VKind::Int)
            throw UserError(e.items[0]->loc, "list index must be an integer, not " + typeName(i));
        std::int64_t n = static_cast<std::int64_t>(obj.items.size());
        std::int64_t k = i.i < 0 ? i.i + n : i.i;
        if (k < 0 || k >= n) {
            throw UserError(e.items[0]->loc, "index " + std::to_string(i.i) +
                                                 " is out of range for " + typeName(obj) + " of " +
                                                 std::to_string(n) + " items");
        }
        return obj.items[static_cast<std::size_t>(k)];
    }
    throw UserError(loc, typeName(obj) + " cannot be indexed");
}

// loops[1:], loops[:-1], loops[::2]: Python's slice of a list or tuple.
Value Evaluator::slice(const Value& seq, const ast::Expr& s)
{
    const std::int64_t n = static_cast<std::int64_t>(seq.items.size());
    auto part = [&](const ast::ExprPtr& p) -> std::optional<std::int64_t> {
        if (!p) return std::nullopt;
        Value v = eval(*p);
        if (v.kind == VKind::None) return std::nullopt;
        if (v.kind != VKind::Int)
            throw UserError(p->loc, "slice indices must be integers, not " + typeName(v));
        return v.i;
    };
    const std::int64_t step = part(s.value).value_or(1);
    if (step == 0) throw UserError(s.value->loc, "slice step cannot be zero");
    // Python's rule: a negative index counts from the end, then the index is clamped.
    auto bound = [&](std::optional<std::int64_t> i, std::int64_t absent, std::int64_t lo,
                     std::int64_t hi) {
        if (!i) return absent;
        return std::clamp(*i < 0 ? *i + n : *i, lo, hi);
    };
    std::vector<Value> out;
    if (step > 0) {
        const std::int64_t start = bound(part(s.lhs), 0, 0, n);
        const std::int64_t stop = bound(part(s.rhs), n, 0, n);
        for (std::int64_t i = start; i < stop; i += step)
            out.push_back(seq.items[static_cast<std::size_t>(i)]);
    } else {
        const std::int64_t start = bound(part(s.lhs), n - 1, -1, n - 1);
        const std::int64_t stop = bound(part(s.rhs), -1, -1, n - 1);
        for (std::int64_t i = start; i > stop; i += step)
            out.push_back(seq.items[static_cast<std::size_t>(i)]);
    }
    return Value::seq(seq.kind, std::move(out));
}

void Evaluator::recordNames(Variant& v)
{
    v.tensorVars.clear();
    v.axisVars.clear();
    v.stageAxisVars.clear();
    v.blockVars.clear();
    v.blockLoopVars.clear();
    v.names.clear();
    const Schedule& sch = v.snapshots.back();
    const TirFunc* tir = sch.tensorIR();
    // Each block's loops by their variables, for the loop handles.
    std::unordered_map<const VarNode*, std::vector<std::string>> blocksOfLoop;
    if (tir)
        for (const std::string& b : blockNames(*tir))
            for (const Var& l : blockLoops(*tir, b))
                blocksOfLoop[l.get()].push_back(b);
    const int self = static_cast<int>(&v - m_program.variants.data());
    // Which stages hold each axis, asked once per axis rather than by a scan of every stage's.
    std::unordered_map<const IterVarNode*, std::vector<const Stage*>> stagesOf;
    for (const Stage& st : sch.stages())
        for (const IterVar& iv : st.allIterVars)
            stagesOf[iv.get()].push_back(&st);
    for (auto& [name, value] : m_env) {
        v.names.push_back(name);
        if (value.kind == VKind::Tensor) {
            v.tensorVars[name] = value.tensor->name;
        } else if (value.kind == VKind::IterVar) {
            v.axisVars[name] = value.iv->name();
            // Two stages may have axes of one name (n of a padding and of a convolution).
            // Of two variables holding one axis, the last in name order (as axisVars reads).
            auto held = stagesOf.find(value.iv.get());
            if (held == stagesOf.end()) continue;
            for (const Stage* st : held->second) {
                std::string& var = v.stageAxisVars[st->name()][value.iv->name()];
                if (var < name) var = name;
            }
        } else if (tir && value.kind == VKind::TirBlock && value.variant == self) {
            const std::string block = currentBlockName(self, value.s);
            if (!findBlock(*tir, block)) continue;
            std::string& var = v.blockVars[block];
            if (var.empty() || name < var) var = name;
        } else if (tir && value.kind == VKind::TirLoop && value.variant == self) {
            auto held = blocksOfLoop.find(value.expr.as<VarNode>());
            if (held == blocksOfLoop.end()) continue;
            for (const std::string& b : held->second) {
                std::string& var = v.blockLoopVars[b][value.expr.as<VarNode>()->name];
                if (var.empty() || name < var) var = name;
            }
        } else if ((value.kind == VKind::Schedule || value.kind == VKind::TirSchedule) &&
                   value.variant >= 0 &&
                   &m_program.variants[static_cast<std::size_t>(value.variant)] == &v)
            v.scheduleVar = name;
    }
    std::sort(v.names.begin(), v.names.end());
}

void Evaluator::finishVariants()
{
    for (auto& v : m_program.variants) {
        if (v.argsFromScript) continue;
        // Placeholders in declaration order, then the outputs.
        for (auto& t : m_program.tensors)
            if (t->isPlaceholder() && v.snapshots.front().find(t)) v.args.push_back(t);
        for (auto& o : v.snapshots.front().outputs())
            v.args.push_back(o);
    }
}

} // namespace te_detail

namespace te_detail {

const std::unordered_map<std::string, Value>& Evaluator::topiFunctions()
{
    static const ast::ParseResult parsed = ast::parseScript(topiX86TensorIntrinSource());
    static const std::shared_ptr<std::unordered_map<std::string, Value>> functions = [] {
        LS_ASSERT(parsed.ok, "TOPI's tensor_intrin.py does not parse: " << parsed.error.message);
        auto map = std::make_shared<std::unordered_map<std::string, Value>>();
        for (const ast::Stmt& st : parsed.module.body) {
            if (st.kind != ast::StmtKind::Def) continue;
            Value f;
            f.kind = VKind::Function;
            f.def = &st;
            (*map)[st.name] = f;
        }
        for (auto& [name, f] : *map)
            f.closure = map; // each sees the others (kept for the process's life)
        return map;
    }();
    return *functions;
}

} // namespace te_detail

namespace {
TensorIntrin makeTensorIntrin(const std::string& expression, std::string* why);
} // namespace

TensorIntrin evaluateTensorIntrin(const std::string& expression, std::string* why)
{
    // The same expression makes the same intrinsic in every script (it reads nothing of one, and
    // the machine's features do not change): made once per process, not once per step resolved
    // (the tuner resolves its tensorize step for every candidate).
    static std::mutex mutex;
    static std::map<std::string, std::pair<TensorIntrin, std::string>> made;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto it = made.find(expression); it != made.end()) {
            if (why) *why = it->second.second;
            return it->second.first;
        }
    }
    std::string reason;
    TensorIntrin intrin = makeTensorIntrin(expression, &reason);
    std::lock_guard<std::mutex> lock(mutex);
    made.emplace(expression, std::make_pair(intrin, reason));
    if (why) *why = reason;
    return intrin;
}

namespace {

TensorIntrin makeTensorIntrin(const std::string& expression, std::string* why)
{
    const std::string source = "import tvm\nfrom tvm import te\nintrinsic__ = " + expression + "\n";
    ast::ParseResult parsed = ast::parseScript(source);
    if (!parsed.ok) {
        if (why) *why = parsed.error.message;
        return {};
    }
    te_detail::Evaluator ev({});
    try {
        ev.run(parsed.module);
    } catch (const UserError& e) {
        if (why) *why = e.what();
        return {};
    }
    const te_detail::Value* v = ev.binding("intrinsic__");
    if (!v || v->kind != te_detail::VKind::TensorIntrin) {
        if (why) *why = "'" + expression + "' is not a tensor intrinsic";
        return {};
    }
    return v->intrin;
}

} // namespace

EvalResult evaluateScript(const std::string& source,
                          const std::map<std::string, std::int64_t>& overrides,
                          std::vector<std::string>* unusedOverrides)
{
    EvalResult result;
    ast::ParseResult parsed = ast::parseScript(source);
    if (!parsed.ok) {
        result.error = parsed.error;
        return result;
    }
    te_detail::Evaluator ev(overrides);
    try {
        ev.run(parsed.module);
        result.ok = true;
    } catch (const UserError& e) {
        result.error = e.diagnostic();
    }
    result.program = std::move(ev.program());
    if (unusedOverrides) {
        for (auto& [name, v] : overrides)
            if (!ev.usedOverrides.count(name)) unusedOverrides->push_back(name);
    }
    return result;
}

} // namespace loopscope
