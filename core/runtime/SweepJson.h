// The JSON form of sweep points, the same for `loopscope-cli sweep --json` and the worker's
// "sweep" progress messages and result. Header-only, like VariantRunJson.h, so the core does not
// depend on a JSON library.
#pragma once

#include "runtime/Sweep.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace loopscope {

// variant, one field per swept parameter, values [..], threads, reference, skipped, failed,
// checked, cached, message (when set), flops, bytes, intensity, run_ms and, when measured,
// ms_median, ms_min, ms_max, gflops.
inline nlohmann::json sweepPointJson(const SweepPoint& p,
                                     const std::vector<std::string>& parameters)
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

// The inverse of sweepPointJson, for points a client hands back (the desktop app keeps what a
// sweep measured and offers it to the next one). Missing fields take their defaults; nullopt when
// the object has no variant or no values.
inline std::optional<SweepPoint> sweepPointFromJson(const nlohmann::json& j)
{
    if (!j.is_object()) return std::nullopt;
    auto variant = j.find("variant");
    auto values = j.find("values");
    if (variant == j.end() || !variant->is_string() || values == j.end() || !values->is_array() ||
        values->empty())
        return std::nullopt;
    SweepPoint p;
    p.variant = variant->get<std::string>();
    for (auto& v : *values) {
        if (!v.is_number_integer()) return std::nullopt;
        p.values.push_back(v.get<std::int64_t>());
    }
    auto number = [&](const char* name) {
        auto it = j.find(name);
        return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
    };
    auto flag = [&](const char* name) {
        auto it = j.find(name);
        return it != j.end() && it->is_boolean() && it->get<bool>();
    };
    p.threads = static_cast<int>(number("threads"));
    p.reference = flag("reference");
    p.skipped = flag("skipped");
    p.failed = flag("failed");
    p.checked = flag("checked");
    p.cached = flag("cached");
    if (auto m = j.find("message"); m != j.end() && m->is_string())
        p.message = m->get<std::string>();
    p.flops = number("flops");
    p.bytes = number("bytes");
    p.intensity = number("intensity");
    p.runMs = number("run_ms");
    p.msMedian = number("ms_median");
    p.msMin = number("ms_min");
    p.msMax = number("ms_max");
    p.gflops = number("gflops");
    return p;
}

} // namespace loopscope
