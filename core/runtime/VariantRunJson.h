// The JSON form of a variant run's facts, the same for `loopscope-cli run/bench --json` and the
// worker's "measure" results. Header-only: only the executables that speak JSON include it, so
// the core itself does not depend on a JSON library.
#pragma once

#include "runtime/VariantRun.h"

#include <nlohmann/json.hpp>

namespace loopscope {

// One entry per checked output: tensor, ok, elements, max_abs_error, max_rel_error and, when
// set, first_mismatch, error and skipped.
inline nlohmann::json outputChecksJson(const std::vector<OutputCheck>& checks)
{
    nlohmann::json outputs = nlohmann::json::array();
    for (auto& c : checks) {
        nlohmann::json x{{"tensor", c.tensor},
                         {"ok", c.result.ok},
                         {"elements", c.result.checked},
                         {"max_abs_error", c.result.maxAbsError},
                         {"max_rel_error", c.result.maxRelError}};
        if (!c.result.firstMismatch.empty()) x["first_mismatch"] = c.result.firstMismatch;
        if (!c.result.error.empty()) x["error"] = c.result.error;
        if (!c.result.skipped.empty()) x["skipped"] = c.result.skipped;
        outputs.push_back(x);
    }
    return outputs;
}

// lower_ms, compile_ms, flops, run_ms, checked (true only when a check ran and passed), check
// (when one ran) and, when timed, ms_median, ms_min, ms_max, number, repeat and gflops.
inline nlohmann::json variantRunJson(const VariantRunOutcome& out)
{
    nlohmann::json rec = nlohmann::json::object();
    rec["lower_ms"] = out.lowerMs;
    rec["compile_ms"] = out.compileMs;
    rec["flops"] = out.flops;
    rec["run_ms"] = out.runMs;
    rec["checked"] = out.checked();
    if (out.tooSlow) rec["too_slow"] = true;
    if (out.checkRan) rec["check"] = outputChecksJson(out.checks);
    if (out.timing) {
        rec["ms_median"] = out.timing->median;
        rec["ms_min"] = out.timing->min;
        rec["ms_max"] = out.timing->max;
        rec["number"] = out.timing->number;
        rec["repeat"] = out.timing->msPerRun.size();
        rec["gflops"] = out.gflops();
    }
    return rec;
}

} // namespace loopscope
