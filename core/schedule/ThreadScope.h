// GPU thread tags and storage scopes, ranked as TVM ranks them (runtime/thread_storage_scope.h):
// which loops a cache stage covers for all the threads that share it, and which thread variables
// index it.
#pragma once

#include <string>

namespace loopscope {

class Schedule;
struct Stage;

// The rank of a thread tag: blockIdx.* 0, threadIdx.*, vthread and cthread 1; -1 for a tag that
// is none of them.
int threadRank(const std::string& tag);
// The dimension of a blockIdx/threadIdx tag (x 0, y 1, z 2), -1 otherwise.
int threadDim(const std::string& tag);
bool isVirtualThread(const std::string& tag);
// Whether TVM knows the tag: blockIdx.x/y/z, threadIdx.x/y/z, vthread, cthread.
bool isThreadTag(const std::string& tag);

// The rank of a storage scope: global 0, shared 1, warp 2, local 3; -1 when unknown.
int storageRank(const std::string& scope);

// A stage's storage rank: its scope's, or when it has none, by the most inner kind of thread its
// loops are computed under (none: global; blocks: shared; threads: local), as TVM infers it.
int stageStorageRank(const Schedule& sch, const Stage& s);

// Whether a loop bound to `tag` is covered whole by storage of rank `rank` (a shared buffer
// holds what every thread of a block uses; a local one what one thread uses).
inline bool storageCoversThread(int rank, const std::string& tag)
{
    return rank <= threadRank(tag);
}

} // namespace loopscope
