#include "schedule/IterGraph.h"

#include <unordered_set>

namespace loopscope {

Expr ceilDiv(const Expr& a, const Expr& b, const Analyzer& an)
{
    return an.simplify(floordiv(a + b - makeInt(1, b.type()), b));
}

namespace {

// The axes that are or lead to a leaf bound to a thread (TVM's PassUpThreadBinding).
std::unordered_set<const IterVarNode*> dominatingThreads(const Stage& s)
{
    std::unordered_set<const IterVarNode*> out;
    for (auto& iv : s.leafIterVars) {
        const IterVarAttr* a = s.attr(iv);
        if (a && a->kind == ForKind::ThreadBinding) out.insert(iv.get());
    }
    for (auto r = s.relations.rbegin(); r != s.relations.rend(); ++r) {
        switch (r->kind) {
        case IterRelation::Kind::Split:
            if (out.count(r->inner.get()) || out.count(r->outer.get())) out.insert(r->parent.get());
            break;
        case IterRelation::Kind::Fuse:
            if (out.count(r->fused.get())) {
                out.insert(r->inner.get());
                out.insert(r->outer.get());
            }
            break;
        case IterRelation::Kind::Rebase:
            if (out.count(r->rebased.get())) out.insert(r->parent.get());
            break;
        }
    }
    return out;
}

} // namespace

void passDownDomain(const Stage& s, RangeMap& ranges, const Analyzer& an, bool early)
{
    Expr zero = makeInt(0);
    const auto threads = dominatingThreads(s);
    for (auto& r : s.relations) {
        switch (r.kind) {
        case IterRelation::Kind::Split: {
            const Range& p = ranges.at(r.parent.get());
            // A split wider than its parent is clipped to the parent (TVM's minimum_or_later),
            // unless the piece is or leads to a loop bound to a thread: a split may set a
            // loop's extent to the number of threads launched, and that stays.
            auto clipped = [&](const IterVar& piece, const Expr& amount) {
                if (early || threads.count(piece.get()) || isZero(p.extent)) return amount;
                return an.canProve(p.extent < amount) ? p.extent : amount;
            };
            if (r.factor.defined()) {
                ranges[r.inner.get()] = {zero, clipped(r.inner, r.factor)};
                ranges[r.outer.get()] = {zero, ceilDiv(p.extent, r.factor, an)};
            } else {
                ranges[r.outer.get()] = {zero, clipped(r.outer, r.nparts)};
                ranges[r.inner.get()] = {zero, ceilDiv(p.extent, r.nparts, an)};
            }
            break;
        }
        case IterRelation::Kind::Fuse: {
            const Range& o = ranges.at(r.outer.get());
            const Range& i = ranges.at(r.inner.get());
            ranges[r.fused.get()] = {zero, an.simplify(o.extent * i.extent)};
            break;
        }
        case IterRelation::Kind::Rebase:
            ranges[r.rebased.get()] = {zero, ranges.at(r.parent.get()).extent};
            break;
        }
    }
}

ValueMap passUpOffsets(const Stage& s, const RangeMap& ranges, ValueMap off, const Analyzer& an)
{
    for (auto it = s.relations.rbegin(); it != s.relations.rend(); ++it) {
        const IterRelation& r = *it;
        switch (r.kind) {
        case IterRelation::Kind::Split: {
            Expr factor = ranges.at(r.inner.get()).extent;
            off[r.parent.get()] =
                an.simplify(off.at(r.outer.get()) * factor + off.at(r.inner.get()));
            break;
        }
        case IterRelation::Kind::Fuse: {
            Expr f = off.at(r.fused.get());
            Expr innerExt = ranges.at(r.inner.get()).extent;
            off[r.outer.get()] = an.simplify(floordiv(f, innerExt));
            off[r.inner.get()] = an.simplify(floormod(f, innerExt));
            break;
        }
        case IterRelation::Kind::Rebase: off[r.parent.get()] = off.at(r.rebased.get()); break;
        }
    }
    return off;
}

ValueMap offsetsToValues(const Stage& s, const RangeMap& ranges, const ValueMap& offsets,
                         const Analyzer& an)
{
    ValueMap values;
    for (auto& iv : s.allIterVars) {
        auto o = offsets.find(iv.get());
        if (o == offsets.end()) continue;
        const Expr& mn = ranges.at(iv.get()).min;
        values[iv.get()] = isZero(mn) ? o->second : an.simplify(mn + o->second);
    }
    return values;
}

std::unordered_map<const IterVarNode*, bool>
passUpBoundCheck(const Stage& s, const RangeMap& ranges, const Analyzer& an)
{
    std::unordered_map<const IterVarNode*, bool> need;
    for (auto& iv : s.leafIterVars)
        need[iv.get()] = false;
    for (auto it = s.relations.rbegin(); it != s.relations.rend(); ++it) {
        const IterRelation& r = *it;
        switch (r.kind) {
        case IterRelation::Kind::Split: {
            bool n = need.at(r.outer.get()) || need.at(r.inner.get());
            if (!n) {
                Expr ext = ranges.at(r.parent.get()).extent;
                Expr amount = r.factor.defined() ? r.factor : r.nparts;
                Expr covered = r.factor.defined() ? ranges.at(r.outer.get()).extent * r.factor
                                                  : ranges.at(r.inner.get()).extent * r.nparts;
                n = !an.canProve(makeBinary(ExprKind::EQ, covered, ext));
                (void)amount;
            }
            need[r.parent.get()] = n;
            break;
        }
        case IterRelation::Kind::Fuse: {
            bool n = need.at(r.fused.get());
            need[r.outer.get()] = n;
            need[r.inner.get()] = n;
            break;
        }
        case IterRelation::Kind::Rebase: need[r.parent.get()] = need.at(r.rebased.get()); break;
        }
    }
    return need;
}

std::unordered_map<const IterVarNode*, int> reduceTouchMask(const Stage& s)
{
    std::unordered_map<const IterVarNode*, int> mask;
    for (auto& a : s.op->axes)
        mask[a.get()] = 1;
    for (auto& a : s.op->reduceAxes)
        mask[a.get()] = 2;
    for (auto& r : s.relations) {
        switch (r.kind) {
        case IterRelation::Kind::Split:
            mask[r.outer.get()] = mask[r.inner.get()] = mask.at(r.parent.get());
            break;
        case IterRelation::Kind::Fuse:
            mask[r.fused.get()] = mask.at(r.outer.get()) | mask.at(r.inner.get());
            break;
        case IterRelation::Kind::Rebase: mask[r.rebased.get()] = mask.at(r.parent.get()); break;
        }
    }
    return mask;
}

} // namespace loopscope
