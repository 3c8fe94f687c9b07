// How often a fragment appears in a text (IR, an exported script), for tests that check what
// was emitted.
#pragma once

#include <cstddef>
#include <string>

namespace loopscope::testsupport {

inline std::size_t occurrences(const std::string& text, const std::string& what)
{
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
        ++n;
    return n;
}

} // namespace loopscope::testsupport
