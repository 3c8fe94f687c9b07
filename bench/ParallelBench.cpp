// The cost of entering a parallel loop: generated code calls loopscope_parallel_for once per
// parallel loop it reaches, so a packing loop plus a compute loop pay it twice per run. Measured
// for an empty body (pure entry and join) and a small one, on the pool's default thread count,
// beside gcc's OpenMP (libgomp) doing the same, as the reference.
#include "runtime/ThreadPool.h"

#include "BenchMain.h"

#include <benchmark/benchmark.h>
#include <omp.h>

#include <cstdint>
#include <vector>

namespace {

void emptyBody(std::int64_t, std::int64_t, void*) {}

void touchBody(std::int64_t begin, std::int64_t end, void* closure)
{
    auto* data = static_cast<float*>(closure);
    for (std::int64_t i = begin; i < end; ++i)
        data[i] += 1.0f;
}

void BM_PoolEnterEmpty(benchmark::State& state)
{
    loopscope::setParallelThreads(0);
    const std::int64_t n = loopscope::parallelThreads();
    for (auto _ : state)
        loopscope_parallel_for(n, emptyBody, nullptr);
}

void BM_OpenMpEnterEmpty(benchmark::State& state)
{
    const int n = loopscope::parallelThreads(); // the hardware threads, as the pool uses
    for (auto _ : state) {
#pragma omp parallel for num_threads(n) schedule(static)
        for (int i = 0; i < n; ++i)
            benchmark::DoNotOptimize(i);
    }
}

void BM_PoolSmallLoop(benchmark::State& state)
{
    loopscope::setParallelThreads(0);
    std::vector<float> data(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        loopscope_parallel_for(state.range(0), touchBody, data.data());
        benchmark::ClobberMemory();
    }
}

void BM_OpenMpSmallLoop(benchmark::State& state)
{
    std::vector<float> data(static_cast<std::size_t>(state.range(0)));
    const int n = static_cast<int>(state.range(0));
    const int threads = loopscope::parallelThreads();
    for (auto _ : state) {
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int i = 0; i < n; ++i)
            data[static_cast<std::size_t>(i)] += 1.0f;
        benchmark::ClobberMemory();
    }
}

void BM_SerialSmallLoop(benchmark::State& state)
{
    std::vector<float> data(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        touchBody(0, state.range(0), data.data());
        benchmark::ClobberMemory();
    }
}

} // namespace

BENCHMARK(BM_PoolEnterEmpty);
BENCHMARK(BM_OpenMpEnterEmpty);
BENCHMARK(BM_SerialSmallLoop)->Arg(4096)->Arg(65536);
BENCHMARK(BM_PoolSmallLoop)->Arg(4096)->Arg(65536);
BENCHMARK(BM_OpenMpSmallLoop)->Arg(4096)->Arg(65536);
int main(int argc, char** argv)
{
    return loopscope::bench::benchmarkMain(
        argc, argv, "loopscope_bench_parallel",
        "Times entering a parallel loop on the runtime's pool, beside OpenMP.");
}
