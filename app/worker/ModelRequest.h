// The worker's "model" command: an ONNX model imported, its graph passes run, every task compiled
// with the schedules its project file names, run on seeded inputs, checked against the reference
// interpreter task by task and end to end, and timed: what the window's model view shows. In the
// worker, so that a model whose code crashes costs a restart of the worker, never the window.
//
// Request: {model (a path), run (true: false answers with the graph and tasks only), schedules (a
// project file; "" for the one beside the model, "none"
//   for the default schedules), shapes {input: [dims]}, check (true), repeat (10), threads (0:
//   all), seed (1)}.
// Progress: phase "importing", "compiling", "checking" or "timing", fraction.
// Result: status "ok": model, project (the file used, "" for none), import_ms, notes, graph
//   {nodes [{name, op, inputs [tensor], outputs [{name, shape}], task (index, -1 for a view)}],
//   inputs [{name, shape}], outputs [name]}, and tasks, in the order they run: [{name, workload,
//   anchor, nodes [node names], weight, output, gflop, script (its default TE script), source,
//   and from the project file: script_file, log_file, variant}]. With run: compile_ms,
//   buffer_bytes, threads, median_ms, min_ms, max_ms, checked (true when every task and output
//   matched), first_wrong_task (a name, when one did not), outputs [{name, ok, max_abs_error,
//   max_rel_error, first}], and per task: variant, ms, share (of the sum of the tasks' times),
//   gflops, ok, max_abs_error, max_rel_error, first.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>

namespace loopscope::worker {

// Throws std::invalid_argument for a request without "model"; a model that cannot be imported
// or compiled is an error result (kind "document") that says why.
nlohmann::json
runModelRequest(const nlohmann::json& request,
                const std::function<void(const std::string& phase, double)>& progress);

// The worker's "model_choice" command: a task's schedule choice written to the model's project
// file (made when there is none). Request: {model, schedules (the project file; "" for the one
// beside the model), workload, name, and any of script (a path), variant, log (a path; "" to
// drop it)}, or reset: true to drop the task's choice. Result: status "ok", project.
nlohmann::json runModelChoiceRequest(const nlohmann::json& request);

} // namespace loopscope::worker
