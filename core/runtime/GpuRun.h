// Running a GPU variant on an NVIDIA GPU: the host side of loopscope-runner. The host compiles
// the variant's kernels to PTX for the runner's GPU and sends them as one request (the kernels,
// each launch's shape, the buffers and the seeds their inputs are made from); the runner returns
// the outputs, which the host checks against the reference, and CUDA-event times. Without a
// runner or a GPU, a GPU variant is checked on this CPU and not timed.
#pragma once

#include "protocol/Messages.h"
#include "runtime/Benchmark.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopscope {

class LineProcess;
class PreparedRun;

class GpuRunner {
public:
    // `command`: the runner's path and arguments (empty: there is no runner).
    explicit GpuRunner(std::vector<std::string> command);
    ~GpuRunner();
    GpuRunner(const GpuRunner&) = delete;
    GpuRunner& operator=(const GpuRunner&) = delete;

    // The runner beside `selfExecutable` ($LOOPSCOPE_RUNNER, loopscope-runner beside it, in
    // ../runner/ or ../libexec/loopscope/); empty when there is none.
    static std::string find(const std::string& selfExecutable);

    // The GPU the runner found (started and asked on first use); nothing when there is none.
    const std::optional<protocol::GpuDevice>& device();
    // Why there is no GPU to run on, e.g. "no NVIDIA driver here (libcuda.so.1: ...)".
    const std::string& unavailable();
    // The runner's host name, once asked (empty before, or where it did not say).
    const std::string& host() const { return m_host; }

    // Runs the request on the GPU. Throws CodegenError with the runner's or driver's reason (the
    // PTX was refused, a kernel faulted, the runner stopped or took longer than `timeout`); the
    // runner is started again for the next request.
    protocol::GpuRunReply run(const protocol::GpuRunRequest& request,
                              std::chrono::milliseconds timeout = std::chrono::minutes(2));

private:
    bool ensureStarted(std::string* why);
    std::vector<std::string> m_command;
    std::unique_ptr<LineProcess> m_process;
    bool m_asked = false;
    std::optional<protocol::GpuDevice> m_device;
    std::string m_unavailable;
    std::string m_host;
    std::int64_t m_nextId = 1;
};

// The architecture to compile for a GPU: its compute capability (sm_86 for 8.6), at most sm_90
// (the newest LLVM 16 knows; PTX for it runs on later GPUs through the driver's JIT).
int ptxArchitecture(const protocol::GpuDevice& device);

// A prepared GPU run as one request: its kernels as PTX for sm_`sm`, its buffers (inputs made
// from the seeds the host's own buffers were filled from, outputs returned), the workspaces
// between kernels and each launch's shape; `timing` gives the repeats.
protocol::GpuRunRequest gpuRunRequest(const PreparedRun& run, int sm,
                                      const BenchmarkOptions& timing);

// cuBLAS's matmul for the prepared run, when its output is one: a 2-D float32 sum over one axis
// of the product of two 2-D float32 arguments, each read at (row, k) or (k, row).
std::optional<protocol::GpuGemm> gpuGemmOf(const PreparedRun& run);

// cuDNN's convolution for the prepared run, when its output is one in whatever layout (TVM's
// HWCN, NCHW, NHWC): a 4-D float32 sum over three reduction axes of the product of a weight read
// at the three reduction axes and one output axis (its channels) and data read at the batch, the
// input channels and two windows (an output axis times a stride plus a reduction axis), the data
// a placeholder or a padded copy of one. The shape as NCHW and KCRS.
std::optional<protocol::GpuConv> gpuConvOf(const PreparedRun& run);

// The bytes the prepared run's arguments hold: what a kernel that moves more than it computes
// reads and writes at least once.
std::int64_t argumentBytes(const PreparedRun& run);

// The request asks for the prepared run's reference, to be timed in turns with it: cuBLAS for a
// matmul, else cuDNN for a convolution, else a device copy for a program that does fewer
// operations than its arguments have bytes.
void askForReference(const PreparedRun& run, protocol::GpuRunRequest& request);

// What a GPU run was timed against, in turns with it: cuBLAS for a matmul, cuDNN for a
// convolution, and a device-to-device copy (the GPU's copy bandwidth) for a program that moves
// more bytes than it does operations.
struct GpuReference {
    std::string name;     // "cuBLAS 12.4.5", "cuDNN 9.1.0 (...)", "device copy"; empty: none
    double ms = 0;        // cuBLAS's or cuDNN's median
    double copyGbs = 0;   // the copy's bandwidth: bytes read and written per second, in GB/s
    double kernelGbs = 0; // the run's: its arguments' bytes over its median time
    std::string note;     // why there is none, where one was asked for
};

// An output's reference values at some of its elements, for checking a run on a machine that
// has no reference (a kernel bundle checked by the runner alone): the first and last element
// and `count` more drawn from `seed`, as flat row-major indices.
struct ExpectedValues {
    int buffer = 0; // the argument's index
    std::string tensor;
    double rtol = 0, atol = 0;
    std::vector<std::int64_t> indices;
    std::vector<double> values;
};
std::vector<ExpectedValues> expectedValues(const PreparedRun& run, int count, std::uint64_t seed);

// What a GPU variant's run says where it cannot be timed on a GPU.
inline constexpr const char* kNoGpuNote = "no GPU here: checked on the CPU, not timed";

// The prepared GPU run on the runner's GPU (gpu.device() must be set): its outputs are left in the
// run's buffers (check() compares them), its CUDA-event times returned (no repeat when
// `timing.repeat` is 0). `note` gets a line on the device and each kernel's registers. Throws
// CodegenError as GpuRunner::run.
// With `reference`, the run is timed in turns with its reference (cuBLAS, cuDNN or the copy),
// which `note` also states as a ratio.
Measurement runOnGpu(PreparedRun& run, GpuRunner& gpu, BenchmarkOptions timing, std::string* note,
                     GpuReference* reference = nullptr);

} // namespace loopscope
