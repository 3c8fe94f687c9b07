// TVM's InjectVirtualThread: a loop bound to a virtual thread ("vthread", "cthread") becomes
// copies of the statements that depend on it (unrolled when they hold no loop and there are
// fewer than 16 virtual threads, else a loop `for vx_s in range(n)`), and each buffer those
// statements write per virtual thread gets one part per virtual thread. Statements that do not
// depend on it run once ("vthread" shares them; "cthread" does not).
#pragma once

#include "ir/Stmt.h"

namespace loopscope {

Stmt injectVirtualThreads(const Stmt& s);

} // namespace loopscope
