#include "runtime/Buffer.h"

#include "ir/Diagnostic.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <new>

namespace loopscope {

namespace {

// Rounds a non-negative value to the nearest integer, ties to even, independent of the FPU mode.
double roundHalfEven(double q)
{
    double fl = std::floor(q);
    double diff = q - fl;
    if (diff > 0.5 || (diff == 0.5 && std::fmod(fl, 2.0) != 0.0)) fl += 1.0;
    return fl;
}

template <typename T> T load(const std::byte* p, std::int64_t i)
{
    T v;
    std::memcpy(&v, p + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));
    return v;
}

template <typename T> void store(std::byte* p, std::int64_t i, T v)
{
    std::memcpy(p + i * static_cast<std::int64_t>(sizeof(T)), &v, sizeof(T));
}

} // namespace

std::int64_t wrapToType(std::int64_t v, DataType t)
{
    if (t.isBool()) return v != 0 ? 1 : 0;
    if (t.bits >= 64) return v;
    auto u = static_cast<std::uint64_t>(v);
    std::uint64_t mask = (std::uint64_t{1} << t.bits) - 1;
    u &= mask;
    if (t.isInt() && (u >> (t.bits - 1)) != 0) u |= ~mask; // sign-extend
    return static_cast<std::int64_t>(u);
}

std::int64_t truncToInt64(double v)
{
    if (std::isnan(v)) return 0;
    if (v >= 9223372036854775807.0) return std::numeric_limits<std::int64_t>::max();
    if (v <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
    return static_cast<std::int64_t>(v); // truncates toward zero
}

std::uint16_t halfFromDouble(double v)
{
    std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
    double a = std::fabs(v);
    if (std::isnan(v)) return sign | 0x7e00;
    if (a >= 65520.0) return sign | 0x7c00; // 65520 is halfway to 2^16 and rounds to even: inf
    if (a < 0x1p-14) {
        // Subnormal (or zero): units of 2^-24; rounding up to 0x400 gives the smallest normal.
        return sign | static_cast<std::uint16_t>(roundHalfEven(a * 0x1p24));
    }
    int ex = 0;
    std::frexp(a, &ex); // a = m * 2^ex, m in [0.5, 1)
    int e = ex - 1;     // a / 2^e in [1, 2)
    double q = roundHalfEven((std::ldexp(a, -e) - 1.0) * 1024.0);
    if (q >= 1024.0) {
        q = 0;
        ++e;
    }
    return sign | static_cast<std::uint16_t>(((e + 15) << 10) | static_cast<int>(q));
}

double doubleFromHalf(std::uint16_t bits)
{
    double sign = (bits & 0x8000) ? -1.0 : 1.0;
    int e = (bits >> 10) & 0x1f;
    int m = bits & 0x3ff;
    if (e == 0) return sign * std::ldexp(m, -24);
    if (e == 31)
        return m == 0 ? sign * std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::quiet_NaN();
    return sign * std::ldexp(1024 + m, e - 25);
}

double roundToType(double v, DataType t)
{
    if (t.isFloat()) {
        if (t.bits == 32) return static_cast<double>(static_cast<float>(v));
        if (t.bits == 16) return doubleFromHalf(halfFromDouble(v));
        return v;
    }
    if (t.isBool()) return v != 0 ? 1.0 : 0.0;
    return static_cast<double>(wrapToType(truncToInt64(v), t));
}

void HostBuffer::Free::operator()(std::byte* p) const
{
    ::operator delete[](p, std::align_val_t{kPageAlignment});
}

bool HostBuffer::supports(DataType t)
{
    if (!t.isScalar()) return false;
    switch (t.code) {
    case DataType::Float: return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case DataType::Int: return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case DataType::UInt: return t.bits == 8;
    case DataType::Bool: return true;
    case DataType::Handle: return false;
    }
    return false;
}

HostBuffer::HostBuffer(DataType dtype, std::vector<std::int64_t> shape, std::size_t pageOffset)
    : m_dtype(dtype), m_shape(std::move(shape))
{
    LS_ASSERT(supports(dtype), "a host buffer cannot hold " + dtype.str());
    m_count = 1;
    for (std::int64_t d : m_shape) {
        LS_ASSERT(d >= 0, "negative dimension in host buffer shape");
        LS_ASSERT(d == 0 || m_count <= std::numeric_limits<std::int64_t>::max() / 64 / d,
                  "host buffer too large");
        m_count *= d;
    }
    m_offset = pageOffset % kPageAlignment / kAlignment * kAlignment;
    allocate();
    std::memset(bytes(), 0, static_cast<std::size_t>(byteSize()));
}

HostBuffer::HostBuffer(const HostBuffer& other)
    : m_dtype(other.m_dtype), m_shape(other.m_shape), m_count(other.m_count)
{
    if (!other.m_data) return;
    m_offset = other.m_offset;
    allocate();
    std::memcpy(bytes(), other.bytes(), static_cast<std::size_t>(byteSize()));
}

HostBuffer& HostBuffer::operator=(const HostBuffer& other)
{
    if (this != &other) *this = HostBuffer(other);
    return *this;
}

void HostBuffer::allocate()
{
    // At least one aligned block, so that data() is never null for a constructed buffer.
    // Page-aligned storage with the data `m_offset` bytes in, so that where a buffer's elements
    // fall within pages (and so which of them alias in the caches) is the same in every run.
    std::size_t bytes = static_cast<std::size_t>(byteSize());
    bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (bytes == 0) bytes = kAlignment;
    m_data.reset(static_cast<std::byte*>(
        ::operator new[](bytes + m_offset, std::align_val_t{kPageAlignment})));
}

std::int64_t HostBuffer::flatIndex(const std::vector<std::int64_t>& index) const
{
    LS_ASSERT(index.size() == m_shape.size(),
              "index has " + std::to_string(index.size()) + " dimensions, buffer " + describe());
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < index.size(); ++d) {
        LS_ASSERT(index[d] >= 0 && index[d] < m_shape[d],
                  "index " + std::to_string(index[d]) + " out of range in dimension " +
                      std::to_string(d) + " of " + describe());
        flat = flat * m_shape[d] + index[d];
    }
    return flat;
}

void HostBuffer::checkFlat(std::int64_t flat) const
{
    LS_ASSERT(flat >= 0 && flat < m_count,
              "element " + std::to_string(flat) + " out of range of " + describe());
}

double HostBuffer::get(std::int64_t i) const
{
    checkFlat(i);
    const std::byte* p = bytes();
    switch (m_dtype.code) {
    case DataType::Float:
        if (m_dtype.bits == 64) return load<double>(p, i);
        if (m_dtype.bits == 32) return load<float>(p, i);
        return doubleFromHalf(load<std::uint16_t>(p, i));
    default: return static_cast<double>(getInt(i));
    }
}

void HostBuffer::set(std::int64_t i, double v)
{
    checkFlat(i);
    std::byte* p = bytes();
    switch (m_dtype.code) {
    case DataType::Float:
        if (m_dtype.bits == 64)
            store<double>(p, i, v);
        else if (m_dtype.bits == 32)
            store<float>(p, i, static_cast<float>(v));
        else
            store<std::uint16_t>(p, i, halfFromDouble(v));
        return;
    case DataType::Bool: setInt(i, v != 0 ? 1 : 0); return;
    default: setInt(i, truncToInt64(v)); return;
    }
}

std::int64_t HostBuffer::getInt(std::int64_t i) const
{
    checkFlat(i);
    const std::byte* p = bytes();
    switch (m_dtype.code) {
    case DataType::Float: return truncToInt64(get(i));
    case DataType::Bool: return load<std::uint8_t>(p, i) != 0 ? 1 : 0;
    case DataType::UInt: return load<std::uint8_t>(p, i);
    case DataType::Int:
        switch (m_dtype.bits) {
        case 8: return load<std::int8_t>(p, i);
        case 16: return load<std::int16_t>(p, i);
        case 32: return load<std::int32_t>(p, i);
        default: return load<std::int64_t>(p, i);
        }
    case DataType::Handle: break;
    }
    return 0;
}

void HostBuffer::setInt(std::int64_t i, std::int64_t v)
{
    checkFlat(i);
    std::byte* p = bytes();
    std::int64_t w = m_dtype.isFloat() ? v : wrapToType(v, m_dtype);
    switch (m_dtype.code) {
    case DataType::Float: set(i, static_cast<double>(v)); return;
    case DataType::Bool:
    case DataType::UInt: store<std::uint8_t>(p, i, static_cast<std::uint8_t>(w)); return;
    case DataType::Int:
        switch (m_dtype.bits) {
        case 8: store<std::int8_t>(p, i, static_cast<std::int8_t>(w)); return;
        case 16: store<std::int16_t>(p, i, static_cast<std::int16_t>(w)); return;
        case 32: store<std::int32_t>(p, i, static_cast<std::int32_t>(w)); return;
        default: store<std::int64_t>(p, i, w); return;
        }
    case DataType::Handle: return;
    }
}

void HostBuffer::fill(double value)
{
    for (std::int64_t i = 0; i < m_count; ++i)
        set(i, value);
}

void HostBuffer::fillRandom(std::uint64_t seed)
{
    LS_ASSERT(protocol::fillFromSeed(bytes(), m_count, m_dtype.str(), seed),
              "no seeded inputs of type " << m_dtype.str());
}

std::string HostBuffer::describe() const
{
    std::string s = m_dtype.str() + "[";
    for (std::size_t d = 0; d < m_shape.size(); ++d) {
        if (d) s += ", ";
        s += std::to_string(m_shape[d]);
    }
    return s + "]";
}

} // namespace loopscope
