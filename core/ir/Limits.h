// Bounds on the work one request may cause, checked before the work starts so that a typo (a
// million-iteration unroll, a reduction over a billion elements) gets a diagnostic instead of
// minutes of compilation or a process out of memory. Process-wide: the command-line tool sets
// them from its options, the window and its worker from Run ▸ Settings.
#pragma once

#include <cstdint>

namespace loopscope {

// Loop counters, extents and indices are 32-bit integers (TVM promotes to int64 where a shape
// needs it; Loopscope refuses such shapes instead): the most elements a tensor may have.
constexpr std::int64_t kMaxIndex = 2147483647;

// A script's schedules are kept after every step (for the before/after views and the ladder):
// the most stages all those copies may hold together, about 150 MB of them.
constexpr std::int64_t kMaxStageCopies = 500000;

// The most nodes a stage's body may have once the stages it reads are inlined into it, and the
// deepest it may be. Passes over expressions recurse: about 15,000 levels overflow an 8 MB stack
// in an optimized build, 2,700 in one with AddressSanitizer (larger frames); 1,500 stay clear.
constexpr std::int64_t kMaxInlinedNodes = 200000;
constexpr int kMaxInlinedDepth = 1500;
// The deepest an expression the script builds (across statements, through variables) may be,
// before any inlining: as deep as one written out (te/Ast.h's kMaxExpressionDepth).
constexpr int kMaxBuiltDepth = 1000;

// The most stages one schedule may have: its kernel's loop nests are compiled as one function
// (1,000 stages compile in about a second, 4,000 in half a minute).
constexpr std::int64_t kMaxStages = 1000;

struct Limits {
    // Copies of loop bodies that explicit unrolling (unroll, and the auto_unroll_max_step
    // pragma) may make in one kernel. Lowering's common-subexpression pass grows with the square
    // of the copies: 1,024 of them lower in about 0.4 s, 4,096 in 5 s and 1.5 GB.
    std::int64_t maxUnrollCopies = 1024;
    // Steps (innermost reduction iterations) the reference interpreter may spend on one output
    // element it checks; a point that needs more is not compared, and the check says so.
    std::int64_t maxReferenceStepsPerElement = std::int64_t{1} << 26;
};

// The bounds now in force (the defaults until setLimits). Safe to call from any thread.
Limits limits();
// Throws std::invalid_argument for a bound below 1.
void setLimits(const Limits& l);

} // namespace loopscope
