// The skip rule: a placeholder (an input) has no loops to schedule. Also the plan of a stage no
// rule planned.
#pragma once

#include "tune/SketchRule.h"

namespace loopscope {

class SkipRule final : public SketchRule {
public:
    const char* name() const override { return "skip"; }

    RuleCondition condition(const RuleInput& in) const override
    {
        return in.stage.placeholder ? RuleCondition::ApplyAndSkipRest : RuleCondition::Pass;
    }

    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        return {branch(in.stage.name)};
    }

    bool realize(PlanRealizer&, const StagePlan&) const override { return true; }
};

inline const SkipRule kSkipRule{};

} // namespace loopscope
