#include "explore/LoopLines.h"

#include "ir/IRMutator.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace loopscope {

namespace {

// A loop traced to a stage's leaf axis: indices into the schedule's stages and their leaves.
struct Traced {
    std::size_t stage = 0;
    std::size_t leaf = 0;
    bool init = false;
};

// The schedule's leaf axes by their loop variable: ScheduleOps makes every loop of a stage's
// main nest over its IterVar's own Var, and the later passes keep that Var (they rebuild the
// ForNode, not its variable).
struct Axes {
    explicit Axes(const Schedule& sch) : sch(sch)
    {
        const auto& stages = sch.stages();
        for (std::size_t s = 0; s < stages.size(); ++s) {
            opStage.emplace(stages[s].op.get(), s);
            for (std::size_t k = 0; k < stages[s].leafIterVars.size(); ++k)
                byVar.emplace(stages[s].leafIterVars[k]->var.get(), Traced{s, k, false});
        }
    }

    std::optional<std::size_t> leafNamed(std::size_t stage, std::string_view name) const
    {
        const auto& leaves = sch.stages()[stage].leafIterVars;
        for (std::size_t k = 0; k < leaves.size(); ++k)
            if (leaves[k]->name() == name) return k;
        return std::nullopt;
    }

    const Schedule& sch;
    std::unordered_map<const OperationNode*, std::size_t> opStage;
    std::unordered_map<const VarNode*, Traced> byVar;
};

// The tensor the first store under a statement writes.
class FirstStore : public IRVisitor {
public:
    const OperationNode* op = nullptr;

protected:
    void visitTensorStore(const TensorStoreNode* s) override
    {
        if (!op) op = s->tensor.get();
    }
};

// The reduction's init loops, in the program before flattening: ScheduleOps makes each over a
// new Var named after its axis ("i.inner" -> "i.inner.init") and records no link to the axis.
// The stage is the one the loop's body stores into (an init loop holds only its stage's init
// store: nothing is computed inside it), and its axis is that stage's leaf of that name. The
// init Var itself travels unchanged into the final TIR, so one entry serves both printings.
class InitLoops : public IRVisitor {
public:
    explicit InitLoops(Axes& axes) : m_axes(axes) {}

protected:
    void visitFor(const ForNode* op) override
    {
        constexpr std::string_view suffix = ".init";
        const std::string& name = op->var.name();
        if (!m_axes.byVar.count(op->var.get()) && name.ends_with(suffix)) {
            FirstStore store;
            store.visit(op->body);
            if (auto it = m_axes.opStage.find(store.op); it != m_axes.opStage.end()) {
                std::string_view axis(name.data(), name.size() - suffix.size());
                if (auto leaf = m_axes.leafNamed(it->second, axis))
                    m_axes.byVar.emplace(op->var.get(), Traced{it->second, *leaf, true});
            }
        }
        IRVisitor::visitFor(op);
    }

private:
    Axes& m_axes;
};

// Every loop of a printed statement traced to an axis, the enclosing loops kept for those whose
// variable is new. Two passes make loops over new variables from old ones and record nothing:
// UnrollLoops gives the loops inside every copy but the first of an unrolled body fresh Vars of
// the same names, and VectorizeLoop's fallback runs a vectorized loop's lanes as a serial loop
// over "<var>.s". Those are traced by name among the axes the enclosing loop's stage and the
// stages computed inside it have (or the stages at the root, outside every loop); where that
// name is not one axis, the loop stays untraced.
class LoopTracer : public IRVisitor {
public:
    explicit LoopTracer(const Axes& axes) : m_axes(axes) {}
    std::unordered_map<const ForNode*, Traced> loops;
    std::unordered_map<const ForNode*, int> depth; // loops around it, for a line's order

protected:
    void visitFor(const ForNode* op) override
    {
        depth.emplace(op, m_depth);
        std::optional<Traced> t;
        if (auto it = m_axes.byVar.find(op->var.get()); it != m_axes.byVar.end())
            t = it->second;
        else
            t = byName(op);
        if (t) loops.emplace(op, *t);
        visit(op->min);
        visit(op->extent);
        if (t) m_enclosing.push_back(*t);
        ++m_depth;
        visit(op->body);
        --m_depth;
        if (t) m_enclosing.pop_back();
    }

private:
    std::optional<Traced> byName(const ForNode* op) const
    {
        std::string name = op->var.name();
        if (op->scalarizedLanes && name.ends_with(".s")) name.resize(name.size() - 2);
        if (auto t = among(name, false)) return t;
        constexpr std::string_view init = ".init";
        if (name.ends_with(init)) return among(name.substr(0, name.size() - init.size()), true);
        return std::nullopt;
    }

    std::optional<Traced> among(const std::string& name, bool init) const
    {
        const auto& stages = m_axes.sch.stages();
        std::optional<Traced> found;
        int count = 0;
        auto consider = [&](std::size_t s) {
            if (auto leaf = m_axes.leafNamed(s, name)) {
                found = Traced{s, *leaf, init};
                ++count;
            }
        };
        if (m_enclosing.empty()) {
            for (std::size_t s = 0; s < stages.size(); ++s)
                if (stages[s].attach == AttachType::Root && !stages[s].isPlaceholder()) consider(s);
        } else {
            const std::size_t outer = m_enclosing.back().stage;
            consider(outer);
            for (std::size_t s = 0; s < stages.size(); ++s)
                if (s != outer && stages[s].attach == AttachType::Scope &&
                    stages[s].attachOp == stages[outer].op)
                    consider(s);
        }
        return count == 1 ? found : std::nullopt;
    }

    const Axes& m_axes;
    std::vector<Traced> m_enclosing;
    int m_depth = 0;
};

} // namespace

std::vector<PrintedLoop> printedLoops(const Schedule& sch, const Stmt& structured, const Stmt& body,
                                      const PrintedFunction& printed)
{
    Axes axes(sch);
    InitLoops(axes).visit(structured);
    LoopTracer tracer(axes);
    tracer.visit(body);
    const auto& stages = sch.stages();
    std::vector<PrintedLoop> out;
    for (std::size_t i = 0; i < printed.lineStatements.size(); ++i) {
        // The printer lists a T.grid line's inner loops before its outer one.
        std::vector<const ForNode*> line;
        for (const StmtNode* s : printed.lineStatements[i])
            if (s->kind == StmtKind::For) line.push_back(static_cast<const ForNode*>(s));
        auto depthOf = [&](const ForNode* f) {
            auto it = tracer.depth.find(f);
            return it == tracer.depth.end() ? 0 : it->second;
        };
        std::stable_sort(line.begin(), line.end(), [&](const ForNode* a, const ForNode* b) {
            return depthOf(a) < depthOf(b);
        });
        for (const ForNode* f : line) {
            PrintedLoop loop;
            loop.line = static_cast<int>(i + 1);
            loop.var = f->var.name();
            std::optional<Traced> t;
            if (auto it = tracer.loops.find(f); it != tracer.loops.end())
                t = it->second;
            else if (auto v = axes.byVar.find(f->var.get()); v != axes.byVar.end())
                t = v->second;
            if (t) {
                const Stage& st = stages[t->stage];
                const IterVar& iv = st.leafIterVars[t->leaf];
                loop.stage = st.name();
                loop.axis = axisDisplayName(iv->name());
                loop.axisVar = iv->name();
                loop.init = t->init;
            }
            out.push_back(std::move(loop));
        }
    }
    return out;
}

const PrintedLoop* printedLoopAt(const std::vector<PrintedLoop>& loops, int line, std::size_t nth)
{
    for (const PrintedLoop& l : loops)
        if (l.line == line && nth-- == 0) return &l;
    return nullptr;
}

} // namespace loopscope
