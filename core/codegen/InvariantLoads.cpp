#include "codegen/InvariantLoads.h"

#include "tir/IRMutator.h"
#include "tir/IRUtil.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace loopscope {

namespace {

// The buffers a statement stores to.
class WrittenBuffers : public IRVisitor {
public:
    VarSet data;
    std::vector<Buffer> buffers;

protected:
    void visitBufferStore(const BufferStoreNode* op) override
    {
        if (data.insert(op->buffer->data.get()).second) buffers.push_back(op->buffer);
        IRVisitor::visitBufferStore(op);
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
        if (!extent || extent->value <= 0 || m_iterations * extent->value > m_maxIterations) {
            straightLine = false;
            return;
        }
        m_iterations *= extent->value;
        m_inner[op->var.get()] = extent->value;
        IRVisitor::visitFor(op);
        m_inner.erase(op->var.get());
        m_iterations /= extent->value;
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
        VarSet used;
        for (auto& i : op->indices) collectVars(i, &used);
        VarSet base;
        for (auto* v : used) {
            auto it = m_letUses.find(v);
            if (it == m_letUses.end()) base.insert(v);
            else base.insert(it->second.begin(), it->second.end());
        }
        std::int64_t count = 1;
        for (auto* v : base) {
            if (m_dependent.count(v)) return;
            if (auto it = m_inner.find(v); it != m_inner.end()) count *= it->second;
        }
        if (!firstTime(op)) return;
        bytes += count * op->type.lanes * op->type.bytes();
    }

private:
    // Whether no load of the same buffer at the same indices came before.
    bool firstTime(const BufferLoadNode* op)
    {
        std::size_t hash = std::hash<const void*>()(op->buffer->data.get());
        for (auto& i : op->indices) hash = hash * 31 + exprHash(i);
        auto [begin, end] = m_seen.equal_range(hash);
        for (auto it = begin; it != end; ++it) {
            const BufferLoadNode* other = it->second;
            if (other->buffer->data.get() == op->buffer->data.get() && other->type == op->type &&
                std::equal(other->indices.begin(), other->indices.end(), op->indices.begin(), op->indices.end(), exprEqual))
                return false;
        }
        m_seen.emplace(hash, op);
        return true;
    }

    // A let's variable stands for the variables its value uses; it depends on the loop's counter
    // when they do.
    void bind(const Var& var, const Expr& value)
    {
        VarSet used;
        collectVars(value, &used);
        VarSet& base = m_letUses[var.get()];
        for (auto* v : used) {
            auto it = m_letUses.find(v);
            if (it == m_letUses.end()) base.insert(v);
            else base.insert(it->second.begin(), it->second.end());
        }
        if (usesAnyVar(value, m_dependent)) m_dependent.insert(var.get());
    }

    const VarSet& m_written;
    const std::int64_t m_maxIterations;
    VarSet m_dependent;
    std::unordered_map<const VarNode*, std::int64_t> m_inner;  // enclosing inner loops' extents
    std::unordered_map<const VarNode*, VarSet> m_letUses;
    std::unordered_multimap<std::size_t, const BufferLoadNode*> m_seen;
    std::int64_t m_iterations = 1;
};

}  // namespace

std::optional<InvariantLoads> invariantLoads(const ForNode* loop, std::int64_t maxInnerIterations)
{
    WrittenBuffers written;
    written.visit(loop->body);
    LoadCounter loads(loop, written.data, maxInnerIterations);
    loads.visit(loop->body);
    if (!loads.straightLine) return std::nullopt;
    return InvariantLoads{loads.bytes, std::move(written.buffers)};
}

}  // namespace loopscope
