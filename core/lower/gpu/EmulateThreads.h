// A GPU program as a CPU program that computes the same, to check GPU schedules on any machine
// (the MCUDA technique): blocks run one after another; the threads of a block run as loops
// between the barriers ThreadSync put in (a loop or branch holding a barrier is kept, with the
// threads looped inside it, since every thread of a block reaches it alike); each thread keeps
// its own part of every `local` buffer, and a block its own `shared` buffers.
#pragma once

#include "ir/Stmt.h"

namespace loopscope {

// `s` after insertThreadSyncs: every launch becomes loops. Throws UserError where a barrier is
// inside a loop or branch whose bounds depend on the thread (a GPU would hang there too).
Stmt emulateThreadsOnCpu(const Stmt& s);

// A lowered program as the CPU runs it: a GPU program through the device lowering tvm.build adds
// (lowerForDevice, shuffles as exchanges) and then as CPU loops; any other program as it is.
Stmt programForCpu(const Stmt& s);

} // namespace loopscope
