// tvm.build's SplitHostDevice: a lowered GPU program (after lowerForDevice) as its kernels, each
// launch nest one kernel NAME_kernel, NAME_kernel_1, ..., taking the buffers it uses (sorted by
// name, as TVM sorts them) and then the sizes it needs, with its launch shape. What PTX and CUDA
// source are made from.
#pragma once

#include "ir/PrimFunc.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace loopscope {

struct GpuKernel {
    std::string name;
    // The buffers it takes, in order: the function's parameters by index, and past them the
    // program's workspaces (DeviceProgram::workspaces).
    std::vector<int> buffers;
    std::vector<Var> sizes;          // then these sizes
    std::array<Expr, 3> grid, block; // blocks and threads per block along x, y, z
    std::int64_t sharedBytes = 0;    // static shared memory per block
    // Registers per thread the PTX declares (generatePtx; ptxas on the GPU allocates the real
    // ones, usually fewer): 32-bit ones, 64-bit ones counting two.
    int ptxRegisters = 0;
};

struct DeviceKernel {
    GpuKernel info;
    Stmt body;                   // from its first launch
    std::vector<Buffer> buffers; // the parameters info.buffers names
};

struct DeviceProgram {
    std::vector<DeviceKernel> kernels; // in the order the host launches them
    // Global buffers the host allocates for what one kernel leaves to the next (a stage computed
    // in a kernel of its own), as TVM's host code allocates device workspaces.
    std::vector<Buffer> workspaces;
};

// Throws CodegenError when a statement would run outside every kernel (TVM: "Did you forget to
// bind?").
DeviceProgram splitHostDevice(const PrimFunc& f);

} // namespace loopscope
