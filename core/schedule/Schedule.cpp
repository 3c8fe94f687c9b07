#include "schedule/Schedule.h"

#include "ir/IRUtil.h"
#include "schedule/IterGraph.h"
#include "schedule/ThreadScope.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <unordered_set>

namespace loopscope {

std::string axisDisplayName(const std::string& name)
{
    std::string out = name;
    std::replace(out.begin(), out.end(), '.', '_');
    return out;
}

std::string pythonIdentifier(const std::string& name)
{
    std::string out;
    for (char c : name)
        out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "_" + out;
    return out;
}

namespace {

std::string quoted(const std::string& s)
{
    return "'" + axisDisplayName(s) + "'";
}

void collectOps(const Tensor& t, std::vector<Tensor>& order, std::set<const OperationNode*>& seen)
{
    if (!seen.insert(t.get()).second) return;
    for (auto& in : inputTensors(t))
        collectOps(in, order, seen);
    order.push_back(t);
}

Stage makeStage(const Tensor& op)
{
    Stage s;
    s.op = op;
    s.originOp = op;
    s.leafIterVars = s.rootIterVars();
    s.allIterVars = s.leafIterVars;
    return s;
}

} // namespace

std::vector<IterVar> Stage::rootIterVars() const
{
    std::vector<IterVar> out = op->axes;
    out.insert(out.end(), op->reduceAxes.begin(), op->reduceAxes.end());
    return out;
}

int Stage::leafIndex(const IterVar& iv) const
{
    auto it = std::find(leafIterVars.begin(), leafIterVars.end(), iv);
    return it == leafIterVars.end() ? -1 : static_cast<int>(it - leafIterVars.begin());
}

bool Stage::hasIterVar(const IterVar& iv) const
{
    return std::find(allIterVars.begin(), allIterVars.end(), iv) != allIterVars.end();
}

const IterVarAttr* Stage::attr(const IterVar& iv) const
{
    auto it = attrs.find(iv.get());
    return it == attrs.end() ? nullptr : &it->second;
}

Schedule::Schedule(std::vector<Tensor> outputs) : m_outputs(std::move(outputs))
{
    std::vector<Tensor> order;
    std::set<const OperationNode*> seen;
    for (auto& t : m_outputs)
        collectOps(t, order, seen);
    for (auto& op : order) {
        m_stages.push_back(makeStage(op));
        m_stages.back().isOutput =
            std::find(m_outputs.begin(), m_outputs.end(), op) != m_outputs.end();
    }
}

Stage* Schedule::find(const Tensor& t)
{
    for (auto& s : m_stages)
        if (s.op == t || s.originOp == t) return &s;
    return nullptr;
}

const Stage* Schedule::find(const Tensor& t) const
{
    return const_cast<Schedule*>(this)->find(t);
}

int Schedule::indexOf(const Tensor& t) const
{
    for (std::size_t i = 0; i < m_stages.size(); ++i)
        if (m_stages[i].op == t || m_stages[i].originOp == t) return static_cast<int>(i);
    return -1;
}

Stage& Schedule::stage(const Tensor& t)
{
    Stage* s = find(t);
    if (!s) throw ScheduleError("tensor '" + t->name + "' is not part of this schedule", 0);
    return *s;
}

std::vector<int> Schedule::readers(const Tensor& t) const
{
    const Stage* target = find(t);
    std::vector<int> out;
    if (!target) return out;
    for (std::size_t i = 0; i < m_stages.size(); ++i) {
        auto inputs = inputTensors(m_stages[i].op);
        if (std::find(inputs.begin(), inputs.end(), target->op) != inputs.end())
            out.push_back(static_cast<int>(i));
    }
    return out;
}

void Schedule::checkLeaf(const Stage& s, const IterVar& iv, int argument) const
{
    if (s.isPlaceholder())
        throw ScheduleError("'" + s.name() + "' is a placeholder; it has no loops to schedule");
    if (s.leafIndex(iv) >= 0) return;
    if (s.hasIterVar(iv)) {
        throw ScheduleError("axis " + quoted(iv->name()) + " of '" + s.name() +
                                "' has already been split or fused; use the axes it was split "
                                "into",
                            argument);
    }
    for (auto& other : m_stages) {
        if (other.hasIterVar(iv)) {
            throw ScheduleError("axis " + quoted(iv->name()) + " belongs to stage '" +
                                    other.name() + "', not to '" + s.name() + "'",
                                argument);
        }
    }
    throw ScheduleError("axis " + quoted(iv->name()) + " is not an axis of '" + s.name() + "'",
                        argument);
}

std::pair<IterVar, IterVar> Schedule::split(Stage& s, const IterVar& parent,
                                            std::optional<Expr> factor, std::optional<Expr> nparts)
{
    checkLeaf(s, parent, 0);
    const Expr& amount = factor ? *factor : *nparts;
    std::int64_t v;
    if (!isConstInt(amount, &v) || v <= 0) {
        throw ScheduleError(std::string("split ") + (factor ? "factor" : "nparts") +
                                " must be a positive integer",
                            1);
    }
    IterVar outer = makeIterVar(parent->name() + ".outer", {}, parent->kind);
    IterVar inner = makeIterVar(parent->name() + ".inner", {}, parent->kind);
    IterRelation r{IterRelation::Kind::Split, parent, outer, inner, {}, {}, {}, {}};
    if (factor)
        r.factor = *factor;
    else
        r.nparts = *nparts;
    s.relations.push_back(r);
    s.allIterVars.push_back(outer);
    s.allIterVars.push_back(inner);
    int pos = s.leafIndex(parent);
    s.leafIterVars.erase(s.leafIterVars.begin() + pos);
    s.leafIterVars.insert(s.leafIterVars.begin() + pos, {outer, inner});
    return {outer, inner};
}

std::vector<IterVar> Schedule::tile(Stage& s, const IterVar& x, const IterVar& y, Expr xFactor,
                                    Expr yFactor)
{
    checkLeaf(s, x, 0);
    checkLeaf(s, y, 1);
    if (x == y) throw ScheduleError("tile needs two different axes", 1);
    auto check = [](const Expr& f, int arg) {
        std::int64_t v;
        if (!isConstInt(f, &v) || v <= 0)
            throw ScheduleError("tile factor must be a positive integer", arg);
    };
    check(xFactor, 2);
    check(yFactor, 3);
    auto [xo, xi] = split(s, x, xFactor, std::nullopt);
    auto [yo, yi] = split(s, y, yFactor, std::nullopt);
    reorder(s, {xo, yo, xi, yi});
    return {xo, yo, xi, yi};
}

IterVar Schedule::fuse(Stage& s, const std::vector<IterVar>& axes)
{
    if (axes.empty()) throw ScheduleError("fuse needs at least one axis");
    for (std::size_t i = 0; i < axes.size(); ++i)
        checkLeaf(s, axes[i], static_cast<int>(i));
    // TVM folds left to right: fuse(fuse(a, b), c).
    IterVar fused = axes.front();
    for (std::size_t k = 1; k < axes.size(); ++k) {
        IterVar outer = fused, inner = axes[k];
        if (outer->kind != inner->kind) {
            throw ScheduleError("cannot fuse data-parallel axis with reduction axis: " +
                                    quoted(outer->name()) + " and " + quoted(inner->name()),
                                static_cast<int>(k));
        }
        int po = s.leafIndex(outer), pi = s.leafIndex(inner);
        if (pi + 1 == po) std::swap(outer, inner), std::swap(po, pi);
        if (pi != po + 1) {
            throw ScheduleError("can only fuse adjacent axes: " + quoted(outer->name()) + " and " +
                                    quoted(inner->name()) + " are not next to each other",
                                static_cast<int>(k));
        }
        IterVar f = makeIterVar(outer->name() + "." + inner->name() + ".fused", {}, outer->kind);
        IterRelation r{IterRelation::Kind::Fuse, {}, outer, inner, f, {}, {}, {}};
        s.relations.push_back(r);
        s.allIterVars.push_back(f);
        s.leafIterVars.erase(s.leafIterVars.begin() + po, s.leafIterVars.begin() + po + 2);
        s.leafIterVars.insert(s.leafIterVars.begin() + po, f);
        fused = f;
    }
    return fused;
}

void Schedule::reorder(Stage& s, const std::vector<IterVar>& order)
{
    std::vector<int> positions;
    for (std::size_t i = 0; i < order.size(); ++i) {
        checkLeaf(s, order[i], static_cast<int>(i));
        for (std::size_t j = 0; j < i; ++j) {
            if (order[j] == order[i]) {
                throw ScheduleError("axis " + quoted(order[i]->name()) +
                                        " appears more than once in reorder",
                                    static_cast<int>(i));
            }
        }
        positions.push_back(s.leafIndex(order[i]));
    }
    std::sort(positions.begin(), positions.end());
    auto leaves = s.leafIterVars;
    for (std::size_t i = 0; i < order.size(); ++i)
        leaves[positions[i]] = order[i];
    s.leafIterVars = leaves;
}

void Schedule::setKind(Stage& s, const IterVar& iv, ForKind kind, SourceLoc loc)
{
    auto& a = s.attrs[iv.get()];
    a.kind = kind;
    a.loc = loc;
}

void Schedule::vectorize(Stage& s, const IterVar& iv, SourceLoc loc)
{
    checkLeaf(s, iv, 0);
    if (iv->kind == IterKind::Reduce) {
        throw ScheduleError("cannot vectorize reduction axis " + quoted(iv->name()) +
                                "; vectorize a data-parallel axis (reorder it innermost)",
                            0);
    }
    setKind(s, iv, ForKind::Vectorized, loc);
}

void Schedule::parallel(Stage& s, const IterVar& iv, SourceLoc loc)
{
    checkLeaf(s, iv, 0);
    if (iv->kind == IterKind::Reduce) {
        throw ScheduleError("cannot parallelize reduction axis " + quoted(iv->name()) +
                                ": its iterations update the same output element",
                            0);
    }
    setKind(s, iv, ForKind::Parallel, loc);
}

void Schedule::unroll(Stage& s, const IterVar& iv, SourceLoc loc)
{
    checkLeaf(s, iv, 0);
    setKind(s, iv, ForKind::Unrolled, loc);
}

void Schedule::bind(Stage& s, const IterVar& iv, const std::string& threadTag, SourceLoc loc,
                    int threadAxis)
{
    checkLeaf(s, iv, 0);
    if (!isThreadTag(threadTag)) {
        throw ScheduleError("unknown thread tag " + quoted(threadTag) +
                                ": a loop binds to blockIdx.x/y/z, threadIdx.x/y/z, vthread or "
                                "cthread",
                            1);
    }
    if (const IterVarAttr* a = s.attr(iv); a && a->kind == ForKind::ThreadBinding) {
        throw ScheduleError("loop " + quoted(axisDisplayName(iv->name())) +
                                " is already bound to " + a->threadTag +
                                "; a loop binds to one thread axis",
                            0);
    }
    if (iv->kind == IterKind::Reduce &&
        (threadRank(threadTag) != 1 || isVirtualThread(threadTag))) {
        throw ScheduleError("cannot bind reduction axis " + quoted(axisDisplayName(iv->name())) +
                                " to " + threadTag +
                                ": only threads of one block (threadIdx) reduce together",
                            1);
    }
    if (!isVirtualThread(threadTag)) {
        for (auto& other : s.leafIterVars) {
            const IterVarAttr* a = s.attr(other);
            if (a && a->kind == ForKind::ThreadBinding && a->threadTag == threadTag) {
                throw ScheduleError(threadTag + " is already bound to loop " +
                                        quoted(axisDisplayName(other->name())) + " of '" +
                                        s.name() +
                                        "'; each thread axis runs once per stage: fuse the "
                                        "loops first and bind the fused loop",
                                    1);
            }
        }
    }
    setKind(s, iv, ForKind::ThreadBinding, loc);
    s.attrs[iv.get()].threadTag = threadTag;
    s.attrs[iv.get()].threadAxis = threadAxis;
}

void Schedule::tensorize(Stage& s, const IterVar& iv, TensorIntrin intrin, SourceLoc loc)
{
    checkLeaf(s, iv, 0);
    for (auto& [node, a] : s.attrs) {
        if (a.tensorIntrin && node != iv.get())
            throw ScheduleError("'" + s.name() +
                                    "' is already tensorized at another loop: a stage has one "
                                    "tensorized loop (TVM: \"Do not allow two tensorized "
                                    "point\")",
                                0);
    }
    auto& a = s.attrs[iv.get()];
    a.tensorIntrin = std::move(intrin);
    a.tensorizeLoc = loc;
}

void Schedule::pragma(Stage& s, const IterVar& iv, const std::string& key, Expr value,
                      SourceLoc loc)
{
    checkLeaf(s, iv, 0);
    // As in TVM, these two pragmas are the primitives of the same name.
    if (key == "unroll") return unroll(s, iv, loc);
    if (key == "vectorize") return vectorize(s, iv, loc);
    static const char* known[] = {"auto_unroll_max_step",
                                  "unroll_explicit",
                                  "parallel_launch_point",
                                  "parallel_stride_pattern",
                                  "parallel_barrier_when_finish",
                                  "import_llvm",
                                  "import_c"};
    if (std::find(std::begin(known), std::end(known), key) == std::end(known)) {
        throw ScheduleError("unknown pragma '" + key +
                                "'; for CPU the pragmas are unroll, vectorize, "
                                "auto_unroll_max_step, unroll_explicit, parallel_launch_point",
                            1);
    }
    if ((key == "import_llvm" || key == "import_c") &&
        (!value.defined() || value.kind() != ExprKind::StringImm))
        throw ScheduleError("pragma " + key +
                                " takes the source of the functions it imports, as "
                                "a string",
                            2);
    if (key == "import_c")
        throw ScheduleError("pragma import_c is not supported: it needs a C compiler where the "
                            "program is built; give the functions' LLVM IR with import_llvm "
                            "(clang -S -emit-llvm makes it)",
                            1);
    if (key == "auto_unroll_max_step") {
        std::int64_t v;
        if (!value.defined() || !isConstInt(value, &v) || v < 0)
            throw ScheduleError("pragma auto_unroll_max_step needs a non-negative integer value",
                                2);
    }
    auto& a = s.attrs[iv.get()];
    a.pragmas.emplace_back(key, value.defined() ? value : makeInt(1));
    if (a.loc.line == 0) a.loc = loc;
}

namespace {

// Whether `reader` uses `producer`'s values, directly or through any chain of stages.
bool readsTransitively(const Schedule& sch, const Stage& reader, const Stage& producer)
{
    std::unordered_set<const OperationNode*> seen;
    std::vector<const Stage*> todo{&reader};
    while (!todo.empty()) {
        const Stage* st = todo.back();
        todo.pop_back();
        for (auto& in : inputTensors(st->op)) {
            if (in == producer.op) return true;
            const Stage* mid = sch.find(in);
            if (mid && seen.insert(mid->op.get()).second) todo.push_back(mid);
        }
    }
    return false;
}

} // namespace

void Schedule::computeAt(Stage& s, Stage& parent, const IterVar& axis)
{
    if (s.isPlaceholder())
        throw ScheduleError("'" + s.name() +
                            "' is a placeholder; only computed tensors can be "
                            "attached");
    if (s.isOutput) {
        throw ScheduleError("cannot compute_at '" + s.name() +
                            "': it is an output; only producers can be computed inside a "
                            "consumer's loop");
    }
    if (&s == &parent) {
        throw ScheduleError(
            "cannot compute '" + s.name() + "' at its own axis " + quoted(axis->name()), 1);
    }
    if (parent.leafIndex(axis) < 0) {
        if (parent.hasIterVar(axis)) {
            throw ScheduleError("axis " + quoted(axis->name()) + " of '" + parent.name() +
                                    "' has been split or fused; attach at one of its current axes",
                                1);
        }
        throw ScheduleError(
            "axis " + quoted(axis->name()) + " is not a loop of '" + parent.name() + "'", 1);
    }
    // The parent must use the stage, directly or through other stages (inlined into it, or
    // computed inside its loops now or later, as TVM's cache stages are attached in any order).
    // Whether every other reader is inside the loop is checked when bounds are inferred.
    if (!readsTransitively(*this, parent, s)) {
        throw ScheduleError("cannot compute '" + s.name() + "' at a loop of '" + parent.name() +
                                "': '" + parent.name() + "' does not use '" + s.name() +
                                "', directly or through other stages",
                            0);
    }
    s.attach = AttachType::Scope;
    s.attachOp = parent.op;
    s.attachIvar = axis;
}

void Schedule::computeInline(Stage& s)
{
    if (s.isPlaceholder())
        throw ScheduleError("'" + s.name() + "' is a placeholder; there is nothing to inline");
    if (s.op->isReduction()) {
        throw ScheduleError("cannot inline '" + s.name() +
                            "': it is a reduction; compute_at it into its consumer instead");
    }
    if (s.isOutput) {
        throw ScheduleError("cannot inline '" + s.name() +
                            "': it is an output of the schedule and must be stored");
    }
    if (!s.relations.empty() || !s.attrs.empty()) {
        throw ScheduleError("cannot inline '" + s.name() +
                            "': its loops have been scheduled; an inlined stage has no loops");
    }
    s.attach = AttachType::Inline;
    s.attachOp.reset();
    s.attachIvar.reset();
}

void Schedule::computeRoot(Stage& s)
{
    if (s.isPlaceholder()) throw ScheduleError("'" + s.name() + "' is a placeholder");
    s.attach = AttachType::Root;
    s.attachOp.reset();
    s.attachIvar.reset();
}

void Schedule::storageAlign(Stage& s, const IterVar& axis, int factor, int offset)
{
    // A dimension of the tensor, split or not (TVM's storage_align does not need a loop).
    if (s.isPlaceholder())
        throw ScheduleError("'" + s.name() + "' is a placeholder; it has no loops to schedule");
    if (factor <= 0) throw ScheduleError("storage_align factor must be a positive integer", 1);
    if (offset < 0 || offset >= factor)
        throw ScheduleError("storage_align offset must be in [0, factor)", 2);
    bool isRoot = false;
    for (auto& r : s.op->axes)
        isRoot |= (r == axis);
    if (!isRoot) {
        throw ScheduleError("storage_align needs one of the tensor's own dimensions (an axis of "
                            "op.axis), not a split or reduction axis",
                            0);
    }
    s.aligns.push_back({axis, factor, offset});
}

void Schedule::doubleBuffer(Stage& s)
{
    if (s.isPlaceholder()) throw ScheduleError("'" + s.name() + "' is a placeholder");
    s.doubleBuffer = true;
}

void Schedule::setStorePredicate(Stage& s, Expr predicate, SourceLoc loc)
{
    if (s.isPlaceholder()) throw ScheduleError("'" + s.name() + "' is a placeholder");
    if (!predicate.defined() || !predicate.type().isBool())
        throw ScheduleError("set_store_predicate takes a condition (such as "
                            "tx.var.equal(0)), not a value",
                            0);
    s.storePredicate = std::move(predicate);
    s.storePredicateLoc = loc;
}

void Schedule::replaceOpEverywhere(const Tensor& from, const Tensor& to)
{
    std::vector<std::pair<Tensor, Tensor>> map{{from, to}};
    for (auto& st : m_stages) {
        if (st.op == to) continue;
        Tensor updated = replaceInputs(st.op, map);
        if (updated != st.op) {
            map.emplace_back(st.op, updated);
            st.op = updated;
        }
    }
    for (auto& out : m_outputs)
        for (auto& [a, b] : map)
            if (out == a) out = b;
    for (auto& st : m_stages)
        for (auto& [a, b] : map)
            if (st.attachOp == a) st.attachOp = b;
}

Tensor Schedule::cacheRead(const Tensor& t, const std::string& scope,
                           const std::vector<Tensor>& readerTensors)
{
    Stage& producer = stage(t);
    Tensor source = producer.op;
    std::vector<IterVar> axes;
    std::vector<Expr> idx;
    for (int d = 0; d < source->ndim(); ++d) {
        axes.push_back(makeIterVar("ax" + std::to_string(d), {makeInt(0), source->shape[d]},
                                   IterKind::DataPar));
        idx.push_back(axes.back()->var);
    }
    Tensor cache =
        makeCompute(source->name + "." + scope, "", axes, makeTensorLoad(source, idx), source->loc);
    std::vector<Stage*> readerStages;
    for (std::size_t i = 0; i < readerTensors.size(); ++i) {
        Stage* r = find(readerTensors[i]);
        if (!r)
            throw ScheduleError("reader '" + readerTensors[i]->name + "' is not in the schedule",
                                2);
        auto inputs = inputTensors(r->op);
        if (std::find(inputs.begin(), inputs.end(), source) == inputs.end()) {
            throw ScheduleError("'" + r->name() + "' does not read '" + source->name + "'", 2);
        }
        readerStages.push_back(r);
    }
    if (readerStages.empty()) throw ScheduleError("cache_read needs at least one reader", 2);
    std::vector<std::pair<Tensor, Tensor>> changes;
    for (Stage* r : readerStages) {
        Tensor updated = replaceInputs(r->op, {{source, cache}});
        changes.emplace_back(r->op, updated);
    }
    for (auto& [from, to] : changes) {
        stage(from).op = to;
        replaceOpEverywhere(from, to);
    }
    int pos = indexOf(source);
    Stage cs = makeStage(cache);
    cs.scope = scope;
    m_stages.insert(m_stages.begin() + pos + 1, cs);
    return cache;
}

Tensor Schedule::cacheWrite(const Tensor& t, const std::string& scope)
{
    Stage& orig = stage(t);
    if (orig.isPlaceholder())
        throw ScheduleError("cannot cache_write '" + orig.name() + "': it is a placeholder", 0);
    if (!orig.relations.empty() || !orig.attrs.empty() || orig.attach != AttachType::Root) {
        throw ScheduleError(
            "cache_write of '" + orig.name() + "' must come before any other primitive on it", 0);
    }
    Tensor old = orig.op;
    std::vector<IterVar> axes;
    VarMap vmap;
    for (auto& a : old->axes) {
        axes.push_back(makeIterVar(a->name() + ".c", a->dom, IterKind::DataPar));
        vmap[a->var.get()] = axes.back()->var;
    }
    Expr body = substitute(old->body, vmap);
    Tensor cache = makeCompute(old->name + "." + scope, old->tag, axes, body, old->loc);
    std::vector<Expr> idx;
    for (auto& a : old->axes)
        idx.push_back(a->var);
    auto replacement = std::make_shared<OperationNode>(*old);
    replacement->reduceAxes.clear();
    replacement->body = makeTensorLoad(cache, idx);
    Tensor updated = replacement;
    orig.op = updated;
    orig.leafIterVars = orig.rootIterVars();
    orig.allIterVars = orig.leafIterVars;
    replaceOpEverywhere(old, updated);
    Stage cs = makeStage(cache);
    cs.scope = scope;
    int pos = indexOf(updated);
    m_stages.insert(m_stages.begin() + pos, cs);
    return cache;
}

} // namespace loopscope

namespace loopscope {

Tensor Schedule::rfactor(const Tensor& t, const IterVar& axis, int factorAxis)
{
    Stage& st = stage(t);
    if (st.isPlaceholder() || !st.op->isReduction())
        throw ScheduleError("cannot rfactor '" + st.name() + "': it is not a reduction", 0);
    if (axis->kind != IterKind::Reduce) {
        throw ScheduleError(
            "rfactor needs a reduction axis; " + quoted(axis->name()) + " is data-parallel", 1);
    }
    checkLeaf(st, axis, 1);
    Tensor old = st.op;
    int ndim = old->ndim();
    if (factorAxis < 0 || factorAxis > ndim)
        throw ScheduleError("factor_axis must be between 0 and " + std::to_string(ndim), 2);
    if (st.attach != AttachType::Root || !st.attrs.empty())
        throw ScheduleError("rfactor of '" + st.name() +
                                "' must come before compute_at or loop "
                                "annotations on it",
                            0);

    // The tree of relations containing `axis`, from its reduction root down.
    std::set<const IterVarNode*> tree{axis.get()};
    bool grew = true;
    while (grew) {
        grew = false;
        for (auto& r : st.relations) {
            std::vector<const IterVarNode*> nodes;
            if (r.kind == IterRelation::Kind::Split)
                nodes = {r.parent.get(), r.outer.get(), r.inner.get()};
            else if (r.kind == IterRelation::Kind::Fuse)
                nodes = {r.outer.get(), r.inner.get(), r.fused.get()};
            else
                nodes = {r.parent.get(), r.rebased.get()};
            bool any =
                std::any_of(nodes.begin(), nodes.end(), [&](auto* n) { return tree.count(n); });
            if (!any) continue;
            for (auto* n : nodes)
                grew |= tree.insert(n).second;
        }
    }
    for (auto& r : st.relations) {
        const IterVarNode* n = r.kind == IterRelation::Kind::Fuse ? r.outer.get() : r.parent.get();
        if (!tree.count(n)) {
            throw ScheduleError("rfactor of '" + st.name() +
                                    "' must come before splitting or fusing its other axes",
                                1);
        }
    }
    // Ranges and values of the factored tree, with leaves as loop variables.
    RangeMap ranges;
    for (auto& r : old->reduceAxes)
        if (tree.count(r.get())) ranges[r.get()] = r->dom;
    Analyzer an;
    passDownDomain(st, ranges, an, true); // as TVM's rfactor: no split clipped yet
    ValueMap leafOff;
    for (auto& iv : st.leafIterVars) {
        if (!tree.count(iv.get())) continue;
        leafOff[iv.get()] = isOne(ranges.at(iv.get()).extent) ? makeInt(0) : Expr(iv->var);
        an.bind(iv->var, makeInt(0), ranges.at(iv.get()).extent);
    }
    ValueMap offsets = passUpOffsets(st, ranges, leafOff, an);
    ValueMap values = offsetsToValues(st, ranges, offsets, an);
    auto need = passUpBoundCheck(st, ranges, an);
    Expr pred;
    for (auto& iv : st.allIterVars) {
        if (!tree.count(iv.get()) || !need.count(iv.get()) || !need.at(iv.get())) continue;
        Expr cond = offsets.at(iv.get()) < ranges.at(iv.get()).extent;
        if (an.canProve(cond)) continue;
        pred = pred.defined() ? (pred && cond) : cond;
    }

    auto* red = old->body.as<ReduceNode>();
    VarMap sub;
    for (auto& r : old->reduceAxes)
        if (tree.count(r.get())) sub[r->var.get()] = values.at(r.get());
    std::vector<IterVar> rfReduce;
    for (auto& r : old->reduceAxes)
        if (!tree.count(r.get())) rfReduce.push_back(r);
    for (auto& iv : st.leafIterVars) {
        if (!tree.count(iv.get()) || iv == axis) continue;
        auto copy = std::make_shared<IterVarNode>(*iv);
        copy->dom = {makeInt(0), ranges.at(iv.get()).extent};
        copy->kind = IterKind::Reduce;
        rfReduce.push_back(copy);
    }
    auto factored = std::make_shared<IterVarNode>(*axis);
    factored->dom = {makeInt(0), ranges.at(axis.get()).extent};
    factored->kind = IterKind::DataPar;
    std::vector<IterVar> rfAxes = old->axes;
    rfAxes.insert(rfAxes.begin() + factorAxis, factored);
    Expr cond = red->condition.defined() ? substitute(red->condition, sub) : Expr();
    if (pred.defined()) {
        Expr likelyPred = makeCall(DataType::boolean(), CallOp::Likely, {pred});
        cond = cond.defined() ? (likelyPred && cond) : likelyPred;
    }
    Expr rfBody = makeReduce(red->op, substitute(red->source, sub), rfReduce, cond);
    Tensor rf = makeCompute(old->name + ".rf", old->tag, rfAxes, rfBody, old->loc);

    // The original tensor now reduces the partial results over the factored axis.
    std::vector<IterVar> axes;
    std::vector<Expr> idx;
    for (int d = 0; d < ndim; ++d) {
        axes.push_back(makeIterVar("ax" + std::to_string(d),
                                   {makeInt(0), old->shape[static_cast<std::size_t>(d)]},
                                   IterKind::DataPar));
        idx.push_back(axes.back()->var);
    }
    IterVar kv = makeIterVar(axis->name() + ".v", {makeInt(0), ranges.at(axis.get()).extent},
                             IterKind::Reduce);
    idx.insert(idx.begin() + factorAxis, kv->var);
    Tensor final =
        makeCompute(old->name, old->tag, axes,
                    makeReduce(red->op, makeTensorLoad(rf, idx), {kv}, Expr()), old->loc);
    st.op = final;
    st.leafIterVars = st.rootIterVars();
    st.allIterVars = st.leafIterVars;
    st.relations.clear();
    st.attrs.clear();
    replaceOpEverywhere(old, final);
    Stage rs = makeStage(rf);
    m_stages.insert(m_stages.begin() + indexOf(final), rs);
    return rf;
}

} // namespace loopscope
