// The JSON form of sweep points, the same for `loopscope-cli sweep --json` and the worker's
// "sweep" progress messages and result. Header-only, like VariantRunJson.h, so the core does not
// depend on a JSON library.
#pragma once

#include "codegen/Sweep.h"

#include <nlohmann/json.hpp>

namespace loopscope {

// variant, one field per swept parameter, values [..], threads, reference, skipped, failed,
// checked, cached, message (when set), flops, bytes, intensity, run_ms and, when measured,
// ms_median, ms_min, ms_max, gflops.
inline nlohmann::json sweepPointJson(const SweepPoint& p, const std::vector<std::string>& parameters)
{
    nlohmann::json j = nlohmann::json::object();
    j["variant"] = p.variant;
    for (std::size_t i = 0; i < parameters.size() && i < p.values.size(); ++i)
        j[parameters[i]] = p.values[i];
    j["values"] = p.values;
    j["threads"] = p.threads;
    j["reference"] = p.reference;
    j["skipped"] = p.skipped;
    j["failed"] = p.failed;
    j["checked"] = p.checked;
    j["cached"] = p.cached;
    if (!p.message.empty()) j["message"] = p.message;
    j["flops"] = p.flops;
    j["bytes"] = p.bytes;
    j["intensity"] = p.intensity;
    j["run_ms"] = p.runMs;
    if (p.measured()) {
        j["ms_median"] = p.msMedian;
        j["ms_min"] = p.msMin;
        j["ms_max"] = p.msMax;
        j["gflops"] = p.gflops;
    }
    return j;
}

} // namespace loopscope
