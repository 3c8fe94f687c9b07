// Matmul float32 through every variant of the GEMM samples, side by side with OpenBLAS
// cblas_sgemm, in one run: GFLOPS per step, the time from script text to a callable function
// (the median of 5) and the ratio to OpenBLAS. OpenBLAS is timed in turns with each step, so that
// both see the same machine (a shared machine's speed drifts over a run). It is loaded as the app
// loads it (runtime/BlasReference), so that its idle threads stop spinning about as soon as the
// parallel-loop pool's do: with OpenBLAS's default they take a core from the step timed next.
//
// Usage: loopscope_bench_gemm [--sizes 1024,2048] [--threads 2] [--max-run-s 10]
//        [--samples opt_gemm,matmul_ladder,gemm_best]
// A sample is a bundled one's name or a script's path (ending in .py). A step whose single run
// takes longer than --max-run-s is skipped; at a larger size, one predicted (as n^3) to take
// longer is skipped without running. Each step's output is checked against the reference
// interpreter first; a step with wrong numbers gets no speed, and the exit status is 3.
#include "Version.h"
#include "ir/Diagnostic.h"
#include "runtime/Benchmark.h"
#include "runtime/BlasReference.h"
#include "runtime/LocalRun.h"
#include "runtime/RuntimeJit.h"
#include "runtime/ThreadPool.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace loopscope;

namespace {

constexpr int kCompileRepeats = 5;

std::vector<std::string> split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        out.push_back(item);
    return out;
}

// The file of a bundled sample given by name, or a script given by its path (one ending in .py).
std::string samplePath(const std::string& name)
{
    bool path = name.size() > 3 && name.compare(name.size() - 3, 3, ".py") == 0;
    return path ? name : std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/" + name + ".py";
}

bool readFile(const std::string& path, std::string* text)
{
    std::ifstream in(path);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    *text = ss.str();
    return true;
}

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// cblas_sgemm on n x n x n float32 matrices of its own.
class Openblas {
public:
    Openblas(const BlasLibrary& library, int n)
        : m_library(library), m_n(n), m_a(DataType::float32(), {n, n}),
          m_b(DataType::float32(), {n, n}), m_c(DataType::float32(), {n, n})
    {
        m_a.fillRandom(1);
        m_b.fillRandom(2);
        run();
    }
    void run()
    {
        m_library.sgemm(m_n, m_n, m_n, static_cast<const float*>(m_a.data()),
                        static_cast<const float*>(m_b.data()), static_cast<float*>(m_c.data()));
    }

private:
    const BlasLibrary& m_library;
    int m_n;
    HostBuffer m_a, m_b, m_c;
};

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> sizes{"1024", "2048"};
    std::vector<std::string> samples{"opt_gemm", "matmul_ladder", "gemm_best"};
    int threads = 2;
    double maxRunS = 10;
    const char* usage =
        "usage: loopscope_bench_gemm [--sizes 1024,2048] [--threads 2] [--max-run-s 10]\n"
        "                            [--samples opt_gemm,matmul_ladder,gemm_best]\n"
        "       loopscope_bench_gemm --help | --version\n"
        "\n"
        "Times every variant of the matmul samples beside OpenBLAS cblas_sgemm, in turns, after\n"
        "checking each against the reference interpreter. A sample is a bundled one's name or a\n"
        "script's path (ending in .py).\n";
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(usage, stdout);
            return 0;
        }
        if (a == "--version" || a == "-V") {
            std::printf("loopscope_bench_gemm " LOOPSCOPE_VERSION_STRING "\n");
            return 0;
        }
        bool known = a == "--sizes" || a == "--samples" || a == "--threads" || a == "--max-run-s";
        if (!known || i + 1 >= argc) {
            std::fprintf(stderr, "loopscope_bench_gemm: %s '%s'\n\n%s",
                         known ? "a value must follow" : "unknown option", a.c_str(), usage);
            return 2;
        }
        std::string v = argv[++i];
        try {
            if (a == "--sizes")
                sizes = split(v);
            else if (a == "--samples")
                samples = split(v);
            else if (a == "--threads")
                threads = std::stoi(v);
            else
                maxRunS = std::stod(v);
        } catch (const std::logic_error&) {
            std::fprintf(stderr, "loopscope_bench_gemm: bad value '%s' for %s\n\n%s", v.c_str(),
                         a.c_str(), usage);
            return 2;
        }
    }
    const BlasLibrary* library = BlasLibrary::openblas();
    if (!library) {
        std::printf("cannot load OpenBLAS (libopenblas.so.0)\n");
        return 1;
    }
    setParallelThreads(threads);
    library->setThreads(threads);
    std::unique_ptr<Jit> jit = createRuntimeJit();
    RunConfig config;
    config.jit = jit.get();
    BenchmarkOptions bo;
    bo.repeat = 5;
    bo.minRepeatMs = 100;
    std::printf("threads: %d; OpenBLAS: %s; OPENBLAS_THREAD_TIMEOUT=%s\n", threads,
                library->config().c_str(), std::getenv("OPENBLAS_THREAD_TIMEOUT"));
    // One run's time per sample variant at the last size, to skip a step whose run at a larger
    // size would take over --max-run-s (time grows as n^3) without spending that time first.
    std::map<std::string, std::pair<int, double>> lastRun;
    bool failed = false;
    for (auto& sz : sizes) {
        int n = std::stoi(sz);
        double flops = 2.0 * n * n * n;
        Openblas blas(*library, n);
        double blasMs = measure([&] { blas.run(); }, bo).median;
        double blasGflops = flops / (blasMs * 1e6);
        std::printf("\n== %d x %d x %d ==\n", n, n, n);
        std::printf("%-16s %-22s %12s %10s %10s %14s\n", "sample", "variant", "median ms", "GFLOPS",
                    "vs BLAS", "text->fn ms");
        std::printf("%-16s %-22s %12.3f %10.2f %10.2f %14s\n", "OpenBLAS", "cblas_sgemm", blasMs,
                    blasGflops, 1.0, "-");
        for (auto& sample : samples) {
            std::string path = samplePath(sample), text;
            if (!readFile(path, &text)) {
                std::printf("%s: cannot read '%s'\n", sample.c_str(), path.c_str());
                continue;
            }
            std::map<std::string, std::int64_t> sets{{"M", n}, {"N", n}, {"K", n}};
            EvalResult r = evaluateScript(text, sets);
            if (!r.ok) {
                std::printf("%s\n", formatDiagnostic(path, r.error).c_str());
                continue;
            }
            for (auto& v : r.program.variants) {
                // Script text to callable function: evaluate, lower, compile (as tvm.build does;
                // making the input data is not part of it). The median of kCompileRepeats.
                EvalResult again;
                std::unique_ptr<PreparedRun> prepared;
                Measurement textToFns;
                for (int rep = 0; rep < kCompileRepeats; ++rep) {
                    prepared.reset(); // it refers to the program `again` holds
                    auto t0 = std::chrono::steady_clock::now();
                    again = evaluateScript(text, sets);
                    double evaluateMs = msSince(t0);
                    prepared = PreparedRun::prepare(again.program,
                                                    *again.program.findVariant(v.name), config);
                    textToFns.msPerRun.push_back(evaluateMs + prepared->lowerMs() +
                                                 prepared->compileMs());
                }
                summarize(textToFns);
                double textToFn = textToFns.median;
                std::string key = sample + "/" + v.name;
                if (auto it = lastRun.find(key); it != lastRun.end()) {
                    double scale = static_cast<double>(n) / it->second.first;
                    double predicted = it->second.second * scale * scale * scale;
                    if (predicted > maxRunS * 1000) {
                        std::printf("%-16s %-22s %12s %10s %10s %14.1f  (one run would take about "
                                    "%.0f s, from %d: skipped)\n",
                                    sample.c_str(), v.name.c_str(), "-", "-", "-", textToFn,
                                    predicted / 1000, it->second.first);
                        continue;
                    }
                }
                auto t1 = std::chrono::steady_clock::now();
                prepared->run();
                double once = msSince(t1);
                lastRun[key] = {n, once};
                // A speed is only reported for the right numbers: the first run's output against
                // the reference interpreter (all corners and 2,000 random elements).
                std::string wrong;
                for (auto& out : prepared->check())
                    if (!out.result.ok)
                        wrong =
                            out.result.error.empty() ? out.result.firstMismatch : out.result.error;
                if (!wrong.empty()) {
                    std::printf("%-16s %-22s %12s %10s %10s %14.1f  (WRONG NUMBERS: %s)\n",
                                sample.c_str(), v.name.c_str(), "-", "-", "-", textToFn,
                                wrong.c_str());
                    failed = true;
                    continue;
                }
                if (once > maxRunS * 1000) {
                    std::printf(
                        "%-16s %-22s %12s %10s %10s %14.1f  (one run took %.1f s: skipped)\n",
                        sample.c_str(), v.name.c_str(), "-", "-", "-", textToFn, once / 1000);
                    continue;
                }
                BenchmarkOptions vbo = bo;
                if (once > 1000) vbo.repeat = 3;
                auto turns = measureInTurns({[&] { blas.run(); }, [&] { prepared->run(); }}, vbo);
                const Measurement &blasHere = turns[0], &m = turns[1];
                double gflops = flops / (m.median * 1e6);
                std::printf(
                    "%-16s %-22s %12.3f %10.2f %10.2f %14.1f  (OpenBLAS in turn: %.2f GFLOPS)\n",
                    sample.c_str(), v.name.c_str(), m.median, gflops, blasHere.median / m.median,
                    textToFn, flops / (blasHere.median * 1e6));
                std::fflush(stdout);
            }
        }
    }
    return failed ? 3 : 0;
}
