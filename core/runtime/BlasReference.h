// OpenBLAS as a reference line in sweeps: cblas_sgemm loaded at run time with dlopen (the core
// does not link OpenBLAS; without the library there is simply no reference), and the test that
// decides whether a program is a plain matmul it can stand for.
#pragma once

#include "te/Program.h"

#include <optional>
#include <string>

namespace loopscope {

class BlasLibrary {
public:
    // Loads libopenblas.so.0 (once per process); nullptr when it cannot be loaded.
    //
    // OpenBLAS's idle threads keep spinning for 2^28 cycles (about 0.1 s) after each call,
    // each holding a core: whatever is timed next runs with a core short. Unless
    // OPENBLAS_THREAD_TIMEOUT is set, it is set to 19 before loading (2^19 cycles, about
    // 0.2 ms: as long as the parallel-loop pool spins), so neither side's idle threads slow the
    // other's measurement.
    static const BlasLibrary* openblas();

    // "OpenBLAS 0.3.21" (from openblas_get_config), or the library's file name.
    const std::string& label() const { return m_label; }
    const std::string& config() const { return m_config; }

    // Times C[M,N] = A[M,K] x B[K,N] (row major, float32) with `threads` threads (0: all):
    // median milliseconds per call of `repeat` measurements of at least `minRepeatMs` each.
    double sgemmMs(int m, int n, int k, int threads, int repeat, double minRepeatMs) const;

    // One call: C[M,N] = A[M,K] x B[K,N], row major, float32; with `transposedB`, B is given
    // as N x K (a dense layer's weights as PyTorch keeps them).
    void sgemm(int m, int n, int k, const float* a, const float* b, float* c,
               bool transposedB = false) const;
    // The threads later calls use (0: leaves OpenBLAS's own choice).
    void setThreads(int threads) const;

private:
    BlasLibrary() = default;
    using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                           int, float, float*, int);
    using SetThreads = void (*)(int);
    Sgemm m_sgemm = nullptr;
    SetThreads m_setThreads = nullptr;
    std::string m_label, m_config;
};

// The sizes of a plain 2-D float32 matmul, when `program` is one: the script has parameters
// named M, N and K, and the output of its first variant is a 2-D float32 reduction with a single
// reduce axis (C[i, j] = sum over k of a product of two reads, possibly through a packed copy).
// The sizes are those parameters' values.
struct MatmulShape {
    std::int64_t m = 0, n = 0, k = 0;
};
std::optional<MatmulShape> matmulShape(const Program& program);
// The output of such a program in type `t` (the parameters, one output that is a 2-D reduction
// over one axis), its sizes in `shape`; null when it is not one.
const OperationNode* matmulOutput(const Program& program, DataType t, MatmulShape* shape);

} // namespace loopscope
