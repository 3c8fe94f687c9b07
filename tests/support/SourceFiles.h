// Files of the project's source tree the tests read: scripts, goldens, samples.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace loopscope {

inline std::string readText(const std::filesystem::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A file by its path from the project's root (LOOPSCOPE_SOURCE_DIR).
inline std::string readSourceFile(const std::string& relative)
{
    return readText(std::filesystem::path(LOOPSCOPE_SOURCE_DIR) / relative);
}

} // namespace loopscope
