// Measuring candidates: each one is compiled, run, checked against the reference interpreter and
// timed in a worker process (loopscope-worker), so that a candidate that crashes or never ends
// costs a restart of the worker, never the tuning run. The tuner speaks to the worker through
// this interface; tests give it their own.
#pragma once

#include "process/LineProcess.h"
#include "protocol/Messages.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopscope {

// The request the tuner sends for a candidate (protocol/Messages.h): a whole script holding the
// candidate as a variant, checked and timed (3 measurements of at least 40 ms, as
// time_evaluator's repeat and min_repeat_ms).
protocol::MeasureRequest candidateRequest(const std::string& script, const std::string& variant,
                                          const protocol::Sets& sets, int threads);

// What measuring a candidate came to: the worker's reply, or what went wrong on the way.
struct MeasureOutcome {
    enum class Status {
        Ok,      // checked and timed (or too slow to time: see tooSlow)
        Wrong,   // computed wrong numbers: never a speed
        Error,   // the worker refused it: lowering, code generation, a bound
        Crashed, // the worker died running it (a signal)
        TimedOut,
    };
    Status status = Status::Error;
    std::string message; // for anything but Ok
    double msMedian = 0, msMin = 0, msMax = 0;
    double flops = 0;
    double lowerMs = 0, compileMs = 0, runMs = 0;
    double wallMs = 0;    // the request as the tuner waited for it
    std::string host;     // the machine that measured it, where known
    bool tooSlow = false; // not timed: msMedian is the first run's time
    bool checked = false;
    // A GPU run's reference timed in turns with it (cuBLAS or cuDNN), and its median.
    std::string reference;
    double referenceMs = 0;
    // The worker ended or was stopped while it had the candidate (Crashed, TimedOut): its code
    // may be at fault, or the runner (killed, its node gone, its link cut).
    bool runnerLost = false;
    // No worker could be started for it (Error): nothing is known of the candidate.
    bool unavailable = false;
    double gflops() const { return msMedian > 0 ? flops / msMedian / 1e6 : 0.0; }
};

// The measuring machine as a measurer reaches it: the machine, and why nothing can be measured
// there when nothing can.
struct MachineInfo : protocol::Machine {
    MachineInfo()
    {
        vectorBits = 256;
        threads = 1;
    }
    // Why nothing can be measured there; empty when it can.
    std::string problem;
    // Asked for (WorkerMeasurer::askForGpu): the GPU its runner has (machine.gpu describes it),
    // or why there is none.
    std::optional<protocol::GpuDevice> gpuDevice;
    std::string gpuProblem;
    // Its kind: a program of another build (another protocol, whose numbers would not be this
    // build's), or none there to measure (not started, silent, or one that cannot measure).
    enum class Problem { None, OtherBuild, Unavailable };
    Problem problemKind = Problem::None;
};

const char* statusName(MeasureOutcome::Status s); // "ok", "wrong", "error", "crashed", "timeout"

class Measurer {
public:
    virtual ~Measurer() = default;
    virtual MachineInfo machine() = 0;
    virtual MeasureOutcome measure(const protocol::MeasureRequest& request) = 0;
    // The same, told which candidate comes next: a measurer may compile it while this one is
    // measured, where the cores allow.
    virtual MeasureOutcome measureAhead(const protocol::MeasureRequest& request,
                                        const protocol::MeasureRequest* next)
    {
        (void)next;
        return measure(request);
    }
    // A batch: `done` is called (on the calling thread) with each candidate's index and outcome
    // as it finishes, in any order; no further candidate starts once `keepGoing` says false.
    // Here, one after another, each told the next; a pool of runners measures them at once.
    virtual void measureBatch(const std::vector<protocol::MeasureRequest>& requests,
                              const std::function<void(std::size_t, const MeasureOutcome&)>& done,
                              const std::function<bool()>& keepGoing);
    // How many candidates it measures at once.
    virtual int runners() const { return 1; }
    // Candidates will be GPU kernels: machine() should say what GPU measures them, or why none
    // does (nothing by default: such a measurer has no GPU).
    virtual void askForGpu() {}
};

// A loopscope-worker process, started when first needed and again after a crash or a timeout.
// Where the machine has a core more than the measurement's threads, a second worker compiles the
// next candidate while this one is measured, and holds it until then (the measurement itself
// never shares its cores with a compilation).
class WorkerMeasurer : public Measurer {
public:
    // `executable`: the worker's path. `environment`: extra NAME=VALUE for it.
    explicit WorkerMeasurer(std::string executable, std::vector<std::string> environment = {});
    // A worker started by `argv` (a command through /bin/sh -c: "ssh node7 loopscope-worker",
    // "srun -N1 -n1 loopscope-worker"), speaking the protocol on its standard input and output.
    WorkerMeasurer(std::vector<std::string> argv, std::vector<std::string> environment,
                   std::string name);
    ~WorkerMeasurer() override;

    MachineInfo machine() override;
    MeasureOutcome measure(const protocol::MeasureRequest& request) override;
    MeasureOutcome measureAhead(const protocol::MeasureRequest& request,
                                const protocol::MeasureRequest* next) override;
    // The worker is asked for its GPU runner's GPU too (candidates that are GPU kernels are
    // measured there); before the first machine().
    void askForGpu() override
    {
        if (!m_askGpu) m_haveMachine = false;
        m_askGpu = true;
    }
    // Past this (plus four times a request's maxRunMs), the worker is stopped and the candidate
    // timed out. 30 s unless set.
    void setTimeoutMs(double ms) { m_timeoutMs = ms; }
    int restarts() const { return m_restarts; }
    // Candidates that were compiled while the one before them was measured.
    int overlapped() const { return m_overlapped; }

private:
    bool ensureStarted(std::unique_ptr<LineProcess>& slot, std::string* why);
    void stop();
    bool overlapAllowed(const protocol::MeasureRequest& request);
    bool send(LineProcess& process, const protocol::Request& request, std::int64_t id);
    MeasureOutcome awaitResult(std::unique_ptr<LineProcess>& slot, std::int64_t id,
                               const protocol::MeasureRequest& request);

    std::vector<std::string> m_argv;
    std::string m_name; // "the worker", or the command's own words
    std::vector<std::string> m_environment;
    std::unique_ptr<LineProcess> m_process;
    // The second worker: it holds the next candidate, compiled, until it is measured.
    std::unique_ptr<LineProcess> m_ahead;
    std::int64_t m_aheadId = -1; // the held request's id; -1: none
    protocol::MeasureRequest m_aheadRequest;
    double m_timeoutMs = 30000;
    int m_overlapped = 0;
    std::int64_t m_nextId = 1;
    int m_restarts = 0;
    bool m_haveMachine = false;
    bool m_askGpu = false;
    MachineInfo m_machine;
};

// The worker, as the window finds it: $LOOPSCOPE_WORKER, loopscope-worker beside it, ../worker/,
// or ../libexec/loopscope/.
std::string findWorkerExecutable(const std::string& selfExecutable);

} // namespace loopscope
