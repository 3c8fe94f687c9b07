// The cross-thread reduction rule (Ansor's RuleCrossThreadReduction): a reduction with few
// outputs and a long sum (a row's max or sum, a matrix-vector product) shares each output's sum
// among a block's threads: the reduction loops fused and split by a knob's threads, the inner
// part bound to threadIdx.x (the threads' partial sums combined by tvm_thread_allreduce), one block
// per output element. A branch: the rules after it are tried too.
#pragma once

#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"
#include "tune/rules/GpuInlineRule.h"

namespace loopscope {

class GpuCrossThreadRule final : public SketchRule {
public:
    const char* name() const override { return "cross-thread"; }

    RuleCondition condition(const RuleInput& in) const override
    {
        const StageFacts& f = in.stage;
        if (f.placeholder || !f.reduction || !in.allowed("bind") || !in.allowed("split") ||
            !in.allowed("fuse"))
            return RuleCondition::Pass;
        const GpuLimits g = in.options.gpu.value_or(GpuLimits{});
        const std::int64_t space = f.spatialProduct(), reduce = f.reduceProduct();
        // Enough outputs for every thread of a block already: no sharing (Ansor's condition).
        if (f.needsTiling)
            return space <= g.maxThreadsPerBlock && space < reduce ? RuleCondition::Apply
                                                                   : RuleCondition::Pass;
        return reduce > g.warp ? RuleCondition::Apply : RuleCondition::Pass;
    }

    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        return {branch(in.stage.name, in.stage.name + ": each sum shared by a block's threads")};
    }

    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts& f,
                  const SpaceOptions& o) const override
    {
        const GpuLimits g = o.gpu.value_or(GpuLimits{});
        pl.factor = sk.addChoice(pl.stage + " threads of a sum", KnobRole::Other,
                                 gpuThreadChoices(f.reduceProduct(), g));
        if (tunerMayWrite(o, "pragma"))
            pl.unroll = sk.addChoice(pl.stage + " unroll", KnobRole::Unroll, gpuUnrollSteps());
    }

    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        const StageFacts* f = r.facts(pl.stage);
        if (!f) return true;
        std::string block, sum;
        if (!r.fuse(pl.stage, axisNames(f->spatial), &block) ||
            !r.fuse(pl.stage, axisNames(f->reduce), &sum))
            return false;
        const std::int64_t threads = r.choice(pl.factor, 32);
        std::string serial, thread;
        if (!r.split(pl.stage, sum, threads, {baseName(sum) + "_o", baseName(sum) + "_t"}, &serial,
                     &thread) ||
            !r.bind(pl.stage, thread, "threadIdx.x"))
            return false;
        if (!block.empty() && !r.bind(pl.stage, block, "blockIdx.x")) return false;
        return r.unroll(pl.stage, pl.unroll);
    }
};

inline const GpuCrossThreadRule kGpuCrossThreadRule{};

} // namespace loopscope
