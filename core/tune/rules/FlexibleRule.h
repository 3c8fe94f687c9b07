// The flexible rule: a stage with consumers that no earlier rule took (padding, a reduction
// without reuse feeding another stage) is placed where a knob says: at the root as the simple
// rule would make it, inlined, or computed at one of its consumers' loops.
#pragma once

#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"
#include "tune/rules/SimpleRule.h"

#include <utility>

namespace loopscope {

class FlexibleRule final : public SimpleRule {
public:
    const char* name() const override { return "flexible"; }

    RuleCondition condition(const RuleInput& in) const override
    {
        return !in.stage.output && !in.stage.consumers.empty() ? RuleCondition::ApplyAndSkipRest
                                                               : RuleCondition::Pass;
    }

    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts& f,
                  const SpaceOptions& o) const override
    {
        std::vector<std::int64_t> locations;
        for (std::int64_t l = 0; l < 32; ++l)
            locations.push_back(l);
        pl.location = sk.addChoice(pl.stage + " location", KnobRole::Location, locations);
        SimpleRule::addKnobs(sk, pl, f, o);
    }

    // As the simple rule, and a stage its (only) consumer tiles (padding before a depthwise
    // convolution) inside the consumer's outermost loop, one tile at a time, instead of a whole
    // copy at the root.
    void initKnobs(const Sketch& sk, const StagePlan& pl, const SpaceOptions& o,
                   Knobs& k) const override
    {
        SimpleRule::initKnobs(sk, pl, o, k);
        const StageFacts* f = sk.factsOf(pl.stage);
        if (pl.location >= 0 && f && f->tiledByConsumer)
            k[knobAt(sk, pl.location)] = firstConsumerLoop(*f, o);
    }

    // Whether the location knob offers inlining (not for a reduction).
    static bool offersInlining(const StageFacts& f, const SpaceOptions& o)
    {
        return !f.reduction && tunerMayWrite(o, "compute_inline");
    }
    // The location knob's value for the first consumer's outermost loop.
    static std::int64_t firstConsumerLoop(const StageFacts& f, const SpaceOptions& o)
    {
        return offersInlining(f, o) ? 2 : 1;
    }

    // The location knob picks among the root, inlining (not for a reduction) and every loop of
    // every consumer that is itself materialized; whether the stage can be computed there (all
    // its readers inside) is the schedule's to say.
    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        const StageFacts* f = r.facts(pl.stage);
        const Stage* st = r.stage(pl.stage);
        if (!f || !st) return true;
        std::vector<std::string> options{"root"};
        if (offersInlining(*f, r.options())) options.push_back("inline");
        std::vector<std::pair<std::string, std::string>> loops; // consumer, loop
        if (r.allowed("compute_at")) {
            for (auto& name : f->consumers) {
                const Stage* consumer = r.stage(name);
                if (!consumer || consumer->attach == AttachType::Inline) continue;
                for (auto& iv : consumer->leafIterVars) {
                    const IterVarAttr* a = consumer->attr(iv);
                    if (a && a->kind == ForKind::Vectorized) continue;
                    options.push_back("at");
                    loops.emplace_back(name, iv->name());
                }
            }
        }
        std::int64_t pick = r.choice(pl.location, 0);
        std::size_t index = static_cast<std::size_t>(pick) % options.size();
        if (options[index] == "inline") return r.simpleStep("compute_inline", pl.stage, {});
        if (options[index] == "at") {
            const auto& at = loops[index - (options.size() - loops.size())];
            if (!r.computeAt(pl.stage, at.first, at.second)) return false;
            // Inside a consumer the stage keeps its root axes; a short innermost one (a block
            // of channels) is whole in every region the consumer asks for, so it is vectorized
            // as at the root, where the vectorize knob says so.
            const std::int64_t ext = f->spatial.empty() ? 0 : f->spatial.back().extent;
            if (r.choice(pl.vectorize, 0) > 0 && ext > 1 && ext <= kMaxVectorLoop &&
                f->reduce.empty())
                return r.simpleStep("vectorize", pl.stage, {f->spatial.back().name});
            return true;
        }
        return SimpleRule::realize(r, pl);
    }
};

inline const FlexibleRule kFlexibleRule{};

} // namespace loopscope
