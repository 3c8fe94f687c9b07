// The CUDA C source of a GPU program's kernels, as TVM's `imported_modules[0].get_source()` shows
// it after `tvm.build(..., target="cuda")`: TVM's preamble, a forward declaration per kernel,
// then each kernel `extern "C" __global__ void __launch_bounds__(N) NAME_kernel(float*
// __restrict__ A, ...)` with every operation parenthesised, thread indices as
// `((int)threadIdx.x)`, `__shared__` arrays, `__syncthreads()` and the `__shfl_*_sync` forms.
// What users read and paste into their own CUDA code; nvcc compiles it.
#pragma once

#include "ir/PrimFunc.h"

#include <string>

namespace loopscope {

// `f` as tvm.lower leaves it. Throws CodegenError as generatePtx does (nothing outside a kernel).
std::string exportCudaSource(const PrimFunc& f);

} // namespace loopscope
