// The GPU inline rule (Ansor's RuleAlwaysInline on a GPU): every stage that can be inlined is,
// strictly element-wise or not (a padding, an exp): a GPU recomputes cheaply, and a stage left at
// the root is a kernel of its own with a round trip through global memory. It inlines as the CPU
// rule does; only its condition differs.
#pragma once

#include "tune/rules/InlineRule.h"

namespace loopscope {

class GpuInlineRule final : public InlineRule {
public:
    const char* name() const override { return "gpu-inline"; }

    RuleCondition condition(const RuleInput& in) const override
    {
        const StageFacts& f = in.stage;
        return !f.placeholder && !f.output && !f.reduction && !f.consumers.empty() &&
                       in.allowed("compute_inline")
                   ? RuleCondition::ApplyAndSkipRest
                   : RuleCondition::Pass;
    }
};

inline const GpuInlineRule kGpuInlineRule{};

// The threads per block worth offering a loop of `extent` iterations: whole warps up to the
// block's limit, or the extent itself where it is less than a warp.
inline std::vector<std::int64_t> gpuThreadChoices(std::int64_t extent, const GpuLimits& g)
{
    std::vector<std::int64_t> out;
    for (std::int64_t t = g.warp; t <= g.maxThreadsPerBlock; t *= 2)
        if (t <= extent || out.empty()) out.push_back(std::min(t, extent));
    return out;
}

} // namespace loopscope
