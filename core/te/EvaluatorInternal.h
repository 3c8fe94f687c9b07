// The evaluator's own declarations, shared by the files that implement it (Evaluator.cpp:
// statements, names and variants; EvaluateExpressions.cpp; EvaluateCalls.cpp: te and tvm calls;
// EvaluatePrimitives.cpp: schedule primitives, through the catalogue). Private to core/te.
#pragma once

#include "ir/Analyzer.h"
#include "ir/IRUtil.h"
#include "ir/PrimFunc.h"
#include "ir/TensorIntrin.h"
#include "schedule/Primitives.h"
#include "te/Ast.h"
#include "te/Program.h"
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace loopscope::te_detail {

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
    PrimFunc,     // a function: its argument tensors (items); i > 0: m_scriptFuncs[i - 1], read
                  // from TVMScript, named s
    TirSchedule,  // a tir.Schedule: its variant
    TirBlock,     // a block handle: the block's name (s)
    TirLoop,      // a loop handle: the loop's variable (expr)
    TirModule,    // sch.mod
    TirTrace,     // sch.trace
    IRModule,     // an @I.ir_module class: its functions (items, PrimFunc values), its name (s)
    Function,     // a plain `def` of the script: its statement (def), what it closes over
    Dict,         // {k: v, ...}: items holds each key followed by its value
    Buffer,       // tvm.tir.decl_buffer's buffer (buffer)
    Stmt,         // a statement of an intrinsic's body (stmt)
    IRBuilder,    // tvm.tir.ir_builder.create()'s builder: the statements emitted (builder)
    TensorIntrin, // te.decl_tensor_intrin's intrinsic (intrin)
};

struct Value {
    VKind kind = VKind::None;
    std::int64_t i = 0;
    double f = 0.0;
    std::string s; // Str value; Module/Builtin/Method name; ThreadAxis tag
    // i: Int and Bool values; a ThreadAxis's identity (each te.thread_axis call its own)
    std::vector<Value> items;
    loopscope::Expr expr;
    loopscope::Tensor tensor;
    loopscope::IterVar iv;
    int variant = -1;
    std::shared_ptr<Value> self;
    const ast::Expr* lambda = nullptr;
    const ast::Stmt* def = nullptr; // Function
    // Function: the names of the function a nested def was made in, as they were then.
    std::shared_ptr<const std::unordered_map<std::string, Value>> closure;
    loopscope::Buffer buffer;
    loopscope::Stmt stmt;
    std::shared_ptr<std::vector<loopscope::Stmt>> builder;
    loopscope::TensorIntrin intrin;
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

inline std::string typeName(const Value& v)
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
    case VKind::PrimFunc: return "a PrimFunc";
    case VKind::TirSchedule: return "a tir.Schedule";
    case VKind::TirBlock: return "block '" + v.s + "'";
    case VKind::TirLoop: return "loop '" + v.expr.as<VarNode>()->name + "'";
    case VKind::TirModule: return "the schedule's module";
    case VKind::TirTrace: return "the schedule's trace";
    case VKind::IRModule: return "module '" + v.s + "'";
    case VKind::Function: return "function '" + v.def->name + "'";
    case VKind::Dict: return "a dict";
    case VKind::Buffer: return "buffer '" + v.buffer->name + "'";
    case VKind::Stmt: return "a statement";
    case VKind::IRBuilder: return "an IR builder";
    case VKind::TensorIntrin: return "tensor intrinsic '" + v.intrin->name + "'";
    }
    return "a value";
}

struct Arg {
    Value value;
    SourceLoc loc;
    const ast::Expr* expr = nullptr; // as the script wrote it (null: unpacked with '*')
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

class TvmScriptReader;

class Evaluator {
    friend class TvmScriptReader;

public:
    Evaluator(const std::map<std::string, std::int64_t>& overrides) : m_overrides(overrides) {}

    void run(const ast::Module& mod);
    Program& program() { return m_program; }
    // What a name of the script holds after run (null: nothing).
    const Value* binding(const std::string& name) const
    {
        auto it = m_env.find(name);
        return it == m_env.end() ? nullptr : &it->second;
    }
    std::set<std::string> usedOverrides;

private:
    // ---- statements ----

    void execute(const ast::Stmt& st);
    void executeFor(const ast::Stmt& st);
    // Statements in turn, each the one being evaluated, until one returns.
    void executeBody(const std::vector<ast::Stmt>& body);
    // A plain def's function, called: its parameters bound, its body run in the names of the
    // script and of what it closes over, all of which are as before once it returns.
    Value callFunction(const Value& f, const CallArgs& c);
    bool truth(const Value& v, SourceLoc loc);
    // A decorated def (@T.prim_func) or class (@I.ir_module) of TVMScript
    // (te/EvaluateTvmScript.cpp).
    Value readTvmScript(const ast::Stmt& st);

    // A parameter takes its --set value if one is given; the first assignment is the one listed.
    void bindParameter(const ast::Expr& target, std::int64_t literal);
    static bool isIntLiteral(const ast::Expr& e, std::int64_t* out);
    void assign(const ast::Expr& target, const Value& v);
    // Refuses, at loc, an expression deeper than kMaxBuiltDepth or larger than kMaxInlinedNodes.
    void checkBuilt(const Expr& e, SourceLoc loc) const;

    // ---- expressions ----

    Value eval(const ast::Expr& e);
    Value lookup(const ast::Expr& e);
    Value attribute(const Value& obj, const ast::Expr& e);
    Value method(const Value& obj, const std::string& name);
    Value moduleAttribute(const std::string& mod, const std::string& a, SourceLoc loc);
    // TOPI's x86 tensor intrinsics (tvm.topi.x86.tensor_intrin), read once from TOPI's source:
    // its functions, each closing over the others.
    static const std::unordered_map<std::string, Value>& topiFunctions();
    Value subscript(const ast::Expr& e);
    Value slice(const Value& seq, const ast::Expr& s);
    Expr indexExpr(const Value& v, SourceLoc loc, const Tensor& t, std::size_t pos);
    Value unary(const ast::Expr& e);
    Value boolOp(const ast::Expr& e);
    Value binary(const std::string& op, const Value& a, const Value& b, SourceLoc loc);
    using ExprKind2 = loopscope::ExprKind;
    Value numeric(const std::string& op, const Value& a, const Value& b, SourceLoc loc);
    Value compare(const std::string& op, const Value& a, const Value& b, SourceLoc loc);
    static bool isExprLike(const Value& v);
    Expr toExpr(const Value& v, SourceLoc loc, DataType numberType = DataType::int32());
    static DataType wider(DataType a, DataType b) { return a.bits >= b.bits ? a : b; }

    // TVM's implicit conversions: Python numbers take the other side's type; between expressions
    // integers become floats and narrower types widen.
    std::pair<Expr, Expr> matchTypes(const Value& a, const Value& b, SourceLoc loc);
    Value exprValue(const Expr& e);
    Value shapeValue(const Tensor& t);

    // ---- calls ----

    Value call(const ast::Expr& e);
    Value argValue(const ast::Expr& a);
    static std::string calleeName(const Value& f, const ast::Expr& callee);
    void rejectLambdas(const CallArgs& c);
    std::string stringArg(const Arg& a, const std::string& what);
    DataType dtypeArg(const Arg& a);

    // An extent: a positive integer (an integral float is accepted, as in N / bn) or a te.var.
    Expr extentArg(const Value& v, SourceLoc loc, const std::string& what);
    static std::string formatFloat(double f);
    std::vector<Expr> shapeArg(const Arg& a, const std::string& tensorName);
    Value builtin(const std::string& name, const CallArgs& c);
    Value reduceAxis(const CallArgs& c);
    Expr toIntExpr(const Value& v, SourceLoc loc);
    Expr extentOrZero(const Value& v, SourceLoc loc) { return toIntExpr(v, loc); }

    Value mathCall(const std::string& fn, const CallArgs& c);

    // ---- tensor intrinsics (te/EvaluateIntrinsics.cpp) ----

    // A dtype that may be a vector ("int32x16"), as intrinsics' loads and calls take.
    DataType vectorDtypeArg(const Arg& a);
    Value intrinsicBuiltin(const std::string& name, const CallArgs& c);
    Value declBuffer(const CallArgs& c);
    Value declTensorIntrin(const CallArgs& c);
    Value intrinsicAttribute(const Value& obj, const std::string& a, SourceLoc loc);
    Value intrinsicMethod(const Value& self, const std::string& name, const CallArgs& c);
    // x as TVM's astype makes it: a scalar cast to a vector type is broadcast.
    static Expr castTo(DataType t, const Expr& x);
    loopscope::Stmt stmtArg(const Value& v, SourceLoc loc, const std::string& what);
    Value reducerOrMinMax(const std::string& name, const CallArgs& c);
    Value compute(const CallArgs& c);

    // Reductions only at the top of a compute body; reduce axes only inside their reduction.
    void checkReductions(const Expr& body, SourceLoc loc, const std::string& tname);
    Value createSchedule(const CallArgs& c);
    // A new variant of a schedule of `outs` (named by a "# variant:" comment before it).
    int addVariant(std::vector<Tensor> outs);

    // ---- TensorIR (EvaluateTensorIR.cpp) ----

    Value createPrimFunc(const CallArgs& c);
    Value createTirSchedule(const CallArgs& c);
    Value tirAttribute(const Value& obj, const std::string& a, SourceLoc loc);
    Value tirMethod(const Value& self, const std::string& name, const CallArgs& c);
    // An index map's lambda (`lambda i, j: (i // 4, j, i % 4)`): its indices as variables in
    // `params`, and what it maps them to.
    std::vector<Expr> indexMap(const ast::Expr& lambda, std::vector<Var>* params);
    Var loopArg(const Arg& a, int variant, const std::string& fn);
    // The block a handle names now: a block renamed by a step (decompose_reduction's
    // NAME_update) is still the block the script's handle holds, as in TVM.
    std::string blockArg(const Arg& a, int variant, const std::string& fn);
    std::map<std::pair<int, std::string>, std::string> m_blockRenames;
    // A block handle's block now: `name` after the renames since (decompose_reduction's _update).
    std::string currentBlockName(int variant, std::string name) const;
    // The trace's names of the script's handles (b0, l1, ...), per variant.
    // A trace names each handle a schedule method returns (TVM's random variables: b0, l1, ...):
    // by the handle itself (its id in Value::i), so that a loop fetched twice is two names, as in
    // TVM's trace; by the block's name or the loop's variable for a handle without an id.
    struct TraceNames {
        int next = 0;
        std::map<std::int64_t, std::string> handles;
        std::map<std::string, std::string> blocks;
        std::map<const VarNode*, std::string> loops;
    };
    std::int64_t m_nextHandle = 0;
    std::map<int, TraceNames> m_traceNames;
    std::string traceName(const Value& handle);
    std::string newTraceName(int variant, const Value& handle);
    void trace(int variant, const std::string& line);
    // The step's function becomes the variant's newest snapshot.
    void recordTirStep(int variant, const std::string& primitive, const std::string& block,
                       TirFunc after);
    Value lowerOrBuild(const std::string& name, const CallArgs& c);

    // Every placeholder the schedule reads and every output must be an argument.
    void checkTarget(const std::string& target, SourceLoc loc);
    void checkBoundForGpu(const Variant& v, SourceLoc loc);
    void checkArgs(const Variant& v, SourceLoc loc);

    // ---- schedule primitives ----

    Schedule& schedule(int variant);
    void touch(int variant);

    // TVM stage methods Loopscope does not implement: named as such rather than as unknown.
    static inline const std::set<std::string> kUnsupportedStageMethods = {};
    static bool isStagePrimitive(const std::string& name);
    static bool isSchedulePrimitive(const std::string& name);
    IterVar axisArg(const Arg& a, const std::string& fn);
    std::int64_t factorArg(const Arg& a, const std::string& what);
    int intArg(const Arg& a, const std::string& what);
    // The step's schedule becomes the variant's newest snapshot.
    void recordStep(int variant, const std::string& primitive, const std::string& stage,
                    Schedule after);
    // Counts a copy of `stages` stages kept for the before/after views of a step (or a new
    // schedule), refusing at the statement once the script's copies pass kMaxStageCopies: a
    // thousand-stage chain scheduled step by step would otherwise keep a million stages.
    void keepStageCopies(std::size_t stages);
    Value ivList(const std::vector<IterVar>& ivs, VKind kind = VKind::Tuple);
    Value callMethod(const Value& self, const std::string& name, const CallArgs& c);

    // The script's value for an argument of a primitive, as the catalogue says its kind is.
    StepArg stepArg(const PrimitiveSpec& p, int index, const Arg& a, int variant);

    // A primitive of the catalogue called on a stage or the schedule: its arguments bound to the
    // catalogue's signature, then applied to a copy of the variant's schedule, which becomes the
    // newest snapshot when the primitive accepts it.
    Value applyPrimitive(const Value& self, const PrimitiveSpec& p, const CallArgs& c);
    void recordNames(Variant& v);
    // Binds a name of the script, remembering what it held for recordLeftAlone.
    void bind(const std::string& name, const Value& v);
    // Records the names of the variants in `pending` that this statement did not touch, as they
    // were before it.
    void recordLeftAlone(const std::set<int>& pending);
    void finishVariants();
    // A @T.prim_func as read: its function, where it starts, and its spelling (0: either,
    // 1: v0.20-v0.23's T.block, 2: v0.24-v0.26's T.sblock, first seen at spellingLoc).
    struct ScriptFunc {
        TirFunc func;
        SourceLoc loc;
        int spelling = 0;
        SourceLoc spellingLoc;
    };
    std::vector<ScriptFunc> m_scriptFuncs;
    const std::map<std::string, std::int64_t>& m_overrides;
    Program m_program;
    std::unordered_map<std::string, Value> m_env;
    std::map<int, std::string> m_variantComments;
    std::set<int> m_commentLines;
    int m_lastScheduleLine = 0;
    std::set<const VarNode*> m_reduceVars;
    int m_threadAxes = 0; // te.thread_axis objects made so far
    const ast::Stmt* m_stmt = nullptr;
    std::string m_assignName;
    std::set<int> m_touched;
    // What this statement's bindings replaced, in order (nullopt: the name was unbound).
    std::vector<std::pair<std::string, std::optional<Value>>> m_rebound;
    // Stages the variants' schedules hold, summed over every step's copy (see keepStageCopies).
    std::int64_t m_stageCopies = 0;
    std::set<int> m_lowered; // variants this statement lowers or builds
    bool m_inCompute = false;
    std::int64_t m_forIterations = 0; // bodies of 'for' statements run so far
    int m_callDepth = 0;              // plain functions being run
    std::optional<Value> m_returned;  // set by a 'return' until its function has returned
    std::int64_t m_calls = 0;         // plain function calls so far, over the whole script
};

} // namespace loopscope::te_detail
