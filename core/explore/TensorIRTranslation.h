// A TE variant's schedule as `tir.Schedule` calls: what a user of TVM 0.20 or later writes for
// the same loop nest, since TVM removed TE schedules. Each TE step becomes the TensorIR calls
// that do what it does, applied here to the function `te.create_prim_func` makes of the variant's
// arguments, so every call is checked as TVM checks it; the result is lowered and its loop nest
// compared with the TE schedule's. A step with no counterpart is refused with the reason, at the
// step.
#pragma once

#include "ir/Diagnostic.h"
#include "ir/PrimFunc.h"
#include "te/Program.h"

#include <string>
#include <vector>

namespace loopscope {

struct TirTranslation {
    bool ok = false;
    Diagnostic error; // why not, at the TE step (or the variant) at fault
    // The calls in order, on the schedule variable of the variant's function; a line starting
    // with '#' is a comment. Lookups (get_block, get_loops) come where a call first needs them.
    std::vector<std::string> statements;
    // For each statement, the index in the variant's steps of the TE step it carries out; -1 for
    // what TE does without a step (initializing a sum before its first reduction loop).
    std::vector<int> stepOf;
    TirFunc func; // the function after the calls
};

// Names the calls may not use for what they bind (the script's own names); the calls are on
// `scheduleVar`.
TirTranslation translateToTensorIR(const Variant& v, TirSpelling spelling,
                                   const std::vector<std::string>& takenNames = {},
                                   const std::string& scheduleVar = "sch");

// Where two lowered loop nests differ, as a user reads it ("loop 3: extent 32 in TE, 8 in
// TensorIR"); empty when they have the same loops (extents, kinds, threads, nesting; loops of
// one iteration aside) around the same stores.
std::string loopNestDifference(const Stmt& te, const Stmt& tensorIR);

} // namespace loopscope
