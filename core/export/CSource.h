// A lowered function as portable C: a self-contained C11 source file (OpenMP pragmas for parallel
// loops) with the signature of cPrototype(), and the header that goes with an exported object.
#pragma once

#include "ir/PrimFunc.h"

#include <string>

namespace loopscope {

// The function `void NAME(float* restrict A, ..., int32_t n)` with its includes and helpers.
// Vector expressions become loops over their lanes; `title` (e.g. "opt_gemm.py, variant
// parallel") goes into the comment at the top. Throws CodegenError for programs the CPU cannot
// run (GPU thread bindings).
std::string exportCSource(const PrimFunc& f, const std::string& title = {});

// An include-guarded header declaring cPrototype(f), for the object file emitCode() writes.
std::string exportCHeader(const PrimFunc& f);

} // namespace loopscope
