#include "runtime/Check.h"

#include "ir/Limits.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace loopscope {
namespace {

using Shape = std::vector<std::int64_t>;

std::vector<Expr> dims(const Shape& shape)
{
    std::vector<Expr> out;
    for (std::int64_t d : shape)
        out.push_back(makeInt(d));
    return out;
}

// out[...] = in[...] * scale + offset, elementwise over `shape`.
Tensor affine(const Tensor& in, const Shape& shape, Expr scale, Expr offset)
{
    std::vector<IterVar> axes;
    std::vector<Expr> index;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        axes.push_back(makeIterVar("i" + std::to_string(d), {makeInt(0), makeInt(shape[d])},
                                   IterKind::DataPar));
        index.push_back(axes.back()->var);
    }
    return makeCompute("C", "", axes, makeTensorLoad(in, index) * scale + offset, {});
}

// A copy of what `reference` says `t` is, element by element, as a kernel would produce it.
HostBuffer expectedOutput(const ReferenceEvaluator& reference, const Tensor& t, const Shape& shape)
{
    HostBuffer out(t->dtype, shape);
    std::vector<std::int64_t> index(shape.size(), 0);
    for (std::int64_t n = 0; n < out.elementCount(); ++n) {
        if (t->dtype.isFloat())
            out.set(n, reference.value(t, index));
        else
            out.setInt(n, reference.valueInt(t, index));
        for (std::size_t d = shape.size(); d-- > 0;) {
            if (++index[d] < shape[d]) break;
            index[d] = 0;
        }
    }
    return out;
}

struct Fixture {
    Shape shape;
    Tensor a, c;
    HostBuffer input;
    std::unique_ptr<ReferenceEvaluator> reference;
    HostBuffer actual;

    Fixture(Shape s, DataType t = DataType::float32()) : shape(std::move(s))
    {
        a = makePlaceholder("A", dims(shape), t, {});
        Expr two = t.isFloat() ? makeFloat(2, t) : makeInt(2, t);
        Expr one = t.isFloat() ? makeFloat(0.5, t) : makeInt(1, t);
        c = affine(a, shape, two, one);
        input = HostBuffer(t, shape);
        input.fillRandom(11);
        ReferenceEvaluator::Inputs inputs{{a.get(), &input}};
        reference = std::make_unique<ReferenceEvaluator>(std::move(inputs));
        actual = expectedOutput(*reference, c, shape);
    }
    CheckResult check(std::uint64_t seed = 5)
    {
        Tolerance tol = defaultTolerance(c->dtype);
        return checkOutput(*reference, c, actual, tol.rtol, tol.atol, seed);
    }
};

TEST(CheckTest, SmallOutputsCompareEveryElement)
{
    Fixture f({8, 20});
    CheckResult r = f.check();
    EXPECT_TRUE(r.ok) << r.firstMismatch << r.error;
    EXPECT_EQ(r.checked, 160);
    EXPECT_EQ(r.maxAbsError, 0.0);
    EXPECT_TRUE(r.firstMismatch.empty());
}

TEST(CheckTest, CorruptedElementIsReported)
{
    Fixture f({8, 20});
    f.input.set(f.input.flatIndex({3, 17}), 0.5); // C[3, 17] = 0.5 * 2 + 0.5 = 1.5
    f.reference->clearCache();
    f.actual.set(f.actual.flatIndex({3, 17}), 1.25);
    CheckResult r = f.check();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.firstMismatch, "C[3, 17] = 1.25 but expected 1.5");
    EXPECT_EQ(r.mismatches, 1);
    EXPECT_EQ(r.checked, 160);
    EXPECT_DOUBLE_EQ(r.maxAbsError, 0.25);
    EXPECT_DOUBLE_EQ(r.maxRelError, 0.25 / 1.5);
    EXPECT_TRUE(r.error.empty());
}

TEST(CheckTest, ToleranceIsAbsolutePlusRelative)
{
    Fixture f({4, 4}, DataType::float64());
    f.input.set(0, 0.25); // C[0, 0] = 1
    f.reference->clearCache();
    f.actual.set(0, 1 + 0.9e-9 + 0.5e-12);
    EXPECT_TRUE(f.check().ok);
    f.actual.set(0, 1 + 2e-9);
    CheckResult r = f.check();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.firstMismatch, "C[0, 0] = 1.000000002 but expected 1");
}

TEST(CheckTest, TheAbsoluteToleranceScalesWithTheOutput)
{
    // C = 2A + 0.5 with one element of A at 40: C's scale is 80.5, so float32's absolute
    // tolerance is 1e-5 * 80.5 for every element (a long float32 sum rounds in units of its
    // partial sums, not of its result).
    Fixture f({4, 4});
    f.input.set(f.input.flatIndex({3, 3}), 40.0);
    f.input.set(0, 0.0); // C[0, 0] = 0.5
    f.reference->clearCache();
    f.actual = expectedOutput(*f.reference, f.c, f.shape);
    f.actual.set(0, 0.5 + 5e-4);
    EXPECT_TRUE(f.check().ok) << f.check().firstMismatch;
    // A term's worth of error is far outside it.
    f.actual.set(0, 0.5 + 0.01);
    EXPECT_FALSE(f.check().ok);
    // Below a scale of 1 the tolerance is as given.
    Fixture g({4, 4});
    g.input.set(0, 0.0);
    g.reference->clearCache();
    g.actual = expectedOutput(*g.reference, g.c, g.shape);
    g.actual.set(0, 0.5 + 5e-4);
    EXPECT_FALSE(g.check().ok);
}

TEST(CheckTest, IntegersCompareExactly)
{
    Fixture f({3, 4}, DataType::int32());
    std::int64_t flat = f.actual.flatIndex({2, 1});
    std::int64_t expected = f.actual.getInt(flat);
    f.actual.setInt(flat, expected + 1);
    CheckResult r = f.check();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.firstMismatch, "C[2, 1] = " + std::to_string(expected + 1) + " but expected " +
                                   std::to_string(expected));
}

TEST(CheckTest, NaNMatchesOnlyNaN)
{
    Fixture f({2, 2});
    f.input.set(0, std::numeric_limits<double>::quiet_NaN());
    f.reference->clearCache();
    f.actual.set(0, std::numeric_limits<double>::quiet_NaN());
    EXPECT_TRUE(f.check().ok);
    f.actual.set(0, 0);
    CheckResult r = f.check();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.firstMismatch, "C[0, 0] = 0 but expected nan");
}

TEST(CheckTest, LargeOutputsCheckCornersAndSamples)
{
    Fixture f({300, 300}); // 90,000 elements: more than the full-check limit
    CheckResult clean = f.check();
    EXPECT_TRUE(clean.ok);
    EXPECT_EQ(clean.checked, 4 + 2000);

    for (Shape corner : {Shape{0, 0}, Shape{0, 299}, Shape{299, 0}, Shape{299, 299}}) {
        Fixture g({300, 300});
        std::int64_t flat = g.actual.flatIndex(corner);
        g.actual.set(flat, g.actual.get(flat) + 1);
        CheckResult r = g.check();
        EXPECT_FALSE(r.ok);
        EXPECT_EQ(r.firstMismatch.substr(0, r.firstMismatch.find(']') + 1),
                  "C[" + std::to_string(corner[0]) + ", " + std::to_string(corner[1]) + "]");
    }
}

TEST(CheckTest, SizeOneDimensionsHaveOneCorner)
{
    Fixture f({1, 300, 300});
    CheckResult r = f.check();
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.checked, 4 + 2000);
}

TEST(CheckTest, SamplesDependOnlyOnTheSeed)
{
    Fixture f({300, 300});
    // Corrupt every element of one row: some samples hit it, the same ones for the same seed.
    for (std::int64_t j = 1; j < 299; ++j)
        f.actual.set(f.actual.flatIndex({150, j}), 7);
    CheckResult a = f.check(9), b = f.check(9);
    EXPECT_EQ(a.mismatches, b.mismatches);
    EXPECT_EQ(a.firstMismatch, b.firstMismatch);
}

TEST(CheckTest, WrongShapeAndReferenceErrorsAreReported)
{
    Fixture f({4, 4});
    HostBuffer wrong(DataType::float32(), {4, 5});
    CheckResult r = checkOutput(*f.reference, f.c, wrong, 1e-4, 1e-5, 1);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error, "the output buffer is float32[4, 5] but 'C' is float32[4, 4]");
    HostBuffer doubles(DataType::float64(), {4, 4});
    EXPECT_EQ(checkOutput(*f.reference, f.c, doubles, 1e-4, 1e-5, 1).error,
              "the output buffer is float64[4, 4] but 'C' is float32[4, 4]");

    ReferenceEvaluator noInputs({});
    CheckResult e = checkOutput(noInputs, f.c, f.actual, 1e-4, 1e-5, 1);
    EXPECT_FALSE(e.ok);
    EXPECT_EQ(e.error, "no input buffer for placeholder 'A'");
}

// A 2048^3 matmul whose product has a closed form (A is all ones, so C[i, j] = sum_k B[k, j]
// = 2048 * B[0, j] when every row of B is the same): 2,000 samples cost 2,000 dot products.
TEST(CheckTest, SampledCheckOfLargeMatmulIsFast)
{
    const std::int64_t n = 2048;
    Tensor a = makePlaceholder("A", dims({n, n}), DataType::float32(), {});
    Tensor b = makePlaceholder("B", dims({n, n}), DataType::float32(), {});
    IterVar i = makeIterVar("i", {makeInt(0), makeInt(n)}, IterKind::DataPar);
    IterVar j = makeIterVar("j", {makeInt(0), makeInt(n)}, IterKind::DataPar);
    IterVar k = makeIterVar("k", {makeInt(0), makeInt(n)}, IterKind::Reduce);
    Tensor c = makeCompute(
        "C", "", {i, j},
        makeReduce(ReduceOp::Sum,
                   makeTensorLoad(a, {i->var, k->var}) * makeTensorLoad(b, {k->var, j->var}), {k},
                   Expr()),
        {});
    HostBuffer ab(DataType::float32(), {n, n}), bb(DataType::float32(), {n, n});
    HostBuffer actual(DataType::float32(), {n, n});
    ab.fill(1);
    for (std::int64_t col = 0; col < n; ++col) {
        double v = static_cast<double>(col % 13) * 0.125 - 0.75;
        for (std::int64_t row = 0; row < n; ++row)
            bb.set(row * n + col, v);
        for (std::int64_t row = 0; row < n; ++row)
            actual.set(row * n + col, v * n);
    }
    actual.set(actual.flatIndex({n - 1, 0}), 1); // a wrong corner

    ReferenceEvaluator reference({{a.get(), &ab}, {b.get(), &bb}});
    auto start = std::chrono::steady_clock::now();
    CheckResult r = checkOutput(reference, c, actual, 1e-4, 1e-5, 3);
    std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
    std::printf("sampled check of a 2048^3 matmul: %lld points in %.3f s\n",
                static_cast<long long>(r.checked), seconds.count());
    EXPECT_LT(seconds.count(), 10.0); // about 0.1 s optimized; the bound only catches blowups
    EXPECT_EQ(r.checked, 4 + 2000);
    EXPECT_EQ(r.mismatches, 1);
    EXPECT_EQ(r.firstMismatch, "C[2047, 0] = 1 but expected -1536");
}

} // namespace
} // namespace loopscope

namespace loopscope {
namespace {

// Sets the bounds for one test and puts back the ones before.
class ScopedLimits {
public:
    explicit ScopedLimits(const Limits& l) : m_saved(limits()) { setLimits(l); }
    ~ScopedLimits() { setLimits(m_saved); }

private:
    Limits m_saved;
};

// C[i] = sum(A[i, k], k < 1000): each element costs 1,000 reference steps.
struct RowSums {
    Tensor a = makePlaceholder("A", dims({3, 1000}), DataType::float32(), {});
    IterVar i = makeIterVar("i", {makeInt(0), makeInt(3)}, IterKind::DataPar);
    IterVar k = makeIterVar("k", {makeInt(0), makeInt(1000)}, IterKind::Reduce);
    Tensor c = makeCompute(
        "C", "", {i}, makeReduce(ReduceOp::Sum, makeTensorLoad(a, {i->var, k->var}), {k}, Expr()),
        {});
    HostBuffer ab{DataType::float32(), {3, 1000}};
    HostBuffer actual{DataType::float32(), {3}};
    RowSums()
    {
        ab.fill(1);
        actual.fill(1000);
    }
};

// At the limit an element is compared; one step under it, none is, and the check says why
// instead of claiming a comparison it did not make.
TEST(CheckTest, ElementsBeyondTheReferenceStepLimitAreNotComparedAndSaySo)
{
    RowSums f;
    {
        Limits l;
        l.maxReferenceStepsPerElement = 1000;
        ScopedLimits scoped(l);
        ReferenceEvaluator reference({{f.a.get(), &f.ab}});
        CheckResult r = checkOutput(reference, f.c, f.actual, 1e-4, 1e-5, 1);
        EXPECT_TRUE(r.ok);
        EXPECT_EQ(r.checked, 3);
        EXPECT_EQ(r.skipped, "");
    }
    {
        Limits l;
        l.maxReferenceStepsPerElement = 999;
        ScopedLimits scoped(l);
        ReferenceEvaluator reference({{f.a.get(), &f.ab}});
        CheckResult r = checkOutput(reference, f.c, f.actual, 1e-4, 1e-5, 1);
        EXPECT_TRUE(r.ok);
        EXPECT_EQ(r.checked, 0);
        EXPECT_EQ(r.skipped, "C[0] needs more than 999 steps of the reference interpreter (the "
                             "limit per element is in Run ▸ Settings, or --max-reference-steps): "
                             "not compared");
        EXPECT_THROW(reference.value(f.c, {1}), ReferenceStepLimit);
    }
    // The limit is per element: the steps of one do not count against the next.
    Limits l;
    l.maxReferenceStepsPerElement = 1500;
    ScopedLimits scoped(l);
    ReferenceEvaluator reference({{f.a.get(), &f.ab}});
    EXPECT_EQ(reference.value(f.c, {0}), 1000);
    EXPECT_EQ(reference.value(f.c, {1}), 1000);
}

TEST(Limits, BoundsBelowOneAreRefused)
{
    Limits l;
    l.maxUnrollCopies = 0;
    EXPECT_THROW(setLimits(l), std::invalid_argument);
    l = Limits{};
    l.maxReferenceStepsPerElement = -5;
    EXPECT_THROW(setLimits(l), std::invalid_argument);
    EXPECT_EQ(limits().maxUnrollCopies, Limits{}.maxUnrollCopies);
}

} // namespace
} // namespace loopscope
