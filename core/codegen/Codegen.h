// Native code for a lowered function: LLVM IR for the host CPU, optimized at O3 and JIT-compiled,
// or written out as LLVM IR text, assembly or an object file (for the host or a named CPU). No
// LLVM header leaks from here.
#pragma once

#include "te/Diagnostic.h"
#include "tir/PrimFunc.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace loopscope {

// A program the host CPU cannot run as asked (e.g. GPU thread bindings): said in the user's terms.
class CodegenError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct HostTarget {
    std::string triple;
    std::string cpu;       // e.g. "znver3"
    std::string features;  // "+avx2,+fma,..."
    int vectorBits = 128;  // widest vector register
};
HostTarget hostTarget();

// What a TVM target string ("llvm -mcpu=znver4 -mattr=+avx512f,-avx512bw") says about the
// machine code: exported code (LLVM IR, assembly, objects) is generated for it, as tvm.build
// would; code run here is always generated for the host CPU. Other options (-num-cores,
// -opt-level, ...) are recorded and do not change the code. Throws CodegenError for an option
// value LLVM does not know (a CPU, a feature, a triple other than x86-64).
struct TargetChoice {
    std::string cpu;                 // empty: the host's
    std::vector<std::string> attrs;  // "+avx512f", "-avx512bw", ...
    std::string triple;              // empty: the host's
    bool isHost() const { return cpu.empty() && attrs.empty() && triple.empty(); }
};
TargetChoice parseTarget(const std::string& target);
// Throws CodegenError (as parseTarget, and for a CPU or feature LLVM does not know) unless code
// can be generated for the target.
void checkTarget(const std::string& target);
// Whether code generated for the target is the code generated for the host: the same CPU and the
// same features (-mcpu naming the host's CPU is not enough where the host lacks some of that
// CPU's features, as in some virtual machines). Throws as checkTarget.
bool targetIsHost(const std::string& target);

// The symbolic sizes a function needs at run time (te.var), in the order `run` takes them.
std::vector<Var> sizeParameters(const PrimFunc& f);

// A compiled function. `run` takes one data pointer per buffer parameter (64-byte aligned, as
// large as the buffer's shape) and the values of sizeParameters().
class JitKernel;
std::unique_ptr<JitKernel> compileKernel(const PrimFunc& f, int optLevel = 3);

class JitKernel {
public:
    ~JitKernel();
    JitKernel(const JitKernel&) = delete;
    JitKernel& operator=(const JitKernel&) = delete;

    void run(void* const* buffers, const std::int64_t* sizes) const;
    const std::vector<Var>& sizes() const { return m_sizes; }

    struct Impl;
    explicit JitKernel(std::unique_ptr<Impl> impl, std::vector<Var> sizes);

private:
    friend std::unique_ptr<JitKernel> compileKernel(const PrimFunc& f, int optLevel);
    std::unique_ptr<Impl> m_impl;
    std::vector<Var> m_sizes;
    void (*m_entry)(void**, std::int64_t*) = nullptr;
};

// Throws CodegenError for programs the CPU cannot run. optLevel 0-3 (LLVM's O0..O3).

enum class EmitKind { LLVMIR, Assembly, Object, UnoptimizedLLVMIR };
// The optimized module as LLVM IR text, assembly, or an ELF object (bytes), for the machine the
// target string names (see parseTarget; "llvm" is the host). The object and IR export the typed
// function `NAME(float* A, ...)` and `NAME_packed(void**, int64_t*)`.
// UnoptimizedLLVMIR: the module as the code generator hands it to LLVM's optimizer.
std::string emitCode(const PrimFunc& f, EmitKind kind, const std::string& target = "llvm");

// The C prototype of the typed function, for the header that goes with an exported object.
std::string cPrototype(const PrimFunc& f);

}  // namespace loopscope
