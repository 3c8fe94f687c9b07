// The worker protocol's codec: every key of the protocol is spelled in this file.
#include "protocol/Codec.h"

#include "protocol/Json.h"
#include "protocol/Protocol.h"

#include <limits>

namespace loopscope::protocol {

using json = nlohmann::json;

namespace {

constexpr std::int64_t kMaxThreads = 4096;
constexpr std::int64_t kMaxRepeat = 1000000;

// nlohmann's messages start with "[json.exception.parse_error.101] "; the rest is plain.
std::string withoutExceptionTag(const std::string& what)
{
    if (what.rfind("[json.exception.", 0) == 0) {
        auto end = what.find("] ");
        if (end != std::string::npos) return what.substr(end + 2);
    }
    return what;
}

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

    std::string text(const char* name, const std::string& fallback = {}) const
    {
        const json* v = find(name);
        if (!v) return fallback;
        if (!v->is_string()) fail(quoted(name) + " must be a string");
        return v->get<std::string>();
    }
    std::string requiredText(const char* name, const std::string& what) const
    {
        if (!has(name)) fail("the request needs " + quoted(name) + what);
        return text(name);
    }
    std::int64_t integer(const char* name, std::int64_t fallback,
                         std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                         std::int64_t max = std::numeric_limits<std::int64_t>::max()) const
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
    int integer32(const char* name, int fallback,
                  std::int64_t min = std::numeric_limits<int>::min(),
                  std::int64_t max = std::numeric_limits<int>::max()) const
    {
        return static_cast<int>(integer(name, fallback, min, max));
    }
    std::uint64_t unsignedInteger(const char* name, std::uint64_t fallback) const
    {
        const json* v = find(name);
        if (!v) return fallback;
        if (!v->is_number_integer() || (!v->is_number_unsigned() && v->get<std::int64_t>() < 0))
            fail(quoted(name) + " must be an integer of at least 0");
        return v->get<std::uint64_t>();
    }
    double number(const char* name, double fallback,
                  double min = -std::numeric_limits<double>::infinity()) const
    {
        const json* v = find(name);
        if (!v) return fallback;
        if (!v->is_number()) fail(quoted(name) + " must be a number");
        const double x = v->get<double>();
        if (!(x >= min)) fail(quoted(name) + " must be at least " + std::to_string(min));
        return x;
    }
    bool flag(const char* name, bool fallback = false) const
    {
        const json* v = find(name);
        if (!v) return fallback;
        if (!v->is_boolean()) fail(quoted(name) + " must be true or false");
        return v->get<bool>();
    }
    std::vector<std::string> texts(const char* name) const
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
    std::vector<double> numbers(const char* name) const
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
    Sets sets(const char* name) const
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
    Fields object(const char* name) const
    {
        const json* v = find(name);
        if (v && !v->is_object()) fail(quoted(name) + " must be an object");
        return Fields(v ? *v : empty(), m_kind, m_context);
    }
    // The entries of a list of objects.
    std::vector<Fields> objects(const char* name) const
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
    const json& value() const { return m_o; }

private:
    static std::string quoted(const char* name) { return std::string("\"") + name + "\""; }
    static const json& empty()
    {
        static const json e = json::object();
        return e;
    }

    const json& m_o;
    ErrorReply::Kind m_kind;
    std::string m_context;
};

std::string line(const json& message)
{
    return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

json withId(json message, std::optional<std::int64_t> id)
{
    if (id) message["id"] = *id;
    return message;
}

// ---- requests -------------------------------------------------------------------------------

void put(json& j, const PingRequest&)
{
    (void)j;
}

void put(json& j, const MeasureRequest& r)
{
    j["script"] = r.script;
    j["variant"] = r.variant;
    j["step"] = r.step;
    j["sets"] = r.sets;
    j["threads"] = r.threads;
    j["check"] = r.check;
    j["time"] = r.time;
    j["repeat"] = r.repeat;
    j["number"] = r.number;
    j["min_repeat_ms"] = r.minRepeatMs;
    j["seed"] = r.seed;
    j["opt_level"] = r.optLevel;
    if (r.maxRunMs > 0) j["max_run_ms"] = r.maxRunMs;
    if (r.profileSeconds > 0) j["profile_seconds"] = r.profileSeconds;
    if (r.hold) j["hold"] = true;
    if (r.testing.crash) j["crash"] = true;
    if (r.testing.corruptOutput) j["corrupt_output"] = true;
    if (r.testing.internalError) j["internal_error"] = true;
    if (r.testing.sleepMs > 0) j["sleep_ms"] = r.testing.sleepMs;
}

MeasureRequest measureRequest(const Fields& f)
{
    MeasureRequest r;
    r.script = f.requiredText("script", ", the script's text");
    r.variant = f.text("variant");
    r.step = f.integer32("step", -1);
    r.sets = f.sets("sets");
    r.threads = f.integer32("threads", 0, 0, kMaxThreads);
    r.check = f.flag("check", true);
    r.time = f.flag("time", true);
    r.repeat = f.integer32("repeat", r.repeat, 1, kMaxRepeat);
    r.number = f.integer32("number", r.number, 1, 1000000000);
    r.minRepeatMs = f.number("min_repeat_ms", r.minRepeatMs, 0.0);
    r.seed = f.unsignedInteger("seed", r.seed);
    r.optLevel = f.integer32("opt_level", r.optLevel, 0, 3);
    r.maxRunMs = f.number("max_run_ms", 0.0, 0.0);
    r.profileSeconds = f.number("profile_seconds", 0.0, 0.0);
    if (r.profileSeconds > 30) f.fail("\"profile_seconds\" is at most 30");
    r.hold = f.flag("hold");
    r.testing.crash = f.flag("crash");
    r.testing.corruptOutput = f.flag("corrupt_output");
    r.testing.internalError = f.flag("internal_error");
    r.testing.sleepMs = f.integer32("sleep_ms", 0, 0);
    return r;
}

void put(json& j, const GoRequest& r)
{
    j["repeat"] = r.repeat;
    j["min_repeat_ms"] = r.minRepeatMs;
    j["max_run_ms"] = r.maxRunMs;
}

GoRequest goRequest(const Fields& f)
{
    GoRequest r;
    r.repeat = f.integer32("repeat", r.repeat, 1, kMaxRepeat);
    r.minRepeatMs = f.number("min_repeat_ms", r.minRepeatMs, 0.0);
    r.maxRunMs = f.number("max_run_ms", r.maxRunMs, 0.0);
    return r;
}

void put(json& j, const EmitRequest& r)
{
    j["script"] = r.script;
    j["variant"] = r.variant;
    j["step"] = r.step;
    j["sets"] = r.sets;
    j["format"] = r.format;
    j["source"] = r.source;
    j["lines"] = r.lines;
    if (!r.target.empty()) j["target"] = r.target;
}

EmitRequest emitRequest(const Fields& f)
{
    EmitRequest r;
    r.script = f.requiredText("script", ", the script's text");
    r.variant = f.text("variant");
    r.step = f.integer32("step", -1);
    r.sets = f.sets("sets");
    r.format = f.text("format", r.format);
    r.source = f.text("source");
    r.lines = f.flag("lines");
    r.target = f.text("target");
    return r;
}

void put(json& j, const SweepRequest& r)
{
    j["script"] = r.script;
    j["params"] = r.parameters;
    if (!r.values.empty()) j["values"] = r.values;
    j["variants"] = r.variants;
    j["threads"] = r.threads;
    j["max_point_s"] = r.maxPointSeconds;
    j["check"] = r.check;
    j["blas"] = r.blas;
    j["repeat"] = r.repeat;
    j["min_repeat_ms"] = r.minRepeatMs;
    if (!r.known.empty()) {
        json known = json::array();
        for (auto& p : r.known)
            known.push_back(toJson(p, r.parameters));
        j["known"] = known;
    }
}

SweepRequest sweepRequest(const Fields& f)
{
    SweepRequest r;
    r.script = f.requiredText("script", ", the script's text");
    r.parameters = f.texts("params");
    if (r.parameters.empty()) f.fail("\"params\" must name at least one parameter");
    if (const json* v = f.find("values")) {
        if (!v->is_array() || v->empty()) f.fail("\"values\" must be a non-empty list of sizes");
        for (auto& x : *v) {
            if (!x.is_number_integer() || x.get<std::int64_t>() < 1)
                f.fail("\"values\" must be a non-empty list of positive integers");
            r.values.push_back(x.get<std::int64_t>());
        }
    }
    r.variants = f.texts("variants");
    r.threads = f.integer32("threads", 0, 0, kMaxThreads);
    r.maxPointSeconds = f.number("max_point_s", r.maxPointSeconds, 0.0);
    if (!(r.maxPointSeconds > 0)) f.fail("\"max_point_s\" must be more than 0");
    r.check = f.flag("check", true);
    r.blas = f.flag("blas");
    r.repeat = f.integer32("repeat", r.repeat, 1, kMaxRepeat);
    r.minRepeatMs = f.number("min_repeat_ms", r.minRepeatMs, 0.0);
    // Points the client measured before: they count as cached instead of being measured again.
    if (const json* known = f.find("known")) {
        if (!known->is_array()) f.fail("\"known\" must be a list of sweep points");
        for (auto& k : *known) {
            std::optional<SweepPoint> p = sweepPointFromJson(k);
            if (!p || p->values.size() != r.parameters.size() || p->threads < 1)
                f.fail("\"known\" holds a point without variant, threads or one value per "
                       "parameter");
            r.known.push_back(std::move(*p));
        }
    }
    return r;
}

void put(json& j, const MachineRequest& r)
{
    j["threads"] = r.threads;
}

MachineRequest machineRequest(const Fields& f)
{
    MachineRequest r;
    r.threads = f.integer32("threads", 0, 0, kMaxThreads);
    return r;
}

void put(json& j, const TuneRequest& r)
{
    j["script"] = r.script;
    j["variant"] = r.variant;
    j["sets"] = r.sets;
    j["trials"] = r.trials;
    j["seconds"] = r.seconds;
    j["threads"] = r.threads;
    j["forbid"] = r.forbid;
    j["log"] = r.log;
    j["resume"] = r.resume;
    j["seed"] = r.seed;
    j["peak"] = r.peak;
    j["hand"] = r.hand;
    if (r.crashFirst) j["crash_first"] = true;
    if (!r.runner.empty()) j["runner"] = r.runner;
    if (r.runners > 0) j["runners"] = r.runners;
}

TuneRequest tuneRequest(const Fields& f)
{
    TuneRequest r;
    r.script = f.requiredText("script", ", the script's text");
    r.variant = f.text("variant");
    r.sets = f.sets("sets");
    r.trials = f.integer32("trials", r.trials, 0);
    r.seconds = f.number("seconds", 0.0, 0.0);
    r.threads = f.integer32("threads", 0, 0, kMaxThreads);
    r.forbid = f.texts("forbid");
    r.log = f.text("log");
    r.resume = f.flag("resume");
    r.seed = f.unsignedInteger("seed", r.seed);
    r.peak = f.flag("peak");
    r.hand = f.flag("hand");
    r.crashFirst = f.flag("crash_first");
    r.runner = f.text("runner");
    r.runners = f.integer32("runners", 0, 0, 4096);
    return r;
}

void put(json& j, const ModelRequest& r)
{
    j["model"] = r.model;
    j["schedules"] = r.schedules;
    j["shapes"] = r.shapes;
    j["run"] = r.run;
    j["check"] = r.check;
    j["repeat"] = r.repeat;
    j["threads"] = r.threads;
    j["seed"] = r.seed;
}

ModelRequest modelRequest(const Fields& f)
{
    ModelRequest r;
    r.model = f.requiredText("model", ", the path of an ONNX file");
    r.schedules = f.text("schedules");
    if (const json* shapes = f.find("shapes")) {
        if (!shapes->is_object()) f.fail("\"shapes\" must be an object of NAME: [sizes]");
        for (auto& [name, dims] : shapes->items()) {
            if (!dims.is_array()) f.fail("shapes: " + name + " must be a list of sizes");
            for (auto& d : dims) {
                if (!d.is_number_integer()) f.fail("shapes: " + name + " must be a list of sizes");
                r.shapes[name].push_back(d.get<std::int64_t>());
            }
        }
    }
    r.run = f.flag("run", true);
    r.check = f.flag("check", true);
    r.repeat = f.integer32("repeat", r.repeat, 1, kMaxRepeat);
    r.threads = f.integer32("threads", 0, 0, kMaxThreads);
    r.seed = f.unsignedInteger("seed", r.seed);
    return r;
}

void put(json& j, const ModelChoiceRequest& r)
{
    j["model"] = r.model;
    j["schedules"] = r.schedules;
    j["workload"] = r.workload;
    j["name"] = r.name;
    if (r.script) j["script"] = *r.script;
    if (r.variant) j["variant"] = *r.variant;
    if (r.log) j["log"] = *r.log;
    if (r.reset) j["reset"] = true;
}

ModelChoiceRequest modelChoiceRequest(const Fields& f)
{
    ModelChoiceRequest r;
    r.model = f.requiredText("model", "");
    r.workload = f.requiredText("workload", "");
    r.schedules = f.text("schedules");
    r.name = f.text("name");
    if (f.has("script")) r.script = f.text("script");
    if (f.has("variant")) r.variant = f.text("variant");
    if (f.has("log")) r.log = f.text("log");
    r.reset = f.flag("reset");
    return r;
}

json arrayOf(const std::array<std::int64_t, 3>& a)
{
    return json::array({a[0], a[1], a[2]});
}

void put(json& j, const GpuRunRequest& r)
{
    j["ptx"] = r.ptx;
    json buffers = json::array();
    for (auto& b : r.buffers) {
        json x{{"name", b.name}, {"dtype", b.dtype}, {"shape", b.shape}};
        if (b.seed) x["seed"] = *b.seed;
        if (b.returned) x["returned"] = true;
        buffers.push_back(x);
    }
    j["buffers"] = buffers;
    json launches = json::array();
    for (auto& l : r.launches)
        launches.push_back({{"kernel", l.kernel},
                            {"grid", arrayOf(l.grid)},
                            {"block", arrayOf(l.block)},
                            {"shared_bytes", l.sharedBytes},
                            {"buffers", l.buffers},
                            {"sizes", l.sizes}});
    j["launches"] = launches;
    j["warmup"] = r.warmup;
    j["number"] = r.number;
    j["repeat"] = r.repeat;
    j["device"] = r.device;
    if (r.cublas)
        j["cublas"] = {{"m", r.cublas->m},
                       {"n", r.cublas->n},
                       {"k", r.cublas->k},
                       {"a", r.cublas->a},
                       {"b", r.cublas->b},
                       {"c", r.cublas->c},
                       {"trans_a", r.cublas->transA},
                       {"trans_b", r.cublas->transB}};
}

std::array<std::int64_t, 3> dims(const Fields& f, const char* name)
{
    std::array<std::int64_t, 3> out{1, 1, 1};
    const json* v = f.find(name);
    if (!v) return out;
    if (!v->is_array() || v->size() != 3) f.fail(std::string("\"") + name + "\" must be [x, y, z]");
    for (std::size_t i = 0; i < 3; ++i) {
        const json& x = (*v)[i];
        if (!x.is_number_integer() || x.get<std::int64_t>() < 1 ||
            x.get<std::int64_t>() > 2147483647)
            f.fail(std::string("\"") + name + "\" must be three integers of at least 1");
        out[i] = x.get<std::int64_t>();
    }
    return out;
}

GpuRunRequest gpuRunRequest(const Fields& f)
{
    GpuRunRequest r;
    r.ptx = f.requiredText("ptx", ", the kernels' PTX");
    for (const Fields& b : f.objects("buffers")) {
        GpuBuffer x;
        x.name = b.text("name");
        x.dtype = b.text("dtype", x.dtype);
        for (double d : b.numbers("shape")) {
            if (d < 0 || d != static_cast<double>(static_cast<std::int64_t>(d)))
                f.fail("a buffer's \"shape\" must be sizes");
            x.shape.push_back(static_cast<std::int64_t>(d));
        }
        if (b.has("seed")) x.seed = b.unsignedInteger("seed", 0);
        x.returned = b.flag("returned");
        r.buffers.push_back(x);
    }
    for (const Fields& l : f.objects("launches")) {
        GpuLaunch x;
        x.kernel = l.requiredText("kernel", ", the kernel's name");
        x.grid = dims(l, "grid");
        x.block = dims(l, "block");
        x.sharedBytes = l.integer("shared_bytes", 0, 0, 1 << 30);
        for (double d : l.numbers("buffers")) {
            if (d < 0 || d >= static_cast<double>(r.buffers.size()) ||
                d != static_cast<double>(static_cast<int>(d)))
                f.fail("a launch's \"buffers\" must be indices of the request's buffers");
            x.buffers.push_back(static_cast<int>(d));
        }
        for (double d : l.numbers("sizes"))
            x.sizes.push_back(static_cast<std::int64_t>(d));
        r.launches.push_back(x);
    }
    if (r.launches.empty()) f.fail("\"launches\" must name at least one kernel to launch");
    r.warmup = f.integer32("warmup", r.warmup, 0, 1000);
    r.number = f.integer32("number", r.number, 0, 1000000);
    r.repeat = f.integer32("repeat", r.repeat, 0, kMaxRepeat);
    r.device = f.integer32("device", 0, 0, 64);
    if (f.has("cublas")) {
        const Fields g = f.object("cublas");
        GpuGemm x;
        x.m = g.integer("m", 0, 1, 1 << 30);
        x.n = g.integer("n", 0, 1, 1 << 30);
        x.k = g.integer("k", 0, 1, 1 << 30);
        const int last = static_cast<int>(r.buffers.size()) - 1;
        x.a = g.integer32("a", 0, 0, last);
        x.b = g.integer32("b", 1, 0, last);
        x.c = g.integer32("c", 2, 0, last);
        x.transA = g.flag("trans_a");
        x.transB = g.flag("trans_b");
        r.cublas = x;
    }
    return r;
}

struct CommandEntry {
    const char* name;
    Request (*decode)(const Fields&);
};

// Every command, in the order ping's answer lists them.
const CommandEntry kCommands[] = {
    {"emit", [](const Fields& f) -> Request { return emitRequest(f); }},
    {"go", [](const Fields& f) -> Request { return goRequest(f); }},
    {"gpu_run", [](const Fields& f) -> Request { return gpuRunRequest(f); }},
    {"machine", [](const Fields& f) -> Request { return machineRequest(f); }},
    {"measure", [](const Fields& f) -> Request { return measureRequest(f); }},
    {"model", [](const Fields& f) -> Request { return modelRequest(f); }},
    {"model_choice", [](const Fields& f) -> Request { return modelChoiceRequest(f); }},
    {"ping", [](const Fields&) -> Request { return PingRequest{}; }},
    {"sweep", [](const Fields& f) -> Request { return sweepRequest(f); }},
    {"tune", [](const Fields& f) -> Request { return tuneRequest(f); }},
};

// ---- replies --------------------------------------------------------------------------------

json checkJson(const CheckedOutput& c)
{
    json x{{"tensor", c.tensor},
           {"ok", c.ok},
           {"elements", c.elements},
           {"max_abs_error", c.maxAbsError},
           {"max_rel_error", c.maxRelError}};
    if (!c.firstMismatch.empty()) x["first_mismatch"] = c.firstMismatch;
    if (!c.error.empty()) x["error"] = c.error;
    if (!c.skipped.empty()) x["skipped"] = c.skipped;
    return x;
}

CheckedOutput checkedOutput(const Fields& f)
{
    CheckedOutput c;
    c.tensor = f.text("tensor");
    c.ok = f.flag("ok");
    c.elements = f.integer("elements", 0);
    c.maxAbsError = f.number("max_abs_error", 0);
    c.maxRelError = f.number("max_rel_error", 0);
    c.firstMismatch = f.text("first_mismatch");
    c.error = f.text("error");
    c.skipped = f.text("skipped");
    return c;
}

StepProfile stepProfile(const Fields& f)
{
    StepProfile p;
    p.error = f.text("error");
    p.tir = f.text("tir");
    p.method = f.text("method");
    p.threads = f.integer32("threads", 0);
    p.runs = f.integer32("runs", 0);
    p.seconds = f.number("seconds", 0);
    p.samples = f.integer("samples", 0);
    p.inKernel = f.integer("in_kernel", 0);
    p.lost = f.integer("lost", 0);
    p.profileMs = f.number("profile_ms", 0);
    p.lineShare = f.numbers("line_share");
    p.loopShare = f.numbers("loop_share");
    for (const Fields& i : f.objects("instructions"))
        p.instructions.push_back({static_cast<std::uint32_t>(i.integer("o", 0, 0, 0xffffffff)),
                                  i.text("t"), i.integer32("l", 0), i.integer("s", 0)});
    if (f.has("counters")) {
        const Fields c = f.object("counters");
        p.counters = true;
        p.cycles = c.integer("cycles", 0);
        p.instructionsRetired = c.integer("instructions", 0);
        p.ipc = c.number("ipc", 0);
        p.l1dMisses = c.integer("l1d_misses", -1);
        p.llcMisses = c.integer("llc_misses", -1);
    }
    p.countersUnavailable = f.text("counters_unavailable");
    return p;
}

MeasureReply measureReply(const Fields& f, bool wrong)
{
    MeasureReply r;
    r.status = wrong ? MeasureReply::Status::Wrong : MeasureReply::Status::Ok;
    r.variant = f.text("variant");
    r.step = f.integer32("step", 0);
    r.steps = f.integer32("steps", 0);
    r.threads = f.integer32("threads", 0);
    r.parameters = f.sets("parameters");
    r.notes = f.texts("notes");
    r.lowerMs = f.number("lower_ms", 0);
    r.compileMs = f.number("compile_ms", 0);
    r.runMs = f.number("run_ms", 0);
    r.flops = f.number("flops", 0);
    r.checked = f.flag("checked");
    r.checkRan = f.has("check");
    for (const Fields& c : f.objects("check"))
        r.checks.push_back(checkedOutput(c));
    r.tooSlow = f.flag("too_slow");
    if (f.has("ms_median")) {
        Timing t;
        t.msMedian = f.number("ms_median", 0);
        t.msMin = f.number("ms_min", 0);
        t.msMax = f.number("ms_max", 0);
        t.number = f.integer32("number", 0);
        t.repeat = f.integer32("repeat", 0);
        t.gflops = f.number("gflops", 0);
        r.timing = t;
    }
    r.message = f.text("message");
    r.firstMismatch = f.text("first_mismatch");
    r.maxAbsError = f.number("max_abs_error", 0);
    if (f.has("profile")) r.profile = stepProfile(f.object("profile"));
    return r;
}

json tuneTrialJson(const TuneTrial& t)
{
    json j{{"trial", t.trial},
           {"status", t.status},
           {"gflops", t.gflops},
           {"ms", t.ms},
           {"sketch", t.sketch}};
    if (!t.error.empty()) j["error"] = t.error;
    return j;
}

json modelTaskJson(const ModelTask& t)
{
    json j{{"name", t.name},   {"workload", t.workload}, {"anchor", t.anchor},
           {"nodes", t.nodes}, {"weight", t.weight},     {"output", t.output},
           {"gflop", t.gflop}, {"script", t.script},     {"source", t.source}};
    if (!t.scriptFile.empty()) j["script_file"] = t.scriptFile;
    if (!t.logFile.empty()) j["log_file"] = t.logFile;
    if (!t.variant.empty()) j["variant"] = t.variant;
    if (!t.stale.empty()) j["stale"] = t.stale;
    if (t.measured) {
        j["ms"] = t.ms;
        j["share"] = t.share;
        j["gflops"] = t.gflops;
    }
    if (t.checked) {
        j["ok"] = t.ok;
        j["max_abs_error"] = t.maxAbsError;
        j["max_rel_error"] = t.maxRelError;
        j["first"] = t.first;
    }
    return j;
}

ModelTask modelTask(const Fields& f)
{
    ModelTask t;
    t.name = f.text("name");
    t.workload = f.text("workload");
    t.anchor = f.text("anchor");
    t.nodes = f.texts("nodes");
    t.weight = f.integer32("weight", 1);
    t.output = f.text("output");
    t.gflop = f.number("gflop", 0);
    t.script = f.text("script");
    t.scriptFile = f.text("script_file");
    t.logFile = f.text("log_file");
    t.source = f.text("source");
    t.variant = f.text("variant");
    t.stale = f.text("stale");
    t.measured = f.has("ms");
    t.ms = f.number("ms", 0);
    t.share = f.number("share", 0);
    t.gflops = f.number("gflops", 0);
    t.checked = f.has("ok");
    t.ok = f.flag("ok", true);
    t.maxAbsError = f.number("max_abs_error", 0);
    t.maxRelError = f.number("max_rel_error", 0);
    t.first = f.text("first");
    return t;
}

json namedShapes(const std::vector<NamedShape>& list)
{
    json out = json::array();
    for (auto& s : list)
        out.push_back({{"name", s.name}, {"shape", s.shape}});
    return out;
}

std::vector<NamedShape> namedShapes(const Fields& f, const char* name)
{
    std::vector<NamedShape> out;
    for (const Fields& s : f.objects(name))
        out.push_back({s.text("name"), s.text("shape")});
    return out;
}

ErrorReply::Kind errorKind(const std::string& name)
{
    for (auto k : {ErrorReply::Kind::Request, ErrorReply::Kind::Document, ErrorReply::Kind::Codegen,
                   ErrorReply::Kind::Protocol, ErrorReply::Kind::Internal})
        if (name == errorKindName(k)) return k;
    return ErrorReply::Kind::Internal;
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

} // namespace

// ---- Messages.h -------------------------------------------------------------------------------

const char* commandName(const Request& request)
{
    struct Name {
        const char* operator()(const PingRequest&) const { return "ping"; }
        const char* operator()(const MeasureRequest&) const { return "measure"; }
        const char* operator()(const GoRequest&) const { return "go"; }
        const char* operator()(const EmitRequest&) const { return "emit"; }
        const char* operator()(const SweepRequest&) const { return "sweep"; }
        const char* operator()(const MachineRequest&) const { return "machine"; }
        const char* operator()(const TuneRequest&) const { return "tune"; }
        const char* operator()(const ModelRequest&) const { return "model"; }
        const char* operator()(const ModelChoiceRequest&) const { return "model_choice"; }
        const char* operator()(const GpuRunRequest&) const { return "gpu_run"; }
    };
    return std::visit(Name{}, request);
}

const char* errorKindName(ErrorReply::Kind kind)
{
    switch (kind) {
    case ErrorReply::Kind::Request: return "request";
    case ErrorReply::Kind::Document: return "document";
    case ErrorReply::Kind::Codegen: return "codegen";
    case ErrorReply::Kind::Protocol: return "protocol";
    case ErrorReply::Kind::Internal: return "internal";
    }
    return "internal";
}

// ---- Json.h ---------------------------------------------------------------------------------

json toJson(const std::vector<CheckedOutput>& checks)
{
    json out = json::array();
    for (auto& c : checks)
        out.push_back(checkJson(c));
    return out;
}

json toJson(const StepProfile& p)
{
    if (!p.error.empty()) return {{"error", p.error}};
    json j{{"method", p.method},
           {"threads", p.threads},
           {"runs", p.runs},
           {"seconds", p.seconds},
           {"samples", p.samples},
           {"in_kernel", p.inKernel},
           {"lost", p.lost},
           {"tir", p.tir},
           {"profile_ms", p.profileMs},
           {"line_share", p.lineShare},
           {"loop_share", p.loopShare}};
    if (!p.instructions.empty()) {
        json ins = json::array();
        for (auto& i : p.instructions)
            ins.push_back({{"o", i.offset}, {"t", i.text}, {"l", i.line}, {"s", i.samples}});
        j["instructions"] = ins;
    }
    if (p.counters) {
        json c{{"cycles", p.cycles}, {"instructions", p.instructionsRetired}, {"ipc", p.ipc}};
        if (p.l1dMisses >= 0) c["l1d_misses"] = p.l1dMisses;
        if (p.llcMisses >= 0) c["llc_misses"] = p.llcMisses;
        j["counters"] = c;
    } else if (!p.countersUnavailable.empty()) {
        j["counters_unavailable"] = p.countersUnavailable;
    }
    return j;
}

json toJson(const MeasureReply& r)
{
    json j = json::object();
    j["lower_ms"] = r.lowerMs;
    j["compile_ms"] = r.compileMs;
    j["flops"] = r.flops;
    if (!r.wrong()) j["run_ms"] = r.runMs;
    j["checked"] = r.checked;
    if (r.tooSlow) j["too_slow"] = true;
    if (r.checkRan) j["check"] = toJson(r.checks);
    if (r.timing) {
        j["ms_median"] = r.timing->msMedian;
        j["ms_min"] = r.timing->msMin;
        j["ms_max"] = r.timing->msMax;
        j["number"] = r.timing->number;
        j["repeat"] = r.timing->repeat;
        j["gflops"] = r.timing->gflops;
    }
    if (!r.variant.empty()) {
        j["variant"] = r.variant;
        j["step"] = r.step;
        j["steps"] = r.steps;
        j["threads"] = r.threads;
        j["parameters"] = r.parameters;
        j["notes"] = r.notes;
    }
    if (r.wrong()) {
        j["message"] = r.message;
        j["first_mismatch"] = r.firstMismatch;
        j["max_abs_error"] = r.maxAbsError;
    }
    if (r.profile) j["profile"] = toJson(*r.profile);
    return j;
}

json toJson(const SweepPoint& p, const std::vector<std::string>& parameters)
{
    json j = json::object();
    j["variant"] = p.variant;
    for (std::size_t i = 0; i < parameters.size() && i < p.values.size(); ++i)
        j[parameters[i]] = p.values[i];
    j["values"] = p.values;
    j["threads"] = p.threads;
    j["reference"] = p.reference;
    j["skipped"] = p.skipped;
    j["failed"] = p.failed;
    j["checked"] = p.checked;
    j["cached"] = p.cached;
    if (!p.message.empty()) j["message"] = p.message;
    j["flops"] = p.flops;
    j["bytes"] = p.bytes;
    j["intensity"] = p.intensity;
    j["run_ms"] = p.runMs;
    if (p.measured()) {
        j["ms_median"] = p.msMedian;
        j["ms_min"] = p.msMin;
        j["ms_max"] = p.msMax;
        j["gflops"] = p.gflops;
    }
    return j;
}

std::optional<SweepPoint> sweepPointFromJson(const json& j)
{
    if (!j.is_object()) return std::nullopt;
    auto variant = j.find("variant");
    auto values = j.find("values");
    if (variant == j.end() || !variant->is_string() || values == j.end() || !values->is_array() ||
        values->empty())
        return std::nullopt;
    SweepPoint p;
    p.variant = variant->get<std::string>();
    for (auto& v : *values) {
        if (!v.is_number_integer()) return std::nullopt;
        p.values.push_back(v.get<std::int64_t>());
    }
    auto number = [&](const char* name) {
        auto it = j.find(name);
        return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
    };
    auto flag = [&](const char* name) {
        auto it = j.find(name);
        return it != j.end() && it->is_boolean() && it->get<bool>();
    };
    p.threads = static_cast<int>(number("threads"));
    p.reference = flag("reference");
    p.skipped = flag("skipped");
    p.failed = flag("failed");
    p.checked = flag("checked");
    p.cached = flag("cached");
    if (auto m = j.find("message"); m != j.end() && m->is_string())
        p.message = m->get<std::string>();
    p.flops = number("flops");
    p.bytes = number("bytes");
    p.intensity = number("intensity");
    p.runMs = number("run_ms");
    p.msMedian = number("ms_median");
    p.msMin = number("ms_min");
    p.msMax = number("ms_max");
    p.gflops = number("gflops");
    return p;
}

// ---- Codec.h: the client's side -----------------------------------------------------------------

std::string encodeRequest(const Request& request, std::int64_t id, const RequestLimits& limits)
{
    json j{{"id", id}, {"cmd", commandName(request)}, {"protocol", kWorkerProtocol}};
    std::visit([&](const auto& r) { put(j, r); }, request);
    if (limits.maxUnroll > 0) j["max_unroll"] = limits.maxUnroll;
    if (limits.maxReferenceSteps > 0) j["max_reference_steps"] = limits.maxReferenceSteps;
    return line(j);
}

struct Incoming::Body {
    json message;
};

Incoming Incoming::parse(const std::string& text)
{
    Incoming in;
    auto body = std::make_shared<Body>();
    try {
        body->message = json::parse(text);
    } catch (const json::exception& e) {
        throw ProtocolError(ErrorReply::Kind::Internal,
                            "the worker wrote a line that is not JSON: " +
                                withoutExceptionTag(e.what()));
    }
    const Fields f(body->message, ErrorReply::Kind::Internal, "the worker's message: ");
    if (!body->message.is_object()) f.fail("not a JSON object");
    if (f.has("id")) in.m_id = f.integer("id", 0);
    const std::string status = f.text("status");
    if (status == "progress")
        in.m_kind = Kind::Progress;
    else if (status == "ok")
        in.m_kind = Kind::Ok;
    else if (status == "wrong")
        in.m_kind = Kind::Wrong;
    else if (status == "error")
        in.m_kind = Kind::Error;
    else
        f.fail("an unknown status '" + status + "'");
    in.m_body = std::move(body);
    return in;
}

namespace {
json gpuDeviceJson(const GpuDevice& d)
{
    return {{"name", d.name},
            {"compute_capability", d.computeCapability},
            {"multiprocessors", d.multiprocessors},
            {"driver", d.driverVersion},
            {"shared_per_block", d.sharedPerBlock},
            {"max_threads_per_block", d.maxThreadsPerBlock}};
}

GpuDevice gpuDevice(const Fields& f)
{
    GpuDevice d;
    d.name = f.text("name");
    d.computeCapability = f.integer32("compute_capability", 0);
    d.multiprocessors = f.integer32("multiprocessors", 0);
    d.driverVersion = f.integer32("driver", 0);
    d.sharedPerBlock = f.integer("shared_per_block", 0);
    d.maxThreadsPerBlock = f.integer32("max_threads_per_block", 0);
    return d;
}

Fields fieldsOf(const json& message)
{
    return Fields(message, ErrorReply::Kind::Internal, "the worker's message: ");
}
} // namespace

Progress Incoming::progress() const
{
    const Fields f = fieldsOf(m_body->message);
    return {f.text("phase"), f.number("fraction", 0)};
}

SweepUpdate Incoming::sweepUpdate() const
{
    const Fields f = fieldsOf(m_body->message);
    SweepUpdate u;
    u.fraction = f.number("fraction", 0);
    u.done = f.integer32("done", 0);
    u.total = f.integer32("total", 0);
    u.parameters = f.texts("params");
    if (const json* p = f.find("point")) u.point = sweepPointFromJson(*p);
    return u;
}

TuneUpdate Incoming::tuneUpdate() const
{
    const Fields f = fieldsOf(m_body->message);
    TuneUpdate u;
    u.fraction = f.number("fraction", 0);
    u.done = f.integer32("trials_done", 0);
    u.planned = f.integer32("trials_planned", 0);
    u.elapsedS = f.number("elapsed_s", 0);
    u.remainingS = f.number("remaining_s", -1);
    if (f.has("trial")) {
        const Fields t = f.object("trial");
        u.trial = TuneTrial{t.integer32("trial", 0), t.text("status"), t.number("gflops", 0),
                            t.number("ms", 0),       t.text("error"),  t.text("sketch")};
    }
    const Fields best = f.object("best");
    u.bestTrial = best.integer32("trial", 0);
    u.bestGflops = best.number("gflops", 0);
    u.bestMs = best.number("ms", 0);
    u.bestStatements = f.texts("best_statements");
    u.bestTir = f.text("best_tir");
    u.startTir = f.text("start_tir");
    const Fields reference = f.object("reference");
    u.referenceName = reference.text("name");
    u.referenceGflops = reference.number("gflops", 0);
    u.peakGflops = f.number("peak_gflops", 0);
    const Fields hand = f.object("hand");
    u.handName = hand.text("name");
    u.handGflops = hand.number("gflops", 0);
    u.handMs = hand.number("ms", 0);
    const Fields machine = f.object("machine");
    u.cpu = machine.text("cpu");
    u.vectorBits = machine.integer32("vector_bits", 0);
    return u;
}

ErrorReply Incoming::error() const
{
    const Fields f = fieldsOf(m_body->message);
    ErrorReply e;
    e.kind = errorKind(f.text("kind"));
    e.message = f.text("message");
    e.line = f.integer32("line", 0);
    e.column = f.integer32("column", 0);
    return e;
}

PingReply Incoming::ping() const
{
    const Fields f = fieldsOf(m_body->message);
    PingReply r;
    r.version = f.text("version");
    r.protocol = f.integer32("protocol", 0);
    r.commands = f.texts("commands");
    r.triple = f.text("triple");
    r.cpu = f.text("cpu");
    r.llvmCpu = f.text("llvm_cpu");
    r.cpuNote = f.text("cpu_note");
    r.cpuName = f.text("cpu_name");
    r.host = f.text("host");
    r.features = f.text("features");
    r.vectorBits = f.integer32("vector_bits", 0);
    r.llvmVersion = f.text("llvm");
    r.threads = f.integer32("threads", 0);
    r.testing = f.flag("testing");
    r.gpu = gpuDevice(f.object("gpu"));
    return r;
}

GpuRunReply Incoming::gpuRun() const
{
    const Fields f = fieldsOf(m_body->message);
    GpuRunReply r;
    r.device = gpuDevice(f.object("device"));
    for (const Fields& k : f.objects("kernels"))
        r.kernels.push_back({k.text("name"), k.integer32("registers", 0),
                             k.integer32("local_bytes", 0), k.integer32("shared_bytes", 0),
                             k.integer32("max_threads_per_block", 0),
                             k.integer32("blocks_per_sm", 0)});
    r.ms = f.numbers("ms");
    for (auto& o : f.texts("outputs"))
        r.outputs.push_back(fromBase64(o));
    r.log = f.text("log");
    r.cublasMs = f.numbers("cublas_ms");
    r.cublas = f.text("cublas");
    r.cublasNote = f.text("cublas_note");
    return r;
}

MeasureReply Incoming::measure() const
{
    return measureReply(fieldsOf(m_body->message), m_kind == Kind::Wrong);
}

EmitReply Incoming::emitted() const
{
    const Fields f = fieldsOf(m_body->message);
    EmitReply r;
    r.format = f.text("format");
    r.variant = f.text("variant");
    r.step = f.integer32("step", 0);
    r.steps = f.integer32("steps", 0);
    r.function = f.text("function");
    r.suffix = f.text("suffix");
    r.target = f.text("target");
    r.text = f.text("text");
    r.data = fromBase64(f.text("data"));
    r.header = f.text("header");
    return r;
}

SweepReply Incoming::sweep() const
{
    const Fields f = fieldsOf(m_body->message);
    SweepReply r;
    r.parameters = f.texts("params");
    r.variants = f.texts("variants");
    if (const json* points = f.find("points"); points && points->is_array())
        for (auto& p : *points)
            if (auto point = sweepPointFromJson(p)) r.points.push_back(std::move(*point));
    r.total = f.integer32("total", 0);
    r.measured = f.integer32("measured", 0);
    r.threads = f.integer32("threads", 0);
    r.blas = f.text("blas");
    r.blasNote = f.text("blas_note");
    return r;
}

MachineReply Incoming::machine() const
{
    const Fields f = fieldsOf(m_body->message);
    MachineReply r;
    r.peakGflops = f.number("peak_gflops", 0);
    r.vectorBits = f.integer32("vector_bits", 0);
    r.bandwidthGbs = f.number("bandwidth_gbs", 0);
    r.threads = f.integer32("threads", 0);
    r.clockGhz = f.number("clock_ghz", 0);
    return r;
}

TuneReply Incoming::tune() const
{
    const Fields f = fieldsOf(m_body->message);
    TuneReply r;
    r.start = f.text("start");
    r.name = f.text("name");
    r.trials = f.integer32("trials", 0);
    r.reused = f.integer32("reused", 0);
    r.failed = f.integer32("failed", 0);
    const Fields best = f.object("best");
    r.bestTrial = best.integer32("trial", 0);
    r.bestGflops = best.number("gflops", 0);
    r.bestMs = best.number("ms", 0);
    r.sketch = best.text("sketch");
    r.statements = f.texts("statements");
    r.bestTir = f.text("best_tir");
    r.notes = f.texts("notes");
    r.log = f.text("log");
    return r;
}

ModelReply Incoming::model() const
{
    const Fields f = fieldsOf(m_body->message);
    ModelReply r;
    r.model = f.text("model");
    r.project = f.text("project");
    r.importMs = f.number("import_ms", 0);
    r.notes = f.texts("notes");
    const Fields graph = f.object("graph");
    for (const Fields& n : graph.objects("nodes"))
        r.nodes.push_back({n.text("name"), n.text("op"), n.texts("inputs"),
                           namedShapes(n, "outputs"), n.integer32("task", -1)});
    r.inputs = namedShapes(graph, "inputs");
    r.outputs = graph.texts("outputs");
    for (const Fields& t : f.objects("tasks"))
        r.tasks.push_back(modelTask(t));
    r.ran = f.has("median_ms");
    r.compileMs = f.number("compile_ms", 0);
    r.bufferBytes = f.number("buffer_bytes", 0);
    r.threads = f.integer32("threads", 0);
    r.medianMs = f.number("median_ms", 0);
    r.minMs = f.number("min_ms", 0);
    r.maxMs = f.number("max_ms", 0);
    r.checked = f.has("outputs");
    r.checkPassed = f.flag("checked");
    r.firstWrongTask = f.text("first_wrong_task");
    for (const Fields& o : f.objects("outputs"))
        r.outputChecks.push_back({o.text("name"), o.flag("ok", true), o.number("max_abs_error", 0),
                                  o.number("max_rel_error", 0), o.text("first")});
    return r;
}

ModelChoiceReply Incoming::modelChoice() const
{
    return {fieldsOf(m_body->message).text("project")};
}

// ---- Codec.h: the worker's side -----------------------------------------------------------------

const std::vector<std::string>& workerCommands()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (auto& c : kCommands)
            if (std::string(c.name) != "go" && std::string(c.name) != "gpu_run")
                out.emplace_back(c.name);
        return out;
    }();
    return names;
}

IncomingRequest decodeRequest(const std::string& text, std::optional<std::int64_t>* idOut)
{
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throw ProtocolError(ErrorReply::Kind::Request,
                            "the request is not valid JSON: " + withoutExceptionTag(e.what()));
    }
    const Fields f(j, ErrorReply::Kind::Request);
    if (!j.is_object()) f.fail("a request must be a JSON object");
    IncomingRequest in;
    if (f.has("id")) {
        in.id = f.integer("id", 0);
        if (idOut) *idOut = in.id;
    }
    // A client of another build: refused before anything of the request is read. (A request
    // without a version, as a person types one, is served.)
    if (f.has("protocol")) {
        const std::int64_t theirs = f.integer("protocol", 0);
        const std::string mismatch = protocolMismatch(static_cast<int>(theirs), "the client");
        if (!mismatch.empty()) throw ProtocolError(ErrorReply::Kind::Protocol, mismatch);
    }
    if (!f.has("cmd")) f.fail("the request has no \"cmd\"");
    const std::string cmd = f.text("cmd");
    const CommandEntry* entry = nullptr;
    for (auto& c : kCommands)
        if (cmd == c.name) entry = &c;
    if (!entry) {
        std::string known;
        for (auto& c : workerCommands())
            known += (known.empty() ? "" : ", ") + c;
        f.fail("unknown command '" + cmd + "' (commands: " + known + ")");
    }
    in.limits.maxUnroll = f.integer("max_unroll", 0, 1);
    in.limits.maxReferenceSteps = f.integer("max_reference_steps", 0, 1);
    in.request = entry->decode(f);
    return in;
}

std::string peekCommand(const std::string& text)
{
    const json j = json::parse(text, nullptr, false);
    if (!j.is_object()) return {};
    auto it = j.find("cmd");
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::int64_t> peekId(const std::string& text)
{
    const json j = json::parse(text, nullptr, false);
    if (!j.is_object()) return std::nullopt;
    auto it = j.find("id");
    if (it == j.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<std::int64_t>();
}

std::string encodeProgress(std::optional<std::int64_t> id, const Progress& p)
{
    return line(withId({{"status", "progress"}, {"phase", p.phase}, {"fraction", p.fraction}}, id));
}

std::string encodeProgress(std::optional<std::int64_t> id, const SweepUpdate& u)
{
    json j{{"status", "progress"}, {"phase", "sweep"}, {"fraction", u.fraction},
           {"done", u.done},       {"total", u.total}, {"params", u.parameters}};
    if (u.point) j["point"] = toJson(*u.point, u.parameters);
    return line(withId(j, id));
}

std::string encodeProgress(std::optional<std::int64_t> id, const TuneUpdate& u)
{
    json j{{"status", "progress"},
           {"phase", "tune"},
           {"fraction", u.fraction},
           {"trials_done", u.done},
           {"trials_planned", u.planned}};
    if (u.done > 0 || u.trial) {
        j["elapsed_s"] = u.elapsedS;
        j["remaining_s"] = u.remainingS;
    }
    if (u.trial) j["trial"] = tuneTrialJson(*u.trial);
    if (u.bestTrial > 0)
        j["best"] = {{"trial", u.bestTrial}, {"gflops", u.bestGflops}, {"ms", u.bestMs}};
    if (!u.bestStatements.empty()) j["best_statements"] = u.bestStatements;
    if (!u.bestTir.empty()) j["best_tir"] = u.bestTir;
    if (!u.startTir.empty()) j["start_tir"] = u.startTir;
    if (!u.referenceName.empty())
        j["reference"] = {{"name", u.referenceName}, {"gflops", u.referenceGflops}};
    if (u.peakGflops > 0) j["peak_gflops"] = u.peakGflops;
    if (!u.handName.empty())
        j["hand"] = {{"name", u.handName}, {"ms", u.handMs}, {"gflops", u.handGflops}};
    if (!u.cpu.empty()) j["machine"] = {{"cpu", u.cpu}, {"vector_bits", u.vectorBits}};
    return line(withId(j, id));
}

std::string encodeError(std::optional<std::int64_t> id, const ErrorReply& e)
{
    return line(withId({{"status", "error"},
                        {"kind", errorKindName(e.kind)},
                        {"message", e.message},
                        {"line", e.line},
                        {"column", e.column}},
                       id));
}

std::string encodeReply(std::optional<std::int64_t> id, const PingReply& r)
{
    return line(withId({{"status", "ok"},
                        {"version", r.version},
                        {"protocol", r.protocol},
                        {"commands", r.commands},
                        {"triple", r.triple},
                        {"cpu", r.cpu},
                        {"llvm_cpu", r.llvmCpu},
                        {"cpu_note", r.cpuNote},
                        {"cpu_name", r.cpuName},
                        {"host", r.host},
                        {"features", r.features},
                        {"vector_bits", r.vectorBits},
                        {"llvm", r.llvmVersion},
                        {"threads", r.threads},
                        {"testing", r.testing},
                        {"gpu", gpuDeviceJson(r.gpu)}},
                       id));
}

std::string encodeReply(std::optional<std::int64_t> id, const GpuRunReply& r)
{
    json kernels = json::array();
    for (auto& k : r.kernels)
        kernels.push_back({{"name", k.name},
                           {"registers", k.registers},
                           {"local_bytes", k.localBytes},
                           {"shared_bytes", k.sharedBytes},
                           {"max_threads_per_block", k.maxThreadsPerBlock},
                           {"blocks_per_sm", k.blocksPerSm}});
    json outputs = json::array();
    for (auto& o : r.outputs)
        outputs.push_back(base64(o));
    return line(withId({{"status", "ok"},
                        {"device", gpuDeviceJson(r.device)},
                        {"kernels", kernels},
                        {"ms", r.ms},
                        {"outputs", outputs},
                        {"log", r.log},
                        {"cublas_ms", r.cublasMs},
                        {"cublas", r.cublas},
                        {"cublas_note", r.cublasNote}},
                       id));
}

std::string encodeReply(std::optional<std::int64_t> id, const MeasureReply& r)
{
    json j = toJson(r);
    j["status"] = r.wrong() ? "wrong" : "ok";
    return line(withId(j, id));
}

std::string encodeReply(std::optional<std::int64_t> id, const EmitReply& r)
{
    json j{{"status", "ok"},     {"format", r.format}, {"variant", r.variant},
           {"step", r.step},     {"steps", r.steps},   {"function", r.function},
           {"suffix", r.suffix}, {"target", r.target}, {"text", r.text}};
    // An object's bytes travel as base64; its header, the typed prototype, as text.
    if (!r.data.empty()) j["data"] = base64(r.data);
    if (!r.header.empty()) j["header"] = r.header;
    return line(withId(j, id));
}

std::string encodeReply(std::optional<std::int64_t> id, const SweepReply& r)
{
    json points = json::array();
    for (auto& p : r.points)
        points.push_back(toJson(p, r.parameters));
    json j{{"status", "ok"},      {"params", r.parameters}, {"variants", r.variants},
           {"points", points},    {"total", r.total},       {"measured", r.measured},
           {"threads", r.threads}};
    if (!r.blas.empty()) j["blas"] = r.blas;
    if (!r.blasNote.empty()) j["blas_note"] = r.blasNote;
    return line(withId(j, id));
}

std::string encodeReply(std::optional<std::int64_t> id, const MachineReply& r)
{
    return line(withId({{"status", "ok"},
                        {"peak_gflops", r.peakGflops},
                        {"vector_bits", r.vectorBits},
                        {"bandwidth_gbs", r.bandwidthGbs},
                        {"threads", r.threads},
                        {"clock_ghz", r.clockGhz}},
                       id));
}

std::string encodeReply(std::optional<std::int64_t> id, const TuneReply& r)
{
    json j{{"status", "ok"},     {"start", r.start},   {"name", r.name},   {"trials", r.trials},
           {"reused", r.reused}, {"failed", r.failed}, {"notes", r.notes}, {"log", r.log}};
    if (r.bestTrial > 0) {
        j["best"] = {{"trial", r.bestTrial},
                     {"gflops", r.bestGflops},
                     {"ms", r.bestMs},
                     {"sketch", r.sketch}};
        j["statements"] = r.statements;
        if (!r.bestTir.empty()) j["best_tir"] = r.bestTir;
    }
    return line(withId(j, id));
}

std::string encodeReply(std::optional<std::int64_t> id, const ModelReply& r)
{
    json nodes = json::array();
    for (auto& n : r.nodes)
        nodes.push_back({{"name", n.name},
                         {"op", n.op},
                         {"inputs", n.inputs},
                         {"outputs", namedShapes(n.outputs)},
                         {"task", n.task}});
    json tasks = json::array();
    for (auto& t : r.tasks)
        tasks.push_back(modelTaskJson(t));
    json j{{"status", "ok"},
           {"model", r.model},
           {"project", r.project},
           {"import_ms", r.importMs},
           {"notes", r.notes},
           {"graph", {{"nodes", nodes}, {"inputs", namedShapes(r.inputs)}, {"outputs", r.outputs}}},
           {"tasks", tasks}};
    if (r.ran) {
        j["compile_ms"] = r.compileMs;
        j["buffer_bytes"] = r.bufferBytes;
        j["threads"] = r.threads;
        j["median_ms"] = r.medianMs;
        j["min_ms"] = r.minMs;
        j["max_ms"] = r.maxMs;
    }
    if (r.checked) {
        json outputs = json::array();
        for (auto& o : r.outputChecks)
            outputs.push_back({{"name", o.name},
                               {"ok", o.ok},
                               {"max_abs_error", o.maxAbsError},
                               {"max_rel_error", o.maxRelError},
                               {"first", o.first}});
        j["outputs"] = outputs;
        j["checked"] = r.checkPassed;
        if (!r.firstWrongTask.empty()) j["first_wrong_task"] = r.firstWrongTask;
    }
    return line(withId(j, id));
}

std::string encodeReply(std::optional<std::int64_t> id, const ModelChoiceReply& r)
{
    return line(withId({{"status", "ok"}, {"project", r.project}}, id));
}

// ---- sweep points outside the worker ------------------------------------------------------------

std::string encodeSweepPoint(const SweepPoint& point, const std::vector<std::string>& parameters)
{
    return line(toJson(point, parameters));
}

std::optional<SweepPoint> decodeSweepPoint(const std::string& text)
{
    return sweepPointFromJson(json::parse(text, nullptr, false));
}

} // namespace loopscope::protocol
