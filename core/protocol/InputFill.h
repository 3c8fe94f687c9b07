// The inputs a run is measured on, made from a seed the same way on every machine: the host's
// buffers, and a GPU runner's on another machine, so that only seeds travel. Floats are uniform
// in [-1, 1) at a resolution every value of the type holds exactly; integers in [-8, 8] (unsigned
// and bool: [0, 8] and [0, 1]). The numbers come from splitmix64 (Steele, Lea, Flood 2014).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

namespace loopscope::protocol {

inline std::uint64_t splitMix64(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Fills `count` elements of type `dtype` ("float32", "float64", "float16", "int8", "int16",
// "int32", "int64", "uint8", "bool") at `data`. False for another type.
inline bool fillFromSeed(void* data, std::int64_t count, const std::string& dtype,
                         std::uint64_t seed)
{
    std::uint64_t state = seed;
    auto* p = static_cast<unsigned char*>(data);
    auto put = [&](std::int64_t i, auto v) { std::memcpy(p + i * sizeof v, &v, sizeof v); };
    if (dtype == "float64") {
        for (std::int64_t i = 0; i < count; ++i)
            put(i, static_cast<double>(splitMix64(state) >> 11) * 0x1p-52 - 1.0);
    } else if (dtype == "float32") {
        for (std::int64_t i = 0; i < count; ++i)
            put(i,
                static_cast<float>(static_cast<double>(splitMix64(state) >> 40) * 0x1p-23 - 1.0));
    } else if (dtype == "float16") {
        // n / 1024 - 1 for n in [0, 2048): exactly a half, written as its bits.
        for (std::int64_t i = 0; i < count; ++i) {
            const auto n = static_cast<int>(splitMix64(state) >> 53);
            std::uint16_t bits = 0;
            if (n != 1024) {
                const bool negative = n < 1024;
                int m = negative ? 1024 - n : n - 1024; // |v| = m / 1024, m in [1, 1024]
                int e = 0;                              // |v| = 1.f * 2^(e - 10)
                while ((m >> e) > 1)
                    ++e;
                const int fraction = ((m << (10 - e)) & 0x3ff);
                bits = static_cast<std::uint16_t>((negative ? 0x8000 : 0) | ((e - 10 + 15) << 10) |
                                                  fraction);
            }
            put(i, bits);
        }
    } else {
        const bool isBool = dtype == "bool", isUnsigned = dtype == "uint8";
        const std::int64_t lo = isBool || isUnsigned ? 0 : -8, hi = isBool ? 1 : 8;
        const auto range = static_cast<std::uint64_t>(hi - lo + 1);
        for (std::int64_t i = 0; i < count; ++i) {
            const std::int64_t v =
                lo + static_cast<std::int64_t>((splitMix64(state) >> 32) % range);
            if (dtype == "int64") {
                put(i, v);
            } else if (dtype == "int32") {
                put(i, static_cast<std::int32_t>(v));
            } else if (dtype == "int16") {
                put(i, static_cast<std::int16_t>(v));
            } else if (dtype == "int8") {
                put(i, static_cast<std::int8_t>(v));
            } else if (isBool || isUnsigned) {
                put(i, static_cast<std::uint8_t>(v));
            } else {
                return false;
            }
        }
    }
    return true;
}

} // namespace loopscope::protocol
