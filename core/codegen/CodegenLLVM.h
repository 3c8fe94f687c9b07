// Translation of a lowered function into an LLVM module (internal to core/codegen: it is the only
// header that includes LLVM).
#pragma once

#include "codegen/Codegen.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>
#include <unordered_map>

namespace loopscope {

// The 1-based line of the printed TIR (printTVMScriptWithLines) each statement is on.
using LineOfStatement = std::unordered_map<const StmtNode*, int>;

// Builds `NAME(T* noalias A, ..., sizes...)` and `NAME_packed(void** buffers, int64_t* sizes)`.
// Parallel loops are outlined and call loopscope_parallel_for. With `lines`, the code carries
// DWARF line info pointing at the printed TIR. Throws CodegenError.
std::unique_ptr<llvm::Module> buildModule(const PrimFunc& f, llvm::LLVMContext& ctx,
                                          llvm::TargetMachine& tm,
                                          const LineOfStatement* lines = nullptr);

// Runs LLVM's optimization pipeline (O0..O3) for the target machine.
void optimizeModule(llvm::Module& m, llvm::TargetMachine& tm, int optLevel = 3);

// A target machine for the host CPU with all its features.
std::unique_ptr<llvm::TargetMachine> createHostTargetMachine();
// One for the machine a parsed target string names (the host's where it names nothing).
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const TargetChoice& choice);
// The options every machine-code generator uses, the JIT's as much as exported objects': a
// multiply feeding an add becomes one fused multiply-add, as TVM's LLVM target does.
llvm::TargetOptions hostTargetOptions();

} // namespace loopscope
