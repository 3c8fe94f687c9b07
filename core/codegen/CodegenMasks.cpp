// Lanes under masks: a loop over the lanes of a vectorized loop computed on vectors after all,
// the lanes where a condition fails masked off; if_then_else, whose branches are computed only
// for the lanes (or the one value) that take them; the scalar expression of one lane.
#include "codegen/CodegenLLVMInternal.h"

#include "ir/Diagnostic.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"
#include "lower/LanesAtOnce.h"

namespace loopscope::codegen {

namespace {

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

} // namespace

// Emits `emit` for the lanes of `mask`, in a block entered only when the mask has lanes;
// continues after it. Returns the block `emit` ended in.
template <class Emit> llvm::BasicBlock* Codegen::forAnyLane(llvm::Value* mask, const Emit& emit)
{
    llvm::Function* fn = m_b.GetInsertBlock()->getParent();
    auto* some = llvm::BasicBlock::Create(m_ctx, "lanes_some", fn);
    auto* end = llvm::BasicBlock::Create(m_ctx, "lanes_end", fn);
    m_b.CreateCondBr(m_b.CreateOrReduce(mask), some, end);
    m_b.SetInsertPoint(some);
    {
        Scoped<llvm::Value*> lanes(m_laneMask, mask);
        emit();
    }
    llvm::BasicBlock* someEnd = m_b.GetInsertBlock();
    m_b.CreateBr(end);
    m_b.SetInsertPoint(end);
    return someEnd;
}

// if_then_else evaluates only the branch taken: its other branch may read out of bounds
// (padding). A vector condition is handled lane by lane, or under lane masks where lanes are
// computed at once (see genLanesAtOnce).
llvm::Value* Codegen::genIfThenElse(const CallNode* op, const Expr& self)
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
llvm::Value* Codegen::valueUnderMask(llvm::Value* mask, const Expr& e, int lanes)
{
    if (!readsMemoryOrMayTrap(e)) {
        Scoped<llvm::Value*> masked(m_laneMask, mask);
        return broadcast(genExpr(e), lanes);
    }
    llvm::BasicBlock* before = m_b.GetInsertBlock();
    llvm::Value* v = nullptr;
    llvm::BasicBlock* someEnd = forAnyLane(mask, [&] { v = broadcast(genExpr(e), lanes); });
    llvm::PHINode* phi = m_b.CreatePHI(v->getType(), 2);
    phi->addIncoming(v, someEnd);
    phi->addIncoming(llvm::Constant::getNullValue(v->getType()), before);
    return phi;
}

bool Codegen::readsMemoryOrMayTrap(const Expr& e)
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
Expr Codegen::laneOf(const Expr& e, int i)
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
    case ExprKind::Cast: return makeCast(e.type().element(), laneOf(e.as<CastNode>()->value, i));
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

// A loop over the lanes of a vectorized loop, which VectorizeLoop runs lane by lane because a
// condition depends on the lane (a split that does not divide its axis, padding), is computed
// on vectors after all: the lanes where a condition fails are masked off (masked loads and
// stores, selects). The numbers are the same as lane by lane when no lane reads what another
// writes (see lanesAtOnce); otherwise, and when the body has parts vectors cannot compute, it
// stays a loop.
bool Codegen::genLanesAtOnce(const ForNode* op)
{
    Stmt body = op->body;
    if (!m_guardsAssumed.empty()) body = AssumedGuards(m_guardsAssumed).mutate(body);
    Stmt loop = body.same(op->body) ? Stmt() : remakeFor(op, op->min, op->extent, body);
    Stmt lanes = lanesAtOnce(loop.defined() ? loop.as<ForNode>() : op);
    if (!lanes.defined()) return false;
    LS_ASSERT(!m_lanesAtOnce, "codegen: lanes computed at once inside others");
    Scoped<bool> atOnce(m_lanesAtOnce, true);
    genStmt(lanes);
    return true;
}

// Emits `s` for the lanes of `mask` only, and not at all when it has none: a load at a
// scalar index in it may be out of bounds where no lane would have made it.
void Codegen::genUnderMask(llvm::Value* mask, const Stmt& s)
{
    forAnyLane(mask, [&] { genStmt(s); });
}

// The lanes of `mask` within the current mask.
// (A logical and: lanes off outside stay off even where `mask` is poison, as a condition
// computed for a lane that never runs may be.)
llvm::Value* Codegen::withinMask(llvm::Value* mask)
{
    return m_laneMask ? m_b.CreateLogicalAnd(m_laneMask, mask) : mask;
}

} // namespace loopscope::codegen
