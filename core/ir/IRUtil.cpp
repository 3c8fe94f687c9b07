#include "ir/IRUtil.h"

#include "ir/IRMutator.h"
#include "ir/Tensor.h"

#include <algorithm>
#include <unordered_map>

namespace loopscope {

namespace {

class Substituter : public IRMutator {
public:
    explicit Substituter(const VarMap& map) : m_map(map) {}

protected:
    Expr visitLeaf(const Expr& self) override
    {
        if (auto* v = self.as<VarNode>()) {
            if (auto it = m_map.find(v); it != m_map.end()) return it->second;
        }
        return self;
    }

private:
    const VarMap& m_map;
};

class VarFinder : public IRVisitor {
public:
    explicit VarFinder(const VarSet& vars) : m_vars(vars) {}
    bool found = false;

protected:
    void visitLeaf(const Expr& e) override
    {
        if (auto* v = e.as<VarNode>(); v && m_vars.count(v)) found = true;
    }
    void visitFor(const ForNode* op) override
    {
        if (m_vars.count(op->var.get())) found = true;
        IRVisitor::visitFor(op);
    }

private:
    const VarSet& m_vars;
};

class VarCollector : public IRVisitor {
public:
    explicit VarCollector(VarSet* out) : m_out(out) {}

protected:
    void visitLeaf(const Expr& e) override
    {
        if (auto* v = e.as<VarNode>()) m_out->insert(v);
    }

private:
    VarSet* m_out;
};

bool listEqual(const std::vector<Expr>& a, const std::vector<Expr>& b)
{
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!exprEqual(a[i], b[i])) return false;
    return true;
}

std::size_t combine(std::size_t seed, std::size_t v)
{
    return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

} // namespace

Expr substitute(const Expr& e, const VarMap& map)
{
    if (map.empty()) return e;
    Substituter s(map);
    return s.mutate(e);
}

Stmt substitute(const Stmt& st, const VarMap& map)
{
    if (map.empty()) return st;
    Substituter s(map);
    return s.mutate(st);
}

bool exprEqual(const Expr& a, const Expr& b)
{
    if (a.same(b)) return true;
    if (!a.defined() || !b.defined()) return false;
    if (a.kind() != b.kind() || !(a.type() == b.type())) return false;
    switch (a.kind()) {
    case ExprKind::IntImm: return a.as<IntImmNode>()->value == b.as<IntImmNode>()->value;
    case ExprKind::FloatImm: return a.as<FloatImmNode>()->value == b.as<FloatImmNode>()->value;
    case ExprKind::StringImm: return a.as<StringImmNode>()->value == b.as<StringImmNode>()->value;
    case ExprKind::Var: return false; // identity only, checked above
    case ExprKind::Not: return exprEqual(a.as<NotNode>()->a, b.as<NotNode>()->a);
    case ExprKind::Select: {
        auto *x = a.as<SelectNode>(), *y = b.as<SelectNode>();
        return exprEqual(x->cond, y->cond) && exprEqual(x->t, y->t) && exprEqual(x->f, y->f);
    }
    case ExprKind::Cast: return exprEqual(a.as<CastNode>()->value, b.as<CastNode>()->value);
    case ExprKind::Call: {
        auto *x = a.as<CallNode>(), *y = b.as<CallNode>();
        return x->op == y->op && listEqual(x->args, y->args);
    }
    case ExprKind::TensorLoad: {
        auto *x = a.as<TensorLoadNode>(), *y = b.as<TensorLoadNode>();
        return x->tensor == y->tensor && listEqual(x->indices, y->indices);
    }
    case ExprKind::BufferLoad: {
        auto *x = a.as<BufferLoadNode>(), *y = b.as<BufferLoadNode>();
        return x->buffer == y->buffer && listEqual(x->indices, y->indices);
    }
    case ExprKind::Ramp: {
        auto *x = a.as<RampNode>(), *y = b.as<RampNode>();
        return x->lanes == y->lanes && exprEqual(x->base, y->base) &&
               exprEqual(x->stride, y->stride);
    }
    case ExprKind::Broadcast: {
        auto *x = a.as<BroadcastNode>(), *y = b.as<BroadcastNode>();
        return x->lanes == y->lanes && exprEqual(x->value, y->value);
    }
    case ExprKind::Let: {
        auto *x = a.as<LetNode>(), *y = b.as<LetNode>();
        return x->var.same(y->var) && exprEqual(x->value, y->value) && exprEqual(x->body, y->body);
    }
    case ExprKind::Reduce: {
        auto *x = a.as<ReduceNode>(), *y = b.as<ReduceNode>();
        return x->op == y->op && x->axes == y->axes && exprEqual(x->source, y->source) &&
               exprEqual(x->condition, y->condition);
    }
    default: {
        auto *x = a.as<BinaryNode>(), *y = b.as<BinaryNode>();
        return exprEqual(x->a, y->a) && exprEqual(x->b, y->b);
    }
    }
}

std::size_t exprHash(const Expr& e)
{
    if (!e.defined()) return 0;
    std::size_t h = std::hash<int>()(static_cast<int>(e.kind()));
    h = combine(h, std::hash<std::string>()(e.type().str()));
    switch (e.kind()) {
    case ExprKind::IntImm: return combine(h, std::hash<std::int64_t>()(e.as<IntImmNode>()->value));
    case ExprKind::FloatImm: return combine(h, std::hash<double>()(e.as<FloatImmNode>()->value));
    case ExprKind::StringImm:
        return combine(h, std::hash<std::string>()(e.as<StringImmNode>()->value));
    case ExprKind::Var: return combine(h, std::hash<const void*>()(e.get()));
    default: break;
    }
    forEachExpr(e, [&](const Expr& sub) {
        if (sub.same(e)) return;
        if (auto* v = sub.as<VarNode>())
            h = combine(h, std::hash<const void*>()(v));
        else if (auto* i = sub.as<IntImmNode>())
            h = combine(h, std::hash<std::int64_t>()(i->value));
        else
            h = combine(h, static_cast<std::size_t>(sub.kind()));
    });
    return h;
}

Expr withoutLikely(const Expr& e)
{
    auto* call = e.as<CallNode>();
    return call && call->op == CallOp::Likely ? call->args[0] : e;
}

Var findVar(const Stmt& s, const void* node)
{
    class Finder : public IRVisitor {
    public:
        explicit Finder(const void* n) : m_node(n) {}
        Var found;

    protected:
        void visitLeaf(const Expr& e) override
        {
            if (!found.defined() && e.get() == m_node)
                found = Var(std::static_pointer_cast<const VarNode>(e.node()));
        }

    private:
        const void* m_node;
    };
    Finder f(node);
    f.visit(s);
    return f.found;
}

bool usesVar(const Expr& e, const VarNode* v)
{
    VarSet s{v};
    return usesAnyVar(e, s);
}

bool usesAnyVar(const Expr& e, const VarSet& vars)
{
    if (vars.empty()) return false;
    VarFinder f(vars);
    f.visit(e);
    return f.found;
}

bool usesAnyVar(const Stmt& s, const VarSet& vars)
{
    if (vars.empty()) return false;
    VarFinder f(vars);
    f.visit(s);
    return f.found;
}

void collectVars(const Expr& e, VarSet* out)
{
    VarCollector c(out);
    c.visit(e);
}

namespace {
class ExprWalker : public IRVisitor {
public:
    explicit ExprWalker(const std::function<void(const Expr&)>& f) : m_f(&f) {}
    explicit ExprWalker(const std::function<bool(const Expr&, int)>& f) : m_fd(&f) {}
    void walk(const Expr& e)
    {
        if (!e.defined()) return;
        if (m_fd) {
            if (!(*m_fd)(e, m_depth + 1)) return;
        } else {
            (*m_f)(e);
        }
        m_current = &e;
        ++m_depth;
        IRVisitor::visit(e);
        --m_depth;
    }

protected:
    // Re-route child visits through walk() so that every node is reported.
    void visitBinary(const BinaryNode* op) override
    {
        walk(op->a);
        walk(op->b);
    }
    void visitNot(const NotNode* op) override { walk(op->a); }
    void visitSelect(const SelectNode* op) override
    {
        walk(op->cond);
        walk(op->t);
        walk(op->f);
    }
    void visitCast(const CastNode* op) override { walk(op->value); }
    void visitCall(const CallNode* op) override
    {
        for (auto& a : op->args)
            walk(a);
    }
    void visitTensorLoad(const TensorLoadNode* op) override
    {
        for (auto& i : op->indices)
            walk(i);
    }
    void visitBufferLoad(const BufferLoadNode* op) override
    {
        for (auto& i : op->indices)
            walk(i);
    }
    void visitRamp(const RampNode* op) override
    {
        walk(op->base);
        walk(op->stride);
    }
    void visitBroadcast(const BroadcastNode* op) override { walk(op->value); }
    void visitLet(const LetNode* op) override
    {
        walk(op->value);
        walk(op->body);
    }
    void visitReduce(const ReduceNode* op) override
    {
        walk(op->source);
        walk(op->condition);
    }

private:
    const std::function<void(const Expr&)>* m_f = nullptr;
    const std::function<bool(const Expr&, int)>* m_fd = nullptr;
    const Expr* m_current = nullptr;
    int m_depth = 0;
};
} // namespace

void forEachExpr(const Expr& e, const std::function<void(const Expr&)>& f)
{
    ExprWalker w(f);
    w.walk(e);
}

void forEachExprWithDepth(const Expr& e, const std::function<bool(const Expr&, int)>& f)
{
    ExprWalker w(f);
    w.walk(e);
}

int exprDepthUpTo(const Expr& e, int limit)
{
    int deepest = 0;
    forEachExprWithDepth(e, [&](const Expr&, int depth) {
        deepest = std::max(deepest, depth);
        return depth <= limit;
    });
    return deepest;
}

ExprShape exprShape(const Expr& e, int depthLimit)
{
    std::unordered_map<const void*, ExprShape> memo;
    // Recursion is bounded by depthLimit; a shared subexpression is measured once.
    std::function<ExprShape(const Expr&, int)> measure = [&](const Expr& x, int depth) {
        if (depth > depthLimit) return ExprShape{1, 1};
        if (auto it = memo.find(x.get()); it != memo.end()) return it->second;
        ExprShape shape{1, 1};
        forEachExprWithDepth(x, [&](const Expr& sub, int d) {
            if (d == 1) return true; // x itself
            ExprShape child = measure(sub, depth + 1);
            shape.nodes += child.nodes;
            shape.depth = std::max(shape.depth, child.depth + 1);
            return false; // its children were measured through it
        });
        memo.emplace(x.get(), shape);
        return shape;
    };
    return e.defined() ? measure(e, 1) : ExprShape{0, 0};
}

int exprSize(const Expr& e)
{
    int n = 0;
    forEachExpr(e, [&](const Expr&) { ++n; });
    return n;
}

Expr substituteLets(Expr e, const VarMap& lets)
{
    VarSet bound;
    for (auto& [v, value] : lets)
        bound.insert(v);
    for (int depth = 0; depth < 8 && usesAnyVar(e, bound); ++depth)
        e = substitute(e, lets);
    return e;
}

namespace {

// Statements only: expressions are not entered.
class StmtSearch : public IRVisitor {
public:
    explicit StmtSearch(const std::function<bool(const StmtNode*)>& pred) : m_pred(pred) {}
    bool found = false;

protected:
    void visitLeaf(const Expr&) override {}
    void visitBinary(const BinaryNode*) override {}
#define LS_IR_SKIP_EXPR(Kind)                                                                      \
    void visit##Kind(const Kind##Node*) override {}
    LS_IR_NODE_EXPRS(LS_IR_SKIP_EXPR)
#undef LS_IR_SKIP_EXPR
#define LS_IR_SEARCH_STMT(Kind)                                                                    \
    void visit##Kind(const Kind##Node* op) override                                                \
    {                                                                                              \
        if (found) return;                                                                         \
        if (m_pred(op)) {                                                                          \
            found = true;                                                                          \
            return;                                                                                \
        }                                                                                          \
        IRVisitor::visit##Kind(op);                                                                \
    }
    LS_IR_STMTS(LS_IR_SEARCH_STMT)
#undef LS_IR_SEARCH_STMT

private:
    const std::function<bool(const StmtNode*)>& m_pred;
};

} // namespace

bool anyStmt(const Stmt& s, const std::function<bool(const StmtNode*)>& pred)
{
    StmtSearch search(pred);
    search.visit(s);
    return search.found;
}

bool anyAttr(const Stmt& s, const std::function<bool(const AttrNode*)>& pred)
{
    return anyStmt(s, [&](const StmtNode* n) {
        return n->kind == StmtKind::Attr && pred(static_cast<const AttrNode*>(n));
    });
}

} // namespace loopscope
