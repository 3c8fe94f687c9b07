// The pinned rule: a stage the starting variant's steps shaped keeps its loops; the tuner may only
// add what the steps did not (a parallel outer loop, a vectorized inner one, an unroll pragma).
// A stage pinned only by splits that wants multi-level tiling is left to the tile rule, which
// arranges the split pieces with the rest.
#pragma once

#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"

namespace loopscope {

class PinnedRule final : public SketchRule {
public:
    const char* name() const override { return "pinned"; }

    RuleCondition condition(const RuleInput& in) const override
    {
        const StageFacts& f = in.stage;
        const bool tiledAsSplit =
            f.onlySplit && f.needsTiling && in.allowed("split") && in.allowed("reorder");
        return f.pinned && !tiledAsSplit ? RuleCondition::ApplyAndSkipRest : RuleCondition::Pass;
    }

    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        return {branch(in.stage.name, in.stage.name + ": as given")};
    }

    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts& f,
                  const SpaceOptions& o) const override
    {
        const std::string n = pl.stage + " ";
        if (tunerMayWrite(o, "parallel") && !f.hasParallel)
            pl.parallel = sk.addChoice(n + "parallel", KnobRole::Parallel, {1, 0});
        if (tunerMayWrite(o, "vectorize") && !f.hasVectorize)
            pl.vectorize = sk.addChoice(n + "vectorize", KnobRole::Vectorize, {1, 0});
        if (tunerMayWrite(o, "pragma") && !f.hasUnroll)
            pl.unroll = sk.addChoice(n + "unroll", KnobRole::Unroll, unrollSteps());
    }

    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        const Stage* st = r.stage(pl.stage);
        if (!st || st->leafIterVars.empty()) return true;
        const IterVar outer = st->leafIterVars.front();
        const IterVar inner = st->leafIterVars.back();
        auto free = [&](const IterVar& iv) {
            const IterVarAttr* a = st->attr(iv);
            return iv->kind == IterKind::DataPar && (!a || a->kind == ForKind::Serial);
        };
        const std::string outerName = outer->name(), innerName = inner->name();
        const bool vectorizeInner = r.choice(pl.vectorize, 0) == 1 && free(inner) &&
                                    leafExtent(*st, inner) > 1 &&
                                    leafExtent(*st, inner) <= kMaxVectorLoop;
        const bool parallelOuter = r.choice(pl.parallel, 0) == 1 &&
                                   st->attach == AttachType::Root && free(outer) && outer != inner;
        if (vectorizeInner && !r.simpleStep("vectorize", pl.stage, {innerName})) return false;
        if (parallelOuter && !r.simpleStep("parallel", pl.stage, {outerName})) return false;
        return r.unroll(pl.stage, pl.unroll);
    }
};

inline const PinnedRule kPinnedRule{};

} // namespace loopscope
