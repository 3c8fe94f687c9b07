#include "ir/Printer.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Tensor.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace loopscope {

namespace {

// Python operator precedences as TVM's doc printer ranks them (python_doc_printer.cc).
enum Precedence : int {
    kOr = 3,
    kAnd = 4,
    kNot = 5,
    kCompare = 6,
    kAdd = 11,
    kMul = 12,
    kAtom = 15,
};

struct Doc {
    std::string text;
    int prec = kAtom;
};

struct Line {
    int indent;
    std::string text;
};
using Lines = std::vector<Line>;

// The identity of the function in use paths: the root every path starts with.
const char kFunctionRoot = 0;
const void* const kRoot = &kFunctionRoot;

std::string join(const std::vector<std::string>& parts, const char* sep = ", ")
{
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) out += sep;
        out += parts[i];
    }
    return out;
}

std::string quoted(std::string_view s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

// C++ ostream with precision 17 in the default float field, as TVM 0.17 prints FloatImm values.
std::string floatText(double v)
{
    if (std::isnan(v)) return "\"nan\"";
    if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

Lines withBlock(std::string header, const Lines& body)
{
    Lines out{{0, std::move(header)}};
    for (const Line& l : body)
        out.push_back({l.indent + 1, l.text});
    if (body.empty()) out.push_back({1, "pass"});
    return out;
}

void append(Lines& out, const Lines& more)
{
    out.insert(out.end(), more.begin(), more.end());
}

std::string render(const Lines& lines, int baseIndent)
{
    std::string out;
    for (const Line& l : lines) {
        out.append(static_cast<std::size_t>(4 * (baseIndent + l.indent)), ' ');
        out += l.text;
        out += '\n';
    }
    return out;
}

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

// For every variable and buffer, the statements on the path from the function to the deepest
// statement that contains all its uses (TVM's IRDocsifier::SetCommonPrefix, statements only).
class UseScanner {
public:
    std::unordered_map<const void*, std::vector<const void*>> paths;
    std::vector<const VarNode*> vars; // in order of first use

    void scanStmt(const Stmt& s)
    {
        if (!s.defined()) return;
        m_stack.push_back(s.get());
        switch (s.kind()) {
        case StmtKind::For: {
            auto* op = s.as<ForNode>();
            scanExpr(op->min);
            scanExpr(op->extent);
            scanStmt(op->body);
            break;
        }
        case StmtKind::TensorStore: {
            auto* op = s.as<TensorStoreNode>();
            scanExpr(op->value);
            for (const Expr& i : op->indices)
                scanExpr(i);
            break;
        }
        case StmtKind::BufferStore: {
            auto* op = s.as<BufferStoreNode>();
            use(op->buffer.get());
            scanExpr(op->value);
            for (const Expr& i : op->indices)
                scanExpr(i);
            break;
        }
        case StmtKind::Realize: {
            auto* op = s.as<RealizeNode>();
            for (const Range& r : op->bounds) {
                scanExpr(r.min);
                scanExpr(r.extent);
            }
            scanStmt(op->body);
            break;
        }
        case StmtKind::Allocate: {
            auto* op = s.as<AllocateNode>();
            for (const Expr& e : op->buffer->shape)
                scanExpr(e);
            scanStmt(op->body);
            break;
        }
        case StmtKind::LetStmt: {
            auto* op = s.as<LetStmtNode>();
            scanExpr(op->value);
            scanStmt(op->body);
            break;
        }
        case StmtKind::IfThenElse: {
            auto* op = s.as<IfThenElseNode>();
            scanExpr(op->cond);
            scanStmt(op->thenCase);
            scanStmt(op->elseCase);
            break;
        }
        case StmtKind::Seq:
            for (const Stmt& c : s.as<SeqNode>()->stmts)
                scanStmt(c);
            break;
        case StmtKind::Attr: {
            auto* op = s.as<AttrNode>();
            scanExpr(op->value);
            scanStmt(op->body);
            break;
        }
        case StmtKind::Evaluate: scanExpr(s.as<EvaluateNode>()->value); break;
        }
        m_stack.pop_back();
    }

private:
    class ExprScanner : public IRVisitor {
    public:
        explicit ExprScanner(UseScanner& owner) : m_owner(owner) {}

    protected:
        void visitLeaf(const Expr& e) override
        {
            if (auto* v = e.as<VarNode>()) m_owner.useVar(v);
        }
        void visitBufferLoad(const BufferLoadNode* op) override
        {
            m_owner.use(op->buffer.get());
            IRVisitor::visitBufferLoad(op);
        }

    private:
        UseScanner& m_owner;
    };

    std::vector<const void*> m_stack{kRoot};

    void scanExpr(const Expr& e)
    {
        ExprScanner scanner(*this);
        scanner.visit(e);
    }

    void useVar(const VarNode* v)
    {
        if (!paths.count(v)) vars.push_back(v);
        use(v);
    }

    void use(const void* obj)
    {
        auto [it, inserted] = paths.try_emplace(obj, m_stack);
        if (inserted) return;
        std::vector<const void*>& path = it->second;
        std::size_t n = std::min(path.size(), m_stack.size());
        std::size_t i = 0;
        while (i < n && path[i] == m_stack[i])
            ++i;
        path.resize(i);
    }
};

struct Options {
    bool uniquify = true; // make names unique among the live definitions
    bool declare = true;  // declare undefined buffers and variables where TVM does
};

// A TVMScript printer with TVM's frame model: every For (the outermost loop of a T.grid),
// LetStmt, Allocate, AttrStmt, Realize and if-branch opens a frame; names defined in a frame are
// released when it closes; a buffer alias or free variable is declared in the open frame of the
// deepest statement containing all its uses, just before the statement being printed there.
class Printer {
public:
    explicit Printer(Options options) : m_options(options)
    {
        if (m_options.uniquify) m_names = {"I", "T", "R", "cls"};
    }

    std::string tvmScript(const PrimFunc& f)
    {
        m_uses.scanStmt(f.body);
        Frame& fn = pushFrame(kRoot);
        std::vector<std::string> params;
        std::vector<std::size_t> handles;
        std::vector<std::string> handleNames;
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            const BufferNode* b = f.params[i].get();
            if (!shapeHasVar(b->shape)) {
                std::string name = define(b, b->name, fn);
                bindDataVar(b, name, fn);
                params.push_back(name + ": T.Buffer(" + tuple(b->shape) + ", " +
                                 quoted(b->dtype.str()) + ")");
            } else {
                std::string name = define(&f.params[i], b->name, fn);
                params.push_back(name + ": T.handle");
                handles.push_back(i);
                handleNames.push_back(name);
            }
        }
        fn.lines.push_back({0, "T.func_attr({\"from_legacy_te_schedule\": T.bool(True), "
                               "\"tir.noalias\": T.bool(True)})"});
        for (std::size_t h = 0; h < handles.size(); ++h) {
            const BufferNode* b = f.params[handles[h]].get();
            std::string name = define(b, b->name, fn);
            declareShapeVars(b->shape, fn);
            bindDataVar(b, name, fn);
            std::string args = handleNames[h] + ", " + tuple(b->shape);
            if (b->dtype != DataType::float32()) args += ", " + quoted(b->dtype.str());
            fn.lines.push_back({0, name + " = T.match_buffer(" + args + ")"});
        }
        asDocBody(f.body, fn);
        Lines body = popFrame();
        std::string out = "# from tvm.script import ir as I\n"
                          "# from tvm.script import tir as T\n"
                          "\n"
                          "@I.ir_module\n"
                          "class Module:\n"
                          "    @T.prim_func\n";
        out += "    def " + scriptName(f.name) + "(" + join(params) + "):\n";
        out += render(body.empty() ? Lines{{0, "pass"}} : body, 2);
        return out;
    }

    std::string structured(const Stmt& body, const std::vector<Tensor>& args)
    {
        m_uses.scanStmt(body);
        Frame& fn = pushFrame(kRoot);
        // Symbolic sizes are the function's own parameters here: named, not declared.
        for (const Tensor& t : args) {
            for (const Expr& e : t->shape) {
                for (const VarNode* v : orderedVars(e))
                    if (!m_objNames.count(v)) define(v, v->name, fn);
            }
        }
        std::vector<std::string> params;
        for (const Tensor& t : args) {
            std::string name = define(t.get(), t->name, fn);
            params.push_back(name + ": T.Buffer(" + tuple(t->shape) + ", " +
                             quoted(t->dtype.str()) + ")");
        }
        asDocBody(body, fn);
        Lines lines = popFrame();
        std::string out = "@T.prim_func\n";
        out += "def main(" + join(params) + "):\n";
        out += render(lines.empty() ? Lines{{0, "pass"}} : lines, 1);
        return out;
    }

    std::string stmtOnly(const Stmt& s)
    {
        Frame& root = pushFrame(kRoot);
        asDocBody(s, root);
        return render(popFrame(), 0);
    }

    std::string exprOnly(const Expr& e)
    {
        pushFrame(kRoot);
        std::string text = expr(e).text;
        popFrame();
        return text;
    }

private:
    struct Frame {
        explicit Frame(const void* t) : tir(t) {}
        const void* tir;
        Lines lines;
        std::vector<const void*> defined;
        bool allowConcise = true;
    };

    Options m_options;
    UseScanner m_uses;
    std::vector<std::unique_ptr<Frame>> m_frames;
    std::unordered_set<std::string> m_names;
    std::unordered_map<const void*, std::string> m_objNames;

    // ---- frames and names ----

    Frame& pushFrame(const void* tir)
    {
        m_frames.push_back(std::make_unique<Frame>(tir));
        return *m_frames.back();
    }

    Lines popFrame()
    {
        std::unique_ptr<Frame> f = std::move(m_frames.back());
        m_frames.pop_back();
        for (const void* obj : f->defined) {
            auto it = m_objNames.find(obj);
            if (it == m_objNames.end()) continue;
            m_names.erase(it->second);
            m_objNames.erase(it);
        }
        return std::move(f->lines);
    }

    Frame& current() { return *m_frames.back(); }

    std::string define(const void* obj, std::string_view hint, Frame& f)
    {
        std::string base = scriptName(hint);
        if (base.empty()) base = "v";
        std::string name = base;
        if (m_options.uniquify) {
            for (int i = 1; m_names.count(name); ++i)
                name = base + "_" + std::to_string(i);
        }
        m_names.insert(name);
        m_objNames[obj] = name;
        f.defined.push_back(obj);
        return name;
    }

    // A buffer defines its data pointer as `NAME.data` unless something else defined it first.
    void bindDataVar(const BufferNode* b, const std::string& name, Frame& f)
    {
        const VarNode* data = b->data.get();
        if (!data || m_objNames.count(data)) return;
        m_objNames[data] = name + ".data";
        f.defined.push_back(data);
    }

    // The open frame of the deepest statement containing every use of `obj`; of two open frames
    // of one statement (an if-branch that is a loop) the outer one.
    Frame& lowestDefFrame(const void* obj)
    {
        auto it = m_uses.paths.find(obj);
        if (it != m_uses.paths.end()) {
            std::unordered_map<const void*, Frame*> byTir;
            for (auto f = m_frames.rbegin(); f != m_frames.rend(); ++f)
                byTir[(*f)->tir] = f->get();
            for (auto p = it->second.rbegin(); p != it->second.rend(); ++p) {
                if (auto found = byTir.find(*p); found != byTir.end()) return *found->second;
            }
        }
        return *m_frames.front();
    }

    static bool shapeHasVar(const std::vector<Expr>& shape)
    {
        for (const Expr& e : shape)
            if (!orderedVars(e).empty()) return true;
        return false;
    }

    static std::vector<const VarNode*> orderedVars(const Expr& e)
    {
        std::vector<const VarNode*> out;
        forEachExpr(e, [&](const Expr& sub) {
            if (auto* v = sub.as<VarNode>()) {
                if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
            }
        });
        return out;
    }

    // `n = T.int32()`, or `m, n = T.int32(), T.int32()` for several new shape variables.
    void declareShapeVars(const std::vector<Expr>& shape, Frame& f)
    {
        std::vector<std::string> lhs, rhs;
        for (const Expr& e : shape) {
            for (const VarNode* v : orderedVars(e)) {
                if (m_objNames.count(v)) continue;
                lhs.push_back(define(v, v->name, f));
                rhs.push_back("T." + v->type.str() + "()");
            }
        }
        if (!lhs.empty()) f.lines.push_back({0, join(lhs) + " = " + join(rhs)});
    }

    std::string varName(const VarNode* v)
    {
        if (auto it = m_objNames.find(v); it != m_objNames.end()) return it->second;
        if (!m_options.declare) {
            std::string name = scriptName(v->name);
            return name.empty() ? "v" : name;
        }
        Frame& f = lowestDefFrame(v);
        std::string name = define(v, v->name, f);
        f.lines.push_back({0, name + " = T." + v->type.str() + "()"});
        return name;
    }

    std::string bufferName(const BufferNode* b)
    {
        if (auto it = m_objNames.find(b); it != m_objNames.end()) return it->second;
        std::string hint = b->name.empty() ? "buffer" : b->name;
        if (!m_options.declare) return scriptName(hint);
        Frame& f = lowestDefFrame(b);
        std::string name = define(b, hint, f);
        std::string args = tuple(b->shape);
        if (b->dtype != DataType::float32()) args += ", " + quoted(b->dtype.str());
        if (const VarNode* data = b->data.get()) {
            auto it = m_objNames.find(data);
            if (it != m_objNames.end())
                args += ", data=" + it->second;
            else
                bindDataVar(b, name, f);
        }
        if (!b->scope.empty() && b->scope != "global") args += ", scope=" + quoted(b->scope);
        f.lines.push_back({0, name + " = T.Buffer(" + args + ")"});
        return name;
    }

    std::string tensorName(const OperationNode* t)
    {
        if (auto it = m_objNames.find(t); it != m_objNames.end()) return it->second;
        if (!m_options.uniquify) return scriptName(t->name);
        return define(t, t->name, *m_frames.front());
    }

    // ---- expressions ----

    std::string tuple(const std::vector<Expr>& items)
    {
        std::vector<std::string> parts;
        for (const Expr& e : items)
            parts.push_back(expr(e).text);
        if (parts.size() == 1) return "(" + parts[0] + ",)";
        return "(" + join(parts) + ")";
    }

    std::string args(std::initializer_list<Expr> items)
    {
        std::vector<std::string> parts;
        for (const Expr& e : items)
            parts.push_back(expr(e).text);
        return join(parts);
    }

    // A buffer index: a ramp with a constant stride is a slice `base:base + lanes*stride[:stride]`.
    std::string index(const Expr& e)
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

    std::string indices(const std::vector<Expr>& idx)
    {
        if (idx.empty()) return "()";
        std::vector<std::string> parts;
        for (const Expr& e : idx)
            parts.push_back(index(e));
        return join(parts);
    }

    static Doc intDoc(const IntImmNode* op)
    {
        if (op->type == DataType::int32()) return {std::to_string(op->value), kAtom};
        if (op->type.isBool()) return {op->value ? "T.bool(True)" : "T.bool(False)", kAtom};
        return {"T." + op->type.str() + "(" + std::to_string(op->value) + ")", kAtom};
    }

    Doc binary(const BinaryNode* op)
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

    Doc expr(const Expr& e)
    {
        if (!e.defined()) return {"None"};
        switch (e.kind()) {
        case ExprKind::IntImm: return intDoc(e.as<IntImmNode>());
        case ExprKind::FloatImm: {
            auto* op = e.as<FloatImmNode>();
            return {"T." + op->type.str() + "(" + floatText(op->value) + ")"};
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
            return {"T.Ramp(" + args({op->base, op->stride}) + ", " + std::to_string(op->lanes) +
                    ")"};
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
    Doc reduce(const ReduceNode* op)
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

    // ---- statements ----

    // The statements of a body into frame `f`; a sequence is spliced, and only its last statement
    // may print in concise form (`x: T.int32 = v` rather than `with T.LetStmt(v) as x:`).
    void asDocBody(const Stmt& s, Frame& f)
    {
        if (!s.defined()) return;
        if (auto* seq = s.as<SeqNode>()) {
            for (std::size_t i = 0; i < seq->stmts.size(); ++i) {
                f.allowConcise = i + 1 == seq->stmts.size();
                Lines lines = stmt(seq->stmts[i]);
                append(f.lines, lines);
            }
            return;
        }
        f.allowConcise = true;
        Lines lines = stmt(s);
        append(f.lines, lines);
    }

    Lines stmt(const Stmt& s)
    {
        if (!s.defined()) return {};
        switch (s.kind()) {
        case StmtKind::For: return forStmt(s.as<ForNode>());
        case StmtKind::TensorStore: {
            auto* op = s.as<TensorStoreNode>();
            std::string name = tensorName(op->tensor.get());
            std::string value = expr(op->value).text;
            return {{0, name + "[" + indices(op->indices) + "] = " + value}};
        }
        case StmtKind::BufferStore: {
            auto* op = s.as<BufferStoreNode>();
            std::string name = bufferName(op->buffer.get());
            std::string value = expr(op->value).text;
            return {{0, name + "[" + indices(op->indices) + "] = " + value}};
        }
        case StmtKind::Realize: return realize(s.as<RealizeNode>());
        case StmtKind::Allocate: return allocate(s.as<AllocateNode>());
        case StmtKind::LetStmt: return letStmt(s.as<LetStmtNode>());
        case StmtKind::IfThenElse: return ifThenElse(s.as<IfThenElseNode>());
        case StmtKind::Seq: {
            Frame& f = pushFrame(s.get());
            asDocBody(s, f);
            return popFrame();
        }
        case StmtKind::Attr: return attr(s.as<AttrNode>());
        case StmtKind::Evaluate: {
            auto* op = s.as<EvaluateNode>();
            std::string value = expr(op->value).text;
            if (op->value.kind() == ExprKind::Call) return {{0, value}};
            return {{0, "T.evaluate(" + value + ")"}};
        }
        }
        return {};
    }

    Lines forStmt(const ForNode* op)
    {
        std::vector<const ForNode*> grid;
        VarSet gridVars;
        for (const ForNode* l = op; l; l = l->body.as<ForNode>()) {
            if (l->forKind != ForKind::Serial || !isZero(l->min) || usesAnyVar(l->extent, gridVars))
                break;
            grid.push_back(l);
            gridVars.insert(l->var.get());
        }
        Frame& f = pushFrame(op);
        std::string header;
        Stmt body;
        if (grid.size() > 1) {
            std::vector<std::string> vars, extents;
            for (const ForNode* l : grid) {
                vars.push_back(define(l->var.get(), l->var.name(), f));
                extents.push_back(expr(l->extent).text);
            }
            header = "for " + join(vars) + " in T.grid(" + join(extents) + "):";
            body = grid.back()->body;
        } else {
            std::string var = define(op->var.get(), op->var.name(), f);
            std::string range;
            if (isZero(op->min)) {
                range = expr(op->extent).text;
            } else {
                Expr end = isZero(op->extent) ? op->min : op->min + op->extent;
                range = expr(op->min).text + ", " + expr(end).text;
            }
            std::string call;
            switch (op->forKind) {
            case ForKind::Serial: call = "range(" + range + ")"; break;
            case ForKind::Parallel: call = "T.parallel(" + range + ")"; break;
            case ForKind::Vectorized: call = "T.vectorized(" + range + ")"; break;
            case ForKind::Unrolled: call = "T.unroll(" + range + ")"; break;
            case ForKind::ThreadBinding:
                call = "T.thread_binding(" + range + ", thread=" + quoted(op->threadTag) + ")";
                break;
            }
            header = "for " + var + " in " + call + ":";
            body = op->body;
        }
        asDocBody(body, f);
        return withBlock(header, popFrame());
    }

    Lines letStmt(const LetStmtNode* op)
    {
        bool concise = current().allowConcise;
        std::string value = expr(op->value).text;
        Frame& f = pushFrame(op);
        auto known = m_objNames.find(op->var.get());
        bool rebound = known != m_objNames.end();
        std::string name = rebound ? known->second : define(op->var.get(), op->var.name(), f);
        asDocBody(op->body, f);
        Lines body = popFrame();
        if (rebound) return withBlock("with T.LetStmt(" + value + ", var=" + name + "):", body);
        if (concise) {
            body.insert(body.begin(), {0, name + ": T." + op->var.type().str() + " = " + value});
            return body;
        }
        return withBlock("with T.LetStmt(" + value + ") as " + name + ":", body);
    }

    Lines ifThenElse(const IfThenElseNode* op)
    {
        std::string cond = expr(op->cond).text;
        Lines out;
        {
            Frame& f = pushFrame(op->thenCase.get());
            asDocBody(op->thenCase, f);
            out = withBlock("if " + cond + ":", popFrame());
        }
        if (op->elseCase.defined()) {
            Frame& f = pushFrame(op->elseCase.get());
            asDocBody(op->elseCase, f);
            append(out, withBlock("else:", popFrame()));
        }
        return out;
    }

    Lines allocate(const AllocateNode* op)
    {
        bool concise = current().allowConcise;
        const BufferNode* b = op->buffer.get();
        std::vector<std::string> extents;
        for (const Expr& e : b->shape)
            extents.push_back(expr(e).text);
        std::string scope = b->scope.empty() ? "global" : b->scope;
        std::string rhs = "T.allocate([" + join(extents) + "], " + quoted(b->dtype.str()) + ", " +
                          quoted(scope) + ")";
        // The storage variable belongs to the enclosing frame, as in TVM.
        const void* key = b->data.get() ? static_cast<const void*>(b->data.get()) : b;
        std::string hint = b->data.get() && !b->data.name().empty() ? b->data.name() : b->name;
        std::string name = define(key, hint, current());
        Frame& f = pushFrame(op);
        asDocBody(op->body, f);
        Lines body = popFrame();
        if (concise) {
            body.insert(body.begin(), {0, name + " = " + rhs});
            return body;
        }
        return withBlock("with " + rhs + " as " + name + ":", body);
    }

    Lines attr(const AttrNode* op)
    {
        bool concise = current().allowConcise;
        std::string rhs;
        const VarNode* threadVar = nullptr;
        if (op->key == "thread_extent" || op->key == "virtual_thread") {
            const VarNode* v = findThreadVar(op);
            std::string value = expr(op->value).text;
            if (v && m_objNames.count(v)) {
                rhs = "T.launch_thread(" + m_objNames[v] + ", " + value + ")";
            } else {
                rhs = "T.launch_thread(" + quoted(op->target) + ", " + value + ")";
                threadVar = v;
            }
        } else {
            rhs = "T.attr(" + quoted(scriptName(op->target)) + ", " + quoted(op->key) + ", " +
                  expr(op->value).text + ")";
        }
        Frame& f = pushFrame(op);
        std::string lhs = threadVar ? define(threadVar, threadVar->name, f) : "";
        asDocBody(op->body, f);
        Lines body = popFrame();
        if (concise) {
            body.insert(body.begin(), {0, lhs.empty() ? rhs : lhs + " = " + rhs});
            return body;
        }
        return withBlock("with " + rhs + (lhs.empty() ? "" : " as " + lhs) + ":", body);
    }

    // The variable a thread_extent attribute launches: one named like its thread tag whose uses
    // all lie inside the attribute.
    const VarNode* findThreadVar(const AttrNode* op)
    {
        for (const VarNode* v : m_uses.vars) {
            if (v->name != op->target) continue;
            if (m_objNames.count(v)) return v;
            const std::vector<const void*>& path = m_uses.paths[v];
            if (std::find(path.begin(), path.end(), op) != path.end()) return v;
        }
        return nullptr;
    }

    Lines realize(const RealizeNode* op)
    {
        Frame& f = pushFrame(op);
        auto known = m_objNames.find(op->tensor.get());
        std::string name = known != m_objNames.end()
                               ? known->second
                               : define(op->tensor.get(), op->tensor->name, f);
        std::vector<std::string> region;
        for (const Range& r : op->bounds) {
            Expr end = isZero(r.extent) ? r.min : r.min + r.extent;
            region.push_back(expr(r.min).text + ":" + expr(end).text);
        }
        std::string scope = op->scope.empty() ? "global" : op->scope;
        std::string header =
            "with T.realize(" + name + "[" + join(region) + "], " + quoted(scope) + "):";
        asDocBody(op->body, f);
        return withBlock(header, popFrame());
    }
};

} // namespace

std::string scriptName(std::string_view name)
{
    std::string out(name);
    for (char& c : out) {
        if (c != '_' && !std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return out;
}

std::string printTVMScript(const PrimFunc& f)
{
    return Printer({true, true}).tvmScript(f);
}

std::string printStructured(const Stmt& body, const std::vector<Tensor>& args)
{
    return Printer({true, true}).structured(body, args);
}

std::string printExpr(const Expr& e)
{
    return Printer({false, false}).exprOnly(e);
}

std::string printStmt(const Stmt& s)
{
    return Printer({false, false}).stmtOnly(s);
}

} // namespace loopscope
