#include "runtime/GpuRun.h"

#include "codegen/Codegen.h"
#include "codegen/Nvptx.h"
#include "ir/GpuTarget.h"
#include "lower/gpu/ThreadAllreduce.h"
#include "protocol/Codec.h"
#include "protocol/LineProcess.h"
#include "protocol/Protocol.h"
#include "runtime/Runner.h"

#include <algorithm>

namespace loopscope {

GpuRunner::GpuRunner(std::vector<std::string> command) : m_command(std::move(command)) {}

GpuRunner::~GpuRunner() = default;

std::string GpuRunner::find(const std::string& selfExecutable)
{
    return findProgramBeside(selfExecutable, "loopscope-runner", "runner", "LOOPSCOPE_RUNNER");
}

bool GpuRunner::ensureStarted(std::string* why)
{
    if (m_process) return true;
    if (m_command.empty() || m_command.front().empty()) {
        *why = "the GPU runner (loopscope-runner) was not found next to this program";
        return false;
    }
    std::string problem;
    m_process = LineProcess::start(m_command, {}, &problem);
    if (!m_process) *why = "the GPU runner did not start: " + problem;
    return m_process != nullptr;
}

const std::optional<protocol::GpuDevice>& GpuRunner::device()
{
    if (m_asked) return m_device;
    m_asked = true;
    if (!ensureStarted(&m_unavailable)) return m_device;
    const std::int64_t id = m_nextId++;
    std::string line;
    if (!m_process->writeLine(protocol::encodeRequest(protocol::PingRequest{}, id)) ||
        m_process->readLine(&line, std::chrono::steady_clock::now() + std::chrono::seconds(30)) !=
            LineProcess::Read::Line) {
        m_unavailable = "the GPU runner did not answer";
        if (m_process) m_unavailable += " (" + m_process->reapEnded() + ")";
        m_process.reset();
        return m_device;
    }
    try {
        const protocol::Incoming in = protocol::Incoming::parse(line);
        if (in.kind() == protocol::Incoming::Kind::Error) {
            m_unavailable = in.error().message;
            return m_device;
        }
        const protocol::PingReply r = in.ping();
        if (std::string mismatch = protocolMismatch(r.protocol, "the GPU runner", r.version);
            !mismatch.empty()) {
            m_unavailable = mismatch;
            return m_device;
        }
        if (!r.gpu.name.empty())
            m_device = r.gpu;
        else
            m_unavailable = r.cpuNote.empty() ? "the runner found no GPU" : r.cpuNote;
    } catch (const protocol::ProtocolError& e) {
        m_unavailable = std::string("the GPU runner's answer is not understood: ") + e.what();
    }
    return m_device;
}

const std::string& GpuRunner::unavailable()
{
    device();
    return m_unavailable;
}

protocol::GpuRunReply GpuRunner::run(const protocol::GpuRunRequest& request,
                                     std::chrono::milliseconds timeout)
{
    std::string why;
    if (!ensureStarted(&why)) throw CodegenError(why);
    const std::int64_t id = m_nextId++;
    if (!m_process->writeLine(protocol::encodeRequest(request, id))) {
        const std::string how = m_process->reapEnded();
        m_process.reset();
        throw CodegenError("the GPU runner " + how);
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        std::string line;
        const LineProcess::Read read = m_process->readLine(&line, deadline);
        if (read == LineProcess::Read::TimedOut) {
            m_process.reset();
            throw CodegenError("the GPU run took longer than " +
                               std::to_string(timeout.count() / 1000) + " s and was stopped");
        }
        if (read == LineProcess::Read::Ended) {
            const std::string how = m_process->reapEnded();
            m_process.reset();
            throw CodegenError("the GPU runner " + how);
        }
        try {
            const protocol::Incoming in = protocol::Incoming::parse(line);
            if (in.id() != id || in.isProgress()) continue;
            if (in.kind() == protocol::Incoming::Kind::Error)
                throw CodegenError("on the GPU: " + in.error().message);
            return in.gpuRun();
        } catch (const protocol::ProtocolError& e) {
            throw CodegenError(std::string("the GPU runner's answer is not understood: ") +
                               e.what());
        }
    }
}

int ptxArchitecture(const protocol::GpuDevice& device)
{
    return std::clamp(device.computeCapability, 50, 90);
}

protocol::GpuRunRequest gpuRunRequest(const PreparedRun& run, int sm,
                                      const BenchmarkOptions& timing)
{
    PrimFunc f = run.lowered().func;
    f.body = lowerForDevice(f.body, false);
    GpuTarget target;
    target.kind = "cuda";
    target.sm = sm;
    const PtxModule ptx = generatePtx(f, target);

    protocol::GpuRunRequest r;
    r.ptx = ptx.ptx;
    const Variant& variant = run.variant();
    const auto& outputs = variant.snapshots.front().outputs();
    LS_ASSERT(f.params.size() == variant.args.size(),
              "the function's parameters are its arguments");
    for (std::size_t i = 0; i < variant.args.size(); ++i) {
        const Tensor& t = variant.args[i];
        protocol::GpuBuffer b;
        b.name = t->name;
        b.dtype = t->dtype.str();
        b.shape = run.buffers()[i].shape();
        if (t->isPlaceholder()) b.seed = run.inputSeed(i);
        b.returned = std::find(outputs.begin(), outputs.end(), t) != outputs.end();
        r.buffers.push_back(std::move(b));
    }
    for (const auto& [name, bytes] : ptx.workspaces) {
        protocol::GpuBuffer b;
        b.name = name;
        b.dtype = "uint8";
        b.shape = {bytes};
        r.buffers.push_back(std::move(b));
    }
    auto value = [&](const Expr& e, const std::string& what) {
        std::int64_t v = 0;
        if (!evaluateSize(e, run.symbols(), &v))
            throw CodegenError("the " + what + " has no value for this run");
        return v;
    };
    for (const GpuKernel& k : ptx.kernels) {
        protocol::GpuLaunch l;
        l.kernel = k.name;
        for (int d = 0; d < 3; ++d) {
            l.grid[d] = k.grid[d].defined() ? value(k.grid[d], "grid of " + k.name) : 1;
            l.block[d] = k.block[d].defined() ? value(k.block[d], "block of " + k.name) : 1;
        }
        l.buffers = k.buffers;
        for (const Var& v : k.sizes)
            l.sizes.push_back(value(v, "size " + v->name + " of " + k.name));
        r.launches.push_back(std::move(l));
    }
    r.warmup = 1;
    r.number = std::max(1, timing.number);
    r.repeat = std::max(1, timing.repeat);
    return r;
}

Measurement runOnGpu(PreparedRun& run, GpuRunner& gpu, BenchmarkOptions timing, std::string* note)
{
    const protocol::GpuDevice& device = gpu.device().value();
    const int sm = ptxArchitecture(device);
    protocol::GpuRunRequest request = gpuRunRequest(run, sm, timing);
    request.repeat = std::max(0, timing.repeat);
    const protocol::GpuRunReply reply = gpu.run(request);
    const auto& args = run.variant().args;
    std::size_t next = 0;
    for (std::size_t i = 0; i < args.size() && i < request.buffers.size(); ++i) {
        if (!request.buffers[i].returned) continue;
        if (next >= reply.outputs.size())
            throw CodegenError("the GPU runner returned fewer outputs than asked");
        run.setContents(i, reply.outputs[next++]);
    }
    if (note) {
        *note = "ran on " + device.name + " (compiled for sm_" + std::to_string(sm) +
                "; times by CUDA events)";
        for (const protocol::GpuKernelInfo& k : reply.kernels)
            *note += "; " + k.name + ": " + std::to_string(k.registers) + " registers, " +
                     std::to_string(k.sharedBytes) + " bytes shared" +
                     (k.localBytes ? ", " + std::to_string(k.localBytes) + " bytes local" : "");
    }
    Measurement m;
    m.msPerRun = reply.ms;
    m.number = request.number;
    summarize(m);
    return m;
}

} // namespace loopscope
