// Evaluates a parsed TE script top to bottom, as Python would, into a Program. Every value a
// script can hold is a Value; every mistake is a UserError at the offending place.
#include "ir/Analyzer.h"
#include "ir/IRUtil.h"
#include "schedule/Primitives.h"
#include "te/Ast.h"
#include "te/Program.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <unordered_map>

namespace loopscope {

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

namespace {

using ast::ExprKind;

enum class VKind {
    None,
    Int,
    Float,
    Bool,
    Str,
    Tuple,
    List,
    Expr,
    Tensor,
    Op,
    IterVar,
    Module,
    Builtin,
    Method,
    Schedule,
    Stage,
    Lowered,
    Target,
    Lambda,
    ThreadAxis,
};

struct Value {
    VKind kind = VKind::None;
    std::int64_t i = 0;
    double f = 0.0;
    std::string s; // Str value; Module/Builtin/Method name; ThreadAxis tag
    std::vector<Value> items;
    loopscope::Expr expr;
    loopscope::Tensor tensor;
    loopscope::IterVar iv;
    int variant = -1;
    std::shared_ptr<Value> self;
    const ast::Expr* lambda = nullptr;

    static Value none() { return {}; }
    static Value integer(std::int64_t v)
    {
        Value x;
        x.kind = VKind::Int;
        x.i = v;
        return x;
    }
    static Value real(double v)
    {
        Value x;
        x.kind = VKind::Float;
        x.f = v;
        return x;
    }
    static Value boolean(bool v)
    {
        Value x;
        x.kind = VKind::Bool;
        x.i = v ? 1 : 0;
        return x;
    }
    static Value str(std::string v)
    {
        Value x;
        x.kind = VKind::Str;
        x.s = std::move(v);
        return x;
    }
    static Value ofExpr(loopscope::Expr e)
    {
        Value x;
        x.kind = VKind::Expr;
        x.expr = std::move(e);
        return x;
    }
    static Value seq(VKind k, std::vector<Value> items)
    {
        Value x;
        x.kind = k;
        x.items = std::move(items);
        return x;
    }
    static Value named(VKind k, std::string name)
    {
        Value x;
        x.kind = k;
        x.s = std::move(name);
        return x;
    }
    static Value ofTensor(VKind k, loopscope::Tensor t)
    {
        Value x;
        x.kind = k;
        x.tensor = std::move(t);
        return x;
    }
    static Value ofIterVar(loopscope::IterVar v)
    {
        Value x;
        x.kind = VKind::IterVar;
        x.iv = std::move(v);
        return x;
    }
    bool isNumber() const
    {
        return kind == VKind::Int || kind == VKind::Float || kind == VKind::Bool;
    }
    bool isSeq() const { return kind == VKind::Tuple || kind == VKind::List; }
};

std::string typeName(const Value& v)
{
    switch (v.kind) {
    case VKind::None: return "None";
    case VKind::Int: return "an integer";
    case VKind::Float: return "a float";
    case VKind::Bool: return "a bool";
    case VKind::Str: return "a string";
    case VKind::Tuple: return "a tuple";
    case VKind::List: return "a list";
    case VKind::Expr: return "an expression";
    case VKind::Tensor: return "tensor '" + v.tensor->name + "'";
    case VKind::Op: return "the operation of '" + v.tensor->name + "'";
    case VKind::IterVar: return "axis '" + axisDisplayName(v.iv->name()) + "'";
    case VKind::Module: return "module '" + v.s + "'";
    case VKind::Builtin: return "function '" + v.s + "'";
    case VKind::Method: return "method '" + v.s + "'";
    case VKind::Schedule: return "a schedule";
    case VKind::Stage: return "the stage of '" + v.tensor->name + "'";
    case VKind::Lowered: return "a lowered function";
    case VKind::Target: return "a target";
    case VKind::Lambda: return "a lambda";
    case VKind::ThreadAxis: return "thread axis '" + v.s + "'";
    }
    return "a value";
}

struct Arg {
    Value value;
    SourceLoc loc;
};

// A call's arguments bound to a signature.
struct CallArgs {
    std::string function;
    SourceLoc loc;
    std::vector<Arg> positional;
    std::vector<std::pair<std::string, Arg>> keywords;
};

struct Param {
    const char* name;
    bool required;
};

class Bound {
public:
    Bound(const CallArgs& call, std::initializer_list<Param> params, bool varargs = false)
        : Bound(call, std::vector<Param>(params), varargs)
    {
    }
    Bound(const CallArgs& call, const std::vector<Param>& ps, bool varargs = false) : m_call(call)
    {
        std::size_t npos = call.positional.size();
        if (!varargs && npos > ps.size()) {
            throw UserError(call.positional[ps.size()].loc,
                            call.function + "() takes at most " + std::to_string(ps.size()) +
                                " positional argument" + (ps.size() == 1 ? "" : "s") + " but " +
                                std::to_string(npos) + " were given");
        }
        for (std::size_t k = 0; k < npos && k < ps.size(); ++k)
            m_args[ps[k].name] = call.positional[k];
        for (auto& keyword : call.keywords) {
            const auto& name = keyword.first;
            const auto& arg = keyword.second;
            auto it =
                std::find_if(ps.begin(), ps.end(), [&](const Param& p) { return name == p.name; });
            if (it == ps.end()) {
                throw UserError(arg.loc, call.function + "() got an unexpected keyword argument '" +
                                             name + "'");
            }
            if (m_args.count(name)) {
                throw UserError(arg.loc, call.function + "() got multiple values for argument '" +
                                             name + "'");
            }
            m_args[name] = arg;
        }
        for (auto& p : ps) {
            if (p.required && !m_args.count(p.name)) {
                throw UserError(call.loc, call.function + "() is missing its argument '" +
                                              std::string(p.name) + "'");
            }
        }
    }
    bool has(const std::string& n) const { return m_args.count(n) != 0; }
    const Arg& operator[](const std::string& n) const { return m_args.at(n); }
    const CallArgs& call() const { return m_call; }

private:
    const CallArgs& m_call;
    std::map<std::string, Arg> m_args;
};

const std::set<std::string> kReducers = {"sum", "max", "min"};

class Evaluator {
public:
    Evaluator(const std::map<std::string, std::int64_t>& overrides) : m_overrides(overrides) {}

    void run(const ast::Module& mod)
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
        try {
            for (auto& st : mod.body) {
                m_stmt = &st;
                m_touched.clear();
                execute(st);
                for (int v : m_touched) {
                    auto& var = m_program.variants[static_cast<std::size_t>(v)];
                    var.lastLine = std::max(var.lastLine, st.endLine);
                    recordNames(var);
                }
            }
        } catch (const UserError&) {
            // The variants evaluated before the mistake stay usable (the app keeps showing them).
            finishVariants();
            throw;
        }
        finishVariants();
    }

    Program& program() { return m_program; }
    std::set<std::string> usedOverrides;

private:
    // ---- statements ----

    void execute(const ast::Stmt& st)
    {
        switch (st.kind) {
        case ast::StmtKind::Import:
        case ast::StmtKind::Pass: return;
        case ast::StmtKind::Expr: eval(*st.value); return;
        case ast::StmtKind::Assign: {
            // Parameters: a top-level assignment of an integer literal.
            std::int64_t literal = 0;
            if (isIntLiteral(*st.value, &literal)) {
                for (auto& t : st.targets)
                    if (t->kind == ExprKind::Name) bindParameter(*t, literal);
                for (auto& t : st.targets)
                    if (t->kind != ExprKind::Name) assign(*t, Value::integer(literal));
                return;
            }
            // `M, K, N = 1024, 1024, 1024`: each name is a parameter too.
            if (st.value->kind == ExprKind::Tuple) {
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
            m_assignName =
                st.targets.front()->kind == ExprKind::Name ? st.targets.front()->name : "";
            Value v = eval(*st.value);
            m_assignName.clear();
            for (auto& t : st.targets)
                assign(*t, v);
            return;
        }
        }
    }

    // A parameter takes its --set value if one is given; the first assignment is the one listed.
    void bindParameter(const ast::Expr& target, std::int64_t literal)
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
        m_env[target.name] = Value::integer(overridden ? v : literal);
    }

    static bool isIntLiteral(const ast::Expr& e, std::int64_t* out)
    {
        if (e.kind == ExprKind::Int) {
            *out = e.intValue;
            return true;
        }
        if (e.kind == ExprKind::Unary && e.name == "-" && e.value->kind == ExprKind::Int) {
            *out = -e.value->intValue;
            return true;
        }
        return false;
    }

    void assign(const ast::Expr& target, const Value& v)
    {
        if (target.kind == ExprKind::Name) {
            m_env[target.name] = v;
            return;
        }
        // Tuple or list unpacking.
        if (!v.isSeq()) {
            throw UserError(target.loc, "cannot unpack " + typeName(v) + " into " +
                                            std::to_string(target.items.size()) + " names");
        }
        if (v.items.size() != target.items.size()) {
            throw UserError(target.loc, "cannot unpack " + std::to_string(v.items.size()) +
                                            " value" + (v.items.size() == 1 ? "" : "s") + " into " +
                                            std::to_string(target.items.size()) + " name" +
                                            (target.items.size() == 1 ? "" : "s"));
        }
        for (std::size_t k = 0; k < v.items.size(); ++k)
            assign(*target.items[k], v.items[k]);
    }

    // ---- expressions ----

    Value eval(const ast::Expr& e)
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
            for (auto& it : e.items)
                items.push_back(eval(*it));
            return Value::seq(e.kind == ExprKind::Tuple ? VKind::Tuple : VKind::List,
                              std::move(items));
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

    Value lookup(const ast::Expr& e)
    {
        if (auto it = m_env.find(e.name); it != m_env.end()) return it->second;
        if (e.name == "tvm") return Value::named(VKind::Module, "tvm");
        if (e.name == "te") return Value::named(VKind::Module, "te");
        if (e.name == "print" || e.name == "range" || e.name == "len" || e.name == "int" ||
            e.name == "float")
            return Value::named(VKind::Builtin, e.name);
        if (e.name == "np" || e.name == "numpy") {
            throw UserError(e.loc, "numpy is not available in a TE script: Loopscope evaluates the "
                                   "script itself, and runs and checks variants without Python");
        }
        throw UserError(e.loc, "name '" + e.name + "' is not defined");
    }

    Value attribute(const Value& obj, const ast::Expr& e)
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
        case VKind::Target:
            if (a == "kind") return obj;
            if (a == "name") return Value::str("llvm");
            break;
        case VKind::Expr:
            if (a == "astype") return method(obj, a);
            if (a == "dtype") return Value::str(obj.expr.type().str());
            break;
        case VKind::Str:
            if (a == "format") break;
            break;
        default: break;
        }
        if ((obj.kind == VKind::Expr || obj.kind == VKind::IterVar) && a == "astype")
            return method(obj, a);
        std::string hint;
        if (obj.kind == VKind::Tensor && (a == "axis" || a == "reduce_axis"))
            hint = " (did you mean ." + std::string("op.") + a + "?)";
        if (obj.kind == VKind::Stage && a == "axis") hint = " (did you mean .op.axis?)";
        throw UserError(loc, typeName(obj) + " has no attribute '" + a + "'" + hint);
    }

    Value method(const Value& obj, const std::string& name)
    {
        Value m = Value::named(VKind::Method, name);
        m.self = std::make_shared<Value>(obj);
        return m;
    }

    Value moduleAttribute(const std::string& mod, const std::string& a, SourceLoc loc)
    {
        static const std::map<std::string, std::set<std::string>> functions = {
            {"tvm", {"lower", "build"}},
            {"te", {"placeholder", "compute", "reduce_axis",  "var", "size_var",
                    "sum",         "max",     "min",          "exp", "log",
                    "sqrt",        "tanh",    "sigmoid",      "abs", "create_schedule",
                    "thread_axis", "const",   "if_then_else", "all", "any"}},
            {"tvm.tir",
             {"const",    "if_then_else", "all",       "any",      "indexdiv", "indexmod",
              "floordiv", "floormod",     "truncdiv",  "truncmod", "exp",      "log",
              "sqrt",     "tanh",         "sigmoid",   "abs",      "max",      "min",
              "Select",   "max_value",    "min_value", "Cast"}},
            {"tvm.target", {"Target"}},
        };
        if (mod == "tvm" && (a == "te" || a == "tir" || a == "target"))
            return Value::named(VKind::Module, a == "te" ? "te" : "tvm." + a);
        auto it = functions.find(mod);
        if (it != functions.end() && it->second.count(a))
            return Value::named(VKind::Builtin, mod + "." + a);
        if (mod == "tvm" && (a == "nd" || a == "device" || a == "cpu" || a == "testing" ||
                             a == "runtime" || a == "transform" || a == "autotvm")) {
            throw UserError(loc,
                            "tvm." + a +
                                " is not supported in a TE script: Loopscope runs, "
                                "checks and benchmarks variants itself (loopscope-cli run/bench)");
        }
        throw UserError(loc, "module '" + mod + "' has no attribute '" + a +
                                 "' that Loopscope supports");
    }

    Value subscript(const ast::Expr& e)
    {
        Value obj = eval(*e.value);
        SourceLoc loc = e.opLoc.line ? e.opLoc : e.loc;
        if (obj.kind == VKind::Schedule) {
            if (e.items.size() != 1)
                throw UserError(loc, "a schedule is indexed by one tensor: s[C]");
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
                                         " but is indexed with " + std::to_string(idx.size()) +
                                         " ind" + (idx.size() == 1 ? "ex" : "ices"));
            }
            return Value::ofExpr(makeTensorLoad(obj.tensor, idx));
        }
        if (obj.isSeq()) {
            if (e.items.size() != 1)
                throw UserError(loc, "a " +
                                         std::string(obj.kind == VKind::List ? "list" : "tuple") +
                                         " takes one index");
            Value i = eval(*e.items[0]);
            if (i.kind != VKind::Int)
                throw UserError(e.items[0]->loc,
                                "list index must be an integer, not " + typeName(i));
            std::int64_t n = static_cast<std::int64_t>(obj.items.size());
            std::int64_t k = i.i < 0 ? i.i + n : i.i;
            if (k < 0 || k >= n) {
                throw UserError(e.items[0]->loc, "index " + std::to_string(i.i) +
                                                     " is out of range for " + typeName(obj) +
                                                     " of " + std::to_string(n) + " items");
            }
            return obj.items[static_cast<std::size_t>(k)];
        }
        throw UserError(loc, typeName(obj) + " cannot be indexed");
    }

    Expr indexExpr(const Value& v, SourceLoc loc, const Tensor& t, std::size_t pos)
    {
        Expr e = toExpr(v, loc);
        if (!e.type().isIntegral() || !e.type().isScalar()) {
            throw UserError(loc, "index " + std::to_string(pos) + " of tensor '" + t->name +
                                     "' is " +
                                     (e.type().isFloat() ? "a " + e.type().str() + " expression"
                                                         : "of type " + e.type().str()) +
                                     "; tensor indices must be integers");
        }
        if (e.type() != DataType::int32()) e = makeCast(DataType::int32(), e);
        return e;
    }

    Value unary(const ast::Expr& e)
    {
        Value v = eval(*e.value);
        if (e.name == "not") {
            if (v.isNumber())
                return Value::boolean(!(v.kind == VKind::Float ? v.f != 0 : v.i != 0));
            throw UserError(e.opLoc, "'not' cannot be applied to an expression; use tvm.tir.Not or "
                                     "rewrite the condition");
        }
        if (e.name == "+") return v;
        if (e.name == "-") {
            if (v.kind == VKind::Int || v.kind == VKind::Bool) return Value::integer(-v.i);
            if (v.kind == VKind::Float) return Value::real(-v.f);
            Expr x = toExpr(v, e.value->loc);
            return Value::ofExpr(makeConst(x.type(), 0) - x);
        }
        throw UserError(e.opLoc, "operator '" + e.name + "' is not supported");
    }

    Value boolOp(const ast::Expr& e)
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

    Value binary(const std::string& op, const Value& a, const Value& b, SourceLoc loc)
    {
        if (a.isNumber() && b.isNumber()) return numeric(op, a, b, loc);
        if (a.kind == VKind::Str && b.kind == VKind::Str && op == "+") return Value::str(a.s + b.s);
        if ((a.isSeq() || b.isSeq()) && op == "+" && a.kind == b.kind) {
            Value r = a;
            r.items.insert(r.items.end(), b.items.begin(), b.items.end());
            return r;
        }
        if (!isExprLike(a) || !isExprLike(b)) {
            throw UserError(loc, "unsupported operand types for " + op + ": " + typeName(a) +
                                     " and " + typeName(b));
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

    using ExprKind2 = loopscope::ExprKind;

    Value numeric(const std::string& op, const Value& a, const Value& b, SourceLoc loc)
    {
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
                std::int64_t r = 1;
                for (std::int64_t k = 0; k < b.i; ++k)
                    r *= a.i;
                return Value::integer(r);
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
            if (op == "+") return Value::integer(a.i + b.i);
            if (op == "-") return Value::integer(a.i - b.i);
            if (op == "*") return Value::integer(a.i * b.i);
            if (op == "//") {
                zero();
                return Value::integer(floorDivInt(a.i, b.i));
            }
            if (op == "%") {
                zero();
                return Value::integer(floorModInt(a.i, b.i));
            }
            if (op == "<<" || op == ">>") {
                if (b.i < 0 || b.i > 62)
                    throw UserError(loc, "shift count " + std::to_string(b.i) + " is out of range");
                return Value::integer(op == "<<" ? a.i << b.i : a.i >> b.i);
            }
            if (op == "&") return Value::integer(a.i & b.i);
            if (op == "|") return Value::integer(a.i | b.i);
            if (op == "^") return Value::integer(a.i ^ b.i);
        }
        throw UserError(loc, "operator '" + op + "' is not supported on numbers");
    }

    Value compare(const std::string& op, const Value& a, const Value& b, SourceLoc loc)
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

    static bool isExprLike(const Value& v)
    {
        return v.isNumber() || v.kind == VKind::Expr || v.kind == VKind::IterVar;
    }

    Expr toExpr(const Value& v, SourceLoc loc, DataType numberType = DataType::int32())
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

    static DataType wider(DataType a, DataType b) { return a.bits >= b.bits ? a : b; }

    // TVM's implicit conversions: Python numbers take the other side's type; between expressions
    // integers become floats and narrower types widen.
    std::pair<Expr, Expr> matchTypes(const Value& a, const Value& b, SourceLoc loc)
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

    Value exprValue(const Expr& e)
    {
        std::int64_t v;
        if (isConstInt(e, &v)) return Value::integer(v);
        return Value::ofExpr(e);
    }

    Value shapeValue(const Tensor& t)
    {
        std::vector<Value> items;
        for (auto& s : t->shape)
            items.push_back(exprValue(s));
        return Value::seq(VKind::List, std::move(items));
    }

    // ---- calls ----

    Value call(const ast::Expr& e)
    {
        Value f = eval(*e.value);
        CallArgs args;
        args.loc = e.loc;
        args.function = calleeName(f, *e.value);
        for (auto& a : e.items)
            args.positional.push_back({argValue(*a), a->loc});
        for (auto& k : e.keywords)
            args.keywords.push_back({k.name, {argValue(*k.value), k.value->loc}});
        if (f.kind == VKind::Builtin) return builtin(f.s, args);
        if (f.kind == VKind::Method) return callMethod(*f.self, f.s, args);
        throw UserError(e.loc, typeName(f) + " is not callable");
    }

    Value argValue(const ast::Expr& a)
    {
        if (a.kind == ExprKind::Lambda) {
            Value v;
            v.kind = VKind::Lambda;
            v.lambda = &a;
            return v;
        }
        return eval(a);
    }

    static std::string calleeName(const Value& f, const ast::Expr& callee)
    {
        if (f.kind == VKind::Builtin) return f.s;
        if (f.kind == VKind::Method) return callee.kind == ExprKind::Attribute ? callee.name : f.s;
        return "call";
    }

    void rejectLambdas(const CallArgs& c)
    {
        for (auto& a : c.positional)
            if (a.value.kind == VKind::Lambda)
                throw UserError(a.loc, "lambda is only supported as the body of te.compute");
        for (auto& [n, a] : c.keywords)
            if (a.value.kind == VKind::Lambda)
                throw UserError(a.loc, "lambda is only supported as the body of te.compute");
    }

    std::string stringArg(const Arg& a, const std::string& what)
    {
        if (a.value.kind != VKind::Str)
            throw UserError(a.loc, what + " must be a string, not " + typeName(a.value));
        return a.value.s;
    }

    DataType dtypeArg(const Arg& a)
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
    Expr extentArg(const Value& v, SourceLoc loc, const std::string& what)
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

    static std::string formatFloat(double f)
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", f);
        return buf;
    }

    std::vector<Expr> shapeArg(const Arg& a, const std::string& tensorName)
    {
        std::vector<Value> dims = a.value.isSeq() ? a.value.items : std::vector<Value>{a.value};
        if (dims.empty()) throw UserError(a.loc, "the shape of '" + tensorName + "' is empty");
        std::vector<Expr> out;
        for (std::size_t d = 0; d < dims.size(); ++d)
            out.push_back(extentArg(dims[d], a.loc,
                                    "dimension " + std::to_string(d) + " of '" + tensorName + "'"));
        return out;
    }

    Value builtin(const std::string& name, const CallArgs& c)
    {
        if (name != "te.compute") rejectLambdas(c);
        if (name == "print") return Value::none();
        if (name == "te.placeholder") {
            Bound b(c, {{"shape", true}, {"dtype", false}, {"name", false}});
            std::string tname = b.has("name") ? stringArg(b["name"], "name") : "placeholder";
            DataType t = b.has("dtype") ? dtypeArg(b["dtype"]) : DataType::float32();
            Tensor ten = makePlaceholder(tname, shapeArg(b["shape"], tname), t, c.loc);
            m_program.tensors.push_back(ten);
            return Value::ofTensor(VKind::Tensor, ten);
        }
        if (name == "te.compute") return compute(c);
        if (name == "te.reduce_axis") {
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
            IterVar iv = makeIterVar(n, {lo, ext}, IterKind::Reduce);
            m_reduceVars.insert(iv->var.get());
            return Value::ofIterVar(iv);
        }
        if (name == "te.var" || name == "te.size_var") {
            Bound b(c, {{"name", false}, {"dtype", false}});
            std::string n = b.has("name") ? stringArg(b["name"], "name") : "tindex";
            DataType t = b.has("dtype") ? dtypeArg(b["dtype"]) : DataType::int32();
            Var v(n, t);
            m_program.sizeVars.push_back({n, v, c.loc});
            return Value::ofExpr(v);
        }
        if (name == "te.thread_axis") {
            Bound b(c, {{"dom", false}, {"tag", false}, {"name", false}});
            const Arg* tag = b.has("tag")                                        ? &b["tag"]
                             : b.has("dom") && b["dom"].value.kind == VKind::Str ? &b["dom"]
                                                                                 : nullptr;
            if (!tag)
                throw UserError(c.loc, "te.thread_axis needs a thread tag such as \"threadIdx.x\"");
            return Value::named(VKind::ThreadAxis, stringArg(*tag, "thread tag"));
        }
        if (name == "te.sum" || name == "te.max" || name == "te.min" || name == "tvm.tir.max" ||
            name == "tvm.tir.min")
            return reducerOrMinMax(name, c);
        if (name == "te.exp" || name == "te.log" || name == "te.sqrt" || name == "te.tanh" ||
            name == "te.sigmoid" || name == "te.abs" || name == "tvm.tir.exp" ||
            name == "tvm.tir.log" || name == "tvm.tir.sqrt" || name == "tvm.tir.tanh" ||
            name == "tvm.tir.sigmoid" || name == "tvm.tir.abs")
            return mathCall(name.substr(name.rfind('.') + 1), c);
        if (name == "te.create_schedule") return createSchedule(c);
        if (name == "te.const" || name == "tvm.tir.const") {
            Bound b(c, {{"value", true}, {"dtype", false}});
            DataType t = b.has("dtype")                          ? dtypeArg(b["dtype"])
                         : b["value"].value.kind == VKind::Float ? DataType::float32()
                                                                 : DataType::int32();
            const Value& v = b["value"].value;
            if (!v.isNumber()) throw UserError(b["value"].loc, "tvm.tir.const needs a number");
            return Value::ofExpr(
                makeConst(t, v.kind == VKind::Float ? v.f : static_cast<double>(v.i)));
        }
        if (name == "te.if_then_else" || name == "tvm.tir.if_then_else" ||
            name == "tvm.tir.Select") {
            Bound b(c, {{"cond", true}, {"t", true}, {"f", true}});
            Expr cond = toExpr(b["cond"].value, b["cond"].loc);
            if (!cond.type().isBool())
                throw UserError(b["cond"].loc, "the condition must be a comparison");
            auto [t, f] = matchTypes(b["t"].value, b["f"].value, b["t"].loc);
            if (name == "tvm.tir.Select") return Value::ofExpr(makeSelect(cond, t, f));
            return Value::ofExpr(makeCall(t.type(), CallOp::IfThenElse, {cond, t, f}));
        }
        if (name == "te.all" || name == "tvm.tir.all" || name == "te.any" ||
            name == "tvm.tir.any") {
            if (c.positional.empty())
                throw UserError(c.loc, name + "() needs at least one condition");
            bool all = name.find("all") != std::string::npos;
            Expr acc;
            for (auto& a : c.positional) {
                Expr x = toExpr(a.value, a.loc, DataType::boolean());
                if (!x.type().isBool())
                    throw UserError(a.loc, "each argument of " + name + " must be a condition");
                acc = acc.defined() ? makeBinary(all ? ExprKind2::And : ExprKind2::Or, acc, x) : x;
            }
            return Value::ofExpr(acc);
        }
        if (name == "tvm.tir.indexdiv" || name == "tvm.tir.indexmod" ||
            name == "tvm.tir.floordiv" || name == "tvm.tir.floormod" ||
            name == "tvm.tir.truncdiv" || name == "tvm.tir.truncmod") {
            Bound b(c, {{"a", true}, {"b", true}});
            auto [x, y] = matchTypes(b["a"].value, b["b"].value, c.loc);
            if (!x.type().isIntegral()) throw UserError(c.loc, name + " needs integer operands");
            if (isZero(y)) throw UserError(b["b"].loc, "division by zero");
            bool div = name.find("div") != std::string::npos;
            ExprKind2 k = name.find("trunc") != std::string::npos
                              ? (div ? ExprKind2::Div : ExprKind2::Mod)
                              : (div ? ExprKind2::FloorDiv : ExprKind2::FloorMod);
            return Value::ofExpr(makeBinary(k, x, y));
        }
        if (name == "tvm.tir.max_value" || name == "tvm.tir.min_value") {
            Bound b(c, {{"dtype", true}});
            DataType t = dtypeArg(b["dtype"]);
            return Value::ofExpr(name == "tvm.tir.max_value" ? maxValue(t) : minValue(t));
        }
        if (name == "tvm.tir.Cast") {
            Bound b(c, {{"dtype", true}, {"value", true}});
            return Value::ofExpr(
                makeCast(dtypeArg(b["dtype"]), toExpr(b["value"].value, b["value"].loc)));
        }
        if (name == "tvm.lower" || name == "tvm.build") return lowerOrBuild(name, c);
        if (name == "tvm.target.Target") {
            Bound b(c, {{"target", true}, {"host", false}});
            std::string t = stringArg(b["target"], "target");
            if (t.rfind("llvm", 0) != 0) {
                throw UserError(b["target"].loc,
                                "target '" + t +
                                    "' is not supported; Loopscope "
                                    "generates code for CPUs (target \"llvm ...\")");
            }
            Value v = Value::named(VKind::Target, t);
            return v;
        }
        if (name == "range" || name == "len" || name == "int" || name == "float") {
            Bound b(c, {{"x", true}});
            const Value& x = b["x"].value;
            if (name == "len" && x.isSeq())
                return Value::integer(static_cast<std::int64_t>(x.items.size()));
            if (name == "int" && x.isNumber())
                return Value::integer(x.kind == VKind::Float ? static_cast<std::int64_t>(x.f)
                                                             : x.i);
            if (name == "float" && x.isNumber())
                return Value::real(x.kind == VKind::Float ? x.f : static_cast<double>(x.i));
            throw UserError(c.loc, name + "() is not supported here");
        }
        throw UserError(c.loc, name + "() is not supported");
    }

    Expr toIntExpr(const Value& v, SourceLoc loc)
    {
        if (v.kind == VKind::Float && v.f == std::floor(v.f))
            return makeInt(static_cast<std::int64_t>(v.f));
        Expr e = toExpr(v, loc);
        if (!e.type().isIntegral())
            throw UserError(loc, "expected an integer, found " + e.type().str());
        return e;
    }

    Expr extentOrZero(const Value& v, SourceLoc loc) { return toIntExpr(v, loc); }

    Value mathCall(const std::string& fn, const CallArgs& c)
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
        CallOp op = fn == "exp"       ? CallOp::Exp
                    : fn == "log"     ? CallOp::Log
                    : fn == "sqrt"    ? CallOp::Sqrt
                    : fn == "tanh"    ? CallOp::Tanh
                    : fn == "sigmoid" ? CallOp::Sigmoid
                                      : CallOp::Fabs;
        return Value::ofExpr(makeCall(x.type(), op, {x}));
    }

    Value reducerOrMinMax(const std::string& name, const CallArgs& c)
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
                throw UserError(ax.loc,
                                "te." + fn + " over '" + axisDisplayName(a.iv->name()) +
                                    "', a data-parallel axis; reduce over a te.reduce_axis");
            }
            ivs.push_back(a.iv);
        }
        Expr cond;
        if (b.has("where")) {
            cond = toExpr(b["where"].value, b["where"].loc);
            if (!cond.type().isBool())
                throw UserError(b["where"].loc, "where= must be a condition");
        }
        if (b.has("init")) throw UserError(b["init"].loc, "init= of a reduction is not supported");
        ReduceOp op = fn == "sum" ? ReduceOp::Sum : fn == "max" ? ReduceOp::Max : ReduceOp::Min;
        return Value::ofExpr(makeReduce(op, source, ivs, cond));
    }

    Value compute(const CallArgs& c)
    {
        Bound b(c, {{"shape", true},
                    {"fcompute", true},
                    {"name", false},
                    {"tag", false},
                    {"attrs", false}});
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
                                         (lam.params.size() == 1 ? "" : "s") +
                                         " but the shape has " + std::to_string(shape.size()) +
                                         " dimension" + (shape.size() == 1 ? "" : "s"));
        }
        std::vector<IterVar> axes;
        auto saved = m_env;
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
            m_env = saved;
            m_inCompute = wasIn;
            throw;
        }
        m_env = saved;
        m_inCompute = wasIn;
        Expr e = toExpr(body, lam.value->loc);
        checkReductions(e, lam.value->loc, tname);
        Tensor t = makeCompute(tname, tag, axes, e, c.loc);
        m_program.tensors.push_back(t);
        return Value::ofTensor(VKind::Tensor, t);
    }

    // Reductions only at the top of a compute body; reduce axes only inside their reduction.
    void checkReductions(const Expr& body, SourceLoc loc, const std::string& tname)
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
                throw UserError(loc,
                                "reduce axis '" + v->name + "' is used in '" + tname +
                                    "' outside a reduction over it; add it to axis= of te.sum");
            }
        }
    }

    Value createSchedule(const CallArgs& c)
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
        m_program.variants.push_back(std::move(v));
        Value s;
        s.kind = VKind::Schedule;
        s.variant = static_cast<int>(m_program.variants.size()) - 1;
        touch(s.variant);
        return s;
    }

    Value lowerOrBuild(const std::string& name, const CallArgs& c)
    {
        Bound b = name == "tvm.lower" ? Bound(c, {{"inp", true},
                                                  {"args", false},
                                                  {"name", false},
                                                  {"binds", false},
                                                  {"simple_mode", false}})
                                      : Bound(c, {{"inputs", true},
                                                  {"args", false},
                                                  {"target", false},
                                                  {"target_host", false},
                                                  {"name", false},
                                                  {"binds", false}});
        const Arg& s = b[name == "tvm.lower" ? "inp" : "inputs"];
        if (s.value.kind != VKind::Schedule)
            throw UserError(s.loc, name + " needs a schedule, not " + typeName(s.value));
        Variant& v = m_program.variants[static_cast<std::size_t>(s.value.variant)];
        touch(s.value.variant);
        if (b.has("args")) {
            const Arg& a = b["args"];
            if (!a.value.isSeq()) throw UserError(a.loc, "the arguments must be a list of tensors");
            std::vector<Tensor> args;
            for (auto& t : a.value.items) {
                if (t.kind != VKind::Tensor)
                    throw UserError(a.loc,
                                    "argument list entries must be tensors, not " + typeName(t));
                if (!v.schedule().find(t.tensor)) {
                    throw UserError(a.loc,
                                    "tensor '" + t.tensor->name +
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
                if (t.s.rfind("llvm", 0) != 0)
                    throw UserError(
                        b["target"].loc,
                        "target '" + t.s +
                            "' is not supported; Loopscope generates code for CPUs (\"llvm ...\")");
                v.target = t.s;
                v.targetLoc = b["target"].loc;
            } else if (t.kind == VKind::Target) {
                v.target = t.s;
                v.targetLoc = b["target"].loc;
            } else {
                throw UserError(b["target"].loc, "target must be a string such as \"llvm\"");
            }
        }
        Value r;
        r.kind = VKind::Lowered;
        r.variant = s.value.variant;
        return r;
    }

    // Every placeholder the schedule reads and every output must be an argument.
    void checkArgs(const Variant& v, SourceLoc loc)
    {
        for (auto& st : v.schedule().stages()) {
            bool needed = st.isPlaceholder() || st.isOutput;
            if (!needed) continue;
            bool present = std::any_of(v.args.begin(), v.args.end(), [&](const Tensor& t) {
                return t == st.op || t == st.originOp;
            });
            if (!present) {
                throw UserError(loc, std::string(st.isOutput ? "output" : "input") + " '" +
                                         st.name() + "' is missing from the argument list");
            }
        }
    }

    // ---- schedule primitives ----

    Schedule& schedule(int variant)
    {
        return m_program.variants[static_cast<std::size_t>(variant)].snapshots.back();
    }

    void touch(int variant)
    {
        if (variant >= 0) m_touched.insert(variant);
    }

    // TVM stage methods Loopscope does not implement: named as such rather than as unknown.
    static inline const std::set<std::string> kUnsupportedStageMethods = {"double_buffer"};

    static bool isStagePrimitive(const std::string& name)
    {
        const PrimitiveSpec* p = findPrimitive(name);
        return (p && p->on == PrimitiveOn::Stage) || kUnsupportedStageMethods.count(name);
    }

    static bool isSchedulePrimitive(const std::string& name)
    {
        const PrimitiveSpec* p = findPrimitive(name);
        return p && p->on == PrimitiveOn::Schedule;
    }

    IterVar axisArg(const Arg& a, const std::string& fn)
    {
        if (a.value.kind != VKind::IterVar)
            throw UserError(a.loc, fn + "() needs an axis here, not " + typeName(a.value));
        return a.value.iv;
    }

    std::int64_t factorArg(const Arg& a, const std::string& what)
    {
        const Value& v = a.value;
        if (v.kind == VKind::Int) {
            if (v.i <= 0)
                throw UserError(a.loc,
                                what + " must be a positive integer, not " + std::to_string(v.i));
            return v.i;
        }
        if (v.kind == VKind::Float) {
            if (v.f == std::floor(v.f) && v.f > 0) return static_cast<std::int64_t>(v.f);
            throw UserError(a.loc, what + " must be a positive integer, not " + formatFloat(v.f));
        }
        throw UserError(a.loc, what + " must be a positive integer, not " + typeName(v));
    }

    int intArg(const Arg& a, const std::string& what)
    {
        if (a.value.kind != VKind::Int)
            throw UserError(a.loc, what + " must be an integer, not " + typeName(a.value));
        return static_cast<int>(a.value.i);
    }

    void recordStep(int variant, const std::string& primitive, const std::string& stage)
    {
        Variant& v = m_program.variants[static_cast<std::size_t>(variant)];
        v.steps.push_back({primitive, stage, m_stmt->loc, m_stmt->endLine, m_stmt->text});
        v.snapshots.push_back(v.snapshots.back());
        touch(variant);
    }

    Value ivList(const std::vector<IterVar>& ivs, VKind kind = VKind::Tuple)
    {
        std::vector<Value> items;
        for (auto& iv : ivs)
            items.push_back(Value::ofIterVar(iv));
        return Value::seq(kind, std::move(items));
    }

    Value callMethod(const Value& self, const std::string& name, const CallArgs& c)
    {
        rejectLambdas(c);
        if (self.kind == VKind::Stage || self.kind == VKind::Schedule) {
            if (self.kind == VKind::Schedule) {
                touch(self.variant);
                if (name == "normalize") return self;
            }
            const PrimitiveSpec* p = findPrimitive(name);
            bool onStage = self.kind == VKind::Stage;
            if (!p || (p->on == PrimitiveOn::Stage) != onStage) {
                throw UserError(c.loc, std::string(onStage ? "stage" : "schedule") + " method '" +
                                           name + "' is not supported");
            }
            return applyPrimitive(self, *p, c);
        }
        if (self.kind == VKind::Op && name == "output") {
            Bound b(c, {{"index", true}});
            if (intArg(b["index"], "output index") != 0)
                throw UserError(b["index"].loc, "operations have a single output (index 0)");
            return Value::ofTensor(VKind::Tensor, self.tensor);
        }
        if ((self.kind == VKind::Expr || self.kind == VKind::IterVar) && name == "astype") {
            Bound b(c, {{"dtype", true}});
            return Value::ofExpr(makeCast(dtypeArg(b["dtype"]), toExpr(self, c.loc)));
        }
        throw UserError(c.loc, typeName(self) + " has no method '" + name + "'");
    }

    // The script's value for an argument of a primitive, as the catalogue says its kind is.
    StepArg stepArg(const PrimitiveSpec& p, int index, const Arg& a, int variant)
    {
        const ArgSpec& spec = p.args[static_cast<std::size_t>(index)];
        StepArg out;
        out.given = true;
        switch (spec.kind) {
        case ArgKind::Axis: out.axes.push_back(axisArg(a, p.name)); break;
        case ArgKind::Axes: out.axes.push_back(axisArg(a, p.name)); break;
        case ArgKind::Factor: out.number = factorArg(a, p.argLabel(index)); break;
        case ArgKind::Int: out.number = intArg(a, p.argLabel(index)); break;
        case ArgKind::Text:
        case ArgKind::Scope: out.text = stringArg(a, p.argLabel(index)); break;
        case ArgKind::Stage:
            if (a.value.kind != VKind::Stage)
                throw UserError(a.loc,
                                p.name + " needs a stage such as s[C], not " + typeName(a.value));
            if (a.value.variant != variant)
                throw UserError(a.loc, "that stage belongs to another schedule");
            out.tensors.push_back(a.value.tensor);
            break;
        case ArgKind::Tensor:
            if (a.value.kind != VKind::Tensor)
                throw UserError(a.loc, p.name + " needs a tensor, not " + typeName(a.value));
            out.tensors.push_back(a.value.tensor);
            break;
        case ArgKind::Tensors: {
            std::vector<Value> items =
                a.value.isSeq() ? a.value.items : std::vector<Value>{a.value};
            for (auto& x : items) {
                if (x.kind != VKind::Tensor && x.kind != VKind::Op)
                    throw UserError(a.loc, spec.name + " must be tensors, not " + typeName(x));
                out.tensors.push_back(x.tensor);
            }
            break;
        }
        case ArgKind::ThreadAxis:
            if (a.value.kind != VKind::ThreadAxis)
                throw UserError(a.loc,
                                p.name + " needs a te.thread_axis, not " + typeName(a.value));
            out.text = a.value.s;
            break;
        case ArgKind::Value: out.value = toExpr(a.value, a.loc); break;
        }
        return out;
    }

    // A primitive of the catalogue called on a stage or the schedule: its arguments bound to the
    // catalogue's signature, then applied to a copy of the variant's schedule, which becomes the
    // newest snapshot when the primitive accepts it.
    Value applyPrimitive(const Value& self, const PrimitiveSpec& p, const CallArgs& c)
    {
        const int var = self.variant;
        ScheduleStep step = makeStep(p, p.on == PrimitiveOn::Stage ? self.tensor : Tensor());
        step.loc = m_stmt->loc;
        std::vector<SourceLoc> argLocs(p.args.size(), c.loc);
        if (p.args.size() == 1 && p.args.front().kind == ArgKind::Axes) {
            if (!c.keywords.empty())
                throw UserError(c.keywords.front().second.loc, p.name + "() takes axes only");
            StepArg& axes = step.args.front();
            axes.given = true;
            for (auto& a : c.positional) {
                if (a.value.isSeq()) {
                    for (auto& x : a.value.items)
                        axes.axes.push_back(axisArg({x, a.loc}, p.name));
                } else {
                    axes.axes.push_back(axisArg(a, p.name));
                }
            }
        } else {
            std::vector<Param> params;
            for (auto& a : p.args)
                params.push_back({a.name.c_str(), a.required});
            Bound b(c, params);
            for (std::size_t i = 0; i < p.args.size(); ++i) {
                const std::string& name = p.args[i].name;
                if (!b.has(name)) continue;
                argLocs[i] = b[name].loc;
                step.args[i] = stepArg(p, static_cast<int>(i), b[name], var);
            }
        }
        if (p.on == PrimitiveOn::Schedule) step.stage = step.args.front().tensors.front();
        std::string stageName = step.stage->name;
        if (const Stage* st = schedule(var).find(step.stage)) stageName = st->name();

        AppliedStep applied = applyToCopy(schedule(var), step);
        if (!applied.ok()) {
            int arg = applied.error->argument();
            SourceLoc loc = c.loc;
            if (p.args.size() == 1 && p.args.front().kind == ArgKind::Axes) {
                if (arg >= 0 && static_cast<std::size_t>(arg) < c.positional.size())
                    loc = c.positional[static_cast<std::size_t>(arg)].loc;
            } else if (arg >= 0 && static_cast<std::size_t>(arg) < argLocs.size()) {
                loc = argLocs[static_cast<std::size_t>(arg)];
            }
            throw UserError(loc, applied.error->message());
        }
        recordStep(var, p.name, stageName);
        schedule(var) = std::move(applied.schedule);

        const StepOutput& out = applied.output;
        if (out.tensor) {
            m_program.tensors.push_back(out.tensor);
            return Value::ofTensor(VKind::Tensor, out.tensor);
        }
        if (p.results.size() == 1 && out.axes.size() == 1) return Value::ofIterVar(out.axes[0]);
        if (!p.results.empty()) return ivList(out.axes);
        return Value::none();
    }

    void recordNames(Variant& v)
    {
        v.tensorVars.clear();
        v.axisVars.clear();
        v.names.clear();
        for (auto& [name, value] : m_env) {
            v.names.push_back(name);
            if (value.kind == VKind::Tensor)
                v.tensorVars[name] = value.tensor->name;
            else if (value.kind == VKind::IterVar)
                v.axisVars[name] = value.iv->name();
            else if (value.kind == VKind::Schedule &&
                     &m_program.variants[static_cast<std::size_t>(value.variant)] == &v)
                v.scheduleVar = name;
        }
        std::sort(v.names.begin(), v.names.end());
    }

    void finishVariants()
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

    const std::map<std::string, std::int64_t>& m_overrides;
    Program m_program;
    std::unordered_map<std::string, Value> m_env;
    std::map<int, std::string> m_variantComments;
    std::set<int> m_commentLines;
    int m_lastScheduleLine = 0;
    std::set<const VarNode*> m_reduceVars;
    const ast::Stmt* m_stmt = nullptr;
    std::string m_assignName;
    std::set<int> m_touched;
    bool m_inCompute = false;
};

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
    Evaluator ev(overrides);
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
