// Element types of tensors and expressions (float32, int8, float32x8, ...), as TVM spells them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace loopscope {

struct DataType {
    enum Code : std::uint8_t { Int, UInt, Float, Bool, Handle };

    Code code = Int;
    std::uint8_t bits = 32;
    std::uint16_t lanes = 1;

    static constexpr DataType int32() { return {Int, 32, 1}; }
    static constexpr DataType int64() { return {Int, 64, 1}; }
    static constexpr DataType float32() { return {Float, 32, 1}; }
    static constexpr DataType float64() { return {Float, 64, 1}; }
    static constexpr DataType boolean() { return {Bool, 1, 1}; }
    static constexpr DataType handle() { return {Handle, 64, 1}; }

    bool isInt() const { return code == Int; }
    bool isUInt() const { return code == UInt; }
    bool isIntegral() const { return code == Int || code == UInt; }
    bool isFloat() const { return code == Float; }
    bool isBool() const { return code == Bool; }
    bool isScalar() const { return lanes == 1; }
    bool isVector() const { return lanes > 1; }
    DataType element() const { return {code, bits, 1}; }
    DataType withLanes(int n) const { return {code, bits, static_cast<std::uint16_t>(n)}; }
    int bytes() const { return code == Bool ? 1 : (bits + 7) / 8; }

    // "float32", "int64", "bool", "float32x8"
    std::string str() const;
    // Accepts the dtype strings of DESIGN.md §1 (and vector forms "float32x4"); nullopt otherwise.
    static std::optional<DataType> parse(std::string_view text);

    friend bool operator==(const DataType&, const DataType&) = default;
};

} // namespace loopscope
