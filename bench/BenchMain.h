// The main() of the Google Benchmark programs in bench/: --help and --version answer without
// running anything, and an option Google Benchmark does not know is a usage error (exit 2).
#pragma once

#include "Version.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>

namespace loopscope::bench {

inline void printBenchmarkUsage(std::FILE* to, const char* name, const char* what)
{
    const int indent = static_cast<int>(std::strlen(name));
    std::fprintf(to,
                 "usage: %s [--benchmark_filter=REGEX] [--benchmark_repetitions=N]\n"
                 "       %*s [--benchmark_format=console|json|csv] [--benchmark_out=FILE]\n"
                 "       %*s [other --benchmark_* options of Google Benchmark]\n"
                 "       %s --help | --version\n\n%s\n",
                 name, indent, "", indent, "", name, what);
}

inline int benchmarkMain(int argc, char** argv, const char* name, const char* what)
{
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            printBenchmarkUsage(stdout, name, what);
            return 0;
        }
        if (!std::strcmp(argv[i], "--version") || !std::strcmp(argv[i], "-V")) {
            std::printf("%s " LOOPSCOPE_VERSION_STRING "\n", name);
            return 0;
        }
    }
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
        std::fputc('\n', stderr);
        printBenchmarkUsage(stderr, name, what);
        return 2;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

} // namespace loopscope::bench
