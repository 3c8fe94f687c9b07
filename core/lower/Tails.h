// Tails: where a split does not divide its loop, TVM's lowering guards the body with
// `if T.likely(i_outer * 8 + i_inner < 97)`, and the last tile of the outer loop runs partly. This
// counts, on the final loop program the code is generated from, how many iterations of each guarded
// loop run in such a partial tile and how many of them the guard turns away, and sums them over the
// variant's stores. The counts are exact: each guard is evaluated at every value of the loops it
// reads (guards reading a common loop are counted together).
#pragma once

#include "ir/Printer.h"
#include "lower/Lower.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope {

struct GuardedTail {
    std::string loop;       // the innermost loop the guard reads, as printed ("i_inner")
    std::vector<int> lines; // the guards' lines in the printed TIR (printTVMScript), ascending
    int loopLine = 0;       // the loop's line (0 where unrolling removed it)
    std::vector<std::string> loops; // every loop the guard reads, outermost first
    std::int64_t iterations = 0;    // of those loops together
    std::int64_t inTail = 0;        // iterations in a tile (a value of the outer loops) the guard
                                    // does not pass whole
    std::int64_t guardedOff = 0;    // iterations the guard turns away
    double tailShare() const { return iterations ? double(inTail) / double(iterations) : 0; }
    double offShare() const { return iterations ? double(guardedOff) / double(iterations) : 0; }
};

struct TailReport {
    std::vector<GuardedTail> tails; // in program order
    // Over every store of the program, weighted by how often its loops run: the share of
    // iterations in a partial tile of some guard, and the share some guard turns away.
    double tailShare = 0, offShare = 0;
    std::int64_t storeIterations = 0; // the stores' loop iterations, summed
    int uncounted = 0; // guards left out: a condition too large to enumerate or not integer
};

// Guards whose loops run more than `maxEnumerated` times together are left uncounted. `tvm`: the
// final function's printing with its lines (printTVMScriptWithLines), for a caller that has it
// already; the first form prints it.
constexpr std::int64_t kMaxTailPoints = std::int64_t(1) << 24;
TailReport guardedTails(const LoweredFunc& lowered, std::int64_t maxEnumerated = kMaxTailPoints);
TailReport guardedTails(const LoweredFunc& lowered, const PrintedFunction& tvm,
                        std::int64_t maxEnumerated = kMaxTailPoints);

// "i_inner: 8 of 104 iterations (7.7 %) run in a partial tile, 7 (6.7 %) guarded off"
std::string describeTail(const GuardedTail& t);

} // namespace loopscope
