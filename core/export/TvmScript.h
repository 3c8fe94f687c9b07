// One variant of a TE script as a standalone Python script for TVM 0.17: the declarations, this
// variant's schedule, then code that builds, checks and times it in TVM.
#pragma once

#include "te/Ast.h"
#include "te/Program.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loopscope {

// The line that separates the script Loopscope evaluates from the code that only TVM runs: the
// end-of-script marker Loopscope's reader stops at.
inline constexpr const char* kTvmRunMarker = ast::kEndOfScriptMarker;

struct TvmScriptOptions {
    std::string source; // named in the header comment, e.g. "opt_gemm.py"
    // Values of symbolic sizes (te.var) for the inputs the TVM code creates; 1024 if absent.
    std::map<std::string, std::int64_t> symbols;
    std::string target; // for tvm.build in the run code; empty: the variant's
};

// `scriptText` is the script `p` was evaluated from and `v` one of p's variants. The result keeps
// every top-level statement up to the variant's last one, except the statements of other
// variants (and declarations that use what those define); parameters take the values in `p`.
// After kTvmRunMarker: tvm.build, seeded random inputs, a check against the default schedule of
// the same outputs, and time_evaluator with the operation count Loopscope computed.
// Throws UserError when a shape is not known (a symbolic size without a value).
std::string exportTvmScript(const std::string& scriptText, const Program& p, const Variant& v,
                            const TvmScriptOptions& options = {});

// What exportTvmScript keeps of the script but the variant's schedule: the imports and
// declarations, each with the comment lines above it; and in `argVariables` the script's
// variable of each of the variant's arguments, in order.
std::string tvmDeclarations(const std::string& scriptText, const Program& p, const Variant& v,
                            std::vector<std::string>* argVariables);

} // namespace loopscope
