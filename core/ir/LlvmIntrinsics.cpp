#include "ir/LlvmIntrinsics.h"

#include "LlvmIntrinsicNames.inc"

#include <algorithm>
#include <iterator>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define LOOPSCOPE_X86 1
#endif

namespace loopscope {

std::uint32_t llvmIntrinsicId(std::string_view name)
{
    // Sorted by name from index 1 (LLVM numbers its intrinsics alphabetically).
    const auto* first = std::begin(kLlvmIntrinsicNames) + 1;
    const auto* last = std::end(kLlvmIntrinsicNames);
    auto less = [](const char* a, std::string_view b) { return std::string_view(a) < b; };
    const auto* at = std::lower_bound(first, last, name, less);
    if (at != last && std::string_view(*at) == name)
        return static_cast<std::uint32_t>(at - std::begin(kLlvmIntrinsicNames));
    // An overloaded intrinsic's name with its types: the longest base name it extends by '.'.
    for (std::size_t dot = name.rfind('.'); dot != std::string_view::npos && dot > 0;
         dot = name.rfind('.', dot - 1)) {
        const std::string_view base = name.substr(0, dot);
        const auto* b = std::lower_bound(first, last, base, less);
        if (b != last && std::string_view(*b) == base)
            return static_cast<std::uint32_t>(b - std::begin(kLlvmIntrinsicNames));
    }
    return 0;
}

const std::set<std::string>& hostCpuFeatureNames()
{
    static const std::set<std::string> features = [] {
        std::set<std::string> on;
#ifdef LOOPSCOPE_X86
        unsigned a = 0, b = 0, c = 0, d = 0;
        if (!__get_cpuid(1, &a, &b, &c, &d)) return on;
        const unsigned c1 = c, d1 = d;
        // The registers the OS saves (XCR0): SSE and AVX state, then AVX-512's and AMX's.
        unsigned long long xcr0 = 0;
        if (c1 & (1u << 27)) {
            unsigned lo = 0, hi = 0;
            __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            xcr0 = (static_cast<unsigned long long>(hi) << 32) | lo;
        }
        const bool avxState = (xcr0 & 0x6) == 0x6;
        const bool avx512State = avxState && (xcr0 & 0xe0) == 0xe0;
        const bool amxState = (xcr0 & 0x60000) == 0x60000;
        auto set = [&](bool yes, const char* name) {
            if (yes) on.insert(name);
        };
        set(d1 & (1u << 25), "sse");
        set(d1 & (1u << 26), "sse2");
        set(c1 & (1u << 0), "sse3");
        set(c1 & (1u << 9), "ssse3");
        set(c1 & (1u << 19), "sse4.1");
        set(c1 & (1u << 20), "sse4.2");
        set(c1 & (1u << 23), "popcnt");
        set(avxState && (c1 & (1u << 28)), "avx");
        set(avxState && (c1 & (1u << 12)), "fma");
        set(avxState && (c1 & (1u << 29)), "f16c");
        unsigned maxLeaf = 0;
        __get_cpuid(0, &maxLeaf, &b, &c, &d);
        if (maxLeaf >= 7) {
            __cpuid_count(7, 0, a, b, c, d);
            const unsigned subleaves = a;
            set(avxState && (b & (1u << 5)), "avx2");
            set(b & (1u << 8), "bmi2");
            set(avx512State && (b & (1u << 16)), "avx512f");
            set(avx512State && (b & (1u << 17)), "avx512dq");
            set(avx512State && (b & (1u << 21)), "avx512ifma");
            set(avx512State && (b & (1u << 28)), "avx512cd");
            set(avx512State && (b & (1u << 30)), "avx512bw");
            set(avx512State && (b & (1u << 31)), "avx512vl");
            set(avx512State && (c & (1u << 1)), "avx512vbmi");
            set(avx512State && (c & (1u << 6)), "avx512vbmi2");
            set(avx512State && (c & (1u << 11)), "avx512vnni");
            set(avx512State && (c & (1u << 12)), "avx512bitalg");
            set(avx512State && (c & (1u << 14)), "avx512vpopcntdq");
            set(avx512State && (d & (1u << 23)), "avx512fp16");
            set(amxState && (d & (1u << 22)), "amx-bf16");
            set(amxState && (d & (1u << 24)), "amx-tile");
            set(amxState && (d & (1u << 25)), "amx-int8");
            if (subleaves >= 1) {
                __cpuid_count(7, 1, a, b, c, d);
                set(avxState && (a & (1u << 4)), "avxvnni");
                set(avx512State && (a & (1u << 5)), "avx512bf16");
            }
        }
#endif
        return on;
    }();
    return features;
}

} // namespace loopscope
