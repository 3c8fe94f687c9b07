// The worker's protocol: one JSON request per line in; progress messages and then exactly one
// result out, each one JSON object on one line. Qt-free and process-free, so it can be tested
// directly.
//
// Request:  {"id": INT, "cmd": NAME, "protocol": INT, ...arguments}. Unknown fields are ignored.
//           "protocol" is the client's version of this protocol (protocol/Protocol.h; clients
//           send it with every request): another than this worker's is refused with an error of
//           kind "protocol" that names both. Any request may carry "max_unroll" and
//           "max_reference_steps" (core's Limits, default 1024 and 2^26): the bounds it is
//           handled under.
// Progress: {"id", "status": "progress", "phase", "fraction"}: the phase being worked on
//           ("lowering", "compiling", "checking", "timing") and the request's overall progress
//           (0..1, never falling).
// Result:   {"id", "status": "ok" | "wrong" | "error", ...}. Errors carry "kind" ("request": the
//           request itself is wrong; "document": the script, e.g. a schedule step TVM would
//           refuse; "codegen": the CPU cannot run it; "internal"), "message", "line" and "column"
//           (1-based; 0 when there is no location). A line that is not JSON gets an error without
//           "id"; a blank line gets nothing.
//
// "emit" formats: llvm, asm, c, tvm, and obj (the object's bytes as base64 in "data", the C header
//   with its prototype in "header").
// "ping" -> ok: version, protocol, commands, triple, cpu, features, vector_bits, llvm (its
//   version), threads (what "threads": 0 uses), testing.
// "measure" {script, variant (default: the first), step (default -1: after the last; 0: the
//   untransformed schedule), sets {NAME: INT} (parameters and symbolic sizes), threads (0: all),
//   check (default true), time (default true), repeat (5), number (1), min_repeat_ms (50),
//   seed (1), opt_level (3), max_run_ms (0: no limit; a first run longer than this is not
//   timed, and the result says "too_slow"), profile_seconds (0: none; at most 30: after the
//   first run the kernel runs again and again this long while the CPU clock samples it)}
//   -> ok: variant, step (resolved), steps, parameters, notes, lower_ms, compile_ms, run_ms,
//      flops, checked, check [{tensor, ok, elements, max_abs_error, max_rel_error, skipped (when
//      elements were not compared for the reference's step limit)}] and, when
//      timed, ms_median, ms_min, ms_max, number, repeat, gflops; when profiled, profile {tir,
//      method, threads, runs, seconds, samples, in_kernel, lost, profile_ms, line_share [per
//      line of tir], loop_share [per line; -1: no loop], instructions [{o: offset, t: text,
//      l: line, s: samples}], counters {cycles, instructions, ipc, l1d_misses, llc_misses} or
//      counters_unavailable (why)} or profile {error};
//   with hold: true, the candidate is compiled and then waits for {"cmd": "go", "id": ID,
//   repeat, min_repeat_ms, max_run_ms} (the run's parameters as of then) before it runs: the
//   tuner compiles its next candidate while the one before is measured (WorkerMeasurer).
//   -> wrong (a check failed; nothing is timed, no time or speed is given): message,
//      first_mismatch, max_abs_error, check, lower_ms, compile_ms, flops.
// "emit" {script, variant, step, sets, format: "llvm" | "asm" | "c" | "tvm", source (the file name
//   the export names), lines (LLVM IR and assembly with line info: .loc in assembly)} -> ok: text,
//   format, function, suffix (".ll", ".s", ".c", ".py"), target (the variant's target string: the
//   code is for the CPU it names, else the host's). The same export as `loopscope-cli export`
//   (export/Export.h). Sent while a sweep runs, it is answered between two of the sweep's points
//   (the client may write it without waiting for the sweep's result); other requests wait for the
//   sweep.
// "sweep" {script, params [NAME...] (set together to each value), values [INT...] (default 64,
//   128, ..., 2048), variants [NAME...] (default: all), threads (0: all), max_point_s (10: a point
//   whose single run takes longer is skipped), check (true), blas (false: add OpenBLAS points for
//   a matmul), repeat (3), min_repeat_ms (20), known [POINT...] (points of this script and
//   these params measured before, in the form the messages give them: they count as cached)}
//   -> one progress message per point: phase "sweep", fraction, done, total and "point" (variant,
//      each parameter, values, threads, reference, skipped, failed, checked, cached, message,
//      flops, bytes, intensity, run_ms and, when measured, ms_median, ms_min, ms_max, gflops);
//   -> ok: params, variants, points [...], total, measured (not from the cache), threads, blas
//      ("OpenBLAS 0.3.21" or absent), blas_note (why not, when asked for). The worker remembers
//      measured points for its lifetime, keyed by (script text, variant, values, threads).
// "machine" {threads (0: all)} -> ok: peak_gflops, vector_bits, bandwidth_gbs, threads,
//   clock_ghz. Measured (about two seconds) on every request; the app remembers the figures.
//
// "tune": the auto-tuner (see TuneRequest.h): one progress message per measured candidate.
//
// New commands register in the constructor; "commands" in ping's answer lists them.
#pragma once

#include "protocol/Protocol.h"
#include "runtime/Sweep.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace loopscope {
class PreparedRun;
}

namespace loopscope::worker {

// The protocol this worker speaks (protocol/Protocol.h): a request that names another is refused.
constexpr int kProtocolVersion = kWorkerProtocol;

struct HandlerOptions {
    // Honour the hidden debugging fields of "measure" (corrupt_output, crash, sleep_ms,
    // internal_error: an internal invariant fails, as a bug in the core would). The
    // worker sets it only when the environment has LOOPSCOPE_WORKER_TESTING=1.
    bool testing = false;
};

class RequestHandler {
public:
    using Emit = std::function<void(const nlohmann::json& message)>;

    explicit RequestHandler(HandlerOptions options = {});

    // Handles one line of input: emits progress messages and then exactly one result (nothing
    // for a blank line). Never throws; generated code it runs may still crash the process.
    void handleLine(const std::string& line, const Emit& emit) const;
    void handle(const nlohmann::json& request, const Emit& emit) const;

    // Whether a request line may be answered in the middle of a sweep: "emit" (quick, and it runs
    // no generated code). The worker answers such lines between two points of a sweep.
    static bool mayGoBetween(const std::string& line);
    // Called between two points of every sweep (and never while anything else is measured).
    void setBetweenSweepPoints(std::function<void()> f) { m_betweenSweepPoints = std::move(f); }
    // A held measurement (its "hold" field) waits after compiling for its "go" message: `f`
    // waits for the one of this id and returns it, or null at the end of input.
    void setAwaitGo(std::function<nlohmann::json(std::int64_t id)> f) { m_awaitGo = std::move(f); }
    // Whether a line is a "go" message (answered by no reply: a held measurement takes it).
    static bool isGo(const std::string& line);

    std::vector<std::string> commands() const;

private:
    // Reports a phase and the request's overall progress, with extra fields for the message.
    struct Progress {
        std::function<void(const std::string&, double, const nlohmann::json&)> report;
        void operator()(const std::string& phase, double fraction,
                        const nlohmann::json& extra = nlohmann::json::object()) const
        {
            report(phase, fraction, extra);
        }
    };
    using Command = std::function<nlohmann::json(const nlohmann::json& request, const Progress&)>;

    nlohmann::json ping() const;
    nlohmann::json measure(const nlohmann::json& request, const Progress& progress) const;
    // A prepared run's profile (lines, loops, instructions, hardware counters) as the measure
    // reply's "profile".
    nlohmann::json profileKernel(PreparedRun& run, double seconds) const;
    nlohmann::json emitCode(const nlohmann::json& request, const Progress& progress) const;
    nlohmann::json sweep(const nlohmann::json& request, const Progress& progress) const;
    nlohmann::json machine(const nlohmann::json& request) const;

    HandlerOptions m_options;
    std::map<std::string, Command> m_commands;
    std::shared_ptr<SweepCache> m_sweepCache; // points measured by earlier "sweep" requests
    mutable std::unique_ptr<Jit> m_jit;       // made by the first request that compiles
    Jit& jit() const;
    std::function<void()> m_betweenSweepPoints;
    std::function<nlohmann::json(std::int64_t)> m_awaitGo;
};

// One line of output: compact JSON, invalid UTF-8 replaced, no newline.
std::string serializeMessage(const nlohmann::json& message);

} // namespace loopscope::worker
