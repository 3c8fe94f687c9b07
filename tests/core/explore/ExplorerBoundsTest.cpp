// What one edit in the window lowers is bounded by the size of the steps' schedules, not only by
// how many stages they have: a stage split 3,000 times has one stage per step but a loop nest of
// up to 3,000 loops, and every edit lowered all 3,001 of them.
#include "explore/Explorer.h"

#include <gtest/gtest.h>

using namespace loopscope;

namespace {

std::string chainedSplits(int splits)
{
    std::string s = "from tvm import te\n"
                    "A = te.placeholder((1024,), name=\"A\")\n"
                    "B = te.compute((1024,), lambda i: A[i] + 1.0, name=\"B\")\n"
                    "s = te.create_schedule(B.op)\n"
                    "x0 = B.op.axis[0]\n";
    for (int k = 1; k <= splits; ++k)
        s += "x" + std::to_string(k) + "o, x" + std::to_string(k) + " = s[B].split(x" +
             std::to_string(k - 1) + ", factor=1)\n";
    return s;
}

TEST(ExplorerBounds, ThreeThousandSplitsLowerTheFirstAndLastSteps)
{
    Exploration x = explore(chainedSplits(3000));
    ASSERT_TRUE(x.ok) << x.error.message;
    ASSERT_EQ(x.variants.size(), 1u);
    const VariantView& v = x.variants.front();
    ASSERT_EQ(v.steps.size(), 3001u);
    int lowered = 0;
    for (auto& step : v.steps)
        lowered += step.notLowered.empty();
    EXPECT_LE(lowered, 4);
    EXPECT_TRUE(v.steps.front().notLowered.empty());
    EXPECT_TRUE(v.steps.back().notLowered.empty());
    EXPECT_FALSE(v.steps.back().tir.empty());
    const std::string& why = v.steps[1500].notLowered;
    EXPECT_NE(why.find("stages and splits in all"), std::string::npos) << why;
    EXPECT_NE(why.find("loopscope-cli lower FILE --variant s"), std::string::npos) << why;
}

// A few splits are all lowered, as before.
TEST(ExplorerBounds, AFewSplitsAreAllLowered)
{
    Exploration x = explore(chainedSplits(40));
    ASSERT_TRUE(x.ok) << x.error.message;
    for (auto& step : x.variants.front().steps)
        EXPECT_TRUE(step.notLowered.empty()) << step.label;
}

} // namespace
