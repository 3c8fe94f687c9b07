// The model family's fields, written once for both directions: model (an ONNX model imported,
// compiled, checked and timed), model_choice (a task's schedule written to the project file)
// and what they answer. See FieldCodec.h.
#pragma once

#include "protocol/FieldCodec.h"

namespace loopscope::protocol::detail {

// The inputs' sizes by name: {NAME: [sizes]}.
template <class V>
void shapes(V& v, const char* name, std::map<std::string, std::vector<std::int64_t>>& out)
{
    if constexpr (!V::kReading) {
        v(name, out);
    } else {
        const Fields& f = v.in();
        const json* x = f.find(name);
        if (!x) return;
        if (!x->is_object()) f.fail("\"shapes\" must be an object of NAME: [sizes]");
        for (auto& [input, dims] : x->items()) {
            if (!dims.is_array()) f.fail("shapes: " + input + " must be a list of sizes");
            for (const json& d : dims) {
                if (!d.is_number_integer()) f.fail("shapes: " + input + " must be a list of sizes");
                out[input].push_back(d.get<std::int64_t>());
            }
        }
    }
}

template <class V> void fields(V& v, ModelRequest& r)
{
    v("model", r.model, {.required = ", the path of an ONNX file"});
    v("schedules", r.schedules);
    shapes(v, "shapes", r.shapes);
    v("run", r.run);
    v("check", r.check);
    v("repeat", r.repeat, {.min = 1, .max = kMaxRepeat});
    v("threads", r.threads, {.min = 0, .max = kMaxThreads});
    v("seed", r.seed);
}

template <class V> void fields(V& v, ModelChoiceRequest& r)
{
    v("model", r.model, {.required = ""});
    v("workload", r.workload, {.required = ""});
    v("schedules", r.schedules);
    v("name", r.name);
    v("script", r.script);
    v("variant", r.variant);
    v("log", r.log);
    v("reset", r.reset, {.write = r.reset});
}

template <class V> void fields(V& v, ModelTask& t)
{
    v("name", t.name);
    v("workload", t.workload);
    v("anchor", t.anchor);
    v("nodes", t.nodes);
    v("weight", t.weight);
    v("output", t.output);
    v("arithmetic", t.arithmetic, {.write = !t.arithmetic.empty()});
    v("gflop", t.gflop);
    v("script", t.script);
    v("script_file", t.scriptFile, {.write = !t.scriptFile.empty()});
    v("log_file", t.logFile, {.write = !t.logFile.empty()});
    v("source", t.source);
    v("variant", t.variant, {.write = !t.variant.empty()});
    v("stale", t.stale, {.write = !t.stale.empty()});
    v.flagged("ms", t.measured);
    v("ms", t.ms, {.write = t.measured});
    v("share", t.share, {.write = t.measured});
    v("gflops", t.gflops, {.write = t.measured});
    v.flagged("ok", t.checked);
    v("ok", t.ok, {.write = t.checked});
    v("max_abs_error", t.maxAbsError, {.write = t.checked});
    v("max_rel_error", t.maxRelError, {.write = t.checked});
    v("first", t.first, {.write = t.checked});
}

template <class V> void fields(V& v, NamedShape& s)
{
    v("name", s.name);
    v("shape", s.shape);
}

template <class V> void fields(V& v, ModelNode& n)
{
    v("name", n.name);
    v("op", n.op);
    v("inputs", n.inputs);
    v("outputs", n.outputs);
    v("task", n.task);
}

template <class V> void fields(V& v, ModelOutputCheck& o)
{
    v("name", o.name);
    v("ok", o.ok);
    v("max_abs_error", o.maxAbsError);
    v("max_rel_error", o.maxRelError);
    v("first", o.first);
}

template <class V> void fields(V& v, ModelReply& r)
{
    v("model", r.model);
    v("project", r.project);
    v("import_ms", r.importMs);
    v("notes", r.notes);
    v.object("graph", [&](auto& g) {
        g("nodes", r.nodes);
        g("inputs", r.inputs);
        g("outputs", r.outputs);
    });
    v("tasks", r.tasks);
    v.flagged("median_ms", r.ran);
    v("compile_ms", r.compileMs, {.write = r.ran});
    v("buffer_bytes", r.bufferBytes, {.write = r.ran});
    v("threads", r.threads, {.write = r.ran});
    v("median_ms", r.medianMs, {.write = r.ran});
    v("min_ms", r.minMs, {.write = r.ran});
    v("max_ms", r.maxMs, {.write = r.ran});
    v.flagged("outputs", r.checked);
    v("checked", r.checkPassed, {.write = r.checked});
    v("first_wrong_task", r.firstWrongTask, {.write = r.checked && !r.firstWrongTask.empty()});
    v("outputs", r.outputChecks, {.write = r.checked});
}

template <class V> void fields(V& v, ModelChoiceReply& r)
{
    v("project", r.project);
}

} // namespace loopscope::protocol::detail
