// Whether scheduling for the nearest CPU model LLVM knows is no slower than LLVM's generic model,
// on the CPU this runs on, with its own features either way: what decides the CPU a machine
// that LLVM does not know (a Zen 5, Intel cores after Meteor Lake) gets code for. The same
// variants are compiled once per model and timed in turns (generic, nearest, generic, ...), each
// checked against the reference interpreter first. Also timed: LLVM's own name for this CPU,
// where it has one that differs from the nearest model by CPUID and features.
//
// Usage: loopscope_bench_cpu_model [--threads 2] [--rounds 5] [--samples a,b,...] [--cpus X,Y]
// --cpus names the models to compare (default: generic, the nearest, LLVM's name for this CPU).
#include "Version.h"
#include "ir/Diagnostic.h"
#include "ir/Host.h"
#include "runtime/Benchmark.h"
#include "runtime/LocalRun.h"
#include "runtime/RuntimeJit.h"
#include "runtime/ThreadPool.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace loopscope;

namespace {

std::vector<std::string> split(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read '" + path + "'");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A sample and the variant timed (its last, the fastest hand schedule), at sizes that keep one
// run within tens of milliseconds on two cores.
struct Case {
    const char* sample;
    const char* variant; // empty: the last
    std::map<std::string, std::int64_t> sizes;
};
const Case kCases[] = {
    {"gemm_best", "", {{"M", 1024}, {"N", 1024}, {"K", 1024}}},
    {"opt_gemm", "parallel", {{"M", 1024}, {"N", 1024}, {"K", 1024}}},
    {"matmul_ladder", "", {{"M", 512}, {"N", 512}, {"K", 512}}},
    {"conv2d", "", {}},
    {"conv2d_blocked", "", {}},
    {"softmax", "", {}},
    {"transpose", "", {}},
    {"add_relu", "", {}},
};

} // namespace

int main(int argc, char** argv)
{
    int threads = 2, rounds = 5;
    std::vector<std::string> only, cpus;
    const char* usage =
        "usage: loopscope_bench_cpu_model [--threads 2] [--rounds 5] [--samples a,b,...]\n"
        "                                 [--cpus generic,znver4,...]\n"
        "       loopscope_bench_cpu_model --help | --version\n"
        "\n"
        "Times the samples' fastest variants compiled for LLVM's generic CPU model and for the\n"
        "nearest model it knows to this CPU, with this CPU's features, in turns.\n";
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--help" || a == "-h") {
            std::fputs(usage, stdout);
            return 0;
        }
        if (a == "--version" || a == "-V") {
            std::printf("loopscope_bench_cpu_model " LOOPSCOPE_VERSION_STRING "\n");
            return 0;
        }
        const bool known = a == "--threads" || a == "--rounds" || a == "--samples" || a == "--cpus";
        if (!known || i + 1 >= argc) {
            std::fprintf(stderr, "loopscope_bench_cpu_model: %s '%s'\n\n%s",
                         known ? "a value must follow" : "unknown option", a.c_str(), usage);
            return 2;
        }
        const std::string v = argv[++i];
        try {
            if (a == "--threads")
                threads = std::stoi(v);
            else if (a == "--rounds")
                rounds = std::max(1, std::stoi(v));
            else if (a == "--samples")
                only = split(v);
            else
                cpus = split(v);
        } catch (const std::logic_error&) {
            std::fprintf(stderr, "loopscope_bench_cpu_model: bad value '%s' for %s\n", v.c_str(),
                         a.c_str());
            return 2;
        }
    }

    // The nearest model from CPUID and the features alone, whatever LLVM's own answer.
    const CpuIdentity id = hostCpuIdentity();
    const std::string nearest = nearestKnownCpu(id, hostCpuFeatures());
    const std::string llvmName = hostCpu().llvmName;
    if (cpus.empty()) {
        cpus.push_back("generic");
        if (!nearest.empty() && nearest != "generic") cpus.push_back(nearest);
        if (llvmName != "generic" && llvmName != nearest) cpus.push_back(llvmName);
    }
    std::printf("CPU: %s (%s family 0x%x model 0x%x); LLVM names it %s; nearest by CPUID and "
                "features: %s\n",
                id.brand.c_str(), id.vendor.c_str(), static_cast<unsigned>(id.family),
                static_cast<unsigned>(id.model), llvmName.c_str(),
                nearest.empty() ? "(none)" : nearest.c_str());
    std::printf("threads: %d; rounds: %d, each model timed in turn (median of 5 per turn)\n\n",
                threads, rounds);
    setParallelThreads(threads);

    std::vector<std::unique_ptr<Jit>> jits;
    for (auto& c : cpus)
        jits.push_back(createRuntimeJit(c));

    std::printf("%-16s %-20s", "sample", "variant");
    for (auto& c : cpus)
        std::printf(" %24s", (c + " ms (min-max)").c_str());
    std::printf(" %10s\n", cpus.size() > 1 ? "2nd/1st" : "");
    bool failed = false;
    for (const Case& c : kCases) {
        if (!only.empty() && std::find(only.begin(), only.end(), c.sample) == only.end()) continue;
        const std::string path = std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/" + c.sample + ".py";
        EvalResult r = evaluateScript(readFile(path), c.sizes);
        if (!r.ok) {
            std::printf("%s\n", formatDiagnostic(path, r.error).c_str());
            failed = true;
            continue;
        }
        const Variant* v =
            *c.variant ? r.program.findVariant(c.variant) : &r.program.variants.back();
        if (!v) {
            std::printf("%s: no variant '%s'\n", c.sample, c.variant);
            failed = true;
            continue;
        }
        std::vector<std::unique_ptr<PreparedRun>> runs;
        std::string wrong;
        for (auto& jit : jits) {
            RunConfig config;
            config.jit = jit.get();
            runs.push_back(PreparedRun::prepare(r.program, *v, config));
            runs.back()->run();
            for (auto& out : runs.back()->check())
                if (!out.result.ok) wrong = out.result.firstMismatch + out.result.error;
        }
        if (!wrong.empty()) {
            std::printf("%-16s %-20s WRONG NUMBERS: %s\n", c.sample, v->name.c_str(),
                        wrong.c_str());
            failed = true;
            continue;
        }
        // Rounds of turns; each model's median per round, then the median of those.
        std::vector<std::vector<double>> perRound(runs.size());
        BenchmarkOptions bo;
        bo.repeat = 5;
        bo.minRepeatMs = 50;
        for (int round = 0; round < rounds; ++round) {
            std::vector<std::function<void()>> fns;
            for (auto& run : runs)
                fns.push_back([&run] { run->run(); });
            auto turns = measureInTurns(fns, bo);
            for (std::size_t k = 0; k < runs.size(); ++k)
                perRound[k].push_back(turns[k].median);
        }
        std::printf("%-16s %-20s", c.sample, v->name.c_str());
        std::vector<double> medians;
        for (auto& ms : perRound) {
            Measurement m;
            m.msPerRun = ms;
            summarize(m);
            medians.push_back(m.median);
            char cell[64];
            std::snprintf(cell, sizeof cell, "%.3f (%.3f-%.3f)", m.median, m.min, m.max);
            std::printf(" %24s", cell);
        }
        if (medians.size() > 1) std::printf(" %10.3f", medians[0] / medians[1]);
        std::printf("\n");
        std::fflush(stdout);
    }
    std::printf("\n2nd/1st: the first model's time over the second's (above 1: the second is "
                "faster)\n");
    return failed ? 3 : 0;
}
