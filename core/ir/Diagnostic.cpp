#include "ir/Diagnostic.h"

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
    // The file as the project names it (core/..., app/...), not where it was built.
    std::string where = file;
    for (const char* top : {"/core/", "/app/", "/widgets/", "/tests/", "/bench/"})
        if (auto at = where.rfind(top); at != std::string::npos) {
            where = where.substr(at + 1);
            break;
        }
    throw InternalError("internal error at " + where + ":" + std::to_string(line) + ": " + message);
}

} // namespace loopscope
