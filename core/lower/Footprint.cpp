#include "lower/Footprint.h"

#include "ir/Analyzer.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IntervalSet.h"
#include "ir/Printer.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>

namespace loopscope {

namespace {

// An access to a tensor: its indices (lets substituted) and the loops around it, outermost
// first.
struct Access {
    const OperationNode* tensor;
    std::vector<Expr> indices;
    std::vector<const ForNode*> loops;
};

class AccessCollector : public IRVisitor {
public:
    std::vector<Access> accesses;
    std::vector<const ForNode*> loopsInOrder;

protected:
    void visitFor(const ForNode* op) override
    {
        loopsInOrder.push_back(op);
        visit(op->min);
        visit(op->extent);
        m_loops.push_back(op);
        visit(op->body);
        m_loops.pop_back();
    }
    void visitLetStmt(const LetStmtNode* op) override
    {
        visit(op->value);
        m_lets[op->var.get()] = substitute(op->value, m_lets);
        visit(op->body);
        m_lets.erase(op->var.get());
    }
    void visitTensorStore(const TensorStoreNode* op) override
    {
        note(op->tensor.get(), op->indices);
        IRVisitor::visitTensorStore(op);
    }
    void visitTensorLoad(const TensorLoadNode* op) override
    {
        note(op->tensor.get(), op->indices);
        IRVisitor::visitTensorLoad(op);
    }

private:
    void note(const OperationNode* t, const std::vector<Expr>& indices)
    {
        Access a{t, {}, m_loops};
        for (const Expr& i : indices)
            a.indices.push_back(m_lets.empty() ? i : substitute(i, m_lets));
        accesses.push_back(std::move(a));
    }

    std::vector<const ForNode*> m_loops;
    VarMap m_lets;
};

IntervalSet loopRange(const ForNode* f)
{
    return {f->min, simplify(f->min + f->extent - makeConst(f->extent.type(), 1))};
}

// The bytes of the box holding every access of `group` when the loops from position `from` of
// each access's loop list on range (the ones before held fixed).
double boxBytes(const std::vector<const Access*>& group, std::size_t from, const Analyzer& an,
                bool* exact)
{
    const OperationNode* t = group.front()->tensor;
    const std::size_t dims = group.front()->indices.size();
    std::vector<IntervalSet> box(dims);
    std::vector<bool> started(dims, false);
    for (const Access* a : group) {
        if (a->indices.size() != dims) continue;
        IntervalMap relax;
        for (std::size_t l = from; l < a->loops.size(); ++l)
            relax[a->loops[l]->var.get()] = loopRange(a->loops[l]);
        for (std::size_t d = 0; d < dims; ++d) {
            IntervalSet s = evalInterval(a->indices[d], relax, an);
            box[d] = started[d] ? unionInterval(box[d], s, an) : s;
            started[d] = true;
        }
    }
    double elements = 1;
    for (std::size_t d = 0; d < dims; ++d) {
        std::int64_t n = 0;
        bool known =
            box[d].known() &&
            isConstInt(simplify(box[d].max - box[d].min + makeConst(box[d].max.type(), 1)), &n);
        if (!known || n <= 0) {
            // A bound: the tensor's whole extent in this dimension.
            *exact = false;
            std::int64_t whole = 1;
            if (d < t->shape.size() && isConstInt(t->shape[d], &whole))
                n = whole;
            else
                n = 1;
        }
        if (d < t->shape.size()) {
            std::int64_t whole = 0;
            if (isConstInt(t->shape[d], &whole) && whole > 0) n = std::min(n, whole);
        }
        elements *= static_cast<double>(n);
    }
    return elements * t->dtype.bytes() * std::max<int>(1, t->dtype.lanes);
}

std::string loopLineName(const ForNode* f)
{
    return scriptName(f->var.name());
}

} // namespace

std::vector<LoopFootprint> loopFootprints(const LoweredFunc& lowered)
{
    return loopFootprints(lowered, printTVMScriptWithLines(lowered.func),
                          printStructuredWithLines(lowered.structured, lowered.args));
}

std::vector<LoopFootprint> loopFootprints(const LoweredFunc& lowered, const PrintedFunction& tvm,
                                          const PrintedFunction& structured)
{
    AccessCollector c;
    c.visit(lowered.structured);
    Analyzer an;
    // Lines: the structured printing's and the final TIR's, by the loop's variable.
    std::unordered_map<const ForNode*, int> structuredLine;
    for (std::size_t i = 0; i < structured.lineStatements.size(); ++i)
        for (const StmtNode* s : structured.lineStatements[i])
            if (s->kind == StmtKind::For)
                structuredLine.emplace(static_cast<const ForNode*>(s), static_cast<int>(i + 1));
    std::unordered_map<const VarNode*, int> finalLine;
    for (std::size_t i = 0; i < tvm.lineStatements.size(); ++i)
        for (const StmtNode* s : tvm.lineStatements[i])
            if (s->kind == StmtKind::For)
                finalLine.emplace(static_cast<const ForNode*>(s)->var.get(),
                                  static_cast<int>(i + 1));
    std::vector<LoopFootprint> out;
    for (const ForNode* loop : c.loopsInOrder) {
        LoopFootprint f;
        f.var = loopLineName(loop);
        isConstInt(loop->extent, &f.extent);
        auto sl = structuredLine.find(loop);
        f.structuredLine = sl == structuredLine.end() ? 0 : sl->second;
        auto fl = finalLine.find(loop->var.get());
        f.line = fl == finalLine.end() ? 0 : fl->second;
        // The accesses inside the loop, by tensor, and the loop's place in their loop lists.
        std::map<const OperationNode*, std::vector<const Access*>> byTensor;
        std::size_t at = 0;
        for (const Access& a : c.accesses) {
            auto it = std::find(a.loops.begin(), a.loops.end(), loop);
            if (it == a.loops.end()) continue;
            at = static_cast<std::size_t>(it - a.loops.begin());
            byTensor[a.tensor].push_back(&a);
        }
        f.depth = static_cast<int>(at);
        for (auto& [tensor, group] : byTensor) {
            TensorFootprint t;
            t.tensor = tensor->name;
            t.perIteration = boxBytes(group, at + 1, an, &f.exact);
            t.wholeLoop = boxBytes(group, at, an, &f.exact);
            f.perIteration += t.perIteration;
            f.wholeLoop += t.wholeLoop;
            f.tensors.push_back(t);
        }
        std::sort(f.tensors.begin(), f.tensors.end(),
                  [](auto& a, auto& b) { return a.wholeLoop > b.wholeLoop; });
        out.push_back(std::move(f));
    }
    return out;
}

std::vector<std::vector<CacheLevel>> outgrownLevels(const std::vector<LoopFootprint>& loops,
                                                    const std::vector<CacheLevel>& caches)
{
    std::vector<std::vector<CacheLevel>> out(loops.size());
    for (std::size_t i = 0; i < loops.size(); ++i)
        for (const CacheLevel& c : caches)
            if (loops[i].wholeLoop > static_cast<double>(c.bytes) &&
                loops[i].perIteration <= static_cast<double>(c.bytes))
                out[i].push_back(c);
    return out;
}

} // namespace loopscope
