#include "ir/LlvmIntrinsics.h"

#include <atomic>

namespace loopscope {

namespace {
std::atomic<LlvmIntrinsicLookup> g_lookup{nullptr};
std::atomic<LlvmHostFeatures> g_features{nullptr};
} // namespace

void provideLlvmIntrinsicLookup(LlvmIntrinsicLookup lookup)
{
    g_lookup.store(lookup);
}

bool hasLlvmIntrinsicLookup()
{
    return g_lookup.load() != nullptr;
}

std::uint32_t llvmIntrinsicId(std::string_view name)
{
    LlvmIntrinsicLookup f = g_lookup.load();
    return f ? f(name) : 0;
}

} // namespace loopscope

namespace loopscope {

void provideLlvmHostFeatures(LlvmHostFeatures features)
{
    g_features.store(features);
}

std::optional<std::set<std::string>> llvmHostFeatures()
{
    LlvmHostFeatures f = g_features.load();
    if (!f) return std::nullopt;
    return f();
}

} // namespace loopscope
