// The protocol's messages as JSON values, for the programs that compose JSON of their own around
// them (the command-line tool's --json output, the chart request). The same functions the codec
// (protocol/Codec.h) writes its lines with, so a key is spelled once. Includes nlohmann's JSON:
// only executables that speak JSON include this header, never the window's widgets.
#pragma once

#include "protocol/Messages.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace loopscope::protocol {

// A measurement's facts: lower_ms, compile_ms, flops, run_ms, checked, too_slow, check, the
// timing and, when set, variant, step, steps, threads, parameters, notes and what was wrong
// (without "status" and "id").
nlohmann::json toJson(const MeasureReply& reply);
// The outputs' checks: [{tensor, ok, elements, max_abs_error, max_rel_error, ...}].
nlohmann::json toJson(const std::vector<CheckedOutput>& checks);
// A profile's facts: method, threads, runs, seconds, samples, in_kernel, lost, tir, profile_ms,
// line_share, loop_share, instructions, counters or counters_unavailable; or {error}.
nlohmann::json toJson(const StepProfile& profile);

// A machine: cpu, cpu_name, host, vector_bits, threads and, where known, features and llvm.
nlohmann::json toJson(const Machine& machine);
// Throws ProtocolError naming a field of another type or out of range. Reads the older spelling
// of a tuning record's machine too ("cores" for threads).
Machine machineFromJson(const nlohmann::json& j);

nlohmann::json toJson(const SweepPoint& point, const std::vector<std::string>& parameters);
// Nullopt when the value is not an object with a variant and values.
std::optional<SweepPoint> sweepPointFromJson(const nlohmann::json& j);

// The chart program's request, with its version (kChartRequestVersion).
nlohmann::json toJson(const ChartRequest& request);
// Nullopt with `why` set when the document is not a chart request of this version. A field of
// another type keeps its default.
std::optional<ChartRequest> chartRequestFromJson(const nlohmann::json& j, std::string* why);

} // namespace loopscope::protocol
