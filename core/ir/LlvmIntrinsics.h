// LLVM's intrinsics by name, for scripts that ask (tvm.target.codegen.llvm_lookup_intrinsic_id,
// tvm.tir.call_llvm_pure_intrin). The code generator, which links LLVM, provides the lookup; a
// program without it has none.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace loopscope {

using LlvmIntrinsicLookup = std::uint32_t (*)(std::string_view name);

// Called once by the code generator (codegen/CodegenLLVM.cpp) when it is linked.
void provideLlvmIntrinsicLookup(LlvmIntrinsicLookup lookup);
bool hasLlvmIntrinsicLookup();
// The intrinsic's ID in this program's LLVM: 0 when LLVM has no intrinsic of that name (or when
// no code generator is linked).
std::uint32_t llvmIntrinsicId(std::string_view name);

// The features LLVM detects on the host CPU, by LLVM's names ("avx512vnni", "avx2"): what
// TOPI's target_has_features asks of a script's CPU target. Provided by the code generator too;
// nullopt without it.
using LlvmHostFeatures = std::set<std::string> (*)();
void provideLlvmHostFeatures(LlvmHostFeatures features);
std::optional<std::set<std::string>> llvmHostFeatures();

} // namespace loopscope
