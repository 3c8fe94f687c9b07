#include "codegen/CodegenLLVM.h"

#include "codegen/InvariantLoads.h"

#include "ir/Analyzer.h"
#include "ir/FreeVars.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"
#include "lower/passes/VectorizeLoops.h"

#include <llvm/ADT/StringMap.h>
#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_set>
#include <utility>

namespace loopscope {

namespace {

// Stack allocations up to this size; larger buffers come from the heap.
constexpr std::int64_t kMaxStackBytes = 256 * 1024;

// The `likely` guards in a loop's body that can be decided before the loop: for each, a
// condition that holds only if the guard holds at every point the loop reaches it. A guard over
// variables bound outside the loop decides itself. A split that does not divide its axis guards
// the tiles' rows and columns with conditions like `i_outer * 4 + i_inner // 8 < 125`: they hold
// on a prefix of each loop they depend on, so they hold throughout if they hold at those loops'
// last values. Such a loop (this one or an inner one) must have a range the loop does not change.
// Conditions are pure arithmetic: no loads, no division by a variable.
class DecidableGuards : public IRVisitor {
public:
    explicit DecidableGuards(const std::unordered_set<const IfThenElseNode*>& skip) : m_skip(skip)
    {
    }

    struct Guard {
        const IfThenElseNode* node;
        Expr decision; // holds only if the guard holds wherever the loop reaches it
    };
    std::vector<Guard> guards;
    // Roughly how many scalar operations the loop's body is: its operations, each by its lanes.
    std::int64_t scalarOps = 0;

    void collect(const ForNode* loop)
    {
        bindLoop(loop);
        visit(loop->body);
    }

protected:
    void visitBinary(const BinaryNode* op) override
    {
        count(op->type);
        IRVisitor::visitBinary(op);
    }
    void visitCast(const CastNode* op) override
    {
        count(op->type);
        IRVisitor::visitCast(op);
    }
    void visitSelect(const SelectNode* op) override
    {
        count(op->type);
        IRVisitor::visitSelect(op);
    }
    void visitCall(const CallNode* op) override
    {
        count(op->type);
        IRVisitor::visitCall(op);
    }
    void visitBufferLoad(const BufferLoadNode* op) override
    {
        count(op->type);
        IRVisitor::visitBufferLoad(op);
    }
    void visitBufferStore(const BufferStoreNode* op) override
    {
        count(op->value.type());
        IRVisitor::visitBufferStore(op);
    }
    void visitFor(const ForNode* op) override
    {
        bindLoop(op);
        IRVisitor::visitFor(op);
    }
    void visitLetStmt(const LetStmtNode* op) override
    {
        m_otherBound.insert(op->var.get());
        IRVisitor::visitLetStmt(op);
    }
    void visitAllocate(const AllocateNode* op) override
    {
        m_otherBound.insert(op->buffer->data.get());
        IRVisitor::visitAllocate(op);
    }
    void visitIfThenElse(const IfThenElseNode* op) override
    {
        auto* call = op->cond.as<CallNode>();
        if (call && call->op == CallOp::Likely && !m_skip.count(op) && op->cond.type().lanes == 1 &&
            pure(op->cond) && prefixTrue(call->args[0])) {
            FreeVarCollector vars;
            vars.visit(op->cond);
            VarMap last; // the loop counters it uses, at their last values
            bool tileKnown = false;
            for (auto& v : vars.free) {
                auto range = m_loopRanges.find(v.get());
                if (range == m_loopRanges.end()) {
                    tileKnown = true;
                    continue;
                }
                auto& [min, extent] = range->second;
                last[v.get()] = min + extent - makeConst(min.type(), 1);
            }
            // A guard over these counters alone holds throughout only if no tile has an edge
            // (deciding it on a loop over tiles would never pay); it needs a variable from
            // outside, the tile's index, to tell the tiles apart.
            if (last.empty() || tileKnown)
                guards.push_back(
                    {op, last.empty() ? op->cond : simplify(substitute(op->cond, last))});
        }
        IRVisitor::visitIfThenElse(op);
    }

private:
    void count(DataType t) { scalarOps += std::max<std::int64_t>(1, t.lanes); }
    void bindLoop(const ForNode* op)
    {
        if (boundIn(op->min) || boundIn(op->extent))
            m_otherBound.insert(op->var.get());
        else
            m_loopRanges[op->var.get()] = {op->min, op->extent};
    }

    // Whether `f` holds for every variable of `e`.
    template <typename F> static bool allVars(const Expr& e, F f)
    {
        FreeVarCollector vars;
        vars.visit(e);
        return std::all_of(vars.free.begin(), vars.free.end(),
                           [&](const Var& v) { return f(v.get()); });
    }
    bool boundIn(const Expr& e) const
    {
        return !allVars(
            e, [&](const VarNode* v) { return !m_otherBound.count(v) && !m_loopRanges.count(v); });
    }
    // Nothing that may read memory or trap, and no variable bound inside other than loop counters.
    bool pure(const Expr& e) const
    {
        class Check : public IRVisitor {
        public:
            bool ok = true;

        protected:
            void visitBufferLoad(const BufferLoadNode*) override { ok = false; }
            void visitTensorLoad(const TensorLoadNode*) override { ok = false; }
            void visitLet(const LetNode*) override { ok = false; }
            void visitBinary(const BinaryNode* op) override
            {
                bool division = op->kind == ExprKind::Div || op->kind == ExprKind::Mod ||
                                op->kind == ExprKind::FloorDiv || op->kind == ExprKind::FloorMod;
                std::int64_t d = 0;
                if (division && (!isConstInt(op->b, &d) || d == 0)) ok = false;
                IRVisitor::visitBinary(op);
            }
            void visitCall(const CallNode* op) override
            {
                if (op->op != CallOp::Likely) ok = false;
                IRVisitor::visitCall(op);
            }
        } check;
        check.visit(e);
        return check.ok && allVars(e, [&](const VarNode* v) { return !m_otherBound.count(v); });
    }
    bool independent(const Expr& e) const
    {
        return allVars(e, [&](const VarNode* v) { return !m_loopRanges.count(v); });
    }
    // Whether `e` never decreases as any of the loop counters grows.
    bool nonDecreasing(const Expr& e) const
    {
        if (independent(e)) return true;
        if (e.as<VarNode>()) return e.type().isIntegral();
        if (auto* c = e.as<CastNode>())
            return c->value.type().isInt() && e.type().isInt() &&
                   e.type().bits >= c->value.type().bits && nonDecreasing(c->value);
        auto* b = e.as<BinaryNode>();
        if (!b || !e.type().isInt()) return false;
        std::int64_t k = 0;
        switch (e.kind()) {
        case ExprKind::Add:
        case ExprKind::Min:
        case ExprKind::Max: return nonDecreasing(b->a) && nonDecreasing(b->b);
        case ExprKind::Sub: return nonDecreasing(b->a) && independent(b->b);
        case ExprKind::Mul:
            return (isConstInt(b->b, &k) && k >= 0 && nonDecreasing(b->a)) ||
                   (isConstInt(b->a, &k) && k >= 0 && nonDecreasing(b->b));
        case ExprKind::Div:
        case ExprKind::FloorDiv: return isConstInt(b->b, &k) && k > 0 && nonDecreasing(b->a);
        default: return false;
        }
    }
    // Whether `c`, as the loop counters grow, can only go from true to false.
    bool prefixTrue(const Expr& c) const
    {
        auto* b = c.as<BinaryNode>();
        if (!b) return independent(c);
        switch (c.kind()) {
        case ExprKind::And: return prefixTrue(b->a) && prefixTrue(b->b);
        case ExprKind::LT:
        case ExprKind::LE: return nonDecreasing(b->a) && independent(b->b);
        case ExprKind::GT:
        case ExprKind::GE: return independent(b->a) && nonDecreasing(b->b);
        default: return independent(c);
        }
    }

    const std::unordered_set<const IfThenElseNode*>& m_skip;
    std::unordered_map<const VarNode*, std::pair<Expr, Expr>> m_loopRanges; // counters: min, extent
    VarSet m_otherBound; // variables bound inside otherwise: lets, allocations, loops over varying
                         // ranges
};

// The guards known to hold where a statement is emitted, taken out of it (each replaced by
// its `then` statement).
class AssumedGuards : public IRMutator {
public:
    explicit AssumedGuards(const std::unordered_set<const IfThenElseNode*>& assumed)
        : m_assumed(assumed)
    {
    }

protected:
    Stmt visitIfThenElse(const IfThenElseNode* op, const Stmt& self) override
    {
        if (m_assumed.count(op)) return mutate(op->thenCase);
        return IRMutator::visitIfThenElse(op, self);
    }

private:
    const std::unordered_set<const IfThenElseNode*>& m_assumed;
};

class Codegen {
public:
    Codegen(llvm::LLVMContext& ctx, llvm::Module& m, llvm::TargetMachine& tm)
        : m_ctx(ctx), m_mod(m), m_tm(tm), m_b(ctx)
    {
    }

    void build(const PrimFunc& f, const std::vector<Var>& sizes)
    {
        std::vector<llvm::Type*> params;
        for (std::size_t i = 0; i < f.params.size(); ++i)
            params.push_back(ptrTy());
        for (auto& s : sizes)
            params.push_back(llvmType(s.type()));
        auto* fnTy = llvm::FunctionType::get(llvm::Type::getVoidTy(m_ctx), params, false);
        llvm::Function* fn =
            llvm::Function::Create(fnTy, llvm::Function::ExternalLinkage, f.name, m_mod);
        setAttributes(fn);
        // The packed entry calls it rather than holding a second copy of the body: inlined, every
        // loop would be optimized and compiled twice, for one call per run saved.
        fn->addFnAttr(llvm::Attribute::NoInline);
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoAlias);
            fn->addParamAttr(static_cast<unsigned>(i), llvm::Attribute::NoCapture);
            fn->getArg(static_cast<unsigned>(i))->setName(scriptName(f.params[i]->name));
            m_vars[f.params[i]->data.get()] = fn->getArg(static_cast<unsigned>(i));
        }
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            llvm::Argument* a = fn->getArg(static_cast<unsigned>(f.params.size() + i));
            a->setName(scriptName(sizes[i].name()));
            m_vars[sizes[i].get()] = a;
        }
        beginFunction(fn);
        genStmt(f.body);
        m_b.CreateRetVoid();
        endFunction();

        // The packed entry: void NAME_packed(void** buffers, int64_t* sizes).
        auto* packedTy =
            llvm::FunctionType::get(llvm::Type::getVoidTy(m_ctx), {ptrTy(), ptrTy()}, false);
        llvm::Function* packed = llvm::Function::Create(packedTy, llvm::Function::ExternalLinkage,
                                                        f.name + "_packed", m_mod);
        setAttributes(packed);
        auto* bb = llvm::BasicBlock::Create(m_ctx, "entry", packed);
        m_b.SetInsertPoint(bb);
        std::vector<llvm::Value*> args;
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            llvm::Value* slot = m_b.CreateConstGEP1_64(ptrTy(), packed->getArg(0), i);
            args.push_back(m_b.CreateLoad(ptrTy(), slot));
        }
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            llvm::Value* slot = m_b.CreateConstGEP1_64(m_b.getInt64Ty(), packed->getArg(1), i);
            llvm::Value* v = m_b.CreateLoad(m_b.getInt64Ty(), slot);
            args.push_back(m_b.CreateIntCast(v, llvmType(sizes[i].type()), true));
        }
        m_b.CreateCall(fn, args);
        m_b.CreateRetVoid();
    }

private:
    // ---- types and helpers ----

    llvm::Type* ptrTy() { return llvm::PointerType::getUnqual(m_ctx); }

    llvm::Type* scalarType(DataType t)
    {
        switch (t.code) {
        case DataType::Float:
            return t.bits == 16   ? llvm::Type::getHalfTy(m_ctx)
                   : t.bits == 64 ? llvm::Type::getDoubleTy(m_ctx)
                                  : llvm::Type::getFloatTy(m_ctx);
        case DataType::Bool: return m_b.getInt1Ty();
        case DataType::Handle: return ptrTy();
        default: return llvm::IntegerType::get(m_ctx, t.bits);
        }
    }

    llvm::Type* llvmType(DataType t)
    {
        llvm::Type* s = scalarType(t.element());
        return t.lanes > 1 ? llvm::FixedVectorType::get(s, t.lanes) : s;
    }

    // Memory representation: bool is a byte.
    llvm::Type* memType(DataType t)
    {
        DataType e = t.element();
        llvm::Type* s = e.isBool() ? m_b.getInt8Ty() : scalarType(e);
        return t.lanes > 1 ? llvm::FixedVectorType::get(s, t.lanes) : s;
    }

    void setAttributes(llvm::Function* fn)
    {
        fn->addFnAttr("target-cpu", m_tm.getTargetCPU());
        fn->addFnAttr("target-features", m_tm.getTargetFeatureString());
        fn->addFnAttr(llvm::Attribute::NoUnwind);
        // Copy and fill loops stay loops: turned into memcpy and memset calls of a few hundred
        // bytes each, then fully unrolled, they expand back into long runs of loads and stores
        // that cost the back end (its DAG combiner) a third to a half of the compile time, and
        // run no faster.
        fn->addFnAttr("no-builtin-memcpy");
        fn->addFnAttr("no-builtin-memset");
    }

    struct FunctionState {
        llvm::Function* fn = nullptr;
        llvm::BasicBlock* allocaBlock = nullptr;
        std::vector<llvm::Value*> heapAllocations;
    };

    void beginFunction(llvm::Function* fn)
    {
        m_state.fn = fn;
        m_state.allocaBlock = llvm::BasicBlock::Create(m_ctx, "entry", fn);
        auto* body = llvm::BasicBlock::Create(m_ctx, "body", fn);
        m_b.SetInsertPoint(m_state.allocaBlock);
        m_b.CreateBr(body);
        m_b.SetInsertPoint(body);
    }

    void endFunction() {}

    llvm::AllocaInst* entryAlloca(llvm::Type* ty, llvm::Value* count, unsigned align)
    {
        llvm::IRBuilder<> eb(m_ctx);
        eb.SetInsertPoint(m_state.allocaBlock->getTerminator());
        auto* a = eb.CreateAlloca(ty, count);
        a->setAlignment(llvm::Align(align));
        return a;
    }

    llvm::Value* broadcast(llvm::Value* v, int lanes)
    {
        if (lanes <= 1 || v->getType()->isVectorTy()) return v;
        return m_b.CreateVectorSplat(static_cast<unsigned>(lanes), v);
    }

    static int lanesOf(llvm::Value* v)
    {
        if (auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(v->getType()))
            return static_cast<int>(vt->getNumElements());
        return 1;
    }

    // ---- expressions ----

    // TIR's index type. (Narrower integers may wrap on purpose, so they keep their own width.)
    static bool isInt32(DataType t) { return t.isInt() && t.isScalar() && t.bits == 32; }

    // A buffer index in 64 bits. TIR computes indices in int32 and never overflows them, so
    // computing them in i64 from the start gives the same addresses without a sign extension
    // before every access: LLVM would otherwise spend most of its time (scalar evolution) proving
    // that extending each index sum is safe, and the loops would keep 32-bit copies of it.
    llvm::Value* genIndex(const Expr& e)
    {
        llvm::Type* i64 = m_b.getInt64Ty();
        if (!isInt32(e.type())) return m_b.CreateIntCast(genExpr(e), i64, !e.type().isUInt());
        switch (e.kind()) {
        case ExprKind::IntImm:
            return llvm::ConstantInt::get(
                i64, static_cast<std::uint64_t>(e.as<IntImmNode>()->value), true);
        case ExprKind::Var:
            if (auto it = m_wide.find(e.as<VarNode>()); it != m_wide.end()) return it->second;
            break;
        case ExprKind::Add:
        case ExprKind::Sub:
        case ExprKind::Mul: {
            auto* b = e.as<BinaryNode>();
            llvm::Value* x = genIndex(b->a);
            llvm::Value* y = genIndex(b->b);
            if (e.kind() == ExprKind::Sub) return m_b.CreateSub(x, y, "", false, true);
            // Both sides non-negative: no unsigned wrap either. Said here, LLVM need not prove it
            // (scalar evolution's proofs of it were a third of the optimizer's time).
            bool nuw = nonNegative(b->a) && nonNegative(b->b);
            if (e.kind() == ExprKind::Add) return m_b.CreateAdd(x, y, "", nuw, true);
            return m_b.CreateMul(x, y, "", nuw, true);
        }
        default: break;
        }
        return m_b.CreateSExt(genExpr(e), i64);
    }

    // Whether an int32 index expression is known to be >= 0: constants, loop counters that start
    // at a non-negative value, variables bound to such values, and their sums and products.
    // (Narrower integers may wrap, so nothing is known of them.)
    bool nonNegative(const Expr& e) const
    {
        if (!isInt32(e.type())) return false;
        switch (e.kind()) {
        case ExprKind::IntImm: return e.as<IntImmNode>()->value >= 0;
        case ExprKind::Var: return m_nonNegative.count(e.as<VarNode>()) > 0;
        case ExprKind::Add:
        case ExprKind::Mul: {
            auto* b = e.as<BinaryNode>();
            return nonNegative(b->a) && nonNegative(b->b);
        }
        default: return false;
        }
    }

    void setNonNegative(const Var& v, bool yes)
    {
        if (yes)
            m_nonNegative.insert(v.get());
        else
            m_nonNegative.erase(v.get());
    }

    // Binds a variable. An int32 one is computed once, in 64 bits for the indices that use it,
    // and its 32-bit value is a truncation (as a loop counter's is).
    void bindVar(const Var& v, const Expr& value)
    {
        setNonNegative(v, isInt32(v.type()) && nonNegative(value));
        setValue(v, isInt32(v.type()) ? genIndex(value) : genExpr(value));
    }

    // Gives a variable its value: for an int32 one, the value in 64 bits (see genIndex).
    void setValue(const Var& v, llvm::Value* value)
    {
        if (isInt32(v.type())) {
            m_wide[v.get()] = value;
            m_vars[v.get()] = m_b.CreateTrunc(value, llvmType(v.type()));
        } else {
            m_vars[v.get()] = value;
            m_wide.erase(v.get());
        }
    }

    llvm::Value* genExpr(const Expr& e)
    {
        switch (e.kind()) {
        case ExprKind::IntImm: {
            auto* imm = e.as<IntImmNode>();
            return llvm::ConstantInt::get(llvmType(e.type()),
                                          static_cast<std::uint64_t>(imm->value), true);
        }
        case ExprKind::FloatImm:
            return llvm::ConstantFP::get(llvmType(e.type()), e.as<FloatImmNode>()->value);
        case ExprKind::StringImm: throw CodegenError("string values cannot be computed");
        case ExprKind::Var: {
            auto it = m_vars.find(e.as<VarNode>());
            LS_ASSERT(it != m_vars.end(),
                      "codegen: variable '" + e.as<VarNode>()->name + "' is not defined");
            return it->second;
        }
        case ExprKind::Not: return m_b.CreateNot(genExpr(e.as<NotNode>()->a));
        case ExprKind::Select: {
            auto* s = e.as<SelectNode>();
            llvm::Value* c = genExpr(s->cond);
            llvm::Value* t = genExpr(s->t);
            llvm::Value* f = genExpr(s->f);
            int lanes = std::max({lanesOf(c), lanesOf(t), lanesOf(f)});
            return m_b.CreateSelect(lanes > 1 && lanesOf(c) == 1 ? c : broadcast(c, lanes),
                                    broadcast(t, lanes), broadcast(f, lanes));
        }
        case ExprKind::Cast: return genCast(e.as<CastNode>());
        case ExprKind::Call: return genCall(e.as<CallNode>(), e);
        case ExprKind::TensorLoad:
        case ExprKind::Reduce:
            LS_ASSERT(false, "codegen: unlowered tensor expression");
            return nullptr;
        case ExprKind::BufferLoad: return genLoad(e.as<BufferLoadNode>());
        case ExprKind::Ramp: {
            auto* r = e.as<RampNode>();
            llvm::Value* base = genExpr(r->base);
            llvm::Value* stride = genExpr(r->stride);
            std::vector<llvm::Constant*> idx;
            for (int i = 0; i < r->lanes; ++i)
                idx.push_back(
                    llvm::ConstantInt::get(base->getType(), static_cast<std::uint64_t>(i)));
            llvm::Value* steps = llvm::ConstantVector::get(idx);
            return m_b.CreateAdd(broadcast(base, r->lanes),
                                 m_b.CreateMul(broadcast(stride, r->lanes), steps));
        }
        case ExprKind::Broadcast: {
            auto* b = e.as<BroadcastNode>();
            return broadcast(genExpr(b->value), b->lanes);
        }
        case ExprKind::Let: {
            auto* l = e.as<LetNode>();
            bindVar(l->var, l->value);
            return genExpr(l->body);
        }
        default: return genBinary(e.as<BinaryNode>());
        }
    }

    llvm::Value* genBinary(const BinaryNode* op)
    {
        llvm::Value* a = genExpr(op->a);
        llvm::Value* b = genExpr(op->b);
        int lanes = std::max(lanesOf(a), lanesOf(b));
        a = broadcast(a, lanes);
        b = broadcast(b, lanes);
        DataType t = op->a.type();
        bool isFloat = t.isFloat();
        bool isUnsigned = t.isUInt() || t.isBool();
        switch (op->kind) {
        case ExprKind::Add:
            return isFloat ? m_b.CreateFAdd(a, b) : m_b.CreateAdd(a, b, "", false, !isUnsigned);
        case ExprKind::Sub:
            return isFloat ? m_b.CreateFSub(a, b) : m_b.CreateSub(a, b, "", false, !isUnsigned);
        case ExprKind::Mul:
            return isFloat ? m_b.CreateFMul(a, b) : m_b.CreateMul(a, b, "", false, !isUnsigned);
        case ExprKind::Div:
            if (isFloat) return m_b.CreateFDiv(a, b);
            return isUnsigned ? m_b.CreateUDiv(a, b) : m_b.CreateSDiv(a, b);
        case ExprKind::Mod:
            if (isFloat) return m_b.CreateFRem(a, b);
            return isUnsigned ? m_b.CreateURem(a, b) : m_b.CreateSRem(a, b);
        case ExprKind::FloorDiv:
        case ExprKind::FloorMod: {
            if (isFloat) {
                llvm::Value* q =
                    m_b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, m_b.CreateFDiv(a, b));
                return op->kind == ExprKind::FloorDiv ? q : m_b.CreateFSub(a, m_b.CreateFMul(q, b));
            }
            if (isUnsigned)
                return op->kind == ExprKind::FloorDiv ? m_b.CreateUDiv(a, b) : m_b.CreateURem(a, b);
            llvm::Value* q = m_b.CreateSDiv(a, b);
            llvm::Value* r = m_b.CreateSRem(a, b);
            llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
            // Adjust when the remainder is non-zero and its sign differs from the divisor's.
            llvm::Value* adjust = m_b.CreateAnd(
                m_b.CreateICmpNE(r, zero),
                m_b.CreateICmpNE(m_b.CreateICmpSLT(r, zero), m_b.CreateICmpSLT(b, zero)));
            if (op->kind == ExprKind::FloorDiv)
                return m_b.CreateSub(q, m_b.CreateZExt(adjust, q->getType()));
            return m_b.CreateSelect(adjust, m_b.CreateAdd(r, b), r);
        }
        case ExprKind::Min:
        case ExprKind::Max: {
            bool isMin = op->kind == ExprKind::Min;
            llvm::Value* lt = isFloat      ? m_b.CreateFCmpOLT(a, b)
                              : isUnsigned ? m_b.CreateICmpULT(a, b)
                                           : m_b.CreateICmpSLT(a, b);
            return isMin ? m_b.CreateSelect(lt, a, b) : m_b.CreateSelect(lt, b, a);
        }
        case ExprKind::EQ: return isFloat ? m_b.CreateFCmpOEQ(a, b) : m_b.CreateICmpEQ(a, b);
        case ExprKind::NE: return isFloat ? m_b.CreateFCmpUNE(a, b) : m_b.CreateICmpNE(a, b);
        case ExprKind::LT:
            return isFloat      ? m_b.CreateFCmpOLT(a, b)
                   : isUnsigned ? m_b.CreateICmpULT(a, b)
                                : m_b.CreateICmpSLT(a, b);
        case ExprKind::LE:
            return isFloat      ? m_b.CreateFCmpOLE(a, b)
                   : isUnsigned ? m_b.CreateICmpULE(a, b)
                                : m_b.CreateICmpSLE(a, b);
        case ExprKind::GT:
            return isFloat      ? m_b.CreateFCmpOGT(a, b)
                   : isUnsigned ? m_b.CreateICmpUGT(a, b)
                                : m_b.CreateICmpSGT(a, b);
        case ExprKind::GE:
            return isFloat      ? m_b.CreateFCmpOGE(a, b)
                   : isUnsigned ? m_b.CreateICmpUGE(a, b)
                                : m_b.CreateICmpSGE(a, b);
        case ExprKind::And: return m_b.CreateAnd(a, b);
        case ExprKind::Or: return m_b.CreateOr(a, b);
        default: LS_ASSERT(false, "codegen: unknown binary operator"); return nullptr;
        }
    }

    llvm::Value* genCast(const CastNode* op)
    {
        llvm::Value* v = genExpr(op->value);
        DataType from = op->value.type(), to = op->type;
        llvm::Type* ty = llvmType(to.withLanes(std::max<int>(to.lanes, lanesOf(v))));
        v = broadcast(v, to.lanes);
        if (to.isBool()) {
            llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
            return from.isFloat() ? m_b.CreateFCmpUNE(v, zero) : m_b.CreateICmpNE(v, zero);
        }
        if (from.isFloat() && to.isFloat()) return m_b.CreateFPCast(v, ty);
        if (from.isFloat()) return to.isUInt() ? m_b.CreateFPToUI(v, ty) : m_b.CreateFPToSI(v, ty);
        bool fromSigned = from.isInt();
        if (to.isFloat()) return fromSigned ? m_b.CreateSIToFP(v, ty) : m_b.CreateUIToFP(v, ty);
        return m_b.CreateIntCast(v, ty, fromSigned);
    }

    llvm::Value* mathCall(llvm::Intrinsic::ID id, llvm::Value* x)
    {
        return m_b.CreateUnaryIntrinsic(id, x);
    }

    // A libm function applied lane by lane (tanh has no LLVM intrinsic).
    llvm::Value* libmCall(const char* f32, const char* f64, llvm::Value* x)
    {
        llvm::Type* elem = x->getType()->getScalarType();
        if (elem->isHalfTy()) {
            // libm has no half-precision functions: compute in float and round back.
            llvm::Type* wide = x->getType()->getWithNewType(llvm::Type::getFloatTy(m_ctx));
            return m_b.CreateFPTrunc(libmCall(f32, f64, m_b.CreateFPExt(x, wide)), x->getType());
        }
        const char* name = elem->isDoubleTy() ? f64 : f32;
        llvm::FunctionCallee fn =
            m_mod.getOrInsertFunction(name, llvm::FunctionType::get(elem, {elem}, false));
        int lanes = lanesOf(x);
        if (lanes == 1) return m_b.CreateCall(fn, {x});
        llvm::Value* out = llvm::UndefValue::get(x->getType());
        for (int i = 0; i < lanes; ++i)
            out = m_b.CreateInsertElement(
                out,
                m_b.CreateCall(fn, {m_b.CreateExtractElement(x, static_cast<std::uint64_t>(i))}),
                static_cast<std::uint64_t>(i));
        return out;
    }

    llvm::Value* genCall(const CallNode* op, const Expr& self)
    {
        switch (op->op) {
        case CallOp::Likely: return genExpr(op->args[0]);
        case CallOp::IfThenElse: return genIfThenElse(op, self);
        default: break;
        }
        llvm::Value* x = genExpr(op->args[0]);
        switch (op->op) {
        case CallOp::Exp: return mathCall(llvm::Intrinsic::exp, x);
        case CallOp::Log: return mathCall(llvm::Intrinsic::log, x);
        case CallOp::Sqrt: return mathCall(llvm::Intrinsic::sqrt, x);
        case CallOp::Fabs: return mathCall(llvm::Intrinsic::fabs, x);
        case CallOp::Floor: return mathCall(llvm::Intrinsic::floor, x);
        case CallOp::Ceil: return mathCall(llvm::Intrinsic::ceil, x);
        case CallOp::Tanh: return libmCall("tanhf", "tanh", x);
        case CallOp::Sigmoid: {
            llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
            llvm::Value* e = mathCall(llvm::Intrinsic::exp, m_b.CreateFNeg(x));
            return m_b.CreateFDiv(one, m_b.CreateFAdd(one, e));
        }
        case CallOp::Pow: {
            llvm::Value* y = broadcast(genExpr(op->args[1]), lanesOf(x));
            return m_b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, y);
        }
        default: LS_ASSERT(false, "codegen: unknown call"); return nullptr;
        }
    }

    // if_then_else evaluates only the branch taken: its other branch may read out of bounds
    // (padding). A vector condition is handled lane by lane, or under lane masks where lanes are
    // computed at once (see genLanesAtOnce).
    llvm::Value* genIfThenElse(const CallNode* op, const Expr& self)
    {
        int lanes = self.type().lanes;
        if (op->args[0].type().lanes > 1 && m_lanesAtOnce) {
            llvm::Value* c = genExpr(op->args[0]);
            llvm::Value* t = valueUnderMask(withinMask(c), op->args[1], lanes);
            llvm::Value* f = valueUnderMask(withinMask(m_b.CreateNot(c)), op->args[2], lanes);
            return m_b.CreateSelect(c, t, f);
        }
        if (op->args[0].type().lanes == 1) {
            llvm::Value* c = genExpr(op->args[0]);
            llvm::Function* fn = m_b.GetInsertBlock()->getParent();
            auto* thenBB = llvm::BasicBlock::Create(m_ctx, "then", fn);
            auto* elseBB = llvm::BasicBlock::Create(m_ctx, "else", fn);
            auto* join = llvm::BasicBlock::Create(m_ctx, "join", fn);
            m_b.CreateCondBr(c, thenBB, elseBB);
            m_b.SetInsertPoint(thenBB);
            llvm::Value* t = broadcast(genExpr(op->args[1]), lanes);
            llvm::BasicBlock* thenEnd = m_b.GetInsertBlock();
            m_b.CreateBr(join);
            m_b.SetInsertPoint(elseBB);
            llvm::Value* f = broadcast(genExpr(op->args[2]), lanes);
            llvm::BasicBlock* elseEnd = m_b.GetInsertBlock();
            m_b.CreateBr(join);
            m_b.SetInsertPoint(join);
            llvm::PHINode* phi = m_b.CreatePHI(t->getType(), 2);
            phi->addIncoming(t, thenEnd);
            phi->addIncoming(f, elseEnd);
            return phi;
        }
        llvm::Value* out = llvm::UndefValue::get(llvmType(self.type()));
        for (int i = 0; i < lanes; ++i) {
            Expr lane = laneOf(self, i);
            out = m_b.CreateInsertElement(out, genExpr(lane), static_cast<std::uint64_t>(i));
        }
        return out;
    }

    // `e` for the lanes of `mask`; where it reads memory or may trap (an integer division by a
    // variable), computed only when the mask has lanes (zeros otherwise).
    llvm::Value* valueUnderMask(llvm::Value* mask, const Expr& e, int lanes)
    {
        if (!readsMemoryOrMayTrap(e)) {
            llvm::Value* outer = std::exchange(m_laneMask, mask);
            llvm::Value* v = broadcast(genExpr(e), lanes);
            m_laneMask = outer;
            return v;
        }
        llvm::BasicBlock* before = m_b.GetInsertBlock();
        llvm::Value* v = nullptr;
        llvm::BasicBlock* someEnd = forAnyLane(mask, [&] { v = broadcast(genExpr(e), lanes); });
        llvm::PHINode* phi = m_b.CreatePHI(v->getType(), 2);
        phi->addIncoming(v, someEnd);
        phi->addIncoming(llvm::Constant::getNullValue(v->getType()), before);
        return phi;
    }

    // Emits `emit` for the lanes of `mask`, in a block entered only when the mask has lanes;
    // continues after it. Returns the block `emit` ended in.
    template <class Emit> llvm::BasicBlock* forAnyLane(llvm::Value* mask, const Emit& emit)
    {
        llvm::Function* fn = m_b.GetInsertBlock()->getParent();
        auto* some = llvm::BasicBlock::Create(m_ctx, "lanes_some", fn);
        auto* end = llvm::BasicBlock::Create(m_ctx, "lanes_end", fn);
        m_b.CreateCondBr(m_b.CreateOrReduce(mask), some, end);
        m_b.SetInsertPoint(some);
        llvm::Value* outer = std::exchange(m_laneMask, mask);
        emit();
        m_laneMask = outer;
        llvm::BasicBlock* someEnd = m_b.GetInsertBlock();
        m_b.CreateBr(end);
        m_b.SetInsertPoint(end);
        return someEnd;
    }

    static bool readsMemoryOrMayTrap(const Expr& e)
    {
        class Finder : public IRVisitor {
        public:
            bool found = false;

        protected:
            void visitBufferLoad(const BufferLoadNode*) override { found = true; }
            void visitBinary(const BinaryNode* op) override
            {
                if (integerDivisionMayTrap(op)) found = true;
                IRVisitor::visitBinary(op);
            }
        } finder;
        finder.visit(e);
        return finder.found;
    }

    // The scalar expression computing lane `i` of a vector expression.
    Expr laneOf(const Expr& e, int i)
    {
        if (e.type().lanes == 1) return e;
        switch (e.kind()) {
        case ExprKind::Ramp: {
            auto* r = e.as<RampNode>();
            return r->base + r->stride * makeInt(i, r->stride.type());
        }
        case ExprKind::Broadcast: return e.as<BroadcastNode>()->value;
        case ExprKind::BufferLoad: {
            auto* l = e.as<BufferLoadNode>();
            std::vector<Expr> idx;
            for (auto& x : l->indices)
                idx.push_back(laneOf(x, i));
            return makeBufferLoad(l->buffer, idx);
        }
        case ExprKind::Not: return makeNot(laneOf(e.as<NotNode>()->a, i));
        case ExprKind::Select: {
            auto* s = e.as<SelectNode>();
            return makeSelect(laneOf(s->cond, i), laneOf(s->t, i), laneOf(s->f, i));
        }
        case ExprKind::Cast:
            return makeCast(e.type().element(), laneOf(e.as<CastNode>()->value, i));
        case ExprKind::Call: {
            auto* c = e.as<CallNode>();
            std::vector<Expr> args;
            for (auto& a : c->args)
                args.push_back(laneOf(a, i));
            return makeCall(e.type().element(), c->op, args);
        }
        case ExprKind::Let: {
            auto* l = e.as<LetNode>();
            return makeLet(l->var, l->value, laneOf(l->body, i));
        }
        default:
            if (auto* b = e.as<BinaryNode>())
                return makeBinary(b->kind, laneOf(b->a, i), laneOf(b->b, i));
            LS_ASSERT(false, "codegen: cannot take a lane of " + printExpr(e));
            return e;
        }
    }

    llvm::Value* bufferPointer(const Buffer& b)
    {
        auto it = m_vars.find(b->data.get());
        LS_ASSERT(it != m_vars.end(), "codegen: buffer '" + b->name + "' has no storage here");
        return it->second;
    }

    // The alignment an element of a buffer of type `t` is known to have: the largest power of two
    // dividing its size (elements of a float32x5 buffer start every 20 bytes), at most 64.
    unsigned elementAlign(DataType t)
    {
        int size = t.bytes() * t.lanes;
        return static_cast<unsigned>(std::min(size & -size, 64));
    }

    // The address of element `index` of a buffer of type `elem`. Buffers of a vector type
    // (StorageRewrite makes them) are packed, as their allocation is: element i starts at scalar
    // i * lanes. A GEP over the LLVM vector type would step by its allocation size instead, which
    // is larger when the lane count is not a power of two (<5 x float> occupies 32 bytes).
    llvm::Value* elementPointer(DataType elem, llvm::Value* base, llvm::Value* index,
                                bool nonNegativeIndex = false)
    {
        if (elem.lanes == 1) return m_b.CreateInBoundsGEP(memType(elem), base, index);
        llvm::Value* lanes = llvm::ConstantInt::get(index->getType(), elem.lanes);
        llvm::Value* scalars = m_b.CreateMul(index, lanes, "", nonNegativeIndex, true);
        return m_b.CreateInBoundsGEP(memType(elem.element()), base, scalars);
    }

    // The index of the first element an index names: itself, or a ramp's base.
    static const Expr& firstIndex(const Expr& index)
    {
        auto* r = index.as<RampNode>();
        return r ? r->base : index;
    }

    // The address of the first element a scalar index or a stride-one ramp names.
    llvm::Value* firstElementPointer(DataType elem, llvm::Value* base, const Expr& index)
    {
        const Expr& first = firstIndex(index);
        return elementPointer(elem, base, genIndex(first), nonNegative(first));
    }

    // The same for a masked access, where the first lane may be off and its address outside the
    // buffer (padding reads from x - 2): not `inbounds`, which would make every lane's address
    // poison then.
    llvm::Value* maskedFirstPointer(DataType elem, llvm::Value* base, const Expr& index)
    {
        return m_b.CreateGEP(memType(elem), base, genIndex(firstIndex(index)));
    }

    // Whether the elements a ramp of constant base and stride one names all lie in a stack
    // buffer of the function being emitted (so reading lanes that are masked off is harmless,
    // and writing them back unchanged too).
    bool inOwnFrame(const Buffer& b, const Expr& index) const
    {
        auto it = m_stackBytes.find(b->data.get());
        if (it == m_stackBytes.end() || it->second.second != m_b.GetInsertBlock()->getParent())
            return false;
        auto* r = index.as<RampNode>();
        std::int64_t first = 0;
        if (!r || !isOne(r->stride) || !isConstInt(r->base, &first)) return false;
        // In bytes: the buffer may be a view of another type on the allocation (StorageRewrite).
        return first >= 0 &&
               (first + r->lanes) * b->dtype.bytes() * b->dtype.lanes <= it->second.first;
    }

    // Masked loads and stores are of a power-of-two number of lanes: LLVM 16 compiles some others
    // wrongly for x86 (of 17 floats under a mask whose any-lane test guards them, it loads the
    // 17th whatever its mask says).
    static int maskedWidth(int lanes)
    {
        return static_cast<int>(llvm::PowerOf2Ceil(static_cast<std::uint64_t>(lanes)));
    }

    // `v` with `width` lanes: its first ones, then (widened) copies of its first (harmless as
    // addresses too).
    llvm::Value* resizeLanes(llvm::Value* v, int width)
    {
        int lanes = lanesOf(v);
        if (lanes == width) return v;
        std::vector<int> order(static_cast<std::size_t>(width), 0);
        for (int i = 0; i < std::min(lanes, width); ++i)
            order[static_cast<std::size_t>(i)] = i;
        return m_b.CreateShuffleVector(v, order);
    }

    // A mask of `width` lanes: its own, then lanes that are off.
    llvm::Value* widenMask(llvm::Value* mask, int width)
    {
        int lanes = lanesOf(mask);
        if (lanes == width) return mask;
        std::vector<int> order(static_cast<std::size_t>(width),
                               lanes); // lane 0 of the all-off vector
        for (int i = 0; i < lanes; ++i)
            order[static_cast<std::size_t>(i)] = i;
        return m_b.CreateShuffleVector(mask, llvm::Constant::getNullValue(mask->getType()), order);
    }

    // A vector of the addresses of the elements a vector index names.
    llvm::Value* lanePointers(DataType elem, llvm::Value* base, const Expr& index)
    {
        llvm::Value* idx = genExpr(index);
        llvm::Type* i64 =
            llvm::FixedVectorType::get(m_b.getInt64Ty(), static_cast<unsigned>(lanesOf(idx)));
        idx = m_b.CreateIntCast(idx, i64, !index.type().isUInt());
        return m_b.CreateGEP(memType(elem), base, idx); // lanes that are off may point anywhere
    }

    llvm::Value* genLoad(const BufferLoadNode* op)
    {
        LS_ASSERT(op->indices.size() == 1,
                  "codegen: buffer '" + op->buffer->name + "' is not flat");
        DataType elem = op->buffer->dtype;
        const Expr& index = op->indices[0];
        llvm::Value* base = bufferPointer(op->buffer);
        llvm::Type* mty = memType(elem);
        auto fromMemory = [&](llvm::Value* v) {
            return elem.element().isBool()
                       ? m_b.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()))
                       : v;
        };
        if (index.type().lanes == 1) {
            llvm::Value* ptr = firstElementPointer(elem, base, index);
            return fromMemory(m_b.CreateAlignedLoad(mty, ptr, llvm::Align(elementAlign(elem))));
        }
        int lanes = index.type().lanes;
        if (m_laneMask && !inOwnFrame(op->buffer, index)) {
            LS_ASSERT(lanes == lanesOf(m_laneMask) && elem.lanes == 1,
                      "codegen: masked load of other lanes");
            const int width = maskedWidth(lanes);
            llvm::Type* vty = memType(elem.withLanes(width));
            llvm::Value* none = llvm::Constant::getNullValue(vty);
            llvm::Value* mask = widenMask(m_laneMask, width);
            llvm::Align align(elementAlign(elem));
            llvm::Value* v;
            if (auto* r = index.as<RampNode>(); r && isOne(r->stride))
                v = m_b.CreateMaskedLoad(vty, maskedFirstPointer(elem, base, index), align, mask,
                                         none);
            else
                v = m_b.CreateMaskedGather(vty, resizeLanes(lanePointers(elem, base, index), width),
                                           align, mask, none);
            return fromMemory(resizeLanes(v, lanes));
        }
        if (auto* r = index.as<RampNode>(); r && isOne(r->stride) && elem.lanes == 1) {
            llvm::Type* vty = memType(elem.withLanes(lanes));
            llvm::Value* ptr = firstElementPointer(elem, base, index);
            return fromMemory(m_b.CreateAlignedLoad(vty, ptr, llvm::Align(elementAlign(elem))));
        }
        llvm::Align align(elementAlign(elem));
        // One address for all lanes: one load, broadcast.
        auto* ramp = index.as<RampNode>();
        auto* same = index.as<BroadcastNode>();
        if (elem.lanes == 1 && (same || (ramp && isZero(ramp->stride)))) {
            llvm::Value* ptr = elementPointer(elem, base, genExpr(same ? same->value : ramp->base));
            return fromMemory(broadcast(m_b.CreateAlignedLoad(mty, ptr, align), lanes));
        }
        // A gather: one instruction where the target's gathers are fast (AVX-512, and AVX2 on
        // the Intel cores LLVM marks so), as LLVM's vectorizer decides; lane by lane otherwise,
        // as TVM emits it (LLVM would expand the gather the same way, but after its optimizer).
        // Only of a power-of-two width: LLVM 16 miscompiles some others (see maskedWidth).
        llvm::Type* vty = memType(elem.withLanes(lanes));
        if (elem.lanes == 1 && llvm::isPowerOf2_32(static_cast<unsigned>(lanes)) &&
            tti().isLegalMaskedGather(vty, align) &&
            !tti().forceScalarizeMaskedGather(llvm::cast<llvm::VectorType>(vty), align))
            return fromMemory(m_b.CreateMaskedGather(vty, lanePointers(elem, base, index), align));
        llvm::Value* idx = genExpr(index);
        llvm::Value* out = llvm::UndefValue::get(memType(elem.withLanes(lanes * elem.lanes)));
        for (int i = 0; i < lanes; ++i) {
            llvm::Value* lane = m_b.CreateExtractElement(idx, static_cast<std::uint64_t>(i));
            llvm::Value* ptr = elementPointer(elem, base, lane);
            llvm::Value* v = m_b.CreateAlignedLoad(mty, ptr, align);
            out = m_b.CreateInsertElement(out, v, static_cast<std::uint64_t>(i));
        }
        return fromMemory(out);
    }

    void genStore(const BufferStoreNode* op)
    {
        LS_ASSERT(op->indices.size() == 1,
                  "codegen: buffer '" + op->buffer->name + "' is not flat");
        DataType elem = op->buffer->dtype;
        const Expr& index = op->indices[0];
        llvm::Value* base = bufferPointer(op->buffer);
        int lanes = index.type().lanes;
        llvm::Value* value = genExpr(op->value);
        if (elem.element().isBool())
            value = m_b.CreateZExt(value, memType(elem.withLanes(lanesOf(value))));
        if (lanes > 1) value = broadcast(value, lanes);
        auto* r = index.as<RampNode>();
        if (m_laneMask && lanes > 1) {
            LS_ASSERT(lanes == lanesOf(m_laneMask) && elem.lanes == 1,
                      "codegen: masked store of other lanes");
            llvm::Align align(elementAlign(elem));
            if (inOwnFrame(op->buffer, index)) {
                // The other lanes keep their values: a blend, which leaves the buffer to be
                // promoted to registers. (Only in this function's own frame: no other thread
                // writes there.)
                llvm::Value* ptr = firstElementPointer(elem, base, index);
                llvm::Value* old = m_b.CreateAlignedLoad(value->getType(), ptr, align);
                m_b.CreateAlignedStore(m_b.CreateSelect(m_laneMask, value, old), ptr, align);
            } else {
                const int width = maskedWidth(lanes);
                llvm::Value* mask = widenMask(m_laneMask, width);
                llvm::Value* wide = resizeLanes(value, width);
                if (r && isOne(r->stride))
                    m_b.CreateMaskedStore(wide, maskedFirstPointer(elem, base, index), align, mask);
                else
                    m_b.CreateMaskedScatter(
                        wide, resizeLanes(lanePointers(elem, base, index), width), align, mask);
            }
            return;
        }
        if (lanes == 1 || (r && isOne(r->stride) && elem.lanes == 1)) {
            llvm::Value* ptr = firstElementPointer(elem, base, index);
            m_b.CreateAlignedStore(value, ptr, llvm::Align(elementAlign(elem)));
            return;
        }
        llvm::Value* idx = genExpr(index);
        for (int i = 0; i < lanes; ++i) {
            llvm::Value* lane = m_b.CreateExtractElement(idx, static_cast<std::uint64_t>(i));
            llvm::Value* ptr = elementPointer(elem, base, lane);
            m_b.CreateAlignedStore(m_b.CreateExtractElement(value, static_cast<std::uint64_t>(i)),
                                   ptr, llvm::Align(elementAlign(elem)));
        }
    }

    // ---- statements ----

    void genStmt(const Stmt& s)
    {
        if (!s.defined()) return;
        switch (s.kind()) {
        case StmtKind::For: genFor(s.as<ForNode>()); return;
        case StmtKind::BufferStore: genStore(s.as<BufferStoreNode>()); return;
        case StmtKind::LetStmt: {
            auto* l = s.as<LetStmtNode>();
            bindVar(l->var, l->value);
            genStmt(l->body);
            return;
        }
        case StmtKind::IfThenElse: genIf(s.as<IfThenElseNode>()); return;
        case StmtKind::Seq:
            for (auto& x : s.as<SeqNode>()->stmts)
                genStmt(x);
            return;
        case StmtKind::Attr: {
            auto* a = s.as<AttrNode>();
            if (a->key == "thread_extent") {
                throw CodegenError(
                    "the loop bound to GPU thread axis '" + a->target +
                    "' is kept for export but GPU thread axes are not run on the CPU");
            }
            genStmt(a->body);
            return;
        }
        case StmtKind::Evaluate: genExpr(s.as<EvaluateNode>()->value); return;
        case StmtKind::Allocate: genAllocate(s.as<AllocateNode>()); return;
        case StmtKind::TensorStore:
        case StmtKind::Realize: LS_ASSERT(false, "codegen: unflattened statement"); return;
        }
    }

    void genIf(const IfThenElseNode* op)
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

    void genAllocate(const AllocateNode* op)
    {
        const Buffer& b = op->buffer;
        llvm::Value* count = genExpr(b->shape[0]);
        std::int64_t n;
        bool constant = isConstInt(b->shape[0], &n);
        std::int64_t bytes = constant ? n * b->dtype.bytes() * b->dtype.lanes : -1;
        if (constant && bytes <= kMaxStackBytes) {
            // Packed scalars, as on the heap: see elementPointer.
            llvm::Value* scalars = m_b.getInt64(static_cast<std::uint64_t>(n * b->dtype.lanes));
            m_vars[b->data.get()] = entryAlloca(memType(b->dtype.element()), scalars, 64);
            m_stackBytes[b->data.get()] = {bytes, m_b.GetInsertBlock()->getParent()};
            genStmt(op->body);
            m_stackBytes.erase(b->data.get());
            return;
        }
        llvm::Value* size = m_b.CreateMul(
            m_b.CreateIntCast(count, m_b.getInt64Ty(), true),
            m_b.getInt64(static_cast<std::uint64_t>(b->dtype.bytes() * b->dtype.lanes)));
        llvm::FunctionCallee alloc =
            m_mod.getOrInsertFunction("loopscope_alloc", ptrTy(), m_b.getInt64Ty());
        llvm::FunctionCallee release =
            m_mod.getOrInsertFunction("loopscope_free", m_b.getVoidTy(), ptrTy());
        llvm::Value* p = m_b.CreateCall(alloc, {size});
        m_vars[b->data.get()] = p;
        genStmt(op->body);
        m_b.CreateCall(release, {p});
    }

    // Whether LLVM may unroll a loop (see genLoop).
    enum class Rolled {
        No,
        Yes,
        ForInvariants, // see holdsTooManyInvariants
    };

    // A counted loop: for (v = min; v < min + extent; ++v) body.
    // `rolled` keeps LLVM from unrolling it (see genLoop). So is a loop around one kept rolled for
    // its invariants: unrolling it would only make copies of that loop, for LLVM to compile (the
    // ladder's k loop around its rows, four of them). A loop in the copy for edge tiles is
    // neither unrolled nor vectorized: it runs for few tiles, and optimizing it as hard as the
    // copy that runs for all others would double the compile time (see versionOnGuards).
    void emitLoop(const Var& var, llvm::Value* begin, llvm::Value* end, const Stmt& body,
                  bool nonNegativeBegin, Rolled rolled = Rolled::No)
    {
        const bool rolledAround = std::exchange(m_rolledForInvariants, false);
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
        setValue(var, iv);
        const bool counting = wide && nonNegativeBegin;
        setNonNegative(var, counting);
        genStmt(body);
        const bool rolledInside = m_rolledForInvariants;
        m_rolledForInvariants = rolledAround || rolledInside || rolled == Rolled::ForInvariants;
        llvm::Value* next =
            m_b.CreateAdd(iv, llvm::ConstantInt::get(iv->getType(), 1), "", counting, true);
        iv->addIncoming(next, m_b.GetInsertBlock());
        llvm::BranchInst* latch = m_b.CreateBr(header);
        if (rolled != Rolled::No || rolledInside || m_edgeCopies > 0) {
            std::vector<llvm::Metadata*> md{
                nullptr,
                llvm::MDNode::get(m_ctx, llvm::MDString::get(m_ctx, "llvm.loop.unroll.disable"))};
            if (m_edgeCopies > 0) {
                md.push_back(llvm::MDNode::get(
                    m_ctx, {llvm::MDString::get(m_ctx, "llvm.loop.vectorize.enable"),
                            llvm::ConstantAsMetadata::get(m_b.getFalse())}));
            }
            llvm::MDNode* self = llvm::MDNode::getDistinct(m_ctx, md);
            self->replaceOperandWith(0, self);
            latch->setMetadata(llvm::LLVMContext::MD_loop, self);
        }
        m_b.SetInsertPoint(exit);
    }

    void genFor(const ForNode* op)
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

    // A loop over the lanes of a vectorized loop, which VectorizeLoop runs lane by lane because a
    // condition depends on the lane (a split that does not divide its axis, padding), is computed
    // on vectors after all: the lanes where a condition fails are masked off (masked loads and
    // stores, selects). The numbers are the same as lane by lane when no lane reads what another
    // writes (see lanesAtOnce); otherwise, and when the body has parts vectors cannot compute, it
    // stays a loop.
    bool genLanesAtOnce(const ForNode* op)
    {
        Stmt body = op->body;
        if (!m_guardsAssumed.empty()) body = AssumedGuards(m_guardsAssumed).mutate(body);
        Stmt loop = body.same(op->body) ? Stmt() : remakeFor(op, op->min, op->extent, body);
        Stmt lanes = lanesAtOnce(loop.defined() ? loop.as<ForNode>() : op);
        if (!lanes.defined()) return false;
        LS_ASSERT(!m_lanesAtOnce, "codegen: lanes computed at once inside others");
        m_lanesAtOnce = true;
        genStmt(lanes);
        m_lanesAtOnce = false;
        return true;
    }

    // Emits `s` for the lanes of `mask` only, and not at all when it has none: a load at a
    // scalar index in it may be out of bounds where no lane would have made it.
    void genUnderMask(llvm::Value* mask, const Stmt& s)
    {
        forAnyLane(mask, [&] { genStmt(s); });
    }

    // The lanes of `mask` within the current mask.
    // (A logical and: lanes off outside stay off even where `mask` is poison, as a condition
    // computed for a lane that never runs may be.)
    llvm::Value* withinMask(llvm::Value* mask)
    {
        return m_laneMask ? m_b.CreateLogicalAnd(m_laneMask, mask) : mask;
    }

    // A loop that runs on this thread: a memset or straight-line code where it fills or copies
    // a contiguous range, a loop otherwise.
    void genLoop(const ForNode* op)
    {
        auto row = contiguousRun(op->body); // what one step of the loop writes
        if (auto run = row ? acrossLoop(*row, op) : std::nullopt) {
            if (!run->load && run->bytes >= kMemsetBytes) {
                emitMemset(*run);
                return;
            }
            if (straightLine(*run)) {
                emitStraightLine(*run);
                return;
            }
        }
        if (auto fill = tiledZeroFill(op); fill && fill->bytes >= kMemsetBytes) {
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
    static constexpr std::int64_t kStraightLineIterations = 256;
    static constexpr std::int64_t kFewIterations = 8;
    bool holdsTooManyInvariants(const ForNode* op)
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

    std::int64_t vectorRegisterFileBytes()
    {
        const std::int64_t width =
            tti()
                .getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector)
                .getFixedValue() /
            8;
        return width * tti().getNumberOfRegisters(tti().getRegisterClassForType(true));
    }

    // What the target machine's instructions cost and can do (the same for all functions built
    // here: they have the same CPU and features).
    const llvm::TargetTransformInfo& tti()
    {
        if (!m_tti) m_tti.emplace(m_tm.getTargetTransformInfo(*m_b.GetInsertBlock()->getParent()));
        return *m_tti;
    }

    // The largest loop body copied for versioning, in scalar operations. The guarded kernels of
    // the samples (at sizes their splits do not divide) have 17 to 954.
    static constexpr std::int64_t kMaxVersionedOps = 4096;

    // A loop whose body has `likely` guards that can be decided before it (see DecidableGuards)
    // is emitted twice: once for when they all hold, without them, and once as it is, for the
    // tiles at the edge. The first is the one that runs almost always, and LLVM can unroll and
    // schedule it as if the splits had divided their axes. Each guard is decided once, at the
    // outermost loop it can be.
    bool versionOnGuards(const ForNode* op)
    {
        if (op->forKind != ForKind::Serial && op->forKind != ForKind::Unrolled) return false;
        DecidableGuards found(m_guardsDecided);
        found.collect(op);
        // A body of thousands of operations (a user's unroll of wide gathers) is not copied: it
        // takes LLVM seconds already. An inner loop with a smaller body may still decide them.
        if (found.guards.empty() || found.scalarOps > kMaxVersionedOps) return false;
        llvm::Value* all = nullptr;
        for (auto& g : found.guards) {
            llvm::Value* c = genExpr(g.decision);
            all = all ? m_b.CreateAnd(all, c) : c;
            m_guardsDecided.insert(g.node);
        }
        llvm::Function* fn = m_b.GetInsertBlock()->getParent();
        auto* fast = llvm::BasicBlock::Create(m_ctx, "guards_hold", fn);
        auto* edge = llvm::BasicBlock::Create(m_ctx, "guards_edge", fn);
        auto* end = llvm::BasicBlock::Create(m_ctx, "guards_end", fn);
        llvm::MDBuilder md(m_ctx);
        m_b.CreateCondBr(all, fast, edge, md.createBranchWeights(2000, 1));
        auto emit = [&] {
            genLoop(op);
            m_b.CreateBr(end);
        };
        // In the copy for edge tiles, a guard on this loop's counter may be decided once more,
        // further in, where the counter has its value instead of its last one: the edge of a
        // loop over tiles (say all of the last block of columns) is then mostly full tiles, which
        // run in a fast copy of their own. (Only once, and only then: each such copy is one more
        // optimized copy of the body to compile.)
        const bool decideAgain = m_edgeCopies == 0;
        auto onThisLoop = [&](const IfThenElseNode* guard) {
            FreeVarCollector vars;
            vars.visit(guard->cond);
            return std::any_of(vars.free.begin(), vars.free.end(),
                               [&](const Var& v) { return v.get() == op->var.get(); });
        };
        const int edgeCopies = std::exchange(m_edgeCopies, 0); // the fast copy is optimized in full
        m_b.SetInsertPoint(fast);
        for (auto& g : found.guards)
            m_guardsAssumed.insert(g.node);
        emit();
        for (auto& g : found.guards)
            m_guardsAssumed.erase(g.node);
        m_edgeCopies = edgeCopies;
        m_b.SetInsertPoint(edge);
        ++m_edgeCopies;
        if (decideAgain)
            for (auto& g : found.guards)
                if (onThisLoop(g.node)) m_guardsDecided.erase(g.node);
        emit();
        for (auto& g : found.guards)
            m_guardsDecided.insert(g.node);
        --m_edgeCopies;
        m_b.SetInsertPoint(end);
        return true;
    }

    // A nest of serial loops whose one statement stores zeros, or copies another buffer's
    // elements, into one contiguous range of a buffer (and, for a copy, from one).
    struct ContiguousRun {
        const BufferStoreNode* store = nullptr;
        const BufferLoadNode* load = nullptr; // the source of a copy; none for a zero fill
        std::vector<const ForNode*> loops;    // innermost first
        std::int64_t units = 0;               // buffer elements written
        std::int64_t bytes = 0;
    };
    // A zero fill from this size on becomes one memset, as LLVM would make of it. Smaller fills
    // and copies of several elements between buffers in memory are written as straight-line
    // vector accesses of kRunVectorBytes; the rest stay loops (see setAttributes).
    static constexpr std::int64_t kMemsetBytes = 1024;
    static constexpr std::int64_t kRunVectorBytes = 32;
    // A stack buffer larger than the largest register file (32 registers of 64 bytes) can only
    // live in memory; a smaller one may be promoted to registers, which needs LLVM to see (and
    // unroll) its loops in their own terms.
    static constexpr std::uint64_t kRegisterFileBytes = 32 * 64;

    static bool isZero(const Expr& e)
    {
        if (auto* b = e.as<BroadcastNode>()) return isZero(b->value);
        if (auto* i = e.as<IntImmNode>()) return i->value == 0;
        if (auto* f = e.as<FloatImmNode>()) return f->value == 0 && !std::signbit(f->value);
        return false;
    }

    // How many elements an index names, read or written one after another: 1 for a scalar
    // index, the lanes of a stride-one ramp; 0 for anything else.
    static std::int64_t contiguousUnits(const Expr& index, const Buffer& b)
    {
        if (index.type().lanes == 1) return 1;
        if (auto* r = index.as<RampNode>(); r && isOne(r->stride) && b->dtype.lanes == 1)
            return r->lanes;
        return 0;
    }

    std::optional<ContiguousRun> contiguousRun(const Stmt& s) const
    {
        if (auto* g = s.as<IfThenElseNode>(); g && m_guardsAssumed.count(g))
            return contiguousRun(g->thenCase);
        if (auto* st = s.as<BufferStoreNode>()) {
            if (st->indices.size() != 1) return std::nullopt;
            ContiguousRun run;
            run.store = st;
            run.units = contiguousUnits(st->indices[0], st->buffer);
            if (run.units == 0) return std::nullopt;
            if (!isZero(st->value)) {
                // A copy from another buffer of the same type, element for element.
                auto* ld = st->value.as<BufferLoadNode>();
                if (!ld || ld->indices.size() != 1 ||
                    ld->buffer->data.get() == st->buffer->data.get() ||
                    ld->buffer->dtype != st->buffer->dtype ||
                    contiguousUnits(ld->indices[0], ld->buffer) != run.units)
                    return std::nullopt;
                run.load = ld;
            }
            run.bytes = run.units * st->buffer->dtype.bytes() * st->buffer->dtype.lanes;
            return run;
        }
        auto* loop = s.as<ForNode>();
        if (!loop) return std::nullopt;
        auto inner = contiguousRun(loop->body);
        return inner ? acrossLoop(*inner, loop) : std::nullopt;
    }

    // How far one step of `loop` moves `e`, when that is a constant.
    static bool constantStep(const Expr& e, const ForNode* loop, std::int64_t* step)
    {
        VarMap next{{loop->var.get(), Expr(loop->var) + makeConst(loop->var.type(), 1)}};
        return isConstInt(simplify(substitute(e, next) - e), step);
    }

    // The run a loop makes of `run`, its body's, when each step moves the store (and the load)
    // on by exactly what the body covers.
    static std::optional<ContiguousRun> acrossLoop(ContiguousRun run, const ForNode* loop)
    {
        std::int64_t extent = 0;
        if (loop->forKind != ForKind::Serial || !isConstInt(loop->extent, &extent) || extent <= 0)
            return std::nullopt;
        auto stepsByRun = [&](const Expr& index) {
            std::int64_t step = 0;
            return constantStep(firstIndex(index), loop, &step) && step == run.units;
        };
        if (!stepsByRun(run.store->indices[0]) || (run.load && !stepsByRun(run.load->indices[0])))
            return std::nullopt;
        run.loops.push_back(loop);
        run.units *= extent;
        run.bytes *= extent;
        return run;
    }

    bool inMemory(const Buffer& b, std::uint64_t registerFileBytes = kRegisterFileBytes)
    {
        auto* slot = llvm::dyn_cast<llvm::AllocaInst>(bufferPointer(b));
        if (!slot) return true;
        auto size = slot->getAllocationSize(m_mod.getDataLayout());
        return size && !size->isScalable() && size->getFixedValue() > registerFileBytes;
    }

    bool straightLine(const ContiguousRun& run)
    {
        return run.units > 1 && run.bytes < kMemsetBytes && inMemory(run.store->buffer) &&
               (!run.load || inMemory(run.load->buffer));
    }

    void emitMemset(const ContiguousRun& run)
    {
        emitMemset(run.loops, run.store->buffer, run.store->indices[0], run.bytes);
    }

    // Zeros `bytes` from element `start` of `b` on, with the loops' variables at their minimum.
    void emitMemset(const std::vector<const ForNode*>& loops, const Buffer& b, const Expr& start,
                    std::int64_t bytes)
    {
        for (auto* loop : loops)
            bindVar(loop->var, loop->min);
        DataType elem = b->dtype;
        llvm::Value* ptr = firstElementPointer(elem, bufferPointer(b), start);
        m_b.CreateMemSet(ptr, m_b.getInt8(0), m_b.getInt64(static_cast<std::uint64_t>(bytes)),
                         llvm::MaybeAlign(elementAlign(elem)));
    }

    // A zero fill of one contiguous range of a buffer, whatever order its loops walk it in: the
    // init of a tiled block cache (columns of tiles outer, rows inner, a few vector stores per
    // step) covers the whole cache, but not element after element. LLVM unrolls such a nest into
    // one block of thousands of stores, whose scheduling alone takes seconds. The stores must be
    // affine in the loops (serial, constant extents); where each one lands is listed, up to
    // kMaxListedStores of them, and must together cover the range.
    struct TiledFill {
        const BufferStoreNode* store = nullptr; // one of the stores
        Expr start;                        // the range's first element, the loops at their minimum
        std::vector<const ForNode*> loops; // outermost first
        std::int64_t bytes = 0;
    };
    static constexpr std::int64_t kMaxListedStores = std::int64_t{1} << 16;

    std::optional<TiledFill> tiledZeroFill(const ForNode* outer) const
    {
        TiledFill fill;
        VarMap lets; // the nest's let-bound variables, in terms of the loops
        const Stmt* body = nullptr;
        std::int64_t steps = 1;
        std::vector<std::int64_t> extents;
        for (const ForNode* loop = outer; loop;) {
            std::int64_t extent = 0;
            if (loop->forKind != ForKind::Serial || !isConstInt(loop->extent, &extent) ||
                extent <= 0)
                return std::nullopt;
            extents.push_back(extent);
            steps *= extent;
            if (steps > kMaxListedStores) return std::nullopt;
            fill.loops.push_back(loop);
            body = &loop->body;
            for (;;) {
                if (auto* let = body->as<LetStmtNode>()) {
                    lets[let->var.get()] = substitute(let->value, lets);
                    body = &let->body;
                } else if (auto* g = body->as<IfThenElseNode>(); g && m_guardsAssumed.count(g)) {
                    body = &g->thenCase;
                } else {
                    break;
                }
            }
            loop = body->as<ForNode>();
        }
        std::vector<const BufferStoreNode*> stores;
        if (auto* st = body->as<BufferStoreNode>()) stores.push_back(st);
        if (auto* seq = body->as<SeqNode>()) {
            for (auto& st : seq->stmts) {
                if (!st.as<BufferStoreNode>()) return std::nullopt;
                stores.push_back(st.as<BufferStoreNode>());
            }
        }
        if (stores.empty() || steps * static_cast<std::int64_t>(stores.size()) > kMaxListedStores)
            return std::nullopt;
        const Buffer& buffer = stores[0]->buffer;
        std::int64_t units = 0;
        std::vector<Expr> firsts;
        for (auto* st : stores) {
            if (st->buffer->data.get() != buffer->data.get() || st->indices.size() != 1 ||
                !isZero(st->value))
                return std::nullopt;
            std::int64_t u = contiguousUnits(st->indices[0], buffer);
            if (u == 0 || (units != 0 && u != units)) return std::nullopt;
            units = u;
            firsts.push_back(substitute(firstIndex(st->indices[0]), lets));
        }
        // Each store's offset from the first; each loop's step. Both constant: affine stores.
        const Expr& base = firsts[0];
        std::vector<std::int64_t> offsets, loopSteps;
        for (auto& f : firsts) {
            if (!isConstInt(simplify(f - base), &offsets.emplace_back())) return std::nullopt;
        }
        for (auto* loop : fill.loops) {
            if (!constantStep(base, loop, &loopSteps.emplace_back())) return std::nullopt;
        }
        // Where every store lands, relative to the first store's first step.
        std::vector<std::int64_t> landed;
        std::vector<std::int64_t> at(fill.loops.size(), 0);
        for (std::int64_t step = 0; step < steps; ++step) {
            std::int64_t here = 0;
            for (std::size_t i = 0; i < at.size(); ++i)
                here += at[i] * loopSteps[i];
            for (std::int64_t o : offsets)
                landed.push_back(here + o);
            for (std::size_t i = at.size(); i-- > 0;) {
                if (++at[i] < extents[i]) break;
                at[i] = 0;
            }
        }
        std::sort(landed.begin(), landed.end());
        std::int64_t end = landed.front();
        for (std::int64_t l : landed) {
            if (l > end) return std::nullopt; // a gap
            end = std::max(end, l + units);
        }
        fill.store = stores[0];
        fill.start = simplify(base + makeConst(base.type(), static_cast<double>(landed.front())));
        fill.bytes = (end - landed.front()) * buffer->dtype.bytes() * buffer->dtype.lanes;
        return fill;
    }

    void emitStraightLine(const ContiguousRun& run)
    {
        for (auto* loop : run.loops)
            bindVar(loop->var, loop->min);
        DataType elem = run.store->buffer->dtype;
        llvm::Type* scalar = memType(elem.element());
        const std::int64_t scalarBytes = elem.bytes();
        const llvm::Align align(elementAlign(elem));
        llvm::Value* to =
            firstElementPointer(elem, bufferPointer(run.store->buffer), run.store->indices[0]);
        llvm::Value* from = run.load ? firstElementPointer(elem, bufferPointer(run.load->buffer),
                                                           run.load->indices[0])
                                     : nullptr;
        std::int64_t done = 0, left = run.bytes / scalarBytes;
        // Full vectors, then halves down to single elements for what is left.
        for (std::int64_t width = std::max<std::int64_t>(kRunVectorBytes / scalarBytes, 1);
             left > 0; width /= 2) {
            for (; left >= width; left -= width, done += width) {
                llvm::Type* ty =
                    width > 1 ? llvm::FixedVectorType::get(scalar, static_cast<unsigned>(width))
                              : scalar;
                llvm::Value* offset = m_b.getInt64(static_cast<std::uint64_t>(done));
                llvm::Value* value = llvm::Constant::getNullValue(ty);
                if (from)
                    value = m_b.CreateAlignedLoad(ty, m_b.CreateInBoundsGEP(scalar, from, offset),
                                                  align);
                m_b.CreateAlignedStore(value, m_b.CreateInBoundsGEP(scalar, to, offset), align);
            }
        }
    }

    // The loop body becomes its own function over a range [begin, end), run by the thread pool;
    // the variables it uses travel in a closure. Buffers are passed on as noalias arguments of a
    // helper (not inlined into the task), so the outlined body keeps the aliasing facts of the
    // entry function.
    void genParallel(const ForNode* op)
    {
        FreeVarCollector fv;
        fv.visit(op->min);
        fv.visit(op->extent); // the helper clamps its range to it
        fv.defined.insert(op->var.get());
        fv.visit(op->body);
        // Buffers (data variables) the body touches.
        std::vector<Var> captured;
        class BufferUse : public IRVisitor {
        public:
            std::vector<Var> data;
            VarSet seen, allocated;

        protected:
            void note(const Buffer& b)
            {
                if (seen.insert(b->data.get()).second && !allocated.count(b->data.get()))
                    data.push_back(b->data);
            }
            void visitBufferLoad(const BufferLoadNode* l) override
            {
                note(l->buffer);
                IRVisitor::visitBufferLoad(l);
            }
            void visitBufferStore(const BufferStoreNode* s) override
            {
                note(s->buffer);
                IRVisitor::visitBufferStore(s);
            }
            void visitAllocate(const AllocateNode* a) override
            {
                allocated.insert(a->buffer->data.get());
                IRVisitor::visitAllocate(a);
            }
        } uses;
        uses.visit(op->body);
        std::vector<Var> buffers = uses.data;
        for (auto& v : fv.free) {
            bool isBuffer = std::any_of(buffers.begin(), buffers.end(),
                                        [&](const Var& b) { return b.get() == v.get(); });
            if (!isBuffer) captured.push_back(v);
        }
        std::vector<llvm::Value*> values;
        std::vector<llvm::Type*> types;
        for (auto& v : buffers) {
            values.push_back(m_vars.at(v.get()));
            types.push_back(ptrTy());
        }
        for (auto& v : captured) {
            values.push_back(m_vars.at(v.get()));
            types.push_back(values.back()->getType());
        }
        llvm::StructType* closureTy = llvm::StructType::get(m_ctx, types);
        std::string base =
            m_state.fn->getName().str() + "_parallel_" + std::to_string(m_parallelCount++);

        // Helper: void base_body(i64 begin, i64 end, ptr noalias buffers..., captured...).
        std::vector<llvm::Type*> helperParams{m_b.getInt64Ty(), m_b.getInt64Ty()};
        helperParams.insert(helperParams.end(), types.begin(), types.end());
        auto* helperTy = llvm::FunctionType::get(m_b.getVoidTy(), helperParams, false);
        llvm::Function* helper = llvm::Function::Create(helperTy, llvm::Function::InternalLinkage,
                                                        base + "_body", m_mod);
        setAttributes(helper);
        helper->addFnAttr(llvm::Attribute::NoInline);
        for (std::size_t i = 0; i < buffers.size(); ++i)
            helper->addParamAttr(static_cast<unsigned>(2 + i), llvm::Attribute::NoAlias);

        // Task: void base(i64 begin, i64 end, ptr closure) unpacks and calls the helper.
        auto* taskTy = llvm::FunctionType::get(
            m_b.getVoidTy(), {m_b.getInt64Ty(), m_b.getInt64Ty(), ptrTy()}, false);
        llvm::Function* task =
            llvm::Function::Create(taskTy, llvm::Function::InternalLinkage, base, m_mod);
        setAttributes(task);

        // Caller side: fill the closure, call the pool.
        llvm::AllocaInst* closure = entryAlloca(closureTy, nullptr, 8);
        for (std::size_t i = 0; i < values.size(); ++i)
            m_b.CreateStore(values[i],
                            m_b.CreateStructGEP(closureTy, closure, static_cast<unsigned>(i)));
        llvm::Value* extent = m_b.CreateIntCast(genExpr(op->extent), m_b.getInt64Ty(), true);
        llvm::FunctionCallee parallelFor = m_mod.getOrInsertFunction(
            "loopscope_parallel_for",
            llvm::FunctionType::get(m_b.getVoidTy(), {m_b.getInt64Ty(), ptrTy(), ptrTy()}, false));
        m_b.CreateCall(parallelFor, {extent, task, closure});
        llvm::IRBuilderBase::InsertPoint saved = m_b.saveIP();
        FunctionState savedState = m_state;
        auto savedVars = m_vars;
        auto savedWide = m_wide;

        // Task body.
        {
            auto* bb = llvm::BasicBlock::Create(m_ctx, "entry", task);
            m_b.SetInsertPoint(bb);
            std::vector<llvm::Value*> args{task->getArg(0), task->getArg(1)};
            for (std::size_t i = 0; i < types.size(); ++i)
                args.push_back(
                    m_b.CreateLoad(types[i], m_b.CreateStructGEP(closureTy, task->getArg(2),
                                                                 static_cast<unsigned>(i))));
            m_b.CreateCall(helper, args);
            m_b.CreateRetVoid();
        }
        // Helper body: the loop over [begin, end).
        beginFunction(helper);
        m_vars.clear();
        m_wide.clear();
        for (std::size_t i = 0; i < buffers.size(); ++i)
            m_vars[buffers[i].get()] = helper->getArg(static_cast<unsigned>(2 + i));
        for (std::size_t i = 0; i < captured.size(); ++i)
            m_vars[captured[i].get()] =
                helper->getArg(static_cast<unsigned>(2 + buffers.size() + i));
        llvm::Type* ivTy = llvmType(op->var.type());
        // The pool hands out 0 <= begin <= end <= extent. Said in the IR (a no-op clamp), scalar
        // evolution knows the counter's range, and proving the index arithmetic's flags costs
        // it less (8% of the optimizer's time for the ladder's parallel step).
        llvm::Value* extent64 = m_b.CreateIntCast(genExpr(op->extent), m_b.getInt64Ty(), true);
        auto clamp = [&](llvm::Value* v) {
            return m_b.CreateIntCast(m_b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, v, extent64),
                                     ivTy, true);
        };
        llvm::Value* begin = clamp(helper->getArg(0));
        llvm::Value* end = clamp(helper->getArg(1));
        llvm::Value* mn = genExpr(op->min);
        m_insideParallel = true;
        emitLoop(op->var, m_b.CreateAdd(mn, begin), m_b.CreateAdd(mn, end), op->body,
                 nonNegative(op->min));
        m_insideParallel = false;
        m_b.CreateRetVoid();

        m_state = savedState;
        m_vars = savedVars;
        m_wide = savedWide;
        m_b.restoreIP(saved);
    }

    llvm::LLVMContext& m_ctx;
    llvm::Module& m_mod;
    llvm::TargetMachine& m_tm;
    std::optional<llvm::TargetTransformInfo> m_tti; // see tti
    bool m_rolledForInvariants = false; // set by a loop so kept, for those around it (see emitLoop)
    llvm::IRBuilder<> m_b;
    std::unordered_map<const VarNode*, llvm::Value*> m_vars;
    std::unordered_map<const VarNode*, llvm::Value*> m_wide; // i64 forms of int32 variables
    std::unordered_set<const VarNode*> m_nonNegative;        // int32 variables known to be >= 0
    FunctionState m_state;
    bool m_insideParallel = false;
    std::unordered_set<const IfThenElseNode*> m_guardsDecided; // versioned on by an enclosing loop
    std::unordered_set<const IfThenElseNode*>
        m_guardsAssumed;        // known to hold where code is emitted
    int m_edgeCopies = 0;       // inside the copy of a loop for edge tiles (see versionOnGuards)
    bool m_lanesAtOnce = false; // see genLanesAtOnce
    llvm::Value* m_laneMask = nullptr; // the lanes vector accesses are for there; none: all
    // Stack buffers of a constant size, in bytes, and the function whose frame holds them.
    std::unordered_map<const VarNode*, std::pair<std::int64_t, llvm::Function*>> m_stackBytes;
    int m_parallelCount = 0;
};

} // namespace

std::unique_ptr<llvm::Module> buildModule(const PrimFunc& f, llvm::LLVMContext& ctx,
                                          llvm::TargetMachine& tm)
{
    auto m = std::make_unique<llvm::Module>(f.name, ctx);
    m->setTargetTriple(tm.getTargetTriple().str());
    m->setDataLayout(tm.createDataLayout());
    Codegen cg(ctx, *m, tm);
    cg.build(f, sizeParameters(f));
    std::string err;
    llvm::raw_string_ostream os(err);
    LS_ASSERT(!llvm::verifyModule(*m, &os), "codegen produced an invalid module: " + os.str());
    return m;
}

void optimizeModule(llvm::Module& m, llvm::TargetMachine& tm, int optLevel)
{
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = true;
    pto.SLPVectorization = true;
    // Developer options (LOOPSCOPE_LLVM_ARGS="-time-passes -print-after=licm ...") need the
    // standard instrumentation; without them the pipeline runs bare.
    llvm::PassInstrumentationCallbacks pic;
    std::optional<llvm::StandardInstrumentations> si;
    if (std::getenv("LOOPSCOPE_LLVM_ARGS")) {
        si.emplace(m.getContext(), false);
        si->registerCallbacks(pic, &fam);
    }
    llvm::PassBuilder pb(&tm, pto, std::nullopt, &pic);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::OptimizationLevel level = optLevel <= 0   ? llvm::OptimizationLevel::O0
                                    : optLevel == 1 ? llvm::OptimizationLevel::O1
                                    : optLevel == 2 ? llvm::OptimizationLevel::O2
                                                    : llvm::OptimizationLevel::O3;
    llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                      ? pb.buildO0DefaultPipeline(level)
                                      : pb.buildPerModuleDefaultPipeline(level);
    mpm.run(m, mam);
}

llvm::TargetOptions hostTargetOptions()
{
    llvm::TargetOptions options;
    options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
    return options;
}

namespace {

// The native target, and LLVM's options from LOOPSCOPE_LLVM_ARGS: once per process.
void initializeLlvm()
{
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
        llvm::InitializeNativeTargetAsmParser();
        if (const char* args = std::getenv("LOOPSCOPE_LLVM_ARGS")) {
            std::vector<std::string> words{
                "LOOPSCOPE_LLVM_ARGS"}; // names the source of a bad option
            std::istringstream in(args);
            for (std::string w; in >> w;)
                words.push_back(w);
            std::vector<const char*> argv;
            for (auto& w : words)
                argv.push_back(w.c_str());
            llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "",
                                              &llvm::errs());
        }
    });
}

} // namespace

std::unique_ptr<llvm::TargetMachine> createHostTargetMachine()
{
    return createTargetMachine(TargetChoice{});
}

TargetChoice parseTarget(const std::string& target)
{
    TargetChoice c;
    std::istringstream in(target);
    std::string word;
    in >> word; // "llvm" (the evaluator accepts no other kind)
    auto value = [&](const std::string& option) -> std::optional<std::string> {
        if (word.rfind(option, 0) != 0) return std::nullopt;
        return word.substr(option.size());
    };
    while (in >> word) {
        if (auto v = value("-mcpu=")) {
            c.cpu = *v == "native" ? "" : *v;
        } else if (auto v = value("-mattr=")) {
            std::istringstream list(*v);
            for (std::string a; std::getline(list, a, ',');)
                if (!a.empty()) c.attrs.push_back(a[0] == '+' || a[0] == '-' ? a : "+" + a);
        } else if (auto v = value("-mtriple=")) {
            c.triple = *v;
        } else if (word == "-mcpu" || word == "-mattr" || word == "-mtriple") {
            throw CodegenError("write " + word + "=VALUE, without a space");
        } else if (word.rfind("-m", 0) == 0 && !value("-mfloat-abi=") && !value("-mabi=")) {
            throw CodegenError(
                "'" + word +
                "' is not an option of TVM's llvm target (-mcpu=, -mattr=, -mtriple=, ...)");
        } else if (word[0] != '-') {
            throw CodegenError("'" + word +
                               "' is not an option: they start with '-' (e.g. -mcpu=znver4)");
        }
    }
    // ELF for x86-64 Linux: what the exported header, the C harness and the JIT's objects are.
    if (!c.triple.empty() &&
        (c.triple.rfind("x86_64-", 0) != 0 || c.triple.find("linux") == std::string::npos ||
         c.triple.find("x32") != std::string::npos))
        throw CodegenError("target triple '" + c.triple +
                           "' is not supported: Loopscope generates x86-64 Linux code");
    return c;
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine(const TargetChoice& choice)
{
    initializeLlvm();
    std::string triple = choice.triple.empty() ? llvm::sys::getProcessTriple() : choice.triple;
    std::string error;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target) throw CodegenError("target triple '" + triple + "' is not supported: " + error);
    std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(triple, "", ""));
    if (!choice.cpu.empty() && !info->isCPUStringValid(choice.cpu))
        throw CodegenError("-mcpu=" + choice.cpu +
                           " names no CPU LLVM " LLVM_VERSION_STRING
                           " knows (e.g. znver4, skylake-avx512, x86-64-v3)");
    llvm::StringMap<bool> detected; // every feature host detection asks about, on or off
    const bool hostKnown = llvm::sys::getHostCPUFeatures(detected);
    // A named CPU brings its own features; without one, the host's, changed by -mattr.
    std::string features;
    if (choice.cpu.empty() && hostKnown)
        for (auto& f : detected)
            features +=
                (features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") + f.first().str();
    auto bits = [&](const std::string& fs) {
        return std::unique_ptr<llvm::MCSubtargetInfo>(target->createMCSubtargetInfo(triple, "", fs))
            ->getFeatureBits();
    };
    for (auto& a : choice.attrs) {
        std::string name = a.substr(1);
        // Other names LLVM knows turn a feature bit on (none is on for the generic CPU but those
        // host detection knows); one it does not know leaves them as they are, with a warning.
        bool known = detected.count(name) || bits("+" + name) != bits("");
        if (!known)
            throw CodegenError("-mattr: '" + name +
                               "' is not a feature LLVM " LLVM_VERSION_STRING
                               " knows for x86-64 (e.g. avx512f, fma)");
        features += (features.empty() ? "" : ",") + a;
    }
    std::string cpu = choice.cpu.empty() ? llvm::sys::getHostCPUName().str() : choice.cpu;
    auto* tm =
        target->createTargetMachine(triple, cpu, features, hostTargetOptions(), llvm::Reloc::PIC_,
                                    llvm::CodeModel::Small, llvm::CodeGenOpt::Aggressive);
    return std::unique_ptr<llvm::TargetMachine>(tm);
}

HostTarget hostTarget()
{
    auto tm = createHostTargetMachine();
    HostTarget h;
    h.triple = tm->getTargetTriple().str();
    h.cpu = tm->getTargetCPU().str();
    h.features = tm->getTargetFeatureString().str();
    h.vectorBits = h.features.find("+avx512f") != std::string::npos ? 512
                   : h.features.find("+avx") != std::string::npos   ? 256
                                                                    : 128;
    return h;
}

} // namespace loopscope
