// GPU code through LLVM's NVPTX back end: a lowered GPU program (after insertThreadSyncs) split
// into its kernels, as tvm.build's SplitHostDevice does (each launch nest becomes a kernel
// NAME_kernel, NAME_kernel_1, ..., taking the buffers it uses and the sizes it needs), and each
// kernel compiled to PTX for an NVIDIA architecture. No CUDA toolkit is involved.
#pragma once

#include "ir/GpuTarget.h"
#include "ir/PrimFunc.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace loopscope {

struct GpuKernel {
    std::string name;
    std::vector<int> buffers;        // the function's parameters it takes, by index, in order
    std::vector<Var> sizes;          // then these sizes
    std::array<Expr, 3> grid, block; // blocks and threads per block along x, y, z
    std::int64_t sharedBytes = 0;    // static shared memory per block
};

struct PtxModule {
    std::string ptx;
    std::string arch;               // "sm_80"
    std::vector<GpuKernel> kernels; // in the order the host launches them
};

// Throws CodegenError when a statement would run outside every kernel (TVM: "Did you forget to
// bind?") or a kernel uses what the GPU code generator does not support.
PtxModule generatePtx(const PrimFunc& f, const GpuTarget& target);

} // namespace loopscope
