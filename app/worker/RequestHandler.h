// The worker's side of the worker protocol: one request per line in; progress lines and then
// exactly one result out. The messages are the protocol's typed values (protocol/Messages.h),
// read and written by its one codec (protocol/Codec.h); this handler turns each request into the
// core's work and its outcome into the reply. Qt-free and process-free, so it can be tested
// directly.
//
// - A client of another protocol version is refused (an error of kind "protocol" that names both
//   sides) before anything else of its request is read; a request with no version, as a person
//   types one, is served.
// - Every request is handled under the limits it carries (core's Limits), else the defaults.
// - "emit", sent while a sweep runs, is answered between two of the sweep's points (a client may
//   write it without waiting for the sweep's result); other requests wait for the sweep.
// - A held "measure" is compiled, then waits for its "go" (the tuner compiles its next candidate
//   while the one before is measured: tune/Measure.h's WorkerMeasurer).
// - The worker remembers sweep points for its lifetime, keyed by (script text, variant, values,
//   threads); "tune" and "model" run in TuneRequest.h and ModelRequest.h.
#pragma once

#include "protocol/Codec.h"
#include "protocol/Protocol.h"
#include "runtime/Sweep.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopscope {
class GpuRunner;
class PreparedRun;
} // namespace loopscope

namespace loopscope::worker {

// The protocol this worker speaks (protocol/Protocol.h): a request that names another is refused.
constexpr int kProtocolVersion = kWorkerProtocol;

struct HandlerOptions {
    // Honour the hidden debugging fields of "measure" (corrupt_output, crash, sleep_ms,
    // internal_error: an internal invariant fails, as a bug in the core would). The
    // worker sets it only when the environment has LOOPSCOPE_WORKER_TESTING=1.
    bool testing = false;
    // How to start the GPU runner GPU variants run on (its path; empty: none, so they are
    // checked on this CPU and not timed).
    std::vector<std::string> gpuRunner;
};

class RequestHandler {
public:
    // Writes one line of output (without its newline).
    using Emit = std::function<void(const std::string& line)>;

    explicit RequestHandler(HandlerOptions options = {});
    ~RequestHandler();

    // Handles one line of input: emits progress lines and then exactly one result (nothing for
    // a blank line). Never throws; generated code it runs may still crash the process.
    void handleLine(const std::string& line, const Emit& emit) const;

    // Whether a request line may be answered in the middle of a sweep: "emit" (quick, and it runs
    // no generated code). The worker answers such lines between two points of a sweep.
    static bool mayGoBetween(const std::string& line);
    // Called between two points of every sweep (and never while anything else is measured).
    void setBetweenSweepPoints(std::function<void()> f) { m_betweenSweepPoints = std::move(f); }
    // A held measurement (its "hold" field) waits after compiling for its "go" message: `f`
    // waits for the one of this id and returns it, or nullopt at the end of input.
    using AwaitGo = std::function<std::optional<protocol::GoRequest>(std::int64_t id)>;
    void setAwaitGo(AwaitGo f) { m_awaitGo = std::move(f); }
    // Whether a line is a "go" message (answered by no reply: a held measurement takes it).
    static bool isGo(const std::string& line);

    // The commands ping's answer lists.
    static std::vector<std::string> commands();

private:
    class Reporter; // progress lines of one request

    // With request.gpu, also the GPU its GPU runner has (starting the runner), or why none.
    protocol::PingReply ping(const protocol::PingRequest& request = {}) const;
    protocol::MeasureReply measure(const protocol::MeasureRequest& request,
                                   std::optional<std::int64_t> id, const Reporter& report) const;
    // A prepared run's profile (lines, loops, instructions, hardware counters).
    protocol::StepProfile profileKernel(PreparedRun& run, double seconds) const;
    protocol::EmitReply emitCode(const protocol::EmitRequest& request,
                                 const Reporter& report) const;
    protocol::SweepReply sweep(const protocol::SweepRequest& request, const Reporter& report) const;
    protocol::MachineReply machine(const protocol::MachineRequest& request) const;
    // The request's reply line (progress goes out through `report` meanwhile).
    std::string answer(const protocol::IncomingRequest& in, const Reporter& report) const;

    HandlerOptions m_options;
    std::shared_ptr<SweepCache> m_sweepCache; // points measured by earlier "sweep" requests
    mutable std::unique_ptr<Jit> m_jit;       // made by the first request that compiles
    Jit& jit() const;
    mutable std::unique_ptr<GpuRunner> m_gpu; // started by the first GPU variant's run
    GpuRunner& gpu() const;
    std::function<void()> m_betweenSweepPoints;
    AwaitGo m_awaitGo;
};

} // namespace loopscope::worker
