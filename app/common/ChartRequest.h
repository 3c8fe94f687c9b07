// What `loopscope-cli sweep --chart` hands the chart program (loopscope-chart) on its standard
// input: one JSON document with the file to write, the kind of chart, the machine's reference
// lines and the sweep's points in their `sweep --json` form. The CLI itself links no Qt: drawing
// is the chart program's alone, so every other command starts without loading Qt.
#pragma once

#include "protocol/Json.h"
#include "protocol/Messages.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace loopscope {

struct ChartRequest {
    std::string path;           // .png or .svg
    std::string kind = "lines"; // lines | bars | roofline
    double peakGflops = 0;      // 0: no peak line
    double bandwidthGbs = 0;    // 0: no memory roof
    protocol::SweepReply sweep; // its parameters, reference label (`blas`) and points
};

constexpr int kChartRequestVersion = 1;

// The request's own fields, and the points as the protocol's codec writes them.
inline nlohmann::json chartRequestJson(const ChartRequest& r)
{
    nlohmann::json points = nlohmann::json::array();
    for (const protocol::SweepPoint& p : r.sweep.points)
        points.push_back(protocol::toJson(p, r.sweep.parameters));
    return {{"chart_request", kChartRequestVersion},
            {"path", r.path},
            {"kind", r.kind},
            {"peak_gflops", r.peakGflops},
            {"bandwidth_gbs", r.bandwidthGbs},
            {"reference_label", r.sweep.blas},
            {"parameters", r.sweep.parameters},
            {"points", points}};
}

// nullopt with `why` set when the document is not a chart request of this version.
inline std::optional<ChartRequest> chartRequestFromJson(const nlohmann::json& j, std::string* why)
{
    auto fail = [&](std::string text) {
        if (why) *why = std::move(text);
        return std::nullopt;
    };
    if (!j.is_object() || !j.contains("chart_request")) return fail("not a chart request");
    if (j["chart_request"] != kChartRequestVersion)
        return fail("a chart request of version " + j["chart_request"].dump() +
                    "; this program reads version " + std::to_string(kChartRequestVersion));
    ChartRequest r;
    auto text = [&](const char* key, std::string* to) {
        if (auto it = j.find(key); it != j.end() && it->is_string()) *to = it->get<std::string>();
    };
    auto number = [&](const char* key, double* to) {
        if (auto it = j.find(key); it != j.end() && it->is_number()) *to = it->get<double>();
    };
    text("path", &r.path);
    text("kind", &r.kind);
    text("reference_label", &r.sweep.blas);
    number("peak_gflops", &r.peakGflops);
    number("bandwidth_gbs", &r.bandwidthGbs);
    if (r.path.empty()) return fail("a chart request with no path");
    if (auto it = j.find("parameters"); it != j.end() && it->is_array())
        for (auto& p : *it)
            if (p.is_string()) r.sweep.parameters.push_back(p.get<std::string>());
    if (auto it = j.find("points"); it != j.end() && it->is_array()) {
        for (auto& p : *it) {
            std::optional<protocol::SweepPoint> point = protocol::sweepPointFromJson(p);
            if (!point)
                return fail("point " + std::to_string(r.sweep.points.size() + 1) +
                            " is not a sweep point");
            r.sweep.points.push_back(std::move(*point));
        }
    }
    return r;
}

} // namespace loopscope
