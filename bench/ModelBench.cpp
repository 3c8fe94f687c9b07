// A whole model end to end, in one run: ResNet-18 at 224x224 (batch 1, float32; written with
// seeded weights by `model make`), with the default schedules and with the tuned ones (the
// project file's tuning logs, made with --tune-trials), against the sum of oneDNN's per-layer
// convolution times and OpenBLAS's for the dense layer, and against PyTorch's CPU run of
// torchvision's ResNet-18 when python3 can import torch (optional: the bench says when it
// cannot). The contenders are timed in turns (five by default), each turn a median of runs;
// medians and spreads over the turns. Also: import and compile time, peak memory after a run,
// and each convolution beside oneDNN's.
//
// Usage: loopscope_bench_model [--dir D] [--tune-trials N] [--threads 2] [--turns 5]
//        [--runs 20] [--no-torch]
#include "Version.h"
#include "codegen/Codegen.h"
#include "graph/FuseOps.h"
#include "graph/ModelMaker.h"
#include "graph/ModelRun.h"
#include "graph/OnnxImport.h"
#include "graph/Passes.h"
#include "graph/Project.h"
#include "runtime/Benchmark.h"
#include "runtime/BlasReference.h"
#include "runtime/DnnlReference.h"
#include "runtime/ThreadPool.h"
#include "tune/Measure.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <sys/resource.h>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

struct Options {
    std::string dir = LOOPSCOPE_BENCH_DATA;
    int tuneTrials = 0;
    int threads = 2;
    int turns = 5;
    int runs = 20;
    bool torch = true;
};

const char* kUsage =
    "usage: loopscope_bench_model [--dir D] [--tune-trials N] [--threads 2] [--turns 5]\n"
    "                             [--runs 20] [--no-torch]\n"
    "       loopscope_bench_model --help | --version\n\n"
    "ResNet-18 (224x224, batch 1) end to end: default and tuned schedules against the sum of\n"
    "oneDNN's per-layer times and PyTorch. --dir holds the model, its project file and its\n"
    "tuning logs; --tune-trials N first tunes every task with N trials (loopscope-cli model "
    "tune).\n";

double msSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

struct Spread {
    double median = 0, min = 0, max = 0;
    bool any = false;
};

Spread spread(std::vector<double> v)
{
    if (v.empty()) return {};
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back(), true};
}

double peakRssMb()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// The convolution a task is anchored on, as oneDNN takes it (groups of 1, no dilation).
std::optional<Conv2dShape> convOf(const Graph& g, const Task& t)
{
    const GraphNode& n = g.nodes[static_cast<std::size_t>(t.nodes.front())];
    if (n.op != "Conv" || n.intAttr("group", 1) != 1) return std::nullopt;
    for (auto d : n.intsAttr("dilations", {1, 1}))
        if (d != 1) return std::nullopt;
    const auto& x = g.tensor(n.inputs[0]).shape;
    const auto& w = g.tensor(n.inputs[1]).shape;
    const auto& y = g.tensor(n.outputs[0]).shape;
    const auto pads = n.intsAttr("pads", {0, 0, 0, 0});
    const auto strides = n.intsAttr("strides", {1, 1});
    if (x.size() != 4 || pads[0] != pads[2] || pads[1] != pads[3]) return std::nullopt;
    Conv2dShape s;
    s.n = x[0];
    s.c = x[1];
    s.h = x[2];
    s.w = x[3];
    s.f = y[1];
    s.kh = w[2];
    s.kw = w[3];
    s.strideH = strides[0];
    s.strideW = strides[1];
    s.padH = pads[0];
    s.padW = pads[1];
    s.oh = y[2];
    s.ow = y[3];
    return s;
}

// PyTorch's median milliseconds over `runs` runs of torchvision's ResNet-18, or negative.
double torchMs(const std::string& python, int threads, int runs)
{
    const std::string script =
        "import time, torch, torchvision\n"
        "torch.set_num_threads(" +
        std::to_string(threads) +
        ")\n"
        "m = torchvision.models.resnet18().eval()\n"
        "x = torch.randn(1, 3, 224, 224)\n"
        "with torch.no_grad():\n"
        "    for _ in range(5): m(x)\n"
        "    t = []\n"
        "    for _ in range(" +
        std::to_string(runs) +
        "):\n"
        "        s = time.perf_counter(); m(x); t.append((time.perf_counter() - s) * 1e3)\n"
        "t.sort(); print(t[len(t) // 2])\n";
    const fs::path file = fs::temp_directory_path() / "loopscope-bench-torch.py";
    {
        FILE* f = std::fopen(file.c_str(), "w");
        if (!f) return -1;
        std::fputs(script.c_str(), f);
        std::fclose(f);
    }
    FILE* p = popen((python + " '" + file.string() + "' 2>/dev/null").c_str(), "r");
    if (!p) return -1;
    char line[128] = {0};
    const bool got = std::fgets(line, sizeof line, p) != nullptr;
    const int status = pclose(p);
    if (!got || status != 0) return -1;
    return std::atof(line);
}

// The first Python that imports torch and torchvision: the one on PATH, else Debian's (a
// python3 of a version manager on PATH may not see Debian's python3-torch).
std::string torchPython()
{
    for (const char* python : {"python3", "/usr/bin/python3"})
        if (std::system((std::string(python) + " -c 'import torch, torchvision' >/dev/null 2>&1")
                            .c_str()) == 0)
            return python;
    return {};
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto number = [&]() {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s needs a value\n\n%s", a.c_str(), kUsage);
                std::exit(2);
            }
            return std::atoi(argv[++i]);
        };
        if (a == "--help" || a == "-h") {
            std::printf("%s", kUsage);
            return 0;
        } else if (a == "--version" || a == "-V") {
            std::printf("loopscope_bench_model " LOOPSCOPE_VERSION_STRING "\n");
            return 0;
        } else if (a == "--dir" && i + 1 < argc) {
            o.dir = argv[++i];
        } else if (a == "--tune-trials") {
            o.tuneTrials = number();
        } else if (a == "--threads") {
            o.threads = std::max(1, number());
        } else if (a == "--turns") {
            o.turns = std::max(1, number());
        } else if (a == "--runs") {
            o.runs = std::max(1, number());
        } else if (a == "--no-torch") {
            o.torch = false;
        } else {
            std::fprintf(stderr, "unknown option '%s'\n\n%s", a.c_str(), kUsage);
            return 2;
        }
    }
    setParallelThreads(o.threads);
    fs::create_directories(o.dir);
    const std::string modelPath = (fs::path(o.dir) / "resnet18.onnx").string();
    std::string why;
    if (!fs::exists(modelPath) && !makeModel("resnet18", modelPath, 1, &why)) {
        std::fprintf(stderr, "cannot write %s: %s\n", modelPath.c_str(), why.c_str());
        return 1;
    }
    std::printf("ResNet-18, 1x3x224x224 float32, %d threads, CPU %s\n", o.threads,
                hostTarget().cpu.c_str());

    if (o.tuneTrials > 0) {
        const std::string command = std::string("'") + LOOPSCOPE_CLI + "' model tune '" +
                                    modelPath + "' --trials " + std::to_string(o.tuneTrials) +
                                    " --threads " + std::to_string(o.threads);
        std::printf("tuning every task, %d trials each: %s\n", o.tuneTrials, command.c_str());
        std::fflush(stdout);
        if (std::system(command.c_str()) != 0) std::printf("(the tuning did not finish)\n");
    }

    // Import, passes and compilation, as `model run` does them.
    auto t0 = std::chrono::steady_clock::now();
    ImportResult imported = importOnnx(modelPath);
    if (!imported.ok) {
        std::fprintf(stderr, "%s: %s\n", modelPath.c_str(), imported.error.c_str());
        return 1;
    }
    const double importMs = msSince(t0);
    t0 = std::chrono::steady_clock::now();
    optimizeGraph(imported.graph);
    const double passesMs = msSince(t0);
    const Graph& g = imported.graph;
    auto model = CompiledModel::compile(g, {}, &why);
    if (!model) {
        std::fprintf(stderr, "%s\n", why.c_str());
        return 1;
    }
    model->fillInputs(1);
    model->run();
    const double peakMb = peakRssMb();
    std::printf("import %.0f ms, graph passes %.0f ms, compile %.0f ms (%zu tasks): %.2f s to a "
                "runnable model\n",
                importMs, passesMs, model->compileMs(), model->tasks().size(),
                (importMs + passesMs + model->compileMs()) / 1e3);
    const auto& cs = model->compileStats();
    std::printf("compile: %d kernels (one per workload): task scripts %.0f ms, evaluate %.0f ms, "
                "lower %.0f ms, LLVM %.0f ms on %d threads\n",
                cs.kernels, cs.scriptMs, cs.evaluateMs, cs.lowerMs, cs.codegenMs, cs.threads);
    std::printf("memory: %.1f MB of buffers (intermediates share %.1f MB for %.1f); peak RSS "
                "%.0f MB after compiling and one run\n",
                static_cast<double>(model->bufferBytes()) / 1e6,
                static_cast<double>(model->intermediateBytes()) / 1e6,
                static_cast<double>(model->unplannedIntermediateBytes()) / 1e6, peakMb);

    std::unique_ptr<CompiledModel> tuned;
    {
        ModelProject project;
        std::vector<std::string> notes;
        if (readProject(projectPathFor(modelPath), &project, &why) && !project.tasks.empty()) {
            ModelOptions options = resolveProject(project, g, fuseOps(g), &notes);
            tuned = CompiledModel::compile(g, options, &why);
            if (tuned) {
                tuned->fillInputs(1);
                std::printf(
                    "tuned: %zu of %zu workloads from %s\n", options.scripts.size(),
                    [&] {
                        std::set<std::string> w;
                        for (auto& t : tuned->tasks())
                            w.insert(t.task.workload);
                        return w.size();
                    }(),
                    projectPathFor(modelPath).c_str());
            }
        }
        for (auto& n : notes)
            std::printf("  note: %s\n", n.c_str());
        if (!tuned) std::printf("tuned: none (no project file; run with --tune-trials N)\n");
    }

    // The references: oneDNN per convolution, OpenBLAS for the dense layer, summed over the
    // model's layers (pools and the additions oneDNN would fuse are not counted).
    const DnnlLibrary* dnnl = DnnlLibrary::load();
    const BlasLibrary* blas = BlasLibrary::openblas();
    const std::string python = o.torch ? torchPython() : std::string();
    const bool haveTorch = !python.empty();
    if (!dnnl) std::printf("oneDNN: not available (libdnnl.so.2)\n");
    if (o.torch && !haveTorch)
        std::printf("PyTorch: not available (python3 cannot import torch)\n");
    std::vector<std::pair<const CompiledTask*, Conv2dShape>> convs;
    std::vector<const CompiledTask*> dense;
    for (auto& t : model->tasks()) {
        if (auto s = convOf(g, t.task))
            convs.emplace_back(&t, *s);
        else if (t.task.anchor == "Gemm")
            dense.push_back(&t);
    }
    auto referenceMs = [&](bool perLayer, std::map<const CompiledTask*, double>* each) {
        double sum = 0;
        std::map<std::string, double> byWorkload;
        for (auto& [t, s] : convs) {
            auto it = byWorkload.find(t->task.workload);
            double ms = it != byWorkload.end() ? it->second
                                               : dnnl->convMs(s, o.threads, 5, perLayer ? 50 : 20);
            byWorkload[t->task.workload] = ms;
            if (each) (*each)[t] = ms;
            sum += ms;
        }
        for (auto* t : dense) {
            const auto& w =
                g.tensor(g.nodes[static_cast<std::size_t>(t->task.nodes.front())].inputs[1]).shape;
            const double ms = blas ? blas->sgemmMs(1, static_cast<int>(w[0]),
                                                   static_cast<int>(w[1]), o.threads, 5, 20)
                                   : 0;
            if (each) (*each)[t] = ms;
            sum += ms;
        }
        return sum;
    };

    struct Contender {
        std::string label;
        std::function<double()> ms;
        std::vector<double> turns;
    };
    BenchmarkOptions b;
    b.repeat = o.runs;
    b.minRepeatMs = 0;
    std::vector<Contender> contenders;
    contenders.push_back({"Loopscope, default schedules",
                          [&] { return measure([&] { model->run(); }, b).median; },
                          {}});
    if (tuned)
        contenders.push_back({"Loopscope, tuned schedules",
                              [&] { return measure([&] { tuned->run(); }, b).median; },
                              {}});
    if (dnnl)
        contenders.push_back(
            {"oneDNN per layer (sum)", [&] { return referenceMs(false, nullptr); }, {}});
    if (haveTorch)
        contenders.push_back(
            {"PyTorch 1.13 (torchvision)", [&] { return torchMs(python, o.threads, o.runs); }, {}});
    for (int turn = 0; turn < o.turns; ++turn) {
        for (auto& c : contenders) {
            const double ms = c.ms();
            if (ms > 0) c.turns.push_back(ms);
        }
        std::fprintf(stderr, "turn %d of %d done\n", turn + 1, o.turns);
    }
    std::map<std::string, Spread> result;
    for (auto& c : contenders)
        result[c.label] = spread(c.turns);
    const Spread torch = haveTorch ? result["PyTorch 1.13 (torchvision)"] : Spread{};
    const Spread onednn = dnnl ? result["oneDNN per layer (sum)"] : Spread{};
    std::printf("\n%-30s %10s %17s %12s %12s\n", "end to end", "median ms", "(min-max)",
                "PyTorch/it", "oneDNN/it");
    for (auto& c : contenders) {
        const Spread& s = result[c.label];
        if (!s.any) {
            std::printf("%-30s %10s\n", c.label.c_str(), "failed");
            continue;
        }
        char range[64];
        std::snprintf(range, sizeof range, "(%.2f-%.2f)", s.min, s.max);
        std::printf("%-30s %10.2f %17s", c.label.c_str(), s.median, range);
        if (torch.any)
            std::printf(" %11.2fx", torch.median / s.median);
        else
            std::printf(" %12s", "-");
        if (onednn.any) std::printf(" %11.2fx", onednn.median / s.median);
        std::printf("\n");
    }
    std::printf("(ratios above 1 mean the row is faster than the reference)\n");

    // Each convolution beside oneDNN's, the default and tuned schedules.
    if (dnnl) {
        std::map<const CompiledTask*, double> ref;
        referenceMs(true, &ref);
        BenchmarkOptions per;
        per.repeat = 7;
        per.minRepeatMs = 20;
        model->run();
        std::vector<double> ours(model->tasks().size()), theirs(model->tasks().size(), -1);
        for (std::size_t i = 0; i < model->tasks().size(); ++i)
            ours[i] = measure([&] { model->runTask(i); }, per).median;
        std::vector<double> tunedMs(model->tasks().size(), -1);
        if (tuned) {
            tuned->run();
            for (std::size_t i = 0; i < tuned->tasks().size(); ++i)
                tunedMs[i] = measure([&] { tuned->runTask(i); }, per).median;
        }
        std::printf("\n%-20s %-26s %9s %9s %9s %8s %8s\n", "task", "convolution", "default",
                    "tuned", "oneDNN", "def/dnn", "tun/dnn");
        std::set<std::string> shown;
        for (std::size_t i = 0; i < model->tasks().size(); ++i) {
            const CompiledTask& t = model->tasks()[i];
            auto it = ref.find(&t);
            if (it == ref.end() || !shown.insert(t.task.workload).second) continue;
            std::string shape = "-";
            for (auto& [ct, s] : convs)
                if (ct == &t) {
                    char buf[64];
                    std::snprintf(buf, sizeof buf, "%lldx%lld %lldx%lld/%lld s%lld",
                                  static_cast<long long>(s.c), static_cast<long long>(s.h),
                                  static_cast<long long>(s.f), static_cast<long long>(s.kh),
                                  static_cast<long long>(s.kw), static_cast<long long>(s.strideH));
                    shape = buf;
                }
            std::printf("%-20s %-26s %9.3f %9.3f %9.3f %7.2fx %7.2fx\n", t.task.name.c_str(),
                        shape.c_str(), ours[i], tunedMs[i], it->second, it->second / ours[i],
                        tunedMs[i] > 0 ? it->second / tunedMs[i] : 0.0);
        }
        std::printf("(x: oneDNN's time over ours; above 1, ours is faster)\n");
    }
    return 0;
}
