// A GPU target as TVM scripts name one: "cuda", "cuda -arch=sm_80", "nvptx -mcpu=sm_90" (also
// through tvm.target.Target). Loopscope generates NVIDIA code for sm_50 to sm_90.
#pragma once

#include <optional>
#include <string>

namespace loopscope {

struct GpuTarget {
    std::string kind; // "cuda" or "nvptx"
    int sm = 0;       // compute capability * 10 (80 for sm_80); 0 when the target names none
};

// Whether the target names a GPU (its first word is cuda or nvptx).
bool isGpuTarget(const std::string& target);

// The target parsed, or nothing with the reason in *why (an unknown option, an architecture
// outside sm_50..sm_90).
std::optional<GpuTarget> parseGpuTarget(const std::string& target, std::string* why);

} // namespace loopscope
