// What the explorer shows of a script: every variant as a ladder of steps, each with the TIR
// after it (TVM's printing and the structured one) and the loop axes of every stage. Qt-free, so
// the desktop app, the worker and the tests share it.
#pragma once

#include "explore/LoopLines.h"
#include "lower/Footprint.h"
#include "lower/Tails.h"
#include "te/Program.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loopscope {

struct AxisInfo {
    std::string name;         // as printed: "i_outer"
    std::string var;          // the script's own spelling: "i.outer"
    std::int64_t extent = -1; // -1 when not a constant
    std::string kind; // "serial", "parallel", "vectorized", "unrolled", "bound to threadIdx.x"
    bool reduction = false;
    std::vector<std::string> attached; // stages computed inside this loop
};

// Where a stage is computed: at the root, inlined, or inside a loop of another stage.
struct Attachment {
    enum class Kind { Root, Inline, At };
    Kind kind = Kind::Root;
    std::string stage; // At: the stage whose loop holds it ("C")
    std::string axis;  // At: that loop, as shown ("j_outer")

    bool isAt(const std::string& s, const std::string& a) const
    {
        return kind == Kind::At && stage == s && axis == a;
    }
    // "root", "inline", or "at C.j_outer"
    std::string text() const
    {
        return kind == Kind::Root     ? "root"
               : kind == Kind::Inline ? "inline"
                                      : "at " + stage + "." + axis;
    }
};

struct StageInfo {
    std::string name;
    std::string kind; // "placeholder", "compute", "reduction"
    Attachment attach;
    bool output = false;
    std::vector<AxisInfo> axes;        // current loop axes, outer to inner (empty for placeholders)
    std::vector<std::string> rootAxes; // op.axis then op.reduce_axis, as the script spells them
    std::vector<std::string> readers;  // the stages that read this one
};

struct StepView {
    std::string label;     // "untransformed" or the statement as written
    std::string primitive; // "" for the untransformed step
    int line = 0;          // the statement's line (the variant's line for the first step)
    std::string tir;       // TVM's printing
    std::string structured;
    // Every loop each printing prints, with the stage and axis it is (explore/LoopLines.h).
    std::vector<PrintedLoop> tirLoops, structuredLoops;
    // Loops over the lanes of a vector (`for j_s in range(n)`, lanes TVM runs one by one) that
    // the compiled code runs on vectors under lane masks.
    int lanesOnVectors = 0;
    std::vector<StageInfo> stages;
    // The schedule after the step, where the step is lowered (as its stages): what a new
    // statement written after it applies to.
    std::shared_ptr<const Schedule> schedule;
    // Where the loop nest's time can go, from the loop program alone: the bytes each loop touches
    // (lower/Footprint.h) and the iterations in partial tiles (lower/Tails.h; guards whose loops
    // run more than kMaxTailEnumeration times together are left uncounted).
    std::vector<LoopFootprint> footprints;
    TailReport tails;
    // A GPU variant's kernels and memory accesses at their lines of TVM's printing
    // (lower/gpu/GpuAccess, as `lower --access` shows them): each kernel's threads, shared memory
    // and occupancy at its first launch, each access's coalescing or bank conflicts at its
    // statement; `warn` where an access wastes bandwidth.
    struct AccessNote {
        int line = 0;
        std::string text;
        bool warn = false;
    };
    std::vector<AccessNote> gpuAccesses;
    std::optional<Diagnostic> error; // the step lowered to nothing: why
    // Set when the step was not lowered to keep the analysis of an edit bounded (see
    // kMaxExploredStages): why, and where to see it.
    std::string notLowered;
};

struct VariantView {
    std::string name;
    int line = 0;            // te.create_schedule
    int lastLine = 0;        // last statement of the variant's block
    int scheduleEndLine = 0; // last line of its schedule statements: where a new step goes
    std::vector<StepView> steps;
    // For writing new steps at the end of the block (see Variant in te/Program.h).
    std::string scheduleVar;
    std::map<std::string, std::string> tensorVars; // variable -> tensor name
    std::map<std::string, std::string> axisVars;   // variable -> axis name ("i.outer")
    // Stage name -> axis name -> variable: which variable holds which stage's axis.
    std::map<std::string, std::map<std::string, std::string>> stageAxisVars;
    std::vector<std::string> names; // every name in use
    // A TensorIR variant's: block -> the variable holding it; block -> loop -> variable.
    std::map<std::string, std::string> blockVars;
    std::map<std::string, std::map<std::string, std::string>> blockLoopVars;
    std::vector<std::string> args; // the function's argument tensors
    std::string target;            // tvm.build's ("llvm", "cuda -arch=sm_80")
    bool tensorIR = false;         // scheduled with tir.Schedule
};

struct Exploration {
    bool ok = false;
    Diagnostic error; // when !ok: the first mistake in the script
    std::vector<Parameter> parameters;
    std::vector<VariantView> variants; // complete when ok, else those before the error
    std::vector<std::string> allNames; // every name the script binds anywhere
    double evaluateMs = 0;
    double lowerMs = 0;
    bool complete = true; // false: only the detail variant was lowered
};

// An exploration as the window passes it around: immutable once made, shared by every view.
using ExplorationPtr = std::shared_ptr<const Exploration>;

// What one exploration lowers, in stages (each step lowers every stage of its schedule, and each
// split or fuse relation of a stage counts as one more: a step's loop nest grows with them, and
// 3,000 chained splits on one stage made every edit lower 3,000 nests of up to 3,000 loops): the
// detail variant's steps, and apart from them the other variants' last steps, each within this
// bound. Past it, the detail variant keeps its first step and as many of its last ones as fit
// (the step just written is usually the last); the others are marked notLowered.
constexpr std::int64_t kMaxExploredStages = 5000;
constexpr std::int64_t kMaxTailEnumeration = std::int64_t(1) << 18;

// `detailVariant`: the variant whose every step is lowered (within kMaxExploredStages); the others
// get their final step only (empty: every step of every variant). `detailOnly`: the others are
// evaluated, not lowered (their steps have no TIR and no stages; `complete` is false): the variant
// a user looks at, first.
Exploration explore(const std::string& script,
                    const std::map<std::string, std::int64_t>& overrides = {},
                    const std::string& detailVariant = {}, bool detailOnly = false);

// A TensorIR variant's loops in its compiled printing (by their lines there) to the lines of its
// blocks' printing (sch.mod.show()) that print the same loops, matched by variable in program
// order; a loop the blocks' printing lacks (a thread launch) has none.
std::map<int, int> loopLinesOnBlocks(const std::vector<LoopFootprint>& loops,
                                     const std::string& blocks);

// The stages of one schedule as the schedule panel lists them; a TensorIR variant's blocks (its
// inputs as placeholders, then each block with the loops above it).
std::vector<StageInfo> describeStages(const Schedule& sch);

} // namespace loopscope
