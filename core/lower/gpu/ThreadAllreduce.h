// TVM's LowerThreadAllreduce, which tvm.build runs after tvm.lower: each tvm_thread_allreduce
// (a reduction bound to threadIdx) becomes code every thread of the group runs, leaving the
// result in every thread's destination.
//
// - Over 32 threads or a divisor of 32 (or at most 32 threads in one group): warp shuffles,
//   halving the distance from the largest power of two below the extent, then the first lane's
//   value broadcast.
// - Over a multiple of 32 threads: shuffles within each warp, the warps' results through shared
//   memory (`red_buf_staging`), shuffles over those, and the total through shared memory
//   (`red_result`).
// - Otherwise (and for values other than 4 bytes wide): a tree in shared memory (`red_buf`),
//   halving with a barrier between steps. TVM ends the tree within one warp without barriers,
//   relying on volatile memory and lanes in lock step, which GPUs since Volta no longer promise;
//   here every step is separated by a barrier.
//
// Barriers are not put in here: insertThreadSyncs, run afterwards, places them where the shared
// accesses need them, as for any other shared memory.
#pragma once

#include "ir/Stmt.h"

#include <vector>

namespace loopscope {

Stmt lowerThreadAllreduce(const Stmt& s);

// What both cross-thread lowerings (TE's MakeCrossThreadReduction, TensorIR's
// LowerCrossThreadReduction) make of a reduction shared among threads, for
// lowerThreadAllreduce to lower:
// - each thread's share into `partial` (local, one element): its identity, then its update by
//   `source` (the update goes under the thread's own loops);
// - the threads' combination: tvm_thread_allreduce(1, value, cond, result[0], threads...) under a
//   "reduce_scope" attribute naming the reducer;
// - the guard of the store of `result`: the first of the threads (each of them 0).
struct InThreadReduction {
    Stmt init, update;
};
InThreadReduction inThreadReduction(ReduceOp op, DataType t, const Buffer& partial,
                                    const Expr& source);
Stmt threadAllreduce(ReduceOp op, DataType t, const Expr& value, const Expr& cond,
                     const Buffer& result, const std::vector<Expr>& threads);
Expr firstThread(const std::vector<Expr>& threads);

// For running kernels on a CPU (lower/gpu/EmulateThreads): each warp shuffle becomes an exchange
// through shared memory (every lane writes its value, then reads its partner's), so that the
// barriers insertThreadSyncs puts between the two make the threads-as-loops form exact.
Stmt exchangeShufflesInSharedMemory(const Stmt& s);

// The whole device lowering tvm.build adds to a lowered GPU program: cross-thread reductions,
// then barriers. `forCpu` also turns shuffles into shared-memory exchanges, for
// emulateThreadsOnCpu.
Stmt lowerForDevice(const Stmt& s, bool forCpu);

} // namespace loopscope
