#include "CudaDriver.h"

#include <dlfcn.h>

namespace loopscope::runner {

namespace {

template <typename F> bool bind(void* library, const char* name, F& out, std::string* missing)
{
    out = reinterpret_cast<F>(dlsym(library, name));
    if (!out && missing->empty()) *missing = name;
    return out != nullptr;
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
    void* lib = nullptr;
    for (const char* name : {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11",
                             "libcublas.so.10", "libcublas.so"})
        if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) {
        const char* e = dlerror();
        failure = std::string("no cuBLAS here (") + (e ? e : "libcublas cannot be loaded") + ")";
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

} // namespace loopscope::runner
