// The TIR printer's statements: bodies spliced into their frame, loops (T.grid for perfect serial
// nests), lets, branches, allocations, attributes and realize regions, each in the concise form
// where TVM uses it.
#include "ir/PrinterInternal.h"

#include <algorithm>

namespace loopscope::printer_detail {

// The statements of a body into frame `f`; a sequence is spliced, and only its last statement
// may print in concise form (`x: T.int32 = v` rather than `with T.LetStmt(v) as x:`).
void Printer::asDocBody(const Stmt& s, Frame& f)
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

// The statement's lines, the first one (its header: a loop, a branch, a store, a concise let)
// marked as printing it.
Lines Printer::stmt(const Stmt& s)
{
    Lines out = stmtLines(s);
    if (!out.empty()) out.front().nodes.push_back(s.get());
    return out;
}

Lines Printer::stmtLines(const Stmt& s)
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
    case StmtKind::Block: return block(s.as<BlockNode>());
    case StmtKind::Evaluate: {
        auto* op = s.as<EvaluateNode>();
        std::string value = expr(op->value).text;
        if (op->value.kind() == ExprKind::Call) return {{0, value}};
        return {{0, "T.evaluate(" + value + ")"}};
    }
    }
    return {};
}

Lines Printer::forStmt(const ForNode* op)
{
    std::vector<const ForNode*> grid;
    VarSet gridVars;
    for (const ForNode* l = op; l; l = l->body.as<ForNode>()) {
        if (l->forKind != ForKind::Serial || !isZero(l->min) || usesAnyVar(l->extent, gridVars) ||
            !l->annotations.empty())
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
        // A loop's annotations, as TVM prints them (a serial one as T.serial then).
        std::string ann;
        if (!op->annotations.empty()) {
            std::vector<std::string> items;
            for (const auto& [key, value] : op->annotations)
                items.push_back(quoted(key) + ": " + expr(value).text);
            ann = ", annotations={" + join(items) + "}";
        }
        std::string call;
        switch (op->forKind) {
        case ForKind::Serial:
            call = ann.empty() ? "range(" + range + ")" : "T.serial(" + range + ann + ")";
            break;
        case ForKind::Parallel: call = "T.parallel(" + range + ann + ")"; break;
        case ForKind::Vectorized: call = "T.vectorized(" + range + ann + ")"; break;
        case ForKind::Unrolled: call = "T.unroll(" + range + ann + ")"; break;
        case ForKind::ThreadBinding:
            call = "T.thread_binding(" + range + ", thread=" + quoted(op->threadTag) + ann + ")";
            break;
        }
        header = "for " + var + " in " + call + ":";
        body = op->body;
    }
    for (const ForNode* l : grid.empty() ? std::vector<const ForNode*>{op} : grid)
        m_openLoops[l->var.get()] = l;
    asDocBody(body, f);
    for (const ForNode* l : grid.empty() ? std::vector<const ForNode*>{op} : grid)
        m_openLoops.erase(l->var.get());
    Lines out = withBlock(header, popFrame());
    for (std::size_t i = 1; i < grid.size(); ++i) // a T.grid line prints its inner loops too
        out.front().nodes.push_back(grid[i]);
    return out;
}

Lines Printer::letStmt(const LetStmtNode* op)
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

Lines Printer::ifThenElse(const IfThenElseNode* op)
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

Lines Printer::allocate(const AllocateNode* op)
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

Lines Printer::attr(const AttrNode* op)
{
    if (op->key == "tvm_storage_sync")
        return {{0, "T.tvm_storage_sync(" + quoted(op->target) + ")", {op}}};
    bool concise = current().allowConcise;
    std::string rhs;
    const VarNode* threadVar = nullptr;
    if (op->key == "thread_extent" || op->key == "virtual_thread") {
        const VarNode* v = findThreadVar(op);
        std::string value = expr(op->value).text;
        const std::vector<const void*>& path = v ? m_uses.paths[v] : std::vector<const void*>{};
        if (v && !m_objNames.count(v) && std::find(path.begin(), path.end(), op) == path.end()) {
            // Launched here and elsewhere (one thread axis bound in several stages): declared
            // once where all its uses are, as TVM prints it.
            Frame& f = lowestDefFrame(v);
            std::string name = define(v, v->name, f);
            f.lines.push_back({0, name + " = T.env_thread(" + quoted(op->target) + ")"});
        }
        if (v && m_objNames.count(v)) {
            rhs = "T.launch_thread(" + m_objNames[v] + ", " + value + ")";
        } else {
            rhs = "T.launch_thread(" + quoted(op->target) + ", " + value + ")";
            threadVar = v;
        }
    } else if (ReduceOp r; op->key == "reduce_scope" && reduceOpNamed(op->target, &r)) {
        // TVM's comm_reducer of the reduction, and the zero handle it annotates.
        Var x("x", op->value.type()), y("y", op->value.type());
        std::string combiner = printExpr(reduceCombine(r, x, y));
        rhs = "T.attr(T.comm_reducer(lambda x, y: " + combiner + ", [" + expr(op->value).text +
              "]), \"reduce_scope\", T.reinterpret(\"handle\", T.uint64(0)))";
    } else if (op->key == "double_buffer_write" && m_objNames.count(op->ref)) {
        // TVM names the buffer's storage variable itself.
        rhs = "T.attr(" + m_objNames[op->ref] + ", " + quoted(op->key) + ", " +
              expr(op->value).text + ")";
    } else {
        rhs = "T.attr(" + quoted(scriptName(op->target)) + ", " + quoted(op->key) + ", " +
              expr(op->value).text + ")";
    }
    Frame& f = pushFrame(op);
    // A launch whose variable the body no longer uses (an extent of 1) is still named.
    const bool unusedThread = !threadVar && rhs.rfind("T.launch_thread(\"", 0) == 0;
    std::string lhs = threadVar      ? define(threadVar, threadVar->name, f)
                      : unusedThread ? define(op, op->target, f)
                                     : "";
    asDocBody(op->body, f);
    Lines body = popFrame();
    if (concise) {
        body.insert(body.begin(), {0, lhs.empty() ? rhs : lhs + " = " + rhs});
        return body;
    }
    return withBlock("with " + rhs + (lhs.empty() ? "" : " as " + lhs) + ":", body);
}

// The variable a thread_extent attribute launches: the one it refers to where the body uses it,
// else one named like its thread tag whose uses all lie inside the attribute.
const VarNode* Printer::findThreadVar(const AttrNode* op)
{
    for (const VarNode* v : m_uses.vars)
        if (v == op->ref) return v;
    for (const VarNode* v : m_uses.vars) {
        if (v->name != op->target) continue;
        if (m_objNames.count(v)) return v;
        const std::vector<const void*>& path = m_uses.paths[v];
        if (std::find(path.begin(), path.end(), op) != path.end()) return v;
    }
    return nullptr;
}

Lines Printer::realize(const RealizeNode* op)
{
    Frame& f = pushFrame(op);
    auto known = m_objNames.find(op->tensor.get());
    std::string name =
        known != m_objNames.end() ? known->second : define(op->tensor.get(), op->tensor->name, f);
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

// A region as TVM prints a BufferRegion: a point where the extent is 1, else a slice.
std::string Printer::region(const TensorRegion& r)
{
    std::vector<std::string> dims;
    for (const Range& x : r.region) {
        if (isOne(x.extent)) {
            dims.push_back(index(x.min));
        } else {
            Expr end = isZero(x.min) ? x.extent : x.min + x.extent;
            dims.push_back(expr(x.min).text + ":" + expr(end).text);
        }
    }
    return tensorName(r.tensor.get()) + "[" + join(dims) + "]";
}

// `NAME = T.alloc_buffer((shape), "dtype", scope="...")`, its dtype and scope left out where
// they are TVM's defaults (float32, global).
std::string Printer::allocBuffer(const BlockAlloc& a, Frame& f)
{
    const bool s26 = m_options.spelling == TirSpelling::Tvm026;
    std::string name = define(a.tensor.get(), a.tensor->name, f);
    std::string rhs =
        std::string(s26 ? "T.sblock_alloc_buffer(" : "T.alloc_buffer(") + tuple(a.tensor->shape);
    if (a.tensor->dtype != DataType::float32()) rhs += ", " + quoted(a.tensor->dtype.str());
    if (!a.scope.empty() && a.scope != "global") rhs += ", scope=" + quoted(a.scope);
    return name + " = " + rhs + ")";
}

// A block as TVM's printer writes it (script/printer/tir/block.cc): its iteration variables
// (runs of those bound to an enclosing loop over the same range as one T.axis.remap), T.where,
// T.reads, T.writes, annotations, allocations, T.init, the body.
Lines Printer::block(const BlockNode* op)
{
    const bool s26 = m_options.spelling == TirSpelling::Tvm026;
    const auto& loops = m_openLoops;
    Frame& f = pushFrame(op);
    auto kindName = [](BlockIterKind k) {
        return k == BlockIterKind::Reduce ? "reduce" : "spatial";
    };
    auto kindLetter = [](BlockIterKind k) { return k == BlockIterKind::Reduce ? "R" : "S"; };
    std::vector<std::size_t> run;
    auto single = [&](std::size_t i) {
        const BlockIter& it = op->iters[i];
        std::string dom = isZero(it.dom.min) ? expr(it.dom.extent).text
                                             : "(" + expr(it.dom.min).text + ", " +
                                                   expr(it.dom.min + it.dom.extent).text + ")";
        std::string value = expr(it.binding).text;
        std::string name = define(it.var.get(), it.var.name(), f);
        f.lines.push_back(
            {0, name + " = T.axis." + kindName(it.kind) + "(" + dom + ", " + value + ")"});
    };
    auto flush = [&] {
        if (run.size() == 1) single(run.front());
        if (run.size() > 1) {
            std::vector<std::string> lhs, rhs;
            std::string kinds;
            for (std::size_t i : run) {
                const BlockIter& it = op->iters[i];
                rhs.push_back(expr(it.binding).text);
                kinds += kindLetter(it.kind);
            }
            for (std::size_t i : run)
                lhs.push_back(define(op->iters[i].var.get(), op->iters[i].var.name(), f));
            f.lines.push_back(
                {0, join(lhs) + " = T.axis.remap(" + quoted(kinds) + ", [" + join(rhs) + "])"});
        }
        run.clear();
    };
    for (std::size_t i = 0; i < op->iters.size(); ++i) {
        const BlockIter& it = op->iters[i];
        const auto* v = it.binding.as<VarNode>();
        auto loop = v ? loops.find(v) : loops.end();
        if (loop != loops.end() && exprEqual(loop->second->min, it.dom.min) &&
            exprEqual(loop->second->extent, it.dom.extent)) {
            run.push_back(i);
            continue;
        }
        flush();
        single(i);
    }
    flush();
    if (op->predicate.defined())
        f.lines.push_back({0, "T.where(" + expr(op->predicate).text + ")"});
    std::vector<std::string> reads, writes;
    for (auto& r : op->reads)
        reads.push_back(region(r));
    for (auto& r : op->writes)
        writes.push_back(region(r));
    f.lines.push_back({0, "T.reads(" + join(reads) + ")"});
    f.lines.push_back({0, "T.writes(" + join(writes) + ")"});
    if (!op->annotations.empty() || !op->dimAligns.empty()) {
        std::vector<std::string> items;
        if (!op->dimAligns.empty()) {
            std::vector<std::string> entries;
            for (const auto& a : op->dimAligns)
                entries.push_back("[" + std::to_string(a.buffer) + ", " + std::to_string(a.axis) +
                                  ", " + std::to_string(a.factor) + ", " +
                                  std::to_string(a.offset) + "]");
            items.push_back(quoted("buffer_dim_align") + ": [" + join(entries) + "]");
        }
        for (auto& [key, value] : op->annotations)
            items.push_back(quoted(key) + ": " + expr(value).text);
        f.lines.push_back(
            {0, std::string(s26 ? "T.sblock_attr({" : "T.block_attr({") + join(items) + "})"});
    }
    for (auto& a : op->allocs)
        f.lines.push_back({0, allocBuffer(a, f)});
    if (op->init.defined()) {
        Frame& init = pushFrame(op->init.get());
        asDocBody(op->init, init);
        append(f.lines, withBlock("with T.init():", popFrame()));
    }
    asDocBody(op->body, f);
    return withBlock(std::string(s26 ? "with T.sblock(" : "with T.block(") + quoted(op->name) +
                         "):",
                     popFrame());
}

} // namespace loopscope::printer_detail
