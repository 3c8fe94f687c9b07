// Dense layers of the shapes real models have, compiled as a model compiles them (weights in
// panels, the default schedule of the task), side by side with OpenBLAS's cblas_sgemm on the same
// operands (B transposed where the layer's weights are), timed in turns so that both see the same
// machine: rows M = 1, 8, 64 and 197 (a vector, a small batch, a sequence, ViT's tokens) by
// K x N from 64 to 4096, Gemm with transB 0 and 1, and a batched MatMul (1 x M x K by K x N, as
// a transformer's projections are). Each layer's output is checked against the reference
// interpreter before it is timed; a wrong one gets no speed and the exit status is 3.
//
// Usage: loopscope_bench_dense [--threads 2] [--rows 1,8,64,197] [--shapes 784x512,...]
//                              [--repeat 5]
#include "Version.h"
#include "graph/Interpreter.h"
#include "graph/ModelMaker.h"
#include "graph/ModelRun.h"
#include "graph/OnnxImport.h"
#include "graph/Passes.h"
#include "ir/Host.h"
#include "runtime/Benchmark.h"
#include "runtime/BlasReference.h"
#include "runtime/ThreadPool.h"

#include "codegen/Codegen.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace loopscope;

namespace {

std::vector<std::string> split(const std::string& s, char by = ',')
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, by))
        out.push_back(item);
    return out;
}

struct Layer {
    std::string label;
    DenseLayerSpec spec;
};

// cblas_sgemm on operands of its own, shaped as the layer's.
class Openblas {
public:
    Openblas(const BlasLibrary& library, int m, int n, int k, bool transposedB)
        : m_library(library), m_m(m), m_n(n), m_k(k), m_t(transposedB),
          m_a(DataType::float32(), {m, k}), m_b(DataType::float32(), {k, n}),
          m_c(DataType::float32(), {m, n})
    {
        m_a.fillRandom(1);
        m_b.fillRandom(2);
    }
    void run()
    {
        m_library.sgemm(m_m, m_n, m_k, static_cast<const float*>(m_a.data()),
                        static_cast<const float*>(m_b.data()), static_cast<float*>(m_c.data()),
                        m_t);
    }

private:
    const BlasLibrary& m_library;
    int m_m, m_n, m_k;
    bool m_t;
    HostBuffer m_a, m_b, m_c;
};

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> rows{"1", "8", "64", "197"};
    std::vector<std::string> shapes{"64x64",   "784x512",  "512x256",  "512x1000", "1280x1000",
                                    "768x768", "768x3072", "3072x768", "4096x4096"};
    int threads = 2, repeat = 5;
    const char* usage =
        "usage: loopscope_bench_dense [--threads 2] [--rows 1,8,64,197] [--repeat 5]\n"
        "                             [--shapes 64x64,784x512,...]   (K x N)\n"
        "       loopscope_bench_dense --help | --version\n"
        "\n"
        "Times dense layers (Gemm with transB 0 and 1, and a batched MatMul) compiled as a\n"
        "model compiles them, beside OpenBLAS cblas_sgemm, in turns, after checking each.\n";
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(usage, stdout);
            return 0;
        }
        if (a == "--version" || a == "-V") {
            std::printf("loopscope_bench_dense " LOOPSCOPE_VERSION_STRING "\n");
            return 0;
        }
        const bool known = a == "--rows" || a == "--shapes" || a == "--threads" || a == "--repeat";
        if (!known || i + 1 >= argc) {
            std::fprintf(stderr, "loopscope_bench_dense: %s '%s'\n\n%s",
                         known ? "a value must follow" : "unknown option", a.c_str(), usage);
            return 2;
        }
        const std::string v = argv[++i];
        try {
            if (a == "--rows")
                rows = split(v);
            else if (a == "--shapes")
                shapes = split(v);
            else if (a == "--threads")
                threads = std::stoi(v);
            else
                repeat = std::stoi(v);
        } catch (const std::logic_error&) {
            std::fprintf(stderr, "loopscope_bench_dense: bad value '%s' for %s\n\n%s", v.c_str(),
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
    const HostTarget host = hostTarget();
    std::printf("threads: %d; %s; code for %s (%d-bit vectors); %d rounds in turns, medians\n",
                threads, library->config().c_str(), host.cpu.c_str(), host.vectorBits, repeat);

    std::vector<Layer> layers;
    for (auto& shape : shapes) {
        auto kn = split(shape, 'x');
        if (kn.size() != 2) {
            std::fprintf(stderr, "loopscope_bench_dense: a shape is KxN, not '%s'\n",
                         shape.c_str());
            return 2;
        }
        const std::int64_t k = std::stoll(kn[0]), n = std::stoll(kn[1]);
        for (auto& r : rows) {
            const std::int64_t m = std::stoll(r);
            for (bool t : {false, true})
                layers.push_back({"Gemm transB=" + std::to_string(t ? 1 : 0), {{m, k}, n, t}});
            layers.push_back({"MatMul 1xMxK", {{1, m, k}, n, false, true}});
        }
    }

    std::printf("\n%-14s %5s %5s %5s %10s %8s %10s %8s %8s  %s\n", "layer", "M", "K", "N", "ms",
                "GFLOPS", "BLAS ms", "GFLOPS", "vs BLAS", "schedule of the task");
    std::vector<double> ratios;
    bool failed = false;
    for (const Layer& l : layers) {
        const std::int64_t k = l.spec.input.back(), n = l.spec.n;
        std::int64_t m = 1;
        for (std::size_t d = 0; d + 1 < l.spec.input.size(); ++d)
            m *= l.spec.input[d];
        ImportResult imported = importOnnxBytes(makeDenseModelBytes(l.spec, 7), "");
        if (!imported.ok) {
            std::printf("%s: %s\n", l.label.c_str(), imported.error.c_str());
            failed = true;
            continue;
        }
        Graph g = imported.graph;
        optimizeGraph(g);
        std::string why;
        auto model = CompiledModel::compile(g, {}, &why);
        if (!model) {
            std::printf("%s: %s\n", l.label.c_str(), why.c_str());
            failed = true;
            continue;
        }
        std::map<std::string, HostBuffer> in;
        HostBuffer x(DataType::float32(), l.spec.input);
        x.fillRandom(5);
        in["x"] = x;
        if (!model->check(in, interpret(g, in)).ok()) {
            std::printf("%-14s %5lld %5lld %5lld  WRONG NUMBERS\n", l.label.c_str(),
                        static_cast<long long>(m), static_cast<long long>(k),
                        static_cast<long long>(n));
            failed = true;
            continue;
        }
        Openblas blas(*library, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k),
                      l.spec.transB);
        BenchmarkOptions bo;
        bo.repeat = repeat;
        bo.minRepeatMs = 20;
        auto turns = measureInTurns({[&] { model->run(); }, [&] { blas.run(); }}, bo);
        const double ours = turns[0].median, theirs = turns[1].median;
        const double flops = 2.0 * static_cast<double>(m * n * k);
        ratios.push_back(theirs / ours);
        std::printf("%-14s %5lld %5lld %5lld %10.4f %8.1f %10.4f %8.1f %7.2fx  %s\n",
                    l.label.c_str(), static_cast<long long>(m), static_cast<long long>(k),
                    static_cast<long long>(n), ours, flops / ours / 1e6, theirs,
                    flops / theirs / 1e6, theirs / ours, model->tasks().front().source.c_str());
        std::fflush(stdout);
    }
    if (!ratios.empty()) {
        std::sort(ratios.begin(), ratios.end());
        std::printf("\n%zu layers: OpenBLAS's time / Loopscope's: median %.2fx, lowest %.2fx, "
                    "highest %.2fx\n",
                    ratios.size(), median(ratios), ratios.front(), ratios.back());
    }
    return failed ? 3 : 0;
}
