// The arithmetic analyzer: constant bounds from loop ranges, proofs, and index simplification.
#include "ir/Analyzer.h"

#include "ir/Printer.h"

#include <gtest/gtest.h>

#include <string>

namespace loopscope {
namespace {

// i in [0, 8), j in [0, 4); x and y unbound.
struct Vars {
    Var i{"i"}, j{"j"}, x{"x"}, y{"y"};
    Analyzer an;
    Vars()
    {
        an.bind(i, makeInt(0), makeInt(8));
        an.bind(j, makeInt(0), makeInt(4));
    }
    std::string simplified(const Expr& e) const { return printExpr(an.simplify(e)); }
};

std::string str(ConstBound b)
{
    auto end = [](std::int64_t v) {
        if (v == ConstBound::kNegInf) return std::string("-inf");
        if (v == ConstBound::kPosInf) return std::string("+inf");
        return std::to_string(v);
    };
    return "[" + end(b.lo) + ", " + end(b.hi) + "]";
}

TEST(Analyzer, BoundOfAnAffineIndexFollowsTheLoopRanges)
{
    Vars v;
    EXPECT_EQ(str(v.an.bound(v.i * 4 + v.j)), "[0, 31]");
    EXPECT_EQ(str(v.an.bound(v.i - v.j)), "[-3, 7]");
    EXPECT_EQ(str(v.an.bound(v.i * makeInt(-2) + 5)), "[-9, 5]");
    EXPECT_EQ(str(v.an.bound(v.i * v.j)), "[0, 21]");
    EXPECT_EQ(str(v.an.bound(min(v.i, v.j + 2))), "[0, 5]");
    EXPECT_EQ(str(v.an.bound(max(v.i, makeInt(3)))), "[3, 7]");
}

TEST(Analyzer, BoundOfFloorDivAndFloorMod)
{
    Vars v;
    EXPECT_EQ(str(v.an.bound(floordiv(v.i * 4 + v.j, makeInt(4)))), "[0, 7]");
    EXPECT_EQ(str(v.an.bound(floormod(v.x, makeInt(4)))), "[0, 3]");
    // All values in one period: the remainder's own range.
    EXPECT_EQ(str(v.an.bound(floormod(v.i + 16, makeInt(32)))), "[16, 23]");
    EXPECT_EQ(str(v.an.bound(floordiv(v.x, makeInt(4)))), "[-inf, +inf]");
}

TEST(Analyzer, UnboundAndSymbolicRangesAreOpenEnded)
{
    Vars v;
    EXPECT_FALSE(v.an.bound(v.x).bounded());
    EXPECT_EQ(str(v.an.bound(v.x + v.i)), "[-inf, +inf]");
    Var n("n"), k("k");
    v.an.bind(k, makeInt(2), n); // k in [2, 2 + n)
    EXPECT_EQ(str(v.an.bound(k)), "[2, +inf]");
    EXPECT_TRUE(v.an.isBound(k.get()));
    v.an.unbind(k.get());
    EXPECT_FALSE(v.an.isBound(k.get()));
    EXPECT_EQ(str(v.an.bound(k)), "[-inf, +inf]");
}

TEST(Analyzer, CanProveComparisonsThatHoldOverTheRanges)
{
    Vars v;
    EXPECT_TRUE(v.an.canProve(v.i * 4 + v.j < makeInt(32)));
    EXPECT_FALSE(v.an.canProve(v.i * 4 + v.j < makeInt(31)));
    EXPECT_TRUE(v.an.canProve(v.i - v.j >= makeInt(-3)));
    EXPECT_TRUE(v.an.canProve(floormod(v.x, makeInt(4)) < makeInt(4)));
    EXPECT_FALSE(v.an.canProve(v.x < makeInt(4)));
    EXPECT_TRUE(v.an.canProve(v.x + 1 > v.x));
}

TEST(Analyzer, FloorDivAndModOfASplitIndexRecoverItsParts)
{
    Vars v;
    EXPECT_EQ(v.simplified(floordiv(v.i * 4 + v.j, makeInt(4))), "i");
    EXPECT_EQ(v.simplified(floormod(v.i * 4 + v.j, makeInt(4))), "j");
    // j < 4 cannot carry into a division by 8: only i's share remains.
    EXPECT_EQ(v.simplified(floordiv(v.x * 4 + v.j, makeInt(8))), "x // 2");
    EXPECT_EQ(v.simplified(floormod(v.x * 4 + v.j, makeInt(8))), "x % 2 * 4 + j");
    // Without a range for y nothing is known about the remainder.
    EXPECT_EQ(v.simplified(floordiv(v.x * 8 + v.y, makeInt(4))), "x * 2 + y // 4");
}

TEST(Analyzer, NestedDivisionsByConstantsCombine)
{
    Var x("x");
    EXPECT_EQ(printExpr(simplify(floordiv(floordiv(x, makeInt(2)), makeInt(3)))), "x // 6");
    EXPECT_EQ(printExpr(simplify(floormod(floormod(x, makeInt(8)), makeInt(4)))), "x % 4");
    EXPECT_EQ(printExpr(simplify(floordiv(x, makeInt(4)) * 4 + floormod(x, makeInt(4)))), "x");
}

TEST(Analyzer, SumsAreCanonicalWithConstantsFolded)
{
    Var x("x"), y("y");
    EXPECT_EQ(printExpr(simplify(x * 1 + 0)), "x");
    EXPECT_EQ(printExpr(simplify((x + 3) - x + y * 2)), "y * 2 + 3");
    EXPECT_EQ(printExpr(simplify(y + x * 4 - 7)), "x * 4 + y - 7");
    EXPECT_EQ(printExpr(simplify((x + 6) * 7 - x * 7 - 2)), "40");
    Var f("f", DataType::float32());
    EXPECT_EQ(printExpr(simplify(f * makeFloat(1.0) + makeFloat(0.0))), "f");
}

TEST(Analyzer, MinMaxAndComparisonsAreDecidedFromRanges)
{
    Vars v;
    EXPECT_EQ(v.simplified(min(v.i, makeInt(10))), "i");
    EXPECT_EQ(v.simplified(max(v.i, makeInt(10))), "10");
    EXPECT_EQ(v.simplified(min(v.i, v.x)), "T.min(i, x)");
    // A guard of an uneven split: both sides divided by gcd(4, 10).
    EXPECT_EQ(v.simplified(v.x * 4 + v.j < makeInt(10)), "x * 2 + j // 2 < 5");
    std::int64_t value = -1;
    EXPECT_TRUE(isConstInt(v.an.simplify(v.j < makeInt(4)), &value));
    EXPECT_EQ(value, 1);
    EXPECT_TRUE(isConstInt(v.an.simplify(v.i * 4 >= makeInt(32)), &value));
    EXPECT_EQ(value, 0);
}

} // namespace
} // namespace loopscope
