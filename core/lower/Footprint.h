// Cache footprints, analytic: for every loop of a lowered variant, the bytes each tensor touches
// during one iteration of the loop and during the whole loop, from the loop program before
// flattening (its accesses at N-d indices). A tensor's touched region is the box that holds every
// access to it in that scope, each index ranging over the loops inside (exact for the affine
// indices of tiled schedules; a bound otherwise), so a 32x32 tile of a 1024-wide matrix is 4 KB,
// not the span of its rows. Compared with the host's cache sizes, the loop at which the working
// set outgrows a level is where tiling or packing would pay.
#pragma once

#include "ir/Host.h" // CacheLevel, hostCaches, cacheSummary, byteSize
#include "ir/Printer.h"
#include "lower/Lower.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope {

struct TensorFootprint {
    std::string tensor;
    double perIteration = 0; // bytes during one iteration of the loop
    double wholeLoop = 0;    // bytes during the whole loop
};

struct LoopFootprint {
    std::string var; // the loop variable as printed
    int depth = 0;   // 0 for a loop at the top of the program
    std::int64_t extent = 0;
    int line = 0;           // its line in the printed TIR (printTVMScript); 0 when vectorizing or
                            // unrolling removed it there
    int structuredLine = 0; // its line in the structured printing (printStructured)
    double perIteration = 0, wholeLoop = 0; // every tensor's, summed
    std::vector<TensorFootprint> tensors;
    bool exact = true; // every index was affine in the loops (else the boxes are bounds)
};

// Every loop of the variant's loop program, in program order. `tvm` and `structured` are the
// function's printings with their lines (printTVMScriptWithLines, printStructuredWithLines), for
// a caller that has them already; the first form prints them.
std::vector<LoopFootprint> loopFootprints(const LoweredFunc& lowered);
std::vector<LoopFootprint> loopFootprints(const LoweredFunc& lowered, const PrintedFunction& tvm,
                                          const PrintedFunction& structured);

// For each loop, the cache levels its working set outgrows there: the whole loop's bytes exceed
// the level while one iteration's fit (the loop where reuse across its iterations is lost).
std::vector<std::vector<CacheLevel>> outgrownLevels(const std::vector<LoopFootprint>& loops,
                                                    const std::vector<CacheLevel>& caches);

} // namespace loopscope
