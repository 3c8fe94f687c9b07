// The rfactor rule (Ansor's RuleAddRfactor): a reduction whose data-parallel extent cannot keep
// the cores busy (Ansor's NeedsRfactor) may be factored: its reduction axes fused and split, one
// part computed as a parallel stage of partial results (X.rf), which X then sums. A branch: the
// rules after it give the stage's other structures.
#pragma once

#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"

namespace loopscope {

class RfactorRule final : public SketchRule {
public:
    const char* name() const override { return "rfactor"; }

    // Never a default: whether factoring pays depends on the machine, for the search to find.
    int defaultRank(const Sketch&, const StagePlan&) const override { return -1; }

    RuleCondition condition(const RuleInput& in) const override
    {
        const StageFacts& f = in.stage;
        const std::int64_t space = f.spatialProduct(), reduce = f.reduceProduct();
        const bool narrow = reduce >= 8 && space <= std::int64_t{in.options.cores} * 16 &&
                            (!f.needsTiling || space <= reduce);
        return f.reduction && !f.pinned && in.allowed("split") && in.allowed("reorder") &&
                       in.allowed("rfactor") && in.allowed("fuse") && narrow
                   ? RuleCondition::Apply
                   : RuleCondition::Pass;
    }

    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        return {branch(in.stage.name, in.stage.name + ": rfactor")};
    }

    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts& f,
                  const SpaceOptions& o) const override
    {
        const std::string n = pl.stage + " ";
        std::vector<std::int64_t> factors;
        for (std::int64_t d : divisors(f.reduceProduct()))
            if (d >= 2 && d <= f.reduceProduct() / 2 && d <= 4096) factors.push_back(d);
        if (factors.empty()) factors.push_back(1);
        pl.factor = sk.addChoice(n + "rfactor split", KnobRole::RfactorSplit, factors);
        pl.mode = sk.addChoice(n + "rfactor part", KnobRole::RfactorPart, {0, 1});
        if (tunerMayWrite(o, "parallel"))
            pl.parallel = sk.addChoice(n + "parallel", KnobRole::Parallel, {1, 0});
        if (tunerMayWrite(o, "vectorize"))
            pl.vectorize = sk.addChoice(n + "vectorize", KnobRole::Vectorize, {1, 0});
        if (tunerMayWrite(o, "pragma"))
            pl.unroll = sk.addChoice(n + "unroll", KnobRole::Unroll, unrollSteps());
    }

    // The reduction axes fused into one, split by the factor, one part factored out into a stage
    // of partial results with that part as its first, data-parallel axis: the inner part (moved
    // innermost and vectorized) or the outer one (made parallel).
    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        const StageFacts* f = r.facts(pl.stage);
        if (!f || f->reduce.empty()) return true;
        std::string axis;
        if (!r.fuse(pl.stage, axisNames(f->reduce), &axis)) return false;
        const std::int64_t factor = r.choice(pl.factor, 2);
        const bool inner = r.choice(pl.mode, 0) == 0;
        std::string outer, innerPart;
        const std::string base = baseName(axis);
        if (!r.split(pl.stage, axis, factor, {base + "_o", base + "_i"}, &outer, &innerPart))
            return false;
        NamedStep rf = NamedStep("rfactor", pl.stage)
                           .loops("axis", {inner ? innerPart : outer})
                           .number("factor_axis", 0);
        rf.names = {baseName(pl.stage) + "_rf"};
        if (!r.step(rf)) return false;
        const std::string partial = r.lastOutput().tensor->name;
        const Stage* ps = r.stage(partial);
        if (!ps) return r.fail("rfactor made no stage");
        // The partial stage's loops: the factored axis, the data-parallel axes, the rest.
        std::vector<std::string> spatial;
        for (std::size_t d = 1; d < ps->op->axes.size(); ++d)
            spatial.push_back(ps->op->axes[d]->name());
        const std::string rfAxis = ps->op->axes.front()->name();
        std::vector<std::string> reduce;
        for (auto& a : ps->op->reduceAxes)
            reduce.push_back(a->name());
        const std::int64_t rfExtent = constIntOr(ps->op->axes.front()->dom.extent, 0);
        if (inner) {
            std::vector<std::string> order = spatial;
            order.insert(order.end(), reduce.begin(), reduce.end());
            order.push_back(rfAxis);
            if (!r.reorder(partial, order)) return false;
            if (r.choice(pl.vectorize, 0) == 1 && rfExtent > 1 && rfExtent <= kMaxVectorLoop &&
                !r.simpleStep("vectorize", partial, {rfAxis}))
                return false;
            if (r.choice(pl.parallel, 0) == 1 && !r.parallel(partial, spatial, nullptr))
                return false;
        } else if (r.choice(pl.parallel, 0) == 1) {
            std::vector<std::string> group{rfAxis};
            group.insert(group.end(), spatial.begin(), spatial.end());
            if (!r.parallel(partial, group, nullptr)) return false;
        }
        return r.unroll(partial, pl.unroll);
    }
};

inline const RfactorRule kRfactorRule{};

} // namespace loopscope
