// What scripts ask about LLVM and the CPU when they declare tensor intrinsics, answered without
// linking LLVM (the window evaluates scripts and links none): LLVM's intrinsics by name
// (tvm.target.codegen.llvm_lookup_intrinsic_id, the names tvm.tir.call_llvm_pure_intrin takes),
// from a table made from this LLVM at build time, and the host CPU's features by LLVM's names
// (TOPI's target_has_features), read with CPUID as LLVM's host detection reads them.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

namespace loopscope {

// The intrinsic's ID in this program's LLVM (16): 0 when LLVM has no intrinsic of that name. An
// overloaded intrinsic's full name ("llvm.memset.p0.i64") is its base name's ID.
std::uint32_t llvmIntrinsicId(std::string_view name);

// The host CPU's features that code generation and TOPI's intrinsics ask about, by LLVM's names
// ("sse4.2", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512vnni", "avxvnni",
// "amx-int8", ...), those whose registers the OS saves; empty where CPUID cannot be asked.
const std::set<std::string>& hostCpuFeatureNames();

} // namespace loopscope
