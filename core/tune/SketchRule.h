// A sketch rule as one object, after Ansor's (sketch_policy_rules.h): the condition under which
// it applies to a stage, the structures it then gives the stage, the knobs such a structure needs,
// and how their values become schedule steps. Sketch generation, knob construction and
// realization loop over one ordered list of rules (sketchRules()); each plan names the rule that
// made it. A rule is one file in tune/rules/ and one entry of that list.
#pragma once

#include "tune/Space.h"

#include <map>

namespace loopscope {

class PlanRealizer; // tune/PlanRealizer.h

// What a rule is asked about: one stage, with every stage and the plans already made (rules run
// from the outputs back, so the stage's consumers are planned).
struct RuleInput {
    const StageFacts& stage;
    const std::vector<StageFacts>& stages; // every stage, producers first
    const SpaceOptions& options;
    const std::map<std::string, StagePlan>& planned; // by stage name

    const StageFacts* factsOf(const std::string& name) const;
    const StagePlan* planOf(const std::string& name) const;
    // Whether the options let the tuner write `primitive` (tunerMayWrite).
    bool allowed(const char* primitive) const;
};

// Whether a rule applies to a stage (Ansor's kPass, kApply, kApplyAndSkipRest).
enum class RuleCondition {
    Pass,             // it does not: the next rule is tried
    Apply,            // it does, and the rules after it are tried too (their structures are more
                      // branches)
    ApplyAndSkipRest, // it does, and the stage is done
};

// One structure a rule gives a stage: its plans (the stage's own, and any it makes of stages
// already planned, such as a host), steps to make before everything else (a cache), and words for
// the sketch's name ("C: tiled"; none for the plain structures).
struct RuleBranch {
    std::vector<StagePlan> plans;
    std::vector<NamedStep> prologue;
    std::string note;
};

class SketchRule {
public:
    virtual ~SketchRule() = default;

    // A short name ("tile"), as StagePlan::ruleName() gives it.
    virtual const char* name() const = 0;
    // Whether the rule applies to the stage, and whether the rules after it are tried.
    virtual RuleCondition condition(const RuleInput& in) const = 0;
    // The structures it gives the stage (asked only when the condition is not Pass), each a branch
    // of the sketches.
    virtual std::vector<RuleBranch> apply(const RuleInput& in) const = 0;
    // The knobs a plan of this rule needs, added to the sketch, their indices kept in the plan
    // (none by default).
    virtual void addKnobs(Sketch& sketch, StagePlan& plan, const StageFacts& stage,
                          const SpaceOptions& options) const;
    // The values an untuned candidate takes for this plan's knobs, where the rule knows better
    // than the knobs' roles (which defaultKnobs applies first), as Ansor's InitFillTileSize,
    // InitUnroll, InitVectorization and InitParallel act on steps; nothing by default.
    virtual void initKnobs(const Sketch& sketch, const StagePlan& plan, const SpaceOptions& options,
                           Knobs& knobs) const;
    // How well this plan's structure does as a default schedule (a sketch ranks as its best plan;
    // 0 by default); below 0, a sketch with this plan is never the default.
    virtual int defaultRank(const Sketch& sketch, const StagePlan& plan) const;
    // The plan with the candidate's knob values as schedule steps, made through `r`; false when
    // the schedule refuses one (the realizer keeps the reason).
    virtual bool realize(PlanRealizer& r, const StagePlan& plan) const = 0;

    // A plan of this rule.
    StagePlan plan(const std::string& stage, const std::string& partner = {}, int level = 0) const;
    // A branch that is one plan of this rule, with words for the sketch's name.
    RuleBranch branch(const std::string& stage, std::string note = {}) const;
};

// The CPU rules in the order they are tried (Ansor's): skip a placeholder, keep a pinned stage as
// given, inline what is element-wise, factor a narrow reduction (a branch), tile what reuses data
// (standalone, inside its element-wise consumer or in a local cache), plain loops at the root
// for the rest, or wherever a knob says for a stage with consumers. The host rule is never tried:
// the tile rule plans a host beside its guest.
const std::vector<const SketchRule*>& sketchRules();

// The GPU rules in the order they are tried (Ansor's for a GPU): skip a placeholder, keep a
// pinned stage, inline every stage that can be, share a narrow reduction's sums among a block's
// threads (a branch), tile what reuses data over blocks, virtual threads and threads with shared
// copies of its inputs, and one thread per element for the rest.
const std::vector<const SketchRule*>& gpuSketchRules();

// The sketches these rules make for a variant (generateSketches with another list of rules).
std::vector<Sketch> generateSketches(const Variant& start, const SpaceOptions& options,
                                     std::string* why, const std::vector<const SketchRule*>& rules);

// The largest divisor of n that is at most `limit` (1 at least).
std::int64_t largestDivisorAtMost(std::int64_t n, std::int64_t limit);

// The unroll steps a stage's unroll knob offers (0: none).
const std::vector<std::int64_t>& unrollSteps();
// The unroll steps of a GPU stage's unroll knob (Ansor's for a GPU).
const std::vector<std::int64_t>& gpuUnrollSteps();
// The float32 vector widths worth trying on an axis of this extent (0: no vectorizing).
std::vector<std::int64_t> vectorWidths(std::int64_t extent, const SpaceOptions& options);

} // namespace loopscope
