#include "runtime/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
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

Tensor placeholder(const std::string& name, const Shape& shape, DataType t = DataType::float32())
{
    return makePlaceholder(name, dims(shape), t, {});
}

IterVar axis(const std::string& name, std::int64_t extent)
{
    return makeIterVar(name, {makeInt(0), makeInt(extent)}, IterKind::DataPar);
}

IterVar reduceAxis(const std::string& name, std::int64_t min, std::int64_t extent)
{
    return makeIterVar(name, {makeInt(min), makeInt(extent)}, IterKind::Reduce);
}

Expr load(const Tensor& t, std::vector<Expr> indices)
{
    return makeTensorLoad(t, std::move(indices));
}

// C[i, j] = sum(A[i, k] * B[k, j], k)
Tensor matmul(const Tensor& a, const Tensor& b, std::int64_t m, std::int64_t n, std::int64_t k)
{
    IterVar i = axis("i", m), j = axis("j", n), r = reduceAxis("k", 0, k);
    Expr body = makeReduce(ReduceOp::Sum, load(a, {i->var, r->var}) * load(b, {r->var, j->var}),
                           {r}, Expr());
    return makeCompute("C", "", {i, j}, body, {});
}

// A compute of a 1-d shape whose body is f(i).
template <typename F> Tensor compute1(const std::string& name, std::int64_t n, F f)
{
    IterVar i = axis("i", n);
    return makeCompute(name, "", {i}, f(Expr(i->var)), {});
}

HostBuffer buffer(DataType t, const Shape& shape, const std::vector<double>& values)
{
    HostBuffer b(t, shape);
    for (std::size_t n = 0; n < values.size(); ++n)
        b.set(static_cast<std::int64_t>(n), values[n]);
    return b;
}

std::string errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const ReferenceError& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(ReferenceTest, MatmulByHand)
{
    Tensor a = placeholder("A", {2, 2}), b = placeholder("B", {2, 2});
    Tensor c = matmul(a, b, 2, 2, 2);
    HostBuffer ab = buffer(DataType::float32(), {2, 2}, {1, 2, 3, 4});
    HostBuffer bb = buffer(DataType::float32(), {2, 2}, {5, 6, 7, 8});
    ReferenceEvaluator ref({{a.get(), &ab}, {b.get(), &bb}});
    EXPECT_EQ(ref.shape(c), (Shape{2, 2}));
    EXPECT_EQ(ref.value(c, {0, 0}), 19.0);
    EXPECT_EQ(ref.value(c, {0, 1}), 22.0);
    EXPECT_EQ(ref.value(c, {1, 0}), 43.0);
    EXPECT_EQ(ref.value(c, {1, 1}), 50.0);
    EXPECT_EQ(ref.value(a, {1, 0}), 3.0); // placeholders read their buffer
}

TEST(ReferenceTest, MatmulMatchesBruteForce)
{
    for (DataType t : {DataType::float32(), DataType::float64()}) {
        const std::int64_t m = 7, n = 5, k = 9;
        Tensor a = placeholder("A", {m, k}, t), b = placeholder("B", {k, n}, t);
        Tensor c = matmul(a, b, m, n, k);
        HostBuffer ab(t, {m, k}), bb(t, {k, n});
        ab.fillRandom(1);
        bb.fillRandom(2);
        ReferenceEvaluator ref({{a.get(), &ab}, {b.get(), &bb}});
        for (std::int64_t i = 0; i < m; ++i) {
            for (std::int64_t j = 0; j < n; ++j) {
                double sum = 0; // double accumulation, rounded to the type once
                for (std::int64_t r = 0; r < k; ++r)
                    sum += ab.get(i * k + r) * bb.get(r * n + j);
                double expected = t.bits == 32 ? static_cast<float>(sum) : sum;
                EXPECT_EQ(ref.value(c, {i, j}), expected)
                    << t.str() << " C[" << i << ", " << j << "]";
            }
        }
    }
}

TEST(ReferenceTest, FloatsRoundOnlyWhenStored)
{
    // In float32, 1e8 + 1 - 1e8 is 0; the reference keeps double precision until the end.
    Tensor a = placeholder("A", {3});
    IterVar r = reduceAxis("k", 0, 3);
    Tensor s = makeCompute("S", "", {axis("i", 1)},
                           makeReduce(ReduceOp::Sum, load(a, {r->var}), {r}, Expr()), {});
    HostBuffer ab = buffer(DataType::float32(), {3}, {1e8, 1, -1e8});
    ReferenceEvaluator ref({{a.get(), &ab}});
    EXPECT_EQ(ref.value(s, {0}), 1.0);

    // A float32 result is rounded to float32.
    Tensor third = compute1("T", 1, [&](Expr i) {
        return makeBinary(ExprKind::Div, load(a, {i}) * makeFloat(0) + makeFloat(1), makeFloat(3));
    });
    EXPECT_EQ(ref.value(third, {0}), static_cast<double>(1.0f / 3.0f));
}

TEST(ReferenceTest, SymbolicSizesTakeTheirValues)
{
    Var n("n");
    Tensor a = makePlaceholder("A", {n}, DataType::float32(), {});
    IterVar i = makeIterVar("i", {makeInt(0), n}, IterKind::DataPar);
    Tensor b = makeCompute("B", "", {i}, load(a, {i->var}) + makeFloat(1), {});
    HostBuffer ab = buffer(DataType::float32(), {5}, {1, 2, 3, 4, 5});
    ReferenceEvaluator ref({{a.get(), &ab}}, {{n.get(), 5}});
    EXPECT_EQ(ref.shape(b), (Shape{5}));
    EXPECT_EQ(ref.value(b, {4}), 6.0);

    ReferenceEvaluator unsized({{a.get(), &ab}});
    EXPECT_NE(errorOf([&] { unsized.value(b, {0}); }).find("'n' has no value"), std::string::npos);
}

TEST(ReferenceTest, ReductionsWithConditions)
{
    // R[i] = op(A[i, k] for k in [1, 7) if k <= i); i = 0 has an empty domain.
    const std::int64_t rows = 8, cols = 8;
    for (DataType t : {DataType::float32(), DataType::int32()}) {
        Tensor a = placeholder("A", {rows, cols}, t);
        HostBuffer ab(t, {rows, cols});
        ab.fillRandom(7);
        ReferenceEvaluator ref({{a.get(), &ab}});
        for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}) {
            for (bool withCondition : {false, true}) {
                IterVar i = axis("i", rows), k = reduceAxis("k", 1, 6);
                Expr cond = withCondition ? Expr(k->var <= i->var) : Expr();
                Tensor r = makeCompute("R", "", {i},
                                       makeReduce(op, load(a, {i->var, k->var}), {k}, cond), {});
                for (std::int64_t row = 0; row < rows; ++row) {
                    double acc = t.isFloat()
                                     ? (op == ReduceOp::Sum    ? 0.0
                                        : op == ReduceOp::Prod ? 1.0
                                        : op == ReduceOp::Max  ? -std::numeric_limits<float>::max()
                                                               : std::numeric_limits<float>::max())
                                     : (op == ReduceOp::Sum    ? 0.0
                                        : op == ReduceOp::Prod ? 1.0
                                        : op == ReduceOp::Max  ? -2147483648.0
                                                               : 2147483647.0);
                    for (std::int64_t col = 1; col < 7; ++col) {
                        if (withCondition && col > row) continue;
                        double x = ab.get(row * cols + col);
                        if (op == ReduceOp::Sum)
                            acc += x;
                        else if (op == ReduceOp::Prod)
                            acc *= x;
                        else if (op == ReduceOp::Max)
                            acc = std::max(acc, x);
                        else
                            acc = std::min(acc, x);
                    }
                    if (t.isFloat()) acc = static_cast<float>(acc);
                    EXPECT_EQ(ref.value(r, {row}), acc)
                        << t.str() << " op " << static_cast<int>(op) << " cond " << withCondition
                        << " row " << row;
                }
            }
        }
    }
}

TEST(ReferenceTest, MultiAxisReduction)
{
    Tensor a = placeholder("A", {3, 4, 5}, DataType::float64());
    HostBuffer ab(DataType::float64(), {3, 4, 5});
    ab.fillRandom(3);
    IterVar i = axis("i", 3), k1 = reduceAxis("k1", 0, 4), k2 = reduceAxis("k2", 0, 5);
    Tensor s = makeCompute(
        "S", "", {i},
        makeReduce(ReduceOp::Sum, load(a, {i->var, k1->var, k2->var}), {k1, k2}, Expr()), {});
    ReferenceEvaluator ref({{a.get(), &ab}});
    for (std::int64_t row = 0; row < 3; ++row) {
        double sum = 0;
        for (std::int64_t n = 0; n < 20; ++n)
            sum += ab.get(row * 20 + n);
        EXPECT_EQ(ref.value(s, {row}), sum);
    }
}

TEST(ReferenceTest, IfThenElsePaddingNeverReadsOutOfBounds)
{
    // P[i] = A[i - 1] for 1 <= i < 5, else 0: the padding branch is not evaluated.
    Tensor a = placeholder("A", {4});
    HostBuffer ab = buffer(DataType::float32(), {4}, {10, 20, 30, 40});
    auto padded = [&](bool lazy) {
        return compute1("P", 6, [&](Expr i) {
            Expr inside = makeCall(DataType::boolean(), CallOp::Likely,
                                   {(i >= makeInt(1)) && (i < makeInt(5))});
            Expr value = load(a, {i - makeInt(1)});
            if (lazy)
                return makeCall(DataType::float32(), CallOp::IfThenElse,
                                {inside, value, makeFloat(0)});
            return makeSelect(inside, value, makeFloat(0));
        });
    };
    ReferenceEvaluator ref({{a.get(), &ab}});
    Tensor p = padded(true);
    std::vector<double> expected{0, 10, 20, 30, 40, 0};
    for (std::int64_t n = 0; n < 6; ++n)
        EXPECT_EQ(ref.value(p, {n}), expected[n]);

    // Select is eager: its out-of-bounds read is reported, with the tensor and the index.
    Tensor eager = padded(false);
    EXPECT_EQ(errorOf([&] { ref.value(eager, {0}); }),
              "read of A[-1] is outside its shape [4] (while computing P[0])");
    EXPECT_EQ(errorOf([&] { ref.value(eager, {5}); }),
              "read of A[4] is outside its shape [4] (while computing P[5])");
}

TEST(ReferenceTest, IntegerDivisionOnNegatives)
{
    struct Case {
        std::int64_t x, y, truncDiv, truncMod, floorDiv, floorMod;
    };
    const Case cases[] = {
        {7, 2, 3, 1, 3, 1},     {-7, 2, -3, -1, -4, 1}, {7, -2, -3, 1, -4, -1},
        {-7, -2, 3, -1, 3, -1}, {-8, 2, -4, 0, -4, 0},
    };
    const std::int64_t n = std::size(cases);
    Tensor x = placeholder("X", {n}, DataType::int32()),
           y = placeholder("Y", {n}, DataType::int32());
    HostBuffer xb(DataType::int32(), {n}), yb(DataType::int32(), {n});
    for (std::int64_t c = 0; c < n; ++c) {
        xb.setInt(c, cases[c].x);
        yb.setInt(c, cases[c].y);
    }
    auto op = [&](ExprKind k) {
        return compute1("Q", n, [&](Expr i) { return makeBinary(k, load(x, {i}), load(y, {i})); });
    };
    Tensor td = op(ExprKind::Div), tm = op(ExprKind::Mod), fd = op(ExprKind::FloorDiv),
           fm = op(ExprKind::FloorMod);
    ReferenceEvaluator ref({{x.get(), &xb}, {y.get(), &yb}});
    for (std::int64_t c = 0; c < n; ++c) {
        SCOPED_TRACE(std::to_string(cases[c].x) + " / " + std::to_string(cases[c].y));
        EXPECT_EQ(ref.valueInt(td, {c}), cases[c].truncDiv);
        EXPECT_EQ(ref.valueInt(tm, {c}), cases[c].truncMod);
        EXPECT_EQ(ref.valueInt(fd, {c}), cases[c].floorDiv);
        EXPECT_EQ(ref.valueInt(fm, {c}), cases[c].floorMod);
    }

    yb.setInt(0, 0);
    ReferenceEvaluator zero({{x.get(), &xb}, {y.get(), &yb}});
    EXPECT_EQ(errorOf([&] { zero.value(fd, {0}); }),
              "integer division by zero (while computing Q[0])");
}

TEST(ReferenceTest, IntegersWrapToTheirType)
{
    const DataType int8{DataType::Int, 8, 1};
    Tensor a = placeholder("A", {1}, int8);
    HostBuffer ab = buffer(int8, {1}, {100});
    Tensor sum = compute1("S", 1, [&](Expr i) { return load(a, {i}) + load(a, {i}); });
    ReferenceEvaluator ref({{a.get(), &ab}});
    EXPECT_EQ(ref.valueInt(sum, {0}), -56);

    Tensor big = placeholder("B", {1}, DataType::int64());
    HostBuffer bb(DataType::int64(), {1});
    const std::int64_t v = (std::int64_t{1} << 62) + 3;
    bb.setInt(0, v);
    Tensor twice =
        compute1("T", 1, [&](Expr i) { return load(big, {i}) - makeInt(1, DataType::int64()); });
    ReferenceEvaluator ref64({{big.get(), &bb}});
    EXPECT_EQ(ref64.valueInt(twice, {0}), v - 1); // exact beyond 2^53
}

TEST(ReferenceTest, Casts)
{
    const DataType uint8{DataType::UInt, 8, 1}, int8{DataType::Int, 8, 1};
    Tensor f = placeholder("F", {6}, DataType::float64());
    HostBuffer fb = buffer(DataType::float64(), {6}, {2.7, -2.7, 0.0, -0.5, 300.5, -1.5});
    Tensor n = placeholder("N", {2}, DataType::int32());
    HostBuffer nb = buffer(DataType::int32(), {2}, {200, 2});
    ReferenceEvaluator ref({{f.get(), &fb}, {n.get(), &nb}});
    auto cast = [&](const Tensor& from, std::int64_t size, DataType to) {
        return compute1("C", size, [&](Expr i) { return makeCast(to, load(from, {i})); });
    };

    Tensor toInt = cast(f, 6, DataType::int32());
    std::vector<std::int64_t> truncated{2, -2, 0, 0, 300, -1};
    for (std::int64_t k = 0; k < 6; ++k)
        EXPECT_EQ(ref.valueInt(toInt, {k}), truncated[k]);

    Tensor toBool = cast(f, 6, DataType::boolean());
    std::vector<std::int64_t> truth{1, 1, 0, 1, 1, 1};
    for (std::int64_t k = 0; k < 6; ++k)
        EXPECT_EQ(ref.valueInt(toBool, {k}), truth[k]);

    Tensor toUInt8 = cast(f, 6, uint8);
    EXPECT_EQ(ref.valueInt(toUInt8, {4}), 44);  // 300 wraps modulo 256
    EXPECT_EQ(ref.valueInt(toUInt8, {5}), 255); // -1 wraps

    Tensor toInt8 = cast(n, 2, int8);
    EXPECT_EQ(ref.valueInt(toInt8, {0}), -56);
    Tensor intToFloat = cast(n, 2, DataType::float32());
    EXPECT_EQ(ref.value(intToFloat, {0}), 200.0);
    Tensor intToBool = cast(n, 2, DataType::boolean());
    EXPECT_EQ(ref.valueInt(intToBool, {1}), 1);
}

TEST(ReferenceTest, MathFunctions)
{
    Tensor a = placeholder("A", {4}, DataType::float64());
    HostBuffer ab = buffer(DataType::float64(), {4}, {0.25, 1.5, 2.0, 3.75});
    ReferenceEvaluator ref({{a.get(), &ab}});
    struct Case {
        CallOp op;
        double (*f)(double);
    };
    const Case cases[] = {
        {CallOp::Exp, [](double x) { return std::exp(x); }},
        {CallOp::Log, [](double x) { return std::log(x); }},
        {CallOp::Sqrt, [](double x) { return std::sqrt(x); }},
        {CallOp::Tanh, [](double x) { return std::tanh(x); }},
        {CallOp::Sigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }},
        {CallOp::Fabs, [](double x) { return std::fabs(-x); }},
        {CallOp::Floor, [](double x) { return std::floor(x); }},
        {CallOp::Ceil, [](double x) { return std::ceil(x); }},
    };
    for (const Case& c : cases) {
        Tensor t = compute1("M", 4, [&](Expr i) {
            Expr x = load(a, {i});
            if (c.op == CallOp::Fabs) x = makeFloat(0, DataType::float64()) - x;
            return makeCall(DataType::float64(), c.op, {x});
        });
        for (std::int64_t k = 0; k < 4; ++k)
            EXPECT_EQ(ref.value(t, {k}), c.f(ab.get(k))) << callOpName(c.op);
    }
    Tensor p = compute1("P", 4, [&](Expr i) {
        return makeCall(DataType::float64(), CallOp::Pow,
                        {load(a, {i}), makeFloat(3, DataType::float64())});
    });
    EXPECT_EQ(ref.value(p, {1}), 3.375);
}

TEST(ReferenceTest, Float16ResultsRoundToHalf)
{
    const DataType half{DataType::Float, 16, 1};
    Tensor a = placeholder("A", {1}, half);
    HostBuffer ab = buffer(half, {1}, {0.1});
    Tensor t = compute1("T", 1, [&](Expr i) { return load(a, {i}) * makeFloat(3, half); });
    ReferenceEvaluator ref({{a.get(), &ab}});
    EXPECT_EQ(ref.value(t, {0}), doubleFromHalf(halfFromDouble(ab.get(0) * 3)));
}

TEST(ReferenceTest, SharedProducersAreEvaluatedOncePerElement)
{
    // T_n[i] = T_{n-1}[i] + T_{n-1}[i]: 2^40 evaluations without memoization.
    Tensor a = placeholder("A", {3}, DataType::float64());
    HostBuffer ab = buffer(DataType::float64(), {3}, {1, 2, 3});
    Tensor t = a;
    for (int n = 0; n < 40; ++n) {
        Tensor prev = t;
        t = compute1("T" + std::to_string(n), 3,
                     [&](Expr i) { return load(prev, {i}) + load(prev, {i}); });
    }
    ReferenceEvaluator ref({{a.get(), &ab}});
    EXPECT_EQ(ref.value(t, {2}), 3.0 * std::ldexp(1.0, 40));

    // Caches are dropped on request, so new input contents are seen.
    ab.set(2, 1);
    EXPECT_EQ(ref.value(t, {2}), 3.0 * std::ldexp(1.0, 40));
    ref.clearCache();
    EXPECT_EQ(ref.value(t, {2}), std::ldexp(1.0, 40));
}

TEST(ReferenceTest, ReportsBadInputs)
{
    Tensor a = placeholder("A", {2, 3}), b = placeholder("B", {3, 2});
    Tensor c = matmul(a, b, 2, 2, 3);
    HostBuffer ab(DataType::float32(), {2, 3}), wrong(DataType::float32(), {2, 2});
    ReferenceEvaluator missing({{a.get(), &ab}});
    EXPECT_EQ(errorOf([&] { missing.value(c, {0, 0}); }), "no input buffer for placeholder 'B'");
    ReferenceEvaluator misshapen({{a.get(), &ab}, {b.get(), &wrong}});
    EXPECT_EQ(errorOf([&] {
                  misshapen.value(c, {0, 0});
              }),
              "input buffer for 'B' is float32[2, 2] but the placeholder is float32[3, 2]");
    HostBuffer bb(DataType::float32(), {3, 2});
    ReferenceEvaluator ref({{a.get(), &ab}, {b.get(), &bb}});
    EXPECT_EQ(errorOf([&] {
                  ref.value(c, {2, 0});
              }),
              "element C[2, 0] requested, outside its shape [2, 2]");
}

TEST(ReferenceTest, OutOfBoundsReadNamesTensorAndIndex)
{
    // Reading A[i + 1, k] runs off the end of A for the last row.
    Tensor a = placeholder("A", {2, 3}), b = placeholder("B", {3, 2});
    IterVar i = axis("i", 2), j = axis("j", 2), k = reduceAxis("k", 0, 3);
    Tensor c = makeCompute(
        "C", "", {i, j},
        makeReduce(ReduceOp::Sum,
                   load(a, {i->var + makeInt(1), k->var}) * load(b, {k->var, j->var}), {k}, Expr()),
        {});
    HostBuffer ab(DataType::float32(), {2, 3}), bb(DataType::float32(), {3, 2});
    ReferenceEvaluator ref({{a.get(), &ab}, {b.get(), &bb}});
    EXPECT_NO_THROW(ref.value(c, {0, 1}));
    EXPECT_EQ(errorOf([&] {
                  ref.value(c, {1, 1});
              }),
              "read of A[2, 0] is outside its shape [2, 3] (while computing C[1, 1])");
}

} // namespace
} // namespace loopscope
