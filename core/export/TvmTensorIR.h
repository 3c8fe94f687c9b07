// One TensorIR variant as a standalone Python script for today's TVM (v0.20 on): the function as
// declared, in TVMScript as TVM prints it, this variant's schedule as TVM's trace records it, then
// code that builds, checks and times it in that TVM.
#pragma once

#include "ir/PrimFunc.h"
#include "te/Program.h"

#include <string>

namespace loopscope {

struct TvmTensorIRExport {
    std::string source;  // named in the header comment, e.g. "mm_relu.py"
    std::string release; // the TVM release named in the header, e.g. "0.26"
    TirSpelling spelling = TirSpelling::Tvm026;
    std::string target; // for the build; empty: the variant's
};

// Above the end-of-script marker, what Loopscope and TVM both read: the imports, the declared
// function as an @I.ir_module (in `spelling`), `sch = tvm.tir.Schedule(Module)` (or
// tvm.s_tir.Schedule) and the trace's instructions. After it, what only TVM runs: the build
// (tvm.tir.build or tvm.tirx.build), seeded random inputs, a check against the declared function
// built as it is, and time_evaluator with Loopscope's operation count. With
// LOOPSCOPE_PRINT_SCHEDULED set in the environment it also prints sch.mod.script().
std::string exportTensorIRScript(const Program& p, const Variant& v,
                                 const TvmTensorIRExport& options);

// A TE variant for the same releases: the script's declarations (as the TVM 0.17 export keeps
// them), `prim_func = te.create_prim_func([...])` of the variant's arguments, the schedule as
// the tir.Schedule calls translateToTensorIR makes of it, then the same build, check and timing.
// A UserError at the step the translation refuses.
std::string exportTeAsTensorIR(const std::string& scriptText, const Program& p, const Variant& v,
                               const TvmTensorIRExport& options);

// A TensorIR variant's trace as TVM's `sch.trace.as_json()` writes it (in the release's
// instruction names and attribute types), which `Trace.apply_json_to_schedule` replays on the
// declared function and a MetaSchedule database keeps: one line of JSON.
std::string traceJson(const Variant& v, TirSpelling spelling);

} // namespace loopscope
