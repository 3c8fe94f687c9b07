// Tuning options small enough for a test: a few trials in batches of 4, a short search, one
// thread, the best measured again once.
#pragma once

#include "tune/Tuner.h"

namespace loopscope::testing {

inline TuneOptions quickTuning(int trials)
{
    TuneOptions o;
    o.trials = trials;
    o.batch = 4;
    o.population = 64;
    o.generations = 2;
    o.remeasureTop = 1;
    o.threads = 1;
    return o;
}

} // namespace loopscope::testing
