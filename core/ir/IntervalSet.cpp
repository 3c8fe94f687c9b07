#include "ir/IntervalSet.h"

namespace loopscope {

namespace {

// min(a, b) when the order of a and b is known, else null.
Expr orderedMin(const Expr& a, const Expr& b, const Analyzer& an, bool wantMin)
{
    Expr d = an.simplify(a - b);
    ConstBound db = an.bound(d);
    if (db.hi <= 0) return wantMin ? a : b;
    if (db.lo >= 0) return wantMin ? b : a;
    return Expr();
}

class IntervalEvaluator {
public:
    IntervalEvaluator(const IntervalMap& relax, const Analyzer& an) : m_relax(relax), m_an(an) {}

    IntervalSet eval(const Expr& e)
    {
        if (!usesAnyRelaxed(e)) return IntervalSet::point(e);
        if (auto* v = e.as<VarNode>()) return m_relax.at(v);
        auto* b = e.as<BinaryNode>();
        if (!b || !e.type().isIntegral()) {
            if (auto* c = e.as<CastNode>();
                c && c->type.isIntegral() && c->value.type().isIntegral())
                return eval(c->value);
            return IntervalSet::everything();
        }
        IntervalSet x = eval(b->a), y = eval(b->b);
        if (!x.known() || !y.known()) return IntervalSet::everything();
        auto s = [&](const Expr& v) { return m_an.simplify(v); };
        switch (b->kind) {
        case ExprKind::Add: return {s(x.min + y.min), s(x.max + y.max)};
        case ExprKind::Sub: return {s(x.min - y.max), s(x.max - y.min)};
        case ExprKind::Mul: {
            std::int64_t c;
            const IntervalSet* other = &x;
            if (!isPoint(y) || !isConstInt(y.min, &c)) {
                if (!isPoint(x) || !isConstInt(x.min, &c)) return IntervalSet::everything();
                other = &y;
            }
            Expr cc = makeInt(c, e.type());
            if (c >= 0) return {s(other->min * cc), s(other->max * cc)};
            return {s(other->max * cc), s(other->min * cc)};
        }
        case ExprKind::FloorDiv: {
            std::int64_t c;
            if (!isPoint(y) || !isConstInt(y.min, &c) || c <= 0) return IntervalSet::everything();
            return {s(floordiv(x.min, y.min)), s(floordiv(x.max, y.min))};
        }
        case ExprKind::FloorMod: {
            std::int64_t c;
            if (!isPoint(y) || !isConstInt(y.min, &c) || c <= 0) return IntervalSet::everything();
            Expr lo = s(floordiv(x.min, y.min)), hi = s(floordiv(x.max, y.min));
            if (exprEqual(lo, hi)) return {s(floormod(x.min, y.min)), s(floormod(x.max, y.min))};
            return {makeInt(0, e.type()), makeInt(c - 1, e.type())};
        }
        case ExprKind::Min:
        case ExprKind::Max: {
            bool isMin = b->kind == ExprKind::Min;
            Expr lo = isMin ? orderedMin(x.min, y.min, m_an, true)
                            : orderedMin(x.min, y.min, m_an, false);
            Expr hi = isMin ? orderedMin(x.max, y.max, m_an, true)
                            : orderedMin(x.max, y.max, m_an, false);
            if (!lo.defined()) lo = isMin ? s(min(x.min, y.min)) : s(max(x.min, y.min));
            if (!hi.defined()) hi = isMin ? s(min(x.max, y.max)) : s(max(x.max, y.max));
            return {lo, hi};
        }
        default: return IntervalSet::everything();
        }
    }

private:
    static bool isPoint(const IntervalSet& i)
    {
        return i.min.same(i.max) || exprEqual(i.min, i.max);
    }

    bool usesAnyRelaxed(const Expr& e)
    {
        bool found = false;
        forEachExpr(e, [&](const Expr& sub) {
            if (auto* v = sub.as<VarNode>(); v && m_relax.count(v)) found = true;
        });
        return found;
    }

    const IntervalMap& m_relax;
    const Analyzer& m_an;
};

} // namespace

IntervalSet evalInterval(const Expr& e, const IntervalMap& relax, const Analyzer& an)
{
    IntervalEvaluator ev(relax, an);
    return ev.eval(e);
}

IntervalSet unionInterval(const IntervalSet& a, const IntervalSet& b, const Analyzer& an)
{
    if (!a.known() || !b.known()) return IntervalSet::everything();
    Expr lo = orderedMin(a.min, b.min, an, true);
    Expr hi = orderedMin(a.max, b.max, an, false);
    if (!lo.defined() || !hi.defined()) return IntervalSet::everything();
    return {lo, hi};
}

} // namespace loopscope
