// The GPU simple rule (Ansor's InitThreadBind for a stage it does not tile): a stage no earlier
// rule took is a kernel of its own, its data-parallel loops fused into one and split over blocks
// of a knob's threads (blockIdx.x, threadIdx.x), its reduction loops, if any, inside each thread.
#pragma once

#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"
#include "tune/rules/GpuInlineRule.h"

#include <algorithm>

namespace loopscope {

class GpuSimpleRule final : public SketchRule {
public:
    const char* name() const override { return "gpu-simple"; }

    RuleCondition condition(const RuleInput& in) const override
    {
        return !in.stage.placeholder && !in.stage.spatial.empty() && in.allowed("bind") &&
                       in.allowed("split") && in.allowed("fuse")
                   ? RuleCondition::ApplyAndSkipRest
                   : RuleCondition::Pass;
    }

    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        return {branch(in.stage.name, in.stage.name + ": one thread per element")};
    }

    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts& f,
                  const SpaceOptions& o) const override
    {
        const GpuLimits g = o.gpu.value_or(GpuLimits{});
        pl.factor = sk.addChoice(pl.stage + " threads", KnobRole::Other,
                                 gpuThreadChoices(f.spatialProduct(), g));
        if (tunerMayWrite(o, "pragma") && f.reduction)
            pl.unroll = sk.addChoice(pl.stage + " unroll", KnobRole::Unroll, gpuUnrollSteps());
    }

    // Blocks of 256 threads where there are that many elements (8 warps: enough to hide a
    // load's latency, few enough that many blocks share a multiprocessor).
    void initKnobs(const Sketch& sk, const StagePlan& pl, const SpaceOptions&,
                   Knobs& k) const override
    {
        if (pl.factor < 0) return;
        const KnobSpec& spec = sk.knobs[static_cast<std::size_t>(pl.factor)];
        std::int64_t v = spec.values.front();
        for (std::int64_t t : spec.values)
            if (t <= 256) v = t;
        k[static_cast<std::size_t>(spec.offset)] = v;
    }

    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        const StageFacts* f = r.facts(pl.stage);
        if (!f || f->spatial.empty()) return true;
        // Reduction loops go inside the fused loop, which must be outermost to be fused.
        std::string fused;
        if (!r.fuse(pl.stage, axisNames(f->spatial), &fused)) return false;
        const std::int64_t threads = r.choice(pl.factor, 1);
        if (threads > 1 && threads < f->spatialProduct()) {
            std::string block, thread;
            if (!r.split(pl.stage, fused, threads, {baseName(fused) + "_b", baseName(fused) + "_t"},
                         &block, &thread) ||
                !r.bind(pl.stage, block, "blockIdx.x") || !r.bind(pl.stage, thread, "threadIdx.x"))
                return false;
        } else if (!r.bind(pl.stage, fused, threads > 1 ? "threadIdx.x" : "blockIdx.x")) {
            return false;
        }
        return r.unroll(pl.stage, pl.unroll);
    }
};

inline const GpuSimpleRule kGpuSimpleRule{};

} // namespace loopscope
