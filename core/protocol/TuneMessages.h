// The tune family's fields, written once for both directions: tune, its trials as they are
// measured and what it answers. See FieldCodec.h.
#pragma once

#include "protocol/FieldCodec.h"
#include "protocol/MachineMessages.h"

namespace loopscope::protocol::detail {

template <class V> void fields(V& v, TuneRequest& r)
{
    v("script", r.script, {.required = ", the script's text"});
    v("variant", r.variant);
    v("sets", r.sets);
    v("trials", r.trials, {.min = 0});
    v("seconds", r.seconds, {.atLeast = 0.0});
    v("threads", r.threads, {.min = 0, .max = kMaxThreads});
    v("forbid", r.forbid);
    v("log", r.log);
    v("resume", r.resume);
    v("seed", r.seed);
    v("peak", r.peak);
    v("hand", r.hand);
    v("crash_first", r.crashFirst, {.write = r.crashFirst});
    v("runner", r.runner, {.write = !r.runner.empty()});
    v("runners", r.runners, {.min = 0, .max = 4096, .write = r.runners > 0});
}

template <class V> void fields(V& v, TuneTrial& t)
{
    v("trial", t.trial);
    v("status", t.status);
    v("gflops", t.gflops);
    v("ms", t.ms);
    v("error", t.error, {.write = !t.error.empty()});
    v("sketch", t.sketch);
}

// (Its status and phase are the line's.)
template <class V> void fields(V& v, TuneUpdate& u)
{
    v("fraction", u.fraction);
    v("trials_done", u.done);
    v("trials_planned", u.planned);
    const bool started = u.done > 0 || u.trial;
    v("elapsed_s", u.elapsedS, {.write = started});
    v("remaining_s", u.remainingS, {.write = started});
    v("trial", u.trial);
    v.object("best",
             [&](auto& b) {
                 b("trial", u.bestTrial);
                 b("gflops", u.bestGflops);
                 b("ms", u.bestMs);
             },
             {.write = u.bestTrial > 0});
    v("best_statements", u.bestStatements, {.write = !u.bestStatements.empty()});
    v("best_tir", u.bestTir, {.write = !u.bestTir.empty()});
    v("start_tir", u.startTir, {.write = !u.startTir.empty()});
    v.object("reference",
             [&](auto& x) {
                 x("name", u.referenceName);
                 x("gflops", u.referenceGflops);
             },
             {.write = !u.referenceName.empty()});
    v("peak_gflops", u.peakGflops, {.write = u.peakGflops > 0});
    v.object("hand",
             [&](auto& h) {
                 h("name", u.handName);
                 h("gflops", u.handGflops);
                 h("ms", u.handMs);
             },
             {.write = !u.handName.empty()});
    v("machine", u.machine, {.write = !u.machine.cpu.empty()});
}

template <class V> void fields(V& v, TuneReply& r)
{
    v("start", r.start);
    v("name", r.name);
    v("trials", r.trials);
    v("reused", r.reused);
    v("failed", r.failed);
    const bool best = r.bestTrial > 0;
    v.object("best",
             [&](auto& b) {
                 b("trial", r.bestTrial);
                 b("gflops", r.bestGflops);
                 b("ms", r.bestMs);
                 b("sketch", r.sketch);
             },
             {.write = best});
    v("statements", r.statements, {.write = best});
    v("best_tir", r.bestTir, {.write = best && !r.bestTir.empty()});
    v("notes", r.notes);
    v("log", r.log);
}

} // namespace loopscope::protocol::detail
