// GPU code through LLVM's NVPTX back end: a lowered GPU program (after lowerForDevice) split
// into its kernels (codegen/SplitHostDevice.h), each compiled to PTX for an NVIDIA
// architecture. No CUDA toolkit is involved.
#pragma once

#include "codegen/SplitHostDevice.h"
#include "ir/GpuTarget.h"
#include "ir/PrimFunc.h"

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loopscope {

struct PtxModule {
    std::string ptx;
    std::string arch;               // "sm_80"
    std::vector<GpuKernel> kernels; // in the order the host launches them
    // Buffers past the function's parameters that kernels take (GpuKernel::buffers): name, bytes.
    std::vector<std::pair<std::string, std::int64_t>> workspaces;
};

// Throws CodegenError when a statement would run outside every kernel (TVM: "Did you forget to
// bind?") or a kernel uses what the GPU code generator does not support.
PtxModule generatePtx(const PrimFunc& f, const GpuTarget& target);

} // namespace loopscope
