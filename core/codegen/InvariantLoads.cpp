#include "codegen/InvariantLoads.h"

#include "codegen/Scoped.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace loopscope {

namespace {

// The buffers a statement stores to, and whether it allocates any.
class WrittenBuffers : public IRVisitor {
public:
    VarSet data;
    std::vector<Buffer> buffers;
    bool allocates = false;

protected:
    void visitBufferStore(const BufferStoreNode* op) override
    {
        if (data.insert(op->buffer->data.get()).second) buffers.push_back(op->buffer);
        IRVisitor::visitBufferStore(op);
    }
    void visitAllocate(const AllocateNode* op) override
    {
        allocates = true;
        IRVisitor::visitAllocate(op);
    }
};

class LoadCounter : public IRVisitor {
public:
    LoadCounter(const ForNode* loop, const VarSet& written, std::int64_t maxInnerIterations)
        : m_written(written), m_maxIterations(maxInnerIterations)
    {
        m_dependent.insert(loop->var.get());
    }

    bool straightLine = true;
    std::int64_t bytes = 0;

protected:
    void visitFor(const ForNode* op) override
    {
        auto* extent = op->extent.as<IntImmNode>();
        if (op->forKind == ForKind::Parallel || !extent || extent->value <= 0 ||
            m_iterations * extent->value > m_maxIterations) {
            straightLine = false;
            return;
        }
        if (changes(op->min)) m_dependent.insert(op->var.get());
        codegen::Scoped<std::int64_t> iterations(m_iterations, m_iterations * extent->value);
        codegen::ScopedEntry inner(m_inner, op->var.get(), extent->value);
        IRVisitor::visitFor(op);
    }
    void visitLetStmt(const LetStmtNode* op) override
    {
        bind(op->var, op->value);
        IRVisitor::visitLetStmt(op);
    }
    void visitLet(const LetNode* op) override
    {
        bind(op->var, op->value);
        IRVisitor::visitLet(op);
    }
    void visitBufferLoad(const BufferLoadNode* op) override
    {
        IRVisitor::visitBufferLoad(op);
        if (m_written.count(op->buffer->data.get())) return;
        if (std::any_of(op->indices.begin(), op->indices.end(),
                        [&](const Expr& i) { return changes(i); }))
            return;
        std::int64_t count = 1;
        for (auto& i : op->indices)
            for (auto* v : baseVars(i))
                if (auto it = m_inner.find(v); it != m_inner.end()) count *= it->second;
        if (!firstTime(op)) return;
        bytes += count * op->type.lanes * op->type.bytes();
    }

private:
    // The loop and inner-loop counters (and other free variables) `e` stands for, lets expanded.
    VarSet baseVars(const Expr& e) const
    {
        VarSet used, base;
        collectVars(e, &used);
        for (auto* v : used) {
            auto it = m_letUses.find(v);
            if (it == m_letUses.end())
                base.insert(v);
            else
                base.insert(it->second.begin(), it->second.end());
        }
        return base;
    }

    // Whether `e` may change from one iteration of the loop to the next: it uses its counter (or
    // a variable that depends on it), or reads a buffer the body writes, or reads at such an index.
    bool changes(const Expr& e) const
    {
        VarSet used;
        collectVars(e, &used);
        if (std::any_of(used.begin(), used.end(),
                        [&](const VarNode* v) { return m_dependent.count(v) > 0; }))
            return true;
        bool loadChanges = false;
        forEachExpr(e, [&](const Expr& sub) {
            if (auto* load = sub.as<BufferLoadNode>())
                loadChanges = loadChanges || m_written.count(load->buffer->data.get());
        });
        return loadChanges;
    }

    // A let's variable stands for the variables its value uses, and changes when its value does.
    void bind(const Var& var, const Expr& value)
    {
        m_letUses[var.get()] = baseVars(value);
        if (changes(value)) m_dependent.insert(var.get());
    }

    // Whether no load of the same buffer at the same indices came before.
    bool firstTime(const BufferLoadNode* op)
    {
        std::size_t hash = std::hash<const void*>()(op->buffer->data.get());
        for (auto& i : op->indices)
            hash = hash * 31 + exprHash(i);
        auto [begin, end] = m_seen.equal_range(hash);
        for (auto it = begin; it != end; ++it) {
            const BufferLoadNode* other = it->second;
            if (other->buffer->data.get() == op->buffer->data.get() && other->type == op->type &&
                std::equal(other->indices.begin(), other->indices.end(), op->indices.begin(),
                           op->indices.end(), exprEqual))
                return false;
        }
        m_seen.emplace(hash, op);
        return true;
    }

    const VarSet& m_written;
    const std::int64_t m_maxIterations;
    VarSet m_dependent; // the loop's counter and the variables that change with it
    std::unordered_map<const VarNode*, std::int64_t> m_inner; // enclosing inner loops' extents
    std::unordered_map<const VarNode*, VarSet> m_letUses;
    std::unordered_multimap<std::size_t, const BufferLoadNode*> m_seen;
    std::int64_t m_iterations = 1;
};

} // namespace

std::optional<InvariantLoads> invariantLoads(const ForNode* loop, std::int64_t maxInnerIterations)
{
    WrittenBuffers written;
    written.visit(loop->body);
    LoadCounter loads(loop, written.data, maxInnerIterations);
    loads.visit(loop->body);
    if (!loads.straightLine) return std::nullopt;
    return InvariantLoads{loads.bytes, std::move(written.buffers), written.allocates};
}

} // namespace loopscope
