// The measure family's fields, written once for both directions: measure (and the go that
// releases a held one), emit, and what they answer. See FieldCodec.h.
#pragma once

#include "protocol/FieldCodec.h"

namespace loopscope::protocol::detail {

template <class V> void fields(V& v, MeasureRequest& r)
{
    v("script", r.script, {.required = ", the script's text"});
    v("variant", r.variant);
    v("step", r.step);
    v("sets", r.sets);
    v("threads", r.threads, {.min = 0, .max = kMaxThreads});
    v("check", r.check);
    v("time", r.time);
    v("repeat", r.repeat, {.min = 1, .max = kMaxRepeat});
    v("number", r.number, {.min = 1, .max = 1000000000});
    v("min_repeat_ms", r.minRepeatMs, {.atLeast = 0.0});
    v("seed", r.seed);
    v("opt_level", r.optLevel, {.min = 0, .max = 3});
    v("max_run_ms", r.maxRunMs, {.atLeast = 0.0, .write = r.maxRunMs > 0});
    v("profile_seconds", r.profileSeconds, {.atLeast = 0.0, .write = r.profileSeconds > 0});
    v.require(!(r.profileSeconds > 30), "\"profile_seconds\" is at most 30");
    v("hold", r.hold, {.write = r.hold});
    v("crash", r.testing.crash, {.write = r.testing.crash});
    v("corrupt_output", r.testing.corruptOutput, {.write = r.testing.corruptOutput});
    v("internal_error", r.testing.internalError, {.write = r.testing.internalError});
    v("sleep_ms", r.testing.sleepMs, {.min = 0, .write = r.testing.sleepMs > 0});
}

template <class V> void fields(V& v, GoRequest& r)
{
    v("repeat", r.repeat, {.min = 1, .max = kMaxRepeat});
    v("min_repeat_ms", r.minRepeatMs, {.atLeast = 0.0});
    v("max_run_ms", r.maxRunMs, {.atLeast = 0.0});
}

template <class V> void fields(V& v, EmitRequest& r)
{
    v("script", r.script, {.required = ", the script's text"});
    v("variant", r.variant);
    v("step", r.step);
    v("sets", r.sets);
    v("format", r.format);
    v("source", r.source);
    v("lines", r.lines);
    v("target", r.target, {.write = !r.target.empty()});
}

template <class V> void fields(V& v, CheckedOutput& c)
{
    v("tensor", c.tensor);
    v("ok", c.ok);
    v("elements", c.elements);
    v("max_abs_error", c.maxAbsError);
    v("max_rel_error", c.maxRelError);
    v("first_mismatch", c.firstMismatch, {.write = !c.firstMismatch.empty()});
    v("error", c.error, {.write = !c.error.empty()});
    v("skipped", c.skipped, {.write = !c.skipped.empty()});
}

template <class V> void fields(V& v, StepProfile::Instruction& i)
{
    v("o", i.offset);
    v("t", i.text);
    v("l", i.line);
    v("s", i.samples);
}

// A profile that failed is written as its error alone.
template <class V> void fields(V& v, StepProfile& p)
{
    const bool full = p.error.empty();
    v("error", p.error, {.write = !full});
    v("tir", p.tir, {.write = full});
    v("method", p.method, {.write = full});
    v("threads", p.threads, {.write = full});
    v("runs", p.runs, {.write = full});
    v("seconds", p.seconds, {.write = full});
    v("samples", p.samples, {.write = full});
    v("in_kernel", p.inKernel, {.write = full});
    v("lost", p.lost, {.write = full});
    v("profile_ms", p.profileMs, {.write = full});
    v("line_share", p.lineShare, {.write = full});
    v("loop_share", p.loopShare, {.write = full});
    v("instructions", p.instructions, {.write = full && !p.instructions.empty()});
    if (v.flagged("counters", p.counters) && full) {
        v.object("counters", [&](auto& c) {
            c("cycles", p.cycles);
            c("instructions", p.instructionsRetired);
            c("ipc", p.ipc);
            c("l1d_misses", p.l1dMisses, {.write = p.l1dMisses >= 0});
            c("llc_misses", p.llcMisses, {.write = p.llcMisses >= 0});
        });
    }
    v("counters_unavailable", p.countersUnavailable,
      {.write = full && !p.counters && !p.countersUnavailable.empty()});
}

// (The status, ok or wrong, is the line's.)
template <class V> void fields(V& v, MeasureReply& r)
{
    const bool named = !r.variant.empty();
    v("variant", r.variant, {.write = named});
    v("step", r.step, {.write = named});
    v("steps", r.steps, {.write = named});
    v("threads", r.threads, {.write = named});
    v("parameters", r.parameters, {.write = named});
    v("notes", r.notes, {.write = named});
    v("lower_ms", r.lowerMs);
    v("compile_ms", r.compileMs);
    v("run_ms", r.runMs, {.write = !r.wrong()});
    v("flops", r.flops);
    v("checked", r.checked);
    v.flagged("check", r.checkRan);
    v("check", r.checks, {.write = r.checkRan});
    v("too_slow", r.tooSlow, {.write = r.tooSlow});
    if (v.present("ms_median", r.timing.has_value())) {
        if (!r.timing) r.timing.emplace();
        Timing& t = *r.timing;
        v("ms_median", t.msMedian);
        v("ms_min", t.msMin);
        v("ms_max", t.msMax);
        v("number", t.number);
        v("repeat", t.repeat);
        v("gflops", t.gflops);
        v("reference", t.reference, {.write = !t.reference.empty()});
        v("reference_ms", t.referenceMs, {.write = t.referenceMs > 0});
        v("copy_gbs", t.copyGbs, {.write = t.copyGbs > 0});
        v("kernel_gbs", t.kernelGbs, {.write = t.copyGbs > 0});
    }
    v("message", r.message, {.write = r.wrong()});
    v("first_mismatch", r.firstMismatch, {.write = r.wrong()});
    v("max_abs_error", r.maxAbsError, {.write = r.wrong()});
    v("profile", r.profile);
}

template <class V> void fields(V& v, EmitReply& r)
{
    v("format", r.format);
    v("variant", r.variant);
    v("step", r.step);
    v("steps", r.steps);
    v("function", r.function);
    v("suffix", r.suffix);
    v("target", r.target);
    v("text", r.text);
    // An object's bytes travel as base64; its header, the typed prototype, as text.
    v("data", Base64{r.data}, {.write = !r.data.empty()});
    v("header", r.header, {.write = !r.header.empty()});
}

} // namespace loopscope::protocol::detail
