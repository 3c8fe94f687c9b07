// The schedule primitives, each once: its script name, its arguments and their kinds, one line of
// help, an example, how it applies to a schedule and how it prints as a TVM 0.17 statement. The
// evaluator, the editor's completion, the schedule panel (its buttons and their legality), the
// statement writer and the random schedule generator all read this catalogue: a new primitive is
// one entry here and its apply function.
#pragma once

#include "schedule/Schedule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loopscope {

enum class ArgKind {
    Axis,       // one loop axis
    Axes,       // any number of loop axes, positionally (fuse, reorder)
    Factor,     // a positive integer
    Int,        // an integer
    Text,       // a string such as a pragma's name
    Scope,      // a storage scope: "global", "local" or "shared"
    Stage,      // a stage, s[T]
    Tensor,     // a tensor
    Tensors,    // a list of tensors
    ThreadAxis, // te.thread_axis("threadIdx.x")
    Value,      // any expression
    Intrinsic,  // a tensor intrinsic (te.decl_tensor_intrin), written as the script wrote it
};

// What a primitive is called on: a stage (s[C].split(...)) or the schedule (s.cache_write(...)).
enum class PrimitiveOn { Stage, Schedule };

struct ArgSpec {
    std::string name; // the keyword TVM's Python API gives it
    ArgKind kind;
    bool required = true;
    bool keyword = false;    // printed as name=value, else positionally
    std::string defaultText; // an optional argument's default as TVM's signature shows it
    std::string label;       // how diagnostics call it; empty: "<primitive> <name>"
};

// An argument's value in a step; `given` is false for an optional argument left out.
struct StepArg {
    bool given = false;
    std::vector<IterVar> axes;   // Axis (one), Axes
    std::int64_t number = 0;     // Factor, Int; ThreadAxis: which object (0: its own)
    std::string text;            // Text, Scope, ThreadAxis (its tag)
    std::vector<Tensor> tensors; // Stage (its tensor), Tensor (one), Tensors
    Expr value;                  // Value
    TensorIntrin intrin;         // Intrinsic (its text: the script's expression for it)
};

struct PrimitiveSpec;

// One primitive with its arguments: a value that applies to a copy of a schedule and prints
// itself.
struct ScheduleStep {
    const PrimitiveSpec* primitive = nullptr;
    Tensor stage;              // the stage it is called on; for schedule primitives, its tensor
    std::vector<StepArg> args; // one per ArgSpec of the primitive, in order
    SourceLoc loc;             // the statement, for what lowering finds later

    // The argument named `name` (an InternalError if the primitive has none).
    const StepArg& arg(std::string_view name) const;
    StepArg& arg(std::string_view name);
};

// What applying a step gives back to the script.
struct StepOutput {
    std::vector<IterVar> axes; // split: outer, inner; tile: x outer, y outer, x inner, y inner
    Tensor tensor;             // cache_read, cache_write, rfactor: the new stage's tensor
};

struct PrimitiveSpec {
    std::string name; // as the script spells it
    PrimitiveOn on;
    std::vector<ArgSpec> args;
    std::string help;    // one line
    std::string example; // a statement as a script writes it
    // The statements the example needs before it, after exampleScript()'s declarations (a
    // matmul C = A x BT over x, y and k; BT an element-wise transpose of B).
    std::string exampleSetup;
    // What the statement binds, as TVM's documentation names it ({"outer", "inner"}); empty when
    // it returns nothing.
    std::vector<std::string> results;
    // Applies the step to `schedule` in place; refuses with a ScheduleError (its argument index
    // is the spec's, which is the script's positional index).
    StepOutput (*apply)(Schedule& schedule, const ScheduleStep& step) = nullptr;
    // Base names for what the statement binds, from the names of its arguments' items (an axis's
    // display name, a tensor's variable, a scope): {"i_outer", "i_inner"}.
    std::vector<std::string> (*resultNames)(const std::vector<std::vector<std::string>>& args) =
        nullptr;

    int argIndex(std::string_view argName) const; // -1 when there is none
    // The argument's name in diagnostics ("split factor").
    std::string argLabel(int index) const;
    // "split(parent, factor=None, nparts=None)": for completion and help.
    std::string signature() const;
};

// Every primitive, in the order a user meets them (loop, annotation, attachment, dataflow).
const std::vector<PrimitiveSpec>& primitiveCatalogue();
const PrimitiveSpec* findPrimitive(std::string_view name);

// A whole script in which the primitive's example runs: the declarations, the example's setup
// and, when `withExample`, the example itself (the last statement).
std::string exampleScript(const PrimitiveSpec& primitive, bool withExample = true);

// A step with its arguments left out, ready to be filled in.
ScheduleStep makeStep(const PrimitiveSpec& primitive, Tensor stage);

// The step applied to a copy of `schedule`: the new schedule and the step's outputs, or why not.
struct AppliedStep {
    Schedule schedule;
    StepOutput output;
    std::optional<ScheduleError> error;
    bool ok() const { return !error; }
};
AppliedStep applyToCopy(const Schedule& schedule, const ScheduleStep& step);

// An argument as text for printing: its items as the script names them (variables, numbers, a
// scope or pragma name without quotes); nullopt when not given.
using PrintedArg = std::optional<std::vector<std::string>>;

// The statement, as TVM 0.17's Python API writes it: `xo, xi = s[C].split(x, factor=8)`.
// `stageVar` is the variable of the stage's tensor (for schedule primitives, unused: the tensor is
// the first argument); `results` are the names bound, empty for none.
std::string printStatement(const PrimitiveSpec& primitive, const std::string& scheduleVar,
                           const std::string& stageVar, const std::vector<PrintedArg>& args,
                           const std::vector<std::string>& results = {});

} // namespace loopscope
