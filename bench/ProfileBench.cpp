// What profiling costs the measured kernel: the tutorial's steps run with the CPU clock sampling
// every thread (one sample per 100 us of a thread's CPU time, as the window's profiles do) and
// without, in alternating rounds, and compiled without line info as the ladder's plain runs are.
// Prints per-run medians and spreads side by side, and the overhead.
#include "Version.h"
#include "codegen/Codegen.h"
#include "runtime/LocalRun.h"
#include "runtime/Profiler.h"
#include "runtime/RuntimeJit.h"
#include "runtime/ThreadPool.h"
#include "te/Program.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace loopscope;

namespace {

double msPerRun(const PreparedRun& run, int runs)
{
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i)
        run.run();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
               .count() /
           runs;
}

struct Stats {
    double median, min, max;
};

Stats stats(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
}

} // namespace

int main(int argc, char** argv)
{
    int rounds = 15;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--rounds" && i + 1 < argc) {
            rounds = std::max(3, std::atoi(argv[++i]));
        } else if (a == "--version" || a == "-V") {
            std::printf("loopscope_bench_profile " LOOPSCOPE_VERSION_STRING "\n");
            return 0;
        } else {
            std::printf("usage: loopscope_bench_profile [--rounds N]\n\n"
                        "Times the tutorial's steps (opt_gemm.py) with and without the profiler's\n"
                        "sampling, in N alternating rounds (default 15), and without line info.\n");
            return a == "--help" || a == "-h" ? 0 : 2;
        }
    }
    std::ifstream in(LOOPSCOPE_SOURCE_DIR "/samples/opt_gemm.py");
    std::stringstream text;
    text << in.rdbuf();
    const HostTarget host = hostTarget();
    setParallelThreads(0);
    std::printf("CPU %s, %d threads; %d rounds, each contender in turn\n", host.cpu.c_str(),
                parallelThreads(), rounds);
    std::printf("%-12s %5s  %-24s %-24s", "variant", "size", "no line info ms/run",
                "line info ms/run");
    const double periods[] = {100, 250, 1000};
    for (double p : periods)
        std::printf(" %-24s", ("sampled every " + std::to_string(int(p)) + " us").c_str());
    std::printf("\n");
    std::unique_ptr<Jit> jit = createRuntimeJit();
    std::string method;
    struct Case {
        const char* variant;
        int size;
    };
    for (const Case c :
         {Case{"baseline", 512}, Case{"write cache", 1024}, Case{"parallel", 1024}}) {
        EvalResult r = evaluateScript(text.str(), {{"M", c.size}, {"N", c.size}, {"K", c.size}});
        const Variant* v = nullptr;
        for (const Variant& x : r.program.variants)
            if (x.name == c.variant) v = &x;
        if (!r.ok || !v) {
            std::fprintf(stderr, "loopscope_bench_profile: no variant '%s'\n", c.variant);
            return 1;
        }
        RunConfig plain;
        plain.jit = jit.get();
        RunConfig lines = plain;
        lines.lineInfo = true;
        auto a = PreparedRun::prepare(r.program, *v, plain);
        auto b = PreparedRun::prepare(r.program, *v, lines);
        a->run();
        b->run();
        // Runs per measurement: about 0.2 s.
        const double once = msPerRun(*b, 2);
        const int runs = std::max(2, static_cast<int>(200 / std::max(once, 0.01)));
        std::vector<double> noLines, withLines, sampled[3];
        for (int round = 0; round < rounds; ++round) {
            noLines.push_back(msPerRun(*a, runs));
            withLines.push_back(msPerRun(*b, runs));
            for (int p = 0; p < 3; ++p) {
                Sampler s(periods[p]);
                std::string why;
                if (!s.start(&why)) {
                    std::fprintf(stderr, "loopscope_bench_profile: %s\n", why.c_str());
                    return 1;
                }
                sampled[p].push_back(msPerRun(*b, runs));
                s.stop();
                method = s.method();
            }
        }
        const auto cell = [](const Stats& x, const char* extra = "") {
            char buf[96];
            std::snprintf(buf, sizeof buf, "%.2f (%.2f-%.2f)%s", x.median, x.min, x.max, extra);
            return std::string(buf);
        };
        const Stats l = stats(withLines);
        std::printf("%-12s %5d  %-24s %-24s", c.variant, c.size, cell(stats(noLines)).c_str(),
                    cell(l).c_str());
        for (auto& v : sampled) {
            const Stats s = stats(v);
            char pct[32];
            std::snprintf(pct, sizeof pct, " %+.1f%%", (s.median / l.median - 1) * 100);
            std::printf(" %-24s", cell(s, pct).c_str());
        }
        std::printf("\n");
    }
    std::printf("sampling: %s (the window's profiles sample every %d us)\n", method.c_str(),
                static_cast<int>(kProfilePeriodUs));
    return 0;
}
