#include "codegen/Nvptx.h"

#include "codegen/Codegen.h"
#include "codegen/CodegenLLVM.h"
#include "codegen/CodegenLLVMInternal.h"
#include "codegen/SplitHostDevice.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"
#include "schedule/ThreadScope.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cstdlib>
#include <mutex>
#include <set>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

namespace loopscope {

namespace {

constexpr const char* kTriple = "nvptx64-nvidia-cuda";

// `warp`: the code uses activemask and shfl.sync, which need PTX 6.2 (sm_75 and later start
// at 6.3 anyway).
std::unique_ptr<llvm::TargetMachine> nvptxTargetMachine(const std::string& arch, bool warp)
{
    static std::once_flag once;
    std::call_once(once, [] {
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        LLVMInitializeNVPTXAsmPrinter();
    });
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
    if (!target) throw CodegenError("LLVM has no NVPTX back end here: " + error);
    llvm::TargetOptions options;
    // As nvcc (-fmad=true) and TVM: a multiply feeding an add becomes one fma.
    options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
    return std::unique_ptr<llvm::TargetMachine>(
        target->createTargetMachine(kTriple, arch, warp ? "+ptx63" : "", options, std::nullopt));
}

// libclc's NVPTX build (Debian's libclc-16): OpenCL's math functions as LLVM bitcode for nvptx64,
// needing no libdevice. LOOPSCOPE_LIBCLC names another copy.
std::string libclcPath()
{
    const char* env = std::getenv("LOOPSCOPE_LIBCLC");
    return env && *env ? env : "/usr/lib/clc/nvptx64--nvidiacl.bc";
}

// Links in the libclc functions the kernels call (exp as _Z3expf, ...), and only those; they
// become internal, to be inlined into the kernels, which alone stay visible.
void linkLibclc(llvm::Module& m, const std::set<std::string>& kernels)
{
    bool needed = false;
    for (llvm::Function& f : m.functions())
        needed |= f.isDeclaration() && f.getName().startswith("_Z");
    if (!needed) return;
    const std::string path = libclcPath();
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer) {
        throw CodegenError("exp, log, tanh, sigmoid and pow in a GPU kernel come from libclc, "
                           "which is not here (" +
                           path + ": " + buffer.getError().message() +
                           "): install Debian's libclc-16");
    }
    auto lib = llvm::getOwningLazyBitcodeModule(std::move(*buffer), m.getContext());
    if (!lib) {
        throw CodegenError(
            path + " is not LLVM bitcode LLVM 16 reads: " + llvm::toString(lib.takeError()));
    }
    (*lib)->setTargetTriple(m.getTargetTriple());
    (*lib)->setDataLayout(m.getDataLayout());
    if (llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::LinkOnlyNeeded))
        throw CodegenError("the math functions of " + path + " could not be linked in");
    for (llvm::Function& f : m.functions())
        if (!f.isDeclaration() && !kernels.count(f.getName().str()))
            f.setLinkage(llvm::GlobalValue::InternalLinkage);
    for (llvm::GlobalVariable& g : m.globals())
        if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
}

// The registers the PTX of `kernel` declares (`.reg .f32 %f<138>;` declares 138).
int declaredRegisters(const std::string& ptx, const std::string& kernel)
{
    std::size_t at = ptx.find(".entry " + kernel + "(");
    if (at == std::string::npos) return 0;
    const std::size_t end = ptx.find("\n}", at);
    int total = 0;
    for (std::size_t r = ptx.find(".reg .", at); r != std::string::npos && r < end;
         r = ptx.find(".reg .", r + 1)) {
        const std::size_t type = r + 6;
        const std::size_t lt = ptx.find('<', type), gt = ptx.find('>', type);
        if (lt == std::string::npos || gt == std::string::npos || gt > end) break;
        const std::string t = ptx.substr(type, ptx.find_first_of(" \t", type) - type);
        const int n = std::atoi(ptx.substr(lt + 1, gt - lt - 1).c_str());
        if (t == "pred") continue;
        total += (t == "b64" || t == "f64" || t == "u64" || t == "s64") ? 2 * n : n;
    }
    return total;
}

} // namespace

PtxModule generatePtx(const PrimFunc& f, const GpuTarget& target)
{
    PtxModule out;
    out.arch = "sm_" + std::to_string(target.sm ? target.sm : 50);
    DeviceProgram program = splitHostDevice(f);
    for (const Buffer& w : program.workspaces) {
        std::int64_t n = 0;
        if (!isConstInt(w->shape[0], &n))
            throw CodegenError("the GPU workspace '" + scriptName(w->name) +
                               "' has a size that varies; give the program constant sizes");
        out.workspaces.push_back({scriptName(w->name), n * w->dtype.bytes() * w->dtype.lanes});
    }

    class UsesWarp : public IRVisitor {
    public:
        bool found = false;

    protected:
        void visitCall(const CallNode* op) override
        {
            if (op->op == CallOp::WarpActiveMask) found = true;
            IRVisitor::visitCall(op);
        }
    } warp;
    warp.visit(f.body);
    auto tm = nvptxTargetMachine(out.arch, warp.found);
    llvm::LLVMContext ctx;
    auto m = std::make_unique<llvm::Module>(scriptName(f.name), ctx);
    m->setTargetTriple(kTriple);
    m->setDataLayout(tm->createDataLayout());
    std::set<std::string> names;
    for (DeviceKernel& k : program.kernels) {
        codegen::Codegen cg(ctx, *m, *tm);
        cg.buildKernel(k.info.name, k.buffers, k.info.sizes, k.body);
        names.insert(k.info.name);
        out.kernels.push_back(std::move(k.info));
    }
    linkLibclc(*m, names);
    std::string err;
    llvm::raw_string_ostream es(err);
    LS_ASSERT(!llvm::verifyModule(*m, &es), "GPU codegen produced an invalid module: " + es.str());
    optimizeModule(*m, *tm, 3);
    llvm::SmallVector<char, 0> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    LS_ASSERT(!tm->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_AssemblyFile),
              "the NVPTX target machine cannot emit PTX");
    pm.run(*m);
    out.ptx.assign(buffer.begin(), buffer.end());
    for (GpuKernel& k : out.kernels)
        k.ptxRegisters = declaredRegisters(out.ptx, k.name);
    return out;
}

} // namespace loopscope
