// TVM's ThreadSync("shared"), which tvm.build runs after tvm.lower: a barrier among a block's
// threads before each statement that reads shared memory another thread may have written since
// the last barrier (read after write), or writes what another may have read (write after read),
// also across the iterations of a loop. Two accesses at one index that depends on the innermost
// thread are by the same thread and need none. Barriers go before whole statements, never inside
// a condition that depends on a thread.
#pragma once

#include "ir/Stmt.h"

namespace loopscope {

Stmt insertThreadSyncs(const Stmt& s);

// Whether the program launches GPU threads (has a thread_extent attribute).
bool launchesThreads(const Stmt& s);

} // namespace loopscope
