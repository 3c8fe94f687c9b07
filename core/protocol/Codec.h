// The worker protocol's one codec: messages (protocol/Messages.h) to lines and back. Both sides
// use it: a client encodes requests and decodes what comes back (Incoming), the worker decodes
// requests (IncomingRequest) and encodes its progress and results. Each message's keys are
// spelled once, in its family's header (FieldCodec.h).
//
// A line is one JSON object. Requests: {"id", "cmd", "protocol", ...}; the worker refuses another
// protocol (or none) with an error of kind "protocol" before it reads anything else. Progress:
// {"id", "status": "progress", "phase", "fraction", ...}; results: {"id", "status": "ok" |
// "wrong" | "error", ...}.
#pragma once

#include "protocol/Messages.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace loopscope::protocol {

// A line that is not a message of this protocol, or a field of the wrong type: `kind` says
// whose fault ("request" for a bad request, "protocol" for a peer of another version).
class ProtocolError : public std::runtime_error {
public:
    ProtocolError(ErrorReply::Kind kind, const std::string& message)
        : std::runtime_error(message), m_kind(kind)
    {
    }
    ErrorReply::Kind kind() const { return m_kind; }

private:
    ErrorReply::Kind m_kind;
};

// ---- The client's side ----------------------------------------------------------------------

// One line (without its newline): the request with its id, command, this side's protocol
// version and the limits it is handled under.
std::string encodeRequest(const Request& request, std::int64_t id,
                          const RequestLimits& limits = {});

// A line from the worker, parsed once; its result read as the type the request expects.
class Incoming {
public:
    enum class Kind { Progress, Ok, Wrong, Error };

    // Throws ProtocolError for a line that is not a JSON object or has no known status.
    static Incoming parse(const std::string& line);

    std::optional<std::int64_t> id() const { return m_id; }
    Kind kind() const { return m_kind; }
    bool isProgress() const { return m_kind == Kind::Progress; }

    // Progress lines: the phase and fraction of any; a sweep's point or a tuning run's trial as
    // its request's Update (SweepUpdate, TuneUpdate; a tuning run's first: its start).
    Progress progress() const;
    template <class Update> Update update() const;
    // Error results.
    ErrorReply error() const;
    // Ok (and Wrong) results, as the request's reply type (Request::Reply: PingReply,
    // MeasureReply, ...). Fields the line lacks keep their defaults; a field of the wrong type is
    // a ProtocolError.
    template <class Reply> Reply reply() const;
    // The same, by name.
    SweepUpdate sweepUpdate() const { return update<SweepUpdate>(); }
    TuneUpdate tuneUpdate() const { return update<TuneUpdate>(); }
    PingReply ping() const { return reply<PingReply>(); }
    MeasureReply measure() const { return reply<MeasureReply>(); }
    EmitReply emitted() const { return reply<EmitReply>(); } // (emit: a macro of Qt's)
    SweepReply sweep() const { return reply<SweepReply>(); }
    MachineReply machine() const { return reply<MachineReply>(); }
    TuneReply tune() const { return reply<TuneReply>(); }
    ModelReply model() const { return reply<ModelReply>(); }
    ModelChoiceReply modelChoice() const { return reply<ModelChoiceReply>(); }
    GpuRunReply gpuRun() const { return reply<GpuRunReply>(); }

private:
    struct Body;
    std::shared_ptr<const Body> m_body;
    std::optional<std::int64_t> m_id;
    Kind m_kind = Kind::Error;
};

// ---- The worker's side ----------------------------------------------------------------------

// The commands a worker answers, as ping's answer lists them ("go" is no command of its own: a
// held measurement takes it).
const std::vector<std::string>& workerCommands();

// A request line as the worker reads it.
struct IncomingRequest {
    std::optional<std::int64_t> id;
    Request request;
    RequestLimits limits;
};

// Throws ProtocolError: kind Request for a line that is not a request (with what is wrong, e.g.
// "\"repeat\" must be at least 1"), kind Protocol for a client of another protocol version.
// `id`, when given, receives the request's id as soon as it is read (for the error's reply).
// Range checks are those every worker applies (repeat at least 1, threads at most 4096, ...).
IncomingRequest decodeRequest(const std::string& line, std::optional<std::int64_t>* id = nullptr);

// The command of a request line, when it is a JSON object with a string "cmd"; empty otherwise.
// (For the worker's reader, which answers some commands between a sweep's points.)
std::string peekCommand(const std::string& line);
// The id of a line, when it has an integer one.
std::optional<std::int64_t> peekId(const std::string& line);

std::string encodeProgress(std::optional<std::int64_t> id, const Progress& progress);
std::string encodeProgress(std::optional<std::int64_t> id, const SweepUpdate& update);
std::string encodeProgress(std::optional<std::int64_t> id, const TuneUpdate& update);
std::string encodeError(std::optional<std::int64_t> id, const ErrorReply& error);
std::string encodeReply(std::optional<std::int64_t> id, const PingReply& reply);
std::string encodeReply(std::optional<std::int64_t> id, const MeasureReply& reply);
std::string encodeReply(std::optional<std::int64_t> id, const EmitReply& reply);
std::string encodeReply(std::optional<std::int64_t> id, const SweepReply& reply);
std::string encodeReply(std::optional<std::int64_t> id, const MachineReply& reply);
std::string encodeReply(std::optional<std::int64_t> id, const TuneReply& reply);
std::string encodeReply(std::optional<std::int64_t> id, const ModelReply& reply);
std::string encodeReply(std::optional<std::int64_t> id, const ModelChoiceReply& reply);
std::string encodeReply(std::optional<std::int64_t> id, const GpuRunReply& reply);

// ---- Sweep points outside the worker ----------------------------------------------------------
// The window keeps the points a sweep measured between sessions, the command-line tool prints
// them (`sweep --json`) and the chart program reads them, all in the messages' form.

// One JSON object: variant, one field per swept parameter, values, threads, reference, skipped,
// failed, checked, cached, message, flops, bytes, intensity, run_ms and, when measured,
// ms_median, ms_min, ms_max, gflops.
std::string encodeSweepPoint(const SweepPoint& point, const std::vector<std::string>& parameters);
// Nullopt when the text is not such an object, or has no variant or no values.
std::optional<SweepPoint> decodeSweepPoint(const std::string& json);

} // namespace loopscope::protocol
