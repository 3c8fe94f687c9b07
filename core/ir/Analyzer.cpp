#include "ir/Analyzer.h"

#include "ir/IRMutator.h"

#include <algorithm>
#include <numeric>

namespace loopscope {

namespace {

using i64 = std::int64_t;
__extension__ typedef __int128 i128; // exact products of two int64 bounds
constexpr i64 kNegInf = ConstBound::kNegInf;
constexpr i64 kPosInf = ConstBound::kPosInf;

i64 clamp128(i128 v)
{
    if (v <= static_cast<i128>(kNegInf)) return kNegInf;
    if (v >= static_cast<i128>(kPosInf)) return kPosInf;
    return static_cast<i64>(v);
}

i64 addBound(i64 a, i64 b)
{
    if (a == kNegInf || b == kNegInf) return kNegInf;
    if (a == kPosInf || b == kPosInf) return kPosInf;
    return clamp128(static_cast<i128>(a) + b);
}

i64 negBound(i64 a)
{
    if (a == kNegInf) return kPosInf;
    if (a == kPosInf) return kNegInf;
    return -a;
}

i64 mulBound(i64 a, i64 c) // c finite
{
    if (c == 0) return 0;
    if (a == kNegInf) return c > 0 ? kNegInf : kPosInf;
    if (a == kPosInf) return c > 0 ? kPosInf : kNegInf;
    return clamp128(static_cast<i128>(a) * c);
}

i64 divBound(i64 a, i64 c) // c > 0
{
    if (a == kNegInf || a == kPosInf) return a;
    return floorDivInt(a, c);
}

ConstBound unite(ConstBound a, ConstBound b)
{
    return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

bool isIndexType(DataType t)
{
    return t.isIntegral() && t.isScalar();
}

// ---- linear forms: sum of coefficient * term plus a constant ----

struct Term {
    Expr expr;
    i64 coef;
};

struct Linear {
    std::vector<Term> terms;
    i64 constant = 0;
    DataType type = DataType::int32();

    void addTerm(const Expr& e, i64 coef)
    {
        if (coef == 0) return;
        for (auto& t : terms) {
            if (exprEqual(t.expr, e)) {
                t.coef += coef;
                return;
            }
        }
        terms.push_back({e, coef});
    }
    void compact()
    {
        terms.erase(
            std::remove_if(terms.begin(), terms.end(), [](const Term& t) { return t.coef == 0; }),
            terms.end());
    }
    bool isConst() const { return terms.empty(); }
};

void addToLinear(Linear& l, const Expr& e, i64 scale)
{
    if (scale == 0) return;
    i64 v;
    if (isConstInt(e, &v)) {
        l.constant += v * scale;
        return;
    }
    if (auto* b = e.as<BinaryNode>()) {
        switch (b->kind) {
        case ExprKind::Add:
            addToLinear(l, b->a, scale);
            addToLinear(l, b->b, scale);
            return;
        case ExprKind::Sub:
            addToLinear(l, b->a, scale);
            addToLinear(l, b->b, -scale);
            return;
        case ExprKind::Mul:
            if (isConstInt(b->b, &v)) return addToLinear(l, b->a, scale * v);
            if (isConstInt(b->a, &v)) return addToLinear(l, b->b, scale * v);
            break;
        default: break;
        }
    }
    l.addTerm(e, scale);
}

Linear toLinear(const Expr& e)
{
    Linear l;
    l.type = e.type();
    addToLinear(l, e, 1);
    // floordiv(x, c) * c + floormod(x, c) == x
    bool changed = true;
    while (changed) {
        changed = false;
        for (std::size_t i = 0; i < l.terms.size() && !changed; ++i) {
            auto* d = l.terms[i].expr.as<BinaryNode>();
            if (!d || d->kind != ExprKind::FloorDiv) continue;
            i64 c;
            if (!isConstInt(d->b, &c) || c <= 0 || l.terms[i].coef % c != 0) continue;
            i64 k = l.terms[i].coef / c;
            for (std::size_t j = 0; j < l.terms.size(); ++j) {
                auto* m = l.terms[j].expr.as<BinaryNode>();
                if (!m || m->kind != ExprKind::FloorMod || l.terms[j].coef != k) continue;
                if (!exprEqual(m->a, d->a) || !exprEqual(m->b, d->b)) continue;
                Expr x = d->a;
                l.terms.erase(l.terms.begin() + static_cast<long>(std::max(i, j)));
                l.terms.erase(l.terms.begin() + static_cast<long>(std::min(i, j)));
                addToLinear(l, x, k);
                changed = true;
                break;
            }
        }
    }
    l.compact();
    return l;
}

Expr constOf(DataType t, i64 v)
{
    return makeInt(v, t);
}

Expr scaled(const Expr& e, i64 c)
{
    return c == 1 ? e : makeBinary(ExprKind::Mul, e, constOf(e.type(), c));
}

// Rebuilds the sum in TVM's printed order: terms by descending coefficient (ties keep their
// order of appearance), subtracted terms after added ones, the constant last.
Expr fromLinear(Linear l)
{
    l.compact();
    std::stable_sort(l.terms.begin(), l.terms.end(),
                     [](const Term& a, const Term& b) { return a.coef > b.coef; });
    Expr out;
    for (auto& t : l.terms) {
        if (t.coef <= 0) continue;
        Expr x = scaled(t.expr, t.coef);
        out = out.defined() ? makeBinary(ExprKind::Add, out, x) : x;
    }
    if (!out.defined() && l.constant > 0 && !l.terms.empty()) {
        out = constOf(l.type, l.constant);
        l.constant = 0;
    }
    for (auto& t : l.terms) {
        if (t.coef >= 0) continue;
        if (!out.defined()) {
            out = makeBinary(ExprKind::Mul, t.expr, constOf(l.type, t.coef));
            continue;
        }
        out = makeBinary(ExprKind::Sub, out, scaled(t.expr, -t.coef));
    }
    if (!out.defined()) return constOf(l.type, l.constant);
    if (l.constant > 0) out = makeBinary(ExprKind::Add, out, constOf(l.type, l.constant));
    if (l.constant < 0) out = makeBinary(ExprKind::Sub, out, constOf(l.type, -l.constant));
    return out;
}

class Simplifier : public IRMutator {
public:
    explicit Simplifier(const Analyzer& a) : m_an(a) {}

protected:
    Expr visitBinary(const BinaryNode* op, const Expr& self) override
    {
        Expr a = mutate(op->a), b = mutate(op->b);
        Expr e = (a.same(op->a) && b.same(op->b)) ? self : makeBinary(op->kind, a, b);
        if (isIndexType(a.type())) return simplifyInt(op->kind, a, b, e);
        if (a.type().isFloat() && a.type().isScalar()) return simplifyFloat(op->kind, a, b, e);
        if (op->kind == ExprKind::And || op->kind == ExprKind::Or)
            return simplifyLogic(op->kind, a, b, e);
        return e;
    }

    Expr visitNot(const NotNode* op, const Expr& self) override
    {
        Expr a = mutate(op->a);
        if (auto* n = a.as<NotNode>()) return n->a;
        return a.same(op->a) ? self : makeNot(a);
    }

    Expr visitSelect(const SelectNode* op, const Expr& self) override
    {
        Expr c = mutate(op->cond);
        if (i64 v; isConstInt(c, &v)) return mutate(v ? op->t : op->f);
        // A vector of one constant condition (a decided row choice, vectorized) decides it too.
        if (auto* b = c.as<BroadcastNode>()) {
            if (i64 v; isConstInt(b->value, &v)) return mutate(v ? op->t : op->f);
        }
        return IRMutator::visitSelect(op, self);
    }

    Expr visitCall(const CallNode* op, const Expr& self) override
    {
        if (op->op == CallOp::IfThenElse) {
            Expr c = mutate(op->args[0]);
            if (i64 v; isConstInt(c, &v)) return mutate(v ? op->args[1] : op->args[2]);
        }
        Expr e = IRMutator::visitCall(op, self);
        if (auto* call = e.as<CallNode>(); call && call->op == CallOp::Likely) {
            if (isConstInt(call->args[0])) return call->args[0];
        }
        return e;
    }

    Expr visitCast(const CastNode* op, const Expr& self) override
    {
        Expr v = mutate(op->value);
        if (v.same(op->value)) return self;
        return makeCast(op->type, v);
    }

private:
    Expr simplifyFloat(ExprKind k, const Expr& a, const Expr& b, const Expr& e)
    {
        auto* fa = a.as<FloatImmNode>();
        auto* fb = b.as<FloatImmNode>();
        if (fa && fb) {
            switch (k) {
            case ExprKind::Add: return makeFloat(fa->value + fb->value, a.type());
            case ExprKind::Sub: return makeFloat(fa->value - fb->value, a.type());
            case ExprKind::Mul: return makeFloat(fa->value * fb->value, a.type());
            case ExprKind::Div:
                if (fb->value != 0) return makeFloat(fa->value / fb->value, a.type());
                break;
            case ExprKind::Min: return fa->value <= fb->value ? a : b;
            case ExprKind::Max: return fa->value >= fb->value ? a : b;
            default: break;
            }
        }
        if (k == ExprKind::Add && fb && fb->value == 0) return a;
        if (k == ExprKind::Add && fa && fa->value == 0) return b;
        if (k == ExprKind::Sub && fb && fb->value == 0) return a;
        if (k == ExprKind::Mul && fb && fb->value == 1) return a;
        if (k == ExprKind::Mul && fa && fa->value == 1) return b;
        if (k == ExprKind::Div && fb && fb->value == 1) return a;
        return e;
    }

    Expr simplifyLogic(ExprKind k, const Expr& a, const Expr& b, const Expr& e)
    {
        i64 va, vb;
        bool ca = isConstInt(a, &va), cb = isConstInt(b, &vb);
        if (k == ExprKind::And) {
            if ((ca && !va) || (cb && !vb)) return makeBool(false);
            if (ca) return b;
            if (cb) return a;
        } else {
            if ((ca && va) || (cb && vb)) return makeBool(true);
            if (ca) return b;
            if (cb) return a;
        }
        if (exprEqual(a, b)) return a;
        return e;
    }

    Expr simplifyInt(ExprKind k, const Expr& a, const Expr& b, const Expr& e)
    {
        switch (k) {
        case ExprKind::Add:
        case ExprKind::Sub:
        case ExprKind::Mul: return fromLinear(toLinear(e));
        case ExprKind::FloorDiv:
        case ExprKind::FloorMod:
        case ExprKind::Div:
        case ExprKind::Mod: return simplifyDiv(k, a, b, e);
        case ExprKind::Min:
        case ExprKind::Max: return simplifyMinMax(k, a, b, e);
        case ExprKind::EQ:
        case ExprKind::NE:
        case ExprKind::LT:
        case ExprKind::LE:
        case ExprKind::GT:
        case ExprKind::GE: return simplifyCompare(k, a, b);
        case ExprKind::And:
        case ExprKind::Or: return simplifyLogic(k, a, b, e);
        default: return e;
        }
    }

    Expr simplifyMinMax(ExprKind k, const Expr& a, const Expr& b, const Expr& e)
    {
        if (exprEqual(a, b)) return a;
        Linear diff = toLinear(makeBinary(ExprKind::Sub, a, b));
        ConstBound d = boundOfLinear(diff);
        bool isMin = k == ExprKind::Min;
        if (d.hi <= 0) return isMin ? a : b; // a <= b
        if (d.lo >= 0) return isMin ? b : a; // a >= b
        return e;
    }

    ConstBound boundOfLinear(const Linear& l) const
    {
        ConstBound r{l.constant, l.constant};
        for (auto& t : l.terms) {
            ConstBound tb = m_an.bound(t.expr);
            ConstBound s = t.coef > 0
                               ? ConstBound{mulBound(tb.lo, t.coef), mulBound(tb.hi, t.coef)}
                               : ConstBound{mulBound(tb.hi, t.coef), mulBound(tb.lo, t.coef)};
            r = {addBound(r.lo, s.lo), addBound(r.hi, s.hi)};
        }
        return r;
    }

    Expr simplifyDiv(ExprKind k, const Expr& a, const Expr& b, const Expr& e)
    {
        i64 c;
        if (!isConstInt(b, &c) || c <= 0) return e;
        bool isDiv = k == ExprKind::FloorDiv || k == ExprKind::Div;
        bool trunc = k == ExprKind::Div || k == ExprKind::Mod;
        if (c == 1) return isDiv ? a : constOf(a.type(), 0);
        Linear l = toLinear(a);
        if (trunc) {
            // Truncating and flooring division agree on non-negative numerators.
            if (boundOfLinear(l).lo < 0) return e;
            k = isDiv ? ExprKind::FloorDiv : ExprKind::FloorMod;
        }
        // Nested divisions by constants.
        if (auto* inner = a.as<BinaryNode>()) {
            i64 c2;
            if (isDiv && inner->kind == ExprKind::FloorDiv && isConstInt(inner->b, &c2) && c2 > 0) {
                Expr cc = constOf(a.type(), c * c2);
                return simplifyDiv(ExprKind::FloorDiv, inner->a, cc,
                                   makeBinary(ExprKind::FloorDiv, inner->a, cc));
            }
            if (!isDiv && inner->kind == ExprKind::FloorMod && isConstInt(inner->b, &c2) &&
                c2 > 0 && c2 % c == 0)
                return simplifyDiv(ExprKind::FloorMod, inner->a, b,
                                   makeBinary(ExprKind::FloorMod, inner->a, b));
        }
        Linear q, r;
        q.type = r.type = l.type;
        for (auto& t : l.terms) {
            if (t.coef % c == 0)
                q.addTerm(t.expr, t.coef / c);
            else
                r.addTerm(t.expr, t.coef);
        }
        q.constant = floorDivInt(l.constant, c);
        r.constant = floorModInt(l.constant, c);
        ConstBound rb = boundOfLinear(r);
        if (rb.bounded() && floorDivInt(rb.lo, c) == floorDivInt(rb.hi, c)) {
            i64 kq = floorDivInt(rb.lo, c);
            if (isDiv) {
                q.constant += kq;
                return fromLinear(q);
            }
            r.constant -= kq * c;
            return fromLinear(r);
        }
        // x*g + small with small in [0, g) and g dividing c: the small part cannot carry.
        Expr rest = divideRemainder(r, c, isDiv);
        if (!rest.defined()) {
            Expr re = fromLinear(r);
            rest = makeBinary(isDiv ? ExprKind::FloorDiv : ExprKind::FloorMod, re, b);
        }
        if (!isDiv) return rest;
        if (q.isConst() && q.constant == 0) return rest;
        return makeBinary(ExprKind::Add, fromLinear(q), rest);
    }

    // floordiv/floormod of r (no term divisible by c) when its terms split into multiples of a
    // common g > 1 (g dividing c) and a remainder known to lie in [0, g). Null if not applicable.
    Expr divideRemainder(const Linear& r, i64 c, bool isDiv)
    {
        if (r.terms.empty()) return Expr();
        i64 g = std::gcd(c, std::abs(r.terms.front().coef));
        if (g <= 1) return Expr();
        Linear big, small;
        big.type = small.type = r.type;
        for (auto& t : r.terms) {
            if (t.coef % g == 0)
                big.addTerm(t.expr, t.coef / g);
            else
                small.addTerm(t.expr, t.coef);
        }
        big.constant = floorDivInt(r.constant, g);
        small.constant = floorModInt(r.constant, g);
        ConstBound sb = boundOfLinear(small);
        if (sb.lo < 0 || sb.hi >= g) return Expr();
        Expr bigE = fromLinear(big);
        Expr cg = constOf(r.type, c / g);
        if (isDiv)
            return simplifyDiv(ExprKind::FloorDiv, bigE, cg,
                               makeBinary(ExprKind::FloorDiv, bigE, cg));
        Expr m =
            simplifyDiv(ExprKind::FloorMod, bigE, cg, makeBinary(ExprKind::FloorMod, bigE, cg));
        Linear out = toLinear(makeBinary(ExprKind::Mul, m, constOf(r.type, g)));
        for (auto& t : small.terms)
            out.addTerm(t.expr, t.coef);
        out.constant += small.constant;
        return fromLinear(out);
    }

    Expr simplifyCompare(ExprKind k, const Expr& a, const Expr& b)
    {
        Linear l = toLinear(makeBinary(ExprKind::Sub, a, b));
        ConstBound d = boundOfLinear(l);
        switch (k) {
        case ExprKind::LT:
            if (d.hi < 0) return makeBool(true);
            if (d.lo >= 0) return makeBool(false);
            break;
        case ExprKind::LE:
            if (d.hi <= 0) return makeBool(true);
            if (d.lo > 0) return makeBool(false);
            break;
        case ExprKind::GT:
            if (d.lo > 0) return makeBool(true);
            if (d.hi <= 0) return makeBool(false);
            break;
        case ExprKind::GE:
            if (d.lo >= 0) return makeBool(true);
            if (d.hi < 0) return makeBool(false);
            break;
        case ExprKind::EQ:
            if (d.isPoint()) return makeBool(d.lo == 0);
            if (d.lo > 0 || d.hi < 0) return makeBool(false);
            break;
        case ExprKind::NE:
            if (d.isPoint()) return makeBool(d.lo != 0);
            if (d.lo > 0 || d.hi < 0) return makeBool(true);
            break;
        default: break;
        }
        // Added terms on the left, subtracted terms and the constant on the right.
        Linear lhs, rhs;
        lhs.type = rhs.type = l.type;
        for (auto& t : l.terms) {
            if (t.coef > 0)
                lhs.addTerm(t.expr, t.coef);
            else
                rhs.addTerm(t.expr, -t.coef);
        }
        rhs.constant = -l.constant;
        if (lhs.terms.empty()) std::swap(lhs, rhs), k = mirror(k);
        // x*c1 + y < c2  ->  x*(c1/g) + y//g < c2/g  with g = gcd(c1, c2)
        if (k == ExprKind::LT && rhs.isConst() && rhs.constant > 0 && !lhs.terms.empty() &&
            lhs.terms.size() > 1) {
            std::stable_sort(lhs.terms.begin(), lhs.terms.end(),
                             [](const Term& x, const Term& y) { return x.coef > y.coef; });
            i64 g = std::gcd(lhs.terms.front().coef, rhs.constant);
            if (g > 1) {
                Linear rest;
                rest.type = lhs.type;
                for (std::size_t i = 1; i < lhs.terms.size(); ++i)
                    rest.addTerm(lhs.terms[i].expr, lhs.terms[i].coef);
                Expr lead = scaled(lhs.terms.front().expr, lhs.terms.front().coef / g);
                Expr restDiv =
                    simplifyDiv(ExprKind::FloorDiv, fromLinear(rest), constOf(l.type, g), Expr());
                if (!restDiv.defined())
                    restDiv = makeBinary(ExprKind::FloorDiv, fromLinear(rest), constOf(l.type, g));
                return makeBinary(ExprKind::LT,
                                  fromLinear(toLinear(makeBinary(ExprKind::Add, lead, restDiv))),
                                  constOf(l.type, rhs.constant / g));
            }
        }
        return makeBinary(k, fromLinear(lhs), fromLinear(rhs));
    }

    static ExprKind mirror(ExprKind k)
    {
        switch (k) {
        case ExprKind::LT: return ExprKind::GT;
        case ExprKind::LE: return ExprKind::GE;
        case ExprKind::GT: return ExprKind::LT;
        case ExprKind::GE: return ExprKind::LE;
        default: return k;
        }
    }

    const Analyzer& m_an;
};

} // namespace

void Analyzer::bind(const Var& v, const Expr& min, const Expr& extent)
{
    ConstBound lo = bound(min);
    ConstBound ext = bound(extent);
    ConstBound b;
    b.lo = lo.lo;
    b.hi =
        (lo.hi == kPosInf || ext.hi == kPosInf) ? kPosInf : addBound(addBound(lo.hi, ext.hi), -1);
    m_bounds[v.get()] = b;
}

ConstBound Analyzer::bound(const Expr& e) const
{
    if (!e.defined()) return {};
    i64 v;
    if (isConstInt(e, &v)) return {v, v};
    if (auto* var = e.as<VarNode>()) {
        auto it = m_bounds.find(var);
        return it == m_bounds.end() ? ConstBound{} : it->second;
    }
    if (auto* c = e.as<CastNode>()) {
        if (c->type.isIntegral() && c->value.type().isIntegral()) return bound(c->value);
        return {};
    }
    if (auto* s = e.as<SelectNode>()) return unite(bound(s->t), bound(s->f));
    if (auto* call = e.as<CallNode>()) {
        if (call->op == CallOp::IfThenElse)
            return unite(bound(call->args[1]), bound(call->args[2]));
        return {};
    }
    auto* b = e.as<BinaryNode>();
    if (!b || !isIndexType(e.type())) {
        if (e.type().isBool()) return {0, 1};
        return {};
    }
    ConstBound x = bound(b->a), y = bound(b->b);
    switch (b->kind) {
    case ExprKind::Add: return {addBound(x.lo, y.lo), addBound(x.hi, y.hi)};
    case ExprKind::Sub: return {addBound(x.lo, negBound(y.hi)), addBound(x.hi, negBound(y.lo))};
    case ExprKind::Mul: {
        if (y.isPoint()) std::swap(x, y);
        if (x.isPoint()) {
            i64 c = x.lo;
            return c >= 0 ? ConstBound{mulBound(y.lo, c), mulBound(y.hi, c)}
                          : ConstBound{mulBound(y.hi, c), mulBound(y.lo, c)};
        }
        if (!x.bounded() || !y.bounded()) return {};
        i128 p[4] = {static_cast<i128>(x.lo) * y.lo, static_cast<i128>(x.lo) * y.hi,
                     static_cast<i128>(x.hi) * y.lo, static_cast<i128>(x.hi) * y.hi};
        return {clamp128(*std::min_element(p, p + 4)), clamp128(*std::max_element(p, p + 4))};
    }
    case ExprKind::FloorDiv:
    case ExprKind::Div: {
        if (!y.isPoint() || y.lo <= 0) return {};
        if (b->kind == ExprKind::Div && x.lo < 0) return {};
        return {divBound(x.lo, y.lo), divBound(x.hi, y.lo)};
    }
    case ExprKind::FloorMod:
    case ExprKind::Mod: {
        if (!y.isPoint() || y.lo <= 0) return {};
        i64 c = y.lo;
        if (b->kind == ExprKind::Mod && x.lo < 0) return {-(c - 1), c - 1};
        if (x.bounded() && floorDivInt(x.lo, c) == floorDivInt(x.hi, c))
            return {floorModInt(x.lo, c), floorModInt(x.hi, c)};
        return {0, c - 1};
    }
    case ExprKind::Min: return {std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
    case ExprKind::Max: return {std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
    default: return {};
    }
}

Expr Analyzer::simplify(const Expr& e) const
{
    Simplifier s(*this);
    return s.mutate(e);
}

bool Analyzer::canProve(const Expr& e) const
{
    i64 v;
    return isConstInt(simplify(e), &v) && v != 0;
}

Expr simplify(const Expr& e)
{
    Analyzer a;
    return a.simplify(e);
}

} // namespace loopscope
