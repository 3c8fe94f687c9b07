#include "lower/passes/SimplifyStmt.h"

#include "ir/Analyzer.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

#include <vector>

namespace loopscope {

namespace {

class StmtSimplifier : public IRMutator {
protected:
    Expr visitLeaf(const Expr& self) override { return self; }

    Expr visitBinary(const BinaryNode* op, const Expr& self) override
    {
        return simplified(op, self);
    }
    Expr visitSelect(const SelectNode* op, const Expr& self) override
    {
        return simplified(op, self);
    }
    Expr visitCall(const CallNode* op, const Expr& self) override { return simplified(op, self); }
    Expr visitCast(const CastNode* op, const Expr& self) override { return simplified(op, self); }
    Expr visitNot(const NotNode* op, const Expr& self) override { return simplified(op, self); }

    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        Expr mn = m_an.simplify(op->min), ext = m_an.simplify(op->extent);
        if (isZero(ext)) return Stmt();
        if (isOne(ext) && op->forKind != ForKind::ThreadBinding) {
            // As TVM's analyzer binds a variable of one value: the body uses the value, and the
            // loop stays (TVM's Simplify removes no loop).
            Stmt body = mutate(substitute(op->body, VarMap{{op->var.get(), mn}}));
            if (!body.defined()) return Stmt();
            if (body.same(op->body) && mn.same(op->min) && ext.same(op->extent)) return self;
            return remakeFor(op, mn, ext, body);
        }
        m_an.bind(op->var, mn, ext);
        Stmt body = mutate(op->body);
        m_an.unbind(op->var.get());
        if (!body.defined()) return Stmt();
        if (mn.same(op->min) && ext.same(op->extent) && body.same(op->body)) return self;
        return remakeFor(op, mn, ext, body);
    }

    Stmt visitIfThenElse(const IfThenElseNode* op, const Stmt& self) override
    {
        Expr c = m_an.simplify(op->cond);
        if (std::int64_t v; isConstInt(c, &v)) return mutate(v ? op->thenCase : op->elseCase);
        // As TVM's Simplify: a condition an enclosing guard already holds is true (a literal
        // constraint: the same expression, `likely` aside).
        const Expr plain = withoutLikely(c);
        for (const Expr& known : m_holds)
            if (exprEqual(known, plain)) return mutate(op->thenCase);
        const std::size_t depth = m_holds.size();
        if (!readsMemory(plain)) addConjuncts(plain);
        Stmt t = mutate(op->thenCase);
        m_holds.resize(depth);
        Stmt e = mutate(op->elseCase);
        if (!t.defined() && !e.defined()) return Stmt();
        if (c.same(op->cond) && t.same(op->thenCase) && e.same(op->elseCase)) return self;
        if (!t.defined()) return makeIfThenElse(makeNot(c), e);
        return makeIfThenElse(c, t, e);
    }

    Stmt visitLetStmt(const LetStmtNode* op, const Stmt& self) override
    {
        Expr v = m_an.simplify(op->value);
        if (v.as<IntImmNode>() || v.as<VarNode>() || v.as<FloatImmNode>())
            return mutate(substitute(op->body, VarMap{{op->var.get(), v}}));
        Stmt b = mutate(op->body);
        if (!b.defined()) return Stmt();
        if (v.same(op->value) && b.same(op->body)) return self;
        return makeLetStmt(op->var, v, b);
    }

private:
    template <typename T> Expr simplified(const T*, const Expr& self)
    {
        return m_an.simplify(self);
    }

    // A condition reading a buffer may change inside the guard; only pure ones are kept.
    static bool readsMemory(const Expr& e)
    {
        bool reads = false;
        forEachExpr(e, [&](const Expr& sub) {
            auto* call = sub.as<CallNode>();
            reads |= sub.as<BufferLoadNode>() || sub.as<TensorLoadNode>() ||
                     (call && call->op != CallOp::Likely);
        });
        return reads;
    }
    void addConjuncts(const Expr& e)
    {
        if (auto* b = e.as<BinaryNode>(); b && b->kind == ExprKind::And) {
            addConjuncts(withoutLikely(b->a));
            addConjuncts(withoutLikely(b->b));
            return;
        }
        m_holds.push_back(e);
    }

    Analyzer m_an;
    std::vector<Expr> m_holds; // the conditions of the guards around the statement
};

} // namespace

Stmt simplifyStmt(const Stmt& s)
{
    StmtSimplifier simp;
    return simp.mutate(s);
}

} // namespace loopscope
