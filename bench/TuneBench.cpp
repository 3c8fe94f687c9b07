// The auto-tuner against the reference libraries, in one run: the best schedule found after
// each checkpoint of trials (16, 64, 200 by default) for a 1024^3 float32 matmul (against OpenBLAS
// cblas_sgemm) and a ResNet-18 convolution (1x64x56x56, 64 filters 3x3, pad 1; against oneDNN's
// own choice of algorithm and layout), with its weights as ONNX has them (samples/conv2d.py) and
// in blocks of 16 output channels as model import arranges them (samples/conv2d_blocked.py; oneDNN
// also reorders its weights outside its timed calls) and with its data in blocks of 16 channels
// too, as a model's convolutions run (samples/conv2d_nchwc.py), and for every sample the tuned
// variant against the sample's fastest hand variant. Every contender is timed again at the end in
// turns with its reference (five turns; medians and spreads), the tuned code in the worker process
// as the app runs it, the references in this process. Also: where the tuning time went (steps to a
// callable function, training and prediction per round).
//
// Usage: loopscope_bench_tune [--cases matmul,conv2d,conv2d-blocked,conv2d-nchwc,samples]
//        [--trials 200]
//        [--checkpoints 16,64,200] [--sample-trials 64] [--threads 2] [--seed 1]
#include "Version.h"
#include "runtime/BlasReference.h"
#include "runtime/DnnlReference.h"
#include "runtime/Microbench.h"
#include "runtime/ThreadPool.h"
#include "te/Program.h"
#include "tune/Tuner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

constexpr int kTurns = 5;

std::vector<std::string> split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Spread {
    double median = 0, min = 0, max = 0;
};

Spread spread(std::vector<double> v)
{
    if (v.empty()) return {};
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
}

// Milliseconds of a variant of `script`, measured in the worker (checked first).
double workerMs(Measurer& m, const std::string& script, const std::string& variant,
                const std::map<std::string, std::int64_t>& sets, int threads, double* flops)
{
    protocol::MeasureRequest r = candidateRequest(script, variant, sets, threads);
    r.minRepeatMs = 100;
    r.maxRunMs = 150000; // a naive schedule may take a while: the time limit grows with it
    MeasureOutcome res = m.measure(r);
    if (res.status != MeasureOutcome::Status::Ok) {
        std::printf("    (%s: %s %s)\n", variant.c_str(), statusName(res.status),
                    res.message.c_str());
        return -1;
    }
    if (flops) *flops = res.flops;
    return res.msMedian;
}

struct Contender {
    std::string label;
    std::function<double()> ms; // one measurement (negative: failed)
    double flops = 0;
};

// Each contender measured once per turn, in turns; GFLOPS median, min and max.
std::vector<Spread> inTurns(std::vector<Contender>& contenders)
{
    std::vector<std::vector<double>> gflops(contenders.size());
    for (int t = 0; t < kTurns; ++t) {
        for (std::size_t c = 0; c < contenders.size(); ++c) {
            double ms = contenders[c].ms();
            if (ms > 0) gflops[c].push_back(contenders[c].flops / ms / 1e6);
        }
    }
    std::vector<Spread> out;
    for (auto& g : gflops)
        out.push_back(spread(g));
    return out;
}

struct TuneRun {
    TuneOutcome outcome;
    std::map<int, TuneRecord> bestAt; // checkpoint -> best record after that many trials
    std::map<int, double> secondsAt;  // checkpoint -> wall time
    double seconds = 0;               // the whole run, the best few measured again included
    std::vector<double> roundTrainMs;
};

TuneRun tune(const std::string& script, const std::string& variant,
             const std::map<std::string, std::int64_t>& sets, int trials,
             const std::vector<int>& checkpoints, int threads, std::uint64_t seed,
             Measurer& measurer)
{
    TuneOptions o;
    o.variant = variant;
    o.sets = sets;
    o.trials = trials;
    o.threads = threads;
    o.seed = seed;
    TuneRun run;
    TuneRecord best;
    bool have = false;
    auto t0 = std::chrono::steady_clock::now();
    auto progress = [&](const TuneProgress& p) {
        if (p.phase != TuneProgress::Phase::Measuring || !p.latest) return;
        const TuneRecord& r = *p.latest;
        if (r.ok() && r.checked && (!have || r.msMedian < best.msMedian)) {
            best = r;
            have = true;
        }
        for (int c : checkpoints) {
            if (p.trialsDone == c && have) {
                run.bestAt[c] = best;
                run.secondsAt[c] =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            }
        }
        if (p.trialsDone % 8 == 0 || p.trialsDone == trials)
            std::printf(
                "    trial %3d: best %.1f GFLOPS, %.0f s\n", p.trialsDone, have ? best.gflops : 0.0,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        std::fflush(stdout);
    };
    run.outcome = Tuner(script, o, measurer).run(progress);
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return run;
}

void printTimes(const TuneOutcome& out)
{
    const auto& t = out.times;
    const double n = std::max<std::size_t>(1, out.trials.size());
    const double rounds = std::max(1, t.rounds);
    std::printf("    where the time went: per candidate, steps to a callable function %.1f ms "
                "(the worker's lowering and compiling), measuring in all %.0f ms; per round, "
                "search %.0f ms (lowering and features %.0f ms, %.0f candidates ranked, prediction "
                "%.0f ms), training %.0f ms\n",
                t.compileMs / n, t.measureMs / n, t.searchMs / rounds, t.featureMs / rounds,
                t.candidatesRanked / rounds, t.predictMs / rounds, t.trainMs / rounds);
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> cases{"matmul", "conv2d", "conv2d-blocked", "conv2d-nchwc", "samples"};
    std::vector<int> checkpoints{16, 64, 200};
    int trials = 200, sampleTrials = 64, threads = 2;
    std::uint64_t seed = 1;
    const char* usage =
        "usage: loopscope_bench_tune [--cases matmul,conv2d,conv2d-blocked,conv2d-nchwc,samples]\n"
        "                            [--trials 200]\n"
        "                            [--checkpoints 16,64,200] [--sample-trials 64] [--threads 2]\n"
        "                            [--seed 1]\n"
        "       loopscope_bench_tune --help | --version\n"
        "\n"
        "Tunes a 1024^3 matmul and a ResNet-18 convolution (weights as ONNX has them, in\n"
        "blocks of 16 output channels, and with the data in blocks too) and reports the best after "
        "each checkpoint against\n"
        "OpenBLAS and oneDNN, timed in turns with them; tunes every sample and compares the\n"
        "result with the sample's fastest hand variant.\n";
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(usage, stdout);
            return 0;
        }
        if (a == "--version" || a == "-V") {
            std::printf("loopscope_bench_tune " LOOPSCOPE_VERSION_STRING "\n");
            return 0;
        }
        bool known = a == "--cases" || a == "--trials" || a == "--checkpoints" ||
                     a == "--sample-trials" || a == "--threads" || a == "--seed";
        if (!known || i + 1 >= argc) {
            std::fprintf(stderr, "loopscope_bench_tune: %s '%s'\n\n%s",
                         known ? "a value must follow" : "unknown option", a.c_str(), usage);
            return 2;
        }
        std::string v = argv[++i];
        try {
            if (a == "--cases") cases = split(v);
            if (a == "--trials") trials = std::stoi(v);
            if (a == "--sample-trials") sampleTrials = std::stoi(v);
            if (a == "--threads") threads = std::stoi(v);
            if (a == "--seed") seed = std::stoull(v);
            if (a == "--checkpoints") {
                checkpoints.clear();
                for (auto& c : split(v))
                    checkpoints.push_back(std::stoi(c));
            }
        } catch (const std::logic_error&) {
            std::fprintf(stderr, "loopscope_bench_tune: bad value '%s' for %s\n\n%s", v.c_str(),
                         a.c_str(), usage);
            return 2;
        }
    }
    checkpoints.erase(
        std::remove_if(checkpoints.begin(), checkpoints.end(), [&](int c) { return c > trials; }),
        checkpoints.end());
    std::string worker = findWorkerExecutable("/proc/self/exe");
    if (worker.empty()) worker = LOOPSCOPE_WORKER; // the one built beside this benchmark
    if (worker.empty()) {
        std::fprintf(stderr, "loopscope_bench_tune: no loopscope-worker (set LOOPSCOPE_WORKER)\n");
        return 1;
    }
    WorkerMeasurer measurer(worker);
    MachineInfo machine = measurer.machine();
    std::printf("machine: %s (LLVM %s), %d-bit vectors; %d threads\n", machine.cpu.c_str(),
                machine.llvm.c_str(), machine.vectorBits, threads);
    const std::string samples = std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/";

    // The cases timed against a reference library: the sample each tunes, and what it is.
    struct ReferenceCase {
        const char* sample;
        const char* title;
    };
    const std::map<std::string, ReferenceCase> referenceCases = {
        {"matmul", {"opt_gemm.py", "matmul 1024x1024x1024 float32"}},
        {"conv2d", {"conv2d.py", "conv2d 1x64x56x56, 64 filters 3x3, pad 1"}},
        {"conv2d-blocked",
         {"conv2d_blocked.py",
          "conv2d 1x64x56x56, 64 filters 3x3, pad 1, weights in blocks of 16 output channels"}},
        {"conv2d-nchwc",
         {"conv2d_nchwc.py",
          "conv2d 1x64x56x56, 64 filters 3x3, pad 1, data in blocks of 16 channels (NCHW16c)"}}};
    for (const std::string& c : cases) {
        if (auto known = referenceCases.find(c); known != referenceCases.end()) {
            const bool mm = c == "matmul";
            const std::string script = readText(samples + known->second.sample);
            const std::string start = mm ? "baseline" : "naive";
            std::map<std::string, std::int64_t> sets;
            if (mm) sets = {{"M", 1024}, {"N", 1024}, {"K", 1024}};
            std::printf("\n%s: tuning '%s' for %d trials\n", known->second.title, start.c_str(),
                        trials);
            TuneRun run = tune(script, start, sets, trials, checkpoints, threads, seed, measurer);
            if (!run.outcome.ok) {
                std::printf("    cannot tune: %s\n", run.outcome.error.c_str());
                continue;
            }
            printTimes(run.outcome);
            EvalResult eval = evaluateScript(script, sets);
            const Variant* v = eval.program.findVariant(start);
            std::vector<Contender> contenders;
            // The reference, timed here.
            Contender ref;
            if (mm) {
                const BlasLibrary* blas = BlasLibrary::openblas();
                if (!blas) {
                    std::printf("    OpenBLAS cannot be loaded\n");
                    continue;
                }
                ref.label = blas->label();
                ref.flops = 2.0 * 1024 * 1024 * 1024;
                ref.ms = [blas, threads] {
                    return blas->sgemmMs(1024, 1024, 1024, threads, 3, 100);
                };
            } else {
                const DnnlLibrary* dnnl = DnnlLibrary::load();
                auto shape = conv2dShape(eval.program);
                if (!dnnl || !shape) {
                    std::printf("    oneDNN cannot be loaded\n");
                    continue;
                }
                ref.label = dnnl->label();
                ref.flops = shape->flops();
                Conv2dShape s = *shape;
                ref.ms = [dnnl, s, threads] { return dnnl->convMs(s, threads, 3, 100); };
            }
            contenders.push_back(ref);
            // The matmul's bars: the machine's FMA peak, and the hand schedule with the register
            // block the machine's vector registers hold (gemm_best.py: 8 x 32 with AVX-512's 32
            // registers of 16 floats, 6 x 16 with AVX2's 16 of 8).
            std::size_t bars = 1;
            if (mm) {
                Contender peak;
                peak.label = "FMA peak";
                peak.flops = 2e9;
                peak.ms = [threads] { return 2e9 / 1e6 / measurePeakFlops(threads).gflops; };
                contenders.push_back(peak);
                const bool wide = machine.vectorBits >= 512;
                std::map<std::string, std::int64_t> hand = sets;
                hand["mr"] = wide ? 8 : 6;
                hand["nr"] = wide ? 32 : 16;
                Contender best;
                best.label =
                    "gemm_best.py " + std::to_string(hand["mr"]) + "x" + std::to_string(hand["nr"]);
                best.flops = 2.0 * 1024 * 1024 * 1024;
                const std::string handScript = readText(samples + "gemm_best.py");
                best.ms = [&measurer, handScript, hand, threads] {
                    return workerMs(measurer, handScript, "register blocked", hand, threads,
                                    nullptr);
                };
                contenders.push_back(best);
                bars = 3;
            }
            for (auto& [checkpoint, record] : run.bestAt) {
                Contender t;
                t.label = "tuned, best of " + std::to_string(checkpoint);
                std::string candidate =
                    scriptWithVariant(script, *v, "tuned", record.statements, true);
                t.flops = record.flops;
                t.ms = [&measurer, candidate, sets, threads] {
                    return workerMs(measurer, candidate, "tuned", sets, threads, nullptr);
                };
                contenders.push_back(t);
            }
            // The run's answer: its best after the best few were measured again in turns.
            std::vector<double> walls;
            for (auto& [checkpoint, seconds] : run.secondsAt)
                walls.push_back(seconds);
            if (run.outcome.haveBest) {
                Contender t;
                t.label = "tuned, its answer";
                std::string candidate =
                    scriptWithVariant(script, *v, "tuned", run.outcome.bestStatements, true);
                t.flops = run.outcome.best.flops;
                t.ms = [&measurer, candidate, sets, threads] {
                    return workerMs(measurer, candidate, "tuned", sets, threads, nullptr);
                };
                contenders.push_back(t);
                walls.push_back(run.seconds);
            }
            std::vector<Spread> g = inTurns(contenders);
            std::printf("    %-28s %8s %18s %8s %8s %10s\n", "contender", "GFLOPS", "(min-max)",
                        "ratio", mm ? "of peak" : "", "wall s");
            for (std::size_t i = 0; i < contenders.size(); ++i) {
                const double wall = i >= bars && i - bars < walls.size() ? walls[i - bars] : 0;
                std::printf("    %-28s %8.1f %8.1f-%-9.1f %7.2fx", contenders[i].label.c_str(),
                            g[i].median, g[i].min, g[i].max,
                            g[0].median > 0 ? g[i].median / g[0].median : 0.0);
                if (mm)
                    std::printf(" %7.2fx", g[1].median > 0 ? g[i].median / g[1].median : 0.0);
                else
                    std::printf(" %8s", "");
                if (i >= bars)
                    std::printf(" %10.0f\n", wall);
                else
                    std::printf("\n");
            }
            std::fflush(stdout);
        } else if (c == "samples") {
            std::printf("\nsamples: each tuned for %d trials from its first variant, against its "
                        "fastest hand variant\n",
                        sampleTrials);
            for (const char* name :
                 {"opt_gemm", "matmul_ladder", "gemm_best", "add_relu", "transpose", "softmax",
                  "conv2d", "conv2d_blocked", "conv2d_nchwc", "batch_matmul"}) {
                const std::string script = readText(samples + name + ".py");
                EvalResult eval = evaluateScript(script);
                if (!eval.ok || eval.program.variants.empty()) continue;
                const Variant& first = eval.program.variants.front();
                std::printf("  %s: tuning '%s'\n", name, first.name.c_str());
                TuneRun run = tune(script, first.name, {}, sampleTrials, {sampleTrials}, threads,
                                   seed, measurer);
                if (!run.outcome.ok || !run.outcome.haveBest) {
                    std::printf("    cannot tune: %s\n", run.outcome.error.c_str());
                    continue;
                }
                // The fastest hand variant, by one measurement each.
                std::string fastest;
                double fastestMs = 0, flops = 0;
                for (auto& v : eval.program.variants) {
                    double f = 0;
                    double ms = workerMs(measurer, script, v.name, {}, threads, &f);
                    if (ms > 0 && (fastest.empty() || ms < fastestMs)) {
                        fastest = v.name;
                        fastestMs = ms;
                        flops = f;
                    }
                }
                std::string candidate =
                    scriptWithVariant(script, first, "tuned", run.outcome.bestStatements, true);
                std::vector<Contender> contenders(2);
                contenders[0].label = "hand: " + fastest;
                contenders[0].ms = [&, fastest] {
                    return workerMs(measurer, script, fastest, {}, threads, nullptr);
                };
                contenders[1].label = "tuned";
                contenders[1].ms = [&, candidate] {
                    return workerMs(measurer, candidate, "tuned", {}, threads, nullptr);
                };
                // GFLOPS, or for a program without arithmetic, runs per second.
                for (auto& ct : contenders)
                    ct.flops = flops > 0 ? flops : 1e6;
                std::vector<Spread> g = inTurns(contenders);
                const char* unit = flops > 0 ? "GFLOPS" : "runs/ms";
                for (std::size_t i = 0; i < 2; ++i)
                    std::printf("    %-34s %8.2f %s (%.2f-%.2f) %6.2fx\n",
                                contenders[i].label.c_str(), g[i].median, unit, g[i].min, g[i].max,
                                g[0].median > 0 ? g[i].median / g[0].median : 0.0);
                printTimes(run.outcome);
                std::fflush(stdout);
            }
        } else {
            std::fprintf(stderr, "loopscope_bench_tune: unknown case '%s'\n", c.c_str());
            return 2;
        }
    }
    return 0;
}
