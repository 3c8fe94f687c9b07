// ScheduleOps: the first loop program of a schedule (loop nests, realize placement, guards).
#include "lower/ScheduleOps.h"

#include "ir/Limits.h"
#include "ir/Printer.h"
#include "te/Program.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace loopscope {
namespace {

// A -> B = A + 1 -> C = B * 2, N x N.
std::string chain(int n)
{
    return "from tvm import te\n"
           "N = " +
           std::to_string(n) +
           "\n"
           "A = te.placeholder((N, N), name=\"A\")\n"
           "B = te.compute((N, N), lambda i, j: A[i, j] + 1, name=\"B\")\n"
           "C = te.compute((N, N), lambda i, j: B[i, j] * 2, name=\"C\")\n"
           "s = te.create_schedule(C.op)\n";
}

// The loop program of the script's last schedule, or "error LINE: message".
std::string scheduled(const std::string& script)
{
    EvalResult r = evaluateScript(script);
    if (!r.ok) return "script error " + std::to_string(r.error.loc.line) + ": " + r.error.message;
    const Schedule& sch = r.program.variants.back().schedule();
    try {
        EffectiveBodies bodies = inlineBodies(sch);
        BoundInfo bounds = inferBound(sch, bodies);
        return printStmt(scheduleOps(sch, bodies, bounds));
    } catch (const UserError& e) {
        return "error " + std::to_string(e.loc().line) + ": " + e.message();
    }
}

TEST(ScheduleOps, ProducersAreRealizedAroundTheirConsumers)
{
    EXPECT_EQ(scheduled(chain(4)), "with T.realize(B[0:4, 0:4], \"global\"):\n"
                                   "    for i, j in T.grid(4, 4):\n"
                                   "        B[i, j] = A[i, j] + T.float32(1)\n"
                                   "    with T.realize(C[0:4, 0:4], \"global\"):\n"
                                   "        for i, j in T.grid(4, 4):\n"
                                   "            C[i, j] = B[i, j] * T.float32(2)\n");
}

TEST(ScheduleOps, ASplitGivesOuterAndInnerLoopsWithTheirExtents)
{
    std::string out = scheduled(chain(64) + "s[B].compute_inline()\n"
                                            "io, ii = s[C].split(C.op.axis[0], factor=16)\n");
    EXPECT_EQ(out, "with T.realize(C[0:64, 0:64], \"global\"):\n"
                   "    for i_outer, i_inner, j in T.grid(4, 16, 64):\n"
                   "        C[i_outer * 16 + i_inner, j] = (A[i_outer * 16 + i_inner, j] + "
                   "T.float32(1)) * T.float32(2)\n");
}

TEST(ScheduleOps, ANonDivisibleSplitIsGuardedByLikely)
{
    std::string out = scheduled(chain(10) + "s[B].compute_inline()\n"
                                            "io, ii = s[C].split(C.op.axis[0], factor=4)\n");
    EXPECT_EQ(out, "with T.realize(C[0:10, 0:10], \"global\"):\n"
                   "    for i_outer, i_inner, j in T.grid(3, 4, 10):\n"
                   "        if T.likely(i_outer * 4 + i_inner < 10):\n"
                   "            C[i_outer * 4 + i_inner, j] = (A[i_outer * 4 + i_inner, j] + "
                   "T.float32(1)) * T.float32(2)\n");
}

TEST(ScheduleOps, ComputeAtPlacesTheProducerInsideTheConsumerLoop)
{
    EXPECT_EQ(scheduled(chain(4) + "s[B].compute_at(s[C], C.op.axis[0])\n"),
              "with T.realize(C[0:4, 0:4], \"global\"):\n"
              "    for i in range(4):\n"
              "        with T.realize(B[i:i + 1, 0:4], \"global\"):\n"
              "            for j in range(4):\n"
              "                B[i, j] = A[i, j] + T.float32(1)\n"
              "            for j in range(4):\n"
              "                C[i, j] = B[i, j] * T.float32(2)\n");
}

TEST(ScheduleOps, AnInlinedStageDisappears)
{
    std::string out = scheduled(chain(4) + "s[B].compute_inline()\n");
    EXPECT_EQ(out, "with T.realize(C[0:4, 0:4], \"global\"):\n"
                   "    for i, j in T.grid(4, 4):\n"
                   "        C[i, j] = (A[i, j] + T.float32(1)) * T.float32(2)\n");
}

TEST(ScheduleOps, AReductionIsInitialisedBeforeItsReductionLoop)
{
    std::string out =
        scheduled("from tvm import te\n"
                  "A = te.placeholder((2, 3), name=\"A\")\n"
                  "k = te.reduce_axis((0, 3), name=\"k\")\n"
                  "R = te.compute((2,), lambda i: te.sum(A[i, k], axis=k), name=\"R\")\n"
                  "s = te.create_schedule(R.op)\n");
    EXPECT_EQ(out, "with T.realize(R[0:2], \"global\"):\n"
                   "    for i in range(2):\n"
                   "        R[i] = T.float32(0)\n"
                   "        for k in range(3):\n"
                   "            R[i] = R[i] + A[i, k]\n");
}

TEST(ScheduleOps, VectorizingALoopOfSymbolicExtentIsAnErrorAtTheStep)
{
    std::string out = scheduled("from tvm import te\n"
                                "n = te.var(\"n\")\n"
                                "A = te.placeholder((n,), name=\"A\")\n"
                                "B = te.compute((n,), lambda i: A[i] * 2, name=\"B\")\n"
                                "s = te.create_schedule(B.op)\n"
                                "s[B].vectorize(B.op.axis[0])\n");
    EXPECT_EQ(out, "error 6: cannot vectorize loop 'i': its extent is not a constant; split it by "
                   "a constant factor first");
}

// `extent` iterations of B unrolled, in a one-dimensional A -> B.
std::string unrolled(int extent)
{
    return "from tvm import te\n"
           "A = te.placeholder((" +
           std::to_string(extent) +
           ",), name=\"A\")\n"
           "B = te.compute(A.shape, lambda i: A[i] + 1, name=\"B\")\n"
           "s = te.create_schedule(B.op)\n"
           "s[B].unroll(B.op.axis[0])\n";
}

bool refused(const std::string& result)
{
    return result.rfind("error 5: unrolling loop 'i' of 'B' would make", 0) == 0;
}

// The unroll bound, just under and just over: the default, and one the user set.
TEST(ScheduleOps, UnrollingIsBoundedPerKernelBeforeAnyCopyIsMade)
{
    const Limits saved = limits();
    EXPECT_FALSE(refused(scheduled(unrolled(1024))));
    EXPECT_EQ(scheduled(unrolled(1025)),
              "error 5: unrolling loop 'i' of 'B' would make 1025 copies of its body; at most "
              "1024 are made in one kernel (Run ▸ Settings, or --max-unroll): split it and "
              "unroll the inner part");
    Limits l = saved;
    l.maxUnrollCopies = 10;
    setLimits(l);
    EXPECT_FALSE(refused(scheduled(unrolled(10))));
    EXPECT_TRUE(refused(scheduled(unrolled(11))));
    setLimits(saved);
}

// T0 = A + 1, then `computes - 1` stages that each read their predecessor twice, all but the
// last inlined: the last one's body doubles with every stage (9 * 2^k - 5 nodes for T_k).
std::string doubling(int computes)
{
    std::string s = "from tvm import te\n"
                    "A = te.placeholder((8,), name=\"A\")\n"
                    "T0 = te.compute((8,), lambda i: A[i] + 1.0, name=\"T0\")\n";
    for (int k = 1; k < computes; ++k) {
        const std::string p = "T" + std::to_string(k - 1);
        s += "T" + std::to_string(k) + " = te.compute((8,), lambda i: " + p + "[i] * " + p +
             "[i], name=\"T" + std::to_string(k) + "\")\n";
    }
    s += "s = te.create_schedule(T" + std::to_string(computes - 1) + ".op)\n";
    for (int k = 0; k + 1 < computes; ++k)
        s += "s[T" + std::to_string(k) + "].compute_inline()\n";
    return s;
}

// Inlined bodies are bounded (200,000 nodes) before any substitution: T14's 147,451 nodes are
// made, T15's 294,907 are refused at the inlining of T14 (the last compute_inline line).
TEST(ScheduleOps, InlinedBodiesAreBoundedBeforeTheyAreMade)
{
    EXPECT_EQ(scheduled(doubling(15)).rfind("error", 0), std::string::npos);
    EXPECT_EQ(scheduled(doubling(16)),
              "error 34: inlining makes the body of 'T15' an expression of 2.95e+05 nodes; at "
              "most 200000 are supported: compute 'T14' instead of inlining it");
}

// `computes` stages whose bodies add 900 ones to their producer's value, all but the last
// inlined: the last body is about 900 levels deep per stage.
std::string deepChain(int computes)
{
    std::string ones;
    for (int k = 0; k < 900; ++k)
        ones += " + 1.0";
    std::string s = "from tvm import te\n"
                    "A = te.placeholder((8,), name=\"A\")\n"
                    "T0 = te.compute((8,), lambda i: A[i] + 1.0, name=\"T0\")\n";
    for (int k = 1; k < computes; ++k) {
        s += "T" + std::to_string(k) + " = te.compute((8,), lambda i: T" + std::to_string(k - 1) +
             "[i]" + ones + ", name=\"T" + std::to_string(k) + "\")\n";
    }
    s += "s = te.create_schedule(T" + std::to_string(computes - 1) + ".op)\n";
    for (int k = 0; k + 1 < computes; ++k)
        s += "s[T" + std::to_string(k) + "].compute_inline()\n";
    return s;
}

// Inlined bodies are bounded in depth too (1,500 levels), before any pass recurses into them:
// two stages (about 900 levels) lower, three are refused at the last inlining.
TEST(ScheduleOps, InlinedBodiesAreBoundedInDepth)
{
    EXPECT_EQ(scheduled(deepChain(2)).rfind("error", 0), std::string::npos);
    const std::string three = scheduled(deepChain(3));
    EXPECT_EQ(three.rfind("error 8: inlining makes the body of 'T2' an expression nested ", 0), 0u)
        << three.substr(0, 200);
    EXPECT_NE(three.find("levels deep; at most 1500 are supported: compute 'T1' instead of "
                         "inlining it"),
              std::string::npos)
        << three.substr(0, 200);
}

} // namespace
} // namespace loopscope
