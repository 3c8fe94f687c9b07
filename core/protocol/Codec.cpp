// The worker protocol's codec: the framing of a line (id, command, protocol version, status,
// progress, errors) and the dispatch of each message to its fields, which its family's header
// spells once for both directions (FieldCodec.h).
#include "protocol/Codec.h"

#include "protocol/FieldCodec.h"
#include "protocol/GpuMessages.h"
#include "protocol/Json.h"
#include "protocol/MachineMessages.h"
#include "protocol/MeasureMessages.h"
#include "protocol/ModelMessages.h"
#include "protocol/Protocol.h"
#include "protocol/SweepMessages.h"
#include "protocol/TuneMessages.h"

namespace loopscope::protocol {

using json = nlohmann::json;
using detail::Fields;

namespace {

// nlohmann's messages start with "[json.exception.parse_error.101] "; the rest is plain.
std::string withoutExceptionTag(const std::string& what)
{
    if (what.rfind("[json.exception.", 0) == 0) {
        auto end = what.find("] ");
        if (end != std::string::npos) return what.substr(end + 2);
    }
    return what;
}

std::string line(const json& message)
{
    return message.dump(-1, ' ', false, json::error_handler_t::replace);
}

json withId(json message, std::optional<std::int64_t> id)
{
    if (id) message["id"] = *id;
    return message;
}

// A message's fields, then the line's status.
template <class T>
std::string replyLine(std::optional<std::int64_t> id, const T& message, const char* status)
{
    json j = detail::encodeFields(message);
    j["status"] = status;
    return line(withId(j, id));
}

struct CommandEntry {
    const char* name;
    Request (*decode)(const Fields&);
};

template <class T> constexpr CommandEntry command()
{
    return {T::command, [](const Fields& f) -> Request { return detail::decodeFields<T>(f); }};
}

// Every command, in the order ping's answer lists them.
const CommandEntry kCommands[] = {
    command<EmitRequest>(),        command<GoRequest>(),      command<GpuRunRequest>(),
    command<MachineRequest>(),     command<MeasureRequest>(), command<ModelRequest>(),
    command<ModelChoiceRequest>(), command<PingRequest>(),    command<SweepRequest>(),
    command<TuneRequest>(),
};

ErrorReply::Kind errorKind(const std::string& name)
{
    for (auto k : {ErrorReply::Kind::Request, ErrorReply::Kind::Document, ErrorReply::Kind::Codegen,
                   ErrorReply::Kind::Protocol, ErrorReply::Kind::Internal})
        if (name == errorKindName(k)) return k;
    return ErrorReply::Kind::Internal;
}

Fields fieldsOf(const json& message)
{
    return Fields(message, ErrorReply::Kind::Internal, "the worker's message: ");
}

} // namespace

// ---- Messages.h -------------------------------------------------------------------------------

const char* commandName(const Request& request)
{
    return std::visit([](const auto& r) { return std::decay_t<decltype(r)>::command; }, request);
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
        out.push_back(detail::encodeFields(c));
    return out;
}

json toJson(const StepProfile& p)
{
    return detail::encodeFields(p);
}

json toJson(const MeasureReply& r)
{
    return detail::encodeFields(r);
}

json toJson(const Machine& m)
{
    return detail::encodeFields(m);
}

Machine machineFromJson(const json& j)
{
    Machine m;
    const detail::Fields in(j, ErrorReply::Kind::Protocol, "machine: ");
    detail::Reader r(in);
    fields(r, m);
    if (m.threads == 0) m.threads = in.integer32("cores", 0, 0);
    return m;
}

json toJson(const SweepPoint& p, const std::vector<std::string>& parameters)
{
    json j = json::object();
    detail::Writer w(j);
    fields(w, const_cast<SweepPoint&>(p), parameters); // the writer only reads
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
    for (auto& v : *values)
        if (!v.is_number_integer()) return std::nullopt;
    SweepPoint p;
    detail::LenientReader r(j);
    fields(r, p, {});
    return p;
}

namespace {
constexpr const char* kChartRequestKey = "chart_request"; // its value: the version
}

json toJson(const ChartRequest& r)
{
    json j = detail::encodeFields(r);
    j[kChartRequestKey] = kChartRequestVersion;
    return j;
}

std::optional<ChartRequest> chartRequestFromJson(const json& j, std::string* why)
{
    auto fail = [&](std::string text) {
        if (why) *why = std::move(text);
        return std::nullopt;
    };
    if (!j.is_object() || !j.contains(kChartRequestKey)) return fail("not a chart request");
    if (j[kChartRequestKey] != kChartRequestVersion)
        return fail("a chart request of version " + j[kChartRequestKey].dump() +
                    "; this program reads version " + std::to_string(kChartRequestVersion));
    ChartRequest r;
    detail::LenientReader reader(j);
    fields(reader, r);
    if (r.path.empty()) return fail("a chart request with no path");
    if (!reader.failure().empty()) return fail(reader.failure());
    return r;
}

// ---- Codec.h: the client's side -----------------------------------------------------------------

std::string encodeRequest(const Request& request, std::int64_t id, const RequestLimits& limits)
{
    json j{{"id", id}, {"cmd", commandName(request)}, {"protocol", kWorkerProtocol}};
    detail::Writer w(j);
    std::visit([&](const auto& r) { fields(w, const_cast<std::decay_t<decltype(r)>&>(r)); },
               request);
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

Progress Incoming::progress() const
{
    const Fields f = fieldsOf(m_body->message);
    return {f.text("phase"), f.number("fraction", 0)};
}

template <class Update> Update Incoming::update() const
{
    return detail::decodeFields<Update>(fieldsOf(m_body->message));
}
template SweepUpdate Incoming::update<SweepUpdate>() const;
template TuneUpdate Incoming::update<TuneUpdate>() const;

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

template <class Reply> Reply Incoming::reply() const
{
    Reply r = detail::decodeFields<Reply>(fieldsOf(m_body->message));
    if constexpr (std::is_same_v<Reply, MeasureReply>)
        r.status = m_kind == Kind::Wrong ? MeasureReply::Status::Wrong : MeasureReply::Status::Ok;
    return r;
}
template PingReply Incoming::reply<PingReply>() const;
template MeasureReply Incoming::reply<MeasureReply>() const;
template EmitReply Incoming::reply<EmitReply>() const;
template SweepReply Incoming::reply<SweepReply>() const;
template MachineReply Incoming::reply<MachineReply>() const;
template TuneReply Incoming::reply<TuneReply>() const;
template ModelReply Incoming::reply<ModelReply>() const;
template ModelChoiceReply Incoming::reply<ModelChoiceReply>() const;
template GpuRunReply Incoming::reply<GpuRunReply>() const;

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
    json j = detail::encodeFields(u);
    j["status"] = "progress";
    j["phase"] = "sweep";
    return line(withId(j, id));
}

std::string encodeProgress(std::optional<std::int64_t> id, const TuneUpdate& u)
{
    json j = detail::encodeFields(u);
    j["status"] = "progress";
    j["phase"] = "tune";
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
    return replyLine(id, r, "ok");
}

std::string encodeReply(std::optional<std::int64_t> id, const GpuRunReply& r)
{
    return replyLine(id, r, "ok");
}

std::string encodeReply(std::optional<std::int64_t> id, const MeasureReply& r)
{
    return replyLine(id, r, r.wrong() ? "wrong" : "ok");
}

std::string encodeReply(std::optional<std::int64_t> id, const EmitReply& r)
{
    return replyLine(id, r, "ok");
}

std::string encodeReply(std::optional<std::int64_t> id, const SweepReply& r)
{
    return replyLine(id, r, "ok");
}

std::string encodeReply(std::optional<std::int64_t> id, const MachineReply& r)
{
    return replyLine(id, r, "ok");
}

std::string encodeReply(std::optional<std::int64_t> id, const TuneReply& r)
{
    return replyLine(id, r, "ok");
}

std::string encodeReply(std::optional<std::int64_t> id, const ModelReply& r)
{
    return replyLine(id, r, "ok");
}

std::string encodeReply(std::optional<std::int64_t> id, const ModelChoiceReply& r)
{
    return replyLine(id, r, "ok");
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
