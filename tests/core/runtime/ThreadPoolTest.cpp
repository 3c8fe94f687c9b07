// The pool behind generated parallel loops: every index runs exactly once, whatever the thread
// count and range; nested loops run serially; loops entered back to back, and from two host
// threads at once, neither lose nor repeat work.
#include "runtime/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace {

struct Hits {
    std::vector<std::atomic<int>> count;
    explicit Hits(std::int64_t n) : count(static_cast<std::size_t>(n)) {}
};

void mark(std::int64_t begin, std::int64_t end, void* closure)
{
    auto* hits = static_cast<Hits*>(closure);
    for (std::int64_t i = begin; i < end; ++i)
        hits->count[static_cast<std::size_t>(i)]++;
}

struct Nested {
    std::atomic<int> outer{0}, inner{0};
    std::atomic<bool> innerSplit{false};
};

void innerBody(std::int64_t begin, std::int64_t end, void* closure)
{
    auto* n = static_cast<Nested*>(closure);
    if (begin != 0 || end != 16) n->innerSplit = true; // a nested loop is not split
    n->inner += static_cast<int>(end - begin);
}

void outerBody(std::int64_t begin, std::int64_t end, void* closure)
{
    auto* n = static_cast<Nested*>(closure);
    for (std::int64_t i = begin; i < end; ++i) {
        n->outer++;
        loopscope_parallel_for(16, innerBody, closure);
    }
}

class ThreadPoolTest : public ::testing::Test {
protected:
    void TearDown() override { loopscope::setParallelThreads(0); }
};

TEST_F(ThreadPoolTest, EveryIndexRunsOnceForAnyThreadCountAndRange)
{
    for (int threads : {1, 2, 3, 4, 7}) {
        loopscope::setParallelThreads(threads);
        EXPECT_EQ(loopscope::parallelThreads(), threads);
        for (std::int64_t n : {0, 1, 2, 3, 5, 64, 1000, 4097}) {
            Hits hits(n);
            loopscope_parallel_for(n, mark, &hits);
            for (std::int64_t i = 0; i < n; ++i)
                ASSERT_EQ(hits.count[static_cast<std::size_t>(i)], 1)
                    << "index " << i << " of " << n << " with " << threads << " threads";
        }
    }
}

TEST_F(ThreadPoolTest, NestedLoopsRunSerially)
{
    loopscope::setParallelThreads(4);
    Nested nested;
    loopscope_parallel_for(8, outerBody, &nested);
    EXPECT_EQ(nested.outer, 8);
    EXPECT_EQ(nested.inner, 8 * 16);
    EXPECT_FALSE(nested.innerSplit);
}

TEST_F(ThreadPoolTest, LoopsBackToBackAndFromTwoCallers)
{
    loopscope::setParallelThreads(3);
    auto many = [] {
        for (int round = 0; round < 2000; ++round) {
            std::int64_t n = 1 + round % 7;
            Hits hits(n);
            loopscope_parallel_for(n, mark, &hits);
            for (auto& c : hits.count)
                if (c != 1) return false;
        }
        return true;
    };
    bool a = false, b = false;
    std::thread other([&] { b = many(); });
    a = many();
    other.join();
    EXPECT_TRUE(a);
    EXPECT_TRUE(b);
}

} // namespace
