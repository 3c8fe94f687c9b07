// The size sweep behind the charts and `loopscope-cli sweep`: for each value of the swept
// parameters (all set to it together, e.g. M = N = K = 512) and each chosen variant, evaluate the
// script with that value, compile, run once (a point whose single run exceeds the per-point limit
// is "skipped"), check against the reference and time it. Optionally OpenBLAS cblas_sgemm at the
// same sizes for matmul-shaped programs. Points are reported as they are measured, the sweep can
// be cancelled between points (keeping what was measured), and a cache keyed by (script text,
// variant, values, threads) avoids measuring a known point again.
#pragma once

#include "codegen/Codegen.h"
#include "ir/Diagnostic.h"
#include "runtime/Benchmark.h"

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace loopscope {

// The variant name of the OpenBLAS reference points.
inline constexpr const char* kBlasVariant = "OpenBLAS";
// The variant name of the oneDNN points (a convolution's reference line).
inline constexpr const char* kDnnlVariant = "oneDNN";

struct SweepPoint {
    std::string variant;              // or kBlasVariant
    std::vector<std::int64_t> values; // one per swept parameter, in SweepRequest::parameters order
    int threads = 0;                  // as resolved (never 0)
    bool reference = false;           // an OpenBLAS point
    bool skipped = false;             // too slow: over the per-point limit (see `message`)
    bool failed = false;              // could not be compiled or run, or wrong numbers (`message`)
    bool checked = false;             // compared with the reference interpreter and right
    bool cached = false;              // taken from the cache, not measured by this sweep
    std::string message;
    double flops = 0, bytes = 0, intensity = 0; // intensity: flops per unavoidable byte
    double runMs = 0;                           // the first run
    double msMedian = 0, msMin = 0, msMax = 0, gflops = 0;

    bool measured() const { return !skipped && !failed && msMedian > 0; }
};

struct SweepRequest {
    std::string script;
    std::vector<std::string> parameters; // swept together
    std::vector<std::int64_t> values;    // each sets every parameter in `parameters`
    std::vector<std::string> variants;   // empty: every variant, in script order
    int threads = 0;                     // 0: every hardware thread
    double maxPointSeconds = 10;         // a point whose first run takes longer is skipped
    bool check = true;
    // Add the reference library's points: OpenBLAS for a matmul, oneDNN for a convolution.
    bool blas = false;
    BenchmarkOptions benchmark{1, 3, 20.0, 0.0};
};

// Default values: powers of two from 64 to 2048.
std::vector<std::int64_t> defaultSweepValues();

// Points already measured, shared by sweeps (thread-safe). `measurements` counts the points
// measured and stored so far: the tests use it to see that a known point is not measured again.
class SweepCache {
public:
    using Key = std::tuple<std::size_t, std::string, std::vector<std::string>,
                           std::vector<std::int64_t>, int>;
    static Key key(const std::string& script, const std::string& variant,
                   const std::vector<std::string>& parameters,
                   const std::vector<std::int64_t>& values, int threads);

    std::optional<SweepPoint> find(const Key& key) const;
    void store(const Key& key, const SweepPoint& point);
    std::size_t size() const;
    void clear();

private:
    mutable std::mutex m_mutex;
    std::map<Key, SweepPoint> m_points;
};

struct SweepHooks {
    // After every point (measured, skipped, failed or cached); done counts points so far.
    std::function<void(const SweepPoint&, int done, int total)> point;
    // Polled before every point and between measurements; true stops the sweep.
    std::function<bool()> cancelled;
};

struct SweepResult {
    std::vector<SweepPoint> points; // in the order they were produced
    std::vector<std::string> parameters;
    std::vector<std::string> variants; // the variants swept, in order (without OpenBLAS)
    int total = 0;                     // points planned (with OpenBLAS ones)
    int measuredCount = 0;             // points this sweep measured (not from the cache)
    bool cancelled = false;
    std::string blasLabel; // "OpenBLAS 0.3.21" or "oneDNN 2.6.3" when reference points are included
    std::string blasNote;  // why there are none, when asked for and absent
    int threads = 1;
};

// Throws UserError for a document error or an unknown parameter / variant (at the first value).
// A variant that cannot be compiled or run at a value is a failed point, not an error.
SweepResult runSweep(Jit& jit, const SweepRequest& request, SweepCache* cache = nullptr,
                     const SweepHooks& hooks = {});

// The CSV of a sweep: a header, then one row per point:
// variant,<param...>,threads,ms_median,ms_min,ms_max,gflops,flops,bytes,intensity,checked,
// skipped,failed,message
std::string sweepCsv(const SweepResult& result);

} // namespace loopscope
