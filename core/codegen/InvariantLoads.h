// What a loop's body reads that does not change from one iteration to the next, for deciding
// whether LLVM may unroll the loop (see Codegen::holdsTooManyInvariants).
#pragma once

#include "ir/Stmt.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace loopscope {

struct InvariantLoads {
    std::int64_t bytes = 0;      // see invariantLoads
    std::vector<Buffer> written; // the buffers the body stores to, one handle per storage
    bool allocates = false;      // the body allocates a buffer of its own
};

// Bytes of the values the body of `loop` loads at indices that do not change with the loop's
// counter (through lets, inner loops' bounds and other loads too), from buffers the body does not
// write: what LLVM hoists out of the loop and then holds in registers across it. Each load counts
// once, times the iterations of the inner loops its index varies with. None when the body is not
// one block of straight-line code for LLVM: an inner loop that is not serial, has no constant
// extent, or makes a nest of more than `maxInnerIterations` iterations.
std::optional<InvariantLoads> invariantLoads(const ForNode* loop, std::int64_t maxInnerIterations);

} // namespace loopscope
