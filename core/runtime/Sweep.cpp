#include "runtime/Sweep.h"

#include "codegen/Codegen.h"
#include "runtime/BlasReference.h"
#include "runtime/CpuCheckSize.h"
#include "runtime/DnnlReference.h"
#include "runtime/GpuRun.h"
#include "runtime/LocalRun.h"
#include "runtime/ThreadPool.h"
#include "runtime/Traffic.h"
#include "runtime/VariantRun.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <sstream>

namespace loopscope {

namespace {

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string seconds(double ms)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", ms / 1000.0);
    return text;
}

struct CancelledPoint {};

// What a variant's earlier points tell about the next, larger one.
struct VariantHistory {
    double skippedFlops = -1; // the smallest flop count at which it was too slow
    double lastFlops = 0, lastMs = 0;
};

SizeValues sizeValues(const Program& program, const std::map<std::string, std::int64_t>& symbols)
{
    SizeValues sizes;
    for (auto& sv : program.sizeVars) {
        auto it = symbols.find(sv.name);
        sizes[sv.var.get()] = it != symbols.end() ? it->second : 1024;
    }
    return sizes;
}

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string number(double v)
{
    std::ostringstream ss;
    ss.precision(6);
    ss << v;
    return ss.str();
}

} // namespace

std::vector<std::int64_t> defaultSweepValues()
{
    return {64, 128, 256, 512, 1024, 2048};
}

SweepCache::Key SweepCache::key(const std::string& script, const std::string& variant,
                                const std::vector<std::string>& parameters,
                                const std::vector<std::int64_t>& values, int threads)
{
    return {std::hash<std::string>{}(script), variant, parameters, values, threads};
}

std::optional<SweepPoint> SweepCache::find(const Key& key) const
{
    std::lock_guard lock(m_mutex);
    auto it = m_points.find(key);
    if (it == m_points.end()) return std::nullopt;
    return it->second;
}

void SweepCache::store(const Key& key, const SweepPoint& point)
{
    std::lock_guard lock(m_mutex);
    m_points[key] = point;
}

std::size_t SweepCache::size() const
{
    std::lock_guard lock(m_mutex);
    return m_points.size();
}

void SweepCache::clear()
{
    std::lock_guard lock(m_mutex);
    m_points.clear();
}

namespace {

// Checks a point's outputs: false, with the first problem as the point's message, when one is
// wrong.
bool checkPoint(const PreparedRun& run, SweepPoint& point)
{
    for (auto& c : run.check()) {
        if (c.result.ok) continue;
        point.message =
            "wrong numbers: " +
            (c.result.error.empty() ? c.result.firstMismatch : c.tensor + ": " + c.result.error);
        return false;
    }
    return true;
}

} // namespace

SweepResult runSweep(Jit& jit, const SweepRequest& request, SweepCache* cache, GpuRunner* gpu,
                     const SweepHooks& hooks)
{
    SweepResult result;
    result.parameters = request.parameters;
    // Points the client measured before (the window keeps them when a cancel restarts its
    // worker): they join the cache, so they are reported as cached instead of measured again.
    if (cache)
        for (const SweepPoint& p : request.known)
            cache->store(
                SweepCache::key(request.script, p.variant, request.parameters, p.values, p.threads),
                p);
    setParallelThreads(request.threads);
    result.threads = parallelThreads();
    const double limitMs = request.maxPointSeconds * 1000.0;
    auto cancelled = [&] { return hooks.cancelled && hooks.cancelled(); };

    // Evaluate once with the script's own values to validate names and pick the variants.
    ScriptEvaluation first = evaluateWithValues(request.script, {});
    if (!first.result.ok) throw UserError(first.result.error.loc, first.result.error.message);
    if (request.parameters.empty()) throw UserError({}, "no parameter to sweep");
    for (auto& name : request.parameters) {
        const Program& p = first.result.program;
        bool symbol = std::any_of(p.sizeVars.begin(), p.sizeVars.end(),
                                  [&](const SizeVar& v) { return v.name == name; });
        if (!p.findParameter(name) && !symbol) {
            std::string known = parameterList(p);
            throw UserError({}, "the script has no parameter named " + name +
                                    (known.empty() ? std::string(" (it has none)")
                                                   : " (it has: " + known + ")"));
        }
    }
    const Program& firstProgram = first.result.program;
    if (request.variants.empty()) {
        for (auto& v : firstProgram.variants)
            result.variants.push_back(v.name);
    } else {
        for (auto& name : request.variants) {
            if (!firstProgram.findVariant(name))
                throw UserError({}, "no variant '" + name + "' in the script (variants: " +
                                        variantList(firstProgram) + ")");
            result.variants.push_back(name);
        }
    }

    // The reference line: OpenBLAS for a matmul, oneDNN for a convolution.
    const BlasLibrary* blas = nullptr;
    const DnnlLibrary* dnnl = nullptr;
    if (request.blas) {
        if (conv2dShape(firstProgram) || int8MatmulShape(firstProgram) ||
            int8Conv2dShape(firstProgram)) {
            if (!(dnnl = DnnlLibrary::load()))
                result.blasNote = "libdnnl.so.2 could not be loaded";
            else
                result.blas = dnnl->label();
        } else if (!matmulShape(firstProgram)) {
            result.blasNote = "neither a plain matmul (parameters M, N, K and one 2-D float32 "
                              "output with a single reduce axis), an int8 one (uint8 x int8 into "
                              "int32) nor a 2-D convolution";
        } else if (!(blas = BlasLibrary::openblas())) {
            result.blasNote = "libopenblas.so.0 could not be loaded";
        } else {
            result.blas = blas->label();
        }
    }
    const char* referenceVariant = dnnl ? kDnnlVariant : kBlasVariant;
    const int perValue = static_cast<int>(result.variants.size()) + (blas || dnnl ? 1 : 0);
    const std::vector<std::int64_t> sweepValues =
        request.values.empty() ? defaultSweepValues() : request.values;
    result.total = perValue * static_cast<int>(sweepValues.size());

    std::map<std::string, VariantHistory> history;
    int done = 0;
    auto emit = [&](SweepPoint point, const SweepCache::Key* key) {
        if (key && cache && !point.cached) cache->store(*key, point);
        result.points.push_back(point);
        ++done;
        if (hooks.point) hooks.point(result.points.back(), done, result.total);
    };

    for (std::int64_t value : sweepValues) {
        std::vector<std::int64_t> values(request.parameters.size(), value);
        std::map<std::string, std::int64_t> sets;
        for (auto& p : request.parameters)
            sets[p] = value;
        std::optional<ScriptEvaluation> evaluation; // evaluated when a point needs measuring
        auto program = [&]() -> const ScriptEvaluation& {
            if (!evaluation) {
                evaluation = evaluateWithValues(request.script, sets);
                if (!evaluation->result.ok)
                    throw UserError(evaluation->result.error.loc, evaluation->result.error.message);
            }
            return *evaluation;
        };

        for (auto& name : result.variants) {
            if (cancelled()) {
                result.cancelled = true;
                return result;
            }
            SweepCache::Key key =
                SweepCache::key(request.script, name, request.parameters, values, result.threads);
            if (cache) {
                if (auto known = cache->find(key)) {
                    known->cached = true;
                    VariantHistory& h = history[name];
                    if (known->skipped && (h.skippedFlops < 0 || known->flops < h.skippedFlops))
                        h.skippedFlops = known->flops;
                    if (known->measured()) {
                        h.lastFlops = known->flops;
                        h.lastMs = known->msMedian;
                    }
                    emit(*known, nullptr);
                    continue;
                }
            }
            SweepPoint point;
            point.variant = name;
            point.values = values;
            point.threads = result.threads;
            VariantHistory& h = history[name];
            bool cacheable = true;
            try {
                // A value the script cannot take (e.g. N / bn not whole) fails its points.
                const ScriptEvaluation& ev = program();
                const Program& p = ev.result.program;
                const Variant* variant = p.findVariant(name);
                if (!variant) throw UserError({}, "the variant does not exist at this size");
                RunConfig config;
                config.symbols = ev.symbols;
                config.jit = &jit;
                auto prepared = PreparedRun::prepare(p, *variant, config);
                point.flops = prepared->flops();
                point.bytes = unavoidableBytes(variant->snapshots.front().outputs(),
                                               sizeValues(p, ev.symbols));
                point.intensity = arithmeticIntensity(point.flops, point.bytes);
                // Too slow before it runs: slower than the limit at a smaller size, or a run
                // predicted (from the last measured size, by operation count) past the limit.
                double predictedMs = h.lastFlops > 0 ? h.lastMs * point.flops / h.lastFlops : 0.0;
                if (h.skippedFlops >= 0 && point.flops >= h.skippedFlops) {
                    point.skipped = true;
                    point.message = "not run: over the per-point limit (" + seconds(limitMs) +
                                    ") at a smaller size";
                    cacheable = false;
                } else if (predictedMs > 2 * limitMs) {
                    point.skipped = true;
                    point.message = "not run: one run would take about " + seconds(predictedMs) +
                                    ", over the per-point limit (" + seconds(limitMs) + ")";
                    cacheable = false;
                } else if (prepared->isGpu() && !(gpu && gpu->device()) &&
                           point.flops > kCpuCheckFlops) {
                    // No GPU, and a size the CPU would check for minutes: left unchecked.
                    point.skipped = true;
                    point.message = "no GPU here: not checked at this size on the CPU (its "
                                    "kernels' threads run as loops here; smaller sizes are "
                                    "checked), not timed";
                    cacheable = false;
                } else if (prepared->isGpu() && !(gpu && gpu->device())) {
                    // No GPU: checked on this CPU, not timed.
                    auto t0 = std::chrono::steady_clock::now();
                    prepared->run();
                    point.runMs = msSince(t0);
                    point.message = kNoGpuNote;
                    point.failed = !checkPoint(*prepared, point);
                    point.checked = !point.failed;
                    cacheable = false;
                } else if (prepared->isGpu()) {
                    BenchmarkOptions bo;
                    bo.repeat = request.repeat;
                    const Measurement m = runOnGpu(*prepared, *gpu, bo, nullptr);
                    point.failed = !checkPoint(*prepared, point);
                    point.checked = !point.failed;
                    if (!point.failed && !m.msPerRun.empty()) {
                        point.runMs = m.median;
                        point.msMedian = m.median;
                        point.msMin = m.min;
                        point.msMax = m.max;
                        point.gflops = point.flops / (m.median * 1e6);
                    }
                } else {
                    auto t0 = std::chrono::steady_clock::now();
                    prepared->run();
                    point.runMs = msSince(t0);
                    if (point.runMs > limitMs) {
                        point.skipped = true;
                        point.message = "one run took " + seconds(point.runMs) +
                                        ", over the per-point limit (" + seconds(limitMs) + ")";
                    } else {
                        bool wrong = false;
                        if (request.check) {
                            wrong = !checkPoint(*prepared, point);
                            point.checked = !wrong;
                        }
                        if (wrong) {
                            point.failed = true;
                        } else {
                            BenchmarkOptions bo;
                            bo.repeat = request.repeat;
                            bo.minRepeatMs = request.minRepeatMs;
                            bo.maxTotalMs = limitMs;
                            Measurement m = prepared->benchmark(bo, cancelled);
                            if (cancelled() || m.msPerRun.empty()) throw CancelledPoint{};
                            point.msMedian = m.median;
                            point.msMin = m.min;
                            point.msMax = m.max;
                            point.gflops = point.flops / (m.median * 1e6);
                        }
                    }
                }
            } catch (const CancelledPoint&) {
                result.cancelled = true;
                return result;
            } catch (const UserError& e) {
                point.failed = true;
                point.message = e.message();
            } catch (const CodegenError& e) {
                point.failed = true;
                point.message = std::string("cannot run on this CPU: ") + e.what();
            }
            if (point.skipped && (h.skippedFlops < 0 || point.flops < h.skippedFlops))
                h.skippedFlops = point.flops;
            if (point.measured()) {
                h.lastFlops = point.flops;
                h.lastMs = point.msMedian;
            }
            if (!point.skipped || cacheable) ++result.measured;
            emit(point, cacheable ? &key : nullptr);
        }

        if (blas || dnnl) {
            if (cancelled()) {
                result.cancelled = true;
                return result;
            }
            SweepCache::Key key = SweepCache::key(request.script, referenceVariant,
                                                  request.parameters, values, result.threads);
            std::optional<SweepPoint> known = cache ? cache->find(key) : std::nullopt;
            if (known) {
                known->cached = true;
                emit(*known, nullptr);
                continue;
            }
            SweepPoint point;
            point.variant = referenceVariant;
            point.reference = true;
            point.values = values;
            point.threads = result.threads;
            std::optional<MatmulShape> shape;
            std::optional<Conv2dShape> conv;
            std::optional<Int8MatmulShape> int8;
            std::optional<Conv2dShape> int8Conv;
            try {
                if (blas) shape = matmulShape(program().result.program);
                if (dnnl) conv = conv2dShape(program().result.program);
                if (dnnl && !conv) int8 = int8MatmulShape(program().result.program);
                if (dnnl && !conv && !int8) int8Conv = int8Conv2dShape(program().result.program);
            } catch (const UserError&) {
            }
            if (shape) {
                point.flops = 2.0 * shape->m * shape->n * shape->k;
                point.bytes =
                    4.0 * (shape->m * shape->k + shape->k * shape->n + shape->m * shape->n);
                point.msMedian =
                    blas->sgemmMs(static_cast<int>(shape->m), static_cast<int>(shape->n),
                                  static_cast<int>(shape->k), result.threads, request.repeat,
                                  request.minRepeatMs);
            } else if (conv) {
                point.flops = conv->flops();
                point.bytes = 4.0 * (conv->n * conv->c * conv->h * conv->w +
                                     conv->f * conv->c * conv->kh * conv->kw +
                                     conv->n * conv->f * conv->oh * conv->ow);
                point.msMedian =
                    dnnl->convMs(*conv, result.threads, request.repeat, request.minRepeatMs);
            } else if (int8) {
                point.flops = int8->ops();
                point.bytes =
                    1.0 * (int8->m * int8->k + int8->k * int8->n) + 4.0 * int8->m * int8->n;
                point.msMedian =
                    dnnl->int8MatmulMs(*int8, result.threads, request.repeat, request.minRepeatMs);
            } else if (int8Conv) {
                const Conv2dShape& c = *int8Conv;
                point.flops = c.flops();
                point.bytes = 1.0 * (c.n * c.c * c.h * c.w + c.f * c.c * c.kh * c.kw) +
                              4.0 * c.n * c.f * c.oh * c.ow;
                point.msMedian =
                    dnnl->int8ConvMs(c, result.threads, request.repeat, request.minRepeatMs);
            }
            if ((!shape && !conv && !int8 && !int8Conv) || point.msMedian <= 0) {
                point.failed = true;
                point.msMedian = 0;
                point.message = shape || conv || int8 || int8Conv
                                    ? "the library refused this size"
                                    : "the script cannot be evaluated at this size";
            } else {
                point.intensity = arithmeticIntensity(point.flops, point.bytes);
                point.msMin = point.msMax = point.msMedian;
                point.gflops = point.flops / (point.msMedian * 1e6);
            }
            ++result.measured;
            emit(point, &key);
        }
    }
    return result;
}

std::string sweepCsv(const SweepResult& result)
{
    std::string out = "variant";
    for (auto& p : result.parameters)
        out += "," + csvField(p);
    out += ",threads,ms_median,ms_min,ms_max,gflops,flops,bytes,intensity,checked,skipped,failed,"
           "message\n";
    for (auto& pt : result.points) {
        out += csvField(pt.variant);
        for (auto v : pt.values)
            out += "," + std::to_string(v);
        out += "," + std::to_string(pt.threads);
        if (pt.measured())
            out += "," + number(pt.msMedian) + "," + number(pt.msMin) + "," + number(pt.msMax) +
                   "," + number(pt.gflops);
        else
            out += ",,,,";
        out += "," + number(pt.flops) + "," + number(pt.bytes) + "," + number(pt.intensity);
        out += std::string(",") + (pt.checked ? "true" : "false") + "," +
               (pt.skipped ? "true" : "false") + "," + (pt.failed ? "true" : "false") + "," +
               csvField(pt.message) + "\n";
    }
    return out;
}

} // namespace loopscope
