// The part of the CUDA driver API the GPU runner uses, declared here (no CUDA header or toolkit
// is needed to build) and loaded from libcuda.so.1 when a request needs it. The versioned entry
// points are the ones cuda.h has mapped its names to since CUDA 4 (_v2); cuEventElapsedTime_v2
// (CUDA 12.8) falls back to the plain name drivers have always exported.
#pragma once

#include <cstddef>
#include <string>

namespace loopscope::runner {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUevent = struct CUevent_st*;
using CUstream = struct CUstream_st*;

// CUdevice_attribute and CUfunction_attribute values used here.
enum : int {
    kDeviceMaxThreadsPerBlock = 1,
    kDeviceMaxSharedPerBlock = 8,
    kDeviceClockKhz = 13,
    kDeviceMemoryClockKhz = 36,
    kDeviceMultiprocessors = 16,
    kDeviceComputeMajor = 75,
    kDeviceComputeMinor = 76,
    kDeviceMaxSharedPerBlockOptin = 97,
    kFuncMaxThreadsPerBlock = 0,
    kFuncSharedBytes = 1,
    kFuncLocalBytes = 3,
    kFuncRegisters = 4,
    kFuncMaxDynamicShared = 8,
};
// CUjit_option values for the compile logs.
enum : int {
    kJitInfoLog = 3,
    kJitInfoLogSize = 4,
    kJitErrorLog = 5,
    kJitErrorLogSize = 6,
};

struct CudaDriver {
    CUresult (*init)(unsigned) = nullptr;
    CUresult (*driverGetVersion)(int*) = nullptr;
    CUresult (*deviceGetCount)(int*) = nullptr;
    CUresult (*deviceGet)(CUdevice*, int) = nullptr;
    CUresult (*deviceGetName)(char*, int, CUdevice) = nullptr;
    CUresult (*deviceGetAttribute)(int*, int, CUdevice) = nullptr;
    CUresult (*primaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
    CUresult (*primaryCtxRelease)(CUdevice) = nullptr;
    CUresult (*ctxSetCurrent)(CUcontext) = nullptr;
    CUresult (*ctxSynchronize)() = nullptr;
    CUresult (*moduleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**) = nullptr;
    CUresult (*moduleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
    CUresult (*moduleUnload)(CUmodule) = nullptr;
    CUresult (*funcGetAttribute)(int*, int, CUfunction) = nullptr;
    CUresult (*funcSetAttribute)(CUfunction, int, int) = nullptr;
    CUresult (*memAlloc)(CUdeviceptr*, std::size_t) = nullptr;
    CUresult (*memFree)(CUdeviceptr) = nullptr;
    CUresult (*memcpyHtoD)(CUdeviceptr, const void*, std::size_t) = nullptr;
    CUresult (*memcpyDtoH)(void*, CUdeviceptr, std::size_t) = nullptr;
    CUresult (*memsetD8)(CUdeviceptr, unsigned char, std::size_t) = nullptr;
    CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**) = nullptr;
    CUresult (*eventCreate)(CUevent*, unsigned) = nullptr;
    CUresult (*eventRecord)(CUevent, CUstream) = nullptr;
    CUresult (*eventSynchronize)(CUevent) = nullptr;
    CUresult (*eventElapsedTime)(float*, CUevent, CUevent) = nullptr;
    CUresult (*eventDestroy)(CUevent) = nullptr;
    CUresult (*getErrorName)(CUresult, const char**) = nullptr;
    CUresult (*getErrorString)(CUresult, const char**) = nullptr;
    // Optional (null where the driver lacks it): blocks of a shape one multiprocessor holds.
    CUresult (*occupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int,
                                                          std::size_t) = nullptr;

    // The driver, loaded once; null with the reason in *why where there is none.
    static const CudaDriver* load(std::string* why);
    // "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
    std::string describe(CUresult r) const;
};

// cuBLAS's single-precision matmul, the reference line of matmul-shaped programs, loaded from
// libcublas (CUDA 13, 12, 11 or 10) when a request asks for it. It runs in the driver's primary
// context, which the runner makes current, on the default stream.
using cublasHandle_t = struct cublasContext*;
struct Cublas {
    int (*create)(cublasHandle_t*) = nullptr;
    int (*destroy)(cublasHandle_t) = nullptr;
    int (*getVersion)(cublasHandle_t, int*) = nullptr;
    // cublasSgemm_v2: column-major C = alpha op(A) op(B) + beta C; op 0: as is, 1: transposed.
    int (*sgemm)(cublasHandle_t, int, int, int, int, int, const float*, const float*, int,
                 const float*, int, const float*, float*, int) = nullptr;

    // Loaded once; null with the reason in *why where there is none.
    static const Cublas* load(std::string* why);
};

} // namespace loopscope::runner
