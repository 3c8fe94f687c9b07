#include "tune/Measure.h"

#include "process/LineProcess.h"
#include "protocol/Codec.h"
#include "protocol/Protocol.h"

#include <algorithm>
#include <chrono>
#include <csignal>

namespace loopscope {

protocol::MeasureRequest candidateRequest(const std::string& script, const std::string& variant,
                                          const protocol::Sets& sets, int threads)
{
    protocol::MeasureRequest r;
    r.script = script;
    r.variant = variant;
    r.sets = sets;
    r.threads = threads;
    r.check = true;
    r.time = true;
    r.repeat = 3;
    r.minRepeatMs = 40;
    return r;
}

const char* statusName(MeasureOutcome::Status s)
{
    switch (s) {
    case MeasureOutcome::Status::Ok: return "ok";
    case MeasureOutcome::Status::Wrong: return "wrong";
    case MeasureOutcome::Status::Error: return "error";
    case MeasureOutcome::Status::Crashed: return "crashed";
    case MeasureOutcome::Status::TimedOut: return "timeout";
    }
    return "error";
}

std::string findWorkerExecutable(const std::string& selfExecutable)
{
    return findProgramBeside(selfExecutable, "loopscope-worker", "worker", "LOOPSCOPE_WORKER");
}

void Measurer::measureBatch(const std::vector<protocol::MeasureRequest>& requests,
                            const std::function<void(std::size_t, const MeasureOutcome&)>& done,
                            const std::function<bool()>& keepGoing)
{
    for (std::size_t i = 0; i < requests.size(); ++i) {
        if (keepGoing && !keepGoing()) return;
        done(i, measureAhead(requests[i], i + 1 < requests.size() ? &requests[i + 1] : nullptr));
    }
}

WorkerMeasurer::WorkerMeasurer(std::string executable, std::vector<std::string> environment)
    : m_name("the worker"), m_environment(std::move(environment))
{
    if (!executable.empty()) m_argv = {std::move(executable)};
}

WorkerMeasurer::WorkerMeasurer(std::vector<std::string> argv, std::vector<std::string> environment,
                               std::string name)
    : m_argv(std::move(argv)), m_name(std::move(name)), m_environment(std::move(environment))
{
}

WorkerMeasurer::~WorkerMeasurer() = default;

void WorkerMeasurer::stop()
{
    m_process.reset();
}

bool WorkerMeasurer::ensureStarted(std::unique_ptr<LineProcess>& slot, std::string* why)
{
    if (slot) return true;
    if (m_argv.empty()) {
        *why = "the worker (loopscope-worker) was not found next to this program";
        return false;
    }
    std::string problem;
    slot = LineProcess::start(m_argv, m_environment, &problem);
    if (!slot) *why = "cannot start " + m_name + ": " + problem;
    return slot != nullptr;
}

bool WorkerMeasurer::send(LineProcess& process, const protocol::Request& request, std::int64_t id)
{
    return process.writeLine(protocol::encodeRequest(request, id));
}

MachineInfo WorkerMeasurer::machine()
{
    if (m_haveMachine) return m_machine;
    m_machine = {};
    std::string why;
    if (!ensureStarted(m_process, &why)) {
        MachineInfo none;
        none.problem = why;
        none.problemKind = MachineInfo::Problem::Unavailable;
        return none;
    }
    protocol::PingRequest ping;
    ping.gpu = m_askGpu;
    // A GPU runner over ssh or a batch system may take a while to answer.
    const PingAnswer answer = askWhatItIs(*m_process, m_nextId++, m_name,
                                          std::chrono::seconds(m_askGpu ? 120 : 30), ping);
    if (!answer.reply) {
        // A worker of another build: refused (it refuses this side too, by the ping's protocol).
        if (answer.otherBuild) {
            m_machine.problem = answer.problem;
            m_machine.problemKind = MachineInfo::Problem::OtherBuild;
        }
        if (answer.silent) {
            m_machine.problem = m_name + " said nothing: " + answer.problem;
            m_machine.problemKind = MachineInfo::Problem::Unavailable;
            stop();
        }
        return m_machine;
    }
    const protocol::PingReply& r = *answer.reply;
    if (std::find(r.commands.begin(), r.commands.end(), "measure") == r.commands.end()) {
        // The GPU runner, say: it runs PTX compiled elsewhere and compiles nothing itself.
        m_machine.problemKind = MachineInfo::Problem::Unavailable;
        m_machine.problem = m_name +
                            " answered as a program that cannot compile and measure (it "
                            "offers " +
                            [&] {
                                std::string s;
                                for (auto& c : r.commands)
                                    s += (s.empty() ? "" : ", ") + c;
                                return s;
                            }() +
                            "): candidates need loopscope-worker on the far side";
        return m_machine;
    }
    static_cast<protocol::Machine&>(m_machine) = r.machine;
    if (m_askGpu) {
        if (!r.gpu.name.empty() || r.gpu.computeCapability > 0) {
            m_machine.gpuDevice = r.gpu;
            m_machine.gpu = protocol::gpuDescription(r.gpu);
        } else {
            m_machine.gpuProblem = r.gpuProblem.empty() ? "it has no GPU runner" : r.gpuProblem;
        }
    }
    if (m_machine.vectorBits <= 0) m_machine.vectorBits = 256;
    if (m_machine.threads <= 0) m_machine.threads = 1;
    m_haveMachine = true;
    return m_machine;
}

namespace {

// The same candidate, compiled alike (what a held one was compiled for).
bool sameCandidate(const protocol::MeasureRequest& a, const protocol::MeasureRequest& b)
{
    return a.script == b.script && a.variant == b.variant && a.sets == b.sets &&
           a.threads == b.threads && a.testing == b.testing;
}

} // namespace

bool WorkerMeasurer::overlapAllowed(const protocol::MeasureRequest& request)
{
    const int cores = machine().threads;
    const int measuring = request.threads > 0 ? request.threads : cores;
    return measuring + 1 <= cores;
}

MeasureOutcome WorkerMeasurer::measureAhead(const protocol::MeasureRequest& request,
                                            const protocol::MeasureRequest* next)
{
    const auto t0 = std::chrono::steady_clock::now();
    // Asked first: asking (a ping) once a request is under way would read its reply.
    const bool ahead = next && overlapAllowed(*next);
    std::int64_t id = -1;
    std::string why;
    if (m_ahead && m_aheadId >= 0 && sameCandidate(m_aheadRequest, request)) {
        // Compiled while the one before was measured: its run starts now, with the parameters
        // of now.
        protocol::GoRequest go;
        go.repeat = request.repeat;
        go.minRepeatMs = request.minRepeatMs;
        go.maxRunMs = request.maxRunMs;
        id = m_aheadId;
        m_aheadId = -1;
        std::swap(m_process, m_ahead);
        ++m_overlapped;
        // A worker that died compiling it fails the write; awaitResult reads why.
        send(*m_process, go, id);
    } else {
        if (m_ahead && m_aheadId >= 0) {
            // A held candidate that is not this one (the search moved on): dropped.
            m_ahead.reset();
            m_aheadId = -1;
        }
        if (!ensureStarted(m_process, &why)) {
            MeasureOutcome result;
            result.message = why;
            result.unavailable = true;
            return result;
        }
        id = m_nextId++;
        if (!send(*m_process, request, id)) id = -2;
    }
    // The next one compiles in the other worker while this one runs.
    if (ahead && ensureStarted(m_ahead, &why)) {
        m_aheadId = m_nextId++;
        m_aheadRequest = *next;
        protocol::MeasureRequest held = *next;
        held.hold = true;
        if (!send(*m_ahead, held, m_aheadId)) {
            m_ahead.reset();
            m_aheadId = -1;
        }
    }
    MeasureOutcome result;
    if (id == -2) {
        ++m_restarts;
        stop();
        result.status = MeasureOutcome::Status::Crashed;
        result.message = m_name + " stopped before the candidate was sent";
        result.runnerLost = true;
    } else {
        result = awaitResult(m_process, id, request);
    }
    result.wallMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return result;
}

MeasureOutcome WorkerMeasurer::measure(const protocol::MeasureRequest& request)
{
    return measureAhead(request, nullptr);
}

MeasureOutcome WorkerMeasurer::awaitResult(std::unique_ptr<LineProcess>& slot, std::int64_t id,
                                           const protocol::MeasureRequest& request)
{
    MeasureOutcome result;
    // Lines until the result for this id, the worker's death or the time limit.
    const double timeoutMs = m_timeoutMs + 4 * request.maxRunMs;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double, std::milli>(timeoutMs));
    while (true) {
        std::string line;
        const LineProcess::Read read = slot->readLine(&line, deadline);
        if (read == LineProcess::Read::TimedOut) {
            ++m_restarts;
            slot.reset();
            result.status = MeasureOutcome::Status::TimedOut;
            result.runnerLost = true;
            result.message =
                "stopped after " + std::to_string(static_cast<long long>(timeoutMs / 1000)) + " s";
            return result;
        }
        if (read == LineProcess::Read::Ended) break;
        std::optional<protocol::Incoming> in;
        try {
            in = protocol::Incoming::parse(line);
        } catch (const protocol::ProtocolError&) {
            continue;
        }
        if (in->id() != id || in->isProgress()) continue;
        if (in->kind() == protocol::Incoming::Kind::Error) {
            result.status = MeasureOutcome::Status::Error;
            result.message = in->error().message;
            return result;
        }
        const protocol::MeasureReply m = in->measure();
        result.flops = m.flops;
        result.lowerMs = m.lowerMs;
        result.compileMs = m.compileMs;
        if (m.wrong()) {
            result.status = MeasureOutcome::Status::Wrong;
            result.message = m.message.empty() ? "wrong numbers" : m.message;
            return result;
        }
        result.status = MeasureOutcome::Status::Ok;
        result.runMs = m.runMs;
        result.checked = m.checked;
        result.tooSlow = m.tooSlow;
        if (result.tooSlow) {
            result.msMedian = result.msMin = result.msMax = result.runMs;
        } else if (m.timing) {
            result.msMedian = m.timing->msMedian;
            result.msMin = m.timing->msMin;
            result.msMax = m.timing->msMax;
            result.reference = m.timing->reference;
            result.referenceMs = m.timing->referenceMs;
        }
        return result;
    }
    // The worker died: say how.
    int signal = 0;
    const std::string how = slot->reapEnded(&signal);
    ++m_restarts;
    slot.reset();
    result.status = MeasureOutcome::Status::Crashed;
    result.runnerLost = true;
    // A worker killed from outside (its job step cancelled, the machine short of memory) is not
    // the code's doing, as far as anyone can tell.
    result.message = signal == 0         ? m_name + " " + how
                     : signal == SIGKILL ? m_name + " was killed (SIGKILL)"
                                         : "the generated code " + how;
    return result;
}

} // namespace loopscope
