#include "ir/IRMutator.h"

#include "ir/Diagnostic.h"

namespace loopscope {

// ---- IRVisitor ----

void IRVisitor::visit(const Expr& e)
{
    if (!e.defined()) return;
    switch (e.kind()) {
#define LS_IR_CASE(Kind) case ExprKind::Kind:
        LS_IR_LEAF_EXPRS(LS_IR_CASE) visitLeaf(e);
        return;
        LS_IR_BINARY_EXPRS(LS_IR_CASE) visitBinary(e.as<BinaryNode>());
        return;
#undef LS_IR_CASE
#define LS_IR_CASE(Kind)                                                                           \
    case ExprKind::Kind: visit##Kind(e.as<Kind##Node>()); return;
        LS_IR_NODE_EXPRS(LS_IR_CASE)
#undef LS_IR_CASE
    }
}

void IRVisitor::visit(const Stmt& s)
{
    if (!s.defined()) return;
    switch (s.kind()) {
#define LS_IR_CASE(Kind)                                                                           \
    case StmtKind::Kind: visit##Kind(s.as<Kind##Node>()); return;
        LS_IR_STMTS(LS_IR_CASE)
#undef LS_IR_CASE
    }
}

void IRVisitor::visitBinary(const BinaryNode* op)
{
    visit(op->a);
    visit(op->b);
}
void IRVisitor::visitNot(const NotNode* op)
{
    visit(op->a);
}
void IRVisitor::visitSelect(const SelectNode* op)
{
    visit(op->cond);
    visit(op->t);
    visit(op->f);
}
void IRVisitor::visitCast(const CastNode* op)
{
    visit(op->value);
}
void IRVisitor::visitCall(const CallNode* op)
{
    for (auto& a : op->args)
        visit(a);
}
void IRVisitor::visitTensorLoad(const TensorLoadNode* op)
{
    for (auto& i : op->indices)
        visit(i);
}
void IRVisitor::visitBufferLoad(const BufferLoadNode* op)
{
    for (auto& i : op->indices)
        visit(i);
}
void IRVisitor::visitRamp(const RampNode* op)
{
    visit(op->base);
    visit(op->stride);
}
void IRVisitor::visitBroadcast(const BroadcastNode* op)
{
    visit(op->value);
}
void IRVisitor::visitLet(const LetNode* op)
{
    visit(op->value);
    visit(op->body);
}
void IRVisitor::visitReduce(const ReduceNode* op)
{
    visit(op->source);
    visit(op->condition);
}

void IRVisitor::visitFor(const ForNode* op)
{
    visit(op->min);
    visit(op->extent);
    visit(op->body);
}
void IRVisitor::visitTensorStore(const TensorStoreNode* op)
{
    for (auto& i : op->indices)
        visit(i);
    visit(op->value);
}
void IRVisitor::visitBufferStore(const BufferStoreNode* op)
{
    for (auto& i : op->indices)
        visit(i);
    visit(op->value);
}
void IRVisitor::visitRealize(const RealizeNode* op)
{
    for (auto& r : op->bounds) {
        visit(r.min);
        visit(r.extent);
    }
    visit(op->body);
}
void IRVisitor::visitBlock(const BlockNode* op)
{
    auto range = [&](const Range& r) {
        visit(r.min);
        visit(r.extent);
    };
    for (auto& it : op->iters) {
        range(it.dom);
        visit(it.binding);
    }
    if (op->predicate.defined()) visit(op->predicate);
    for (auto* regions : {&op->reads, &op->writes})
        for (auto& r : *regions)
            for (auto& x : r.region)
                range(x);
    if (op->init.defined()) visit(op->init);
    visit(op->body);
}
void IRVisitor::visitAllocate(const AllocateNode* op)
{
    visit(op->body);
}
void IRVisitor::visitLetStmt(const LetStmtNode* op)
{
    visit(op->value);
    visit(op->body);
}
void IRVisitor::visitIfThenElse(const IfThenElseNode* op)
{
    visit(op->cond);
    visit(op->thenCase);
    visit(op->elseCase);
}
void IRVisitor::visitSeq(const SeqNode* op)
{
    for (auto& s : op->stmts)
        visit(s);
}
void IRVisitor::visitAttr(const AttrNode* op)
{
    visit(op->value);
    visit(op->body);
}
void IRVisitor::visitEvaluate(const EvaluateNode* op)
{
    visit(op->value);
}

// ---- IRMutator ----

Expr IRMutator::mutate(const Expr& e)
{
    if (!e.defined()) return e;
    switch (e.kind()) {
#define LS_IR_CASE(Kind) case ExprKind::Kind:
        LS_IR_LEAF_EXPRS(LS_IR_CASE) return visitLeaf(e);
        LS_IR_BINARY_EXPRS(LS_IR_CASE) return visitBinary(e.as<BinaryNode>(), e);
#undef LS_IR_CASE
#define LS_IR_CASE(Kind)                                                                           \
    case ExprKind::Kind: return visit##Kind(e.as<Kind##Node>(), e);
        LS_IR_NODE_EXPRS(LS_IR_CASE)
#undef LS_IR_CASE
    }
    return e;
}

Stmt IRMutator::mutate(const Stmt& s)
{
    if (!s.defined()) return s;
    switch (s.kind()) {
#define LS_IR_CASE(Kind)                                                                           \
    case StmtKind::Kind: return visit##Kind(s.as<Kind##Node>(), s);
        LS_IR_STMTS(LS_IR_CASE)
#undef LS_IR_CASE
    }
    return s;
}

std::vector<Expr> IRMutator::mutate(const std::vector<Expr>& es, bool* changed)
{
    std::vector<Expr> out;
    out.reserve(es.size());
    for (auto& e : es) {
        out.push_back(mutate(e));
        if (!out.back().same(e)) *changed = true;
    }
    return out;
}

Expr IRMutator::visitBinary(const BinaryNode* op, const Expr& self)
{
    Expr a = mutate(op->a), b = mutate(op->b);
    if (a.same(op->a) && b.same(op->b)) return self;
    return makeBinary(op->kind, a, b);
}

Expr IRMutator::visitNot(const NotNode* op, const Expr& self)
{
    Expr a = mutate(op->a);
    return a.same(op->a) ? self : makeNot(a);
}

Expr IRMutator::visitSelect(const SelectNode* op, const Expr& self)
{
    Expr c = mutate(op->cond), t = mutate(op->t), f = mutate(op->f);
    if (c.same(op->cond) && t.same(op->t) && f.same(op->f)) return self;
    return makeSelect(c, t, f);
}

Expr IRMutator::visitCast(const CastNode* op, const Expr& self)
{
    Expr v = mutate(op->value);
    return v.same(op->value) ? self : makeCast(op->type, v);
}

Expr IRMutator::visitCall(const CallNode* op, const Expr& self)
{
    bool changed = false;
    auto args = mutate(op->args, &changed);
    if (!changed) return self;
    DataType t = op->type;
    // A call's lanes follow its arguments (vectorized math); a tensor intrinsic's calls have the
    // type they were made with.
    const bool ownType = isIntrinsicCall(op->op);
    for (auto& a : args)
        if (a.type().lanes > t.lanes && op->op != CallOp::IfThenElse && !ownType)
            t = t.withLanes(a.type().lanes);
    if (op->op == CallOp::IfThenElse) t = args[1].type();
    return makeCall(t, op->op, std::move(args));
}

Expr IRMutator::visitTensorLoad(const TensorLoadNode* op, const Expr& self)
{
    bool changed = false;
    auto idx = mutate(op->indices, &changed);
    return changed ? makeTensorLoad(op->tensor, std::move(idx)) : self;
}

Expr IRMutator::visitBufferLoad(const BufferLoadNode* op, const Expr& self)
{
    bool changed = false;
    auto idx = mutate(op->indices, &changed);
    return changed ? makeBufferLoad(op->buffer, std::move(idx)) : self;
}

Expr IRMutator::visitRamp(const RampNode* op, const Expr& self)
{
    Expr b = mutate(op->base), s = mutate(op->stride);
    if (b.same(op->base) && s.same(op->stride)) return self;
    return makeRamp(b, s, op->lanes);
}

Expr IRMutator::visitBroadcast(const BroadcastNode* op, const Expr& self)
{
    Expr v = mutate(op->value);
    return v.same(op->value) ? self : makeBroadcast(v, op->lanes);
}

Expr IRMutator::visitLet(const LetNode* op, const Expr& self)
{
    Expr v = mutate(op->value), b = mutate(op->body);
    if (v.same(op->value) && b.same(op->body)) return self;
    return makeLet(op->var, v, b);
}

Expr IRMutator::visitReduce(const ReduceNode* op, const Expr& self)
{
    Expr s = mutate(op->source), c = mutate(op->condition);
    if (s.same(op->source) && c.same(op->condition)) return self;
    return makeReduce(op->op, s, op->axes, c);
}

Stmt IRMutator::visitFor(const ForNode* op, const Stmt& self)
{
    Expr mn = mutate(op->min), ext = mutate(op->extent);
    Stmt body = mutate(op->body);
    if (mn.same(op->min) && ext.same(op->extent) && body.same(op->body)) return self;
    return remakeFor(op, mn, ext, body);
}

Stmt IRMutator::visitTensorStore(const TensorStoreNode* op, const Stmt& self)
{
    bool changed = false;
    auto idx = mutate(op->indices, &changed);
    Expr v = mutate(op->value);
    if (!changed && v.same(op->value)) return self;
    return makeTensorStore(op->tensor, std::move(idx), v);
}

Stmt IRMutator::visitBufferStore(const BufferStoreNode* op, const Stmt& self)
{
    bool changed = false;
    auto idx = mutate(op->indices, &changed);
    Expr v = mutate(op->value);
    if (!changed && v.same(op->value)) return self;
    return makeBufferStore(op->buffer, std::move(idx), v);
}

Stmt IRMutator::visitRealize(const RealizeNode* op, const Stmt& self)
{
    bool changed = false;
    std::vector<Range> bounds;
    for (auto& r : op->bounds) {
        Range m{mutate(r.min), mutate(r.extent)};
        if (!m.min.same(r.min) || !m.extent.same(r.extent)) changed = true;
        bounds.push_back(m);
    }
    Stmt body = mutate(op->body);
    if (!changed && body.same(op->body)) return self;
    return makeRealize(op->tensor, std::move(bounds), op->scope, body);
}

Stmt IRMutator::visitBlock(const BlockNode* op, const Stmt& self)
{
    bool changed = false;
    auto range = [&](const Range& r) {
        Range m{mutate(r.min), mutate(r.extent)};
        if (!m.min.same(r.min) || !m.extent.same(r.extent)) changed = true;
        return m;
    };
    BlockNode b = *op;
    for (auto& it : b.iters) {
        it.dom = range(it.dom);
        Expr e = mutate(it.binding);
        changed |= !e.same(it.binding);
        it.binding = e;
    }
    if (b.predicate.defined()) {
        Expr p = mutate(b.predicate);
        changed |= !p.same(b.predicate);
        b.predicate = p;
    }
    for (auto* regions : {&b.reads, &b.writes})
        for (auto& r : *regions)
            for (auto& x : r.region)
                x = range(x);
    if (b.init.defined()) {
        Stmt s = mutate(b.init);
        changed |= !s.same(b.init);
        b.init = s;
    }
    Stmt body = mutate(b.body);
    changed |= !body.same(b.body);
    b.body = body;
    if (!changed) return self;
    return makeBlock(std::move(b));
}

Stmt IRMutator::visitAllocate(const AllocateNode* op, const Stmt& self)
{
    Stmt body = mutate(op->body);
    return body.same(op->body) ? self : makeAllocate(op->buffer, body);
}

Stmt IRMutator::visitLetStmt(const LetStmtNode* op, const Stmt& self)
{
    Expr v = mutate(op->value);
    Stmt b = mutate(op->body);
    if (v.same(op->value) && b.same(op->body)) return self;
    return makeLetStmt(op->var, v, b);
}

Stmt IRMutator::visitIfThenElse(const IfThenElseNode* op, const Stmt& self)
{
    Expr c = mutate(op->cond);
    Stmt t = mutate(op->thenCase), e = mutate(op->elseCase);
    if (c.same(op->cond) && t.same(op->thenCase) && e.same(op->elseCase)) return self;
    return makeIfThenElse(c, t, e);
}

Stmt IRMutator::visitSeq(const SeqNode* op, const Stmt& self)
{
    bool changed = false;
    std::vector<Stmt> out;
    for (auto& s : op->stmts) {
        out.push_back(mutate(s));
        if (!out.back().same(s)) changed = true;
    }
    return changed ? makeSeq(std::move(out)) : self;
}

Stmt IRMutator::visitAttr(const AttrNode* op, const Stmt& self)
{
    Expr v = mutate(op->value);
    Stmt b = mutate(op->body);
    if (v.same(op->value) && b.same(op->body)) return self;
    return makeAttr(op->key, op->target, v, b, op->ref);
}

Stmt IRMutator::visitEvaluate(const EvaluateNode* op, const Stmt& self)
{
    Expr v = mutate(op->value);
    return v.same(op->value) ? self : makeEvaluate(v);
}

} // namespace loopscope
