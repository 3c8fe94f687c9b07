#include "ir/Limits.h"

#include <atomic>
#include <stdexcept>

namespace loopscope {

namespace {

std::atomic<std::int64_t> g_maxUnrollCopies{Limits{}.maxUnrollCopies};
std::atomic<std::int64_t> g_maxReferenceSteps{Limits{}.maxReferenceStepsPerElement};

} // namespace

Limits limits()
{
    Limits l;
    l.maxUnrollCopies = g_maxUnrollCopies.load(std::memory_order_relaxed);
    l.maxReferenceStepsPerElement = g_maxReferenceSteps.load(std::memory_order_relaxed);
    return l;
}

void setLimits(const Limits& l)
{
    if (l.maxUnrollCopies < 1) throw std::invalid_argument("the unroll limit must be at least 1");
    if (l.maxReferenceStepsPerElement < 1)
        throw std::invalid_argument("the reference interpreter's limit must be at least 1");
    g_maxUnrollCopies.store(l.maxUnrollCopies, std::memory_order_relaxed);
    g_maxReferenceSteps.store(l.maxReferenceStepsPerElement, std::memory_order_relaxed);
}

} // namespace loopscope
