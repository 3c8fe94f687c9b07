// The codec's core, inside the protocol library only: a message's fields are described once, by a
// function template `fields(V& v, Message& m)` in its family's header (MachineMessages.h,
// MeasureMessages.h, SweepMessages.h, TuneMessages.h, ModelMessages.h, GpuMessages.h), and two
// visitors walk that description: `Writer` puts each field into a JSON object, `Reader` takes it
// out of one with its type and range checks and their messages. A field absent from a line keeps
// the value the message starts with.
//
//   v("repeat", m.repeat, {.min = 1, .max = kMaxRepeat});  // an integer in a range
//   v("max_run_ms", m.maxRunMs, {.atLeast = 0, .write = m.maxRunMs > 0});
//   v.object("best", [&](auto& b) { b("trial", m.bestTrial); });  // a nested object
//   if (v.present("ms_median", m.timing.has_value())) ...  // written when set, read when there
//   v.flagged("ms", m.measured);  // no field: whether the line has "ms"
#pragma once

#include "protocol/Codec.h"

#include <nlohmann/json.hpp>

#include <array>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace loopscope::protocol::detail {

using json = nlohmann::json;

constexpr std::int64_t kMaxThreads = 4096;
constexpr std::int64_t kMaxRepeat = 1000000;

// How one field is read and written.
struct Field {
    std::int64_t min = std::numeric_limits<std::int64_t>::min(); // integers
    std::int64_t max = std::numeric_limits<std::int64_t>::max();
    double atLeast = -std::numeric_limits<double>::infinity(); // numbers
    const char* required = nullptr; // text the request cannot do without: what it is
    bool write = true;              // false: left out of the line (the reader still reads it)
};

// Bytes that travel as base64 text.
struct Base64 {
    std::string& bytes;
};
struct Base64List {
    std::vector<std::string>& items;
};

std::string base64(const std::string& bytes);
std::string fromBase64(const std::string& text);

// Reads the fields of one JSON object, each checked for its type (and range): a field of another
// type is a ProtocolError of `kind` that names it. Absent and null fields take the fallback.
class Fields {
public:
    Fields(const json& object, ErrorReply::Kind kind, std::string context = {})
        : m_o(object), m_kind(kind), m_context(std::move(context))
    {
    }

    const json* find(const char* name) const
    {
        if (!m_o.is_object()) return nullptr;
        auto it = m_o.find(name);
        if (it == m_o.end() || it->is_null()) return nullptr;
        return &*it;
    }
    bool has(const char* name) const { return find(name) != nullptr; }

    [[noreturn]] void fail(const std::string& message) const
    {
        throw ProtocolError(m_kind, m_context + message);
    }

    std::string text(const char* name, const std::string& fallback = {}) const;
    std::string requiredText(const char* name, const std::string& what) const;
    std::int64_t integer(const char* name, std::int64_t fallback,
                         std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                         std::int64_t max = std::numeric_limits<std::int64_t>::max()) const;
    int integer32(const char* name, int fallback,
                  std::int64_t min = std::numeric_limits<int>::min(),
                  std::int64_t max = std::numeric_limits<int>::max()) const
    {
        return static_cast<int>(integer(name, fallback, min, max));
    }
    std::uint64_t unsignedInteger(const char* name, std::uint64_t fallback) const;
    double number(const char* name, double fallback,
                  double min = -std::numeric_limits<double>::infinity()) const;
    bool flag(const char* name, bool fallback = false) const;
    std::vector<std::string> texts(const char* name) const;
    std::vector<double> numbers(const char* name) const;
    Sets sets(const char* name) const;
    // An object field (an empty object when absent).
    Fields object(const char* name) const;
    // The entries of a list of objects.
    std::vector<Fields> objects(const char* name) const;
    const json& value() const { return m_o; }

private:
    const json& m_o;
    ErrorReply::Kind m_kind;
    std::string m_context;
};

template <class T> struct IsOptional : std::false_type {
};
template <class T> struct IsOptional<std::optional<T>> : std::true_type {
};

// Puts fields into a JSON object.
class Writer {
public:
    static constexpr bool kReading = false;
    explicit Writer(json& out) : m_j(out) {}

    template <class T> void operator()(const char* name, T& x, const Field& f = {})
    {
        if (!f.write) return;
        if constexpr (IsOptional<T>::value) {
            if (x) (*this)(name, *x);
        } else {
            m_j[name] = put(x);
        }
    }
    void operator()(const char* name, Base64 x, const Field& f = {})
    {
        if (f.write) m_j[name] = base64(x.bytes);
    }
    void operator()(const char* name, Base64List x, const Field& f = {})
    {
        if (!f.write) return;
        json out = json::array();
        for (auto& b : x.items)
            out.push_back(base64(b));
        m_j[name] = out;
    }
    // A list of objects, each described by `each(visitor, item)`.
    template <class T, class Each>
    void list(const char* name, std::vector<T>& items, Each each, const Field& f = {})
    {
        if (!f.write) return;
        json out = json::array();
        for (auto& item : items) {
            json x = json::object();
            Writer w(x);
            each(w, item);
            out.push_back(x);
        }
        m_j[name] = out;
    }
    // A nested object whose fields `inner(visitor)` describes.
    template <class Inner> void object(const char* name, Inner inner, const Field& f = {})
    {
        if (!f.write) return;
        json x = json::object();
        Writer w(x);
        inner(w);
        m_j[name] = x;
    }
    // Whether a group of fields goes on the line: when `set`.
    bool present(const char*, bool set) const { return set; }
    // A flag that is no field of its own: true when the line has `name` (written: the flag).
    bool flagged(const char*, bool& flag) const { return flag; }
    // A condition the reader refuses a line for; nothing to write.
    void require(bool, const std::string&) const {}

    json& out() { return m_j; }

private:
    template <class T> json put(T& x)
    {
        if constexpr (requires(Writer & w) { fields(w, x); }) {
            json o = json::object();
            Writer w(o);
            fields(w, x);
            return o;
        } else if constexpr (requires { typename T::value_type; } &&
                             !std::is_same_v<T, std::string> && !std::is_same_v<T, Sets>) {
            // (Nested: the element type is looked at only where there is one.)
            if constexpr (requires(Writer & w, typename T::value_type & e) { fields(w, e); }) {
                json out = json::array();
                for (auto& e : x)
                    out.push_back(put(e));
                return out;
            } else {
                return json(x);
            }
        } else {
            return json(x);
        }
    }

    json& m_j;
};

// Takes fields out of a JSON object (the Fields reader's checks and messages).
class Reader {
public:
    static constexpr bool kReading = true;
    explicit Reader(const Fields& in) : m_f(in) {}

    void operator()(const char* name, std::string& x, const Field& f = {})
    {
        x = f.required ? m_f.requiredText(name, f.required) : m_f.text(name, x);
    }
    void operator()(const char* name, int& x, const Field& f = {})
    {
        x = m_f.integer32(name, x, std::max<std::int64_t>(f.min, std::numeric_limits<int>::min()),
                          std::min<std::int64_t>(f.max, std::numeric_limits<int>::max()));
    }
    void operator()(const char* name, std::int64_t& x, const Field& f = {})
    {
        x = m_f.integer(name, x, f.min, f.max);
    }
    void operator()(const char* name, std::uint32_t& x, const Field& = {})
    {
        x = static_cast<std::uint32_t>(m_f.integer(name, x, 0, 0xffffffff));
    }
    void operator()(const char* name, std::uint64_t& x, const Field& = {})
    {
        x = m_f.unsignedInteger(name, x);
    }
    void operator()(const char* name, double& x, const Field& f = {})
    {
        x = m_f.number(name, x, f.atLeast);
    }
    void operator()(const char* name, bool& x, const Field& = {}) { x = m_f.flag(name, x); }
    void operator()(const char* name, std::vector<std::string>& x, const Field& = {})
    {
        x = m_f.texts(name);
    }
    void operator()(const char* name, std::vector<double>& x, const Field& = {})
    {
        x = m_f.numbers(name);
    }
    void operator()(const char* name, Sets& x, const Field& = {}) { x = m_f.sets(name); }
    void operator()(const char* name, Base64 x, const Field& = {})
    {
        x.bytes = fromBase64(m_f.text(name));
    }
    void operator()(const char* name, Base64List x, const Field& = {})
    {
        x.items.clear();
        for (auto& o : m_f.texts(name))
            x.items.push_back(fromBase64(o));
    }
    // An optional value: read when the line has it.
    template <class T> void operator()(const char* name, std::optional<T>& x, const Field& f = {})
    {
        if (!m_f.has(name)) return;
        T value{};
        (*this)(name, value, f);
        x = std::move(value);
    }
    // A nested message.
    template <class T>
    requires requires(Reader& r, T& x) { fields(r, x); }
    void operator()(const char* name, T& x, const Field& = {})
    {
        const Fields inner = m_f.object(name);
        Reader r(inner);
        fields(r, x);
    }
    // A list of nested messages.
    template <class T>
    requires requires(Reader& r, T& x) { fields(r, x); }
    void operator()(const char* name, std::vector<T>& x, const Field& f = {})
    {
        list(
            name, x, [](Reader& r, T& item) { fields(r, item); }, f);
    }
    template <class T, class Each>
    void list(const char* name, std::vector<T>& items, Each each, const Field& = {})
    {
        items.clear();
        for (const Fields& entry : m_f.objects(name)) {
            T item{};
            Reader r(entry);
            each(r, item);
            items.push_back(std::move(item));
        }
    }
    template <class Inner> void object(const char* name, Inner inner, const Field& = {})
    {
        const Fields o = m_f.object(name);
        Reader r(o);
        inner(r);
    }
    bool present(const char* name, bool) const { return m_f.has(name); }
    bool flagged(const char* name, bool& flag) const { return flag = m_f.has(name); }
    void require(bool holds, const std::string& message) const
    {
        if (!holds) m_f.fail(message);
    }

    const Fields& in() const { return m_f; }

private:
    const Fields& m_f;
};

// A message to its JSON object and back.
template <class T> json encodeFields(const T& message)
{
    json j = json::object();
    Writer w(j);
    fields(w, const_cast<T&>(message)); // the writer only reads
    return j;
}

template <class T> T decodeFields(const Fields& in)
{
    T message{};
    Reader r(in);
    fields(r, message);
    return message;
}

} // namespace loopscope::protocol::detail
