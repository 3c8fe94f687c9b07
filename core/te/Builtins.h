// The functions a TE script may call through its modules (tvm, te, tvm.tir, tvm.target) and the
// few of Python's it takes, each with the signature the editor shows as a call tip and the
// evaluator's handler for it. The evaluator accepts exactly these; the editor completes and
// highlights them from here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loopscope {

// Which of the evaluator's handlers a call goes to (te/EvaluateCalls.cpp): one per function, or
// per family of functions that differ only in the operation their name gives (te.exp, te.log).
enum class BuiltinCall {
    Print,
    Range,
    Len,
    Int,
    Float,
    Placeholder,
    Compute,
    ReduceAxis,
    Var,
    ThreadAxis,
    CreatePrimFunc, // te.create_prim_func
    TirSchedule,    // tvm.tir.Schedule, tvm.s_tir.Schedule
    Reducer,        // te.sum, te.max, te.min (a reduction, or of two values)
    MinMax,         // tvm.tir.max, tvm.tir.min
    Math,           // exp, log, sqrt, tanh, sigmoid, abs
    CreateSchedule,
    Const,
    IfThenElse,
    Select,
    All,
    Any,
    FloorDiv, // indexdiv, floordiv
    FloorMod, // indexmod, floormod
    TruncDiv,
    TruncMod,
    MaxValue,
    MinValue,
    Cast,
    TypedValue,   // T.float32(x), T.int8(x), ...: a constant of that type, or a cast to it
    LowerOrBuild, // tvm.lower, tvm.build
    Target,
    // Tensor intrinsics (te/EvaluateIntrinsics.cpp).
    DeclBuffer,        // tvm.tir.decl_buffer
    DeclTensorIntrin,  // te.decl_tensor_intrin
    IrBuilder,         // tvm.tir.ir_builder.create
    CallIntrin,        // tvm.tir.call_intrin (of tir.reinterpret)
    Reinterpret,       // tvm.tir.reinterpret
    CallLlvmIntrin,    // tvm.tir.call_llvm_pure_intrin, call_llvm_intrin
    CallExtern,        // tvm.tir.call_extern, call_pure_extern
    LlvmIntrinsicId,   // tvm.target.codegen.llvm_lookup_intrinsic_id
    TargetHasFeatures, // tvm.target.x86.target_has_features
    Simd32BitLanes,    // tvm.target.x86.get_simd_32bit_lanes
};

struct Builtin {
    std::string module;    // "tvm", "te", "tvm.tir", "tvm.target"; "" for Python's own
    std::string name;      // "compute"
    std::string signature; // "compute(shape, fcompute, name=\"compute\", tag=\"\")"
    BuiltinCall call;
};

// The functions of the modules (not Python's own).
const std::vector<Builtin>& teBuiltins();
// Python's functions a script may call (print, range, len, int, float).
const std::vector<Builtin>& pythonBuiltins();
// Null when `module` has no such function ("" for Python's).
const Builtin* findBuiltin(std::string_view module, std::string_view name);
// The function a dotted name calls ("te.compute", "tvm.tir.exp", "len"), or null.
const Builtin* findBuiltin(std::string_view dottedName);
// The modules under tvm a script reaches as attributes (tvm.te, tvm.tir, tvm.target).
const std::vector<std::string>& tvmSubmodules();

} // namespace loopscope
