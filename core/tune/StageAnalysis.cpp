#include "tune/StageAnalysis.h"

#include "ir/IRUtil.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace loopscope {

std::int64_t StageFacts::spatialProduct() const
{
    std::int64_t p = 1;
    for (auto& a : spatial)
        p *= std::max<std::int64_t>(a.extent, 1);
    return p;
}

std::int64_t StageFacts::reduceProduct() const
{
    std::int64_t p = 1;
    for (auto& a : reduce)
        p *= std::max<std::int64_t>(a.extent, 1);
    return p;
}

namespace {

AxisFacts axisFacts(const IterVar& iv)
{
    return {iv->name(), constIntOr(iv->dom.extent, 0)};
}

struct Reads {
    std::vector<const TensorLoadNode*> loads;
    bool expensive = false; // exp, log, ... (worth computing once)
    bool branch = false;    // if_then_else, select
};

Reads collectReads(const Expr& body)
{
    Reads r;
    forEachExpr(body, [&](const Expr& e) {
        if (auto* l = e.as<TensorLoadNode>()) r.loads.push_back(l);
        if (auto* c = e.as<CallNode>()) {
            if (c->op == CallOp::IfThenElse)
                r.branch = true;
            else if (c->op != CallOp::Likely && c->op != CallOp::Fabs && c->op != CallOp::Floor &&
                     c->op != CallOp::Ceil && c->op != CallOp::Nearbyint)
                r.expensive = true;
        }
        if (e.kind() == ExprKind::Select) r.branch = true;
    });
    return r;
}

// Each index is one of the op's own axes (or a constant), each axis at most once, in order.
bool simpleAccess(const TensorLoadNode* load, const std::vector<IterVar>& axes)
{
    int last = -1;
    for (auto& idx : load->indices) {
        if (isConstInt(idx)) continue;
        auto* v = idx.as<VarNode>();
        if (!v) return false;
        int pos = -1;
        for (std::size_t a = 0; a < axes.size(); ++a)
            if (axes[a]->var.get() == v) pos = static_cast<int>(a);
        if (pos <= last) return false;
        last = pos;
    }
    return true;
}

// The leaves a stage would have if only its splits had been applied, in place of each root.
std::vector<const IterVarNode*> naturalLeaves(const Stage& st)
{
    std::vector<const IterVarNode*> out;
    std::function<void(const IterVarNode*)> expand = [&](const IterVarNode* iv) {
        for (auto& r : st.relations) {
            if (r.kind == IterRelation::Kind::Split && r.parent.get() == iv) {
                expand(r.outer.get());
                expand(r.inner.get());
                return;
            }
        }
        out.push_back(iv);
    };
    for (auto& root : st.rootIterVars())
        expand(root.get());
    return out;
}

// The input B of a matmul-shaped reduction (StageFacts::panelInput), or empty.
std::string panelInput(const OperationNode& op, const Reads& reads)
{
    if (!op.isReduction() || op.axes.size() < 2 || op.reduceAxes.size() != 1) return {};
    const VarNode* j = op.axes.back()->var.get();
    const VarNode* i = op.axes[op.axes.size() - 2]->var.get();
    const VarNode* k = op.reduceAxes[0]->var.get();
    if (constIntOr(op.axes.back()->dom.extent, 0) < 2 ||
        constIntOr(op.axes[op.axes.size() - 2]->dom.extent, 0) < 2)
        return {};
    std::string b;
    bool a = false;
    for (auto* load : reads.loads) {
        if (load->indices.empty()) continue;
        VarSet used;
        for (auto& idx : load->indices)
            collectVars(idx, &used);
        if (!used.count(k)) continue;
        if (load->indices.back().get() == j && !used.count(i))
            b = load->tensor->name;
        else if (used.count(i) && !used.count(j))
            a = true;
    }
    return a ? b : std::string();
}

// Axes the body compares with a constant (`nu == 2`).
void markSelectedAxes(const OperationNode& op, StageFacts* f)
{
    forEachExpr(op.body, [&](const Expr& e) {
        auto* eq = e.as<BinaryNode>();
        if (!eq || eq->kind != ExprKind::EQ) return;
        auto* v = eq->a.as<VarNode>() ? eq->a.as<VarNode>() : eq->b.as<VarNode>();
        if (!v || !(isConstInt(eq->a) || isConstInt(eq->b))) return;
        for (std::size_t a = 0; a < op.axes.size(); ++a)
            if (op.axes[a]->var.get() == v) f->spatial[a].selected = true;
        for (std::size_t a = 0; a < op.reduceAxes.size(); ++a)
            if (op.reduceAxes[a]->var.get() == v) f->reduce[a].selected = true;
    });
}

} // namespace

// The lanes L of an int8 dot product TOPI's intrinsic matches (StageFacts::int8DotLanes), or 0;
// whether its last data-parallel and reduction axes need splitting to L and 4.
int int8DotLanes(const OperationNode& op, bool* splitJ, bool* splitK)
{
    if (op.dtype != DataType::int32() || op.reduceAxes.empty() || op.axes.empty()) return 0;
    auto* reduce = op.body.as<ReduceNode>();
    auto* mul = reduce ? reduce->source.as<BinaryNode>() : nullptr;
    if (!mul || mul->kind != ExprKind::Mul || reduce->condition.defined()) return 0;
    auto loadOf = [](const Expr& e) -> const TensorLoadNode* {
        auto* cast = e.as<CastNode>();
        return cast ? cast->value.as<TensorLoadNode>() : nullptr;
    };
    const TensorLoadNode* a = loadOf(mul->a);
    const TensorLoadNode* w = loadOf(mul->b);
    const DataType u8{DataType::UInt, 8, 1}, s8{DataType::Int, 8, 1};
    if (!a || !w || a->tensor->dtype != u8 || w->tensor->dtype != s8 || w->indices.size() < 2)
        return 0;
    const IterVar& j = op.axes.back();
    const IterVar& k = op.reduceAxes.back();
    if (a->indices.back().as<VarNode>() != k->var.get()) return 0;
    // The block an index reads along an axis: the axis itself (its extent), or axis % block.
    auto blockOf = [](const Expr& e, const IterVar& axis, bool* split) -> std::int64_t {
        const std::int64_t extent = constIntOr(axis->dom.extent, 0);
        if (e.as<VarNode>() == axis->var.get()) {
            *split = false;
            return extent;
        }
        auto* m = e.as<BinaryNode>();
        std::int64_t c = 0;
        if (!m || (m->kind != ExprKind::FloorMod && m->kind != ExprKind::Mod) ||
            m->a.as<VarNode>() != axis->var.get() || !isConstInt(m->b, &c) || c <= 0 ||
            extent % c != 0)
            return 0;
        *split = true;
        return c;
    };
    const std::int64_t lanes = blockOf(w->indices[w->indices.size() - 2], j, splitJ);
    if (blockOf(w->indices.back(), k, splitK) != 4 || (lanes != 16 && lanes != 8)) return 0;
    return static_cast<int>(lanes);
}

std::vector<StageFacts> analyzeStages(const Schedule& sch)
{
    std::vector<StageFacts> out;
    for (const Stage& st : sch.stages()) {
        StageFacts f;
        f.name = st.name();
        f.placeholder = st.isPlaceholder();
        f.output = st.isOutput;
        for (int r : sch.readers(st.op))
            f.consumers.push_back(sch.stages()[static_cast<std::size_t>(r)].name());
        if (f.placeholder) {
            out.push_back(std::move(f));
            continue;
        }
        const OperationNode& op = *st.op;
        f.reduction = op.isReduction();
        for (auto& a : op.axes)
            f.spatial.push_back(axisFacts(a));
        for (auto& a : op.reduceAxes)
            f.reduce.push_back(axisFacts(a));
        markSelectedAxes(op, &f);

        Reads reads = collectReads(op.body);
        bool simple = !reads.expensive && !reads.branch;
        int missing = 0;
        for (auto* load : reads.loads) {
            simple = simple && simpleAccess(load, op.axes);
            VarSet used;
            for (auto& idx : load->indices)
                collectVars(idx, &used);
            for (auto& a : op.axes)
                if (constIntOr(a->dom.extent, 2) > 1 && !used.count(a->var.get())) ++missing;
        }
        f.strictlyInlineable = simple && !f.reduction;
        f.panelInput = panelInput(op, reads);
        f.int8DotLanes = int8DotLanes(op, &f.int8DotSplitJ, &f.int8DotSplitK);
        f.needsTiling = missing >= 2 || (missing >= 1 && f.reduction);

        for (auto& [iv, attr] : st.attrs) {
            (void)iv;
            f.hasParallel = f.hasParallel || attr.kind == ForKind::Parallel;
            f.hasVectorize = f.hasVectorize || attr.kind == ForKind::Vectorized;
            f.hasUnroll = f.hasUnroll || attr.kind == ForKind::Unrolled || !attr.pragmas.empty();
        }
        f.pinned = !st.relations.empty() || !st.attrs.empty() || st.attach != AttachType::Root;
        if (f.pinned) {
            bool splits = std::all_of(st.relations.begin(), st.relations.end(),
                                      [](auto& r) { return r.kind == IterRelation::Kind::Split; });
            std::vector<const IterVarNode*> leaves;
            for (auto& iv : st.leafIterVars)
                leaves.push_back(iv.get());
            f.onlySplit = splits && st.attrs.empty() && st.attach == AttachType::Root &&
                          leaves == naturalLeaves(st);
        }
        out.push_back(std::move(f));
    }

    // Element-wise consumers: the only reader, reading this stage at its own axes.
    for (auto& f : out) {
        if (f.placeholder || f.consumers.size() != 1) continue;
        const Stage* mine = nullptr;
        const Stage* theirs = nullptr;
        for (auto& st : sch.stages()) {
            if (st.name() == f.name) mine = &st;
            if (st.name() == f.consumers[0]) theirs = &st;
        }
        if (!mine || !theirs || theirs->isPlaceholder()) continue;
        const OperationNode& c = *theirs->op;
        // The consumer's reads of this stage, walked once for both facts below.
        std::vector<const TensorLoadNode*> loads;
        forEachExpr(c.body, [&](const Expr& e) {
            auto* l = e.as<TensorLoadNode>();
            if (l && l->tensor == mine->op) loads.push_back(l);
        });
        if (loads.empty()) continue;
        VarSet used;
        for (auto* l : loads)
            for (auto& idx : l->indices)
                collectVars(idx, &used);
        f.tiledByConsumer = std::all_of(c.axes.begin(), c.axes.end(), [&](const IterVar& a) {
            return constIntOr(a->dom.extent, 2) <= 1 || used.count(a->var.get()) > 0;
        });
        if (c.axes.size() != mine->op->axes.size()) continue;
        bool sameExtents = true;
        for (std::size_t a = 0; a < c.axes.size(); ++a) {
            sameExtents = sameExtents && constIntOr(c.axes[a]->dom.extent, -1) ==
                                             constIntOr(mine->op->axes[a]->dom.extent, -2);
        }
        if (!sameExtents) continue;
        bool matched = true;
        for (auto* l : loads) {
            if (l->indices.size() != c.axes.size()) {
                matched = false;
                continue;
            }
            for (std::size_t a = 0; a < c.axes.size(); ++a)
                if (l->indices[a].get() != c.axes[a]->var.get()) matched = false;
        }
        // Not both reductions: a reduction consumer keeps its own tiling.
        if (matched && !(c.isReduction() && f.reduction)) f.elementwiseConsumer = c.name;
    }
    return out;
}

std::vector<std::string> axisNames(const std::vector<AxisFacts>& axes)
{
    std::vector<std::string> names;
    for (const AxisFacts& a : axes)
        names.push_back(a.name);
    return names;
}

} // namespace loopscope
