// The worker's "tune" command: the auto-tuner run for the window, in a worker process of its
// own, measuring its candidates in a further worker (this executable again) so that a candidate
// that crashes costs that one a restart and the tuning goes on.
//
// Request: {script, variant, sets, trials (64), seconds (0), threads (0: all), forbid [NAME...],
//   log (a path: records are appended as measured), resume (false), seed (1), peak (false:
//   measure the machine's peak GFLOPS first, for the chart), hand (false: measure the script's
//   variants first, for the chart's line of the fastest hand schedule)}.
// Progress, one per measured trial: phase "tune", fraction, trials_done, trials_planned,
//   elapsed_s, remaining_s (-1: unknown), trial {trial, status, gflops, ms, error, sketch},
//   best {trial, gflops, ms} (when there is one), and when the best changed: best_statements and
//   best_tir (its loop nest as TVM prints it). The first progress message (phase "tune",
//   trials_done 0) carries start_tir, the reference line {name, gflops} when the program is a
//   matmul (OpenBLAS) or a convolution (oneDNN), machine {cpu, vector_bits} and, when asked,
//   peak_gflops and hand {name, ms, gflops} (the fastest of the script's variants that ran
//   correctly within a second).
// Result: ok: start, name (the new variant's, unique in the script), trials, failed, best
//   {trial, gflops, ms, sketch} and statements (absent when nothing ran correctly), notes, log.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace loopscope::worker {

// `workerExecutable`: what measures the candidates (the running worker's own path).
// `testing`: honour the "crash_first" testing field (the first candidate's code crashes).
// Throws UserError for a script that does not evaluate.
nlohmann::json runTuneRequest(const nlohmann::json& request,
                              const std::function<void(const nlohmann::json&)>& progress,
                              const std::string& workerExecutable, bool testing);

} // namespace loopscope::worker
