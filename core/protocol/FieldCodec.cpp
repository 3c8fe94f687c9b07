// The codec's core: the field reader's checks and messages, and base64 for bytes.
#include "protocol/FieldCodec.h"

namespace loopscope::protocol::detail {

namespace {

std::string quoted(const char* name)
{
    return std::string("\"") + name + "\"";
}

const json& empty()
{
    static const json e = json::object();
    return e;
}

} // namespace

std::string Fields::text(const char* name, const std::string& fallback) const
{
    const json* v = find(name);
    if (!v) return fallback;
    if (!v->is_string()) fail(quoted(name) + " must be a string");
    return v->get<std::string>();
}

std::string Fields::requiredText(const char* name, const std::string& what) const
{
    if (!has(name)) fail("the request needs " + quoted(name) + what);
    return text(name);
}

std::int64_t Fields::integer(const char* name, std::int64_t fallback, std::int64_t min,
                             std::int64_t max) const
{
    const json* v = find(name);
    if (!v) return fallback;
    if (!v->is_number_integer()) fail(quoted(name) + " must be an integer");
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(max))
        fail(quoted(name) + " must be at most " + std::to_string(max));
    const std::int64_t x = v->get<std::int64_t>();
    if (x < min) fail(quoted(name) + " must be at least " + std::to_string(min));
    if (x > max) fail(quoted(name) + " must be at most " + std::to_string(max));
    return x;
}

std::uint64_t Fields::unsignedInteger(const char* name, std::uint64_t fallback) const
{
    const json* v = find(name);
    if (!v) return fallback;
    if (!v->is_number_integer() || (!v->is_number_unsigned() && v->get<std::int64_t>() < 0))
        fail(quoted(name) + " must be an integer of at least 0");
    return v->get<std::uint64_t>();
}

double Fields::number(const char* name, double fallback, double min) const
{
    const json* v = find(name);
    if (!v) return fallback;
    if (!v->is_number()) fail(quoted(name) + " must be a number");
    const double x = v->get<double>();
    if (!(x >= min)) fail(quoted(name) + " must be at least " + std::to_string(min));
    return x;
}

bool Fields::flag(const char* name, bool fallback) const
{
    const json* v = find(name);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(quoted(name) + " must be true or false");
    return v->get<bool>();
}

std::vector<std::string> Fields::texts(const char* name) const
{
    std::vector<std::string> out;
    const json* v = find(name);
    if (!v) return out;
    if (!v->is_array()) fail(quoted(name) + " must be a list of strings");
    for (auto& x : *v) {
        if (!x.is_string()) fail(quoted(name) + " must be a list of strings");
        out.push_back(x.get<std::string>());
    }
    return out;
}

std::vector<double> Fields::numbers(const char* name) const
{
    std::vector<double> out;
    const json* v = find(name);
    if (!v) return out;
    if (!v->is_array()) fail(quoted(name) + " must be a list of numbers");
    for (auto& x : *v) {
        if (!x.is_number()) fail(quoted(name) + " must be a list of numbers");
        out.push_back(x.get<double>());
    }
    return out;
}

Sets Fields::sets(const char* name) const
{
    Sets out;
    const json* v = find(name);
    if (!v) return out;
    if (!v->is_object()) fail(quoted(name) + " must be an object of NAME: integer");
    for (auto& [key, value] : v->items()) {
        if (!value.is_number_integer())
            fail(std::string(name) + ": " + key + " must be an integer");
        out[key] = value.get<std::int64_t>();
    }
    return out;
}

// An object field (an empty object when absent).
Fields Fields::object(const char* name) const
{
    const json* v = find(name);
    if (v && !v->is_object()) fail(quoted(name) + " must be an object");
    return Fields(v ? *v : empty(), m_kind, m_context);
}

// The entries of a list of objects.
std::vector<Fields> Fields::objects(const char* name) const
{
    std::vector<Fields> out;
    const json* v = find(name);
    if (!v) return out;
    if (!v->is_array()) fail(quoted(name) + " must be a list");
    for (auto& x : *v) {
        if (!x.is_object()) fail(quoted(name) + " must be a list of objects");
        out.emplace_back(x, m_kind, m_context);
    }
    return out;
}

std::string base64(const std::string& bytes)
{
    static const char* const digits =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::uint32_t b0 = static_cast<unsigned char>(bytes[i]);
        const std::uint32_t b1 =
            i + 1 < bytes.size() ? static_cast<unsigned char>(bytes[i + 1]) : 0;
        const std::uint32_t b2 =
            i + 2 < bytes.size() ? static_cast<unsigned char>(bytes[i + 2]) : 0;
        const std::uint32_t n = (b0 << 16) | (b1 << 8) | b2;
        out += digits[(n >> 18) & 63];
        out += digits[(n >> 12) & 63];
        out += i + 1 < bytes.size() ? digits[(n >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? digits[n & 63] : '=';
    }
    return out;
}

std::string fromBase64(const std::string& text)
{
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    std::string out;
    std::uint32_t bits = 0;
    int count = 0;
    for (char c : text) {
        const int v = value(c);
        if (v < 0) continue; // padding and line breaks
        bits = (bits << 6) | static_cast<std::uint32_t>(v);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out += static_cast<char>((bits >> count) & 0xff);
        }
    }
    return out;
}

} // namespace loopscope::protocol::detail
