// Where a kernel spends its time: the running process sampled by the CPU clock while the kernel
// runs again and again (every thread: the caller's and the thread pool's, merged), each sample's
// instruction address mapped to the line of the kernel's printed TIR it belongs to (the line
// information the JIT keeps, KernelLines), and the lines summed into their enclosing loops.
// Sampling uses perf_event_open's software CPU clock, which works without a hardware PMU (in
// virtual machines too); where perf events are refused, setitimer's profiling timer (SIGPROF).
// Hardware counters (cycles, instructions, L1D and LLC misses) are read where the machine has
// them, and their absence is said, not shown as zeros.
#pragma once

#include "codegen/Codegen.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace loopscope {

// Samples of the process's threads, by the CPU time each uses.
class Sampler {
public:
    // One sample every `periodUs` of a thread's CPU time.
    explicit Sampler(double periodUs = 100);
    ~Sampler();
    Sampler(const Sampler&) = delete;
    Sampler& operator=(const Sampler&) = delete;

    // Starts sampling every thread the process has now. False with why when neither perf events
    // nor the profiling timer can be had.
    bool start(std::string* why);
    void stop();
    // The instruction addresses sampled (user space), in no particular order.
    const std::vector<std::uintptr_t>& addresses() const { return m_addresses; }
    std::int64_t lost() const { return m_lost; }
    // "perf_event_open, software CPU clock, 100 us" or "setitimer (ITIMER_PROF), 1 ms".
    const std::string& method() const { return m_method; }
    int threads() const { return m_threads; }

private:
    struct Stream;
    double m_periodUs;
    std::vector<Stream*> m_streams;
    std::vector<std::uintptr_t> m_addresses;
    std::int64_t m_lost = 0;
    std::string m_method;
    int m_threads = 0;
    bool m_timer = false;
};

// A kernel's profile: samples per line of its printed TIR and per loop.
struct LineProfile {
    std::string tir;           // the printed TIR the lines number (from 1)
    std::string method;        // how the samples were taken
    int threads = 0;           // threads sampled
    int runs = 0;              // kernel runs while sampling
    double seconds = 0;        // wall time sampled
    std::int64_t samples = 0;  // all of them
    std::int64_t inKernel = 0; // in the kernel's code; the rest is elsewhere (the pool waiting,
                               // libm, the process's other work)
    std::int64_t lost = 0;
    std::vector<std::int64_t> lineSamples; // [line - 1]
    std::vector<std::int64_t> loopSamples; // [line - 1] of a `for` line: its body's and its own
    std::vector<bool> isLoop;              // [line - 1]
    // Per instruction of the kernel (KernelLines::instructionOffsets). A sample is charged to
    // the instruction before the address it caught: a timer interrupts a thread after the
    // instruction it was waiting on (skid), and that one is what cost the time.
    std::vector<std::int64_t> instructionSamples;

    // Shares of the samples in the kernel (0..1).
    double lineShare(int line) const;
    double loopShare(int line) const;
};

// The samples attributed to the kernel's lines and loops.
LineProfile attributeSamples(const KernelLines& lines, const std::vector<std::uintptr_t>& samples);

// How often profileRuns samples a thread, in microseconds of its CPU time: each sample costs the
// sampled thread a timer interrupt (loopscope_bench_profile measures what that adds).
constexpr double kProfilePeriodUs = 250; // 4 kHz, perf record's default rate

// Runs `run` again and again for at least `seconds` (and at least `minRuns` times) while the
// process is sampled, and attributes the samples. The kernel must have been compiled with line
// info. False with why when sampling cannot be had.
bool profileRuns(const JitKernel& kernel, const std::function<void()>& run, double seconds,
                 int minRuns, LineProfile* profile, std::string* why);

// Hardware counters of the process's threads over a stretch of work.
struct HardwareCounts {
    bool available = false;
    std::string why; // when not: "this machine exposes no hardware performance counters ..."
    double cycles = 0, instructions = 0, l1dMisses = 0, llcMisses = 0;
    bool haveL1d = false, haveLlc = false;
    double ipc() const { return cycles > 0 ? instructions / cycles : 0; }
};
HardwareCounts countHardwareEvents(const std::function<void()>& work);

} // namespace loopscope
