#include "runtime/RuntimeJit.h"

#include "runtime/ThreadPool.h"

namespace loopscope {

std::unique_ptr<Jit> createRuntimeJit(const std::string& cpu)
{
    RuntimeEntries entries;
    entries.parallelFor = &loopscope_parallel_for;
    std::string error;
    auto jit = Jit::create(entries, &error, cpu);
    if (!jit) throw CodegenError(error);
    return jit;
}

} // namespace loopscope
