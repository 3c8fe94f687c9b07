// A JIT whose generated code runs on this runtime: its parallel loops on the thread pool. Each
// owner (the command-line tool, the worker, a benchmark, a test) makes its own.
#pragma once

#include "codegen/Codegen.h"

#include <memory>

namespace loopscope {

// Throws CodegenError (saying why) when the host cannot run a JIT.
std::unique_ptr<Jit> createRuntimeJit();

} // namespace loopscope
