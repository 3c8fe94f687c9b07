// A variant run here, in this process: lowered, compiled for the host, its buffers filled with
// seeded random data, run, checked against the reference interpreter and timed. (A "runner" is
// always another process that measures: loopscope-runner on a GPU, the workers `--runner`
// starts; runtime/GpuRun's GpuRunner is the client of the first, tune/RunnerPool of the others.)
#pragma once

#include "codegen/Codegen.h"
#include "lower/Lower.h"
#include "runtime/Benchmark.h"
#include "runtime/Buffer.h"
#include "runtime/Check.h"
#include "runtime/FlopCount.h"
#include "te/Program.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace loopscope {

class GpuRunner;

// The memory the machine has, in bytes (0 when it cannot be told).
std::int64_t physicalMemoryBytes();

struct RunConfig {
    std::map<std::string, std::int64_t> symbols; // values of te.var sizes, by name
    std::int64_t defaultSymbolValue = 1024;
    std::uint64_t seed = 1;
    int optLevel = 3;      // LLVM optimization level
    Jit* jit = nullptr;    // compiles the kernel: required (see runtime/RuntimeJit.h)
    bool lineInfo = false; // the kernel knows its TIR lines (for profiles)
    // Where GPU schedules run (runtime/GpuRun.h); without one, or without a GPU there, they are
    // checked on this CPU and not timed.
    GpuRunner* gpu = nullptr;
};

struct OutputCheck {
    std::string tensor;
    CheckResult result;
};

class PreparedRun {
public:
    // Throws UserError (the schedule cannot be lowered) or CodegenError (cannot run on the CPU).
    // `step`: which schedule of the variant to run (0: untransformed; -1: after its last step).
    static std::unique_ptr<PreparedRun> prepare(const Program& program, const Variant& variant,
                                                const RunConfig& config, int step = -1);

    void run() const;
    // Compares every output with the reference (run() first).
    std::vector<OutputCheck> check() const;
    Measurement benchmark(const BenchmarkOptions& options,
                          const std::function<bool()>& cancelled = {}) const;

    double flops() const { return m_flops; }
    double lowerMs() const { return m_lowerMs; }
    double compileMs() const { return m_compileMs; }
    const LoweredFunc& lowered() const { return m_lowered; }
    const JitKernel& kernel() const { return *m_kernel; }
    // Facts worth telling the user, e.g. a symbolic size that took its default value.
    const std::vector<std::string>& notes() const { return m_notes; }
    const std::vector<HostBuffer>& buffers() const { return m_buffers; }
    const Variant& variant() const { return *m_variant; }
    const SizeValues& symbols() const { return m_symbols; }
    // The seed argument `arg`'s buffer is filled from when it is an input.
    std::uint64_t inputSeed(std::size_t arg) const { return m_seed * 7919 + arg; }
    // A GPU schedule: its kernels run here on the CPU (or on a GPU through runtime/GpuRun.h).
    bool isGpu() const { return m_gpu; }
    // Replaces argument `arg`'s contents with what a run elsewhere (a GPU) left in it.
    void setContents(std::size_t arg, const std::string& bytes);

private:
    PreparedRun() = default;

    const Variant* m_variant = nullptr;
    LoweredFunc m_lowered;
    std::unique_ptr<JitKernel> m_kernel;
    std::vector<HostBuffer> m_buffers; // one per argument
    std::vector<void*> m_pointers;
    std::vector<std::int64_t> m_sizes; // the kernel's size parameters
    SizeValues m_symbols;
    std::uint64_t m_seed = 1;
    bool m_gpu = false;
    double m_flops = 0, m_lowerMs = 0, m_compileMs = 0;
    std::vector<std::string> m_notes;
};

} // namespace loopscope
