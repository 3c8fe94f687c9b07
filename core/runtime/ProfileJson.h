// The JSON form of a profile's facts, the same for `loopscope-cli profile --json` and the worker's
// measure replies (their "profile"). Header-only, as VariantRunJson.h: only the executables that
// speak JSON include it.
#pragma once

#include "runtime/Profiler.h"

#include <nlohmann/json.hpp>

namespace loopscope {

// method, threads, runs, seconds, samples, in_kernel, lost.
inline nlohmann::json profileSummaryJson(const LineProfile& p)
{
    return {{"method", p.method},   {"threads", p.threads}, {"runs", p.runs},
            {"seconds", p.seconds}, {"samples", p.samples}, {"in_kernel", p.inKernel},
            {"lost", p.lost}};
}

// Sets "counters" {cycles, instructions, ipc, l1d_misses, llc_misses (those counted)} or, where
// the machine has none, "counters_unavailable" (why).
inline void addCountersJson(const HardwareCounts& counts, nlohmann::json* into)
{
    if (!counts.available) {
        (*into)["counters_unavailable"] = counts.why;
        return;
    }
    nlohmann::json c{
        {"cycles", counts.cycles}, {"instructions", counts.instructions}, {"ipc", counts.ipc()}};
    if (counts.haveL1d) c["l1d_misses"] = counts.l1dMisses;
    if (counts.haveLlc) c["llc_misses"] = counts.llcMisses;
    (*into)["counters"] = c;
}

} // namespace loopscope
