// The runtime's results as the worker protocol's values (protocol/Messages.h): what a run of a
// variant measured and what a profile sampled, handed on by the worker and printed by the
// command-line tool's --json through the protocol's one codec.
#pragma once

#include "protocol/Messages.h"
#include "runtime/Profiler.h"
#include "runtime/VariantRun.h"

namespace loopscope {

// This machine: the CPU code is generated for (LLVM's name), its own name, the host name, LLVM's
// features and version, the vector width and the usable cores.
protocol::Machine thisMachine();

// The run's facts: lowerMs, compileMs, flops, runMs, checked, tooSlow, the checks when one ran
// and the timing when timed (status Wrong when a check found wrong numbers, with the first
// problem and the largest error). The request's part (variant, step, parameters) is the caller's.
protocol::MeasureReply measureReplyOf(const VariantRunOutcome& out);

// A profile's facts: its summary, the lines' and loops' shares, the kernel's instructions with
// their lines and samples (when `lines` is given) and the hardware counters.
protocol::StepProfile stepProfileOf(const LineProfile& profile, const KernelLines* lines,
                                    const HardwareCounts& counts, double profileMs);

} // namespace loopscope
