// Source locations and user-facing diagnostics: the one error channel for mistakes in a TE script.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace loopscope {

// A position in the script, 1-based; line 0 means "no location".
struct SourceLoc {
    int line = 0;
    int col = 0;
};

// A mistake the user made, in the user's terms, with where it is.
struct Diagnostic {
    SourceLoc loc;
    std::string message;
};

// Formats "FILE:LINE:COL: error: MESSAGE" (the convention editors parse).
std::string formatDiagnostic(const std::string& file, const Diagnostic& d);

// Thrown inside the front end and the schedule; caught at the API boundary and turned into a
// Diagnostic value. Never escapes the core's public entry points.
class UserError : public std::runtime_error {
public:
    UserError(SourceLoc loc, std::string message)
        : std::runtime_error(message), m_loc(loc), m_message(std::move(message))
    {
    }
    SourceLoc loc() const { return m_loc; }
    const std::string& message() const { return m_message; }
    Diagnostic diagnostic() const { return {m_loc, m_message}; }

private:
    SourceLoc m_loc;
    std::string m_message;
};

// An internal invariant did not hold: a bug in Loopscope, not in the user's script. Thrown by
// LS_ASSERT; the command-line tool, the worker and the window catch it at their boundary and
// report it (the worker answers with the error and lives on).
class InternalError : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

[[noreturn]] void internalError(const char* file, int line, const std::string& message);

} // namespace loopscope

// LS_ASSERT(cond, "message " << value << ...): the message is streamed, only when cond fails.
#define LS_ASSERT(cond, msg)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::ostringstream ls_assert_message_;                                                 \
            ls_assert_message_ << msg;                                                             \
            ::loopscope::internalError(__FILE__, __LINE__, ls_assert_message_.str());              \
        }                                                                                          \
    } while (0)
