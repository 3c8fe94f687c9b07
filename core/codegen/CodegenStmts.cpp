// Statements, a visit per node kind, and the loops that run on this thread: counted loops and
// what LLVM may unroll of them; a loop's dispatch to the other forms (parallel, lanes computed at
// once, versioned on guards, fills and copies).
#include "codegen/CodegenLLVMInternal.h"

#include "codegen/InvariantLoads.h"

#include "ir/Diagnostic.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <algorithm>
#include <map>

namespace loopscope::codegen {

namespace {

// Stack allocations up to this size; larger buffers come from the heap.
constexpr std::int64_t kMaxStackBytes = 256 * 1024;

} // namespace

Codegen::OnLineOf::OnLineOf(Codegen& cg, const StmtNode* s)
    : m_cg(cg), m_outer(cg.m_b.getCurrentDebugLocation())
{
    if (!cg.m_lines || !cg.m_state.scope || !s) return;
    auto line = cg.m_lines->find(s);
    if (line != cg.m_lines->end())
        cg.m_b.SetCurrentDebugLocation(llvm::DILocation::get(
            cg.m_ctx, static_cast<unsigned>(line->second), 1, cg.m_state.scope));
}

Codegen::OnLineOf::~OnLineOf()
{
    m_cg.m_b.SetCurrentDebugLocation(m_outer);
}

void Codegen::genStmt(const Stmt& s)
{
    // The statement's code carries its line; what follows it, the enclosing one's.
    OnLineOf line(*this, s.get());
    visit(s);
}

void Codegen::visitTensorStore(const TensorStoreNode*)
{
    LS_ASSERT(false, "codegen: unflattened statement");
}

void Codegen::visitRealize(const RealizeNode*)
{
    LS_ASSERT(false, "codegen: unflattened statement");
}

void Codegen::visitLetStmt(const LetStmtNode* op)
{
    Bindings let(*this);
    let.bind(op->var, op->value);
    const bool keep = m_device || op->var.type().lanes > 1;
    if (keep) m_letValues[op->var.get()] = op->value;
    genStmt(op->body);
    if (keep) m_letValues.erase(op->var.get());
}

void Codegen::visitSeq(const SeqNode* op)
{
    for (auto& x : op->stmts)
        genStmt(x);
}

void Codegen::visitAttr(const AttrNode* op)
{
    if (m_device && op->key == "tvm_storage_sync") {
        m_b.CreateCall(llvm::Intrinsic::getDeclaration(&m_mod, llvm::Intrinsic::nvvm_barrier0));
        return;
    }
    if (m_device && op->key == "thread_extent") {
        // threadIdx.x -> %tid.x, blockIdx.y -> %ctaid.y: read once, at the launch.
        static const std::map<std::string, llvm::Intrinsic::ID> registers = {
            {"threadIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x},
            {"threadIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y},
            {"threadIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z},
            {"blockIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x},
            {"blockIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y},
            {"blockIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z}};
        auto reg = registers.find(op->target);
        LS_ASSERT(reg != registers.end(), "no special register for " << op->target);
        Var v = findVar(op->body, op->ref);
        if (!v.defined()) {
            genStmt(op->body);
            return;
        }
        llvm::Value* index = m_b.CreateCall(llvm::Intrinsic::getDeclaration(&m_mod, reg->second));
        Bindings thread(*this);
        // An int32 variable is bound to its 64-bit value (see genIndex).
        llvm::Type* type = isInt32(v.type()) ? m_b.getInt64Ty() : llvmType(v.type());
        thread.bindCounter(v, m_b.CreateIntCast(index, type, false), true);
        genStmt(op->body);
        return;
    }
    if (op->key == "thread_extent") {
        throw CodegenError("the loop bound to GPU thread axis '" + op->target +
                           "' launches GPU threads, which CPU code cannot do; the variant's "
                           "kernels are checked on the CPU by `run --check`");
    }
    genStmt(op->body);
}

void Codegen::visitEvaluate(const EvaluateNode* op)
{
    genExpr(op->value);
}

void Codegen::visitIfThenElse(const IfThenElseNode* op)
{
    if (m_guardsAssumed.count(op)) {
        genStmt(op->thenCase);
        return;
    }
    if (op->cond.type().isVector()) { // see genLanesAtOnce
        llvm::Value* c = genExpr(op->cond);
        genUnderMask(withinMask(c), op->thenCase);
        if (op->elseCase.defined()) genUnderMask(withinMask(m_b.CreateNot(c)), op->elseCase);
        return;
    }
    llvm::Value* c = genExpr(op->cond);
    llvm::Function* fn = m_b.GetInsertBlock()->getParent();
    auto* thenBB = llvm::BasicBlock::Create(m_ctx, "if_then", fn);
    auto* endBB = llvm::BasicBlock::Create(m_ctx, "if_end", fn);
    llvm::BasicBlock* elseBB =
        op->elseCase.defined() ? llvm::BasicBlock::Create(m_ctx, "if_else", fn) : endBB;
    m_b.CreateCondBr(c, thenBB, elseBB);
    m_b.SetInsertPoint(thenBB);
    genStmt(op->thenCase);
    m_b.CreateBr(endBB);
    if (op->elseCase.defined()) {
        m_b.SetInsertPoint(elseBB);
        genStmt(op->elseCase);
        m_b.CreateBr(endBB);
    }
    m_b.SetInsertPoint(endBB);
}

void Codegen::visitAllocate(const AllocateNode* op)
{
    const Buffer& b = op->buffer;
    std::int64_t n;
    bool constant = isConstInt(b->shape[0], &n);
    if (m_device) {
        if (!constant)
            throw CodegenError("buffer '" + scriptName(b->name) +
                               "' of a GPU kernel has a size that varies; a kernel's buffers "
                               "need a constant size");
        llvm::Type* array = llvm::ArrayType::get(memType(b->dtype.element()),
                                                 static_cast<std::uint64_t>(n * b->dtype.lanes));
        llvm::Value* storage = nullptr;
        if (b->scope == "shared") {
            // One per block: a module global in address space 3, and accessed there (ld.shared),
            // so that the optimizer sees its alignment and merges neighbouring accesses into
            // vector ones (ld.shared.v4).
            auto* g =
                new llvm::GlobalVariable(m_mod, array, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::UndefValue::get(array), scriptName(b->name), nullptr,
                                         llvm::GlobalValue::NotThreadLocal, 3);
            g->setAlignment(llvm::Align(16));
            storage = g;
        } else {
            auto* a = entryAlloca(array, nullptr, 16);
            storage = a;
        }
        Bindings bound(*this);
        bound.bind(b->data, storage);
        genStmt(op->body);
        return;
    }
    llvm::Value* count = genExpr(b->shape[0]);
    std::int64_t bytes = constant ? n * b->dtype.bytes() * b->dtype.lanes : -1;
    if (constant && bytes <= kMaxStackBytes) {
        // Packed scalars, as on the heap: see elementPointer.
        llvm::Value* scalars = m_b.getInt64(static_cast<std::uint64_t>(n * b->dtype.lanes));
        Bindings storage(*this);
        storage.bind(b->data, entryAlloca(memType(b->dtype.element()), scalars, 64));
        ScopedEntry stack(m_stackBytes, b->data.get(), {bytes, m_b.GetInsertBlock()->getParent()});
        genStmt(op->body);
        return;
    }
    llvm::Value* size =
        m_b.CreateMul(m_b.CreateIntCast(count, m_b.getInt64Ty(), true),
                      m_b.getInt64(static_cast<std::uint64_t>(b->dtype.bytes() * b->dtype.lanes)));
    llvm::FunctionCallee alloc =
        m_mod.getOrInsertFunction("loopscope_alloc", ptrTy(), m_b.getInt64Ty());
    llvm::FunctionCallee release =
        m_mod.getOrInsertFunction("loopscope_free", m_b.getVoidTy(), ptrTy());
    llvm::Value* p = m_b.CreateCall(alloc, {size});
    {
        Bindings storage(*this);
        storage.bind(b->data, p);
        genStmt(op->body);
    }
    m_b.CreateCall(release, {p});
}

void Codegen::visitFor(const ForNode* op)
{
    if (op->forKind == ForKind::ThreadBinding) {
        throw CodegenError("loop '" + scriptName(op->var.name()) +
                           "' is bound to GPU thread axis '" + op->threadTag +
                           "'; GPU thread axes are kept for export but not run on the CPU");
    }
    if (op->forKind == ForKind::Parallel && !m_insideParallel) {
        genParallel(op);
        return;
    }
    if (op->scalarizedLanes && genLanesAtOnce(op)) return;
    if (!versionOnGuards(op)) genLoop(op);
}

// A counted loop: for (v = min; v < min + extent; ++v) body.
// `rolled` keeps LLVM from unrolling it (see genLoop). So is a loop around one kept rolled for
// its invariants: unrolling it would only make copies of that loop, for LLVM to compile (the
// ladder's k loop around its rows, four of them). A loop in the copy for edge tiles is
// neither unrolled nor vectorized: it runs for few tiles, and optimizing it as hard as the
// copy that runs for all others would double the compile time (see versionOnGuards).
void Codegen::emitLoop(const Var& var, llvm::Value* begin, llvm::Value* end, const Stmt& body,
                       bool nonNegativeBegin, Rolled rolled)
{
    llvm::Function* fn = m_b.GetInsertBlock()->getParent();
    llvm::BasicBlock* pre = m_b.GetInsertBlock();
    auto* header = llvm::BasicBlock::Create(m_ctx, "for_" + scriptName(var.name()), fn);
    auto* bodyBB = llvm::BasicBlock::Create(m_ctx, "for_body", fn);
    auto* exit = llvm::BasicBlock::Create(m_ctx, "for_end", fn);
    // An int32 loop counts in 64 bits (see genIndex); its 32-bit value is a truncation.
    const bool wide = isInt32(var.type());
    if (wide) {
        begin = m_b.CreateIntCast(begin, m_b.getInt64Ty(), true);
        end = m_b.CreateIntCast(end, m_b.getInt64Ty(), true);
    }
    m_b.CreateBr(header);
    m_b.SetInsertPoint(header);
    llvm::PHINode* iv = m_b.CreatePHI(begin->getType(), 2, scriptName(var.name()));
    iv->addIncoming(begin, pre);
    m_b.CreateCondBr(m_b.CreateICmpSLT(iv, end), bodyBB, exit);
    m_b.SetInsertPoint(bodyBB);
    const bool counting = wide && nonNegativeBegin;
    bool rolledInside = false;
    {
        Bindings counter(*this);
        counter.bindCounter(var, iv, counting);
        Scoped<bool> inside(m_rolledForInvariants, false); // set by loops in the body so kept
        genStmt(body);
        rolledInside = m_rolledForInvariants;
    }
    m_rolledForInvariants =
        m_rolledForInvariants || rolledInside || rolled == Rolled::ForInvariants;
    llvm::Value* next =
        m_b.CreateAdd(iv, llvm::ConstantInt::get(iv->getType(), 1), "", counting, true);
    iv->addIncoming(next, m_b.GetInsertBlock());
    llvm::BranchInst* latch = m_b.CreateBr(header);
    if (rolled != Rolled::No || rolledInside || m_edgeCopies > 0) {
        std::vector<llvm::Metadata*> md{
            nullptr,
            llvm::MDNode::get(m_ctx, llvm::MDString::get(m_ctx, "llvm.loop.unroll.disable"))};
        if (m_edgeCopies > 0) {
            md.push_back(
                llvm::MDNode::get(m_ctx, {llvm::MDString::get(m_ctx, "llvm.loop.vectorize.enable"),
                                          llvm::ConstantAsMetadata::get(m_b.getFalse())}));
        }
        llvm::MDNode* self = llvm::MDNode::getDistinct(m_ctx, md);
        self->replaceOperandWith(0, self);
        latch->setMetadata(llvm::LLVMContext::MD_loop, self);
    }
    m_b.SetInsertPoint(exit);
}

// A loop that runs on this thread: a memset or straight-line code where it fills or copies
// a contiguous range, a loop otherwise.
void Codegen::genLoop(const ForNode* op)
{
    auto row = contiguousRun(op->body); // what one step of the loop writes
    if (auto run = row ? acrossLoop(*row, op) : std::nullopt) {
        // The fill or copy is the store's work: its code is on the store's line.
        if (!run->load && run->bytes >= kMemsetBytes) {
            OnLineOf line(*this, run->store);
            emitMemset(*run);
            return;
        }
        if (straightLine(*run)) {
            OnLineOf line(*this, run->store);
            emitStraightLine(*run);
            return;
        }
    }
    if (auto fill = tiledZeroFill(op); fill && fill->bytes >= kMemsetBytes) {
        OnLineOf line(*this, fill->store);
        emitMemset(fill->loops, fill->store->buffer, fill->start, fill->bytes);
        return;
    }
    // Rows of a small fill or copy, one row per step: LLVM would unroll the rows into one
    // block of hundreds of loads and stores and then spend more time comparing their
    // addresses pairwise (memory dependence checks, store merging) than on the rest of the
    // kernel. Each row is a few vector stores, so the loop stays a loop. (A loop the user
    // asked to unroll is left to LLVM.)
    Rolled rolled = op->forKind != ForKind::Serial ? Rolled::No
                    : row && straightLine(*row)    ? Rolled::Yes
                    : holdsTooManyInvariants(op)   ? Rolled::ForInvariants
                                                   : Rolled::No;
    llvm::Value* mn = genExpr(op->min);
    llvm::Value* ext = genExpr(op->extent);
    emitLoop(op->var, mn, m_b.CreateAdd(mn, ext), op->body, nonNegative(op->min), rolled);
}

// A loop whose body reads values that stay the same from one iteration to the next, more of
// them than half the vector registers hold, is not unrolled by LLVM. LLVM hoists those loads
// out of the loop and keeps the values across it; in a loop unrolled 8 times the register
// allocator then reloads and shuffles them in every copy. opt_gemm's write cache step reads 16
// vectors of packed B per row (512 bytes, against AVX2's 16 registers of 32 bytes): unrolled,
// a row costs 16 loads and 2 moves for its 16 FMAs, rolled 13 loads, and the step runs 40%
// faster. With AVX-512's 32 registers they fit, and LLVM unrolls as it would.
// Only a body that is straight-line code to LLVM counts: inner loops nested at most
// kStraightLineIterations iterations deep, which LLVM unrolls or vectorizes away. A loop of
// at most kFewIterations is left to LLVM to unroll in full, and so is a loop that writes a
// stack buffer small enough for the target's vector registers (see inMemory), or allocates
// one: LLVM must unroll it for the buffer to become registers.
bool Codegen::holdsTooManyInvariants(const ForNode* op)
{
    if (auto* extent = op->extent.as<IntImmNode>(); extent && extent->value <= kFewIterations)
        return false;
    const std::int64_t registerFile = vectorRegisterFileBytes();
    if (registerFile == 0) return false;
    auto loads = invariantLoads(op, kStraightLineIterations);
    return loads && loads->bytes * 2 > registerFile && !loads->allocates &&
           std::all_of(loads->written.begin(), loads->written.end(), [&](const Buffer& b) {
               return m_vars.count(b->data.get()) &&
                      inMemory(b, static_cast<std::uint64_t>(registerFile));
           });
}

std::int64_t Codegen::vectorRegisterFileBytes()
{
    const std::int64_t width =
        tti().getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector).getFixedValue() /
        8;
    return width * tti().getNumberOfRegisters(tti().getRegisterClassForType(true));
}

// What the target machine's instructions cost and can do (the same for all functions built
// here: they have the same CPU and features).
const llvm::TargetTransformInfo& Codegen::tti()
{
    if (!m_tti) m_tti.emplace(m_tm.getTargetTransformInfo(*m_b.GetInsertBlock()->getParent()));
    return *m_tti;
}

} // namespace loopscope::codegen
