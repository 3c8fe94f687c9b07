// Loops versioned on the guards of edge tiles: a loop whose body has `likely` guards that can be
// decided before it runs twice, once without them for the tiles where they all hold and once as it
// is for the tiles at the edge.
#include "codegen/CodegenLLVMInternal.h"

#include "ir/Analyzer.h"
#include "ir/FreeVars.h"
#include "ir/IRUtil.h"

#include <llvm/IR/MDBuilder.h>

#include <algorithm>

namespace loopscope::codegen {

namespace {

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

} // namespace

// A loop whose body has `likely` guards that can be decided before it (see DecidableGuards)
// is emitted twice: once for when they all hold, without them, and once as it is, for the
// tiles at the edge. The first is the one that runs almost always, and LLVM can unroll and
// schedule it as if the splits had divided their axes. Each guard is decided once, at the
// outermost loop it can be.
bool Codegen::versionOnGuards(const ForNode* op)
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
        m_guardsDecided.insert(g.node); // here, for the whole loop
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
    {
        Scoped<int> fastCopy(m_edgeCopies, 0); // the fast copy is optimized in full
        ScopedInsert<GuardSet> assumed(m_guardsAssumed);
        for (auto& g : found.guards)
            assumed.insert(g.node);
        m_b.SetInsertPoint(fast);
        emit();
    }
    {
        Scoped<int> edgeCopy(m_edgeCopies, m_edgeCopies + 1);
        ScopedErase<GuardSet> undecided(m_guardsDecided);
        if (decideAgain)
            for (auto& g : found.guards)
                if (onThisLoop(g.node)) undecided.erase(g.node);
        m_b.SetInsertPoint(edge);
        emit();
    }
    m_b.SetInsertPoint(end);
    return true;
}

} // namespace loopscope::codegen
