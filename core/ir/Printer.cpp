// The TIR printer: the function and its parameters, frames and names, where a buffer alias or a
// free variable is declared, and the public entry points. Expressions are printed in
// PrinterExprs.cpp, statements in PrinterStmts.cpp.
#include "ir/PrinterInternal.h"

#include <algorithm>
#include <cctype>

namespace loopscope {

namespace printer_detail {

std::string join(const std::vector<std::string>& parts, const char* sep)
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

Lines withBlock(std::string header, const Lines& body)
{
    Lines out{{0, std::move(header)}};
    for (const Line& l : body)
        out.push_back({l.indent + 1, l.text, l.nodes});
    if (body.empty()) out.push_back({1, "pass"});
    return out;
}

void append(Lines& out, const Lines& more)
{
    out.insert(out.end(), more.begin(), more.end());
}

std::string render(const Lines& lines, int baseIndent, std::vector<std::vector<const void*>>* nodes)
{
    std::string out;
    for (const Line& l : lines) {
        out.append(static_cast<std::size_t>(4 * (baseIndent + l.indent)), ' ');
        out += l.text;
        out += '\n';
        if (nodes) nodes->push_back(l.nodes);
    }
    return out;
}

// ---- uses ----

void UseScanner::scanStmt(const Stmt& s)
{
    if (!s.defined()) return;
    const bool root = m_stack.size() == 1;
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
        if (op->key == "thread_extent" || op->key == "virtual_thread")
            m_launches.emplace_back(op->ref, m_stack);
        scanExpr(op->value);
        scanStmt(op->body);
        break;
    }
    case StmtKind::Evaluate: scanExpr(s.as<EvaluateNode>()->value); break;
    case StmtKind::Block: {
        auto* op = s.as<BlockNode>();
        for (const BlockIter& it : op->iters) {
            scanExpr(it.dom.min);
            scanExpr(it.dom.extent);
            scanExpr(it.binding);
        }
        if (op->predicate.defined()) scanExpr(op->predicate);
        for (auto* regions : {&op->reads, &op->writes})
            for (const TensorRegion& r : *regions)
                for (const Range& x : r.region) {
                    scanExpr(x.min);
                    scanExpr(x.extent);
                }
        scanStmt(op->init);
        scanStmt(op->body);
        break;
    }
    }
    m_stack.pop_back();
    if (!root) return;
    // As TVM counts a launch as a use of its variable: a variable launched in several places
    // (one thread axis bound in several stages) is defined above all of them, even a launch
    // whose body does not use it.
    for (auto& [ref, stack] : m_launches)
        if (auto it = paths.find(ref); it != paths.end()) keepCommonPrefix(it->second, stack);
    m_launches.clear();
}

class UseScanner::ExprScanner : public IRVisitor {
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

void UseScanner::scanExpr(const Expr& e)
{
    ExprScanner scanner(*this);
    scanner.visit(e);
}

void UseScanner::useVar(const VarNode* v)
{
    if (!paths.count(v)) vars.push_back(v);
    use(v);
}

void UseScanner::use(const void* obj)
{
    auto [it, inserted] = paths.try_emplace(obj, m_stack);
    if (!inserted) keepCommonPrefix(it->second, m_stack);
}

void UseScanner::keepCommonPrefix(std::vector<const void*>& path,
                                  const std::vector<const void*>& stack)
{
    std::size_t n = std::min(path.size(), stack.size());
    std::size_t i = 0;
    while (i < n && path[i] == stack[i])
        ++i;
    path.resize(i);
}

// ---- the function ----

Printer::Printer(Options options) : m_options(options)
{
    if (m_options.uniquify) m_names = {"I", "T", "R", "cls"};
}

std::string Printer::tvmScript(const PrimFunc& f, std::vector<std::vector<const void*>>* lineNodes)
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
    fn.lines.push_back({0, f.fromTensorIR ? "T.func_attr({\"tir.noalias\": T.bool(True)})"
                                          : "T.func_attr({\"from_legacy_te_schedule\": "
                                            "T.bool(True), \"tir.noalias\": T.bool(True)})"});
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
    if (lineNodes) lineNodes->assign(7, {}); // the header's seven lines
    out += render(body.empty() ? Lines{{0, "pass"}} : body, 2, lineNodes);
    return out;
}

std::string Printer::structured(const Stmt& body, const std::vector<Tensor>& args,
                                std::vector<std::vector<const void*>>* lineNodes)
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
        params.push_back(name + ": T.Buffer(" + tuple(t->shape) + ", " + quoted(t->dtype.str()) +
                         ")");
    }
    asDocBody(body, fn);
    Lines lines = popFrame();
    std::string out = "@T.prim_func\n";
    out += "def main(" + join(params) + "):\n";
    if (lineNodes) lineNodes->assign(2, {});
    out += render(lines.empty() ? Lines{{0, "pass"}} : lines, 1, lineNodes);
    return out;
}

std::string Printer::tensorIR(const TirFunc& fn)
{
    const bool s26 = m_options.spelling == TirSpelling::Tvm026;
    m_uses.scanStmt(fn.body);
    Frame& top = pushFrame(kRoot);
    std::vector<std::string> params;
    for (const Tensor& t : fn.params) {
        std::string name = define(t.get(), t->name, top);
        params.push_back(name + ": T.Buffer(" + tuple(t->shape) + ", " + quoted(t->dtype.str()) +
                         ")");
    }
    // As TVM prints it: the root block a comment, what it allocates at the function's level
    // (v0.26 too: `T.sblock_alloc_buffer`, the attribute a plain True).
    Lines body;
    body.push_back({0, s26 ? "T.func_attr({\"tirx.noalias\": True})"
                           : "T.func_attr({\"tir.noalias\": T.bool(True)})"});
    body.push_back({0, s26 ? "# with T.sblock(\"root\"):" : "# with T.block(\"root\"):"});
    for (const BlockAlloc& a : fn.allocs)
        body.push_back({0, allocBuffer(a, top)});
    asDocBody(fn.body, top);
    append(body, top.lines);
    popFrame();
    std::string out = std::string("# from tvm.script import ir as I\n# from tvm.script import ") +
                      (s26 ? "tirx as T\n# from tvm.tirx.layout import Axis" : "tir as T") +
                      "\n\n@I.ir_module\nclass Module:\n";
    out += std::string("    @T.prim_func") + (s26 ? "(s_tir=True)" : "") + "\n";
    out += "    def " + fn.name + "(" + join(params) + "):\n";
    out += render(body, 2);
    return out;
}

std::string Printer::stmtOnly(const Stmt& s)
{
    Frame& root = pushFrame(kRoot);
    asDocBody(s, root);
    return render(popFrame(), 0);
}

std::string Printer::exprOnly(const Expr& e)
{
    pushFrame(kRoot);
    std::string text = expr(e).text;
    popFrame();
    return text;
}

// ---- frames and names ----

Printer::Frame& Printer::pushFrame(const void* tir)
{
    m_frames.push_back(std::make_unique<Frame>(tir));
    return *m_frames.back();
}

Lines Printer::popFrame()
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

std::string Printer::define(const void* obj, std::string_view hint, Frame& f)
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
void Printer::bindDataVar(const BufferNode* b, const std::string& name, Frame& f)
{
    const VarNode* data = b->data.get();
    if (!data || m_objNames.count(data)) return;
    m_objNames[data] = name + ".data";
    f.defined.push_back(data);
}

// The open frame of the deepest statement containing every use of `obj`; of two open frames
// of one statement (an if-branch that is a loop) the outer one.
Printer::Frame& Printer::lowestDefFrame(const void* obj)
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

bool Printer::shapeHasVar(const std::vector<Expr>& shape)
{
    for (const Expr& e : shape)
        if (!orderedVars(e).empty()) return true;
    return false;
}

std::vector<const VarNode*> Printer::orderedVars(const Expr& e)
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
void Printer::declareShapeVars(const std::vector<Expr>& shape, Frame& f)
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

std::string Printer::varName(const VarNode* v)
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

std::string Printer::bufferName(const BufferNode* b)
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

std::string Printer::tensorName(const OperationNode* t)
{
    if (auto it = m_objNames.find(t); it != m_objNames.end()) return it->second;
    if (!m_options.uniquify) return scriptName(t->name);
    return define(t, t->name, *m_frames.front());
}

} // namespace printer_detail

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
    return printer_detail::Printer({true, true, f.fromTensorIR}).tvmScript(f);
}

PrintedFunction printTVMScriptWithLines(const PrimFunc& f)
{
    std::vector<std::vector<const void*>> nodes;
    PrintedFunction out;
    out.text = printer_detail::Printer({true, true, f.fromTensorIR}).tvmScript(f, &nodes);
    out.lineStatements.resize(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        for (const void* n : nodes[i])
            out.lineStatements[i].push_back(static_cast<const StmtNode*>(n));
    return out;
}

PrintedFunction printStructuredWithLines(const Stmt& body, const std::vector<Tensor>& args)
{
    std::vector<std::vector<const void*>> nodes;
    PrintedFunction out;
    out.text = printer_detail::Printer({true, true}).structured(body, args, &nodes);
    out.lineStatements.resize(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        for (const void* n : nodes[i])
            out.lineStatements[i].push_back(static_cast<const StmtNode*>(n));
    return out;
}

const char* tirSpellingName(TirSpelling s)
{
    return s == TirSpelling::Tvm026 ? "0.26" : "0.20";
}

std::string printTensorIR(const TirFunc& f, TirSpelling spelling)
{
    printer_detail::Options o;
    o.tensorIR = true;
    o.spelling = spelling;
    return printer_detail::Printer(o).tensorIR(f);
}

std::string printStructured(const Stmt& body, const std::vector<Tensor>& args)
{
    return printer_detail::Printer({true, true}).structured(body, args);
}

std::string quotedString(std::string_view s)
{
    return printer_detail::quoted(s);
}

std::string printExpr(const Expr& e)
{
    return printer_detail::Printer({false, false}).exprOnly(e);
}

std::string printStmt(const Stmt& s)
{
    return printer_detail::Printer({false, false}).stmtOnly(s);
}

} // namespace loopscope
