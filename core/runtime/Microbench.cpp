#include "runtime/Microbench.h"

#include "ir/Host.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define LOOPSCOPE_X86 1
#endif

namespace loopscope {

namespace {

int resolveThreads(int threads)
{
    if (threads > 0) return threads;
    return usableCores();
}

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs `work(t)` on `threads` threads at once and returns the wall time of the slowest.
template <class Work> double onThreads(int threads, Work work)
{
    std::vector<std::thread> pool;
    auto t0 = std::chrono::steady_clock::now();
    for (int t = 1; t < threads; ++t)
        pool.emplace_back([&, t] { work(t); });
    work(0);
    for (auto& th : pool)
        th.join();
    return secondsSince(t0);
}

constexpr int kChains = 12; // > FMA latency (4) x units (2): enough to keep both pipes busy

#ifdef LOOPSCOPE_X86
// 12 independent chains of 256-bit FMAs: 12 x 8 lanes x 2 flops per iteration. Named
// accumulators (not an array) so that they live in registers at any optimization level.
__attribute__((target("avx2,fma"))) float fmaKernel256(long iterations, float seed)
{
    __m256 a0 = _mm256_set1_ps(seed), a1 = _mm256_set1_ps(seed + 1), a2 = _mm256_set1_ps(seed + 2),
           a3 = _mm256_set1_ps(seed + 3), a4 = _mm256_set1_ps(seed + 4),
           a5 = _mm256_set1_ps(seed + 5), a6 = _mm256_set1_ps(seed + 6),
           a7 = _mm256_set1_ps(seed + 7), a8 = _mm256_set1_ps(seed + 8),
           a9 = _mm256_set1_ps(seed + 9), a10 = _mm256_set1_ps(seed + 10),
           a11 = _mm256_set1_ps(seed + 11);
    const __m256 mul = _mm256_set1_ps(0.999999f);
    const __m256 add = _mm256_set1_ps(1e-7f);
    for (long i = 0; i < iterations; ++i) {
        a0 = _mm256_fmadd_ps(a0, mul, add);
        a1 = _mm256_fmadd_ps(a1, mul, add);
        a2 = _mm256_fmadd_ps(a2, mul, add);
        a3 = _mm256_fmadd_ps(a3, mul, add);
        a4 = _mm256_fmadd_ps(a4, mul, add);
        a5 = _mm256_fmadd_ps(a5, mul, add);
        a6 = _mm256_fmadd_ps(a6, mul, add);
        a7 = _mm256_fmadd_ps(a7, mul, add);
        a8 = _mm256_fmadd_ps(a8, mul, add);
        a9 = _mm256_fmadd_ps(a9, mul, add);
        a10 = _mm256_fmadd_ps(a10, mul, add);
        a11 = _mm256_fmadd_ps(a11, mul, add);
    }
    __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                               _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
    sum = _mm256_add_ps(sum, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
    float lanes[8];
    _mm256_storeu_ps(lanes, sum);
    float s = 0;
    for (float l : lanes)
        s += l;
    return s;
}

// The same with 512-bit FMAs (AVX-512: 12 chains x 16 lanes x 2 flops per iteration).
__attribute__((target("avx512f"))) float fmaKernel512(long iterations, float seed)
{
    __m512 a0 = _mm512_set1_ps(seed), a1 = _mm512_set1_ps(seed + 1), a2 = _mm512_set1_ps(seed + 2),
           a3 = _mm512_set1_ps(seed + 3), a4 = _mm512_set1_ps(seed + 4),
           a5 = _mm512_set1_ps(seed + 5), a6 = _mm512_set1_ps(seed + 6),
           a7 = _mm512_set1_ps(seed + 7), a8 = _mm512_set1_ps(seed + 8),
           a9 = _mm512_set1_ps(seed + 9), a10 = _mm512_set1_ps(seed + 10),
           a11 = _mm512_set1_ps(seed + 11);
    const __m512 mul = _mm512_set1_ps(0.999999f);
    const __m512 add = _mm512_set1_ps(1e-7f);
    for (long i = 0; i < iterations; ++i) {
        a0 = _mm512_fmadd_ps(a0, mul, add);
        a1 = _mm512_fmadd_ps(a1, mul, add);
        a2 = _mm512_fmadd_ps(a2, mul, add);
        a3 = _mm512_fmadd_ps(a3, mul, add);
        a4 = _mm512_fmadd_ps(a4, mul, add);
        a5 = _mm512_fmadd_ps(a5, mul, add);
        a6 = _mm512_fmadd_ps(a6, mul, add);
        a7 = _mm512_fmadd_ps(a7, mul, add);
        a8 = _mm512_fmadd_ps(a8, mul, add);
        a9 = _mm512_fmadd_ps(a9, mul, add);
        a10 = _mm512_fmadd_ps(a10, mul, add);
        a11 = _mm512_fmadd_ps(a11, mul, add);
    }
    __m512 sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                               _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    sum = _mm512_add_ps(sum, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
    float lanes[16];
    _mm512_storeu_ps(lanes, sum);
    float s = 0;
    for (float l : lanes)
        s += l;
    return s;
}
#endif

// Portable fallback: 128-bit vectors, multiply and add (the compiler may or may not fuse them).
float fmaKernel128(long iterations, float seed)
{
    typedef float v4 __attribute__((vector_size(16)));
    v4 acc[kChains];
    for (int c = 0; c < kChains; ++c)
        acc[c] = v4{} + (seed + static_cast<float>(c));
    const v4 mul = v4{} + 0.999999f;
    const v4 add = v4{} + 1e-7f;
    for (long i = 0; i < iterations; ++i) {
        for (int c = 0; c < kChains; ++c)
            acc[c] = acc[c] * mul + add;
    }
    v4 sum = acc[0];
    for (int c = 1; c < kChains; ++c)
        sum += acc[c];
    return sum[0] + sum[1] + sum[2] + sum[3];
}

volatile float g_sink = 0;

} // namespace

int hostVectorBits()
{
#ifdef LOOPSCOPE_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 256;
#endif
    return 128;
}

double hostClockGhz()
{
    {
        std::ifstream in("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
        double khz = 0;
        if (in >> khz && khz > 0) return khz / 1e6;
    }
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    double best = 0;
    while (std::getline(in, line)) {
        if (line.rfind("cpu MHz", 0) != 0) continue;
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        try {
            best = std::max(best, std::stod(line.substr(colon + 1)) / 1000.0);
        } catch (const std::exception&) {
        }
    }
    return best;
}

double peakFlopsBoundGflops(int threads, int vectorBits)
{
    double ghz = hostClockGhz();
    if (ghz <= 0) ghz = 4.0;
    return resolveThreads(threads) * ghz * 2.0 * (vectorBits / 32) * 2 * 2;
}

namespace {

// The best of five runs of the FMA kernel of this width, calibrated to about 50 ms per run on
// one thread.
double peakOf(int vectorBits, int threads)
{
    const int lanes = vectorBits / 32;
    auto kernel = [&](long iterations, float seed) {
#ifdef LOOPSCOPE_X86
        if (vectorBits == 512) return fmaKernel512(iterations, seed);
        if (vectorBits == 256) return fmaKernel256(iterations, seed);
#endif
        return fmaKernel128(iterations, seed);
    };
    long iterations = 1 << 16;
    for (;;) {
        auto t0 = std::chrono::steady_clock::now();
        g_sink = kernel(iterations, 1.0f);
        if (secondsSince(t0) > 0.05 || iterations > (1L << 34)) break;
        iterations *= 2;
    }
    double best = 0;
    for (int rep = 0; rep < 5; ++rep) {
        double s = onThreads(threads, [&](int t) {
            float r = kernel(iterations, 1.0f + static_cast<float>(t));
            if (r == 12345.0f) g_sink = r; // keeps the result alive without a shared write
        });
        double flops = 2.0 * lanes * kChains * static_cast<double>(iterations) * threads;
        best = std::max(best, flops / s / 1e9);
    }
    return best;
}

} // namespace

PeakFlops measurePeakFlops(int threads)
{
    PeakFlops out;
    out.threads = resolveThreads(threads);
    out.vectorBits = hostVectorBits();
    out.gflops = peakOf(out.vectorBits, out.threads);
    // Where 512-bit FMAs run as two halves (Zen 4), 256-bit ones reach the same peak or a little
    // more: the peak is the faster of the two, with the width that reached it.
    if (out.vectorBits == 512) {
        const double narrow = peakOf(256, out.threads);
        if (narrow > out.gflops) {
            out.gflops = narrow;
            out.vectorBits = 256;
        }
    }
    return out;
}

Bandwidth measureTriadBandwidth(int threads, double megabytes)
{
    Bandwidth out;
    out.threads = resolveThreads(threads);
    std::size_t n = static_cast<std::size_t>(std::max(1.0, megabytes) * 1e6 / 3 / sizeof(double));
    out.megabytes = 3.0 * n * sizeof(double) / 1e6;
    std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
    const int nt = out.threads;
    auto range = [&](int t) {
        return std::pair<std::size_t, std::size_t>(n * t / nt, n * (t + 1) / nt);
    };
    // First touch on the threads that use the data.
    onThreads(nt, [&](int t) {
        auto [lo, hi] = range(t);
        for (std::size_t i = lo; i < hi; ++i) {
            a[i] = 0.0;
            b[i] = 1.0;
            c[i] = 2.0;
        }
    });
    const double scalar = 3.0;
    double best = 0;
    for (int rep = 0; rep < 6; ++rep) {
        double s = onThreads(nt, [&](int t) {
            auto [lo, hi] = range(t);
            double* __restrict pa = a.get();
            const double* __restrict pb = b.get();
            const double* __restrict pc = c.get();
            for (std::size_t i = lo; i < hi; ++i)
                pa[i] = pb[i] + scalar * pc[i];
        });
        if (rep == 0) continue; // warm-up
        best = std::max(best, 3.0 * sizeof(double) * static_cast<double>(n) / s / 1e9);
    }
    g_sink = static_cast<float>(a[n / 2]);
    out.gbPerS = best;
    return out;
}

} // namespace loopscope
