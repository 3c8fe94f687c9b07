// loopscope-runner: runs kernels compiled to PTX by Loopscope on this machine's NVIDIA GPU. It
// speaks the worker protocol on standard input and output (one JSON request per line, one reply
// per line): "ping" says what the GPU is, "gpu_run" loads PTX, makes the inputs from their seeds,
// launches the kernels, times them with CUDA events after warm-up and returns the outputs and
// times. It needs only the C library and the NVIDIA driver, loaded when a request needs it; the
// C++ runtime is linked in, so the program runs on a machine with a GPU and nothing of Loopscope.
#include "CudaDriver.h"

#include "Version.h"
#include "protocol/Codec.h"
#include "protocol/InputFill.h"
#include "protocol/Protocol.h"

#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace loopscope::runner {

namespace {

using protocol::ErrorReply;

// A refusal with the driver's reason; answered as an error of kind Codegen (the code cannot run
// here), the runner lives on.
struct RunFailure {
    std::string message;
};

std::int64_t elementBytes(const std::string& dtype)
{
    static const std::map<std::string, std::int64_t> sizes = {
        {"float64", 8}, {"float32", 4}, {"float16", 2}, {"int64", 8}, {"int32", 4},
        {"int16", 2},   {"int8", 1},    {"uint8", 1},   {"bool", 1}};
    auto it = sizes.find(dtype);
    if (it == sizes.end()) throw RunFailure{"no buffers of type '" + dtype + "'"};
    return it->second;
}

class Gpu {
public:
    explicit Gpu(int ordinal)
    {
        std::string why;
        d = CudaDriver::load(&why);
        if (!d) throw RunFailure{why};
        check(d->init(0), "cuInit");
        int count = 0;
        check(d->deviceGetCount(&count), "cuDeviceGetCount");
        if (ordinal >= count)
            throw RunFailure{"no GPU " + std::to_string(ordinal) + " (this machine has " +
                             std::to_string(count) + ")"};
        check(d->deviceGet(&device, ordinal), "cuDeviceGet");
        check(d->primaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
        check(d->ctxSetCurrent(context), "cuCtxSetCurrent");
    }
    ~Gpu()
    {
        if (context) d->primaryCtxRelease(device);
    }
    Gpu(const Gpu&) = delete;
    Gpu& operator=(const Gpu&) = delete;

    void check(CUresult r, const char* what) const
    {
        if (r != 0) throw RunFailure{std::string(what) + ": " + d->describe(r)};
    }

    int attribute(int which) const
    {
        int v = 0;
        d->deviceGetAttribute(&v, which, device);
        return v;
    }

    protocol::GpuDevice describe() const
    {
        protocol::GpuDevice g;
        char name[256] = {};
        d->deviceGetName(name, sizeof name - 1, device);
        g.name = name;
        g.computeCapability = attribute(kDeviceComputeMajor) * 10 + attribute(kDeviceComputeMinor);
        g.multiprocessors = attribute(kDeviceMultiprocessors);
        d->driverGetVersion(&g.driverVersion);
        g.sharedPerBlock = attribute(kDeviceMaxSharedPerBlock);
        g.maxThreadsPerBlock = attribute(kDeviceMaxThreadsPerBlock);
        return g;
    }

    const CudaDriver* d = nullptr;
    CUdevice device = 0;
    CUcontext context = nullptr;
};

// Device memory that is freed however the request ends.
struct DeviceBuffers {
    const CudaDriver* d;
    std::vector<CUdeviceptr> pointers;
    ~DeviceBuffers()
    {
        for (auto p : pointers)
            if (p) d->memFree(p);
    }
};

struct Module {
    const CudaDriver* d;
    CUmodule module = nullptr;
    ~Module()
    {
        if (module) d->moduleUnload(module);
    }
};

protocol::GpuRunReply gpuRun(const protocol::GpuRunRequest& r)
{
    Gpu gpu(r.device);
    const CudaDriver& d = *gpu.d;
    protocol::GpuRunReply reply;
    reply.device = gpu.describe();

    // The PTX, JIT-compiled by the driver for this GPU, with its logs.
    char info[8192] = {}, errors[8192] = {};
    int options[] = {kJitInfoLog, kJitInfoLogSize, kJitErrorLog, kJitErrorLogSize};
    void* values[] = {info, reinterpret_cast<void*>(sizeof info - 1), errors,
                      reinterpret_cast<void*>(sizeof errors - 1)};
    Module module{&d};
    const CUresult loaded = d.moduleLoadDataEx(&module.module, r.ptx.c_str(), 4, options, values);
    reply.log = info;
    if (loaded != 0)
        throw RunFailure{"the driver did not load the PTX: " + d.describe(loaded) +
                         (errors[0] ? std::string("\n") + errors : std::string())};

    std::vector<CUfunction> functions;
    for (auto& l : r.launches) {
        CUfunction f = nullptr;
        gpu.check(d.moduleGetFunction(&f, module.module, l.kernel.c_str()),
                  ("cuModuleGetFunction " + l.kernel).c_str());
        if (l.sharedBytes >= 48 * 1024)
            gpu.check(d.funcSetAttribute(f, kFuncMaxDynamicShared, static_cast<int>(l.sharedBytes)),
                      "cuFuncSetAttribute");
        functions.push_back(f);
        protocol::GpuKernelInfo k;
        k.name = l.kernel;
        d.funcGetAttribute(&k.registers, kFuncRegisters, f);
        d.funcGetAttribute(&k.localBytes, kFuncLocalBytes, f);
        d.funcGetAttribute(&k.sharedBytes, kFuncSharedBytes, f);
        d.funcGetAttribute(&k.maxThreadsPerBlock, kFuncMaxThreadsPerBlock, f);
        reply.kernels.push_back(k);
    }

    // The buffers: inputs made from their seeds, the others zeroed.
    DeviceBuffers buffers{&d, {}};
    std::vector<std::size_t> bytes;
    for (auto& b : r.buffers) {
        std::int64_t n = 1;
        for (auto e : b.shape)
            n *= e;
        bytes.push_back(static_cast<std::size_t>(n * elementBytes(b.dtype)));
        CUdeviceptr p = 0;
        gpu.check(d.memAlloc(&p, bytes.back() ? bytes.back() : 1), "cuMemAlloc");
        buffers.pointers.push_back(p);
        if (b.seed) {
            std::vector<unsigned char> host(bytes.back());
            protocol::fillFromSeed(host.data(), n, b.dtype, *b.seed);
            gpu.check(d.memcpyHtoD(p, host.data(), host.size()), "cuMemcpyHtoD");
        } else {
            gpu.check(d.memsetD8(p, 0, bytes.back()), "cuMemsetD8");
        }
    }

    auto runOnce = [&] {
        for (std::size_t i = 0; i < r.launches.size(); ++i) {
            const protocol::GpuLaunch& l = r.launches[i];
            std::vector<CUdeviceptr> pointers;
            std::vector<int> sizes;
            for (int b : l.buffers)
                pointers.push_back(buffers.pointers.at(static_cast<std::size_t>(b)));
            for (auto s : l.sizes)
                sizes.push_back(static_cast<int>(s));
            std::vector<void*> args;
            for (auto& p : pointers)
                args.push_back(&p);
            for (auto& s : sizes)
                args.push_back(&s);
            gpu.check(
                d.launchKernel(functions[i], static_cast<unsigned>(l.grid[0]),
                               static_cast<unsigned>(l.grid[1]), static_cast<unsigned>(l.grid[2]),
                               static_cast<unsigned>(l.block[0]), static_cast<unsigned>(l.block[1]),
                               static_cast<unsigned>(l.block[2]),
                               static_cast<unsigned>(l.sharedBytes), nullptr, args.data(), nullptr),
                ("cuLaunchKernel " + l.kernel).c_str());
        }
    };

    // A run before timing, synchronised, so that a fault is reported as the run's.
    for (int i = 0; i < std::max(1, r.warmup); ++i)
        runOnce();
    gpu.check(d.ctxSynchronize(), "running the kernels");

    CUevent start = nullptr, stop = nullptr;
    gpu.check(d.eventCreate(&start, 0), "cuEventCreate");
    gpu.check(d.eventCreate(&stop, 0), "cuEventCreate");
    for (int rep = 0; rep < r.repeat; ++rep) {
        gpu.check(d.eventRecord(start, nullptr), "cuEventRecord");
        for (int i = 0; i < r.number; ++i)
            runOnce();
        gpu.check(d.eventRecord(stop, nullptr), "cuEventRecord");
        gpu.check(d.eventSynchronize(stop), "timing the kernels");
        float ms = 0;
        gpu.check(d.eventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
        reply.ms.push_back(static_cast<double>(ms) / r.number);
    }
    d.eventDestroy(start);
    d.eventDestroy(stop);

    // The outputs as the first run left them: the runs after it compute the same.
    for (std::size_t i = 0; i < r.buffers.size(); ++i) {
        if (!r.buffers[i].returned) continue;
        std::string host(bytes[i], '\0');
        gpu.check(d.memcpyDtoH(host.data(), buffers.pointers[i], host.size()), "cuMemcpyDtoH");
        reply.outputs.push_back(std::move(host));
    }
    return reply;
}

protocol::PingReply ping()
{
    protocol::PingReply r;
    r.version = LOOPSCOPE_VERSION_STRING;
    r.protocol = kWorkerProtocol;
    r.commands = {"gpu_run", "ping"};
    r.triple = "nvptx64-nvidia-cuda";
    try {
        r.gpu = Gpu(0).describe();
    } catch (const RunFailure& f) {
        r.cpuNote = f.message;
    }
    return r;
}

std::string answer(const std::string& line)
{
    std::optional<std::int64_t> id;
    try {
        protocol::IncomingRequest in = protocol::decodeRequest(line, &id);
        if (std::holds_alternative<protocol::PingRequest>(in.request))
            return protocol::encodeReply(in.id, ping());
        if (auto* run = std::get_if<protocol::GpuRunRequest>(&in.request))
            return protocol::encodeReply(in.id, gpuRun(*run));
        return protocol::encodeError(in.id,
                                     {ErrorReply::Kind::Request,
                                      std::string("the GPU runner answers ping and gpu_run, not ") +
                                          protocol::commandName(in.request)});
    } catch (const protocol::ProtocolError& e) {
        return protocol::encodeError(id, {e.kind(), e.what()});
    } catch (const RunFailure& f) {
        return protocol::encodeError(id, {ErrorReply::Kind::Codegen, f.message});
    } catch (const std::exception& e) {
        return protocol::encodeError(id, {ErrorReply::Kind::Internal, e.what()});
    }
}

} // namespace

} // namespace loopscope::runner

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0) {
            std::printf("loopscope-runner %s\n", LOOPSCOPE_VERSION_STRING);
            return 0;
        }
        const char* usage = "usage: loopscope-runner [--version | --help]\n"
                            "Runs Loopscope's GPU kernels on this machine's NVIDIA GPU: requests "
                            "on standard input, replies on standard output, one JSON object a "
                            "line (ping, gpu_run).\n";
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::fputs(usage, stdout);
            return 0;
        }
        std::fprintf(stderr, "loopscope-runner: unknown option '%s'\n%s", argv[i], usage);
        return 2;
    }
    std::ios::sync_with_stdio(false);
    for (std::string line; std::getline(std::cin, line);) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        std::cout << loopscope::runner::answer(line) << '\n' << std::flush;
    }
    return 0;
}
