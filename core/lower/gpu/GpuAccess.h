// How a GPU kernel's threads touch memory, read from the lowered program without a GPU: for each
// access to global memory, the bytes one warp's 32 threads use against the bytes the GPU fetches
// for them (whole 32-byte sectors: coalescing); for each access to shared memory, how many ways
// its 32 banks conflict; and for each kernel, its occupancy of a streaming multiprocessor of an
// architecture, from its threads per block, shared memory and registers.
#pragma once

#include "ir/Stmt.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loopscope {

struct GpuAccess {
    const StmtNode* stmt = nullptr; // the statement making it (where it is printed)
    std::string buffer;             // as the program names it
    std::string scope;              // "global" or "shared"
    bool store = false;
    int elementBytes = 4;
    int lanes = 1; // elements each thread accesses at once (a vector access)
    // The index's change from one thread to the next along threadIdx.x, in elements; unknown
    // where it is not the same for every thread (or depends on loaded data).
    std::optional<std::int64_t> strideX;
    // The first warp of a block, every other variable at 0. Global: the distinct bytes its
    // threads use and the 32-byte sectors fetched for them. Shared: the most threads whose
    // distinct words fall in one of the 32 banks (1: no conflict).
    std::int64_t bytesUsed = 0, bytesFetched = 0;
    int bankWays = 0;
    bool known = false; // the index could be evaluated for every thread of the warp
};

struct GpuKernelShape {
    const StmtNode* launch = nullptr; // its outermost launch
    std::int64_t threadsPerBlock = 1;
    std::int64_t sharedBytes = 0;
    std::vector<GpuAccess> accesses; // in program order
};

// `s` as tvm.lower leaves it (before lowerForDevice): each kernel (outermost launch) in order.
std::vector<GpuKernelShape> analyzeGpuKernels(const Stmt& s);

// One line: "global load A: 128 of 128 bytes fetched used (coalesced)", "shared load
// A_shared: 4-way bank conflict".
std::string describeGpuAccess(const GpuAccess& a);

// What limits how many blocks of a kernel one streaming multiprocessor of `sm` (50 to 90) holds.
struct GpuOccupancy {
    int blocksPerSm = 0;
    int warpsPerSm = 0, maxWarpsPerSm = 0;
    double occupancy = 0;  // warpsPerSm / maxWarpsPerSm
    std::string limitedBy; // "threads", "blocks", "shared memory" or "registers"
};
GpuOccupancy gpuOccupancy(int sm, std::int64_t threadsPerBlock, std::int64_t sharedBytes,
                          int registersPerThread);

// Whether an access wastes bandwidth: a global one that uses less of what its warp fetches than a
// coalesced one would, or a shared one with a bank conflict.
bool gpuAccessWastes(const GpuAccess& a);

} // namespace loopscope
