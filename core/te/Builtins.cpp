#include "te/Builtins.h"

#include <algorithm>

namespace loopscope {

const std::vector<Builtin>& teBuiltins()
{
    static const std::vector<Builtin> builtins = {
        {"tvm", "lower", "lower(inp, args=None, name=\"main\", simple_mode=False)"},
        {"tvm", "build", "build(inputs, args=None, target=None, name=\"default_function\")"},
        {"te", "placeholder", "placeholder(shape, dtype=None, name=\"placeholder\")"},
        {"te", "compute", "compute(shape, fcompute, name=\"compute\", tag=\"\")"},
        {"te", "reduce_axis", "reduce_axis(dom, name=\"rv\")"},
        {"te", "var", "var(name=\"tindex\", dtype=\"int32\")"},
        {"te", "size_var", "size_var(name=\"size\", dtype=\"int32\")"},
        {"te", "sum", "sum(expr, axis, where=None)"},
        {"te", "max", "max(expr, axis, where=None)  |  max(a, b)"},
        {"te", "min", "min(expr, axis, where=None)  |  min(a, b)"},
        {"te", "exp", "exp(x)"},
        {"te", "log", "log(x)"},
        {"te", "sqrt", "sqrt(x)"},
        {"te", "tanh", "tanh(x)"},
        {"te", "sigmoid", "sigmoid(x)"},
        {"te", "abs", "abs(x)"},
        {"te", "create_schedule", "create_schedule(ops)"},
        {"te", "thread_axis", "thread_axis(dom=None, tag=\"\", name=\"\")"},
        {"te", "const", "const(value, dtype=None)"},
        {"te", "if_then_else", "if_then_else(cond, t, f)"},
        {"te", "all", "all(*args)"},
        {"te", "any", "any(*args)"},
        {"tvm.tir", "const", "const(value, dtype=None)"},
        {"tvm.tir", "if_then_else", "if_then_else(cond, t, f)"},
        {"tvm.tir", "all", "all(*args)"},
        {"tvm.tir", "any", "any(*args)"},
        {"tvm.tir", "indexdiv", "indexdiv(a, b)"},
        {"tvm.tir", "indexmod", "indexmod(a, b)"},
        {"tvm.tir", "floordiv", "floordiv(a, b)"},
        {"tvm.tir", "floormod", "floormod(a, b)"},
        {"tvm.tir", "truncdiv", "truncdiv(a, b)"},
        {"tvm.tir", "truncmod", "truncmod(a, b)"},
        {"tvm.tir", "exp", "exp(x)"},
        {"tvm.tir", "log", "log(x)"},
        {"tvm.tir", "sqrt", "sqrt(x)"},
        {"tvm.tir", "tanh", "tanh(x)"},
        {"tvm.tir", "sigmoid", "sigmoid(x)"},
        {"tvm.tir", "abs", "abs(x)"},
        {"tvm.tir", "max", "max(a, b)"},
        {"tvm.tir", "min", "min(a, b)"},
        {"tvm.tir", "Select", "Select(condition, true_value, false_value)"},
        {"tvm.tir", "max_value", "max_value(dtype)"},
        {"tvm.tir", "min_value", "min_value(dtype)"},
        {"tvm.tir", "Cast", "Cast(dtype, value)"},
        {"tvm.target", "Target", "Target(target)"},
    };
    return builtins;
}

const Builtin* findBuiltin(std::string_view module, std::string_view name)
{
    const auto& all = teBuiltins();
    auto it = std::find_if(all.begin(), all.end(),
                           [&](const Builtin& b) { return b.module == module && b.name == name; });
    return it == all.end() ? nullptr : &*it;
}

const std::vector<std::string>& tvmSubmodules()
{
    static const std::vector<std::string> names = {"te", "tir", "target"};
    return names;
}

} // namespace loopscope
