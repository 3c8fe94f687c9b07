// The one statement writer (te/StepWriter.h): a catalogue step written in a script's own names,
// binding the loops that have no variable, refusing what core or the names refuse without a
// trace, and statements that evaluate back to the schedule the writer built.
#include "te/StepWriter.h"

#include <gtest/gtest.h>

using namespace loopscope;

namespace {

const char* kMatmul = R"(from tvm import te
A = te.placeholder((64, 32), name="A")
B = te.placeholder((32, 48), name="B")
k = te.reduce_axis((0, 32), name="k")
C = te.compute((64, 48), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
D = te.compute((64, 48), lambda i, j: C[i, j] + 1.0, name="D")
s = te.create_schedule(D.op)
)";

Variant variantOf(const std::string& script)
{
    EvalResult e = evaluateScript(script);
    EXPECT_TRUE(e.ok) << e.error.message;
    return e.ok ? e.program.variants.back() : Variant{};
}

// A writer after the script's last variant, in its names as `edit` leaves them.
StepWriter writerFor(const std::string& script, void (*edit)(ScriptNames&) = nullptr,
                     bool write = true)
{
    Variant v = variantOf(script);
    ScriptNames names = scriptNames(v);
    if (edit) edit(names);
    return StepWriter(v.schedule(), names, write);
}

ScheduleStep step(const Schedule& sch, const std::string& primitive, const std::string& stage)
{
    const Stage* st = findStage(sch, stage);
    EXPECT_NE(st, nullptr) << stage;
    return makeStep(*findPrimitive(primitive), st->op);
}

IterVar loop(const Schedule& sch, const std::string& stage, const std::string& axis)
{
    IterVar iv = findAxis(*findStage(sch, stage), axis);
    EXPECT_NE(iv, nullptr) << stage << "." << axis;
    return iv;
}

ScheduleStep split(const Schedule& sch, const std::string& stage, const std::string& axis,
                   std::int64_t factor)
{
    ScheduleStep s = step(sch, "split", stage);
    s.arg("parent") = {true, {loop(sch, stage, axis)}};
    s.arg("factor").given = true;
    s.arg("factor").number = factor;
    return s;
}

ScheduleStep onLoop(const Schedule& sch, const std::string& primitive, const std::string& stage,
                    const std::string& axis)
{
    ScheduleStep s = step(sch, primitive, stage);
    s.arg("var") = {true, {loop(sch, stage, axis)}};
    return s;
}

std::string joined(const std::vector<std::string>& lines)
{
    std::string out;
    for (auto& l : lines)
        out += l + "\n";
    return out;
}

// The leaves of every stage, by name: what two schedules must agree on.
std::string loops(const Schedule& sch)
{
    std::string out;
    for (const Stage& st : sch.stages()) {
        out += st.name() + ":";
        for (auto& iv : st.leafIterVars)
            out += " " + iv->name();
        out += "\n";
    }
    return out;
}

// The script with the writer's statements appended evaluates to the writer's schedule.
void expectEvaluatesToTheSame(const std::string& script, const StepWriter& w)
{
    std::string whole = script + joined(w.statements());
    EvalResult e = evaluateScript(whole);
    ASSERT_TRUE(e.ok) << e.error.message << "\n" << whole;
    EXPECT_EQ(loops(e.program.variants.back().schedule()), loops(w.schedule())) << whole;
}

} // namespace

TEST(StepWriter, UniqueNameTakesTheFirstFreeSuffix)
{
    EXPECT_EQ(uniqueName("io", {}), "io");
    EXPECT_EQ(uniqueName("io", {"io", "io_1"}), "io_2");
}

TEST(StepWriter, FindsStagesAndAxesByName)
{
    Variant v = variantOf(std::string(kMatmul) + "io, ii = s[C].split(C.op.axis[0], factor=8)\n");
    const Schedule& sch = v.schedule();
    ASSERT_NE(findStage(sch, "C"), nullptr);
    EXPECT_EQ(findStage(sch, "E"), nullptr);
    const Stage& c = *findStage(sch, "C");
    EXPECT_GE(c.leafIndex(findAxis(c, "i.outer")), 0);
    IterVar i = findAxis(c, "i"); // split: no longer a loop, still an axis of the stage
    ASSERT_NE(i, nullptr);
    EXPECT_LT(c.leafIndex(i), 0);
    EXPECT_EQ(findAxis(c, "nope"), nullptr);
}

TEST(StepWriter, ScriptNamesOfAVariant)
{
    Variant v = variantOf(std::string(kMatmul) + "E = C\ni, j = s[C].op.axis\n");
    ScriptNames n = scriptNames(v);
    EXPECT_EQ(n.scheduleVar, "s");
    EXPECT_EQ(n.tensorVars["C"], "C"); // of C and E, the first in name order
    EXPECT_EQ(n.axisVars["C"]["j"], "j");
    EXPECT_TRUE(n.used.count("E"));
    EXPECT_TRUE(n.used.count("k"));
}

TEST(StepWriter, WritesInTheScriptsNamesAndNamesResultsAfterTheLoops)
{
    const std::string script = std::string(kMatmul) + "i, j = s[C].op.axis\n";
    StepWriter w = writerFor(script);
    ASSERT_TRUE(w.apply(split(w.schedule(), "C", "j", 8))) << w.why();
    EXPECT_EQ(joined(w.statements()), "j_outer, j_inner = s[C].split(j, factor=8)\n");
    ASSERT_TRUE(w.apply(onLoop(w.schedule(), "vectorize", "C", "j.inner"))) << w.why();
    EXPECT_EQ(w.statements().back(), "s[C].vectorize(j_inner)");
    ASSERT_EQ(w.lastOutput().axes.size(), 0u);
    expectEvaluatesToTheSame(script, w);
}

TEST(StepWriter, BindsARootAxisWithItsSiblings)
{
    // j is taken elsewhere in the script.
    StepWriter w = writerFor(kMatmul, [](ScriptNames& n) { n.used.insert("j"); });
    ASSERT_TRUE(w.apply(split(w.schedule(), "C", "i", 16))) << w.why();
    ASSERT_TRUE(w.apply(onLoop(w.schedule(), "parallel", "C", "j"))) << w.why();
    EXPECT_EQ(joined(w.statements()), "i, j_1 = s[C].op.axis\n"
                                      "i_outer, i_inner = s[C].split(i, factor=16)\n"
                                      "s[C].parallel(j_1)\n");
    expectEvaluatesToTheSame(kMatmul, w);
}

TEST(StepWriter, BindsAReductionAxisFromReduceAxis)
{
    // As if the script held k in no variable.
    StepWriter w = writerFor(kMatmul, [](ScriptNames& n) { n.axisVars.clear(); });
    ASSERT_TRUE(w.apply(split(w.schedule(), "C", "k", 4))) << w.why();
    EXPECT_EQ(joined(w.statements()), "(k_1,) = s[C].op.reduce_axis\n"
                                      "k_outer, k_inner = s[C].split(k_1, factor=4)\n");
    expectEvaluatesToTheSame(kMatmul, w);
}

TEST(StepWriter, BindsALoopWithoutAVariableByItsPosition)
{
    // The split's results are bound to nothing the names know.
    const std::string script = std::string(kMatmul) + "s[C].split(C.op.axis[1], factor=8)\n";
    StepWriter w = writerFor(script);
    ASSERT_TRUE(w.apply(onLoop(w.schedule(), "vectorize", "C", "j.inner"))) << w.why();
    EXPECT_EQ(joined(w.statements()), "j_inner = s[C].leaf_iter_vars[2]\n"
                                      "s[C].vectorize(j_inner)\n");
    expectEvaluatesToTheSame(script, w);
}

TEST(StepWriter, ComputeAtNamesTheConsumersLoop)
{
    StepWriter w = writerFor(kMatmul);
    const Schedule& sch = w.schedule();
    ScheduleStep at = step(sch, "compute_at", "C");
    at.arg("parent") = {true, {}, 0, {}, {findStage(sch, "D")->op}};
    at.arg("scope") = {true, {loop(sch, "D", "i")}};
    ASSERT_TRUE(w.apply(at)) << w.why();
    EXPECT_EQ(joined(w.statements()), "i, j = s[D].op.axis\n"
                                      "s[C].compute_at(s[D], i)\n");
    expectEvaluatesToTheSame(kMatmul, w);
}

TEST(StepWriter, ScheduleLevelPrimitivesBindTheirTensor)
{
    StepWriter w = writerFor(kMatmul);
    ScheduleStep cw = step(w.schedule(), "cache_write", "C");
    cw.arg("tensor") = {true, {}, 0, {}, {findStage(w.schedule(), "C")->op}};
    cw.arg("scope") = {true, {}, 0, "local"};
    ASSERT_TRUE(w.apply(cw)) << w.why();
    EXPECT_EQ(w.statements().back(), "C_local = s.cache_write(C, \"local\")");
    // The cache is named by its new variable from then on.
    ASSERT_TRUE(w.apply(split(w.schedule(), "C.local", "i.c", 4))) << w.why();
    EXPECT_EQ(w.statements().back().substr(w.statements().back().find('=')),
              "= s[C_local].split(i_c, factor=4)");
    expectEvaluatesToTheSame(kMatmul, w);
}

TEST(StepWriter, ResultNamesGivenByTheCallerAndFreedByTheLoopsTheyReplace)
{
    const std::string script = std::string(kMatmul) + "i, j = s[C].op.axis\n";
    StepWriter w = writerFor(script);
    auto named = [](std::vector<std::string> n) {
        return [n](const std::vector<PrintedArg>&) { return n; };
    };
    ASSERT_TRUE(w.apply(split(w.schedule(), "C", "i", 16), named({"i_0", "i_1"})));
    // i_1 is split in turn: its name is free for the new inner loop.
    ASSERT_TRUE(w.apply(split(w.schedule(), "C", "i.inner", 4), named({"i_1", "i_2"})));
    ASSERT_TRUE(w.apply(split(w.schedule(), "C", "j", 8), named({"i_0"}))); // taken: i_0_1
    EXPECT_EQ(joined(w.statements()), "i_0, i_1 = s[C].split(i, factor=16)\n"
                                      "i_1, i_2 = s[C].split(i_1, factor=4)\n"
                                      "i_0_1, j_inner = s[C].split(j, factor=8)\n");
    expectEvaluatesToTheSame(script, w);
}

TEST(StepWriter, CoresRefusalLeavesEverythingAsItWas)
{
    StepWriter w = writerFor(kMatmul);
    const std::string before = loops(w.schedule());
    EXPECT_FALSE(w.apply(onLoop(w.schedule(), "vectorize", "C", "k")));
    EXPECT_NE(w.why().find("cannot vectorize reduction axis 'k'"), std::string::npos) << w.why();
    EXPECT_TRUE(w.statements().empty());
    EXPECT_EQ(loops(w.schedule()), before);
    // The binding the refused step would have needed was not kept either.
    ASSERT_TRUE(w.apply(onLoop(w.schedule(), "parallel", "C", "i"))) << w.why();
    EXPECT_EQ(joined(w.statements()), "i, j = s[C].op.axis\ns[C].parallel(i)\n");
}

TEST(StepWriter, AStageWithoutAVariableIsRefusedAfterCore)
{
    StepWriter w = writerFor(kMatmul, [](ScriptNames& n) { n.tensorVars.erase("C"); });
    const std::string before = loops(w.schedule());
    EXPECT_FALSE(w.apply(split(w.schedule(), "C", "k", 4)));
    EXPECT_EQ(w.why(),
              "tensor 'C' has no script variable, so the script cannot refer to its stage");
    EXPECT_TRUE(w.statements().empty());
    EXPECT_EQ(loops(w.schedule()), before);
    // What core refuses is said first.
    EXPECT_FALSE(w.apply(onLoop(w.schedule(), "vectorize", "C", "k")));
    EXPECT_NE(w.why().find("cannot vectorize reduction axis"), std::string::npos) << w.why();
}

TEST(StepWriter, WithoutWritingOnlyApplies)
{
    // Nothing could be named; nothing needs to be.
    StepWriter w = writerFor(
        kMatmul, [](ScriptNames& n) { n.tensorVars.clear(); }, false);
    ASSERT_TRUE(w.apply(split(w.schedule(), "C", "i", 8))) << w.why();
    EXPECT_TRUE(w.statements().empty());
    ASSERT_EQ(w.lastOutput().axes.size(), 2u);
    EXPECT_EQ(w.lastOutput().axes[0]->name(), "i.outer");
}
