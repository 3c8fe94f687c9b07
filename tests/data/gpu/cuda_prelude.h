// What nvcc's headers give a kernel file, for compiling exported CUDA C with clang in CUDA mode
// where the CUDA toolkit is not installed (clang -x cuda -nocudainc -nocudalib): the function
// qualifiers, the thread indices and the device functions TVM's kernels call, each with CUDA's
// meaning in NVVM builtins (__syncthreads is one of clang's own).
#pragma once

#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#include <__clang_cuda_builtin_vars.h>

__device__ inline unsigned __activemask()
{
    unsigned mask;
    asm volatile("activemask.b32 %0;" : "=r"(mask));
    return mask;
}
__device__ inline float __shfl_down_sync(unsigned mask, float v, unsigned delta, int width)
{
    return __nvvm_shfl_sync_down_f32(mask, v, delta, ((32 - width) << 8) | 0x1f);
}
__device__ inline int __shfl_down_sync(unsigned mask, int v, unsigned delta, int width)
{
    return __nvvm_shfl_sync_down_i32(mask, v, delta, ((32 - width) << 8) | 0x1f);
}
__device__ inline float __shfl_sync(unsigned mask, float v, int lane, int width)
{
    return __nvvm_shfl_sync_idx_f32(mask, v, lane, ((32 - width) << 8) | 0x1f);
}
__device__ inline int __shfl_sync(unsigned mask, int v, int lane, int width)
{
    return __nvvm_shfl_sync_idx_i32(mask, v, lane, ((32 - width) << 8) | 0x1f);
}
__device__ inline float max(float a, float b)
{
    return __builtin_fmaxf(a, b);
}
__device__ inline float min(float a, float b)
{
    return __builtin_fminf(a, b);
}
__device__ inline int max(int a, int b)
{
    return a > b ? a : b;
}
__device__ inline int min(int a, int b)
{
    return a < b ? a : b;
}
__device__ inline float sqrtf(float x)
{
    return __builtin_sqrtf(x);
}
__device__ inline float fabsf(float x)
{
    return __builtin_fabsf(x);
}
__device__ inline float floorf(float x)
{
    return __builtin_floorf(x);
}
__device__ inline float ceilf(float x)
{
    return __builtin_ceilf(x);
}
__device__ inline float __expf(float x)
{
    return __nvvm_ex2_approx_f(x * 1.4426950408889634f);
}
struct __attribute__((aligned(8))) float2 {
    float x, y;
};
struct __attribute__((aligned(16))) float4 {
    float x, y, z, w;
};
struct __attribute__((aligned(8))) int2 {
    int x, y;
};
struct __attribute__((aligned(16))) int4 {
    int x, y, z, w;
};
