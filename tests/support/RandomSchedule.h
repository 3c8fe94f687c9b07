// Random TE programs with random legal schedules, as script text, for differential testing of the
// compiler against the reference interpreter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace loopscope {

struct FuzzCase {
    std::string script;      // a complete TE script with one variant
    std::string description; // the program family, sizes, dtype and the primitives applied
};

// The case for `seed`: a small program (matmul, batch matmul, conv2d, pooling, elementwise chain,
// reduction) and a schedule built one step at a time, keeping a step only when the script still
// evaluates. The same seed always gives the same case.
FuzzCase generateCase(std::uint64_t seed);

// The case a fuzzer's input makes: its bytes make the generator's choices, one after another.
FuzzCase generateCase(const std::uint8_t* data, std::size_t size);

} // namespace loopscope
