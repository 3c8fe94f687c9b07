#include "lower/LanesAtOnce.h"

#include "ir/Analyzer.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "lower/passes/VectorizeLoops.h"

#include <map>

namespace loopscope {

namespace {

using i64 = std::int64_t;

// Whether the lanes of a statement computed on `lanes` lanes (vectorizeUnderMasks) may run at
// once, as they would one after another: every buffer it writes is read and written only at one
// index, a ramp with a constant non-zero stride, so that each lane touches its own elements. Its
// accesses are all of scalar elements, at scalar indices or at indices of `lanes` lanes. No vector
// integer division by a variable (an inactive lane may divide by zero), no other statement than
// stores, lets, conditions and sequences.
class LanesAtOnce : public IRVisitor {
public:
    explicit LanesAtOnce(int lanes) : m_lanes(lanes) {}

    bool check(const Stmt& s)
    {
        visit(s);
        if (!m_ok) return false;
        for (auto& [data, index] : m_written) {
            auto* r = index.as<RampNode>();
            std::int64_t stride = 0;
            if (!r || !isConstInt(r->stride, &stride) || stride == 0) return false;
            auto range = m_accesses.equal_range(data);
            for (auto it = range.first; it != range.second; ++it)
                if (!exprEqual(it->second, index)) return false;
        }
        return true;
    }

protected:
    void visitBufferLoad(const BufferLoadNode* op) override
    {
        access(op->buffer, op->indices);
        IRVisitor::visitBufferLoad(op);
    }
    void visitBufferStore(const BufferStoreNode* op) override
    {
        access(op->buffer, op->indices);
        if (m_ok) m_written.emplace(op->buffer->data.get(), op->indices[0]);
        IRVisitor::visitBufferStore(op);
    }
    void visitBinary(const BinaryNode* op) override
    {
        if (op->a.type().isVector() && integerDivisionMayTrap(op)) m_ok = false;
        IRVisitor::visitBinary(op);
    }
    void visitFor(const ForNode*) override { m_ok = false; }
    void visitAllocate(const AllocateNode*) override { m_ok = false; }
    void visitEvaluate(const EvaluateNode*) override { m_ok = false; }
    void visitTensorStore(const TensorStoreNode*) override { m_ok = false; }
    void visitRealize(const RealizeNode*) override { m_ok = false; }

private:
    void access(const Buffer& b, const std::vector<Expr>& indices)
    {
        if (indices.size() != 1 || b->dtype.lanes != 1) {
            m_ok = false;
            return;
        }
        int lanes = indices[0].type().lanes;
        if (lanes != 1 && lanes != m_lanes) m_ok = false;
        m_accesses.emplace(b->data.get(), indices[0]);
    }

    int m_lanes;
    bool m_ok = true;
    std::multimap<const VarNode*, Expr> m_accesses;
    std::map<const VarNode*, Expr> m_written; // the first index each written buffer is stored at
};

} // namespace

bool integerDivisionMayTrap(const BinaryNode* op)
{
    bool division = op->kind == ExprKind::Div || op->kind == ExprKind::Mod ||
                    op->kind == ExprKind::FloorDiv || op->kind == ExprKind::FloorMod;
    if (!division || op->a.type().isFloat()) return false;
    const Expr* d = &op->b;
    if (auto* b = d->as<BroadcastNode>()) d = &b->value;
    i64 k = 0;
    return !isConstInt(*d, &k) || k == 0;
}

Stmt lanesAtOnce(const ForNode* loop)
{
    i64 n = 0;
    if (!loop->scalarizedLanes || !isConstInt(loop->extent, &n) || n > kMaxMaskedLanes)
        return Stmt();
    Stmt lanes = vectorizeUnderMasks(loop);
    if (!lanes.defined() || !LanesAtOnce(static_cast<int>(n)).check(lanes)) return Stmt();
    return lanes;
}

int countLanesAtOnce(const Stmt& s)
{
    class Counter : public IRVisitor {
    public:
        int count = 0;

    protected:
        void visitFor(const ForNode* op) override
        {
            if (lanesAtOnce(op).defined()) ++count;
            IRVisitor::visitFor(op);
        }
    } counter;
    counter.visit(s);
    return counter.count;
}

} // namespace loopscope
