#include "schedule/ThreadScope.h"

#include "schedule/Bound.h"

#include <algorithm>

namespace loopscope {

int threadRank(const std::string& tag)
{
    if (tag == "blockIdx.x" || tag == "blockIdx.y" || tag == "blockIdx.z") return 0;
    if (tag == "threadIdx.x" || tag == "threadIdx.y" || tag == "threadIdx.z") return 1;
    if (isVirtualThread(tag)) return 1;
    return -1;
}

int threadDim(const std::string& tag)
{
    if (threadRank(tag) < 0 || isVirtualThread(tag)) return -1;
    return tag.back() - 'x';
}

bool isVirtualThread(const std::string& tag)
{
    return tag == "vthread" || tag == "cthread";
}

bool isThreadTag(const std::string& tag)
{
    return threadRank(tag) >= 0;
}

int storageRank(const std::string& scope)
{
    if (scope.empty() || scope == "global") return 0;
    if (scope == "shared" || scope == "shared.dyn") return 1;
    if (scope == "warp") return 2;
    if (scope == "local") return 3;
    return -1;
}

int stageStorageRank(const Schedule& sch, const Stage& s)
{
    if (!s.scope.empty()) return std::max(0, storageRank(s.scope));
    int inner = -1;
    for (auto& loop : attachPath(sch, s)) {
        const IterVarAttr* a = loop.stage->attr(loop.iv);
        if (a && a->kind == ForKind::ThreadBinding)
            inner = std::max(inner, threadRank(a->threadTag));
    }
    return inner < 0 ? 0 : inner == 0 ? 1 : 3;
}

} // namespace loopscope
