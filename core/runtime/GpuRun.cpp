#include "runtime/GpuRun.h"

#include "codegen/Codegen.h"
#include "codegen/Nvptx.h"
#include "ir/GpuTarget.h"
#include "ir/IRUtil.h"
#include "lower/gpu/ThreadAllreduce.h"
#include "process/LineProcess.h"
#include "protocol/Codec.h"
#include "protocol/InputFill.h"
#include "protocol/Protocol.h"
#include "runtime/Check.h"
#include "runtime/LocalRun.h"
#include "runtime/Reference.h"

#include <algorithm>
#include <cstdio>

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
    const PingAnswer answer = askWhatItIs(*m_process, m_nextId++, "the GPU runner");
    if (!answer.reply) {
        m_unavailable = answer.problem;
        if (answer.silent) m_process.reset();
        return m_device;
    }
    const protocol::PingReply& r = *answer.reply;
    if (std::find(r.commands.begin(), r.commands.end(), "gpu_run") == r.commands.end()) {
        std::string commands;
        for (const std::string& c : r.commands)
            commands += (commands.empty() ? "" : ", ") + c;
        m_unavailable = "the program started as the GPU runner does not run GPU kernels (it "
                        "answers " +
                        commands + ")";
        return m_device;
    }
    if (!r.gpu.name.empty())
        m_device = r.gpu;
    else
        m_unavailable = (r.cpuNote.empty() ? "the runner found no GPU" : r.cpuNote) +
                        (r.machine.host.empty() ? "" : " (on " + r.machine.host + ")");
    m_host = r.machine.host;
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

std::optional<protocol::GpuGemm> gpuGemmOf(const PreparedRun& run)
{
    const Variant& v = run.variant();
    const auto& outputs = v.snapshots.front().outputs();
    if (outputs.size() != 1) return std::nullopt;
    const Tensor& c = outputs.front();
    if (!c->isCompute() || c->ndim() != 2 || c->dtype != DataType::float32()) return std::nullopt;
    const auto* reduce = c->body.as<ReduceNode>();
    if (!reduce || reduce->op != ReduceOp::Sum || reduce->axes.size() != 1 ||
        reduce->condition.defined())
        return std::nullopt;
    const auto* mul = reduce->source.as<BinaryNode>();
    if (!mul || reduce->source.kind() != ExprKind::Mul) return std::nullopt;
    const VarNode* i = c->axes[0]->var.get();
    const VarNode* j = c->axes[1]->var.get();
    const VarNode* k = reduce->axes[0]->var.get();
    // An operand: a 2-D float32 argument read at (row, k) or (k, row) with plain loop variables.
    struct Operand {
        int arg = -1;
        const VarNode* other = nullptr; // the index that is not k
        bool kFirst = false;
    };
    auto operand = [&](const Expr& e) -> std::optional<Operand> {
        const auto* load = e.as<TensorLoadNode>();
        if (!load || !load->tensor->isPlaceholder() || load->indices.size() != 2 ||
            load->tensor->dtype != DataType::float32())
            return std::nullopt;
        const auto* x = load->indices[0].as<VarNode>();
        const auto* y = load->indices[1].as<VarNode>();
        if (!x || !y) return std::nullopt;
        Operand o;
        for (std::size_t a = 0; a < v.args.size(); ++a)
            if (v.args[a] == load->tensor) o.arg = static_cast<int>(a);
        if (o.arg < 0) return std::nullopt;
        if (x == k && y != k) {
            o.kFirst = true;
            o.other = y;
        } else if (y == k && x != k) {
            o.other = x;
        } else {
            return std::nullopt;
        }
        return o;
    };
    std::optional<Operand> p = operand(mul->a), q = operand(mul->b);
    if (!p || !q) return std::nullopt;
    if (p->other == j && q->other == i) std::swap(p, q);
    if (p->other != i || q->other != j) return std::nullopt;
    int cArg = -1;
    for (std::size_t a = 0; a < v.args.size(); ++a)
        if (v.args[a] == c) cArg = static_cast<int>(a);
    if (cArg < 0) return std::nullopt;
    const auto& cShape = run.buffers()[static_cast<std::size_t>(cArg)].shape();
    const auto& aShape = run.buffers()[static_cast<std::size_t>(p->arg)].shape();
    protocol::GpuGemm g;
    g.m = cShape[0];
    g.n = cShape[1];
    g.k = p->kFirst ? aShape[0] : aShape[1];
    g.a = p->arg;
    g.b = q->arg;
    g.c = cArg;
    g.transA = p->kFirst;  // A stored [K, M]
    g.transB = !q->kFirst; // B stored [N, K]
    const auto& bShape = run.buffers()[static_cast<std::size_t>(q->arg)].shape();
    if ((q->kFirst ? bShape[0] : bShape[1]) != g.k) return std::nullopt;
    return g;
}

std::optional<protocol::GpuConv> gpuConvOf(const PreparedRun& run)
{
    const Variant& v = run.variant();
    const auto& outputs = v.snapshots.front().outputs();
    if (outputs.size() != 1) return std::nullopt;
    const Tensor& out = outputs.front();
    if (!out->isCompute() || out->ndim() != 4 || out->dtype != DataType::float32())
        return std::nullopt;
    const auto* reduce = out->body.as<ReduceNode>();
    if (!reduce || reduce->op != ReduceOp::Sum || reduce->axes.size() != 3 ||
        reduce->condition.defined() || reduce->source.kind() != ExprKind::Mul)
        return std::nullopt;
    const auto* mul = reduce->source.as<BinaryNode>();
    const auto* p = mul->a.as<TensorLoadNode>();
    const auto* q = mul->b.as<TensorLoadNode>();
    if (!p || !q || p->indices.size() != 4 || q->indices.size() != 4) return std::nullopt;
    auto extent = [](const Expr& e) { return constIntOr(e, 0); };
    VarSet outVars, reduceVars;
    for (const IterVar& a : out->axes)
        outVars.insert(a->var.get());
    for (const IterVar& a : reduce->axes)
        reduceVars.insert(a->var.get());
    auto axisExtent = [&](const VarNode* var) -> std::int64_t {
        for (const auto* axes : {&out->axes, &reduce->axes})
            for (const IterVar& a : *axes)
                if (a->var.get() == var) return extent(a->dom.extent);
        return 0;
    };
    // Each index of a load: the output and reduction variables it uses.
    struct Uses {
        std::vector<const VarNode*> out, reduce;
    };
    auto uses = [&](const TensorLoadNode* load) {
        std::vector<Uses> all;
        for (const Expr& index : load->indices) {
            VarSet vars;
            collectVars(index, &vars);
            Uses u;
            for (const VarNode* var : vars) {
                if (outVars.count(var)) u.out.push_back(var);
                if (reduceVars.count(var)) u.reduce.push_back(var);
            }
            all.push_back(u);
        }
        return all;
    };
    // The weight: every index one variable, the three reduction axes and one output axis.
    auto isWeight = [&](const std::vector<Uses>& u) {
        int outs = 0, reduces = 0;
        for (const Uses& x : u) {
            if (x.out.size() + x.reduce.size() != 1) return false;
            outs += static_cast<int>(x.out.size());
            reduces += static_cast<int>(x.reduce.size());
        }
        return outs == 1 && reduces == 3;
    };
    std::vector<Uses> pu = uses(p), qu = uses(q);
    if (isWeight(pu)) {
        std::swap(p, q);
        std::swap(pu, qu);
    }
    if (!isWeight(qu)) return std::nullopt;
    const VarNode* channel = nullptr; // the output channels: the weight's output axis
    for (const Uses& x : qu)
        if (!x.out.empty()) channel = x.out.front();
    // The data: the batch (an output axis alone), the input channels (a reduction axis alone)
    // and two windows (an output axis and a reduction axis each), in the data's order.
    const VarNode* batch = nullptr;
    const VarNode* inChannel = nullptr;
    std::vector<std::pair<const VarNode*, const VarNode*>> windows; // output axis, reduction
    std::vector<int> windowDims;
    for (std::size_t d = 0; d < pu.size(); ++d) {
        const Uses& x = pu[d];
        if (x.out.size() == 1 && x.reduce.empty() && x.out.front() != channel && !batch) {
            batch = x.out.front();
        } else if (x.reduce.size() == 1 && x.out.empty() && !inChannel) {
            inChannel = x.reduce.front();
        } else if (x.out.size() == 1 && x.reduce.size() == 1 && x.out.front() != channel) {
            windows.push_back({x.out.front(), x.reduce.front()});
            windowDims.push_back(static_cast<int>(d));
        } else {
            return std::nullopt;
        }
    }
    if (!batch || !inChannel || windows.size() != 2) return std::nullopt;
    // The data's extents at the windows, and the input's before its padding.
    const Tensor& data = p->tensor;
    Tensor input = data;
    if (data->isCompute()) {
        const auto inputs = inputTensors(data);
        if (inputs.size() != 1 || !inputs.front()->isPlaceholder() || inputs.front()->ndim() != 4)
            return std::nullopt;
        input = inputs.front();
    }
    protocol::GpuConv g;
    g.n = axisExtent(batch);
    g.c = axisExtent(inChannel);
    g.k = axisExtent(channel);
    std::int64_t* sizes[2] = {&g.h, &g.w};
    std::int64_t* pads[2] = {&g.padH, &g.padW};
    std::int64_t* strides[2] = {&g.strideH, &g.strideW};
    std::int64_t* kernel[2] = {&g.r, &g.s};
    for (int i = 0; i < 2; ++i) {
        const auto d = static_cast<std::size_t>(windowDims[static_cast<std::size_t>(i)]);
        const std::int64_t padded = extent(data->shape[d]), plain = extent(input->shape[d]);
        const std::int64_t out = axisExtent(windows[static_cast<std::size_t>(i)].first);
        const std::int64_t window = axisExtent(windows[static_cast<std::size_t>(i)].second);
        if (padded <= 0 || plain <= 0 || out <= 0 || window <= 0 || padded < plain ||
            (padded - plain) % 2)
            return std::nullopt;
        *sizes[i] = plain;
        *pads[i] = (padded - plain) / 2;
        *kernel[i] = window;
        *strides[i] = out > 1 ? (padded - window) / (out - 1) : 1;
        if (*strides[i] < 1 || (padded - window) / *strides[i] + 1 != out) return std::nullopt;
    }
    if (g.n <= 0 || g.c <= 0 || g.k <= 0) return std::nullopt;
    return g;
}

std::int64_t argumentBytes(const PreparedRun& run)
{
    std::int64_t bytes = 0;
    for (const auto& b : run.buffers())
        bytes += b.byteSize();
    return bytes;
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

std::vector<ExpectedValues> expectedValues(const PreparedRun& run, int count, std::uint64_t seed)
{
    const Variant& v = run.variant();
    ReferenceEvaluator::Inputs inputs;
    for (std::size_t i = 0; i < v.args.size(); ++i)
        if (v.args[i]->isPlaceholder()) inputs[v.args[i].get()] = &run.buffers()[i];
    ReferenceEvaluator reference(inputs, run.symbols());
    const auto& outputs = v.snapshots.front().outputs();
    std::vector<ExpectedValues> out;
    for (std::size_t a = 0; a < v.args.size(); ++a) {
        const Tensor& t = v.args[a];
        if (std::find(outputs.begin(), outputs.end(), t) == outputs.end()) continue;
        ExpectedValues e;
        e.buffer = static_cast<int>(a);
        e.tensor = t->name;
        const Tolerance tol = defaultTolerance(t->dtype);
        e.rtol = tol.rtol;
        e.atol = tol.atol;
        const std::vector<std::int64_t>& shape = run.buffers()[a].shape();
        const std::int64_t total = run.buffers()[a].elementCount();
        if (total == 0) continue;
        std::uint64_t state = seed;
        e.indices = {0, total - 1};
        for (int n = 0; n < count; ++n)
            e.indices.push_back(static_cast<std::int64_t>(protocol::splitMix64(state) %
                                                          static_cast<std::uint64_t>(total)));
        std::vector<std::int64_t> index(shape.size());
        for (std::int64_t flat : e.indices) {
            std::int64_t rest = flat;
            for (std::size_t d = shape.size(); d-- > 0;) {
                index[d] = rest % shape[d];
                rest /= shape[d];
            }
            e.values.push_back(reference.value(t, index));
        }
        out.push_back(std::move(e));
    }
    return out;
}

// The device copy's size: enough to time the GPU's bandwidth, not its caches (an H100 has 50 MB
// of L2).
constexpr std::int64_t kCopyBytes = std::int64_t{256} << 20;

void askForReference(const PreparedRun& run, protocol::GpuRunRequest& request)
{
    request.cublas = gpuGemmOf(run);
    if (!request.cublas) request.cudnn = gpuConvOf(run);
    // A program that does fewer operations than it moves bytes: bound by memory.
    if (!request.cublas && !request.cudnn && run.flops() < static_cast<double>(argumentBytes(run)))
        request.copyBytes = kCopyBytes;
}

Measurement runOnGpu(PreparedRun& run, GpuRunner& gpu, BenchmarkOptions timing, std::string* note,
                     GpuReference* reference)
{
    const protocol::GpuDevice& device = gpu.device().value();
    const int sm = ptxArchitecture(device);
    protocol::GpuRunRequest request = gpuRunRequest(run, sm, timing);
    request.repeat = std::max(0, timing.repeat);
    const std::int64_t moved = argumentBytes(run);
    if (reference && request.repeat > 0) askForReference(run, request);
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
    if (reference) {
        GpuReference& r = *reference;
        r = {};
        if (request.cublas) {
            r.name = reply.cublas;
            r.ms = medianOf(reply.cublasMs);
            r.note = reply.cublasNote;
        } else if (request.cudnn) {
            r.name = reply.cudnn;
            r.ms = medianOf(reply.cudnnMs);
            r.note = reply.cudnnNote;
        } else if (request.copyBytes > 0) {
            const double ms = medianOf(reply.copyMs);
            if (ms > 0) {
                r.name = "device copy";
                r.copyGbs = 2.0 * static_cast<double>(request.copyBytes) / ms / 1e6;
            } else {
                r.note = "the driver has no device-to-device copy to time";
            }
        }
        if (m.median > 0) r.kernelGbs = static_cast<double>(moved) / m.median / 1e6;
        if (note && !r.name.empty() && m.median > 0) {
            char text[160];
            if (r.copyGbs > 0)
                std::snprintf(text, sizeof text,
                              "; device copy %.0f GB/s, this variant moves %.0f GB/s (%.2fx)",
                              r.copyGbs, r.kernelGbs, r.kernelGbs / r.copyGbs);
            else if (r.ms > 0)
                std::snprintf(text, sizeof text, "; %s %.3f ms, this variant %.2fx", r.name.c_str(),
                              r.ms, r.ms / m.median);
            else
                text[0] = '\0';
            *note += text;
        } else if (note && !r.note.empty()) {
            *note += "; no reference timed: " + r.note;
        }
    }
    return m;
}

} // namespace loopscope
