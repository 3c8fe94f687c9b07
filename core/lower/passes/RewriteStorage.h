// Placement, reuse and element types of allocations, as TVM's StorageRewrite pass does them on a
// CPU: allocations move to the start of their attach scope, dead storage is reused, and buffers
// read and written only as aligned vectors get a vector element type.
#pragma once

#include "ir/Stmt.h"

namespace loopscope {

// 1. Every Allocate is removed and re-emitted at the start of its attach scope: the body of the
//    outermost Parallel For that encloses it, else the top of the statement (pragma attributes
//    are not attach scopes on CPU, as in TVM 0.17). Allocations of one scope come in the order
//    of their first use, the first one outermost; allocations never used disappear.
// 2. Storage is reused as TVM plans it: an allocation first used where another one of the same
//    scope and attach scope is dead takes over its storage when their constant sizes are within
//    16x (or, in place, when it is computed element by element from the dying one); the merged
//    allocation keeps the first buffer's name and the largest size, and the later buffer's
//    accesses go through a buffer of that name. Dead "local"/"warp" storage, handles and
//    allocations of at most 32 bits are not reused (in-place sharing still applies, as in TVM);
//    scopes with a special tag ("global.xyz") are never shared (TVM would pack them into one
//    block).
// 3. An allocation whose every load and store uses an index Ramp(base, 1, L) with base provably a
//    multiple of L, and whose extent is a multiple of L, becomes a buffer of element type
//    `<dtype>xL` with extent/L, accessed at scalar indices base/L.
//
// Precondition: after storage flattening and vectorization (flat buffers, no vectorized loops).
Stmt rewriteStorage(const Stmt& s);

} // namespace loopscope
