// The functions a TE script may call through its modules (tvm, te, tvm.tir, tvm.target), each
// with the signature the editor shows as a call tip. The evaluator accepts exactly these; the
// editor completes and highlights them from here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loopscope {

struct Builtin {
    std::string module;    // "tvm", "te", "tvm.tir" or "tvm.target"
    std::string name;      // "compute"
    std::string signature; // "compute(shape, fcompute, name=\"compute\", tag=\"\")"
};

const std::vector<Builtin>& teBuiltins();
// Null when `module` has no such function.
const Builtin* findBuiltin(std::string_view module, std::string_view name);
// The modules under tvm a script reaches as attributes (tvm.te, tvm.tir, tvm.target).
const std::vector<std::string>& tvmSubmodules();

} // namespace loopscope
