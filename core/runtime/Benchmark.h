// Timing with TVM time_evaluator semantics: `number` runs make one measurement (raised until a
// measurement lasts at least min_repeat_ms), `repeat` measurements, median, minimum and maximum.
#pragma once

#include <functional>
#include <vector>

namespace loopscope {

struct BenchmarkOptions {
    int number = 1;
    int repeat = 5;
    double minRepeatMs = 50.0;
    double maxTotalMs = 0.0; // 0: no limit; otherwise stop adding measurements past it
};

struct Measurement {
    std::vector<double> msPerRun; // one entry per measurement
    int number = 1;               // runs per measurement
    double median = 0, min = 0, max = 0;
};

// `run` executes the function once. `cancelled`, when given, is polled between runs.
Measurement measure(const std::function<void()>& run, const BenchmarkOptions& options,
                    const std::function<bool()>& cancelled = {});

// `options.repeat` measurements of each of `runs`, taken in turns (the first, the second, ...,
// the first again), so that all of them see the same machine. Each one's `number` is found in its
// first turn and kept, as measure() does. `turnDone`, when given, is told how many turns are
// done; after maxTotalMs (if set) of runs, no further turn starts.
std::vector<Measurement> measureInTurns(const std::vector<std::function<void()>>& runs,
                                        const BenchmarkOptions& options,
                                        const std::function<void(int turns)>& turnDone = {});

// Sets median, min and max from msPerRun (left at 0 when it is empty).
void summarize(Measurement& m);
// The median of some times as summarize takes it (the mean of the middle two of an even count);
// 0 for none.
double medianOf(std::vector<double> ms);

} // namespace loopscope
