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
#include "protocol/Messages.h"
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

class GpuRunner;

// The variant name of the OpenBLAS reference points.
inline constexpr const char* kBlasVariant = "OpenBLAS";
// The variant name of the oneDNN points (a convolution's reference line).
inline constexpr const char* kDnnlVariant = "oneDNN";

// A point, the request and the result are the worker protocol's own values (protocol/Messages.h):
// a sweep run here, one run by the worker for the window and `loopscope-cli sweep` all hand them
// on as they are.
using SweepPoint = protocol::SweepPoint;
// Known points (`known`) join the cache, when there is one; empty `values`: defaultSweepValues().
using SweepRequest = protocol::SweepRequest;
// `blas`: the reference library's label when its points are there; `measured`: points this sweep
// measured (not from the cache).
using SweepResult = protocol::SweepReply;

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

// Throws UserError for a document error or an unknown parameter / variant (at the first value).
// A variant that cannot be compiled or run at a value is a failed point, not an error.
// GPU variants run on `gpu`'s GPU; without one they are checked on this CPU and not timed.
SweepResult runSweep(Jit& jit, const SweepRequest& request, SweepCache* cache = nullptr,
                     GpuRunner* gpu = nullptr, const SweepHooks& hooks = {});

// The CSV of a sweep: a header, then one row per point:
// variant,<param...>,threads,ms_median,ms_min,ms_max,gflops,flops,bytes,intensity,checked,
// skipped,failed,message
std::string sweepCsv(const SweepResult& result);

} // namespace loopscope
