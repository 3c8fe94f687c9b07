#include "runtime/Buffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace loopscope {
namespace {

const DataType kFloat16{DataType::Float, 16, 1};
const DataType kInt8{DataType::Int, 8, 1};
const DataType kInt16{DataType::Int, 16, 1};
const DataType kUInt8{DataType::UInt, 8, 1};

std::vector<DataType> allTypes()
{
    return {DataType::float32(),
            DataType::float64(),
            kFloat16,
            kInt8,
            kInt16,
            DataType::int32(),
            DataType::int64(),
            kUInt8,
            DataType::boolean()};
}

TEST(BufferTest, IsAlignedAndSizedForEveryType)
{
    for (DataType t : allTypes()) {
        for (std::vector<std::int64_t> shape :
             {std::vector<std::int64_t>{1}, {3, 5}, {7, 1, 9}, {0, 4}}) {
            HostBuffer b(t, shape);
            std::int64_t count = 1;
            for (std::int64_t d : shape)
                count *= d;
            SCOPED_TRACE(b.describe());
            EXPECT_EQ(b.elementCount(), count);
            EXPECT_EQ(b.byteSize(), count * t.bytes());
            ASSERT_NE(b.data(), nullptr);
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % HostBuffer::kAlignment, 0u);
            for (std::int64_t i = 0; i < count; ++i)
                EXPECT_EQ(b.get(i), 0.0);
        }
    }
}

TEST(BufferTest, RejectsVectorAndHandleTypes)
{
    EXPECT_FALSE(HostBuffer::supports(DataType::float32().withLanes(4)));
    EXPECT_FALSE(HostBuffer::supports(DataType::handle()));
    EXPECT_FALSE(HostBuffer::supports(DataType{DataType::UInt, 32, 1}));
    for (DataType t : allTypes())
        EXPECT_TRUE(HostBuffer::supports(t)) << t.str();
}

TEST(BufferTest, FloatsRoundTripAsTheirType)
{
    HostBuffer f64(DataType::float64(), {4});
    f64.set(0, 0.1);
    f64.set(1, -1e300);
    EXPECT_EQ(f64.get(0), 0.1);
    EXPECT_EQ(f64.get(1), -1e300);

    HostBuffer f32(DataType::float32(), {4});
    f32.set(0, 0.1);
    f32.set(1, 1.5);
    EXPECT_EQ(f32.get(0), static_cast<double>(0.1f));
    EXPECT_EQ(f32.get(1), 1.5);
    float raw;
    std::memcpy(&raw, f32.data(), sizeof raw);
    EXPECT_EQ(raw, 0.1f);
}

TEST(BufferTest, Float16IsStoredAsBitsAndRoundsToNearestEven)
{
    HostBuffer h(kFloat16, {8});
    struct Case {
        double in;
        double out;
        std::uint16_t bits;
    };
    const Case cases[] = {
        {1.0, 1.0, 0x3c00},
        {-2.5, -2.5, 0xc100},
        {65504.0, 65504.0, 0x7bff},
        {0x1p-24, 0x1p-24, 0x0001},                // smallest subnormal
        {1.0 + 0x1p-11, 1.0, 0x3c00},              // tie: rounds to even
        {1.0 + 3 * 0x1p-11, 1.0 + 0x1p-9, 0x3c02}, // tie: rounds to even (up)
        {0.1, 0.0999755859375, 0x2e66},
        {70000.0, std::numeric_limits<double>::infinity(), 0x7c00},
    };
    for (const Case& c : cases) {
        h.set(0, c.in);
        std::uint16_t bits;
        std::memcpy(&bits, h.data(), sizeof bits);
        EXPECT_EQ(bits, c.bits) << c.in;
        EXPECT_EQ(h.get(0), c.out) << c.in;
    }
    h.set(0, std::nan(""));
    EXPECT_TRUE(std::isnan(h.get(0)));
}

TEST(BufferTest, IntegersWrapAndTruncateLikeC)
{
    HostBuffer i8(kInt8, {2});
    i8.setInt(0, 130);
    EXPECT_EQ(i8.getInt(0), -126);
    i8.set(1, -3.9);
    EXPECT_EQ(i8.getInt(1), -3);
    EXPECT_EQ(i8.get(1), -3.0);

    HostBuffer u8(kUInt8, {2});
    u8.setInt(0, -1);
    EXPECT_EQ(u8.getInt(0), 255);
    u8.set(1, 256.7);
    EXPECT_EQ(u8.getInt(1), 0);

    HostBuffer i16(kInt16, {1});
    i16.setInt(0, -32769);
    EXPECT_EQ(i16.getInt(0), 32767);

    HostBuffer i32(DataType::int32(), {1});
    i32.setInt(0, std::int64_t{1} << 32 | 7);
    EXPECT_EQ(i32.getInt(0), 7);

    HostBuffer i64(DataType::int64(), {2});
    const std::int64_t big = (std::int64_t{1} << 62) + 1; // not representable as a double
    i64.setInt(0, big);
    EXPECT_EQ(i64.getInt(0), big);
    i64.setInt(1, std::numeric_limits<std::int64_t>::min());
    EXPECT_EQ(i64.getInt(1), std::numeric_limits<std::int64_t>::min());

    HostBuffer b(DataType::boolean(), {3});
    b.set(0, 0.5);
    b.setInt(1, -7);
    b.set(2, 0.0);
    EXPECT_EQ(b.getInt(0), 1);
    EXPECT_EQ(b.getInt(1), 1);
    EXPECT_EQ(b.getInt(2), 0);
}

TEST(BufferTest, FlatIndexIsRowMajor)
{
    HostBuffer b(DataType::float32(), {2, 3, 4});
    EXPECT_EQ(b.flatIndex({0, 0, 0}), 0);
    EXPECT_EQ(b.flatIndex({1, 2, 3}), 23);
    EXPECT_EQ(b.flatIndex({0, 1, 0}), 4);
}

TEST(BufferTest, CopiesAreDeep)
{
    HostBuffer a(DataType::float32(), {4});
    a.fillRandom(1);
    HostBuffer b = a;
    EXPECT_NE(b.data(), a.data());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.byteSize())), 0);
    b.set(2, 42);
    EXPECT_NE(a.get(2), 42.0);
}

// A buffer's data lies at the offset it was given within its page, whole cache lines, and a copy
// keeps it.
TEST(BufferTest, DataLiesAtItsOffsetWithinThePage)
{
    for (std::size_t offset : {0u, 1088u, 4095u, 4096u + 128u}) {
        HostBuffer b(DataType::float32(), {1000}, offset);
        const auto at = reinterpret_cast<std::uintptr_t>(b.data()) % HostBuffer::kPageAlignment;
        EXPECT_EQ(at, offset % 4096 / 64 * 64) << offset;
        b.set(999, 2.5);
        HostBuffer c = b;
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(c.data()) % HostBuffer::kPageAlignment, at);
        EXPECT_EQ(c.get(999), 2.5);
    }
}

TEST(BufferTest, RandomFillIsDeterministicAndInRange)
{
    for (DataType t : allTypes()) {
        SCOPED_TRACE(t.str());
        HostBuffer a(t, {1000}), b(t, {1000}), c(t, {1000});
        a.fillRandom(42);
        b.fillRandom(42);
        c.fillRandom(43);
        EXPECT_EQ(std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.byteSize())), 0);
        EXPECT_NE(std::memcmp(a.data(), c.data(), static_cast<std::size_t>(a.byteSize())), 0);
        double lo = 1e9, hi = -1e9;
        for (std::int64_t i = 0; i < a.elementCount(); ++i) {
            lo = std::min(lo, a.get(i));
            hi = std::max(hi, a.get(i));
        }
        if (t.isFloat()) {
            EXPECT_GE(lo, -1.0);
            EXPECT_LT(hi, 1.0);
            EXPECT_LT(lo, -0.9);
            EXPECT_GT(hi, 0.9);
        } else if (t.isBool()) {
            EXPECT_EQ(lo, 0.0);
            EXPECT_EQ(hi, 1.0);
        } else if (t.isUInt()) {
            EXPECT_EQ(lo, 0.0);
            EXPECT_EQ(hi, 8.0);
        } else {
            EXPECT_EQ(lo, -8.0);
            EXPECT_EQ(hi, 8.0);
        }
    }
}

// The generator is splitmix64, so values are fixed for a seed on every platform.
TEST(BufferTest, RandomFillMatchesSplitMix64)
{
    const std::uint64_t first = 0xe220a8397b1dcdafULL; // splitmix64's first output for seed 0
    std::uint64_t state = 0;
    EXPECT_EQ(splitMix64(state), first);
    HostBuffer f32(DataType::float32(), {1});
    f32.fillRandom(0);
    EXPECT_EQ(f32.get(0), static_cast<double>(first >> 40) * 0x1p-23 - 1.0);
    HostBuffer f64(DataType::float64(), {1});
    f64.fillRandom(0);
    EXPECT_EQ(f64.get(0), static_cast<double>(first >> 11) * 0x1p-52 - 1.0);
    HostBuffer i32(DataType::int32(), {1});
    i32.fillRandom(0);
    EXPECT_EQ(i32.getInt(0), -8 + static_cast<std::int64_t>((first >> 32) % 17));
}

} // namespace
} // namespace loopscope

// The seeded inputs are one implementation (protocol/InputFill.h) that a GPU runner on another
// machine shares: halves are built exactly as bits, so they must be the halves of their values.
TEST(InputFill, HalvesAreExactlyTheValuesTheyStandFor)
{
    const std::int64_t n = 4096;
    std::vector<std::uint16_t> bits(n);
    ASSERT_TRUE(loopscope::protocol::fillFromSeed(bits.data(), n, "float16", 11));
    std::uint64_t state = 11;
    for (std::int64_t i = 0; i < n; ++i) {
        const double v =
            static_cast<double>(loopscope::protocol::splitMix64(state) >> 53) * 0x1p-10 - 1.0;
        ASSERT_EQ(bits[static_cast<std::size_t>(i)], loopscope::halfFromDouble(v)) << v;
        ASSERT_EQ(loopscope::doubleFromHalf(bits[static_cast<std::size_t>(i)]), v);
    }
    EXPECT_FALSE(loopscope::protocol::fillFromSeed(bits.data(), 1, "complex64", 1));
}
