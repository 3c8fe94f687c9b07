#include "te/VariantBlock.h"

#include <algorithm>
#include <sstream>

namespace loopscope {

std::string variantBlockText(const std::string& script, int first, int scheduleEnd, int last,
                             const std::string& name, const std::vector<std::string>& statements)
{
    std::vector<std::string> lines;
    std::istringstream in(script);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    const int n = std::max(static_cast<int>(lines.size()), 1);
    first = std::clamp(first, 1, n);
    last = std::clamp(last, first, n);
    scheduleEnd = std::clamp(scheduleEnd, first, last);
    auto line = [&](int l) {
        return l <= static_cast<int>(lines.size()) ? lines[static_cast<std::size_t>(l - 1)]
                                                   : std::string();
    };
    std::string out = "\n# variant: " + name;
    for (int l = first; l <= scheduleEnd; ++l)
        out += "\n" + line(l);
    for (auto& s : statements)
        out += "\n" + s;
    for (int l = scheduleEnd + 1; l <= last; ++l)
        out += "\n" + line(l);
    return out;
}

} // namespace loopscope
