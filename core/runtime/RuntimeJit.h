// A JIT whose generated code runs on this runtime: its parallel loops on the thread pool. Each
// owner (the command-line tool, the worker, a benchmark, a test) makes its own.
#pragma once

#include "codegen/Codegen.h"

#include <memory>
#include <string>

namespace loopscope {

// Throws CodegenError (saying why) when the host cannot run a JIT. `cpu`: the CPU model its code
// is scheduled for, with the host's features (empty: the host's, hostCpu()).
std::unique_ptr<Jit> createRuntimeJit(const std::string& cpu = {});

} // namespace loopscope
