// TVM's InjectDoubleBuffer: a double-buffered stage computed inside a loop gets two copies of its
// storage, allocated around that loop. Iteration 0's data is fetched before the loop (the
// prologue); each iteration then fetches the next iteration's data into the other copy, and
// reads its own at `loop % 2`. The loop runs one iteration short, and its last iteration follows
// it without the fetch (TVM's split_loop of 1). The fetch is wrapped in a "double_buffer_write"
// attribute, as TVM prints it. A mark with no loop directly around the stage (computed at the
// root, or at a loop bound to a thread) is dropped: there is no next iteration to fetch for.
#pragma once

#include "ir/Diagnostic.h"
#include "ir/Stmt.h"

#include <map>
#include <string>

namespace loopscope {

// `steps`: each double-buffered stage's double_buffer step, by stage name. A fetch that reads
// what the loop computes before it in the same iteration cannot be made a loop ahead (the next
// iteration's data is not there yet): refused at that step, where TVM computes wrong numbers.
Stmt injectDoubleBuffer(const Stmt& s, const std::map<std::string, SourceLoc>& steps = {});

} // namespace loopscope
