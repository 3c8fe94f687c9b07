// The inline rule (Ansor's RuleAlwaysInline): a stage that reads its inputs element-wise and is
// not an output is computed inside its readers.
#pragma once

#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"

namespace loopscope {

class InlineRule : public SketchRule {
public:
    const char* name() const override { return "inline"; }

    RuleCondition condition(const RuleInput& in) const override
    {
        const StageFacts& f = in.stage;
        return !f.output && f.strictlyInlineable && in.allowed("compute_inline")
                   ? RuleCondition::ApplyAndSkipRest
                   : RuleCondition::Pass;
    }

    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        return {branch(in.stage.name, in.stage.name + ": inlined")};
    }

    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        return r.simpleStep("compute_inline", pl.stage, {});
    }
};

inline const InlineRule kInlineRule{};

} // namespace loopscope
