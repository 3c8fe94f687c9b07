// What a TE script means: its parameters, tensors and schedule variants (each with its steps and
// the schedule after every step). The evaluator builds it; everything downstream reads it.
#pragma once

#include "ir/Diagnostic.h"
#include "ir/Tensor.h"
#include "ir/TensorIntrin.h"
#include "schedule/Schedule.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loopscope {

// A top-level integer assignment (`M = 1024`): the size sweep and `--set` rebind it.
struct Parameter {
    std::string name;
    std::int64_t value = 0;
    SourceLoc loc;
    bool overridden = false;
};

// A symbolic size (`n = te.var("n")`): stays symbolic in the loop program.
struct SizeVar {
    std::string name;
    Var var;
    SourceLoc loc;
};

// One schedule primitive applied to a variant, as the user wrote it.
struct Step {
    std::string primitive; // "split", "reorder", "cache_write", ...
    std::string stage;     // the tensor the primitive is applied to
    SourceLoc loc;
    int endLine = 0;
    std::string text; // the whole statement
};

struct Variant {
    std::string name;
    SourceLoc loc;    // the te.create_schedule statement
    int lastLine = 0; // last line of a statement that belongs to this variant
    // Last line of the variant's schedule statements (create_schedule, steps, the axes and
    // tensors they bind): where a new step is written, before trailing tvm.lower/tvm.build code.
    int scheduleEndLine = 0;
    std::vector<Step> steps;
    std::vector<Schedule> snapshots; // snapshots[0]: untransformed; snapshots[i]: after steps[i-1]
    std::vector<Tensor> args;        // the function's arguments, in order
    bool argsFromScript = false;     // given by tvm.lower / tvm.build
    std::string funcName = "main";
    std::string target = "llvm";
    SourceLoc targetLoc; // the target= argument that set it
    // The script's names as they stand after the variant's last statement, for writing new steps:
    // the schedule's variable, variables holding tensors (variable -> tensor name) and axes
    // (variable -> axis name, e.g. "i.outer"), and every name in use.
    std::string scheduleVar;
    std::map<std::string, std::string> tensorVars;
    std::map<std::string, std::string> axisVars;
    // Stage name -> axis name -> the variable holding that axis of that stage.
    std::map<std::string, std::map<std::string, std::string>> stageAxisVars;
    std::vector<std::string> names;
    // A TensorIR variant's handles as they stand after its last statement: block name -> the
    // variable holding that block (of two, the first in name order), and block name -> loop
    // name -> the variable holding that loop above that block.
    std::map<std::string, std::string> blockVars;
    std::map<std::string, std::map<std::string, std::string>> blockLoopVars;
    // A TensorIR variant's steps as TVM's trace records them, one instruction a line
    // (`l4, l5 = sch.split(loop=l2, factors=[None, 8], ...)`); see traceText.
    std::vector<std::string> trace;
    const Schedule& schedule() const { return snapshots.back(); }
};

// Whether the variant binds a loop to a GPU thread axis (its kernels launch GPU threads).
bool bindsGpuThreads(const Variant& variant);

// What `sch.trace.show()` prints for a TensorIR variant, in its spelling; empty for a TE one.
std::string traceText(const Variant& v);

struct Program {
    std::vector<Parameter> parameters;
    std::vector<SizeVar> sizeVars;
    std::vector<Tensor> tensors; // every tensor declared, in order
    std::vector<Variant> variants;

    const Variant* findVariant(const std::string& name) const;
    const Parameter* findParameter(const std::string& name) const;
};

struct EvalResult {
    Program program; // complete when ok, else what was evaluated before the error
    bool ok = false;
    Diagnostic error;
};

// Evaluates a TE script. `overrides` rebinds parameters by name (the first assignment of each
// name takes the value); names that are not parameters are reported in `unusedOverrides`.
// The tensor intrinsic an expression makes in a script of its own (TOPI's, which the module
// tvm.topi.x86.tensor_intrin gives: "tvm.topi.x86.tensor_intrin.dot_16x1x16_uint8_int8_int32()");
// null, with why, when it makes none.
TensorIntrin evaluateTensorIntrin(const std::string& expression, std::string* why = nullptr);

EvalResult evaluateScript(const std::string& source,
                          const std::map<std::string, std::int64_t>& overrides = {},
                          std::vector<std::string>* unusedOverrides = nullptr);

} // namespace loopscope
