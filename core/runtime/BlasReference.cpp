#include "runtime/BlasReference.h"

#include "runtime/Benchmark.h"
#include "runtime/Buffer.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <sstream>

namespace loopscope {

namespace {

constexpr int kRowMajor = 101; // CblasRowMajor
constexpr int kNoTrans = 111;  // CblasNoTrans
constexpr int kTrans = 112;    // CblasTrans

std::string versionLabel(const std::string& config)
{
    // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64" -> "OpenBLAS 0.3.21"
    std::istringstream in(config);
    std::string name, version;
    in >> name >> version;
    if (name.empty()) return "OpenBLAS";
    return version.empty() ? name : name + " " + version;
}

} // namespace

const BlasLibrary* BlasLibrary::openblas()
{
    static std::once_flag once;
    static BlasLibrary* library = nullptr;
    std::call_once(once, [] {
        // Read by the library's initialization when it loads; a user's own setting stays.
        setenv("OPENBLAS_THREAD_TIMEOUT", "19", 0);
        void* handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!handle) return;
        auto sgemm = reinterpret_cast<Sgemm>(dlsym(handle, "cblas_sgemm"));
        if (!sgemm) return;
        auto* lib = new BlasLibrary;
        lib->m_sgemm = sgemm;
        lib->m_setThreads = reinterpret_cast<SetThreads>(dlsym(handle, "openblas_set_num_threads"));
        using GetConfig = char* (*)();
        auto getConfig = reinterpret_cast<GetConfig>(dlsym(handle, "openblas_get_config"));
        lib->m_config = getConfig ? getConfig() : "OpenBLAS";
        lib->m_label = versionLabel(lib->m_config);
        library = lib;
    });
    return library;
}

double BlasLibrary::sgemmMs(int m, int n, int k, int threads, int repeat, double minRepeatMs) const
{
    HostBuffer a(DataType::float32(), {m, k}), b(DataType::float32(), {k, n}),
        c(DataType::float32(), {m, n});
    a.fillRandom(1);
    b.fillRandom(2);
    setThreads(threads);
    auto* pa = static_cast<const float*>(a.data());
    auto* pb = static_cast<const float*>(b.data());
    auto* pc = static_cast<float*>(c.data());
    auto run = [&] { sgemm(m, n, k, pa, pb, pc); };
    run();
    BenchmarkOptions options;
    options.repeat = repeat;
    options.minRepeatMs = minRepeatMs;
    return measure(run, options).median;
}

void BlasLibrary::sgemm(int m, int n, int k, const float* a, const float* b, float* c,
                        bool transposedB) const
{
    m_sgemm(kRowMajor, kNoTrans, transposedB ? kTrans : kNoTrans, m, n, k, 1.0f, a, k, b,
            transposedB ? k : n, 0.0f, c, n);
}

void BlasLibrary::setThreads(int threads) const
{
    if (m_setThreads && threads > 0) m_setThreads(threads);
}

const OperationNode* matmulOutput(const Program& program, DataType t, MatmulShape* shape)
{
    const Parameter* m = program.findParameter("M");
    const Parameter* n = program.findParameter("N");
    const Parameter* k = program.findParameter("K");
    if (!m || !n || !k || program.variants.empty()) return nullptr;
    const auto& outputs = program.variants.front().snapshots.front().outputs();
    if (outputs.size() != 1) return nullptr;
    const Tensor& c = outputs.front();
    if (!c->isCompute() || c->ndim() != 2 || !c->isReduction() || c->reduceAxes.size() != 1 ||
        c->dtype != t)
        return nullptr;
    *shape = MatmulShape{m->value, n->value, k->value};
    return c.get();
}

std::optional<MatmulShape> matmulShape(const Program& program)
{
    MatmulShape s;
    if (!matmulOutput(program, DataType::float32(), &s)) return std::nullopt;
    return s;
}

} // namespace loopscope
