#include "tune/TuneLog.h"

#include "ir/Printer.h"
#include "protocol/Json.h"

#include <nlohmann/json.hpp>

#include <optional>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fcntl.h>
#include <unistd.h>

namespace loopscope {

using json = nlohmann::json;

namespace {

// A record keeps what tells machines apart, not LLVM's long feature string (its CPU implies it).
protocol::Machine withoutFeatures(protocol::Machine m)
{
    m.features.clear();
    return m;
}

constexpr int kRecordVersion = 1;

// An integer field read strictly: a fraction, a number out of T's range or another type is
// refused by name (a cast of 1e300 to int would be undefined, not an error).
template <typename T> T integerOf(const json& v, const char* name)
{
    const bool fits =
        v.is_number_unsigned()
            ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())
            : v.is_number_integer() && v.get<std::int64_t>() >= std::numeric_limits<T>::min() &&
                  v.get<std::int64_t>() <= std::numeric_limits<T>::max();
    if (!fits) throw std::runtime_error(std::string(name) + " is not an integer in range");
    return static_cast<T>(v.get<std::int64_t>());
}

template <typename T> T integerOf(const json& object, const char* name, T fallback)
{
    auto it = object.find(name);
    return it == object.end() ? fallback : integerOf<T>(*it, name);
}

// A step's arguments by kind, in the log's compact form: "a" every loop (the axis arguments in
// the catalogue's order, a list of axes taking the rest), "n" the number of the first numeric
// argument (the second with "nparts": split's), "t" its one text, "at" its one stage. A step that
// form cannot hold (two numbers, two stages) is written whole: "args", by argument name.
bool isNumeric(ArgKind k)
{
    return k == ArgKind::Factor || k == ArgKind::Int || k == ArgKind::Value;
}

bool isText(ArgKind k)
{
    return k == ArgKind::Text || k == ArgKind::Scope || k == ArgKind::ThreadAxis ||
           k == ArgKind::Intrinsic;
}

bool namesStages(ArgKind k)
{
    return k == ArgKind::Stage || k == ArgKind::Tensors;
}

NamedStep fromCompact(const PrimitiveSpec& p, const std::string& stage,
                      const std::vector<std::string>& loops, std::optional<std::int64_t> number,
                      bool secondNumber, const std::string& text, const std::string& at)
{
    NamedStep s(p.name, stage);
    std::size_t nextLoop = 0;
    int numeric = 0;
    for (std::size_t i = 0; i < p.args.size(); ++i) {
        const ArgSpec& a = p.args[i];
        if (a.kind == ArgKind::Axis && nextLoop < loops.size()) {
            s.loops(a.name, {loops[nextLoop++]});
        } else if (a.kind == ArgKind::Axes && nextLoop < loops.size()) {
            s.loops(a.name, {loops.begin() + static_cast<std::ptrdiff_t>(nextLoop), loops.end()});
            nextLoop = loops.size();
        } else if (isNumeric(a.kind) && numeric++ == (secondNumber ? 1 : 0)) {
            s.number(a.name, number.value_or(0));
        } else if (isText(a.kind) && !text.empty()) {
            s.text(a.name, text);
        } else if (namesStages(a.kind) && !at.empty()) {
            s.stages(a.name, {at});
        }
    }
    return s;
}

NamedStep stepFromJson(const json& j)
{
    if (!j.is_object()) throw std::runtime_error("a step is not an object");
    const std::string primitive = j.at("p").get<std::string>();
    const PrimitiveSpec* p = findPrimitive(primitive);
    if (!p) throw std::runtime_error("a step of unknown primitive '" + primitive + "'");
    const std::string stage = j.at("s").get<std::string>();
    NamedStep s(primitive, stage);
    if (j.contains("args")) {
        const json& args = j.at("args");
        if (!args.is_object()) throw std::runtime_error("a step's args is not an object");
        for (const ArgSpec& a : p->args) {
            auto v = args.find(a.name);
            if (v == args.end()) continue;
            if (isNumeric(a.kind))
                s.number(a.name, integerOf<std::int64_t>(*v, "a step's argument"));
            else if (isText(a.kind))
                s.text(a.name, v->get<std::string>());
            else
                s.loops(a.name, v->get<std::vector<std::string>>());
        }
    } else {
        std::optional<std::int64_t> number;
        if (j.contains("n")) number = integerOf<std::int64_t>(j.at("n"), "a step's n");
        const bool second = j.contains("nparts") && j.at("nparts").get<bool>();
        const bool hasNumeric = std::any_of(p->args.begin(), p->args.end(),
                                            [](const ArgSpec& a) { return isNumeric(a.kind); });
        if (!number && hasNumeric) number = 0; // "n" is left out when it is 0
        s = fromCompact(*p, stage,
                        j.contains("a") ? j.at("a").get<std::vector<std::string>>()
                                        : std::vector<std::string>{},
                        number, second, j.contains("t") ? j.at("t").get<std::string>() : "",
                        j.contains("at") ? j.at("at").get<std::string>() : "");
    }
    if (j.contains("names")) s.names = j.at("names").get<std::vector<std::string>>();
    return s;
}

json stepJson(const NamedStep& s)
{
    json j{{"p", s.primitive}, {"s", s.stage}};
    if (!s.names.empty()) j["names"] = s.names;
    const PrimitiveSpec* p = findPrimitive(s.primitive);
    if (!p) return j;
    json compact = j;
    std::optional<std::int64_t> number;
    bool second = false;
    std::string text, at;
    int numeric = 0;
    for (const ArgSpec& a : p->args) {
        const NamedArg* v = s.arg(a.name);
        if (isNumeric(a.kind) && v) {
            number = v->number;
            second = numeric == 1;
        }
        if (isNumeric(a.kind)) ++numeric;
        if (isText(a.kind) && v) text = v->text;
        if (namesStages(a.kind) && v && !v->names.empty()) at = v->names.front();
    }
    const std::vector<std::string> loops = s.allLoops();
    if (!loops.empty()) compact["a"] = loops;
    if (number && *number != 0) compact["n"] = *number;
    if (second) compact["nparts"] = true;
    if (!text.empty()) compact["t"] = text;
    if (!at.empty()) compact["at"] = at;
    if (stepFromJson(compact) == s) return compact;
    json args = json::object();
    for (const ArgSpec& a : p->args) {
        const NamedArg* v = s.arg(a.name);
        if (!v) continue;
        if (isNumeric(a.kind))
            args[a.name] = v->number;
        else if (isText(a.kind))
            args[a.name] = v->text;
        else
            args[a.name] = v->names;
    }
    j["args"] = args;
    return j;
}

std::string stamp()
{
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y%m%d-%H%M%S", &tm);
    return buffer;
}

} // namespace

bool writeFileSafely(const std::string& path, const std::string& text, std::string* why)
{
    namespace fs = std::filesystem;
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        out.flush();
        if (!out) {
            *why = "cannot write " + tmp;
            std::error_code ec;
            fs::remove(tmp, ec);
            return false;
        }
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        *why = "cannot write " + path + ": " + ec.message();
        fs::remove(tmp, ec);
        return false;
    }
    return true;
}

std::string isoTimeNow()
{
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
}

std::string recordLine(const TuneRecord& r)
{
    json steps = json::array();
    for (auto& s : r.steps)
        steps.push_back(stepJson(s));
    json j{{"version", kRecordVersion},
           {"workload", r.workload},
           {"variant", r.variant},
           {"sizes", r.sizes},
           {"sketch", r.sketch},
           {"steps", steps},
           {"statements", r.statements},
           {"status", r.status},
           {"ms", r.ms},
           {"ms_median", r.msMedian},
           {"flops", r.flops},
           {"gflops", r.gflops},
           {"compile_ms", r.compileMs},
           {"checked", r.checked},
           {"machine", protocol::toJson(withoutFeatures(r.machine))},
           {"threads", r.threads},
           {"features_version", r.featuresVersion},
           {"trial", r.trial},
           {"elapsed_s", r.elapsedS},
           {"time", r.time}};
    if (!r.error.empty()) j["error"] = r.error;
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool parseRecord(const std::string& line, TuneRecord* out, std::string* why)
{
    try {
        json j = json::parse(line);
        if (!j.is_object()) throw std::runtime_error("not a JSON object");
        if (!j.at("version").is_number_integer() ||
            integerOf<std::int64_t>(j.at("version"), "version") != kRecordVersion)
            throw std::runtime_error("record version " + j.at("version").dump() + " is not " +
                                     std::to_string(kRecordVersion));
        TuneRecord r;
        r.workload = j.at("workload").get<std::string>();
        r.variant = j.at("variant").get<std::string>();
        const json& sizes = j.at("sizes");
        if (!sizes.is_object()) throw std::runtime_error("sizes is not an object");
        for (auto& [name, value] : sizes.items())
            r.sizes[name] = integerOf<std::int64_t>(value, "a size");
        r.sketch = j.value("sketch", "");
        for (auto& s : j.at("steps"))
            r.steps.push_back(stepFromJson(s));
        r.statements = j.value("statements", std::vector<std::string>{});
        r.status = j.at("status").get<std::string>();
        r.error = j.value("error", "");
        r.ms = j.value("ms", std::vector<double>{});
        r.msMedian = j.value("ms_median", 0.0);
        r.flops = j.value("flops", 0.0);
        r.gflops = j.value("gflops", 0.0);
        r.compileMs = j.value("compile_ms", 0.0);
        r.checked = j.value("checked", false);
        if (j.contains("machine")) r.machine = protocol::machineFromJson(j.at("machine"));
        r.threads = integerOf<int>(j, "threads", 0);
        r.featuresVersion = integerOf<int>(j, "features_version", 0);
        r.trial = integerOf<int>(j, "trial", 0);
        r.elapsedS = j.value("elapsed_s", 0.0);
        r.time = j.value("time", "");
        if (r.gflops < 0 || r.msMedian < 0 || r.flops < 0)
            throw std::runtime_error("negative time or speed");
        *out = std::move(r);
        return true;
    } catch (const std::exception& e) {
        if (why) {
            std::string what = e.what();
            // nlohmann's messages start with "[json.exception.type_error.302] ".
            auto close = what.find("] ");
            if (what.rfind("[json.exception", 0) == 0 && close != std::string::npos)
                what = what.substr(close + 2);
            *why = what;
        }
        return false;
    }
}

LogContents readLog(const std::string& path)
{
    LogContents out;
    std::ifstream in(path, std::ios::binary);
    if (!in) return out;
    out.exists = true;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        TuneRecord r;
        std::string why;
        if (parseRecord(line, &r, &why))
            out.records.push_back(std::move(r));
        else
            out.problems.push_back("line " + std::to_string(number) + ": " + why);
    }
    return out;
}

bool appendRecord(const std::string& path, const TuneRecord& record, std::string* why)
{
    std::string line = recordLine(record) + "\n";
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (why) *why = "cannot open " + path + ": " + std::strerror(errno);
        return false;
    }
    const char* p = line.data();
    std::size_t left = line.size();
    bool ok = true;
    while (left > 0) {
        ssize_t n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ok = false;
            if (why) *why = "cannot write " + path + ": " + std::strerror(errno);
            break;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    ::close(fd);
    return ok;
}

std::string setAsideCorruptLog(const std::string& path, const std::vector<TuneRecord>& whole)
{
    namespace fs = std::filesystem;
    std::string aside = path + ".corrupt-" + stamp();
    std::error_code ec;
    fs::rename(path, aside, ec);
    if (ec) return {};
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    for (auto& r : whole)
        out << recordLine(r) << "\n";
    return aside;
}

std::string tuningLogFileName(const std::string& scriptPath)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path absolute = fs::absolute(scriptPath, ec);
    if (ec) absolute = scriptPath;
    return absolute.stem().string() + "-" + fnv1aHex(absolute.lexically_normal().string(), 8) +
           ".jsonl";
}

std::string workloadKey(const Variant& start)
{
    std::string text;
    const Schedule& first = start.snapshots.front();
    for (auto& st : first.stages()) {
        text += st.name() + (st.isPlaceholder() ? ":placeholder;" : ":");
        if (!st.isPlaceholder()) text += printExpr(st.op->body) + ";";
        text += st.op->dtype.str() + "\n";
    }
    for (auto& step : start.steps)
        text += step.text + "\n";
    return fnv1aHex(text);
}

std::string fnv1aHex(const std::string& text, int digits)
{
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(h));
    return std::string(buffer + 16 - std::clamp(digits, 1, 16));
}

} // namespace loopscope
