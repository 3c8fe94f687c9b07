#include "te/Builtins.h"

#include <algorithm>

namespace loopscope {

const std::vector<Builtin>& teBuiltins()
{
    static const std::vector<Builtin> builtins = {
        {"tvm", "lower", "lower(inp, args=None, name=\"main\", simple_mode=False)",
         BuiltinCall::LowerOrBuild},
        {"tvm", "build", "build(inputs, args=None, target=None, name=\"default_function\")",
         BuiltinCall::LowerOrBuild},
        {"tvm.tir", "build", "build(mod, target=None, pipeline=\"default\")",
         BuiltinCall::LowerOrBuild},
        {"tvm.tirx", "build", "build(mod, target=None, pipeline=\"default\")",
         BuiltinCall::LowerOrBuild},
        {"te", "placeholder", "placeholder(shape, dtype=None, name=\"placeholder\")",
         BuiltinCall::Placeholder},
        {"te", "compute", "compute(shape, fcompute, name=\"compute\", tag=\"\")",
         BuiltinCall::Compute},
        {"te", "reduce_axis", "reduce_axis(dom, name=\"rv\")", BuiltinCall::ReduceAxis},
        {"te", "var", "var(name=\"tindex\", dtype=\"int32\")", BuiltinCall::Var},
        {"te", "size_var", "size_var(name=\"size\", dtype=\"int32\")", BuiltinCall::Var},
        {"te", "sum", "sum(expr, axis, where=None)", BuiltinCall::Reducer},
        {"te", "max", "max(expr, axis, where=None)  |  max(a, b)", BuiltinCall::Reducer},
        {"te", "min", "min(expr, axis, where=None)  |  min(a, b)", BuiltinCall::Reducer},
        {"te", "exp", "exp(x)", BuiltinCall::Math},
        {"te", "log", "log(x)", BuiltinCall::Math},
        {"te", "sqrt", "sqrt(x)", BuiltinCall::Math},
        {"te", "tanh", "tanh(x)", BuiltinCall::Math},
        {"te", "sigmoid", "sigmoid(x)", BuiltinCall::Math},
        {"te", "abs", "abs(x)", BuiltinCall::Math},
        {"te", "floor", "floor(x)", BuiltinCall::Math},
        {"te", "ceil", "ceil(x)", BuiltinCall::Math},
        {"te", "create_schedule", "create_schedule(ops)", BuiltinCall::CreateSchedule},
        {"te", "create_prim_func", "create_prim_func(ops)", BuiltinCall::CreatePrimFunc},
        {"tvm.tir", "Schedule", "Schedule(mod)", BuiltinCall::TirSchedule},
        {"tvm.s_tir", "Schedule", "Schedule(mod)", BuiltinCall::TirSchedule},
        {"te", "thread_axis", "thread_axis(dom=None, tag=\"\", name=\"\")",
         BuiltinCall::ThreadAxis},
        {"te", "const", "const(value, dtype=None)", BuiltinCall::Const},
        {"te", "if_then_else", "if_then_else(cond, t, f)", BuiltinCall::IfThenElse},
        {"te", "all", "all(*args)", BuiltinCall::All},
        {"te", "any", "any(*args)", BuiltinCall::Any},
        {"tvm.tir", "const", "const(value, dtype=None)", BuiltinCall::Const},
        {"tvm.tir", "if_then_else", "if_then_else(cond, t, f)", BuiltinCall::IfThenElse},
        {"tvm.tir", "all", "all(*args)", BuiltinCall::All},
        {"tvm.tir", "any", "any(*args)", BuiltinCall::Any},
        {"tvm.tir", "indexdiv", "indexdiv(a, b)", BuiltinCall::FloorDiv},
        {"tvm.tir", "indexmod", "indexmod(a, b)", BuiltinCall::FloorMod},
        {"tvm.tir", "floordiv", "floordiv(a, b)", BuiltinCall::FloorDiv},
        {"tvm.tir", "floormod", "floormod(a, b)", BuiltinCall::FloorMod},
        {"tvm.tir", "truncdiv", "truncdiv(a, b)", BuiltinCall::TruncDiv},
        {"tvm.tir", "truncmod", "truncmod(a, b)", BuiltinCall::TruncMod},
        {"tvm.tir", "exp", "exp(x)", BuiltinCall::Math},
        {"tvm.tir", "log", "log(x)", BuiltinCall::Math},
        {"tvm.tir", "sqrt", "sqrt(x)", BuiltinCall::Math},
        {"tvm.tir", "tanh", "tanh(x)", BuiltinCall::Math},
        {"tvm.tir", "sigmoid", "sigmoid(x)", BuiltinCall::Math},
        {"tvm.tir", "abs", "abs(x)", BuiltinCall::Math},
        {"tvm.tir", "floor", "floor(x)", BuiltinCall::Math},
        {"tvm.tir", "ceil", "ceil(x)", BuiltinCall::Math},
        {"tvm.tir", "nearbyint", "nearbyint(x)", BuiltinCall::Math},
        {"tvm.tir", "max", "max(a, b)", BuiltinCall::MinMax},
        {"tvm.tir", "min", "min(a, b)", BuiltinCall::MinMax},
        {"tvm.tir", "Select", "Select(condition, true_value, false_value)", BuiltinCall::Select},
        {"tvm.tir", "max_value", "max_value(dtype)", BuiltinCall::MaxValue},
        {"tvm.tir", "min_value", "min_value(dtype)", BuiltinCall::MinValue},
        {"tvm.tir", "Cast", "Cast(dtype, value)", BuiltinCall::Cast},
        {"tvm.target", "Target", "Target(target)", BuiltinCall::Target},
        {"tvm.tir", "decl_buffer",
         "decl_buffer(shape, dtype=None, name=\"buffer\", data=None, strides=None, "
         "elem_offset=None, scope=\"\", data_alignment=-1, offset_factor=0)",
         BuiltinCall::DeclBuffer},
        {"te", "decl_tensor_intrin",
         "decl_tensor_intrin(op, fcompute, name=\"tensor_intrin\", binds=None, "
         "scalar_params=None, default_buffer_params=None)",
         BuiltinCall::DeclTensorIntrin},
        {"tvm.tir.ir_builder", "create", "create()", BuiltinCall::IrBuilder},
        {"tvm.tir", "call_intrin", "call_intrin(dtype, func_name, *args)", BuiltinCall::CallIntrin},
        {"tvm.tir", "reinterpret", "reinterpret(dtype, value)", BuiltinCall::Reinterpret},
        {"tvm.tir", "call_llvm_pure_intrin", "call_llvm_pure_intrin(dtype, name, *args)",
         BuiltinCall::CallLlvmIntrin},
        {"tvm.tir", "call_llvm_intrin", "call_llvm_intrin(dtype, name, *args)",
         BuiltinCall::CallLlvmIntrin},
        {"tvm.tir", "call_extern", "call_extern(dtype, func_name, *args)", BuiltinCall::CallExtern},
        {"tvm.tir", "call_pure_extern", "call_pure_extern(dtype, func_name, *args)",
         BuiltinCall::CallExtern},
        {"tvm.target.codegen", "llvm_lookup_intrinsic_id", "llvm_lookup_intrinsic_id(name)",
         BuiltinCall::LlvmIntrinsicId},
        {"tvm.target.x86", "target_has_features", "target_has_features(features, target=None)",
         BuiltinCall::TargetHasFeatures},
        {"tvm.target.x86", "get_simd_32bit_lanes", "get_simd_32bit_lanes()",
         BuiltinCall::Simd32BitLanes},
        // TVMScript's values inside a @T.prim_func (its statements, T.grid, T.block, T.axis,
        // T.reads, ..., are read by te/EvaluateTvmScript.cpp).
        {"T", "max", "max(a, b)", BuiltinCall::MinMax},
        {"T", "min", "min(a, b)", BuiltinCall::MinMax},
        {"T", "exp", "exp(x)", BuiltinCall::Math},
        {"T", "log", "log(x)", BuiltinCall::Math},
        {"T", "sqrt", "sqrt(x)", BuiltinCall::Math},
        {"T", "tanh", "tanh(x)", BuiltinCall::Math},
        {"T", "sigmoid", "sigmoid(x)", BuiltinCall::Math},
        {"T", "fabs", "fabs(x)", BuiltinCall::Math},
        {"T", "if_then_else", "if_then_else(cond, t, f)", BuiltinCall::IfThenElse},
        {"T", "Select", "Select(condition, true_value, false_value)", BuiltinCall::Select},
        {"T", "Cast", "Cast(dtype, value)", BuiltinCall::Cast},
        {"T", "floordiv", "floordiv(a, b)", BuiltinCall::FloorDiv},
        {"T", "floormod", "floormod(a, b)", BuiltinCall::FloorMod},
        {"T", "truncdiv", "truncdiv(a, b)", BuiltinCall::TruncDiv},
        {"T", "truncmod", "truncmod(a, b)", BuiltinCall::TruncMod},
        {"T", "max_value", "max_value(dtype)", BuiltinCall::MaxValue},
        {"T", "min_value", "min_value(dtype)", BuiltinCall::MinValue},
        {"T", "float16", "float16(x)", BuiltinCall::TypedValue},
        {"T", "float32", "float32(x)", BuiltinCall::TypedValue},
        {"T", "float64", "float64(x)", BuiltinCall::TypedValue},
        {"T", "int8", "int8(x)", BuiltinCall::TypedValue},
        {"T", "int16", "int16(x)", BuiltinCall::TypedValue},
        {"T", "int32", "int32(x)", BuiltinCall::TypedValue},
        {"T", "int64", "int64(x)", BuiltinCall::TypedValue},
        {"T", "uint8", "uint8(x)", BuiltinCall::TypedValue},
        {"T", "bool", "bool(x)", BuiltinCall::TypedValue},
    };
    return builtins;
}

const std::vector<Builtin>& pythonBuiltins()
{
    static const std::vector<Builtin> builtins = {
        {"", "print", "print(*args)", BuiltinCall::Print},
        {"", "range", "range(stop)", BuiltinCall::Range},
        {"", "len", "len(s)", BuiltinCall::Len},
        {"", "int", "int(x)", BuiltinCall::Int},
        {"", "float", "float(x)", BuiltinCall::Float},
    };
    return builtins;
}

const Builtin* findBuiltin(std::string_view module, std::string_view name)
{
    const auto& all = module.empty() ? pythonBuiltins() : teBuiltins();
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const Builtin& b) { return b.module == module && b.name == name; });
    // TVM 0.24 renamed tvm.tir to tvm.tirx: its functions are the same.
    if (it == all.end() && module == "tvm.tirx") return findBuiltin("tvm.tir", name);
    return it == all.end() ? nullptr : &*it;
}

const Builtin* findBuiltin(std::string_view dottedName)
{
    const auto dot = dottedName.rfind('.');
    if (dot == std::string_view::npos) return findBuiltin({}, dottedName);
    return findBuiltin(dottedName.substr(0, dot), dottedName.substr(dot + 1));
}

const std::vector<std::string>& tvmSubmodules()
{
    static const std::vector<std::string> names = {"te", "tir", "s_tir", "tirx", "target"};
    return names;
}

} // namespace loopscope
