#include "schedule/Bound.h"

#include "ir/IntervalSet.h"
#include "schedule/ThreadScope.h"

#include <algorithm>

namespace loopscope {

std::vector<LoopRef> attachPath(const Schedule& sch, const Stage& s)
{
    if (s.attach != AttachType::Scope) return {};
    const Stage* parent = sch.find(s.attachOp);
    LS_ASSERT(parent, "attach stage missing for " + s.name());
    std::vector<LoopRef> path = attachPath(sch, *parent);
    for (auto& iv : parent->leafIterVars) {
        path.push_back({parent, iv});
        if (iv == s.attachIvar) return path;
    }
    throw UserError(s.attachLoc, "'" + s.name() + "' is computed at axis '" +
                                     axisDisplayName(s.attachIvar->name()) + "' of '" +
                                     parent->name() + "', which is no longer one of its loops");
}

namespace {

// The value of each root variable of `c` in terms of its leaf loop variables.
ValueMap rootValues(const Stage& c, const RangeMap& ranges, const Analyzer& an)
{
    ValueMap leafOffsets;
    for (auto& iv : c.leafIterVars) {
        const Range& r = ranges.at(iv.get());
        leafOffsets[iv.get()] = isOne(r.extent) ? makeInt(0) : Expr(iv->var);
    }
    return offsetsToValues(c, ranges, passUpOffsets(c, ranges, leafOffsets, an), an);
}

struct Region {
    std::vector<IntervalSet> dims;
    bool empty = true;
};

void unite(Region& region, const std::vector<IntervalSet>& access, const Analyzer& an)
{
    if (region.empty) {
        region.dims = access;
        region.empty = false;
        return;
    }
    for (std::size_t d = 0; d < access.size(); ++d)
        region.dims[d] = unionInterval(region.dims[d], access[d], an);
}

} // namespace

BoundInfo inferBound(const Schedule& sch, const EffectiveBodies& bodies)
{
    BoundInfo info;
    Analyzer& an = info.analyzer;
    const auto& stages = sch.stages();
    auto materialized = [](const Stage& s) {
        return !s.isPlaceholder() && s.attach != AttachType::Inline;
    };
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
        const Stage& s = *it;
        if (!materialized(s)) continue;
        const OperationNode& op = *s.op;
        Region region;
        std::vector<LoopRef> myPath = attachPath(sch, s);
        const int rank = stageStorageRank(sch, s);
        // As TVM's NeedRelax: a loop bound to threads is covered whole when the stage's storage
        // is shared by those threads (shared memory and every threadIdx of a block), wherever
        // it is; any other loop is when it is inside the place the stage is computed at.
        auto relaxed = [&](const LoopRef& loop, bool inside) {
            const IterVarAttr* a = loop.stage->attr(loop.iv);
            if (a && a->kind == ForKind::ThreadBinding)
                return storageCoversThread(rank, a->threadTag);
            return inside;
        };
        if (!s.isOutput) {
            for (auto& c : stages) {
                if (!materialized(c) || &c == &s) continue;
                const Expr& body = bodies.at(c.op.get());
                auto reads = tensorsRead(body);
                if (std::find(reads.begin(), reads.end(), s.op) == reads.end()) continue;
                std::vector<LoopRef> loops = attachPath(sch, c);
                for (auto& iv : c.leafIterVars)
                    loops.push_back({&c, iv});
                std::size_t common = 0;
                while (common < myPath.size() && common < loops.size() &&
                       myPath[common] == loops[common])
                    ++common;
                if (common < myPath.size()) {
                    throw UserError(s.attachLoc, "'" + s.name() + "' is computed inside loop '" +
                                                     axisDisplayName(s.attachIvar->name()) +
                                                     "' of '" + sch.find(s.attachOp)->name() +
                                                     "', but '" + c.name() +
                                                     "' also reads it outside that loop");
                }
                IntervalMap relax;
                for (std::size_t k = 0; k < loops.size(); ++k) {
                    if (!relaxed(loops[k], k >= common)) continue;
                    const Range& r = info.ranges.at(loops[k].iv.get());
                    relax[loops[k].iv->var.get()] = {makeInt(0), an.simplify(r.extent - 1)};
                }
                ValueMap values = rootValues(c, info.ranges, an);
                VarMap rootSub;
                for (auto& iv : c.rootIterVars())
                    rootSub[iv->var.get()] = values.at(iv.get());
                forEachExpr(body, [&](const Expr& e) {
                    auto* load = e.as<TensorLoadNode>();
                    if (!load || load->tensor != s.op) return;
                    std::vector<IntervalSet> access;
                    for (auto& idx : load->indices)
                        access.push_back(
                            evalInterval(an.simplify(substitute(idx, rootSub)), relax, an));
                    unite(region, access, an);
                });
            }
        }
        // Root ranges: the region read, or the whole domain for outputs and when unknown.
        VarSet loopVars;
        for (auto& [iv, r] : info.ranges)
            loopVars.insert(iv->var.get());
        for (std::size_t d = 0; d < op.axes.size(); ++d) {
            const IterVar& axis = op.axes[d];
            Range full{makeInt(0), op.shape[d]};
            Range r = full;
            if (!region.empty && region.dims[d].known()) {
                Expr mn = region.dims[d].min;
                Expr ext = an.simplify(region.dims[d].max - mn + 1);
                // A region whose size varies from one iteration to the next is computed whole.
                if (!usesAnyVar(ext, loopVars)) r = {mn, ext};
                std::int64_t lo, e, shape;
                if (isConstInt(mn, &lo) && isConstInt(ext, &e) && isConstInt(op.shape[d], &shape) &&
                    lo <= 0 && lo + e >= shape)
                    r = full;
            }
            info.ranges[axis.get()] = r;
        }
        for (auto& axis : op.reduceAxes)
            info.ranges[axis.get()] = axis->dom;
        passDownDomain(s, info.ranges, an);
        for (auto& iv : s.leafIterVars) {
            const Range& r = info.ranges.at(iv.get());
            an.bind(iv->var, makeInt(0), r.extent);
        }
    }
    return info;
}

} // namespace loopscope
