// Time from script text to the TIR of every variant: evaluate the script, then lower and print
// each variant (what the desktop app does on every keystroke); and from text to PTX for one GPU
// variant (evaluate, lower, split into kernels, LLVM's NVPTX back end).
#include "export/Export.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "te/Program.h"

#include "BenchMain.h"

#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>

using namespace loopscope;

namespace {

std::string readSample(const char* name)
{
    std::ifstream in(std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/" + name);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void evaluateAndLowerAll(benchmark::State& state, const char* sample)
{
    std::string text = readSample(sample);
    for (auto _ : state) {
        EvalResult r = evaluateScript(text);
        if (!r.ok) {
            state.SkipWithError(r.error.message.c_str());
            return;
        }
        std::size_t chars = 0;
        for (auto& v : r.program.variants)
            chars += printTVMScript(lowerSchedule(v.schedule(), v.args).func).size();
        benchmark::DoNotOptimize(chars);
    }
}

void evaluateOnly(benchmark::State& state, const char* sample)
{
    std::string text = readSample(sample);
    for (auto _ : state)
        benchmark::DoNotOptimize(evaluateScript(text).ok);
}

void textToPtx(benchmark::State& state, const char* sample, const char* variant)
{
    std::string text = readSample(sample);
    ExportOptions options;
    options.format = "ptx";
    for (auto _ : state) {
        EvalResult r = evaluateScript(text);
        const Variant* v = r.ok ? r.program.findVariant(variant) : nullptr;
        if (!v) {
            state.SkipWithError("the sample or its variant does not evaluate");
            return;
        }
        benchmark::DoNotOptimize(exportVariant(text, r.program, *v, options).text.size());
    }
}

} // namespace

BENCHMARK_CAPTURE(textToPtx, matmul_cuda_unrolled, "gpu/matmul_cuda.py", "unrolled")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(textToPtx, opt_conv_cuda, "gpu/opt_conv_cuda.py", "how-to")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(evaluateAndLowerAll, opt_gemm, "opt_gemm.py")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(evaluateAndLowerAll, matmul_ladder, "matmul_ladder.py")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(evaluateAndLowerAll, conv2d, "conv2d.py")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(evaluateOnly, opt_gemm, "opt_gemm.py")->Unit(benchmark::kMillisecond);

int main(int argc, char** argv)
{
    return loopscope::bench::benchmarkMain(
        argc, argv, "loopscope_bench_lower",
        "Times script text to the TIR of every variant of the samples: evaluate, lower, print.");
}
