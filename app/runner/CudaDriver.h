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
    // Optional (null where the driver lacks it): a device-to-device copy on a stream (the copy
    // bandwidth's reference line).
    CUresult (*memcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, std::size_t, CUstream) = nullptr;
    // Optional: blocks of a shape one multiprocessor holds.
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

// cuDNN's forward convolution, the reference line of convolutions, loaded from libcudnn (9 or 8)
// when a request asks for it: the legacy API of descriptors (NCHW float32 tensors, KCRS filters,
// a cross-correlation with FMA math: no tensor cores, as the kernels have none), on the default
// stream of the primary context. Every call returns a cudnnStatus_t (0: success).
using cudnnHandle_t = struct cudnnContext*;
using cudnnTensorDescriptor_t = struct cudnnTensorStruct*;
using cudnnFilterDescriptor_t = struct cudnnFilterStruct*;
using cudnnConvolutionDescriptor_t = struct cudnnConvolutionStruct*;
enum : int {
    kCudnnNchw = 0,             // cudnnTensorFormat_t
    kCudnnFloat = 0,            // cudnnDataType_t
    kCudnnCrossCorrelation = 1, // cudnnConvolutionMode_t
    kCudnnFmaMath = 3,          // cudnnMathType_t
};
struct Cudnn {
    int (*create)(cudnnHandle_t*) = nullptr;
    int (*destroy)(cudnnHandle_t) = nullptr;
    std::size_t (*getVersion)() = nullptr;
    const char* (*getErrorString)(int) = nullptr;
    int (*createTensor)(cudnnTensorDescriptor_t*) = nullptr;
    int (*destroyTensor)(cudnnTensorDescriptor_t) = nullptr;
    int (*setTensor4d)(cudnnTensorDescriptor_t, int format, int dtype, int n, int c, int h,
                       int w) = nullptr;
    int (*createFilter)(cudnnFilterDescriptor_t*) = nullptr;
    int (*destroyFilter)(cudnnFilterDescriptor_t) = nullptr;
    int (*setFilter4d)(cudnnFilterDescriptor_t, int dtype, int format, int k, int c, int r,
                       int s) = nullptr;
    int (*createConvolution)(cudnnConvolutionDescriptor_t*) = nullptr;
    int (*destroyConvolution)(cudnnConvolutionDescriptor_t) = nullptr;
    int (*setConvolution2d)(cudnnConvolutionDescriptor_t, int padH, int padW, int strideH,
                            int strideW, int dilationH, int dilationW, int mode,
                            int computeType) = nullptr;
    int (*outputDim)(cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
                     int*, int*, int*, int*) = nullptr;
    int (*workspaceSize)(cudnnHandle_t, cudnnTensorDescriptor_t, cudnnFilterDescriptor_t,
                         cudnnConvolutionDescriptor_t, cudnnTensorDescriptor_t, int algorithm,
                         std::size_t*) = nullptr;
    int (*forward)(cudnnHandle_t, const void* alpha, cudnnTensorDescriptor_t, const void* x,
                   cudnnFilterDescriptor_t, const void* w, cudnnConvolutionDescriptor_t,
                   int algorithm, void* workspace, std::size_t workspaceBytes, const void* beta,
                   cudnnTensorDescriptor_t, void* y) = nullptr;
    // Optional (cuDNN 7.0 and later have it).
    int (*setMathType)(cudnnConvolutionDescriptor_t, int) = nullptr;

    // Loaded once; null with the reason in *why where there is none.
    static const Cudnn* load(std::string* why);
    // "cuDNN 9.1.0", from getVersion's number (9: M*10000+m*100+p; 8 and before: M*1000+m*100+p).
    std::string label() const;
};

} // namespace loopscope::runner
