// The cost model learns a ranking: trained on synthetic programs whose speed follows a few of
// their features, it orders programs it has not seen as their speeds do.
#include "tune/CostModel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace loopscope;

namespace {

// A program of 1 to 3 store rows; its speed rises with feature 13 (the vector length) of every
// row and falls with feature 20 (a made-up cost), with some noise in the other columns.
struct Synthetic {
    FeatureRows rows;
    double speed = 0;
};

Synthetic makeProgram(std::mt19937_64& rng)
{
    std::uniform_real_distribution<float> u(0, 1);
    const int width = static_cast<int>(featureNames().size());
    Synthetic s;
    s.rows.width = width;
    s.rows.rows = 1 + static_cast<int>(rng() % 3);
    s.rows.values.assign(static_cast<std::size_t>(s.rows.rows * width), 0.0f);
    for (int r = 0; r < s.rows.rows; ++r) {
        float* row = &s.rows.values[static_cast<std::size_t>(r * width)];
        for (int c = 0; c < width; ++c)
            row[c] = u(rng) * 2;
        row[13] = std::floor(u(rng) * 5); // 0..4: log2 of a vector length
        row[20] = u(rng) * 4;             // a cost
        s.speed += (1 + row[13]) / (1 + row[20]);
    }
    return s;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b)
{
    auto ranks = [](const std::vector<double>& v) {
        std::vector<std::size_t> idx(v.size());
        std::iota(idx.begin(), idx.end(), 0);
        std::sort(idx.begin(), idx.end(), [&](auto x, auto y) { return v[x] < v[y]; });
        std::vector<double> r(v.size());
        for (std::size_t i = 0; i < idx.size(); ++i)
            r[idx[i]] = static_cast<double>(i);
        return r;
    };
    auto ra = ranks(a), rb = ranks(b);
    double n = static_cast<double>(a.size()), d2 = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        d2 += (ra[i] - rb[i]) * (ra[i] - rb[i]);
    return 1 - 6 * d2 / (n * (n * n - 1));
}

TEST(CostModel, RanksUnseenProgramsLikeTheirSpeeds)
{
    std::mt19937_64 rng(3);
    std::vector<Synthetic> train, test;
    for (int i = 0; i < 200; ++i)
        train.push_back(makeProgram(rng));
    for (int i = 0; i < 60; ++i)
        test.push_back(makeProgram(rng));
    std::vector<const FeatureRows*> rows;
    std::vector<double> speeds;
    for (auto& s : train) {
        rows.push_back(&s.rows);
        speeds.push_back(s.speed);
    }
    CostModel model(1);
    EXPECT_FALSE(model.trained());
    ASSERT_TRUE(model.train(rows, speeds)) << model.error();
    EXPECT_TRUE(model.trained());
    EXPECT_GT(model.lastRounds(), 5);

    std::vector<const FeatureRows*> testRows;
    std::vector<double> truth;
    for (auto& s : test) {
        testRows.push_back(&s.rows);
        truth.push_back(s.speed);
    }
    auto predicted = model.predict(testRows);
    ASSERT_EQ(predicted.size(), test.size());
    EXPECT_GT(spearman(predicted, truth), 0.8);
    // The fastest of the unseen programs is among the model's top five.
    std::size_t fastest = std::max_element(truth.begin(), truth.end()) - truth.begin();
    std::vector<std::size_t> order(test.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](auto a, auto b) { return predicted[a] > predicted[b]; });
    EXPECT_NE(std::find(order.begin(), order.begin() + 5, fastest), order.begin() + 5);
}

TEST(CostModel, RefusesToTrainOnNothingToLearn)
{
    std::mt19937_64 rng(5);
    Synthetic a = makeProgram(rng), b = makeProgram(rng);
    CostModel model(1);
    EXPECT_FALSE(model.train({&a.rows, &b.rows}, {1.0, 1.0})); // one speed only
    EXPECT_FALSE(model.train({&a.rows}, {1.0, 2.0}));          // sizes differ
    EXPECT_FALSE(model.trained());
    auto scores = model.predict({&a.rows});
    EXPECT_EQ(scores, std::vector<double>{0.0});
}

} // namespace
