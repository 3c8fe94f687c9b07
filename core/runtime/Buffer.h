// Host memory for kernel arguments: an owned, 64-byte-aligned array of one element type and shape,
// with conversions to and from double/int64 and a seeded random fill that is the same everywhere.
#pragma once

#include "ir/DataType.h"
#include "protocol/InputFill.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loopscope {

// Element conversions shared by buffers and the reference interpreter. They follow what compiled
// code does: integers wrap to their width, floats round to nearest even, bool is "!= 0".
std::int64_t wrapToType(std::int64_t v, DataType t); // t integral or bool
std::int64_t truncToInt64(double v);                 // toward zero; NaN -> 0, saturating
double roundToType(double v, DataType t);            // the value as stored in a t
std::uint16_t halfFromDouble(double v);              // IEEE binary16 bits
double doubleFromHalf(std::uint16_t bits);

// The next number of splitmix64 (Steele, Lea, Flood 2014): small, fast, the same on every platform.
// Behind fillRandom (protocol/InputFill.h, which a GPU runner shares) and the sampled checks.
using protocol::splitMix64;

class HostBuffer {
public:
    static constexpr std::size_t kAlignment = 64;
    static constexpr std::size_t kPageAlignment = 4096;

    HostBuffer() = default; // empty: no elements, no storage
    // Zero-filled, its data `pageOffset` bytes past a page boundary (rounded down to whole cache
    // lines, modulo the page): buffers measured together get different offsets, the same in
    // every run, so that their elements do not alias in the caches by chance.
    HostBuffer(DataType dtype, std::vector<std::int64_t> shape, std::size_t pageOffset = 0);
    HostBuffer(const HostBuffer& other);
    HostBuffer& operator=(const HostBuffer& other);
    HostBuffer(HostBuffer&&) noexcept = default;
    HostBuffer& operator=(HostBuffer&&) noexcept = default;
    ~HostBuffer() = default;

    // The element types a buffer can hold: scalar float16/32/64, int8/16/32/64, uint8, bool.
    static bool supports(DataType t);

    DataType dtype() const { return m_dtype; }
    const std::vector<std::int64_t>& shape() const { return m_shape; }
    int ndim() const { return static_cast<int>(m_shape.size()); }
    std::int64_t elementCount() const { return m_count; }
    std::int64_t byteSize() const { return m_count * m_dtype.bytes(); }
    int elementBytes() const { return m_dtype.bytes(); }

    // Element storage: float16 as its uint16 bits, bool as one byte holding 0 or 1.
    void* data() { return bytes(); }
    const void* data() const { return bytes(); }

    // Row-major flat index of a multi-dimensional index (checked).
    std::int64_t flatIndex(const std::vector<std::int64_t>& index) const;

    // Element access through double: floats exact, integers converted (set truncates toward
    // zero, then wraps to the width; bool stores "!= 0").
    double get(std::int64_t flat) const;
    void set(std::int64_t flat, double value);
    // Element access through int64: exact for every integer type; floats truncate toward zero.
    std::int64_t getInt(std::int64_t flat) const;
    void setInt(std::int64_t flat, std::int64_t value);

    void fill(double value);
    // Floats uniform in [-1, 1); signed integers uniform in [-8, 8]; uint8 in [0, 8]; bool 0 or 1.
    // The same seed gives the same bits on every platform.
    void fillRandom(std::uint64_t seed);

    // "float32[64, 128]"
    std::string describe() const;

private:
    struct Free {
        void operator()(std::byte* p) const;
    };

    void allocate();
    std::byte* bytes() const { return m_data ? m_data.get() + m_offset : nullptr; }
    void checkFlat(std::int64_t flat) const;

    DataType m_dtype = DataType::float32();
    std::vector<std::int64_t> m_shape;
    std::int64_t m_count = 0;
    std::size_t m_offset = 0; // of the data from the start of the storage
    std::unique_ptr<std::byte[], Free> m_data;
};

} // namespace loopscope
