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

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

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
        g.clockMhz = attribute(kDeviceClockKhz) / 1000;
        g.memoryClockMhz = attribute(kDeviceMemoryClockKhz) / 1000;
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

// cuDNN's handle and descriptors, destroyed however the request ends.
struct CudnnState {
    const Cudnn* c = nullptr;
    cudnnHandle_t handle = nullptr;
    cudnnTensorDescriptor_t x = nullptr, y = nullptr;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    ~CudnnState()
    {
        if (!c) return;
        if (conv) c->destroyConvolution(conv);
        if (w) c->destroyFilter(w);
        if (y) c->destroyTensor(y);
        if (x) c->destroyTensor(x);
        if (handle) c->destroy(handle);
    }
    void check(int status, const char* what) const
    {
        if (status != 0)
            throw RunFailure{std::string(what) + " failed: " +
                             (c->getErrorString ? c->getErrorString(status)
                                                : "status " + std::to_string(status))};
    }
};

// The convolution's cuDNN run on buffers of its own (in `memory`), with the fastest algorithm
// that runs within 1 GiB of workspace; empty with the reason in `note` where cuDNN is not there
// or refuses every algorithm.
std::function<void()> prepareCudnn(const Gpu& gpu, const protocol::GpuConv& g, CudnnState& s,
                                   DeviceBuffers& memory, std::string* label, std::string* note)
{
    s.c = Cudnn::load(note);
    if (!s.c) return {};
    const Cudnn& c = *s.c;
    const CudaDriver& d = *gpu.d;
    auto i = [](std::int64_t v) { return static_cast<int>(v); };
    s.check(c.create(&s.handle), "cudnnCreate");
    s.check(c.createTensor(&s.x), "cudnnCreateTensorDescriptor");
    s.check(c.setTensor4d(s.x, kCudnnNchw, kCudnnFloat, i(g.n), i(g.c), i(g.h), i(g.w)),
            "cudnnSetTensor4dDescriptor");
    s.check(c.createFilter(&s.w), "cudnnCreateFilterDescriptor");
    s.check(c.setFilter4d(s.w, kCudnnFloat, kCudnnNchw, i(g.k), i(g.c), i(g.r), i(g.s)),
            "cudnnSetFilter4dDescriptor");
    s.check(c.createConvolution(&s.conv), "cudnnCreateConvolutionDescriptor");
    s.check(c.setConvolution2d(s.conv, i(g.padH), i(g.padW), i(g.strideH), i(g.strideW), 1, 1,
                               kCudnnCrossCorrelation, kCudnnFloat),
            "cudnnSetConvolution2dDescriptor");
    if (c.setMathType) c.setMathType(s.conv, kCudnnFmaMath);
    int n = 0, k = 0, oh = 0, ow = 0;
    s.check(c.outputDim(s.conv, s.x, s.w, &n, &k, &oh, &ow),
            "cudnnGetConvolution2dForwardOutputDim");
    s.check(c.createTensor(&s.y), "cudnnCreateTensorDescriptor");
    s.check(c.setTensor4d(s.y, kCudnnNchw, kCudnnFloat, n, k, oh, ow),
            "cudnnSetTensor4dDescriptor");
    auto allocate = [&](std::int64_t bytes) {
        CUdeviceptr p = 0;
        gpu.check(d.memAlloc(&p, static_cast<std::size_t>(std::max<std::int64_t>(bytes, 4))),
                  "cuMemAlloc");
        memory.pointers.push_back(p);
        gpu.check(d.memsetD8(p, 0, static_cast<std::size_t>(std::max<std::int64_t>(bytes, 4))),
                  "cuMemsetD8");
        return reinterpret_cast<void*>(p);
    };
    void* x = allocate(g.n * g.c * g.h * g.w * 4);
    void* w = allocate(g.k * g.c * g.r * g.s * 4);
    void* y = allocate(std::int64_t{n} * k * oh * ow * 4);
    // Each algorithm that takes the shape, timed once; the fastest is the reference.
    const float one = 1, zero = 0;
    double best = 0;
    int bestAlgorithm = -1;
    std::size_t bestBytes = 0;
    void* workspace = nullptr;
    CUevent start = nullptr, stop = nullptr;
    gpu.check(d.eventCreate(&start, 0), "cuEventCreate");
    gpu.check(d.eventCreate(&stop, 0), "cuEventCreate");
    for (int algorithm : {1, 0, 2, 6, 7, 4, 5}) {
        std::size_t bytes = 0;
        if (c.workspaceSize(s.handle, s.x, s.w, s.conv, s.y, algorithm, &bytes) != 0 ||
            bytes > (std::size_t{1} << 30))
            continue;
        // Each workspace is freed when the next algorithm is faster (memory frees the last).
        CUdeviceptr spacePointer = 0;
        if (bytes && d.memAlloc(&spacePointer, bytes) != 0) continue;
        void* space = reinterpret_cast<void*>(spacePointer);
        auto once = [&] {
            return c.forward(s.handle, &one, s.x, x, s.w, w, s.conv, algorithm, space, bytes, &zero,
                             s.y, y);
        };
        if (once() != 0 || d.ctxSynchronize() != 0) {
            if (spacePointer) d.memFree(spacePointer);
            continue;
        }
        gpu.check(d.eventRecord(start, nullptr), "cuEventRecord");
        for (int r = 0; r < 3; ++r)
            once();
        gpu.check(d.eventRecord(stop, nullptr), "cuEventRecord");
        gpu.check(d.eventSynchronize(stop), "timing cuDNN");
        float ms = 0;
        d.eventElapsedTime(&ms, start, stop);
        if (bestAlgorithm < 0 || ms < best) {
            if (workspace) d.memFree(reinterpret_cast<CUdeviceptr>(workspace));
            best = ms;
            bestAlgorithm = algorithm;
            bestBytes = bytes;
            workspace = space;
        } else if (spacePointer) {
            d.memFree(spacePointer);
        }
    }
    if (workspace) memory.pointers.push_back(reinterpret_cast<CUdeviceptr>(workspace));
    d.eventDestroy(start);
    d.eventDestroy(stop);
    if (bestAlgorithm < 0) {
        *note = "cuDNN ran none of its algorithms on this shape";
        return {};
    }
    *label = c.label() + " (algorithm " + std::to_string(bestAlgorithm) + ", NCHW, FMA math)";
    const CudnnState* state = &s;
    return [=] {
        const int status = c.forward(state->handle, &one, state->x, x, state->w, w, state->conv,
                                     bestAlgorithm, workspace, bestBytes, &zero, state->y, y);
        if (status != 0) state->check(status, "cudnnConvolutionForward");
    };
}

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
        if (d.occupancyMaxActiveBlocksPerMultiprocessor)
            d.occupancyMaxActiveBlocksPerMultiprocessor(
                &k.blocksPerSm, f, static_cast<int>(l.block[0] * l.block[1] * l.block[2]),
                static_cast<std::size_t>(l.sharedBytes));
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

    // The outputs as the runs left them (each run computes the same), before cuBLAS writes C.
    for (std::size_t i = 0; i < r.buffers.size(); ++i) {
        if (!r.buffers[i].returned) continue;
        std::string host(bytes[i], '\0');
        gpu.check(d.memcpyDtoH(host.data(), buffers.pointers[i], host.size()), "cuMemcpyDtoH");
        reply.outputs.push_back(std::move(host));
    }

    // cuBLAS, where asked and present: C = A x B in row-major buffers is C^T = B^T A^T in
    // cuBLAS's column-major terms, so B comes first.
    const Cublas* blas = nullptr;
    cublasHandle_t handle = nullptr;
    struct HandleGuard {
        const Cublas*& blas;
        cublasHandle_t& handle;
        ~HandleGuard()
        {
            if (handle) blas->destroy(handle);
        }
    } guard{blas, handle};
    std::function<void()> runCublas;
    if (r.cublas) {
        blas = Cublas::load(&reply.cublasNote);
        if (blas && blas->create(&handle) != 0) {
            reply.cublasNote = "cublasCreate failed";
            handle = nullptr;
            blas = nullptr;
        }
        if (blas) {
            const protocol::GpuGemm& g = *r.cublas;
            for (int b : {g.a, g.b, g.c})
                if (r.buffers[static_cast<std::size_t>(b)].dtype != "float32")
                    throw RunFailure{"cuBLAS's reference takes float32 buffers"};
            int version = 0;
            blas->getVersion(handle, &version);
            reply.cublas = "cuBLAS " + std::to_string(version / 10000) + "." +
                           std::to_string(version / 100 % 100) + "." +
                           std::to_string(version % 100);
            const auto* a = reinterpret_cast<const float*>(buffers.pointers.at(g.a));
            const auto* b = reinterpret_cast<const float*>(buffers.pointers.at(g.b));
            auto* c = reinterpret_cast<float*>(buffers.pointers.at(g.c));
            const int m = static_cast<int>(g.m), n = static_cast<int>(g.n),
                      k = static_cast<int>(g.k);
            runCublas = [=] {
                const float one = 1, zero = 0;
                const int status =
                    blas->sgemm(handle, g.transB ? 1 : 0, g.transA ? 1 : 0, n, m, k, &one, b,
                                g.transB ? k : n, a, g.transA ? m : k, &zero, c, n);
                if (status != 0)
                    throw RunFailure{"cublasSgemm failed (status " + std::to_string(status) + ")"};
            };
            for (int i = 0; i < std::max(1, r.warmup); ++i)
                runCublas();
            gpu.check(d.ctxSynchronize(), "running cuBLAS");
        }
    }

    // cuDNN, where asked and present, on buffers of its own.
    CudnnState cudnnState;
    DeviceBuffers referenceMemory{&d, {}};
    std::function<void()> runCudnn;
    if (r.cudnn)
        runCudnn = prepareCudnn(gpu, *r.cudnn, cudnnState, referenceMemory, &reply.cudnn,
                                &reply.cudnnNote);
    // A device-to-device copy, where asked: the GPU's copy bandwidth.
    std::function<void()> runCopy;
    if (r.copyBytes > 0 && d.memcpyDtoDAsync) {
        const auto bytes = static_cast<std::size_t>(r.copyBytes);
        CUdeviceptr from = 0, to = 0;
        gpu.check(d.memAlloc(&from, bytes), "cuMemAlloc");
        referenceMemory.pointers.push_back(from);
        gpu.check(d.memAlloc(&to, bytes), "cuMemAlloc");
        referenceMemory.pointers.push_back(to);
        gpu.check(d.memsetD8(from, 1, bytes), "cuMemsetD8");
        runCopy = [&d, &gpu, from, to, bytes] {
            gpu.check(d.memcpyDtoDAsync(to, from, bytes, nullptr), "cuMemcpyDtoDAsync");
        };
        runCopy();
        gpu.check(d.ctxSynchronize(), "copying");
    }

    // Timed in turns: the kernels, then cuBLAS, repeat after repeat, so both see the same GPU.
    CUevent start = nullptr, stop = nullptr;
    gpu.check(d.eventCreate(&start, 0), "cuEventCreate");
    gpu.check(d.eventCreate(&stop, 0), "cuEventCreate");
    int number = std::max(1, r.number);
    auto timed = [&](const std::function<void()>& f, const char* what) {
        gpu.check(d.eventRecord(start, nullptr), "cuEventRecord");
        for (int i = 0; i < number; ++i)
            f();
        gpu.check(d.eventRecord(stop, nullptr), "cuEventRecord");
        gpu.check(d.eventSynchronize(stop), what);
        float ms = 0;
        gpu.check(d.eventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
        return static_cast<double>(ms) / number;
    };
    // number 0: as many runs per repeat as fill about 5 ms (at most 1,000), so that a
    // microsecond kernel is not timed at the events' resolution.
    if (r.number <= 0) {
        const double once = timed(runOnce, "timing the kernels");
        number = once > 0 ? static_cast<int>(std::clamp(std::ceil(5.0 / once), 1.0, 1000.0)) : 1;
    }
    for (int rep = 0; rep < r.repeat; ++rep) {
        reply.ms.push_back(timed(runOnce, "timing the kernels"));
        if (runCublas) reply.cublasMs.push_back(timed(runCublas, "timing cuBLAS"));
        if (runCudnn) reply.cudnnMs.push_back(timed(runCudnn, "timing cuDNN"));
        if (runCopy) reply.copyMs.push_back(timed(runCopy, "timing the copy"));
    }
    d.eventDestroy(start);
    d.eventDestroy(stop);
    return reply;
}

protocol::PingReply ping()
{
    protocol::PingReply r;
    r.version = LOOPSCOPE_VERSION_STRING;
    r.protocol = kWorkerProtocol;
    r.commands = {"gpu_run", "ping"};
    r.triple = "nvptx64-nvidia-cuda";
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0) r.machine.host = name;
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

// One element of a returned buffer as a double ("float32", "float64", integers); false for
// another type.
bool elementValue(const std::string& bytes, const std::string& dtype, std::int64_t i, double* out)
{
    auto read = [&](auto v) {
        const std::size_t at = static_cast<std::size_t>(i) * sizeof v;
        if (at + sizeof v > bytes.size()) return false;
        std::memcpy(&v, bytes.data() + at, sizeof v);
        *out = static_cast<double>(v);
        return true;
    };
    if (dtype == "float32") return read(float{});
    if (dtype == "float64") return read(double{});
    if (dtype == "int32") return read(std::int32_t{});
    if (dtype == "int64") return read(std::int64_t{});
    if (dtype == "int8") return read(std::int8_t{});
    if (dtype == "uint8" || dtype == "bool") return read(std::uint8_t{});
    return false;
}

std::string fixed(double v, int digits)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, v);
    return text;
}

std::string pad(const std::string& s, std::size_t width, bool right = false)
{
    if (s.size() >= width) return s + " ";
    const std::string space(width - s.size(), ' ');
    return right ? space + s : s + space;
}

double median(std::vector<double> v)
{
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The time now, ISO 8601 UTC.
std::string isoNow()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

// Runs kernel bundles (loopscope-cli export --format bundle) on this machine's GPU: each is
// checked against the reference values it carries and timed with cuBLAS in turns where it is a
// matmul. Prints a table; 0 when every bundle ran and was right, 3 when one computed wrong
// numbers, 1 when one could not run. With `times`, each bundle's outcome is also a JSON line
// there (a tuning round's times.jsonl: the bundle's file name, ok, wrong or error, its times,
// the GPU, its host), flushed as it is known.
int runBundles(const std::vector<std::string>& files, std::FILE* times = nullptr)
{
    using nlohmann::json;
    int status = 0;
    std::string host;
    if (char name[256] = {}; ::gethostname(name, sizeof name - 1) == 0) host = name;
    auto record = [&](const std::string& file, const std::string& outcome,
                      const std::vector<double>& ms, const std::string& error,
                      const protocol::GpuDevice* device) {
        if (!times) return;
        json line = {{"bundle", file.substr(file.find_last_of('/') + 1)},
                     {"status", outcome},
                     {"ms", ms},
                     {"host", host},
                     {"time", isoNow()}};
        if (!error.empty()) line["error"] = error;
        if (device) line["accelerator"] = protocol::gpuDescription(*device);
        std::fprintf(times, "%s\n", line.dump().c_str());
        std::fflush(times);
    };
    bool first = true, cublasSaid = false, cudnnSaid = false;
    for (const std::string& file : files) {
        std::ifstream in(file);
        std::ostringstream text;
        text << in.rdbuf();
        std::string title = file;
        try {
            if (!in) throw RunFailure{"cannot read the file"};
            const json bundle = json::parse(text.str());
            if (!bundle.contains("loopscope_bundle"))
                throw RunFailure{"not a kernel bundle (loopscope-cli export --format bundle)"};
            title = bundle.value("script", std::string()) + "  " +
                    bundle.value("variant", std::string());
            std::optional<std::int64_t> id;
            const protocol::IncomingRequest request =
                protocol::decodeRequest(bundle.at("request").dump(), &id);
            const auto* run = std::get_if<protocol::GpuRunRequest>(&request.request);
            if (!run) throw RunFailure{"the bundle's request is not a gpu_run"};
            const protocol::GpuRunReply reply = gpuRun(*run);
            if (first) {
                const protocol::GpuDevice& g = reply.device;
                std::printf("%s: sm_%d, %d SMs, driver %d.%d\n", g.name.c_str(),
                            g.computeCapability, g.multiprocessors, g.driverVersion / 1000,
                            g.driverVersion % 1000 / 10);
                std::printf("%s%s%s%s%s%s  %s\n", pad("script  variant", 40).c_str(),
                            pad("ms", 10, true).c_str(), pad("min-max ms", 18, true).c_str(),
                            pad("GFLOPS", 10, true).c_str(), pad("reference", 14, true).c_str(),
                            pad("vs it", 8, true).c_str(), "check");
                first = false;
            }
            // Each library's version at the first bundle that timed it, or why it could not.
            if (run->cublas && !cublasSaid) {
                std::printf("%s\n",
                            reply.cublas.empty()
                                ? ("no cuBLAS timed: " + reply.cublasNote).c_str()
                                : (reply.cublas + ", timed in turns with each matmul").c_str());
                cublasSaid = true;
            }
            if (run->cudnn && !cudnnSaid) {
                std::printf("%s\n", reply.cudnn.empty()
                                        ? ("no cuDNN timed: " + reply.cudnnNote).c_str()
                                        : (reply.cudnn + ", timed in turns with each "
                                                         "convolution")
                                              .c_str());
                cudnnSaid = true;
            }
            // The check: the reference's values at the elements the bundle carries.
            std::map<int, std::size_t> returned;
            for (std::size_t b = 0, n = 0; b < run->buffers.size(); ++b)
                if (run->buffers[b].returned) returned[static_cast<int>(b)] = n++;
            std::string check;
            bool wrong = false;
            for (const json& e : bundle.value("expected", json::array())) {
                const int b = e.at("buffer").get<int>();
                const std::string& dtype = run->buffers.at(static_cast<std::size_t>(b)).dtype;
                const std::string& bytes = reply.outputs.at(returned.at(b));
                const auto indices = e.at("indices").get<std::vector<std::int64_t>>();
                const auto values = e.at("values").get<std::vector<double>>();
                double scale = 1, maxAbs = 0;
                for (double v : values)
                    if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
                std::string mismatch;
                for (std::size_t i = 0; i < indices.size() && i < values.size(); ++i) {
                    double got = 0;
                    if (!elementValue(bytes, dtype, indices[i], &got))
                        throw RunFailure{"no check for buffers of type " + dtype};
                    const double want = values[i];
                    const bool same =
                        (std::isnan(got) && std::isnan(want)) || got == want ||
                        std::fabs(got - want) <= e.at("atol").get<double>() * scale +
                                                     e.at("rtol").get<double>() * std::fabs(want);
                    if (std::isfinite(got - want)) maxAbs = std::max(maxAbs, std::fabs(got - want));
                    if (!same && mismatch.empty())
                        mismatch = e.value("tensor", std::string("output")) + "[flat " +
                                   std::to_string(indices[i]) + "] = " + std::to_string(got) +
                                   " but expected " + std::to_string(want);
                }
                if (!check.empty()) check += "; ";
                if (mismatch.empty()) {
                    char err[32];
                    std::snprintf(err, sizeof err, "%.1e", maxAbs);
                    check += e.value("tensor", std::string("output")) + " ok (" +
                             std::to_string(indices.size()) + " elements, max abs error " + err +
                             ")";
                } else {
                    check += "WRONG: " + mismatch;
                    wrong = true;
                }
            }
            if (wrong) status = std::max(status, 3);
            record(file, wrong ? "wrong" : "ok", reply.ms, wrong ? check : "", &reply.device);
            const double ms = median(reply.ms);
            const double flops = bundle.value("flops", 0.0);
            // The reference: cuBLAS's or cuDNN's time, or the device copy's bandwidth beside the
            // bytes this kernel moves (its arguments' over its time).
            const double library = median(run->cublas ? reply.cublasMs : reply.cudnnMs);
            const double copyMs = median(reply.copyMs);
            std::string reference = "-", ratio = "-";
            if (library > 0) {
                reference = fixed(library, 3) + " ms";
                if (ms > 0) ratio = fixed(library / ms, 2) + "x";
            } else if (copyMs > 0) {
                const double copyGbs = 2.0 * static_cast<double>(run->copyBytes) / copyMs / 1e6;
                reference = fixed(copyGbs, 0) + " GB/s";
                const double moved = bundle.value("moved_bytes", 0.0);
                if (ms > 0 && moved > 0) ratio = fixed(moved / ms / 1e6 / copyGbs, 2) + "x";
            }
            auto lowest = std::min_element(reply.ms.begin(), reply.ms.end());
            auto highest = std::max_element(reply.ms.begin(), reply.ms.end());
            std::printf(
                "%s%s%s%s%s%s  %s\n", pad(title, 40).c_str(), pad(fixed(ms, 3), 10, true).c_str(),
                pad(reply.ms.empty() ? "" : fixed(*lowest, 3) + "-" + fixed(*highest, 3), 18, true)
                    .c_str(),
                pad(ms > 0 ? fixed(flops / ms / 1e6, 1) : "", 10, true).c_str(),
                pad(reference, 14, true).c_str(), pad(ratio, 8, true).c_str(),
                check.empty() ? "not checked" : check.c_str());
            // What the driver made of each kernel: the registers ptxas gave it and how many of
            // its blocks one multiprocessor holds.
            for (std::size_t k = 0; k < reply.kernels.size() && k < run->launches.size(); ++k) {
                const protocol::GpuKernelInfo& info = reply.kernels[k];
                const auto& block = run->launches[k].block;
                const std::int64_t threads = block[0] * block[1] * block[2];
                std::string line = "    " + info.name + ": " + std::to_string(threads) +
                                   " threads per block, " + std::to_string(info.registers) +
                                   " registers, " + std::to_string(info.sharedBytes) + " B shared";
                if (info.localBytes) line += ", " + std::to_string(info.localBytes) + " B local";
                if (info.blocksPerSm)
                    line += "; " + std::to_string(info.blocksPerSm) + " blocks per SM (" +
                            std::to_string(info.blocksPerSm * ((threads + 31) / 32)) + " warps)";
                std::printf("%s\n", line.c_str());
            }
        } catch (const RunFailure& f) {
            std::printf("%s  cannot run: %s\n", pad(title, 40).c_str(), f.message.c_str());
            record(file, "error", {}, f.message, nullptr);
            status = std::max(status, 1);
        } catch (const std::exception& e) {
            std::printf("%s  cannot run: %s\n", pad(title, 40).c_str(), e.what());
            record(file, "error", {}, e.what(), nullptr);
            status = std::max(status, 1);
        }
        std::fflush(stdout);
    }
    return status == 3 ? 3 : status;
}

// Times a tuning round (loopscope-cli tune --rounds-out DIR): the bundles of DIR, or of the last
// round in DIR (round-NNN) not timed yet, each checked and timed as runBundles does, their times
// written to times.jsonl beside them for tune --rounds-in. Nothing is written where there is no
// GPU: a round is timed on a GPU or not at all.
int measureRound(const std::string& dir)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    auto bundlesIn = [&](const fs::path& folder) {
        std::vector<std::string> files;
        for (const auto& e : fs::directory_iterator(folder, ec)) {
            const std::string name = e.path().filename().string();
            if (name.rfind("trial-", 0) == 0 && e.path().extension() == ".json")
                files.push_back(e.path().string());
        }
        std::sort(files.begin(), files.end());
        return files;
    };
    fs::path folder = dir;
    if (bundlesIn(folder).empty()) {
        std::vector<fs::path> rounds;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.is_directory() && e.path().filename().string().rfind("round-", 0) == 0 &&
                !fs::exists(e.path() / "times.jsonl"))
                rounds.push_back(e.path());
        std::sort(rounds.begin(), rounds.end());
        if (ec || rounds.empty()) {
            std::fprintf(stderr,
                         "loopscope-runner: %s holds no round to time (kernel bundles "
                         "trial-*.json, or round-NNN folders of them without times.jsonl)\n",
                         dir.c_str());
            return 2;
        }
        folder = rounds.back();
    }
    const fs::path timesPath = folder / "times.jsonl";
    if (fs::exists(timesPath)) {
        std::fprintf(stderr, "loopscope-runner: %s is timed already (remove it to time again)\n",
                     timesPath.string().c_str());
        return 2;
    }
    try {
        Gpu(0).describe();
    } catch (const RunFailure& f) {
        std::fprintf(stderr, "loopscope-runner: no GPU to time %s on: %s\n",
                     folder.string().c_str(), f.message.c_str());
        return 1;
    }
    std::FILE* times = std::fopen(timesPath.string().c_str(), "w");
    if (!times) {
        std::fprintf(stderr, "loopscope-runner: cannot write %s: %s\n", timesPath.string().c_str(),
                     std::strerror(errno));
        return 1;
    }
    std::printf("timing %s\n", folder.string().c_str());
    const int status = runBundles(bundlesIn(folder), times);
    std::fclose(times);
    std::printf("times: %s\n", timesPath.string().c_str());
    // A wrong or failed candidate is an outcome of the round, not of the timing.
    return status == 1 || status == 3 ? 0 : status;
}

} // namespace

} // namespace loopscope::runner

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--bundle") == 0) {
            std::vector<std::string> files(argv + i + 1, argv + argc);
            if (files.empty()) {
                std::fprintf(stderr, "loopscope-runner: --bundle needs one or more FILEs\n");
                return 2;
            }
            return loopscope::runner::runBundles(files);
        }
        if (std::strcmp(argv[i], "--measure") == 0) {
            if (i + 2 != argc) {
                std::fprintf(stderr, "loopscope-runner: --measure needs one DIR\n");
                return 2;
            }
            return loopscope::runner::measureRound(argv[i + 1]);
        }
        if (std::strcmp(argv[i], "--version") == 0) {
            std::printf("loopscope-runner %s\n", LOOPSCOPE_VERSION_STRING);
            return 0;
        }
        const char* usage =
            "usage: loopscope-runner [--version | --help | --bundle FILE... | --measure DIR]\n"
            "Runs Loopscope's GPU kernels on this machine's NVIDIA GPU: requests on standard "
            "input, replies on standard output, one JSON object a line (ping, gpu_run).\n"
            "--bundle FILE...: runs kernel bundles (loopscope-cli export --format bundle), each "
            "checked against the reference values it carries and timed, with cuBLAS in turns "
            "for a matmul; prints a table (exit 3 when one computes wrong numbers, 1 when one "
            "cannot run).\n"
            "--measure DIR: times a tuning round (loopscope-cli tune --rounds-out DIR): the "
            "bundles of DIR's last round not timed yet, each checked and timed, their times "
            "written to times.jsonl beside them for tune --rounds-in.\n";
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
