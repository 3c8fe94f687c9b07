// The lowering pipeline, as one readable list of passes: schedule -> loop program -> the TIR TVM
// prints, with a snapshot after every pass for the before/after views.
#pragma once

#include "ir/Diagnostic.h"
#include "ir/PrimFunc.h"
#include "schedule/Schedule.h"

#include <string>
#include <vector>

namespace loopscope {

struct PassSnapshot {
    std::string pass;
    Stmt body;
    bool changed = false;
    double milliseconds = 0.0;
};

struct LoweredFunc {
    PrimFunc func;   // the final program (TVM's simple_mode output)
    Stmt structured; // before flattening, vectorizing and unrolling: multi-dimensional accesses
    std::vector<Tensor> args; // the argument tensors (current operations), in order
    std::vector<PassSnapshot> passes;
    // What runs correctly but is likely not what was meant (a GPU kernel's loop run by one thread
    // of each block), each at the step responsible.
    std::vector<Diagnostic> warnings;
};

// The loop program before storage flattening (LoweredFunc::structured), without running the
// later passes: what the tuner reads its features from, thousands of times per search. Throws
// UserError as lowerSchedule does.
Stmt lowerStructure(const Schedule& sch);

// Throws UserError for schedules that cannot be lowered, at the step responsible.
LoweredFunc lowerSchedule(const Schedule& sch, const std::vector<Tensor>& args,
                          const std::string& name = "main");

} // namespace loopscope
