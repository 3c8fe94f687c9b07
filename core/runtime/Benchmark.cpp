#include "runtime/Benchmark.h"

#include <algorithm>
#include <chrono>

namespace loopscope {

namespace {

double timeRuns(const std::function<void()>& run, int number)
{
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < number; ++i)
        run();
    auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

} // namespace

Measurement measure(const std::function<void()>& run, const BenchmarkOptions& options,
                    const std::function<bool()>& cancelled)
{
    Measurement m;
    int number = std::max(1, options.number);
    double total = 0;
    for (int r = 0; r < std::max(1, options.repeat); ++r) {
        if (cancelled && cancelled()) break;
        double ms = timeRuns(run, number);
        // Raise `number` until one measurement lasts long enough to trust (as TVM does).
        while (ms < options.minRepeatMs && (!cancelled || !cancelled())) {
            double perRun = std::max(ms / number, 1e-6);
            int next = static_cast<int>(
                std::min(1e9, std::max(number * 1.618, options.minRepeatMs / perRun * 1.1)));
            number = std::max(number + 1, next);
            ms = timeRuns(run, number);
        }
        m.msPerRun.push_back(ms / number);
        total += ms;
        if (options.maxTotalMs > 0 && total > options.maxTotalMs) break;
    }
    m.number = number;
    summarize(m);
    return m;
}

std::vector<Measurement> measureInTurns(const std::vector<std::function<void()>>& runs,
                                        const BenchmarkOptions& options,
                                        const std::function<void(int turns)>& turnDone)
{
    std::vector<Measurement> out(runs.size());
    BenchmarkOptions one = options;
    one.repeat = 1;
    one.number = std::max(1, options.number);
    for (auto& m : out)
        m.number = one.number;
    double total = 0;
    for (int turn = 0; turn < std::max(1, options.repeat); ++turn) {
        for (std::size_t i = 0; i < runs.size(); ++i) {
            one.number = out[i].number;
            Measurement step = measure(runs[i], one);
            out[i].msPerRun.push_back(step.msPerRun.front());
            out[i].number = step.number;
            total += step.msPerRun.front() * step.number;
        }
        if (turnDone) turnDone(turn + 1);
        if (options.maxTotalMs > 0 && total > options.maxTotalMs) break;
    }
    for (auto& m : out)
        summarize(m);
    return out;
}

double medianOf(std::vector<double> ms)
{
    if (ms.empty()) return 0;
    std::sort(ms.begin(), ms.end());
    const std::size_t n = ms.size();
    return n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
}

void summarize(Measurement& m)
{
    if (m.msPerRun.empty()) return;
    m.median = medianOf(m.msPerRun);
    m.min = *std::min_element(m.msPerRun.begin(), m.msPerRun.end());
    m.max = *std::max_element(m.msPerRun.begin(), m.msPerRun.end());
}

} // namespace loopscope
