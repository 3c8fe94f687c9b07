#include "codegen/Nvptx.h"

#include "codegen/Codegen.h"
#include "codegen/CodegenLLVM.h"
#include "codegen/CodegenLLVMInternal.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"
#include "lower/CSignature.h"
#include "schedule/ThreadScope.h"

#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <map>
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

// What a kernel's body uses: buffers (by their storage) and variables, and the thread variables
// its launches bind (not parameters).
class Uses : public IRVisitor {
public:
    std::set<const VarNode*> data;
    VarSet vars;
    std::set<const void*> launched;

protected:
    void visitAttr(const AttrNode* op) override
    {
        if (op->key == "thread_extent") launched.insert(op->ref);
        IRVisitor::visitAttr(op);
    }
    void visitLeaf(const Expr& e) override
    {
        if (auto* v = e.as<VarNode>()) vars.insert(v);
    }
    void visitBufferLoad(const BufferLoadNode* op) override
    {
        data.insert(op->buffer->data.get());
        IRVisitor::visitBufferLoad(op);
    }
    void visitBufferStore(const BufferStoreNode* op) override
    {
        data.insert(op->buffer->data.get());
        IRVisitor::visitBufferStore(op);
    }
};

// The launch shape: extents of the block and thread launches, and the shared memory.
class LaunchShape : public IRVisitor {
public:
    explicit LaunchShape(GpuKernel& k) : m_k(k) {}

protected:
    void visitAttr(const AttrNode* op) override
    {
        if (op->key == "thread_extent" && threadDim(op->target) >= 0)
            (threadRank(op->target) == 0 ? m_k.grid : m_k.block)[threadDim(op->target)] = op->value;
        IRVisitor::visitAttr(op);
    }
    void visitAllocate(const AllocateNode* op) override
    {
        std::int64_t n = 0;
        if (op->buffer->scope == "shared" && isConstInt(op->buffer->shape[0], &n))
            m_k.sharedBytes += n * op->buffer->dtype.bytes() * op->buffer->dtype.lanes;
        IRVisitor::visitAllocate(op);
    }

private:
    GpuKernel& m_k;
};

// The kernels of the program in order: its launch nests. Anything else would run on the host.
void collectKernels(const Stmt& s, std::vector<Stmt>& out)
{
    if (!s.defined()) return;
    if (auto* seq = s.as<SeqNode>()) {
        for (auto& c : seq->stmts)
            collectKernels(c, out);
        return;
    }
    if (auto* a = s.as<AttrNode>(); a && a->key == "thread_extent") {
        out.push_back(s);
        return;
    }
    if (s.as<EvaluateNode>()) return;
    std::string line = printStmt(s);
    line = line.substr(0, line.find('\n'));
    throw CodegenError("'" + line +
                       "' runs outside every GPU kernel: on a GPU target every stage's loops "
                       "are bound to GPU threads, or computed inside bound loops. Did you "
                       "forget to bind?");
}

} // namespace

PtxModule generatePtx(const PrimFunc& f, const GpuTarget& target)
{
    PtxModule out;
    out.arch = "sm_" + std::to_string(target.sm ? target.sm : 50);
    std::vector<Stmt> kernels;
    collectKernels(f.body, kernels);
    if (kernels.empty())
        throw CodegenError("the program launches no GPU kernel. Did you forget to bind?");

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
    const std::vector<Var> sizes = sizeParameters(f);
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        GpuKernel kernel;
        kernel.name = scriptName(f.name) + "_kernel" + (k ? "_" + std::to_string(k) : "");
        for (auto& e : kernel.grid)
            e = makeInt(1);
        for (auto& e : kernel.block)
            e = makeInt(1);
        Uses uses;
        uses.visit(kernels[k]);
        std::vector<Buffer> buffers;
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            if (!uses.data.count(f.params[i]->data.get())) continue;
            kernel.buffers.push_back(static_cast<int>(i));
            buffers.push_back(f.params[i]);
        }
        for (auto& v : sizes)
            if (uses.vars.count(v.get()) && !uses.launched.count(v.get()))
                kernel.sizes.push_back(v);
        LaunchShape(kernel).visit(kernels[k]);
        codegen::Codegen cg(ctx, *m, *tm);
        cg.buildKernel(kernel.name, buffers, kernel.sizes, kernels[k]);
        out.kernels.push_back(std::move(kernel));
    }
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
    return out;
}

} // namespace loopscope
