// Sketch generation: the rules of sketchRules(), in their order, stage by stage from the outputs
// back, branching where a rule offers more than one structure or lets the rules after it add
// theirs; then the knobs each sketch's plans need, from the plan's rule. The list of rules is
// here.
#include "tune/SketchRule.h"

#include "ir/Diagnostic.h"
#include "tune/rules/FlexibleRule.h"
#include "tune/rules/GpuCrossThreadRule.h"
#include "tune/rules/GpuInlineRule.h"
#include "tune/rules/GpuSimpleRule.h"
#include "tune/rules/GpuTileRule.h"
#include "tune/rules/HostRule.h"
#include "tune/rules/InlineRule.h"
#include "tune/rules/Int8DotRule.h"
#include "tune/rules/PanelRule.h"
#include "tune/rules/PinnedRule.h"
#include "tune/rules/RfactorRule.h"
#include "tune/rules/SimpleRule.h"
#include "tune/rules/SkipRule.h"
#include "tune/rules/TileRule.h"

#include <algorithm>
#include <map>

namespace loopscope {

const std::vector<std::string>& tunerPrimitives()
{
    static const std::vector<std::string> names = {
        "split",      "reorder", "fuse",       "parallel",       "vectorize",
        "unroll",     "pragma",  "compute_at", "compute_inline", "cache_write",
        "cache_read", "rfactor", "bind",       "tensorize"};
    return names;
}

bool tunerMayWrite(const SpaceOptions& options, const std::string& primitive)
{
    const auto& names = tunerPrimitives();
    if (std::find(names.begin(), names.end(), primitive) == names.end())
        throw InternalError("the tuner writes '" + primitive +
                            "', which is not in tunerPrimitives()");
    return !options.forbidden.count(primitive);
}

namespace {

constexpr std::size_t kMaxSketches = 64;

// A sketch in the making: the stages planned so far (from the outputs back).
struct Partial {
    std::vector<NamedStep> prologue;
    std::map<std::string, StagePlan> plans;
    std::vector<std::string> notes;
};

Partial withBranch(const Partial& p, const RuleBranch& b)
{
    Partial q = p;
    for (auto& pl : b.plans)
        q.plans[pl.stage] = pl;
    for (auto& s : b.prologue)
        q.prologue.push_back(s);
    if (!b.note.empty()) q.notes.push_back(b.note);
    return q;
}

// The structures one stage may take, each a copy of `p` with the stage planned: the rules in
// order, each that applies adding its branches, until one ends the stage. A stage no rule takes
// is left as it is.
std::vector<Partial> stageOptions(const StageFacts& f, const Partial& p, const SpaceOptions& o,
                                  const std::vector<StageFacts>& all,
                                  const std::vector<const SketchRule*>& rules)
{
    const RuleInput in{f, all, o, p.plans};
    std::vector<Partial> out;
    for (const SketchRule* rule : rules) {
        const RuleCondition c = rule->condition(in);
        if (c == RuleCondition::Pass) continue;
        for (const RuleBranch& b : rule->apply(in))
            out.push_back(withBranch(p, b));
        if (c == RuleCondition::ApplyAndSkipRest) break;
    }
    if (out.empty()) out.push_back(p);
    return out;
}

} // namespace

const std::vector<const SketchRule*>& sketchRules()
{
    static const std::vector<const SketchRule*> rules = {
        &kSkipRule,  &kPinnedRule, &kInlineRule, &kRfactorRule, &kInt8DotRule,
        &kPanelRule, &kTileRule,   &kHostRule,   &kSimpleRule,  &kFlexibleRule,
    };
    return rules;
}

const std::vector<const SketchRule*>& gpuSketchRules()
{
    static const std::vector<const SketchRule*> rules = {
        &kSkipRule,           &kPinnedRule,  &kGpuInlineRule,
        &kGpuCrossThreadRule, &kGpuTileRule, &kGpuSimpleRule,
    };
    return rules;
}

const std::vector<std::int64_t>& unrollSteps()
{
    static const std::vector<std::int64_t> steps = {0, 16, 64, 512};
    return steps;
}

const std::vector<std::int64_t>& gpuUnrollSteps()
{
    static const std::vector<std::int64_t> steps = {0, 16, 64, 512, 1024};
    return steps;
}

std::vector<std::int64_t> vectorWidths(std::int64_t extent, const SpaceOptions& o)
{
    std::vector<std::int64_t> w{0};
    for (std::int64_t v : {4, 8, 16, 32, 64})
        if (v <= extent && v <= 4 * o.vectorLanes) w.push_back(v);
    if (extent > 1 && extent < 64 && std::find(w.begin(), w.end(), extent) == w.end())
        w.push_back(extent);
    return w;
}

const StageFacts* RuleInput::factsOf(const std::string& name) const
{
    for (auto& f : stages)
        if (f.name == name) return &f;
    return nullptr;
}

const StagePlan* RuleInput::planOf(const std::string& name) const
{
    auto found = planned.find(name);
    return found == planned.end() ? nullptr : &found->second;
}

bool RuleInput::allowed(const char* primitive) const
{
    return tunerMayWrite(options, primitive);
}

void SketchRule::addKnobs(Sketch&, StagePlan&, const StageFacts&, const SpaceOptions&) const {}

void SketchRule::initKnobs(const Sketch&, const StagePlan&, const SpaceOptions&, Knobs&) const {}

int SketchRule::defaultRank(const Sketch&, const StagePlan&) const
{
    return 0;
}

StagePlan SketchRule::plan(const std::string& stage, const std::string& partner, int level) const
{
    StagePlan p;
    p.rule = this;
    p.stage = stage;
    p.partner = partner;
    p.level = level;
    return p;
}

RuleBranch SketchRule::branch(const std::string& stage, std::string note) const
{
    return {{plan(stage)}, {}, std::move(note)};
}

std::string StagePlan::ruleName() const
{
    return rule ? rule->name() : "none";
}

int Sketch::addChoice(const std::string& name, KnobRole role, std::vector<std::int64_t> values)
{
    KnobSpec k;
    k.kind = KnobSpec::Kind::Choice;
    k.role = role;
    k.name = name;
    k.values = std::move(values);
    k.offset = knobCount;
    knobCount += 1;
    knobs.push_back(std::move(k));
    return static_cast<int>(knobs.size()) - 1;
}

int Sketch::addTile(const std::string& name, std::int64_t extent, int levels, bool vectorAxis)
{
    KnobSpec k;
    k.kind = KnobSpec::Kind::Tile;
    k.role = KnobRole::Tile;
    k.name = name;
    k.extent = extent;
    k.levels = levels;
    k.vectorAxis = vectorAxis;
    k.offset = knobCount;
    knobCount += levels - 1;
    knobs.push_back(std::move(k));
    return static_cast<int>(knobs.size()) - 1;
}

std::vector<Sketch> generateSketches(const Variant& start, const SpaceOptions& options,
                                     std::string* why)
{
    return generateSketches(start, options, why, options.gpu ? gpuSketchRules() : sketchRules());
}

std::vector<Sketch> generateSketches(const Variant& start, const SpaceOptions& options,
                                     std::string* why, const std::vector<const SketchRule*>& rules)
{
    const std::vector<StageFacts> facts = analyzeStages(start.schedule());
    for (auto& f : facts) {
        if (f.placeholder) continue;
        for (auto* axes : {&f.spatial, &f.reduce}) {
            for (auto& a : *axes) {
                if (a.extent <= 0) {
                    if (why)
                        *why = "tuning needs constant sizes: axis '" + a.name + "' of '" + f.name +
                               "' has a symbolic extent (give it a value with --set)";
                    return {};
                }
            }
        }
    }

    std::vector<Partial> partials{Partial{}};
    for (auto it = facts.rbegin(); it != facts.rend(); ++it) {
        std::vector<Partial> next;
        for (auto& p : partials) {
            for (auto& q : stageOptions(*it, p, options, facts, rules)) {
                if (next.size() < kMaxSketches) next.push_back(std::move(q));
            }
        }
        partials = std::move(next);
    }

    std::vector<Sketch> sketches;
    for (auto& p : partials) {
        Sketch sk;
        StepReplay replay(start, false);
        bool ok = true;
        for (auto& s : p.prologue)
            ok = ok && replay.apply(s);
        if (!ok) continue;
        sk.prologue = p.prologue;
        sk.facts = analyzeStages(replay.schedule());
        for (auto& note : p.notes)
            sk.name += (sk.name.empty() ? "" : "; ") + note;
        if (sk.name.empty()) sk.name = "annotations only";
        // Consumers before producers: the schedule's stages in reverse.
        const auto& stages = replay.schedule().stages();
        for (auto st = stages.rbegin(); st != stages.rend(); ++st) {
            auto found = p.plans.find(st->name());
            StagePlan pl = found != p.plans.end() ? found->second : kSkipRule.plan(st->name());
            const StageFacts* f = sk.factsOf(pl.stage);
            if (f && pl.rule) pl.rule->addKnobs(sk, pl, *f, options);
            sk.plans.push_back(std::move(pl));
        }
        sketches.push_back(std::move(sk));
    }
    if (sketches.empty() && why) *why = "no sketch applies to this variant";
    return sketches;
}

std::int64_t largestDivisorAtMost(std::int64_t n, std::int64_t limit)
{
    std::int64_t best = 1;
    for (std::int64_t d : divisors(n))
        if (d <= limit) best = d;
    return best;
}

std::vector<std::int64_t> divisors(std::int64_t n)
{
    std::vector<std::int64_t> small, large;
    for (std::int64_t d = 1; d * d <= n; ++d) {
        if (n % d) continue;
        small.push_back(d);
        if (d * d != n) large.push_back(n / d);
    }
    small.insert(small.end(), large.rbegin(), large.rend());
    return small;
}

const StageFacts* Sketch::factsOf(const std::string& stage) const
{
    for (auto& f : facts)
        if (f.name == stage) return &f;
    return nullptr;
}

} // namespace loopscope
