// libFuzzer target for the script front end: any text is read, evaluated and (when it evaluates)
// lowered variant by variant. A diagnostic (UserError) is the expected answer to bad input; a
// crash, a sanitizer report, an InternalError or any other exception is a finding.
#include "ir/Diagnostic.h"
#include "lower/Lower.h"
#include "te/Program.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace loopscope;
    const std::string text(reinterpret_cast<const char*>(data), size);
    EvalResult r = evaluateScript(text);
    if (!r.ok) return 0;
    for (const Variant& v : r.program.variants) {
        try {
            lowerSchedule(v.schedule(), v.args, v.funcName);
        } catch (const UserError&) {
            // A schedule lowering refuses, at its step.
        }
    }
    return 0;
}
