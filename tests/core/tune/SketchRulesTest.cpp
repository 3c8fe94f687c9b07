// The sketch rules as a list: the order they are tried in, each rule's condition on stages made
// up for it, the tile rule's structures with its consumers planned, and a rule added to the list
// is tried, makes its knobs and realizes, with no other change.
#include "lower/Lower.h"
#include "support/SourceFiles.h"
#include "te/Program.h"
#include "tune/Features.h"
#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

using namespace loopscope;

namespace {

const SketchRule& rule(const std::string& name)
{
    for (const SketchRule* r : sketchRules())
        if (r->name() == name) return *r;
    throw std::runtime_error("no rule " + name);
}

StageFacts stage(const std::string& name, std::vector<std::int64_t> spatial,
                 std::vector<std::int64_t> reduce = {})
{
    StageFacts f;
    f.name = name;
    for (std::size_t d = 0; d < spatial.size(); ++d)
        f.spatial.push_back({"i" + std::to_string(d), spatial[d]});
    for (std::size_t d = 0; d < reduce.size(); ++d)
        f.reduce.push_back({"k" + std::to_string(d), reduce[d]});
    f.reduction = !reduce.empty();
    return f;
}

// The rules that apply to `f`, in the order they are tried, up to the one that ends the stage;
// "+" after one that lets the rules after it apply too.
std::string applying(const StageFacts& f, const SpaceOptions& o = {},
                     const std::map<std::string, StagePlan>& planned = {})
{
    const std::vector<StageFacts> all{f};
    const RuleInput in{f, all, o, planned};
    std::string out;
    for (const SketchRule* r : sketchRules()) {
        const RuleCondition c = r->condition(in);
        if (c == RuleCondition::Pass) continue;
        out += (out.empty() ? "" : " ") + std::string(r->name());
        if (c == RuleCondition::ApplyAndSkipRest) break;
        out += "+";
    }
    return out;
}

TEST(SketchRules, AreTriedInAnsorsOrder)
{
    std::vector<std::string> names;
    for (const SketchRule* r : sketchRules())
        names.push_back(r->name());
    EXPECT_EQ(names, (std::vector<std::string>{"skip", "pinned", "inline", "rfactor", "int8-dot",
                                               "panel", "tile", "host", "simple", "flexible"}));
}

struct ConditionCase {
    const char* what;
    StageFacts facts;
    std::set<std::string> forbidden;
    const char* rules;
};

StageFacts with(StageFacts f, const std::function<void(StageFacts&)>& change)
{
    change(f);
    return f;
}

const auto kMatmul = with(stage("C", {512, 512}, {512}), [](StageFacts& f) {
    f.needsTiling = true;
    f.output = true;
});
const auto kRelu = with(stage("R", {1000}), [](StageFacts& f) {
    f.strictlyInlineable = true;
    f.consumers = {"S"};
});
const auto kNarrowSum = with(stage("S", {4}, {65536}), [](StageFacts& f) { f.output = true; });

TEST(SketchRules, ConditionsOnMadeUpStages)
{
    const ConditionCase cases[] = {
        {"a placeholder",
         with(stage("A", {64}), [](StageFacts& f) { f.placeholder = true; }),
         {},
         "skip"},
        {"a stage the start parallelized",
         with(kMatmul,
              [](StageFacts& f) {
                  f.pinned = true;
                  f.hasParallel = true;
              }),
         {},
         "pinned"},
        {"a matmul the start only split",
         with(kMatmul, [](StageFacts& f) { f.pinned = f.onlySplit = true; }),
         {},
         "tile"},
        {"... where the tuner may not split",
         with(kMatmul, [](StageFacts& f) { f.pinned = f.onlySplit = true; }),
         {"split"},
         "pinned"},
        {"an element-wise stage", kRelu, {}, "inline"},
        {"... not to be inlined", kRelu, {"compute_inline"}, "flexible"},
        {"... that is an output",
         with(kRelu, [](StageFacts& f) { f.output = true; }),
         {},
         "simple"},
        {"a matmul", kMatmul, {}, "tile"},
        {"... where the tuner may not reorder", kMatmul, {"reorder"}, "simple"},
        {"a narrow sum", kNarrowSum, {}, "rfactor+ simple"},
        {"... where the tuner may not write rfactor", kNarrowSum, {"rfactor"}, "simple"},
        {"a narrow matrix-vector product",
         with(stage("S", {8, 2}, {4096}), [](StageFacts& f) { f.needsTiling = f.output = true; }),
         {},
         "rfactor+ tile"},
        {"a wide sum",
         with(stage("S", {4096}, {64}), [](StageFacts& f) { f.output = true; }),
         {},
         "simple"},
        {"padding read by a pool",
         with(stage("P", {34, 34}), [](StageFacts& f) { f.consumers = {"O"}; }),
         {},
         "flexible"},
    };
    for (const auto& c : cases) {
        SpaceOptions o;
        o.forbidden = c.forbidden;
        EXPECT_EQ(applying(c.facts, o), c.rules) << c.what;
    }
}

// The tile rule's structures depend on the plans of the consumers: inside an element-wise
// consumer at the root (looked for through those inlined), else in a local cache.
TEST(SketchRules, TileStructuresFollowTheConsumers)
{
    const StageFacts c = with(stage("C", {64, 64}, {64}), [](StageFacts& f) {
        f.needsTiling = true;
        f.consumers = {"D"};
        f.elementwiseConsumer = "D";
    });
    const StageFacts d = with(stage("D", {64, 64}), [](StageFacts& f) {
        f.consumers = {"E"};
        f.elementwiseConsumer = "E";
    });
    const StageFacts e = with(stage("E", {64, 64}), [](StageFacts& f) { f.output = true; });
    const std::vector<StageFacts> all{c, d, e};
    const SpaceOptions o;
    auto notes = [&](const StageFacts& f, const std::map<std::string, StagePlan>& planned,
                     const SpaceOptions& options) {
        std::vector<std::string> out;
        for (const RuleBranch& b : rule("tile").apply({f, all, options, planned})) {
            std::string line = b.note;
            for (const StagePlan& p : b.plans)
                line += " | " + p.ruleName() + " " + p.stage + " " + p.partner + " " +
                        std::to_string(p.level);
            for (const NamedStep& s : b.prologue)
                line += " | " + describe(s);
            out.push_back(line);
        }
        return out;
    };
    const std::map<std::string, StagePlan> inlined{{"D", rule("inline").plan("D")},
                                                   {"E", rule("simple").plan("E")}};
    EXPECT_EQ(notes(c, inlined, o),
              (std::vector<std::string>{"C: tiled | tile C  0",
                                        "C: tiled inside E at level 1 | tile C E 1 | host E C 1",
                                        "C: tiled inside E at level 2 | tile C E 2 | host E C 2",
                                        "C: tiled inside E at level 3 | tile C E 3 | host E C 3"}));
    // A consumer that is not at the root (it is a host already) takes no guest.
    const std::map<std::string, StagePlan> hosting{{"D", rule("host").plan("D", "X", 1)}};
    EXPECT_EQ(notes(c, hosting, o).size(), 1u);
    SpaceOptions noComputeAt;
    noComputeAt.forbidden = {"compute_at"};
    EXPECT_EQ(notes(c, inlined, noComputeAt).size(), 1u);
    // Without an element-wise consumer, a reduction is computed in a local cache.
    const StageFacts alone = with(c, [](StageFacts& f) {
        f.consumers.clear();
        f.elementwiseConsumer.clear();
        f.output = true;
    });
    const auto cached = notes(alone, {}, o);
    ASSERT_EQ(cached.size(), 4u);
    EXPECT_EQ(cached[1], "C: computed in a local cache, tiled at level 1 | tile C.local C 1 | "
                         "host C C.local 1 | cache_write C local");
    EXPECT_EQ(cached[3], "C: computed in a local cache, tiled at level 3 | tile C.local C 3 | "
                         "host C C.local 3 | cache_write C local");
}

TEST(SketchRules, TheHostRuleIsNeverTriedOnItsOwn)
{
    for (const StageFacts& f : {kMatmul, kRelu, kNarrowSum}) {
        const std::vector<StageFacts> all{f};
        EXPECT_EQ(rule("host").condition({f, all, {}, {}}), RuleCondition::Pass) << f.name;
    }
}

// Two matmuls in a batch.
const char* kBatchScript = R"(from tvm import te
A = te.placeholder((2, 64, 32), name="A")
B = te.placeholder((2, 32, 48), name="B")
k = te.reduce_axis((0, 32), name="k")
C = te.compute((2, 64, 48), lambda b, i, j: te.sum(A[b, i, k] * B[b, k, j], axis=k), name="C")
s = te.create_schedule(C.op)
)";

TEST(SketchRules, EveryPlanNamesAListedRule)
{
    EvalResult eval = evaluateScript(kBatchScript);
    ASSERT_TRUE(eval.ok) << eval.error.message;
    const auto& rules = sketchRules();
    for (const Sketch& sk : generateSketches(eval.program.variants[0], {}, nullptr)) {
        ASSERT_EQ(sk.plans.size(), sk.facts.size()) << sk.name;
        for (const StagePlan& p : sk.plans)
            EXPECT_NE(std::find(rules.begin(), rules.end(), p.rule), rules.end())
                << sk.name << ": " << p.stage;
        EXPECT_EQ(sk.plans.back().ruleName(), "skip") << sk.name; // a placeholder, made last
    }
    EXPECT_EQ(StagePlan{}.ruleName(), "none");
}

// A rule for an output that is a reduction: its outermost loop parallel, or not, as its one knob
// says. A branch: the rules after it add theirs.
class ParallelOuterRule final : public SketchRule {
public:
    const char* name() const override { return "parallel outer"; }
    RuleCondition condition(const RuleInput& in) const override
    {
        return in.stage.output && in.stage.reduction ? RuleCondition::Apply : RuleCondition::Pass;
    }
    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        return {branch(in.stage.name, in.stage.name + ": outer loop parallel")};
    }
    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts&, const SpaceOptions&) const override
    {
        pl.parallel = sk.addChoice(pl.stage + " parallel outer", KnobRole::Other, {1, 0});
    }
    // Its default and its rank are its own: nothing reads the knob's or the sketch's name.
    void initKnobs(const Sketch& sk, const StagePlan& pl, const SpaceOptions&,
                   Knobs& k) const override
    {
        k[static_cast<std::size_t>(sk.knobs[static_cast<std::size_t>(pl.parallel)].offset)] = 1;
    }
    int defaultRank(const Sketch&, const StagePlan&) const override { return 9; }
    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        const Stage* st = r.stage(pl.stage);
        if (r.choice(pl.parallel, 0) == 0 || !st) return true;
        return r.simpleStep("parallel", pl.stage, {st->leafIterVars.front()->name()});
    }
};

TEST(SketchRules, ARuleAddedToTheListIsTried)
{
    EvalResult eval = evaluateScript(kBatchScript);
    ASSERT_TRUE(eval.ok) << eval.error.message;
    const Variant& v = eval.program.variants[0];
    const SpaceOptions o;
    const ParallelOuterRule added;
    std::vector<const SketchRule*> rules = sketchRules();
    rules.insert(std::find(rules.begin(), rules.end(), &rule("panel")), &added);

    const auto before = generateSketches(v, o, nullptr);
    const auto after = generateSketches(v, o, nullptr, rules);
    // Its branch first, then the panel and tile rules', as before.
    ASSERT_EQ(after.size(), before.size() + 1);
    EXPECT_EQ(after[0].name, "C: outer loop parallel");
    for (std::size_t i = 0; i < before.size(); ++i)
        EXPECT_EQ(after[i + 1].name, before[i].name);

    const Sketch& sk = after[0];
    ASSERT_EQ(sk.knobs.size(), 1u);
    EXPECT_EQ(sk.knobs[0].name, "C parallel outer");
    EXPECT_EQ(sk.plans.front().ruleName(), "parallel outer");
    Realized r = realize(v, sk, {1}, o, true);
    ASSERT_TRUE(r.ok) << r.why;
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].primitive, "parallel");
    EXPECT_EQ(r.steps[0].allLoops(), (std::vector<std::string>{"b"}));
    EXPECT_TRUE(realize(v, sk, {0}, o, true).steps.empty());

    // The rule ranks its sketch first and gives its knob its value; the rules' own defaults
    // do not read names either: renaming every knob and sketch changes neither choice.
    EXPECT_EQ(defaultSketch(after), 0);
    EXPECT_EQ(defaultKnobs(sk, o), (Knobs{1}));
    std::vector<Sketch> renamed = before;
    for (Sketch& s : renamed) {
        s.name = "x";
        for (KnobSpec& k : s.knobs)
            k.name = "y";
    }
    EXPECT_EQ(defaultSketch(renamed), defaultSketch(before));
    for (std::size_t i = 0; i < before.size(); ++i)
        EXPECT_EQ(defaultKnobs(renamed[i], o), defaultKnobs(before[i], o)) << before[i].name;
}

// A list whose rules all pass leaves every stage as it is: one sketch, no knobs, no steps.
TEST(SketchRules, AStageNoRuleTakesIsLeftAsItIs)
{
    EvalResult eval = evaluateScript(kBatchScript);
    ASSERT_TRUE(eval.ok) << eval.error.message;
    const Variant& v = eval.program.variants[0];
    const auto sketches = generateSketches(v, {}, nullptr, {&rule("host")});
    ASSERT_EQ(sketches.size(), 1u);
    EXPECT_EQ(sketches[0].name, "annotations only");
    EXPECT_EQ(sketches[0].knobCount, 0);
    for (const StagePlan& p : sketches[0].plans)
        EXPECT_EQ(p.ruleName(), "skip");
    Realized r = realize(v, sketches[0], {}, {}, true);
    EXPECT_TRUE(r.ok) << r.why;
    EXPECT_TRUE(r.steps.empty());
}

} // namespace

namespace {

// The int8 ladder's computation (TOPI's packed weights): the int8 rule's sketch is among the
// others where this machine has one of TOPI's intrinsics in the weights' lanes, and its
// candidate tensorizes the lanes with it.
TEST(SketchRules, AnInt8DotProductIsTensorizedWithTopisIntrinsic)
{
    EvalResult eval = evaluateScript(readSourceFile("samples/int8_matmul_ladder.py"),
                                     {{"M", 64}, {"N", 64}, {"K", 64}});
    ASSERT_TRUE(eval.ok) << eval.error.message;
    const Variant& naive = *eval.program.findVariant("naive");
    const std::vector<Sketch> sketches = generateSketches(naive, {}, nullptr);
    ASSERT_FALSE(sketches.empty());
    const StageFacts* c = sketches.front().factsOf("C");
    ASSERT_NE(c, nullptr);
    EXPECT_GT(c->int8DotLanes, 0);
    const auto int8 = std::find_if(sketches.begin(), sketches.end(), [](const Sketch& sk) {
        return sk.name.find("int8 dot products") != std::string::npos;
    });
    ASSERT_NE(int8, sketches.end());
    EXPECT_EQ(int8->plans.front().ruleName(), "int8-dot");
    // Its default candidate: TOPI's intrinsic on the lanes, written as a script calls it.
    const Realized r = realize(naive, *int8, defaultKnobs(*int8, {}), {}, true);
    ASSERT_TRUE(r.ok) << r.why;
    std::string text;
    for (const std::string& st : r.statements)
        text += st + "\n";
    EXPECT_NE(
        text.find("s[C].tensorize(j_i, tvm.topi.x86.tensor_intrin.dot_16x1x16_uint8_int8_int32_"),
        std::string::npos)
        << text;
    EXPECT_EQ(defaultSketch(sketches), static_cast<int>(int8 - sketches.begin()));
    // The search lowers it and reads its features, as any candidate.
    const FeatureRows rows = extractFeatures(lowerStructure(r.schedule));
    EXPECT_GT(rows.rows, 0);

    // TOPI's int8 convolution (the blocks as axes of their own, three more reductions): the
    // pixels in registers, the reductions outside the tensorized output channels.
    EvalResult conv = evaluateScript(readSourceFile("samples/int8_conv2d_nchwc.py"),
                                     {{"in_channel", 16}, {"out_channel", 32}, {"in_size", 14}});
    ASSERT_TRUE(conv.ok) << conv.error.message;
    const Variant& start = *conv.program.findVariant("naive");
    const std::vector<Sketch> convSketches = generateSketches(start, {}, nullptr);
    const Sketch& best = convSketches[static_cast<std::size_t>(defaultSketch(convSketches))];
    EXPECT_EQ(best.plans.front().ruleName(), "int8-dot") << best.name;
    const Realized rc = realize(start, best, defaultKnobs(best, {}), {}, true);
    ASSERT_TRUE(rc.ok) << rc.why;
    text.clear();
    for (const std::string& st : rc.statements)
        text += st + "\n";
    EXPECT_NE(text.find("s[Y].reorder(n, occ, y, x_o, ico, ry, rx, x_i, ocb, ici)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("s[Y].tensorize(ocb, "), std::string::npos) << text;
}

} // namespace
