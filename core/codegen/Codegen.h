// Native code for a lowered function: LLVM IR for the host CPU, optimized at O3 and JIT-compiled,
// or written out as LLVM IR text, assembly or an object file (for the host or a named CPU). No
// LLVM header leaks from here.
#pragma once

#include "ir/Diagnostic.h"
#include "ir/Host.h"
#include "ir/PrimFunc.h"
#include "lower/CSignature.h" // sizeParameters, cPrototype

#include <cstdint>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace loopscope {

// A program the host CPU cannot run as asked (e.g. GPU thread bindings): said in the user's terms.
class CodegenError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The CPU this machine's code is generated for. LLVM 16 names a CPU it does not know "generic"
// (Zen 5, Intel cores after Meteor Lake): its features are right, but its scheduling model is
// not. Such a CPU gets the nearest model LLVM knows (Zen 5: znver4), keeping its own features;
// `reason` says so, and is empty where LLVM knew the CPU. LOOPSCOPE_LLVM_HOST_CPU, when set,
// stands for LLVM's own answer (to test a machine LLVM does not know on one it does).
struct HostCpu {
    std::string llvmName; // what LLVM's host detection calls it ("generic" for none)
    std::string name;     // what code is generated for
    std::string reason;
};
const HostCpu& hostCpu(); // read once per process
// The nearest CPU LLVM 16 knows for a CPU it does not: by vendor and family where those say the
// generation (AMD), else by the features its generation brought; empty for none.
std::string nearestKnownCpu(const CpuIdentity& id, const std::set<std::string>& features);
// The features LLVM detects on the host, by LLVM's names ("avx512f", "fma", ...).
std::set<std::string> hostCpuFeatures();

struct HostTarget {
    std::string triple;
    std::string cpu;         // e.g. "znver3": what code is generated for (hostCpu().name)
    std::string llvmCpu;     // what LLVM's host detection named it (hostCpu().llvmName)
    std::string cpuReason;   // why those differ (hostCpu().reason); empty where they do not
    std::string features;    // "+avx2,+fma,..."
    int vectorBits = 128;    // widest vector register
    std::string llvmVersion; // the LLVM generating the code, "16.0.6"
};
HostTarget hostTarget();

// What a TVM target string ("llvm -mcpu=znver4 -mattr=+avx512f,-avx512bw") says about the
// machine code: exported code (LLVM IR, assembly, objects) is generated for it, as tvm.build
// would; code run here is always generated for the host CPU. Other options (-num-cores,
// -opt-level, ...) are recorded and do not change the code. Throws CodegenError for an option
// value LLVM does not know (a CPU, a feature, a triple other than x86-64).
struct TargetChoice {
    std::string cpu;                // empty: the host's
    std::vector<std::string> attrs; // "+avx512f", "-avx512bw", ...
    std::string triple;             // empty: the host's
    bool hostFeatures = false;      // the host's features, scheduled as `cpu` (the JIT's choice)
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

// What generated code calls in the program that runs it, which provides it: parallel loops go to
// `parallelFor(n, body, closure)`, which runs body(begin, end, closure) over [0, n) in chunks.
struct RuntimeEntries {
    void (*parallelFor)(std::int64_t n, void (*body)(std::int64_t, std::int64_t, void*),
                        void* closure) = nullptr;
};

class JitKernel;

// A JIT compiler for the host CPU: one per owner (the worker, the command-line tool, a test),
// made with the runtime's entries. compile() may be called from several threads at once.
class Jit {
public:
    // Null, with the reason in *error, when the host cannot be described or the JIT not made.
    // `cpu`: the CPU model to schedule for (LLVM's name), with the host's own features; empty:
    // the host's (hostCpu). One LLVM does not know is refused in *error.
    static std::unique_ptr<Jit> create(const RuntimeEntries& entries, std::string* error = nullptr,
                                       const std::string& cpu = {});
    ~Jit();
    Jit(const Jit&) = delete;
    Jit& operator=(const Jit&) = delete;

    // Throws CodegenError for programs the CPU cannot run. optLevel 0-3 (LLVM's O0..O3). The
    // kernel keeps what it needs of the JIT: it may outlive this object. With lineInfo, the
    // kernel knows which line of its printed TIR each instruction is on (JitKernel::lines).
    std::unique_ptr<JitKernel> compile(const PrimFunc& f, int optLevel = 3, bool lineInfo = false);

    struct Impl;

private:
    explicit Jit(std::shared_ptr<Impl> impl);
    std::shared_ptr<Impl> m_impl;
};

// A compiled function. `run` takes one data pointer per buffer parameter (64-byte aligned, as
// large as the buffer's shape) and the values of sizeParameters().

// Where a kernel's machine code lives and which line of its printed TIR each instruction is on
// (from the DWARF line table of the code as compiled), for profiles and the assembly view.
struct KernelLines {
    std::string tir;                       // printTVMScript's text, which the lines number (from 1)
    std::uintptr_t codeStart = 0;          // the kernel's code (every function of it), as loaded
    std::string code;                      // its bytes
    std::vector<std::uint32_t> rowOffsets; // a row of the line table: where it starts in `code`,
    std::vector<int> rowLines;             // its line (0: none), by offset
    // The instructions, decoded: where each starts in `code` and its text (AT&T syntax, as the
    // assembly view prints it).
    std::vector<std::uint32_t> instructionOffsets;
    std::vector<std::string> instructionText;
    // The TIR line of the instruction at `address`; 0 outside the code or on no line.
    int lineAt(std::uintptr_t address) const;
    // The instruction (index into instructionOffsets) that contains `address`; -1 outside.
    int instructionAt(std::uintptr_t address) const;
    bool contains(std::uintptr_t address) const
    {
        return address >= codeStart && address < codeStart + code.size();
    }
};

class JitKernel {
public:
    ~JitKernel();
    JitKernel(const JitKernel&) = delete;
    JitKernel& operator=(const JitKernel&) = delete;

    void run(void* const* buffers, const std::int64_t* sizes) const;
    const std::vector<Var>& sizes() const { return m_sizes; }
    // Compiled with line info: where the code is and its lines; else null.
    const KernelLines* lines() const { return m_lines.get(); }

    struct Impl;
    explicit JitKernel(std::unique_ptr<Impl> impl, std::vector<Var> sizes);

private:
    friend class Jit;
    std::unique_ptr<Impl> m_impl;
    std::vector<Var> m_sizes;
    void (*m_entry)(void**, std::int64_t*) = nullptr;
    std::unique_ptr<KernelLines> m_lines;
};

enum class EmitKind { LLVMIR, Assembly, Object, UnoptimizedLLVMIR };
// The optimized module as LLVM IR text, assembly, or an ELF object (bytes), for the machine the
// target string names (see parseTarget; "llvm" is the host). The object and IR export the typed
// function `NAME(float* A, ...)` and `NAME_packed(void**, int64_t*)`.
// UnoptimizedLLVMIR: the module as the code generator hands it to LLVM's optimizer.
// With lineInfo, the IR carries !dbg locations and the assembly `.loc 1 LINE` directives that
// point at lines of printTVMScript(f).
std::string emitCode(const PrimFunc& f, EmitKind kind, const std::string& target = "llvm",
                     bool lineInfo = false);

} // namespace loopscope
