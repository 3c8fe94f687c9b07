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
#include <cpuid.h>
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

// int8 dot products into int32, 12 independent chains. Each vpdpbusd does 4 multiply-adds per
// 32-bit lane; without VNNI, pmaddubsw (pairs into int16) then pmaddwd (pairs into int32) then
// an add do the same work in three instructions.
// clang-format off
#define LS_INT8_CHAINS(STEP) \
    STEP(a0) STEP(a1) STEP(a2) STEP(a3) STEP(a4) STEP(a5) STEP(a6) STEP(a7) STEP(a8) STEP(a9) \
    STEP(a10) STEP(a11)
// clang-format on

__attribute__((target("avx512f,avx512vnni"))) int dpbusdKernel512(long iterations, int seed)
{
    __m512i a0 = _mm512_set1_epi32(seed), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,
            a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;
    const __m512i u = _mm512_set1_epi8(3), v = _mm512_set1_epi8(-2);
    for (long i = 0; i < iterations; ++i) {
#define LS_STEP(acc) acc = _mm512_dpbusd_epi32(acc, u, v);
        LS_INT8_CHAINS(LS_STEP)
#undef LS_STEP
    }
    __m512i sum = _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(a0, a1), a2), a3);
    sum = _mm512_add_epi32(sum, _mm512_add_epi32(_mm512_add_epi32(a4, a5), a6));
    sum = _mm512_add_epi32(sum, _mm512_add_epi32(_mm512_add_epi32(a7, a8), a9));
    sum = _mm512_add_epi32(sum, _mm512_add_epi32(a10, a11));
    return _mm512_reduce_add_epi32(sum);
}

__attribute__((target("avx2,avxvnni"))) int dpbusdKernel256(long iterations, int seed)
{
    __m256i a0 = _mm256_set1_epi32(seed), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,
            a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;
    const __m256i u = _mm256_set1_epi8(3), v = _mm256_set1_epi8(-2);
    for (long i = 0; i < iterations; ++i) {
#define LS_STEP(acc) acc = _mm256_dpbusd_avx_epi32(acc, u, v);
        LS_INT8_CHAINS(LS_STEP)
#undef LS_STEP
    }
    __m256i sum = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(a0, a1), a2), a3);
    sum = _mm256_add_epi32(sum, _mm256_add_epi32(_mm256_add_epi32(a4, a5), a6));
    sum = _mm256_add_epi32(sum, _mm256_add_epi32(_mm256_add_epi32(a7, a8), a9));
    sum = _mm256_add_epi32(sum, _mm256_add_epi32(a10, a11));
    unsigned lanes[8]; // sums wrap around in the vectors: so they do here
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), sum);
    unsigned s = 0;
    for (unsigned l : lanes)
        s += l;
    return static_cast<int>(s);
}

__attribute__((target("avx512f,avx512bw"))) int maddKernel512(long iterations, int seed)
{
    __m512i a0 = _mm512_set1_epi32(seed), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,
            a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;
    const __m512i u = _mm512_set1_epi8(3), one = _mm512_set1_epi16(1);
    __m512i v = _mm512_set1_epi8(static_cast<char>(-2 + seed % 2));
    for (long i = 0; i < iterations; ++i) {
#define LS_STEP(acc)                                                                               \
    acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(u, v), one));
        LS_INT8_CHAINS(LS_STEP)
#undef LS_STEP
        v = _mm512_xor_si512(v, one); // keeps the products from being hoisted out of the loop
    }
    __m512i sum = _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(a0, a1), a2), a3);
    sum = _mm512_add_epi32(sum, _mm512_add_epi32(_mm512_add_epi32(a4, a5), a6));
    sum = _mm512_add_epi32(sum, _mm512_add_epi32(_mm512_add_epi32(a7, a8), a9));
    sum = _mm512_add_epi32(sum, _mm512_add_epi32(a10, a11));
    return _mm512_reduce_add_epi32(sum);
}

__attribute__((target("avx2"))) int maddKernel256(long iterations, int seed)
{
    __m256i a0 = _mm256_set1_epi32(seed), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0,
            a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;
    const __m256i u = _mm256_set1_epi8(3), one = _mm256_set1_epi16(1);
    __m256i v = _mm256_set1_epi8(static_cast<char>(-2 + seed % 2));
    for (long i = 0; i < iterations; ++i) {
#define LS_STEP(acc)                                                                               \
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, v), one));
        LS_INT8_CHAINS(LS_STEP)
#undef LS_STEP
        v = _mm256_xor_si256(v, one);
    }
    __m256i sum = _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(a0, a1), a2), a3);
    sum = _mm256_add_epi32(sum, _mm256_add_epi32(_mm256_add_epi32(a4, a5), a6));
    sum = _mm256_add_epi32(sum, _mm256_add_epi32(_mm256_add_epi32(a7, a8), a9));
    sum = _mm256_add_epi32(sum, _mm256_add_epi32(a10, a11));
    unsigned lanes[8]; // sums wrap around in the vectors: so they do here
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(lanes), sum);
    unsigned s = 0;
    for (unsigned l : lanes)
        s += l;
    return static_cast<int>(s);
}
#undef LS_INT8_CHAINS
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

namespace {

volatile int g_intSink = 0;

// The best of five runs of an int8 kernel doing `macsPerIteration` multiply-adds an iteration.
template <class Kernel> double int8PeakOf(Kernel kernel, double macsPerIteration, int threads)
{
    long iterations = 1 << 16;
    for (;;) {
        auto t0 = std::chrono::steady_clock::now();
        g_intSink = kernel(iterations, 1);
        if (secondsSince(t0) > 0.05 || iterations > (1L << 34)) break;
        iterations *= 2;
    }
    double best = 0;
    for (int rep = 0; rep < 5; ++rep) {
        double s = onThreads(threads, [&](int t) {
            int r = kernel(iterations, 1 + t);
            if (r == 12345) g_intSink = r;
        });
        best = std::max(best, 2.0 * macsPerIteration * static_cast<double>(iterations) * threads /
                                  s / 1e9);
    }
    return best;
}

} // namespace

PeakInt8 measurePeakInt8(int threads)
{
    PeakInt8 out;
    out.threads = resolveThreads(threads);
#ifdef LOOPSCOPE_X86
    __builtin_cpu_init();
    const bool avx512bw = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    const bool avx2 = __builtin_cpu_supports("avx2");
    const bool vnni512 = avx512bw && __builtin_cpu_supports("avx512vnni");
    // AVX-VNNI: CPUID leaf 7, subleaf 1, EAX bit 4 (GCC's __builtin_cpu_supports has no name for
    // it); its registers are AVX2's.
    unsigned a = 0, b = 0, c = 0, d = 0;
    const bool vnni256 = avx2 && __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 4));
    auto consider = [&](double gops, const char* how) {
        if (gops > out.gops) {
            out.gops = gops;
            out.how = how;
        }
    };
    // 64 (512-bit) or 32 (256-bit) multiply-adds per instruction per chain.
    if (vnni512)
        consider(int8PeakOf(dpbusdKernel512, 64.0 * kChains, out.threads),
                 "vpdpbusd, 512-bit (AVX512-VNNI)");
    if (vnni256)
        consider(int8PeakOf(dpbusdKernel256, 32.0 * kChains, out.threads),
                 "vpdpbusd, 256-bit (AVX-VNNI)");
    if (!vnni512 && !vnni256) {
        if (avx512bw)
            consider(int8PeakOf(maddKernel512, 64.0 * kChains, out.threads),
                     "vpmaddubsw + vpmaddwd + vpaddd, 512-bit (AVX-512BW, no VNNI)");
        if (avx2)
            consider(int8PeakOf(maddKernel256, 32.0 * kChains, out.threads),
                     "vpmaddubsw + vpmaddwd + vpaddd, 256-bit (AVX2, no VNNI)");
    }
#endif
    if (out.how.empty()) out.how = "no int8 dot-product instructions measured on this CPU";
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
