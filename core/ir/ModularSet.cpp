#include "ir/ModularSet.h"

#include <numeric>

namespace loopscope {

namespace {

using i64 = std::int64_t;

ModularSet make(i64 coeff, i64 base)
{
    if (coeff < 0) coeff = -coeff;
    if (coeff != 0) {
        base %= coeff;
        if (base < 0) base += coeff;
    }
    return {coeff, base};
}

ModularSet everything()
{
    return {1, 0};
}

ModularSet unite(ModularSet a, ModularSet b)
{
    i64 coeff = std::gcd(std::gcd(a.coeff, b.coeff), a.base - b.base);
    return make(coeff, a.base);
}

ModularSet divByConst(ModularSet a, i64 c)
{
    if (c <= 0 || a.coeff % c != 0) return everything();
    if (a.base == 0) return make(a.coeff / c, 0);
    if (a.coeff == 0) return make(0, a.base >= 0 ? a.base / c : -((-a.base + c - 1) / c));
    return make(a.coeff / c, a.base / c); // 0 < base < coeff: flooring is exact here
}

} // namespace

ModularSet modularSet(const Expr& e)
{
    if (!e.defined() || !e.type().isIntegral() || e.type().isVector()) return everything();
    if (std::int64_t v; isConstInt(e, &v)) return make(0, v);
    if (auto* c = e.as<CastNode>()) return modularSet(c->value);
    if (auto* s = e.as<SelectNode>()) return unite(modularSet(s->t), modularSet(s->f));
    auto* b = e.as<BinaryNode>();
    if (!b) return everything();
    ModularSet x = modularSet(b->a), y = modularSet(b->b);
    switch (b->kind) {
    case ExprKind::Add: return make(std::gcd(x.coeff, y.coeff), x.base + y.base);
    case ExprKind::Sub: return make(std::gcd(x.coeff, y.coeff), x.base - y.base);
    case ExprKind::Mul:
        return make(std::gcd(std::gcd(x.coeff * y.coeff, x.coeff * y.base), y.coeff * x.base),
                    x.base * y.base);
    case ExprKind::FloorDiv:
        if (y.coeff == 0) return divByConst(x, y.base);
        return everything();
    case ExprKind::FloorMod:
        if (y.coeff == 0 && y.base != 0) return make(std::gcd(x.coeff, y.base), x.base);
        return everything();
    case ExprKind::Min:
    case ExprKind::Max: return unite(x, y);
    default: return everything();
    }
}

} // namespace loopscope
