#include "ir/Diagnostic.h"

#include <cstdio>
#include <cstdlib>

namespace loopscope {

std::string formatDiagnostic(const std::string& file, const Diagnostic& d)
{
    std::string out = file;
    if (d.loc.line > 0) {
        out += ':' + std::to_string(d.loc.line);
        if (d.loc.col > 0) out += ':' + std::to_string(d.loc.col);
    }
    out += ": error: " + d.message;
    return out;
}

void internalError(const char* file, int line, const std::string& message)
{
    std::fprintf(stderr, "loopscope internal error at %s:%d: %s\n", file, line, message.c_str());
    std::abort();
}

}  // namespace loopscope
