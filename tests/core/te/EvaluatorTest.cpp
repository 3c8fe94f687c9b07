// What evaluating a script yields: parameters, variants with their names, steps and arguments.
#include "te/Program.h"

#include <gtest/gtest.h>

using namespace loopscope;

namespace {

const char* kHeader = R"(import tvm
from tvm import te
)";

EvalResult eval(const std::string& body, std::map<std::string, std::int64_t> sets = {})
{
    return evaluateScript(kHeader + body, sets);
}

TEST(Evaluator, ChainedAndTupleAssignmentsAreParameters)
{
    EvalResult r = eval("M = K = 64\nN, P = 32, 16\n", {{"N", 8}});
    ASSERT_TRUE(r.ok) << r.error.message;
    ASSERT_EQ(r.program.parameters.size(), 4u);
    EXPECT_EQ(r.program.findParameter("M")->value, 64);
    EXPECT_EQ(r.program.findParameter("K")->value, 64);
    EXPECT_EQ(r.program.findParameter("N")->value, 8);
    EXPECT_TRUE(r.program.findParameter("N")->overridden);
    EXPECT_EQ(r.program.findParameter("P")->value, 16);
}

TEST(Evaluator, SetRebindsEveryUseOfAParameter)
{
    EvalResult r = eval("N = 64\nA = te.placeholder((N,), name=\"A\")\nB = te.compute((N,), lambda "
                        "i: A[i] * 2, name=\"B\")\n"
                        "s = te.create_schedule(B.op)\n",
                        {{"N", 10}});
    ASSERT_TRUE(r.ok) << r.error.message;
    EXPECT_EQ(constIntOr(r.program.variants[0].args[1]->shape[0], -1), 10);
}

TEST(Evaluator, VariantsAreNamedByTheirComment)
{
    EvalResult r = eval("A = te.placeholder((8,), name=\"A\")\nB = te.compute((8,), lambda i: A[i] "
                        "+ 1, name=\"B\")\n"
                        "# variant: first try\n# explanation of it\ns = te.create_schedule(B.op)\n"
                        "s2 = te.create_schedule(B.op)\n"
                        "s2 = te.create_schedule(B.op)\n");
    ASSERT_TRUE(r.ok) << r.error.message;
    ASSERT_EQ(r.program.variants.size(), 3u);
    EXPECT_EQ(r.program.variants[0].name, "first try");
    EXPECT_EQ(r.program.variants[1].name, "s2");
    EXPECT_EQ(r.program.variants[2].name, "s2_2");
}

TEST(Evaluator, TheScheduleStatementsEndBeforeTrailingLowering)
{
    // Line 3 on (after the header's two lines).
    EvalResult r = eval(R"(A = te.placeholder((64,), name="A")
B = te.compute((64,), lambda i: A[i] * 2, name="B")
s = te.create_schedule(B.op)
(i,) = s[B].op.axis
io, ii = s[B].split(i, factor=8)
print(tvm.lower(s, [A, B], simple_mode=True))
f = tvm.build(s, [A, B])
)");
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    EXPECT_EQ(v.scheduleEndLine, 7);
    EXPECT_EQ(v.lastLine, 9);
}

TEST(Evaluator, StepsKeepTheirStatementsAndSnapshots)
{
    EvalResult r = eval("A = te.placeholder((64,), name=\"A\")\nB = te.compute((64,), lambda i: "
                        "A[i] + 1, name=\"B\")\n"
                        "s = te.create_schedule(B.op)\nxo, xi = s[B].split(B.op.axis[0], "
                        "factor=8)\ns[B].vectorize(xi)\n");
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants[0];
    ASSERT_EQ(v.steps.size(), 2u);
    EXPECT_EQ(v.steps[0].primitive, "split");
    EXPECT_EQ(v.steps[0].text, "xo, xi = s[B].split(B.op.axis[0], factor=8)");
    EXPECT_EQ(v.steps[0].loc.line, 6);
    EXPECT_EQ(v.steps[1].primitive, "vectorize");
    EXPECT_EQ(v.snapshots.size(), 3u);
    EXPECT_EQ(v.snapshots[0].stages().back().leafIterVars.size(), 1u);
    EXPECT_EQ(v.snapshots[1].stages().back().leafIterVars.size(), 2u);
    EXPECT_EQ(v.scheduleVar, "s");
    EXPECT_EQ(v.axisVars.at("xo"), "i.outer");
    EXPECT_EQ(v.tensorVars.at("B"), "B");
}

TEST(Evaluator, ArgumentsComeFromBuildOrDefaultToInputsThenOutputs)
{
    EvalResult r =
        eval("A = te.placeholder((8,), name=\"A\")\nB = te.placeholder((8,), name=\"B\")\n"
             "C = te.compute((8,), lambda i: A[i] + B[i], name=\"C\")\n"
             "s = te.create_schedule(C.op)\n"
             "t = te.create_schedule(C.op)\nf = tvm.build(t, [C, B, A], target=\"llvm\", "
             "name=\"add\")\n");
    ASSERT_TRUE(r.ok) << r.error.message;
    auto names = [](const Variant& v) {
        std::string s;
        for (auto& a : v.args)
            s += a->name;
        return s;
    };
    EXPECT_EQ(names(r.program.variants[0]), "ABC");
    EXPECT_EQ(names(r.program.variants[1]), "CBA");
    EXPECT_EQ(r.program.variants[1].funcName, "add");
}

TEST(Evaluator, VariantsBeforeAMistakeStayUsable)
{
    EvalResult r = eval("A = te.placeholder((8,), name=\"A\")\nB = te.compute((8,), lambda i: A[i] "
                        "+ 1, name=\"B\")\n"
                        "s = te.create_schedule(B.op)\nx = nope\n");
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error.loc.line, 6);
    ASSERT_EQ(r.program.variants.size(), 1u);
    EXPECT_EQ(r.program.variants[0].args.size(), 2u);
}

// A chain of `computes` stages (T0 reads the placeholder, each next one its predecessor), its
// schedule, and the first `inlined` of them inlined one statement at a time.
std::string chain(int computes, int inlined)
{
    std::string s = "A = te.placeholder((8,), name=\"A\")\n"
                    "T0 = te.compute((8,), lambda i: A[i] + 1.0, name=\"T0\")\n";
    for (int k = 1; k < computes; ++k) {
        s += "T" + std::to_string(k) + " = te.compute((8,), lambda i: T" + std::to_string(k - 1) +
             "[i] * 2.0, name=\"T" + std::to_string(k) + "\")\n";
    }
    s += "s = te.create_schedule(T" + std::to_string(computes - 1) + ".op)\n";
    for (int k = 0; k < inlined; ++k)
        s += "s[T" + std::to_string(k) + "].compute_inline()\n";
    return s;
}

// The stages of one schedule are bounded (1,000 computed stages), at create_schedule's line.
TEST(EvaluatorLimits, StagesPerScheduleJustUnderAndOver)
{
    EXPECT_TRUE(eval(chain(1000, 0)).ok);
    EvalResult over = eval(chain(1001, 0));
    ASSERT_FALSE(over.ok);
    EXPECT_EQ(over.error.loc.line, 2 + 1 + 1001 + 1);
    EXPECT_EQ(over.error.message,
              "this schedule would compute 1001 stages; at most 1000 are supported in one kernel");
}

// A copy of the schedule is kept after every step: the script's copies are bounded (500,000
// stages), at the step that passes the bound. 1,000 computes and the placeholder are 1,001
// stages a copy: the schedule and 498 steps keep 499,499 of them, a 499th step 500,500.
TEST(EvaluatorLimits, StageCopiesJustUnderAndOver)
{
    EXPECT_TRUE(eval(chain(1000, 498)).ok);
    EvalResult over = eval(chain(1000, 499));
    ASSERT_FALSE(over.ok);
    EXPECT_EQ(over.error.loc.line, 2 + 1 + 1000 + 1 + 499);
    EXPECT_NE(over.error.message.find("would keep more than 500000 stages"), std::string::npos)
        << over.error.message;
}

// 3,000 splits chained on one axis, as a script can write them: evaluated in linear time (the
// names each variant records were read after every statement, and every step's schedule copied
// the stage's whole history twice), every step kept, the last names as the last statement left
// them. `loopscope-cli check` of this took 42 s; the suite's time limit keeps it from coming back.
TEST(EvaluatorLimits, ThreeThousandChainedSplits)
{
    std::string s = "A = te.placeholder((1024,), name=\"A\")\n"
                    "B = te.compute((1024,), lambda i: A[i] + 1.0, name=\"B\")\n"
                    "s = te.create_schedule(B.op)\n"
                    "x0 = B.op.axis[0]\n";
    for (int k = 1; k <= 3000; ++k)
        s += "x" + std::to_string(k) + "o, x" + std::to_string(k) + " = s[B].split(x" +
             std::to_string(k - 1) + ", factor=1)\n";
    EvalResult r = eval(s);
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& v = r.program.variants.front();
    ASSERT_EQ(v.steps.size(), 3000u);
    ASSERT_EQ(v.snapshots.size(), 3001u);
    const Stage* b = v.schedule().find(r.program.tensors[1]);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->leafIterVars.size(), 3001u);
    EXPECT_EQ(b->relations.size(), 3000u);
    EXPECT_EQ(b->allIterVars.size(), 6001u);
    // Each snapshot has its own history: the 10th step's stage, 10 splits.
    EXPECT_EQ(v.snapshots[10].find(r.program.tensors[1])->relations.size(), 10u);
    EXPECT_EQ(v.axisVars.count("x3000"), 1u);
    EXPECT_EQ(v.axisVars.count("x1500o"), 1u);
}

// A variant's names are the script's after the variant's last statement: a name rebound later,
// by a statement of another variant or none, keeps what it held for the variant.
TEST(Evaluator, AVariantsNamesAreThoseAfterItsLastStatement)
{
    EvalResult r = eval("A = te.placeholder((8,), name=\"A\")\n"
                        "B = te.compute((8,), lambda i: A[i] + 1, name=\"B\")\n"
                        "s = te.create_schedule(B.op)\n"
                        "xo, xi = s[B].split(B.op.axis[0], factor=4)\n"
                        "t = te.create_schedule(B.op)\n"
                        "yo, yi = t[B].split(B.op.axis[0], factor=2)\n"
                        "xo = 5\n"
                        "s[B].vectorize(xi)\n"
                        "yo = 6\n");
    ASSERT_TRUE(r.ok) << r.error.message;
    const Variant& s = r.program.variants[0];
    const Variant& t = r.program.variants[1];
    // s's last statement is the vectorize, after `xo = 5`: xo no longer holds an axis there.
    EXPECT_EQ(s.axisVars.count("xo"), 0u);
    EXPECT_EQ(s.axisVars.at("xi"), "i.inner");
    // t's last statement is its split, before both rebindings: yo and xo still hold axes.
    EXPECT_EQ(t.axisVars.at("yo"), "i.outer");
    EXPECT_EQ(t.axisVars.at("xo"), "i.outer");
    EXPECT_EQ(t.axisVars.count("yi"), 1u);
    // A mistake: the variants keep the names bound before the statement that failed.
    EvalResult bad = eval("A = te.placeholder((8,), name=\"A\")\n"
                          "B = te.compute((8,), lambda i: A[i] + 1, name=\"B\")\n"
                          "s = te.create_schedule(B.op)\n"
                          "xo, xi = s[B].split(B.op.axis[0], factor=4)\n"
                          "xo, xi = s[B].split(xo, factor=nope)\n");
    ASSERT_FALSE(bad.ok);
    EXPECT_EQ(bad.program.variants[0].axisVars.at("xo"), "i.outer");
    EXPECT_EQ(bad.program.variants[0].axisVars.at("xi"), "i.inner");
}

// Script integers are 64-bit: the largest results fit, one step past them is an error at the
// operator (found by the script fuzzer: 2**7484672 multiplied past 64 bits, undefined behaviour).
TEST(EvaluatorLimits, IntegerArithmeticJustUnderAndOver64Bits)
{
    EXPECT_EQ(eval("N = 2 ** 62 + (2 ** 62 - 1)\nA = te.placeholder((1,), name=\"A\")\n").ok, true);
    for (const char* over : {"2 ** 63", "2 ** 62 + 2 ** 62", "3 << 62", "-(2 ** 62) * 2 - 1",
                             "(-(2 ** 62) * 2) // -1", "2 ** 7484672"}) {
        EvalResult r = eval(std::string("N = ") + over + "\n");
        EXPECT_FALSE(r.ok) << over;
        EXPECT_EQ(r.error.loc.line, 3) << over;
        EXPECT_NE(r.error.message.find("does not fit in 64 bits"), std::string::npos)
            << over << ": " << r.error.message;
    }
}

// Through variables, a script can build an expression over many statements: bounded where it
// is named, just under and over 1,000 levels and 200,000 nodes.
TEST(EvaluatorLimits, ExpressionsBuiltThroughVariablesJustUnderAndOver)
{
    auto chain = [](int statements) {
        std::string s = "x = te.var(\"x\")\ny = x\n";
        for (int k = 0; k < statements; ++k)
            s += "y = y + 1\n";
        return s;
    };
    EXPECT_TRUE(eval(chain(999)).ok); // depth 1000
    EvalResult deep = eval(chain(1000));
    ASSERT_FALSE(deep.ok);
    EXPECT_EQ(deep.error.loc.line, 2 + 2 + 1000);
    EXPECT_EQ(deep.error.message, "this expression is nested more than 1000 levels deep; split "
                                  "it into several stages");
    // y * y doubles the tree: 2^k + 2^(k-1) + ... nodes after k statements (131,071 after 16).
    auto doubling = [](int statements) {
        std::string s = "x = te.var(\"x\")\ny = x\n";
        for (int k = 0; k < statements; ++k)
            s += "y = y * y\n";
        return s;
    };
    EXPECT_TRUE(eval(doubling(16)).ok);
    EvalResult large = eval(doubling(17));
    ASSERT_FALSE(large.ok);
    EXPECT_EQ(large.error.message,
              "this expression has 2.62e+05 nodes; at most 200000 are supported: split it into "
              "several stages");
}

} // namespace

namespace {

// A plain function as TVM's tensor intrinsics are written: parameters with defaults, nested
// functions that read their maker's names, if/elif/else, early returns and tuples returned.
TEST(EvaluatorFunctions, NestedFunctionsIfAndReturnAsTopiWritesThem)
{
    EvalResult r = eval(R"(def make(n, scale=2):
    base = n * scale
    def pick(index):
        if index == 0:
            return base
        elif index == 1:
            return base + 1
        else:
            pass
        return base + 2
    return pick(0), pick(1), pick(2)

a, b, c = make(4)
A = te.placeholder((a + b + c,), name="A")
B = te.compute(A.shape, lambda i: A[i] * 2, name="B")
s = te.create_schedule(B.op)
)");
    ASSERT_TRUE(r.ok) << r.error.message;
    // 8 + 9 + 10
    EXPECT_EQ(constIntOr(r.program.variants[0].args[0]->shape[0], -1), 27);
}

TEST(EvaluatorFunctions, LocalNamesDoNotOutliveTheCall)
{
    EvalResult r = eval("def f():\n    inner = 1\n    return inner\nx = f()\ny = inner\n");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.loc.line, 7);
    EXPECT_EQ(r.error.message, "name 'inner' is not defined");
}

TEST(EvaluatorFunctions, MistakesAreLocatedInsideTheFunction)
{
    EvalResult r =
        eval("def f(n):\n    if n:\n        return undefined_name\n    return 0\nx = f(1)\n");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.loc.line, 5);
    EXPECT_EQ(r.error.loc.col, 16);

    r = eval("def f(n):\n    return n\nx = f(1, 2)\n");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.message, "f() takes at most 1 positional argument but 2 were given");

    r = eval("def f(n):\n    return f(n)\nx = f(1)\n");
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.message.find("functions call each other more than 100 deep"),
              std::string::npos)
        << r.error.message;

    r = eval("n = te.var(\"n\")\nif n > 2:\n    pass\n");
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error.loc.line, 4);
    EXPECT_NE(r.error.message.find("known only when it runs"), std::string::npos);
}

} // namespace
