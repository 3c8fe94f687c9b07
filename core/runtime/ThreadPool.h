// The one thread pool that runs the parallel loops of generated code: persistent workers, a
// static split of each loop's range, nested parallel loops run serially on the calling thread.
#pragma once

#include <cstdint>

extern "C" {
// Called by generated code: runs body(begin, end, closure) over [0, n) split across the pool.
void loopscope_parallel_for(std::int64_t n, void (*body)(std::int64_t, std::int64_t, void*),
                            void* closure);
}

namespace loopscope {

// Number of threads parallel loops use (the calling thread included). 0 means the hardware
// threads. Takes effect for the next parallel loop.
void setParallelThreads(int threads);
int parallelThreads();

// While one is alive, the pool's idle threads keep spinning between parallel loops instead of
// going to sleep: for kernels run one after another (a whole model), where a serial kernel or
// the caller's own work between two loops would outlast the spin, and waking each sleeping
// thread again costs tens of microseconds on a virtual machine, for every kernel.
class KeepPoolAwake {
public:
    KeepPoolAwake();
    ~KeepPoolAwake();
    KeepPoolAwake(const KeepPoolAwake&) = delete;
    KeepPoolAwake& operator=(const KeepPoolAwake&) = delete;
};

} // namespace loopscope
