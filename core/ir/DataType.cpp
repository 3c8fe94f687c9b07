#include "ir/DataType.h"

#include <charconv>

namespace loopscope {

std::string DataType::str() const
{
    std::string s;
    switch (code) {
    case Int: s = "int" + std::to_string(bits); break;
    case UInt: s = "uint" + std::to_string(bits); break;
    case Float: s = "float" + std::to_string(bits); break;
    case Bool: s = "bool"; break;
    case Handle: s = "handle"; break;
    }
    if (lanes > 1) s += "x" + std::to_string(lanes);
    return s;
}

std::optional<DataType> DataType::parse(std::string_view text)
{
    int lanes = 1;
    if (auto x = text.find('x'); x != std::string_view::npos) {
        auto digits = text.substr(x + 1);
        auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), lanes);
        if (ec != std::errc() || p != digits.data() + digits.size() || lanes < 2 || lanes > 512)
            return std::nullopt;
        text = text.substr(0, x);
    }
    DataType t;
    if (text == "bool")
        t = boolean();
    else if (text == "float16")
        t = {Float, 16, 1};
    else if (text == "float32")
        t = float32();
    else if (text == "float64")
        t = float64();
    else if (text == "int8")
        t = {Int, 8, 1};
    else if (text == "int16")
        t = {Int, 16, 1};
    else if (text == "int32")
        t = int32();
    else if (text == "int64")
        t = int64();
    else if (text == "uint8")
        t = {UInt, 8, 1};
    else if (text == "uint16")
        t = {UInt, 16, 1};
    else if (text == "uint32")
        t = {UInt, 32, 1};
    else if (text == "uint64")
        t = {UInt, 64, 1};
    else
        return std::nullopt;
    return t.withLanes(lanes);
}

} // namespace loopscope
