#include "lower/passes/VectorizeLoops.h"

#include "ir/Analyzer.h"
#include "ir/Diagnostic.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/ModularSet.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace loopscope {

namespace {

using i64 = std::int64_t;

int lanesOf(const Expr& e)
{
    return e.type().lanes;
}

// e with `lanes` lanes: a scalar is broadcast, a broadcast is widened.
Expr broadcastTo(const Expr& e, int lanes)
{
    if (lanesOf(e) == lanes) return e;
    if (auto* b = e.as<BroadcastNode>(); b && lanes % b->lanes == 0)
        return makeBroadcast(b->value, lanes);
    LS_ASSERT(e.type().isScalar(),
              "cannot broadcast a " + e.type().str() + " to " + std::to_string(lanes) + " lanes");
    return makeBroadcast(e, lanes);
}

// A load whose type has as many lanes as the buffer element times the index.
Expr makeLoad(const Buffer& b, std::vector<Expr> indices)
{
    int lanes = b->dtype.lanes;
    for (auto& i : indices)
        lanes *= lanesOf(i);
    return std::make_shared<BufferLoadNode>(b->dtype.withLanes(lanes), b, std::move(indices));
}

// Vectorized loops found inside a vectorized loop run serially.
class SerialMaker : public IRMutator {
protected:
    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitFor(op, self);
        auto* f = s.as<ForNode>();
        if (f->forKind != ForKind::Vectorized) return s;
        return makeFor(f->var, f->min, f->extent, ForKind::Serial, f->body, f->threadTag);
    }
};

Stmt serialize(const Stmt& s)
{
    SerialMaker m;
    return m.mutate(s);
}

// Gives an allocation made inside the vectorized loop one slot per lane: buf[i] becomes
// buf[i * lanes + var].
class VecAllocAccess : public IRMutator {
public:
    VecAllocAccess(const VarNode* data, Var var, int lanes, const Analyzer& an)
        : m_data(data), m_var(std::move(var)), m_lanes(lanes), m_an(an)
    {
    }

    Buffer widen(const Buffer& b)
    {
        auto it = m_buffers.find(b.get());
        if (it != m_buffers.end()) return it->second;
        auto wide = std::make_shared<BufferNode>(*b);
        Expr& last = wide->shape.back();
        last = m_an.simplify(last * makeInt(m_lanes, last.type()));
        m_buffers[b.get()] = wide;
        return wide;
    }

protected:
    Expr visitBufferLoad(const BufferLoadNode* op, const Expr& self) override
    {
        Expr e = IRMutator::visitBufferLoad(op, self);
        auto* load = e.as<BufferLoadNode>();
        if (load->buffer->data.get() != m_data) return e;
        return makeLoad(widen(load->buffer), widenIndex(load->indices));
    }

    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitBufferStore(op, self);
        auto* store = s.as<BufferStoreNode>();
        if (store->buffer->data.get() != m_data) return s;
        return makeBufferStore(widen(store->buffer), widenIndex(store->indices), store->value);
    }

private:
    std::vector<Expr> widenIndex(std::vector<Expr> idx)
    {
        Expr& last = idx.back();
        last = m_an.simplify(last * makeInt(m_lanes, last.type()) + m_var);
        return idx;
    }

    const VarNode* m_data;
    Var m_var;
    int m_lanes;
    const Analyzer& m_an;
    std::unordered_map<const BufferNode*, Buffer> m_buffers;
};

// TVM's Vectorizer: rewrites a loop body for `var` = Ramp(0, 1, lanes).
class Vectorizer : public IRMutator {
public:
    Vectorizer(Var var, int lanes, const Analyzer& an)
        : m_var(std::move(var)), m_lanes(lanes), m_an(an),
          m_ramp(makeRamp(makeInt(0, m_var.type()), makeInt(1, m_var.type()), lanes))
    {
    }

    // Lane masks instead of scalarizing: an `if` or `if_then_else` whose condition becomes a
    // vector stays, with that vector as its condition, and a variable bound to a value that
    // becomes a vector is replaced by the value (so that indices stay ramps). Anything else that
    // cannot be computed on vectors fails the whole statement: `masked` returns an undefined one.
    Stmt masked(const Stmt& s)
    {
        m_masks = true;
        Stmt out = mutate(s);
        m_masks = false;
        if (m_needScalarize) {
            m_needScalarize = false;
            return Stmt();
        }
        return out;
    }

    // The statement computed on vectors, or a serial loop over it when some part of it cannot
    // be (an expression inside asked for scalarization).
    Stmt vectorize(const Stmt& s)
    {
        if (!s.defined()) return s;
        if (m_masks) return mutate(s); // a failure anywhere fails the whole statement
        LS_ASSERT(!m_needScalarize, "vectorizer entered a statement while scalarizing");
        Stmt out = mutate(s);
        if (m_needScalarize) {
            m_needScalarize = false;
            return scalarize(s);
        }
        return out;
    }

private:
    Stmt scalarize(const Stmt& s) const
    {
        Var idx(m_var.name() + ".s", m_var.type());
        Stmt body = serialize(substitute(s, VarMap{{m_var.get(), idx}}));
        auto loop = std::make_shared<ForNode>(
            idx, makeInt(0, m_var.type()), makeInt(m_lanes, m_var.type()), ForKind::Serial, body);
        loop->scalarizedLanes = true;
        return loop;
    }

    static bool provablyPositive(const Expr& e)
    {
        Analyzer none;
        return e.type().isIntegral() && none.canProve(e > makeInt(0, e.type()));
    }

protected:
    Expr visitLeaf(const Expr& self) override
    {
        if (self.same(m_var)) return m_ramp;
        if (auto* v = self.as<VarNode>()) {
            if (auto it = m_letBinding.find(v); it != m_letBinding.end()) return it->second;
        }
        return self;
    }

    Expr visitBinary(const BinaryNode* op, const Expr& self) override
    {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (a.same(op->a) && b.same(op->b)) return self;
        int lanes = std::max(lanesOf(a), lanesOf(b));
        auto* ra = a.as<RampNode>();
        auto* rb = b.as<RampNode>();
        if (lanes > 1 && (op->kind == ExprKind::Add || op->kind == ExprKind::Sub)) {
            if (a.type().isScalar() && rb) {
                Expr zero = makeInt(0, rb->stride.type());
                return makeRamp(makeBinary(op->kind, a, rb->base),
                                makeBinary(op->kind, zero, rb->stride), rb->lanes);
            }
            if (b.type().isScalar() && ra)
                return makeRamp(makeBinary(op->kind, ra->base, b), ra->stride, ra->lanes);
        }
        if (lanes > 1 && op->kind == ExprKind::Mul) {
            if (ra && b.type().isScalar() && provablyPositive(b))
                return makeRamp(ra->base * b, ra->stride * b, ra->lanes);
            if (rb && a.type().isScalar() && provablyPositive(a))
                return makeRamp(rb->base * a, rb->stride * a, rb->lanes);
        }
        return makeBinary(op->kind, broadcastTo(a, lanes), broadcastTo(b, lanes));
    }

    Expr visitNot(const NotNode* op, const Expr& self) override
    {
        Expr a = mutate(op->a);
        return a.same(op->a) ? self : makeNot(a);
    }

    Expr visitSelect(const SelectNode* op, const Expr& self) override
    {
        Expr c = mutate(op->cond), t = mutate(op->t), f = mutate(op->f);
        if (c.same(op->cond) && t.same(op->t) && f.same(op->f)) return self;
        int lanes = std::max({lanesOf(c), lanesOf(t), lanesOf(f)});
        return makeSelect(broadcastTo(c, lanes), broadcastTo(t, lanes), broadcastTo(f, lanes));
    }

    Expr visitCast(const CastNode* op, const Expr& self) override
    {
        Expr v = mutate(op->value);
        if (v.same(op->value)) return self;
        return makeCast(op->type.withLanes(lanesOf(v)), v);
    }

    Expr visitCall(const CallNode* op, const Expr& self) override
    {
        if (op->op == CallOp::IfThenElse) {
            Expr c = mutate(op->args[0]);
            if (c.type().isVector() && !m_masks) {
                m_needScalarize = true;
                return self;
            }
            Expr t = mutate(op->args[1]), f = mutate(op->args[2]);
            if (c.same(op->args[0]) && t.same(op->args[1]) && f.same(op->args[2])) return self;
            int lanes = std::max({lanesOf(c), lanesOf(t), lanesOf(f)});
            return makeCall(op->type.withLanes(lanes), op->op,
                            {c, broadcastTo(t, lanes), broadcastTo(f, lanes)});
        }
        // Every other intrinsic (math functions, likely) works lane by lane.
        bool changed = false;
        std::vector<Expr> args = IRMutator::mutate(op->args, &changed);
        int lanes = 1;
        for (auto& a : args)
            lanes = std::max(lanes, lanesOf(a));
        for (auto& a : args) {
            if (lanesOf(a) != lanes) {
                a = broadcastTo(a, lanes);
                changed = true;
            }
        }
        if (!changed) return self;
        return makeCall(op->type.withLanes(lanes), op->op, std::move(args));
    }

    Expr visitBufferLoad(const BufferLoadNode* op, const Expr& self) override
    {
        bool changed = false;
        std::vector<Expr> idx = IRMutator::mutate(op->indices, &changed);
        return changed ? makeLoad(op->buffer, std::move(idx)) : self;
    }

    Expr visitRamp(const RampNode* op, const Expr& self) override
    {
        Expr base = mutate(op->base), stride = mutate(op->stride);
        if (base.same(op->base) && stride.same(op->stride)) return self;
        if (base.type().isScalar() && stride.type().isScalar())
            return makeRamp(base, stride, op->lanes);
        // A ramp of ramps is one longer ramp when the strides line up; anything else would
        // need a shuffle, which the IR does not have.
        auto* inner = base.as<RampNode>();
        if (inner && stride.type().isScalar()) {
            Expr step = stride * makeInt(inner->lanes, stride.type());
            if (m_an.canProve(makeBinary(ExprKind::EQ, inner->stride, step)))
                return makeRamp(inner->base, stride, op->lanes * inner->lanes);
        }
        m_needScalarize = true;
        return self;
    }

    Expr visitBroadcast(const BroadcastNode* op, const Expr& self) override
    {
        Expr v = mutate(op->value);
        if (v.type().isVector()) {
            m_needScalarize = true;
            return self;
        }
        return v.same(op->value) ? self : makeBroadcast(v, op->lanes);
    }

    Expr visitLet(const LetNode* op, const Expr& self) override
    {
        Expr value = mutate(op->value);
        if (m_masks && lanesOf(value) != lanesOf(op->value)) {
            m_letBinding[op->var.get()] = value;
            return mutate(op->body);
        }
        if (lanesOf(value) != lanesOf(op->value)) {
            Var v(op->var.name(), value.type());
            m_letBinding[op->var.get()] = v;
            return makeLet(v, value, mutate(op->body));
        }
        m_letBinding[op->var.get()] = op->var;
        Expr body = mutate(op->body);
        if (value.same(op->value) && body.same(op->body)) return self;
        return makeLet(op->var, value, body);
    }

    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        bool changed = false;
        std::vector<Expr> idx = IRMutator::mutate(op->indices, &changed);
        Expr value = mutate(op->value);
        if (!changed && value.same(op->value)) return self;
        // Lanes addressed by everything but the last index (1 for flat buffers).
        int otherLanes = op->buffer->dtype.lanes;
        for (std::size_t i = 0; i + 1 < idx.size(); ++i)
            otherLanes *= lanesOf(idx[i]);
        int total = std::max(otherLanes * lanesOf(idx.back()), lanesOf(value));
        LS_ASSERT(total % otherLanes == 0, "store to " + op->buffer->name +
                                               " cannot be widened to " + std::to_string(total) +
                                               " lanes");
        idx.back() = broadcastTo(idx.back(), total / otherLanes);
        return makeBufferStore(op->buffer, std::move(idx), broadcastTo(value, total));
    }

    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        if (m_masks) { // not in a statement computed under lane masks
            m_needScalarize = true;
            return self;
        }
        Expr extent = mutate(op->extent);
        if (extent.type().isVector()) return scalarize(self);
        ForKind kind = op->forKind == ForKind::Vectorized ? ForKind::Serial : op->forKind;
        Stmt body = vectorize(op->body);
        if (extent.same(op->extent) && body.same(op->body) && kind == op->forKind) return self;
        return makeFor(op->var, op->min, extent, kind, body, op->threadTag);
    }

    Stmt visitIfThenElse(const IfThenElseNode* op, const Stmt& self) override
    {
        Expr cond = mutate(op->cond);
        if (cond.type().isVector() && !m_masks) return scalarize(self);
        Stmt t = vectorize(op->thenCase), e = vectorize(op->elseCase);
        if (cond.same(op->cond) && t.same(op->thenCase) && e.same(op->elseCase)) return self;
        return makeIfThenElse(cond, t, e);
    }

    Stmt visitLetStmt(const LetStmtNode* op, const Stmt& self) override
    {
        Expr value = mutate(op->value);
        if (m_masks && lanesOf(value) != lanesOf(op->value)) {
            m_letBinding[op->var.get()] = value;
            return vectorize(op->body);
        }
        if (lanesOf(value) != lanesOf(op->value)) {
            Var v(op->var.name(), value.type());
            m_letBinding[op->var.get()] = v;
            return makeLetStmt(v, value, vectorize(op->body));
        }
        m_letBinding[op->var.get()] = op->var;
        Stmt body = vectorize(op->body);
        if (value.same(op->value) && body.same(op->body)) return self;
        return makeLetStmt(op->var, value, body);
    }

    Stmt visitAllocate(const AllocateNode* op, const Stmt& self) override
    {
        if (m_masks) {
            m_needScalarize = true;
            return self;
        }
        for (auto& extent : op->buffer->shape) {
            if (mutate(extent).type().isVector()) return scalarize(self);
        }
        VecAllocAccess widen(op->buffer->data.get(), m_var, m_lanes, m_an);
        Buffer wide = widen.widen(op->buffer);
        Stmt body = vectorize(widen.mutate(op->body));
        return makeAllocate(wide, body);
    }

    Stmt visitSeq(const SeqNode* op, const Stmt& self) override
    {
        bool changed = false;
        std::vector<Stmt> out;
        for (auto& s : op->stmts) {
            out.push_back(vectorize(s));
            if (!out.back().same(s)) changed = true;
        }
        return changed ? makeSeq(std::move(out)) : self;
    }

    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        Expr v = mutate(op->value);
        Stmt body = vectorize(op->body);
        if (v.same(op->value) && body.same(op->body)) return self;
        return makeAttr(op->key, op->target, v, body, op->ref);
    }

private:
    Var m_var;
    int m_lanes;
    const Analyzer& m_an;
    Expr m_ramp;
    bool m_needScalarize = false;
    bool m_masks = false;
    std::unordered_map<const VarNode*, Expr> m_letBinding;
};

// Brings the vector expressions of a vectorized body to the form TVM's simplifier gives them:
// scalar parts canonical, ramp/broadcast arithmetic folded (ramp + broadcast is a ramp, ...).
// Scalar expressions are left alone: vectorizing did not touch them.
class VectorSimplifier : public IRMutator {
public:
    explicit VectorSimplifier(const Analyzer& an) : m_an(an) {}

protected:
    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        m_an.bind(op->var, op->min, op->extent);
        Stmt s = IRMutator::visitFor(op, self);
        m_an.unbind(op->var.get());
        return s;
    }

    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        bool changed = false;
        std::vector<Expr> idx;
        for (auto& i : op->indices) {
            idx.push_back(top(i));
            if (!idx.back().same(i)) changed = true;
        }
        Expr v = top(op->value);
        if (!changed && v.same(op->value)) return self;
        return makeBufferStore(op->buffer, std::move(idx), v);
    }

    Stmt visitLetStmt(const LetStmtNode* op, const Stmt& self) override
    {
        Expr v = top(op->value);
        Stmt b = mutate(op->body);
        if (v.same(op->value) && b.same(op->body)) return self;
        return makeLetStmt(op->var, v, b);
    }

    Stmt visitEvaluate(const EvaluateNode* op, const Stmt& self) override
    {
        Expr v = top(op->value);
        return v.same(op->value) ? self : makeEvaluate(v);
    }

private:
    Expr top(const Expr& e) { return e.type().isVector() ? simplify(e) : e; }

    Expr scalar(const Expr& e) { return m_an.simplify(e); }

    static Expr ramp(const Expr& base, const Expr& stride, int lanes)
    {
        if (isZero(stride)) return makeBroadcast(base, lanes);
        return makeRamp(base, stride, lanes);
    }

    Expr simplify(const Expr& e)
    {
        if (e.type().isScalar()) return scalar(e);
        if (auto* r = e.as<RampNode>()) {
            Expr base = simplify(r->base), stride = simplify(r->stride);
            if (isZero(stride)) return makeBroadcast(base, r->lanes);
            if (base.same(r->base) && stride.same(r->stride)) return e;
            return makeRamp(base, stride, r->lanes);
        }
        if (auto* b = e.as<BroadcastNode>()) {
            Expr v = simplify(b->value);
            return v.same(b->value) ? e : makeBroadcast(v, b->lanes);
        }
        if (auto* b = e.as<BinaryNode>()) {
            Expr x = simplify(b->a), y = simplify(b->b);
            if (Expr folded = fold(b->kind, x, y); folded.defined()) return folded;
            if (x.same(b->a) && y.same(b->b)) return e;
            return makeBinary(b->kind, x, y);
        }
        if (auto* n = e.as<NotNode>()) {
            Expr a = simplify(n->a);
            if (auto* ba = a.as<BroadcastNode>())
                return makeBroadcast(scalar(makeNot(ba->value)), ba->lanes);
            return a.same(n->a) ? e : makeNot(a);
        }
        if (auto* s = e.as<SelectNode>()) {
            Expr c = simplify(s->cond), t = simplify(s->t), f = simplify(s->f);
            if (c.same(s->cond) && t.same(s->t) && f.same(s->f)) return e;
            return makeSelect(c, t, f);
        }
        if (auto* c = e.as<CastNode>()) {
            Expr v = simplify(c->value);
            if (auto* bv = v.as<BroadcastNode>())
                return makeBroadcast(scalar(makeCast(c->type.element(), bv->value)), bv->lanes);
            return v.same(c->value) ? e : makeCast(c->type, v);
        }
        if (auto* c = e.as<CallNode>()) {
            bool changed = false;
            std::vector<Expr> args;
            for (auto& a : c->args) {
                args.push_back(simplify(a));
                if (!args.back().same(a)) changed = true;
            }
            return changed ? makeCall(c->type, c->op, std::move(args)) : e;
        }
        if (auto* l = e.as<BufferLoadNode>()) {
            bool changed = false;
            std::vector<Expr> idx;
            for (auto& i : l->indices) {
                idx.push_back(simplify(i));
                if (!idx.back().same(i)) changed = true;
            }
            return changed ? makeLoad(l->buffer, std::move(idx)) : e;
        }
        if (auto* l = e.as<LetNode>()) {
            Expr v = simplify(l->value), body = simplify(l->body);
            if (v.same(l->value) && body.same(l->body)) return e;
            return makeLet(l->var, v, body);
        }
        return e;
    }

    // Ramp and broadcast algebra; null when no rule applies.
    Expr fold(ExprKind k, const Expr& x, const Expr& y)
    {
        auto* rx = x.as<RampNode>();
        auto* ry = y.as<RampNode>();
        auto* bx = x.as<BroadcastNode>();
        auto* by = y.as<BroadcastNode>();
        int lanes = lanesOf(x);
        if (bx && by) return makeBroadcast(scalar(makeBinary(k, bx->value, by->value)), lanes);
        switch (k) {
        case ExprKind::Add:
        case ExprKind::Sub:
            if (rx && ry)
                return ramp(scalar(makeBinary(k, rx->base, ry->base)),
                            scalar(makeBinary(k, rx->stride, ry->stride)), lanes);
            if (rx && by)
                return ramp(scalar(makeBinary(k, rx->base, by->value)), rx->stride, lanes);
            if (bx && ry) {
                Expr stride = k == ExprKind::Add
                                  ? ry->stride
                                  : scalar(makeInt(0, ry->stride.type()) - ry->stride);
                return ramp(scalar(makeBinary(k, bx->value, ry->base)), stride, lanes);
            }
            return Expr();
        case ExprKind::Mul:
            if (rx && by)
                return ramp(scalar(rx->base * by->value), scalar(rx->stride * by->value), lanes);
            if (bx && ry)
                return ramp(scalar(ry->base * bx->value), scalar(ry->stride * bx->value), lanes);
            return Expr();
        case ExprKind::FloorDiv:
        case ExprKind::FloorMod: return foldDivMod(k, rx, by, lanes);
        case ExprKind::EQ:
        case ExprKind::NE:
        case ExprKind::LT:
        case ExprKind::LE:
        case ExprKind::GT:
        case ExprKind::GE:
            if (rx && ry && exprEqual(rx->stride, ry->stride))
                return makeBroadcast(scalar(makeBinary(k, rx->base, ry->base)), lanes);
            return Expr();
        default: return Expr();
        }
    }

    // floordiv/floormod of ramp(base, c1) by a constant c when the result is again a ramp or a
    // broadcast (the base's residue modulo c is known and the lanes do not cross a multiple of c).
    Expr foldDivMod(ExprKind k, const RampNode* r, const BroadcastNode* d, int lanes)
    {
        i64 c, c1;
        if (!r || !d || !isConstInt(d->value, &c) || c <= 0 || !isConstInt(r->stride, &c1))
            return Expr();
        DataType t = r->base.type();
        Expr cc = makeInt(c, t);
        bool div = k == ExprKind::FloorDiv;
        if (c1 % c == 0) {
            if (div) return ramp(scalar(floordiv(r->base, cc)), makeInt(c1 / c, t), lanes);
            return makeBroadcast(scalar(floormod(r->base, cc)), lanes);
        }
        ModularSet m = modularSet(r->base);
        if (m.coeff % c != 0) return Expr();
        i64 first = floorDivInt(m.base, c), last = floorDivInt(m.base + (lanes - 1) * c1, c);
        if (div) {
            if (first != last) return Expr();
            return makeBroadcast(scalar(floordiv(r->base, cc)), lanes);
        }
        Expr residue = makeRamp(makeInt(m.base - floorDivInt(m.base, c) * c, t), r->stride, lanes);
        if (first == last) return residue;
        return makeBinary(ExprKind::FloorMod, residue, makeBroadcast(cc, lanes));
    }

    Analyzer m_an;
};

// Whether a loop's body launches GPU threads or reduces across them: vectors of those have no
// meaning (TVM's vectorizer cannot widen them either), and such a loop stays serial.
bool holdsThreadWork(const Stmt& s)
{
    return anyAttr(s, [](const AttrNode* a) {
        return a->key == "reduce_scope" || a->key == "thread_extent" || a->key == "virtual_thread";
    });
}

// Finds the vectorized loops; loop ranges around them are known when their bodies are simplified.
class LoopVectorizer : public IRMutator {
protected:
    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        i64 n = 0;
        if (op->forKind == ForKind::Vectorized && isConstInt(op->extent, &n) && n >= 2 &&
            n <= 0xffff && isZero(op->min) && !holdsThreadWork(op->body)) {
            Vectorizer v(op->var, static_cast<int>(n), m_an);
            Stmt body = v.vectorize(op->body);
            VectorSimplifier simp(m_an);
            return simp.mutate(body);
        }
        m_an.bind(op->var, op->min, op->extent);
        Stmt body = mutate(op->body);
        m_an.unbind(op->var.get());
        ForKind kind = op->forKind == ForKind::Vectorized ? ForKind::Serial : op->forKind;
        if (body.same(op->body) && kind == op->forKind) return self;
        return makeFor(op->var, op->min, op->extent, kind, body, op->threadTag);
    }

private:
    Analyzer m_an;
};

} // namespace

Stmt vectorizeLoops(const Stmt& s)
{
    LoopVectorizer v;
    return v.mutate(s);
}

Stmt vectorizeUnderMasks(const ForNode* loop)
{
    i64 n = 0;
    if (!isConstInt(loop->extent, &n) || n < 2 || n > 0xffff || !isZero(loop->min)) return Stmt();
    Analyzer an;
    Vectorizer v(loop->var, static_cast<int>(n), an);
    Stmt body = v.masked(loop->body);
    if (!body.defined()) return body;
    VectorSimplifier simp(an);
    return simp.mutate(body);
}

} // namespace loopscope
