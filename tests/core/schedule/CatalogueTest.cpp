// The primitive catalogue: every entry's example runs in a script, signatures read as TVM's,
// statements print as TVM writes them, and a step applies to a copy (never to the original).
#include "schedule/Primitives.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <set>

namespace loopscope {
namespace {

TEST(Catalogue, EveryExampleRunsAndRecordsItsStep)
{
    ASSERT_FALSE(primitiveCatalogue().empty());
    for (const PrimitiveSpec& p : primitiveCatalogue()) {
        SCOPED_TRACE(p.name);
        EvalResult r = evaluateScript(exampleScript(p));
        ASSERT_TRUE(r.ok) << r.error.loc.line << ": " << r.error.message;
        ASSERT_EQ(r.program.variants.size(), 1u);
        const Variant& v = r.program.variants.front();
        ASSERT_FALSE(v.steps.empty());
        EXPECT_EQ(v.steps.back().primitive, p.name);
        EXPECT_FALSE(p.help.empty());
        EXPECT_EQ(p.help.find('\n'), std::string::npos) << "help is one line";
    }
}

TEST(Catalogue, NamesAreUniqueAndFound)
{
    std::set<std::string> names;
    for (const PrimitiveSpec& p : primitiveCatalogue()) {
        EXPECT_TRUE(names.insert(p.name).second) << p.name;
        EXPECT_EQ(findPrimitive(p.name), &p);
        EXPECT_TRUE(p.apply) << p.name;
        EXPECT_EQ(p.results.empty(), p.resultNames == nullptr) << p.name;
    }
    EXPECT_EQ(findPrimitive("tensorize")->signature(), "tensorize(var, tensor_intrin)");
}

TEST(Catalogue, SignaturesReadAsTvms)
{
    EXPECT_EQ(findPrimitive("split")->signature(),
              "split(parent, factor=None, nparts=None, disable_predication=False)");
    EXPECT_EQ(findPrimitive("fuse")->signature(), "fuse(*args)");
    EXPECT_EQ(findPrimitive("rfactor")->signature(), "rfactor(tensor, axis, factor_axis=0)");
    EXPECT_EQ(findPrimitive("compute_inline")->signature(), "compute_inline()");
    EXPECT_EQ(findPrimitive("pragma")->signature(), "pragma(var, pragma_type, pragma_value=None)");
}

TEST(Catalogue, StatementsPrintAsTvmWritesThem)
{
    using V = std::vector<std::string>;
    EXPECT_EQ(
        printStatement(*findPrimitive("split"), "s", "C", {V{"x"}, V{"8"}, {}, {}}, {"xo", "xi"}),
        "xo, xi = s[C].split(x, factor=8)");
    EXPECT_EQ(printStatement(*findPrimitive("tile"), "s", "C", {V{"x"}, V{"y"}, V{"4"}, V{"8"}},
                             {"a", "b", "c", "d"}),
              "a, b, c, d = s[C].tile(x, y, x_factor=4, y_factor=8)");
    EXPECT_EQ(printStatement(*findPrimitive("reorder"), "sch", "T", {V{"a", "b", "c"}}),
              "sch[T].reorder(a, b, c)");
    EXPECT_EQ(printStatement(*findPrimitive("pragma"), "s", "C", {V{"x"}, V{"unroll"}, {}}),
              "s[C].pragma(x, \"unroll\")");
    EXPECT_EQ(printStatement(*findPrimitive("compute_at"), "s", "A", {V{"C"}, V{"yo"}}),
              "s[A].compute_at(s[C], yo)");
    EXPECT_EQ(printStatement(*findPrimitive("cache_read"), "s", "",
                             {V{"A"}, V{"shared"}, V{"B", "C"}}, {"AS"}),
              "AS = s.cache_read(A, \"shared\", [B, C])");
    EXPECT_EQ(printStatement(*findPrimitive("bind"), "s", "C", {V{"x"}, V{"threadIdx.x"}}),
              "s[C].bind(x, te.thread_axis(\"threadIdx.x\"))");
    EXPECT_EQ(printStatement(*findPrimitive("rfactor"), "s", "", {V{"C"}, V{"ki"}, V{"1"}}, {"CF"}),
              "CF = s.rfactor(C, ki, factor_axis=1)");
}

TEST(Catalogue, AStepAppliesToACopyOrSaysWhyNot)
{
    EvalResult r = evaluateScript(exampleScript(*findPrimitive("split"), false));
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    const Schedule& original = v.schedule();
    Tensor c = r.program.tensors[3];
    ASSERT_EQ(c->name, "C");
    const Stage* st = original.find(c);
    ASSERT_TRUE(st);
    const std::size_t loops = st->leafIterVars.size();

    ScheduleStep split = makeStep(*findPrimitive("split"), c);
    split.arg("parent") = {true, {st->leafIterVars[0]}, 0, {}, {}, {}};
    split.arg("factor") = {true, {}, 16, {}, {}, {}};
    AppliedStep ok = applyToCopy(original, split);
    ASSERT_TRUE(ok.ok()) << ok.error->message();
    EXPECT_EQ(ok.output.axes.size(), 2u);
    EXPECT_EQ(ok.schedule.find(c)->leafIterVars.size(), loops + 1);
    EXPECT_EQ(original.find(c)->leafIterVars.size(), loops) << "the original is untouched";

    // Vectorizing the reduction axis is refused, naming the argument.
    ScheduleStep vec = makeStep(*findPrimitive("vectorize"), c);
    vec.arg("var") = {true, {st->leafIterVars.back()}, 0, {}, {}, {}};
    AppliedStep refused = applyToCopy(original, vec);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error->message().find("cannot vectorize reduction axis"), std::string::npos);
    EXPECT_EQ(refused.error->argument(), 0);

    // Both factor and nparts: refused for the call as a whole.
    split.arg("nparts") = {true, {}, 2, {}, {}, {}};
    AppliedStep both = applyToCopy(original, split);
    ASSERT_FALSE(both.ok());
    EXPECT_EQ(both.error->message(), "give either factor= or nparts= to split, not both");
}

} // namespace
} // namespace loopscope
