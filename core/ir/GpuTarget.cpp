#include "ir/GpuTarget.h"

#include <sstream>

namespace loopscope {

namespace {

std::string firstWord(const std::string& s)
{
    std::istringstream in(s);
    std::string w;
    in >> w;
    return w;
}

} // namespace

bool isGpuTarget(const std::string& target)
{
    const std::string kind = firstWord(target);
    return kind == "cuda" || kind == "nvptx";
}

std::optional<GpuTarget> parseGpuTarget(const std::string& target, std::string* why)
{
    std::istringstream in(target);
    GpuTarget t;
    in >> t.kind;
    if (t.kind != "cuda" && t.kind != "nvptx") {
        *why = "not a GPU target (cuda or nvptx)";
        return std::nullopt;
    }
    const std::string archKey = t.kind == "cuda" ? "-arch=" : "-mcpu=";
    for (std::string option; in >> option;) {
        if (option.rfind(archKey, 0) == 0) {
            const std::string arch = option.substr(archKey.size());
            int sm = 0;
            std::size_t used = 0;
            try {
                if (arch.rfind("sm_", 0) == 0) sm = std::stoi(arch.substr(3), &used);
            } catch (const std::exception&) {
                sm = 0;
            }
            if (sm == 0 || used + 3 != arch.size()) {
                *why = "'" + arch + "' is not an architecture such as sm_80";
                return std::nullopt;
            }
            if (sm < 50 || sm > 90) {
                *why = "'" + arch +
                       "' is outside what Loopscope generates code for (sm_50 to sm_90, "
                       "LLVM 16's NVPTX)";
                return std::nullopt;
            }
            t.sm = sm;
        } else if (option.rfind("-host=", 0) == 0 || option == "-libs=cublas" ||
                   option.rfind("-max_num_threads=", 0) == 0) {
            continue;
        } else {
            *why = "unknown option '" + option + "' (use " + archKey + "sm_XX)";
            return std::nullopt;
        }
    }
    return t;
}

} // namespace loopscope
