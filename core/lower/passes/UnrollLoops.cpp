#include "lower/passes/UnrollLoops.h"

#include "ir/Analyzer.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace loopscope {

namespace {

using i64 = std::int64_t;

// Variables a statement defines (loop variables, lets).
class DefinitionCollector : public IRVisitor {
public:
    std::vector<Var> defs;

protected:
    void visitFor(const ForNode* op) override
    {
        defs.push_back(op->var);
        IRVisitor::visitFor(op);
    }
    void visitLetStmt(const LetStmtNode* op) override
    {
        defs.push_back(op->var);
        IRVisitor::visitLetStmt(op);
    }
    void visitLet(const LetNode* op) override
    {
        defs.push_back(op->var);
        IRVisitor::visitLet(op);
    }
};

// One unrolled copy of a loop body: variables replaced (the loop variable by its value, inner
// definitions by fresh variables), and every expression that changed simplified.
class BodyCopier : public IRMutator {
public:
    BodyCopier(VarMap map, const Analyzer& an) : m_map(std::move(map)), m_an(an) {}

protected:
    Expr visitLeaf(const Expr& self) override
    {
        if (auto* v = self.as<VarNode>()) {
            if (auto it = m_map.find(v); it != m_map.end()) return it->second;
        }
        return self;
    }

    Expr visitLet(const LetNode* op, const Expr& self) override
    {
        Expr e = IRMutator::visitLet(op, self);
        Var v = renamed(op->var);
        if (v.same(op->var)) return e;
        auto* let = e.as<LetNode>();
        return makeLet(v, let->value, let->body);
    }

    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        Expr mn = rewrite(op->min), ext = rewrite(op->extent);
        Var v = renamed(op->var);
        m_an.bind(v, mn, ext);
        Stmt body = mutate(op->body);
        m_an.unbind(v.get());
        if (mn.same(op->min) && ext.same(op->extent) && body.same(op->body) && v.same(op->var))
            return self;
        return remakeFor(op, v, mn, ext, body);
    }

    Stmt visitLetStmt(const LetStmtNode* op, const Stmt& self) override
    {
        Expr value = rewrite(op->value);
        Var v = renamed(op->var);
        Stmt body = mutate(op->body);
        if (value.same(op->value) && body.same(op->body) && v.same(op->var)) return self;
        return makeLetStmt(v, value, body);
    }

    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        bool changed = false;
        std::vector<Expr> idx;
        for (auto& i : op->indices) {
            idx.push_back(rewrite(i));
            if (!idx.back().same(i)) changed = true;
        }
        Expr value = rewrite(op->value);
        if (!changed && value.same(op->value)) return self;
        return makeBufferStore(op->buffer, std::move(idx), value);
    }

    Stmt visitIfThenElse(const IfThenElseNode* op, const Stmt& self) override
    {
        Expr c = rewrite(op->cond);
        Stmt t = mutate(op->thenCase), e = mutate(op->elseCase);
        if (c.same(op->cond) && t.same(op->thenCase) && e.same(op->elseCase)) return self;
        return makeIfThenElse(c, t, e);
    }

    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        Expr v = rewrite(op->value);
        Stmt b = mutate(op->body);
        if (v.same(op->value) && b.same(op->body)) return self;
        return makeAttr(op->key, op->target, v, b, op->ref);
    }

    Stmt visitEvaluate(const EvaluateNode* op, const Stmt& self) override
    {
        Expr v = rewrite(op->value);
        return v.same(op->value) ? self : makeEvaluate(v);
    }

private:
    Expr rewrite(const Expr& e)
    {
        Expr out = mutate(e);
        return out.same(e) ? e : m_an.simplify(out);
    }

    Var renamed(const Var& v) const
    {
        auto it = m_map.find(v.get());
        if (it == m_map.end() || !it->second.as<VarNode>()) return v;
        return Var(std::static_pointer_cast<const VarNode>(it->second.node()));
    }

    VarMap m_map;
    Analyzer m_an;
};

// TVM's LoopUnroller with its default configuration (auto_max_step 0, auto_max_depth 8,
// auto_max_extent 0, explicit unrolling), changed by the pragmas for their bodies.
class LoopUnroller : public IRMutator {
protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (op->key == "pragma_auto_unroll_max_step") {
            i64 v = constIntOr(op->value, 0);
            i64 saved = std::exchange(m_autoMaxStep, v);
            Stmt body = mutate(op->body);
            m_autoMaxStep = saved;
            return body;
        }
        if (op->key == "pragma_unroll_explicit") {
            bool v = constIntOr(op->value, 1) != 0;
            bool saved = std::exchange(m_explicitUnroll, v);
            Stmt body = mutate(op->body);
            m_explicitUnroll = saved;
            return body;
        }
        return IRMutator::visitAttr(op, self);
    }

    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        m_an.bind(op->var, op->min, op->extent);
        Stmt s = IRMutator::visitFor(op, self);
        m_an.unbind(op->var.get());
        auto* f = s.as<ForNode>();
        i64 value = constExtent(f);
        bool autoUnroll = f->forKind == ForKind::Serial && value >= 0 && m_normalLoopDepth == 0 &&
                          m_unrollDepth <= kAutoMaxDepth &&
                          (value * m_stepCount <= m_autoMaxStep || value <= kAutoMaxExtent);
        if (f->forKind == ForKind::Unrolled) autoUnroll = value >= 0;
        if (autoUnroll) {
            m_stepCount = std::min<i64>(m_stepCount * value, kStepLimit);
            m_unrollDepth += 1;
        } else {
            m_normalLoopDepth += 1;
        }
        if (autoUnroll && m_explicitUnroll) return unroll(f);
        if (autoUnroll && f->forKind != ForKind::Unrolled)
            return makeFor(f->var, f->min, f->extent, ForKind::Unrolled, f->body, f->threadTag);
        return s;
    }

    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        m_stepCount = std::min(m_stepCount + 1, kStepLimit);
        return IRMutator::visitBufferStore(op, self);
    }

    Stmt visitEvaluate(const EvaluateNode* op, const Stmt& self) override
    {
        m_stepCount = std::min(m_stepCount + 1, kStepLimit);
        return IRMutator::visitEvaluate(op, self);
    }

    // Each statement of a sequence counts its steps and loop depths on its own; the sequence
    // adds the steps and keeps the deepest nesting.
    Stmt visitSeq(const SeqNode* op, const Stmt& self) override
    {
        bool changed = false;
        std::vector<Stmt> out;
        for (auto& s : op->stmts) {
            i64 steps = std::exchange(m_stepCount, 0);
            int unrollDepth = std::exchange(m_unrollDepth, 0);
            int normalDepth = std::exchange(m_normalLoopDepth, 0);
            out.push_back(mutate(s));
            if (!out.back().same(s)) changed = true;
            m_stepCount = std::min(m_stepCount + steps, kStepLimit);
            m_normalLoopDepth = std::max(normalDepth, m_normalLoopDepth);
            m_unrollDepth = std::max(unrollDepth, m_unrollDepth);
        }
        return changed ? makeSeq(std::move(out)) : self;
    }

private:
    static constexpr int kAutoMaxDepth = 8;
    static constexpr i64 kAutoMaxExtent = 0;
    // Step counts saturate here, so that extent * steps cannot overflow.
    static constexpr i64 kStepLimit = std::numeric_limits<int>::max();

    // The extent if it is a constant that fits an int, else -1.
    i64 constExtent(const ForNode* f) const
    {
        i64 v;
        if (isConstInt(m_an.simplify(f->extent), &v) && v >= 0 &&
            v <= std::numeric_limits<int>::max())
            return v;
        return -1;
    }

    Stmt unroll(const ForNode* f) const
    {
        i64 n = constExtent(f);
        if (n == 0) return makeEvaluate(makeInt(0));
        DefinitionCollector defs;
        defs.visit(f->body);
        std::vector<Stmt> copies;
        for (i64 i = 0; i < n; ++i) {
            VarMap map{{f->var.get(), f->min + makeInt(i, f->var.type())}};
            // The first copy keeps the body's own variables; later ones get fresh ones.
            if (i > 0) {
                for (auto& v : defs.defs)
                    map.emplace(v.get(), Var(v.name(), v.type()));
            }
            BodyCopier copier(std::move(map), m_an);
            copies.push_back(copier.mutate(f->body));
        }
        return makeSeq(std::move(copies));
    }

    i64 m_autoMaxStep = 0;
    bool m_explicitUnroll = true;
    int m_normalLoopDepth = 0;
    int m_unrollDepth = 0;
    i64 m_stepCount = 0;
    Analyzer m_an;
};

} // namespace

Stmt unrollLoops(const Stmt& s)
{
    LoopUnroller u;
    return u.mutate(s);
}

} // namespace loopscope
