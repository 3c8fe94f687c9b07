// The variant tree against the samples: the tree the ladder and the tutorial's steps make, and on
// every sample, each variant's parent shares with it the longest run of leading statements any
// earlier variant does.
#include "explore/VariantTree.h"
#include "explore/Explorer.h"
#include "support/SourceFiles.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace loopscope;

namespace {

Exploration exploreSample(const std::string& name)
{
    Exploration x = explore(readSourceFile("samples/" + name));
    EXPECT_TRUE(x.ok) << x.error.message;
    return x;
}

// "name <- parent@shared" per variant, roots as "name".
std::vector<std::string> edges(const Exploration& x)
{
    auto tree = variantTree(x.variants);
    std::vector<std::string> out;
    for (std::size_t v = 0; v < tree.size(); ++v) {
        std::string e = x.variants[v].name;
        if (tree[v].parent >= 0)
            e += " <- " + x.variants[std::size_t(tree[v].parent)].name + "@" +
                 std::to_string(tree[v].sharedSteps);
        out.push_back(e);
    }
    return out;
}

std::size_t sharedPrefix(const VariantView& a, const VariantView& b)
{
    std::size_t n = 1; // the untransformed step
    while (n < a.steps.size() && n < b.steps.size() && a.steps[n].label == b.steps[n].label)
        ++n;
    return n - 1;
}

TEST(VariantTree, TheLadderIsAChainBranchingAfterTheTile)
{
    Exploration x = exploreSample("matmul_ladder.py");
    EXPECT_EQ(edges(x),
              (std::vector<std::string>{"naive", "tile 32x32 <- naive@0", "split k <- tile 32x32@2",
                                        "vectorize <- split k@4", "parallel <- vectorize@6",
                                        "unroll <- parallel@7"}));
}

TEST(VariantTree, TheTutorialsSteps)
{
    Exploration x = exploreSample("opt_gemm.py");
    EXPECT_EQ(edges(x),
              (std::vector<std::string>{
                  "baseline", "blocking <- baseline@0", "vectorization <- blocking@3",
                  "loop permutation <- vectorization@2", "array packing <- loop permutation@4",
                  "write cache <- baseline@0", "parallel <- write cache@7"}));
}

TEST(VariantTree, EveryParentSharesTheLongestPrefix)
{
    for (const char* sample : {"matmul_ladder.py", "opt_gemm.py", "conv2d.py", "gemm_best.py",
                               "softmax.py", "transpose.py", "add_relu.py"}) {
        SCOPED_TRACE(sample);
        Exploration x = exploreSample(sample);
        auto tree = variantTree(x.variants);
        ASSERT_EQ(tree.size(), x.variants.size());
        for (std::size_t v = 0; v < tree.size(); ++v) {
            std::size_t longest = 0;
            for (std::size_t u = 0; u < v; ++u)
                longest = std::max(longest, sharedPrefix(x.variants[u], x.variants[v]));
            if (tree[v].parent < 0) {
                EXPECT_EQ(longest, 0u);
                continue;
            }
            const auto p = std::size_t(tree[v].parent);
            EXPECT_LT(p, v);
            EXPECT_EQ(std::size_t(tree[v].sharedSteps), longest);
            EXPECT_EQ(sharedPrefix(x.variants[p], x.variants[v]), longest);
            // Children are listed by their parent.
            const auto& kids = tree[p].children;
            EXPECT_NE(std::find(kids.begin(), kids.end(), int(v)), kids.end());
        }
    }
}

TEST(VariantTree, TiesGoToAVariantWhollySharedThenTheNearest)
{
    // c shares 1 statement with both a and b; b's statements are all shared.
    using Statements = std::vector<std::vector<std::string>>;
    auto t = variantTree(Statements{{"x = 1", "y"}, {"x=1"}, {"x = 1", "z"}, {"w"}, {}});
    EXPECT_EQ(t[1].parent, 0);
    EXPECT_EQ(t[2].parent, 1);
    EXPECT_EQ(t[2].sharedSteps, 1);
    EXPECT_EQ(t[3].parent, -1); // shares nothing, and no variant above is untransformed
    EXPECT_EQ(t[4].parent, -1);
    auto u = variantTree(Statements{{}, {"a"}, {"b"}});
    EXPECT_EQ(u[1].parent, 0);
    EXPECT_EQ(u[2].parent, 0);
    EXPECT_EQ(u[0].children, (std::vector<int>{1, 2}));
}

} // namespace
