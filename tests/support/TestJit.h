// The JIT a test program compiles with: one per test program, made on first use.
#pragma once

#include "runtime/LocalRun.h"
#include "runtime/RuntimeJit.h"

namespace loopscope {

inline Jit& testJit()
{
    static std::unique_ptr<Jit> jit = createRuntimeJit();
    return *jit;
}

// A run configuration that compiles with the test program's JIT.
inline RunConfig testRunConfig()
{
    RunConfig config;
    config.jit = &testJit();
    return config;
}

} // namespace loopscope
