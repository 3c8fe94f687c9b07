// What a loop's body reads that does not change from one iteration to the next, for deciding
// whether LLVM may unroll the loop (see Codegen::genLoop).
#pragma once

#include "tir/Stmt.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace loopscope {

struct InvariantLoads {
    std::int64_t bytes = 0;      // see invariantLoads
    std::vector<Buffer> written;  // the buffers the body stores to, one handle per storage
};

// Bytes of the values the body of `loop` loads at indices that do not depend on the loop's counter,
// from buffers the body does not write: what LLVM hoists out of the loop and then holds in
// registers across it. Each load counts once, times the iterations of the inner loops its index
// varies with. None when the body has inner loops of more than `maxInnerIterations` iterations in
// all, or of an extent that is not a constant: the body is then not one block of straight-line
// code for LLVM, and the count says nothing about one iteration.
std::optional<InvariantLoads> invariantLoads(const ForNode* loop, std::int64_t maxInnerIterations);

}  // namespace loopscope
