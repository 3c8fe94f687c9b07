#include "CudaDriver.h"

#include <dlfcn.h>

#include <initializer_list>

namespace loopscope::runner {

namespace {

template <typename F> bool bind(void* library, const char* name, F& out, std::string* missing)
{
    out = reinterpret_cast<F>(dlsym(library, name));
    if (!out && missing->empty()) *missing = name;
    return out != nullptr;
}

// The first of `names` that loads; null with "no WHAT here (the loader's reason)" in *failure.
void* openFirst(std::initializer_list<const char*> names, const char* what, std::string* failure)
{
    for (const char* name : names)
        if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
    const char* e = dlerror();
    *failure = std::string("no ") + what + " here (" + (e ? e : "it cannot be loaded") + ")";
    return nullptr;
}

} // namespace

const CudaDriver* CudaDriver::load(std::string* why)
{
    static CudaDriver driver;
    static std::string failure;
    static bool tried = false;
    if (tried) {
        if (!failure.empty()) *why = failure;
        return failure.empty() ? &driver : nullptr;
    }
    tried = true;
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* e = dlerror();
        failure = std::string("no NVIDIA driver here (") +
                  (e ? e : "libcuda.so.1 cannot be loaded") + ")";
        *why = failure;
        return nullptr;
    }
    std::string missing;
    CudaDriver& d = driver;
    bind(lib, "cuInit", d.init, &missing);
    bind(lib, "cuDriverGetVersion", d.driverGetVersion, &missing);
    bind(lib, "cuDeviceGetCount", d.deviceGetCount, &missing);
    bind(lib, "cuDeviceGet", d.deviceGet, &missing);
    bind(lib, "cuDeviceGetName", d.deviceGetName, &missing);
    bind(lib, "cuDeviceGetAttribute", d.deviceGetAttribute, &missing);
    bind(lib, "cuDevicePrimaryCtxRetain", d.primaryCtxRetain, &missing);
    bind(lib, "cuDevicePrimaryCtxRelease_v2", d.primaryCtxRelease, &missing);
    bind(lib, "cuCtxSetCurrent", d.ctxSetCurrent, &missing);
    bind(lib, "cuCtxSynchronize", d.ctxSynchronize, &missing);
    bind(lib, "cuModuleLoadDataEx", d.moduleLoadDataEx, &missing);
    bind(lib, "cuModuleGetFunction", d.moduleGetFunction, &missing);
    bind(lib, "cuModuleUnload", d.moduleUnload, &missing);
    bind(lib, "cuFuncGetAttribute", d.funcGetAttribute, &missing);
    bind(lib, "cuFuncSetAttribute", d.funcSetAttribute, &missing);
    bind(lib, "cuMemAlloc_v2", d.memAlloc, &missing);
    bind(lib, "cuMemFree_v2", d.memFree, &missing);
    bind(lib, "cuMemcpyHtoD_v2", d.memcpyHtoD, &missing);
    bind(lib, "cuMemcpyDtoH_v2", d.memcpyDtoH, &missing);
    bind(lib, "cuMemsetD8_v2", d.memsetD8, &missing);
    bind(lib, "cuLaunchKernel", d.launchKernel, &missing);
    bind(lib, "cuEventCreate", d.eventCreate, &missing);
    bind(lib, "cuEventRecord", d.eventRecord, &missing);
    bind(lib, "cuEventSynchronize", d.eventSynchronize, &missing);
    std::string ignored;
    if (!bind(lib, "cuEventElapsedTime_v2", d.eventElapsedTime, &ignored))
        bind(lib, "cuEventElapsedTime", d.eventElapsedTime, &missing);
    bind(lib, "cuEventDestroy_v2", d.eventDestroy, &missing);
    bind(lib, "cuGetErrorName", d.getErrorName, &missing);
    bind(lib, "cuGetErrorString", d.getErrorString, &missing);
    bind(lib, "cuMemcpyDtoDAsync_v2", d.memcpyDtoDAsync, &ignored);
    bind(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
         d.occupancyMaxActiveBlocksPerMultiprocessor, &ignored);
    if (!missing.empty()) {
        failure = "the NVIDIA driver's libcuda.so.1 lacks " + missing + " (a driver too old?)";
        *why = failure;
        return nullptr;
    }
    return &driver;
}

std::string CudaDriver::describe(CUresult r) const
{
    const char* name = nullptr;
    const char* text = nullptr;
    if (getErrorName) getErrorName(r, &name);
    if (getErrorString) getErrorString(r, &text);
    std::string out = name ? name : "CUDA error " + std::to_string(r);
    if (text) out += std::string(" (") + text + ")";
    return out;
}

const Cublas* Cublas::load(std::string* why)
{
    static Cublas cublas;
    static bool tried = false;
    static std::string failure;
    if (tried) {
        *why = failure;
        return failure.empty() ? &cublas : nullptr;
    }
    tried = true;
    void* lib = openFirst({"libcublas.so.13", "libcublas.so.12", "libcublas.so.11",
                           "libcublas.so.10", "libcublas.so"},
                          "cuBLAS", &failure);
    if (!lib) {
        *why = failure;
        return nullptr;
    }
    std::string missing;
    bind(lib, "cublasCreate_v2", cublas.create, &missing);
    bind(lib, "cublasDestroy_v2", cublas.destroy, &missing);
    bind(lib, "cublasGetVersion_v2", cublas.getVersion, &missing);
    bind(lib, "cublasSgemm_v2", cublas.sgemm, &missing);
    if (!missing.empty()) {
        failure = "libcublas lacks " + missing;
        *why = failure;
        return nullptr;
    }
    return &cublas;
}

const Cudnn* Cudnn::load(std::string* why)
{
    static Cudnn cudnn;
    static bool tried = false;
    static std::string failure;
    if (tried) {
        *why = failure;
        return failure.empty() ? &cudnn : nullptr;
    }
    tried = true;
    void* lib = openFirst({"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"}, "cuDNN", &failure);
    if (!lib) {
        *why = failure;
        return nullptr;
    }
    std::string missing;
    Cudnn& c = cudnn;
    bind(lib, "cudnnCreate", c.create, &missing);
    bind(lib, "cudnnDestroy", c.destroy, &missing);
    bind(lib, "cudnnGetVersion", c.getVersion, &missing);
    bind(lib, "cudnnGetErrorString", c.getErrorString, &missing);
    bind(lib, "cudnnCreateTensorDescriptor", c.createTensor, &missing);
    bind(lib, "cudnnDestroyTensorDescriptor", c.destroyTensor, &missing);
    bind(lib, "cudnnSetTensor4dDescriptor", c.setTensor4d, &missing);
    bind(lib, "cudnnCreateFilterDescriptor", c.createFilter, &missing);
    bind(lib, "cudnnDestroyFilterDescriptor", c.destroyFilter, &missing);
    bind(lib, "cudnnSetFilter4dDescriptor", c.setFilter4d, &missing);
    bind(lib, "cudnnCreateConvolutionDescriptor", c.createConvolution, &missing);
    bind(lib, "cudnnDestroyConvolutionDescriptor", c.destroyConvolution, &missing);
    bind(lib, "cudnnSetConvolution2dDescriptor", c.setConvolution2d, &missing);
    bind(lib, "cudnnGetConvolution2dForwardOutputDim", c.outputDim, &missing);
    bind(lib, "cudnnGetConvolutionForwardWorkspaceSize", c.workspaceSize, &missing);
    bind(lib, "cudnnConvolutionForward", c.forward, &missing);
    std::string ignored;
    bind(lib, "cudnnSetConvolutionMathType", c.setMathType, &ignored);
    if (!missing.empty()) {
        failure = "libcudnn lacks " + missing;
        *why = failure;
        return nullptr;
    }
    return &cudnn;
}

std::string Cudnn::label() const
{
    const std::size_t v = getVersion ? getVersion() : 0;
    const bool nine = v >= 90000;
    const std::size_t major = nine ? v / 10000 : v / 1000;
    const std::size_t minor = nine ? v / 100 % 100 : v / 100 % 10;
    return "cuDNN " + std::to_string(major) + "." + std::to_string(minor) + "." +
           std::to_string(v % 100);
}

} // namespace loopscope::runner
