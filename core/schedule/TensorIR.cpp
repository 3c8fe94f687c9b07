// TensorIR functions from TE declarations (te.create_prim_func) and the tir.Schedule primitives
// on them, with TVM's semantics (src/tir/schedule/primitive/ in TVM 0.20) and its refusals.
#include "schedule/TensorIR.h"

#include "schedule/ThreadScope.h"

#include "ir/Analyzer.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IntervalSet.h"
#include "ir/Limits.h"
#include "ir/Printer.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>
#include <unordered_map>

namespace loopscope {

namespace {

// The regions `values` read of each tensor other than `self`, in order of first read: a point
// where every read is at the same index, the span of reads at constant offsets of one another,
// else the whole dimension.
std::vector<TensorRegion> readRegions(const std::vector<Expr>& values, const OperationNode* self)
{
    std::vector<Tensor> order;
    std::unordered_map<const OperationNode*, std::vector<std::vector<Expr>>> reads;
    for (const Expr& body : values)
        forEachExpr(body, [&](const Expr& e) {
            auto* load = e.as<TensorLoadNode>();
            if (!load || load->tensor.get() == self) return;
            auto& seen = reads[load->tensor.get()];
            if (seen.empty()) order.push_back(load->tensor);
            for (auto& s : seen) {
                bool same = s.size() == load->indices.size();
                for (std::size_t d = 0; same && d < s.size(); ++d)
                    same = exprEqual(s[d], load->indices[d]);
                if (same) return;
            }
            seen.push_back(load->indices);
        });
    std::vector<TensorRegion> out;
    for (const Tensor& t : order) {
        const auto& all = reads[t.get()];
        TensorRegion r{t, {}};
        for (std::size_t d = 0; d < all.front().size(); ++d) {
            const Expr& first = all.front()[d];
            std::int64_t lo = 0, hi = 0;
            bool constant = true;
            for (const auto& idx : all) {
                std::int64_t off = 0;
                if (!isConstInt(simplify(idx[d] - first), &off)) {
                    constant = false;
                    break;
                }
                lo = std::min(lo, off);
                hi = std::max(hi, off);
            }
            if (!constant)
                r.region.push_back({makeInt(0), t->shape[d]});
            else
                r.region.push_back({simplify(first + makeInt(lo)), makeInt(hi - lo + 1)});
        }
        out.push_back(std::move(r));
    }
    return out;
}

// The computed tensors `args` need, producers first.
std::vector<Tensor> computeOrder(const std::vector<Tensor>& args)
{
    std::vector<Tensor> out;
    std::set<const OperationNode*> seen;
    std::function<void(const Tensor&)> visit = [&](const Tensor& t) {
        if (!t->isCompute() || !seen.insert(t.get()).second) return;
        for (const Tensor& in : inputTensors(t))
            visit(in);
        out.push_back(t);
    };
    for (const Tensor& t : args)
        visit(t);
    return out;
}

// `a >= b` as `b <= a` and `a > b` as `b < a`, as TVM's rewrite simplifier leaves them.
class FlipGreater : public IRMutator {
protected:
    Expr visitBinary(const BinaryNode* op, const Expr& self) override
    {
        const Expr e = IRMutator::visitBinary(op, self);
        const auto* b = e.as<BinaryNode>();
        if (e.kind() == ExprKind::GE) return makeBinary(ExprKind::LE, b->b, b->a);
        if (e.kind() == ExprKind::GT) return makeBinary(ExprKind::LT, b->b, b->a);
        return e;
    }
};

Stmt blockNest(const Tensor& t)
{
    BlockNode b;
    b.name = t->name;
    VarMap toBlockVars;
    std::vector<Var> loopVars;
    std::vector<Range> loopRanges;
    auto addIter = [&](const IterVar& iv, BlockIterKind kind) {
        Var loop(iv->name());
        Var v("v_" + iv->name());
        toBlockVars[iv->var.get()] = v;
        b.iters.push_back({v, iv->dom, kind, loop});
        loopVars.push_back(loop);
        loopRanges.push_back(iv->dom);
    };
    for (const IterVar& iv : t->axes)
        addIter(iv, BlockIterKind::Spatial);
    for (const IterVar& iv : t->reduceAxes)
        addIter(iv, BlockIterKind::Reduce);
    // A block's loops start at 0; an axis that does not is offset in its binding.
    for (std::size_t k = 0; k < b.iters.size(); ++k) {
        Expr min = b.iters[k].dom.min;
        if (!isZero(min)) b.iters[k].binding = loopVars[k] + min;
    }
    std::vector<Expr> index;
    for (const IterVar& iv : t->axes)
        index.push_back(toBlockVars[iv->var.get()]);
    Expr body = substitute(t->body, toBlockVars);
    // TVM's CreatePrimFunc simplifies what is computed (a reduction's source); of what its
    // analyzer does there, what shows in the sources TE writes is `y >= 1` made `1 <= y`.
    if (auto* red = body.as<ReduceNode>()) {
        const Expr source = FlipGreater().mutate(red->source);
        b.reads = readRegions({source}, t.get());
        b.init = makeTensorStore(t, index, reduceIdentity(red->op, t->dtype));
        Expr acc = makeTensorLoad(t, index);
        Expr update = reduceCombine(red->op, acc, source);
        if (red->condition.defined()) update = makeSelect(red->condition, update, acc);
        b.body = makeTensorStore(t, index, update);
    } else {
        body = FlipGreater().mutate(body);
        b.reads = readRegions({body}, t.get());
        b.body = makeTensorStore(t, index, body);
    }
    TensorRegion w{t, {}};
    for (const Expr& e : index)
        w.region.push_back({e, makeInt(1)});
    b.writes.push_back(std::move(w));
    Stmt s = makeBlock(std::move(b));
    for (std::size_t k = loopVars.size(); k-- > 0;)
        s = makeFor(loopVars[k], makeInt(0), loopRanges[k].extent, ForKind::Serial, s);
    return s;
}

// `s` with the loop of `v` replaced by what `f` makes of it.
class LoopRewriter : public IRMutator {
public:
    LoopRewriter(const VarNode* v, std::function<Stmt(const ForNode*)> f)
        : m_v(v), m_f(std::move(f))
    {
    }
    bool found = false;

protected:
    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        if (op->var.get() == m_v) {
            found = true;
            return m_f(op);
        }
        return IRMutator::visitFor(op, self);
    }

private:
    const VarNode* m_v;
    std::function<Stmt(const ForNode*)> m_f;
};

[[noreturn]] void staleLoop(const Var& loop, int argument)
{
    throw ScheduleError("the loop '" + loop.name() +
                            "' is no longer in the function (a split, fuse or reorder "
                            "replaced it): use the loops that step returned",
                        argument);
}

TirFunc rewriteLoop(const TirFunc& f, const Var& loop, int argument,
                    const std::function<Stmt(const ForNode*)>& rewrite)
{
    LoopRewriter r(loop.get(), rewrite);
    TirFunc out = f;
    out.body = r.mutate(f.body);
    if (!r.found) staleLoop(loop, argument);
    return out;
}

// `s` with block `b` replaced by what `f` makes of it (given the block and its statement).
Stmt rewriteBlock(const Stmt& s, const BlockNode* b,
                  const std::function<Stmt(const BlockNode*, const Stmt&)>& f)
{
    class Rewriter : public IRMutator {
    public:
        Rewriter(const BlockNode* b, const std::function<Stmt(const BlockNode*, const Stmt&)>& f)
            : m_b(b), m_f(f)
        {
        }

    protected:
        Stmt visitBlock(const BlockNode* op, const Stmt& self) override
        {
            return op == m_b ? m_f(op, self) : IRMutator::visitBlock(op, self);
        }

    private:
        const BlockNode* m_b;
        const std::function<Stmt(const BlockNode*, const Stmt&)>& m_f;
    };
    return Rewriter(b, f).mutate(s);
}

// Block `b` removed, with the loops that held nothing else; a subclass may change the rest.
class DropBlock : public IRMutator {
public:
    explicit DropBlock(const BlockNode* b) : m_dropped(b) {}

protected:
    Stmt visitBlock(const BlockNode* op, const Stmt& self) override
    {
        return op == m_dropped ? Stmt() : IRMutator::visitBlock(op, self);
    }
    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitFor(op, self);
        if (auto* l = s.as<ForNode>(); l && !l->body.defined()) return Stmt();
        return s;
    }

private:
    const BlockNode* m_dropped;
};

// Block `name`, or a refusal about argument `argument`.
const BlockNode& blockNamed(const TirFunc& f, const std::string& name, int argument)
{
    const BlockNode* b = findBlock(f, name);
    if (!b) throw ScheduleError("there is no block named '" + name + "'", argument);
    return *b;
}

// The loop of `loop`, or a refusal about argument `argument` (a handle a step made stale).
const ForNode& loopOf(const TirFunc& f, const Var& loop, int argument)
{
    const ForNode* l = findLoop(f, loop.get());
    if (!l) staleLoop(loop, argument);
    return *l;
}

// The `index`th of the buffers block `name` reads or writes (`regions`), or a refusal about
// argument 1.
const TensorRegion& bufferAt(const std::vector<TensorRegion>& regions, const std::string& name,
                             const char* verb, int index)
{
    if (index < 0 || index >= static_cast<int>(regions.size()))
        throw ScheduleError("block '" + name + "' " + verb + " " + std::to_string(regions.size()) +
                                " buffer" + (regions.size() == 1 ? "" : "s") +
                                ": the index must be 0 to " +
                                std::to_string(static_cast<int>(regions.size()) - 1),
                            1);
    return regions[static_cast<std::size_t>(index)];
}

// Every block in `s`, outermost first.
void collectBlocks(const Stmt& s, std::vector<const BlockNode*>* out)
{
    anyStmt(s, [&](const StmtNode* n) {
        if (n->kind == StmtKind::Block) out->push_back(static_cast<const BlockNode*>(n));
        return false;
    });
}

// Adds `cond` to the predicate of every block in `s`.
class GuardBlocks : public IRMutator {
public:
    explicit GuardBlocks(Expr cond) : m_cond(std::move(cond)) {}

protected:
    Stmt visitBlock(const BlockNode* op, const Stmt& self) override
    {
        (void)self;
        BlockNode b = *op;
        b.predicate =
            b.predicate.defined() ? makeBinary(ExprKind::And, b.predicate, m_cond) : m_cond;
        return makeBlock(std::move(b));
    }

private:
    Expr m_cond;
};

// An affine sum as TVM's IterMapSimplify leaves a block's binding after a split: nested sums
// and multiples of sums by constants flattened into one left-nested sum of terms, each a loop
// variable (or what is not a sum, such as `f // 56`) times its constant, outermost first, then
// the constant: `(i_0 * 256 + i_1) * 4 + i_2` -> `i_0 * 1024 + i_1 * 4 + i_2`. What is not
// such a sum is returned as it is.
Expr flattenAffine(const Expr& e)
{
    struct Term {
        Expr atom;
        std::int64_t coeff;
    };
    std::vector<Term> terms;
    std::int64_t constant = 0;
    bool nested = false;
    std::function<void(const Expr&, std::int64_t)> walk = [&](const Expr& x, std::int64_t c) {
        std::int64_t k = 0;
        if (isConstInt(x, &k)) {
            constant += c * k;
            return;
        }
        if (x.kind() == ExprKind::Add) {
            const auto* b = x.as<BinaryNode>();
            if (b->b.kind() == ExprKind::Add || c != 1) nested = true;
            walk(b->a, c);
            walk(b->b, c);
            return;
        }
        if (x.kind() == ExprKind::Mul) {
            const auto* b = x.as<BinaryNode>();
            if (isConstInt(b->b, &k)) {
                if (b->a.kind() == ExprKind::Add) nested = true;
                walk(b->a, c * k);
                return;
            }
        }
        for (Term& t : terms)
            if (t.atom.same(x)) {
                t.coeff += c;
                return;
            }
        terms.push_back({x, c});
    };
    walk(e, 1);
    if (!nested) return e;
    Expr out;
    for (const Term& t : terms) {
        if (t.coeff == 0) continue;
        const Expr term = t.coeff == 1 ? t.atom : t.atom * makeInt(t.coeff);
        out = out.defined() ? out + term : term;
    }
    if (constant != 0 || !out.defined())
        out = out.defined() ? out + makeInt(constant) : makeInt(constant);
    return out;
}

// Every block binding in `s` flattened (flattenAffine), as TVM simplifies them after a split.
class FlattenBindings : public IRMutator {
protected:
    Stmt visitBlock(const BlockNode* op, const Stmt& self) override
    {
        const Stmt inner = IRMutator::visitBlock(op, self);
        op = inner.as<BlockNode>();
        bool changed = !inner.same(self);
        BlockNode b = *op;
        for (BlockIter& it : b.iters) {
            if (!it.binding.defined()) continue;
            Expr flat = flattenAffine(it.binding);
            changed |= !flat.same(it.binding);
            it.binding = flat;
        }
        if (!changed) return inner;
        return makeBlock(std::move(b));
    }
};

// The block bindings in `s` that use `v`, simplified by `an`.
class SimplifyBindings : public IRMutator {
public:
    SimplifyBindings(const Analyzer& an, const VarNode* v) : m_an(an), m_v(v) {}

protected:
    Stmt visitBlock(const BlockNode* op, const Stmt& self) override
    {
        const Stmt inner = IRMutator::visitBlock(op, self);
        BlockNode b = *inner.as<BlockNode>();
        bool changed = false;
        for (BlockIter& it : b.iters) {
            if (!it.binding.defined() || !usesVar(it.binding, m_v)) continue;
            it.binding = m_an.simplify(it.binding);
            changed = true;
        }
        return changed ? makeBlock(std::move(b)) : inner;
    }

private:
    const Analyzer& m_an;
    const VarNode* m_v;
};

} // namespace

namespace {

struct PlacedBlock {
    const BlockNode* block;
    std::vector<const ForNode*> loops; // between the scope and the block, outermost first
};

void placedBlocks(const Stmt& s, std::vector<const ForNode*>& path, std::vector<PlacedBlock>* out)
{
    if (!s.defined()) return;
    switch (s.kind()) {
    case StmtKind::Block: out->push_back({s.as<BlockNode>(), path}); return;
    case StmtKind::For:
        path.push_back(s.as<ForNode>());
        placedBlocks(s.as<ForNode>()->body, path, out);
        path.pop_back();
        return;
    case StmtKind::Seq:
        for (const Stmt& c : s.as<SeqNode>()->stmts)
            placedBlocks(c, path, out);
        return;
    case StmtKind::IfThenElse:
        placedBlocks(s.as<IfThenElseNode>()->thenCase, path, out);
        placedBlocks(s.as<IfThenElseNode>()->elseCase, path, out);
        return;
    default: return;
    }
}

// The span of `regions` of `t` as the loops of `placed` run (they are relaxed), in the variables
// of the loops above them; per dimension, unknown where it cannot be told.
void relaxedRegion(const PlacedBlock& placed, const std::vector<TensorRegion>& regions,
                   const Tensor& t, std::vector<IntervalSet>* span, bool* any,
                   const std::vector<const ForNode*>& alsoRelaxed = {})
{
    Analyzer an;
    IntervalMap relax;
    for (const auto* loops : {&placed.loops, &alsoRelaxed})
        for (const ForNode* l : *loops)
            relax[l->var.get()] = {l->min, simplify(l->min + l->extent - makeInt(1))};
    VarMap bindings;
    for (const BlockIter& it : placed.block->iters)
        bindings[it.var.get()] = it.binding;
    for (const TensorRegion& r : regions) {
        if (r.tensor != t) continue;
        if (span->empty()) span->resize(r.region.size());
        for (std::size_t d = 0; d < r.region.size(); ++d) {
            const Range& x = r.region[d];
            IntervalSet lo = evalInterval(substitute(x.min, bindings), relax, an);
            IntervalSet hi = evalInterval(
                substitute(simplify(x.min + x.extent - makeInt(1)), bindings), relax, an);
            IntervalSet here =
                lo.known() && hi.known() ? IntervalSet{lo.min, hi.max} : IntervalSet::everything();
            (*span)[d] = *any ? unionInterval((*span)[d], here, an) : here;
        }
        *any = true;
    }
}

} // namespace

namespace {

// `target` and the loops around it, outermost first (none when `target` is null).
std::vector<const ForNode*> loopsDownTo(const TirFunc& f, const ForNode* target)
{
    std::vector<const ForNode*> path;
    std::function<bool(const Stmt&)> walk = [&](const Stmt& st) -> bool {
        if (auto* l = st.as<ForNode>()) {
            path.push_back(l);
            if (l == target || walk(l->body)) return true;
            path.pop_back();
            return false;
        }
        if (auto* seq = st.as<SeqNode>()) {
            for (const Stmt& x : seq->stmts)
                if (walk(x)) return true;
            return false;
        }
        if (auto* b = st.as<BlockNode>()) return walk(b->body);
        return false;
    };
    if (target) walk(f.body);
    return path;
}

// The loops bound to GPU threads, of `target` and those around it, that all share one copy of
// `t` in its storage scope, so that what is computed at `target` covers what all of them use
// (TVM's CanRelaxStorageUnderThread): blockIdx, threadIdx and vthread loops for global memory,
// threadIdx and vthread for shared, none for local.
std::vector<const ForNode*> threadLoopsSharing(const TirFunc& f, const ForNode* target,
                                               const Tensor& t)
{
    std::string scope = "global";
    for (const BlockAlloc& a : f.allocs)
        if (a.tensor == t && !a.scope.empty()) scope = a.scope;
    const int rank = storageRank(scope); // a block's scope is one checkScope knows
    std::vector<const ForNode*> out;
    for (const ForNode* l : loopsDownTo(f, target)) {
        if (l->forKind != ForKind::ThreadBinding) continue;
        // TensorIR names virtual threads vthread.x/y/z; TVM ranks every "vthread..." as one.
        const std::string tag = l->threadTag.rfind("vthread", 0) == 0 ? "vthread" : l->threadTag;
        if (threadRank(tag) >= 0 && storageCoversThread(rank, tag)) out.push_back(l);
    }
    return out;
}

std::vector<Stmt> rootStatements(const Stmt& body)
{
    if (auto* seq = body.as<SeqNode>()) return seq->stmts;
    return {body};
}

} // namespace

TirFunc tirComputeAt(const TirFunc& f, const std::string& name, const Var& loop, bool reverse,
                     bool preserveUnitLoops)
{
    const BlockNode* b = &blockNamed(f, name, 0);
    const ForNode* target = &loopOf(f, loop, 1);
    const std::vector<Var> path = blockLoops(f, name);
    for (const Var& v : path)
        if (v.get() == loop.get())
            throw ScheduleError(
                "the block '" + name + "' is under loop '" + loop.name() + "' already", 1);
    // The blocks under the loop, and what they write (reverse) or read (compute_at) of what this
    // block reads or writes.
    std::vector<const ForNode*> none;
    std::vector<PlacedBlock> there;
    placedBlocks(target->body, none, &there);
    const std::vector<TensorRegion>& mine = reverse ? b->reads : b->writes;
    std::vector<IntervalSet> span;
    Tensor through;
    for (const TensorRegion& r : mine) {
        bool any = false;
        span.clear();
        const std::vector<const ForNode*> shared = threadLoopsSharing(f, target, r.tensor);
        for (const PlacedBlock& p : there)
            relaxedRegion(p, reverse ? p.block->writes : p.block->reads, r.tensor, &span, &any,
                          shared);
        if (any) {
            through = r.tensor;
            break;
        }
    }
    if (!through)
        throw ScheduleError(std::string("no block under loop '") + loop.name() + "' " +
                                (reverse ? "writes what block '" + name + "' reads"
                                         : "reads what block '" + name + "' writes"),
                            1);
    // The loops down to the target, with their ranges: TVM's analyzer simplifies the new
    // bindings with them (`f // 224` of a loop of 224 is 0).
    Analyzer an;
    for (const ForNode* l : loopsDownTo(f, target))
        an.bind(l->var, l->min, l->extent);
    // Each variable's range: from the dimension it indexes of that tensor, else its whole domain.
    std::vector<Range> ranges;
    for (const BlockIter& it : b->iters)
        ranges.push_back(it.dom);
    for (const TensorRegion& r : mine) {
        if (r.tensor != through) continue;
        for (std::size_t d = 0; d < r.region.size() && d < span.size(); ++d) {
            if (!span[d].known()) continue;
            const Expr& idx = r.region[d].min;
            std::int64_t offset = 0;
            const VarNode* v = idx.as<VarNode>();
            if (!v)
                if (auto* add = idx.as<BinaryNode>();
                    add && idx.kind() == ExprKind::Add && isConstInt(add->b, &offset))
                    v = add->a.as<VarNode>();
            for (std::size_t k = 0; v && k < b->iters.size(); ++k)
                if (b->iters[k].var.get() == v)
                    ranges[k] = {simplify(span[d].min - makeInt(offset)),
                                 simplify(span[d].max - span[d].min + makeInt(1))};
        }
    }
    // The block under its new loops.
    BlockNode moved = *b;
    moved.predicate = Expr();
    std::vector<Var> axes;
    std::vector<Expr> extents;
    for (std::size_t k = 0; k < moved.iters.size(); ++k) {
        if (isOne(ranges[k].extent) && !preserveUnitLoops) {
            moved.iters[k].binding = an.simplify(ranges[k].min);
            continue;
        }
        Var ax("ax" + std::to_string(axes.size()));
        axes.push_back(ax);
        extents.push_back(ranges[k].extent);
        an.bind(ax, makeInt(0), ranges[k].extent);
        moved.iters[k].binding = an.simplify(ranges[k].min + ax);
    }
    Stmt nest = makeBlock(std::move(moved));
    for (std::size_t k = axes.size(); k-- > 0;)
        nest = makeFor(axes[k], makeInt(0), extents[k], ForKind::Serial, nest);
    // Out of its old place: its loops go with it where they hold nothing else.
    TirFunc out = f;
    out.body = DropBlock(b).mutate(f.body);
    // Where TVM puts it (index=-1): before the first statement that holds a block reading what
    // it writes (after the last that writes what it reads, for a consumer), else at the end.
    auto readsFrom = [](const Stmt& st, const BlockNode* of) {
        std::vector<const BlockNode*> blocks;
        collectBlocks(st, &blocks);
        for (const BlockNode* x : blocks)
            for (const TensorRegion& r : x->reads)
                for (const TensorRegion& w : of->writes)
                    if (r.tensor == w.tensor) return true;
        return false;
    };
    return rewriteLoop(out, loop, 1, [&](const ForNode* op) {
        std::vector<Stmt> items = rootStatements(op->body);
        std::size_t at = items.size();
        for (std::size_t i = 0; i < items.size() && at == items.size(); ++i)
            if (readsFrom(items[i], b)) at = i;
        items.insert(items.begin() + static_cast<std::ptrdiff_t>(at), nest);
        return makeFor(op->var, op->min, op->extent, op->forKind, makeSeq(std::move(items)),
                       op->threadTag);
    });
}

namespace {

// Reads and writes of one tensor redirected to another, in bodies and regions; with `remap`, an
// access's indices become what it makes of them (transform_layout), in regions too, which must
// then be points.
class ReplaceTensor : public IRMutator {
public:
    using Remap = std::function<std::vector<Expr>(const std::vector<Expr>&)>;

    ReplaceTensor(Tensor from, Tensor to, bool reads, bool writes, Remap remap = {})
        : m_from(std::move(from)), m_to(std::move(to)), m_reads(reads), m_writes(writes),
          m_remap(std::move(remap))
    {
    }

protected:
    std::vector<Expr> indices(const std::vector<Expr>& old) const
    {
        return m_remap ? m_remap(old) : old;
    }
    Expr visitTensorLoad(const TensorLoadNode* op, const Expr& self) override
    {
        Expr e = IRMutator::visitTensorLoad(op, self);
        auto* l = e.as<TensorLoadNode>();
        if (!m_reads || !l || l->tensor != m_from) return e;
        return makeTensorLoad(m_to, indices(l->indices));
    }
    Stmt visitTensorStore(const TensorStoreNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitTensorStore(op, self);
        auto* st = s.as<TensorStoreNode>();
        if (!m_writes || !st || st->tensor != m_from) return s;
        return makeTensorStore(m_to, indices(st->indices), st->value);
    }
    Stmt visitBlock(const BlockNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitBlock(op, self);
        BlockNode b = *s.as<BlockNode>();
        for (auto* regions : {&b.reads, &b.writes}) {
            const bool wanted = regions == &b.reads ? m_reads : m_writes;
            for (TensorRegion& r : *regions) {
                if (!wanted || r.tensor != m_from) continue;
                r.tensor = m_to;
                if (!m_remap) continue;
                std::vector<Expr> mins;
                for (const Range& x : r.region) {
                    if (!isConstInt(x.extent, 1))
                        throw ScheduleError("block '" + b.name + "' accesses '" + m_from->name +
                                                "' over a region, not at a point: its layout "
                                                "cannot be mapped here",
                                            1);
                    mins.push_back(x.min);
                }
                r.region.clear();
                for (const Expr& e : indices(mins))
                    r.region.push_back({e, makeInt(1)});
            }
        }
        return makeBlock(std::move(b));
    }

private:
    Tensor m_from, m_to;
    bool m_reads, m_writes;
    Remap m_remap;
};

// replaceTensor, an access's indices remapped (ReplaceTensor's `remap`).
TirFunc replaceTensorMapped(const TirFunc& f, const Tensor& from, const Tensor& to,
                            ReplaceTensor::Remap remap)
{
    // Allocations are the one place the mutator does not reach.
    class WithAllocs : public ReplaceTensor {
    public:
        WithAllocs(const Tensor& a, const Tensor& b, Remap remap)
            : ReplaceTensor(a, b, true, true, std::move(remap)), m_a(a), m_b(b)
        {
        }

    protected:
        Stmt visitBlock(const BlockNode* op, const Stmt& self) override
        {
            Stmt s = ReplaceTensor::visitBlock(op, self);
            BlockNode b = *s.as<BlockNode>();
            for (BlockAlloc& a : b.allocs)
                if (a.tensor == m_a) a.tensor = m_b;
            return makeBlock(std::move(b));
        }

    private:
        Tensor m_a, m_b;
    };
    TirFunc out = f;
    for (Tensor& t : out.params)
        if (t == from) t = to;
    for (BlockAlloc& a : out.allocs)
        if (a.tensor == from) a.tensor = to;
    out.body = WithAllocs(from, to, std::move(remap)).mutate(f.body);
    return out;
}

// A block copying `from` into `to` over their whole shape, under loops ax0, ax1, ...
Stmt copyNest(const std::string& name, const Tensor& from, const Tensor& to)
{
    BlockNode b;
    b.name = name;
    std::vector<Var> loops;
    std::vector<Expr> index;
    for (std::size_t d = 0; d < from->shape.size(); ++d) {
        Var loop("ax" + std::to_string(d));
        Var v("v" + std::to_string(d));
        loops.push_back(loop);
        index.push_back(v);
        b.iters.push_back({v, {makeInt(0), from->shape[d]}, BlockIterKind::Spatial, loop});
    }
    TensorRegion r{from, {}}, w{to, {}};
    for (const Expr& e : index) {
        r.region.push_back({e, makeInt(1)});
        w.region.push_back({e, makeInt(1)});
    }
    b.reads.push_back(r);
    b.writes.push_back(w);
    b.body = makeTensorStore(to, index, makeTensorLoad(from, index));
    Stmt s = makeBlock(std::move(b));
    for (std::size_t d = loops.size(); d-- > 0;)
        s = makeFor(loops[d], makeInt(0), from->shape[d], ForKind::Serial, s);
    return s;
}

// The index in the root's statements of the one that holds block `name`.
std::size_t rootIndexOf(const std::vector<Stmt>& top, const BlockNode* b)
{
    for (std::size_t i = 0; i < top.size(); ++i)
        if (anyStmt(top[i], [&](const StmtNode* n) { return n == b; })) return i;
    return top.size();
}

Tensor cacheTensor(const Tensor& of, const std::string& scope, const TirFunc& f)
{
    std::string name = of->name + "_" + scope;
    for (int n = 1; findBlock(f, name); ++n)
        name = of->name + "_" + scope + "_" + std::to_string(n);
    return makePlaceholder(name, of->shape, of->dtype, of->loc);
}

void checkScope(const std::string& scope)
{
    static const char* const known[] = {"global", "shared", "local", "shared.dyn", "warp"};
    if (std::find(std::begin(known), std::end(known), scope) == std::end(known))
        throw ScheduleError(
            "unknown storage scope '" + scope + "' (global, shared, shared.dyn, local or warp)", 2);
}

} // namespace

TirFunc tirCacheRead(const TirFunc& f, const std::string& name, int index, const std::string& scope,
                     std::string* cacheBlock)
{
    const BlockNode* b = &blockNamed(f, name, 0);
    const Tensor from = bufferAt(b->reads, name, "reads", index).tensor;
    checkScope(scope);
    const Tensor cache = cacheTensor(from, scope, f);
    TirFunc out = f;
    ReplaceTensor toCache(from, cache, true, false);
    std::vector<Stmt> top = rootStatements(f.body);
    // After the nest that produces it; first for an input.
    std::size_t at = 0;
    for (std::size_t i = 0; i < top.size(); ++i) {
        std::vector<const BlockNode*> blocks;
        collectBlocks(top[i], &blocks);
        for (const BlockNode* p : blocks)
            for (const TensorRegion& w : p->writes)
                if (w.tensor == from) at = i + 1;
    }
    const std::size_t mine = rootIndexOf(top, b);
    // The block (only it) reads the cache.
    top[mine] = rewriteBlock(
        top[mine], b, [&](const BlockNode*, const Stmt& self) { return toCache.mutate(self); });
    top.insert(top.begin() + static_cast<std::ptrdiff_t>(std::min(at, mine)),
               copyNest(cache->name, from, cache));
    out.body = makeSeq(std::move(top));
    out.allocs.push_back({cache, scope});
    if (cacheBlock) *cacheBlock = cache->name;
    return out;
}

TirFunc tirCacheWrite(const TirFunc& f, const std::string& name, int index,
                      const std::string& scope, std::string* cacheBlock)
{
    const BlockNode* b = &blockNamed(f, name, 0);
    const Tensor to = bufferAt(b->writes, name, "writes", index).tensor;
    checkScope(scope);
    const Tensor cache = cacheTensor(to, scope, f);
    TirFunc out = f;
    std::vector<Stmt> top = rootStatements(f.body);
    const std::size_t mine = rootIndexOf(top, b);
    // Every block of the nest that writes the buffer (an init decomposed from it too) writes the
    // cache, and reads it where it read the buffer.
    top[mine] = ReplaceTensor(to, cache, true, true).mutate(top[mine]);
    top.insert(top.begin() + static_cast<std::ptrdiff_t>(mine + 1),
               copyNest(cache->name, cache, to));
    out.body = makeSeq(std::move(top));
    out.allocs.push_back({cache, scope});
    if (cacheBlock) *cacheBlock = cache->name;
    return out;
}

namespace {

// The block's one store, or the refusal of inlining it: a reduction or several statements.
const TensorStoreNode* singleStore(const BlockNode& b)
{
    auto* store = b.body.as<TensorStoreNode>();
    if (b.init.defined() || !store || b.writes.size() != 1)
        throw ScheduleError("the block '" + b.name +
                                "' is not a single store of a value of its variables (a "
                                "reduction or a block of several statements cannot be inlined)",
                            0);
    return store;
}

} // namespace

TirFunc tirReverseComputeInline(const TirFunc& f, const std::string& name)
{
    const BlockNode* c = &blockNamed(f, name, 0);
    const TensorStoreNode* cstore = singleStore(*c);
    // The one producer: the block writing the buffer the consumer reads, read nowhere else.
    std::vector<const BlockNode*> all;
    collectBlocks(f.body, &all);
    const BlockNode* p = nullptr;
    Tensor between;
    for (const TensorRegion& r : c->reads)
        for (const BlockNode* o : all)
            for (const TensorRegion& w : o->writes)
                if (o != c && w.tensor == r.tensor) {
                    if (p && p != o)
                        throw ScheduleError("the block '" + name +
                                                "' reads what several blocks write: it can be "
                                                "inlined into one producer only",
                                            0);
                    p = o;
                    between = r.tensor;
                }
    if (!p) throw ScheduleError("no block writes what the block '" + name + "' reads", 0);
    if (std::find(f.params.begin(), f.params.end(), between) != f.params.end())
        throw ScheduleError(
            "'" + between->name + "' is an argument of the function: its values must be stored", 0);
    for (const BlockNode* o : all)
        for (const TensorRegion& r : o->reads)
            if (o != c && r.tensor == between)
                throw ScheduleError("the block '" + o->name + "' reads '" + between->name +
                                        "' too: only its one consumer can be inlined into it",
                                    0);
    auto* pstore = p->body.as<TensorStoreNode>();
    if (p->init.defined() || !pstore || p->writes.size() != 1)
        throw ScheduleError("the block '" + name +
                                "' to be inlined must have a single producer that is a complete "
                                "block, and '" +
                                p->name + "' is a reduction or more than one store",
                            0);
    // The consumer reads the producer's buffer at one index, each of its variables once.
    std::vector<Expr> at;
    bool same = true;
    forEachExpr(cstore->value, [&](const Expr& e) {
        auto* l = e.as<TensorLoadNode>();
        if (!l || l->tensor != between) return;
        if (at.empty())
            at = l->indices;
        else
            for (std::size_t d = 0; d < at.size(); ++d)
                same = same && at[d].same(l->indices[d]);
    });
    VarMap toProducer;
    for (std::size_t d = 0; d < at.size(); ++d) {
        auto* v = at[d].as<VarNode>();
        if (!v || toProducer.count(v) || d >= pstore->indices.size()) {
            same = false;
            break;
        }
        toProducer[v] = pstore->indices[d];
    }
    if (!same || toProducer.size() != c->iters.size())
        throw ScheduleError("the block '" + name + "' does not read '" + between->name +
                                "' at its own variables, each once, the same way everywhere: "
                                "its store cannot move into the producer's",
                            0);
    // The producer's block stores the consumer's value of what it computed.
    class Move : public DropBlock {
    public:
        Move(const BlockNode* consumer, const BlockNode* producer, Stmt store)
            : DropBlock(consumer), m_producer(producer), m_store(std::move(store))
        {
        }

    protected:
        Stmt visitBlock(const BlockNode* op, const Stmt& self) override
        {
            if (op != m_producer) return DropBlock::visitBlock(op, self);
            BlockNode b = *op;
            b.body = m_store;
            auto* w = m_store.as<TensorStoreNode>();
            b.reads = readRegions({w->value}, w->tensor.get());
            TensorRegion region{w->tensor, {}};
            for (const Expr& e : w->indices)
                region.region.push_back({e, makeInt(1)});
            b.writes = {region};
            return makeBlock(std::move(b));
        }

    private:
        const BlockNode* m_producer;
        Stmt m_store;
    };
    class ReplaceLoad : public IRMutator {
    public:
        ReplaceLoad(Tensor t, Expr value) : m_t(std::move(t)), m_value(std::move(value)) {}

    protected:
        Expr visitTensorLoad(const TensorLoadNode* op, const Expr& self) override
        {
            return op->tensor == m_t ? m_value : IRMutator::visitTensorLoad(op, self);
        }

    private:
        Tensor m_t;
        Expr m_value;
    };
    std::vector<Expr> indices;
    for (const Expr& e : cstore->indices)
        indices.push_back(substitute(e, toProducer));
    const Expr value =
        ReplaceLoad(between, pstore->value).mutate(substitute(cstore->value, toProducer));
    TirFunc out = f;
    out.body = Move(c, p, makeTensorStore(cstore->tensor, indices, value)).mutate(f.body);
    out.allocs.erase(std::remove_if(out.allocs.begin(), out.allocs.end(),
                                    [&](const BlockAlloc& a) { return a.tensor == between; }),
                     out.allocs.end());
    return out;
}

TirFunc tirComputeInline(const TirFunc& f, const std::string& name)
{
    const BlockNode* b = &blockNamed(f, name, 0);
    const TensorStoreNode* store = singleStore(*b);
    const Tensor t = store->tensor;
    if (std::find(f.params.begin(), f.params.end(), t) != f.params.end())
        throw ScheduleError("the block '" + name + "' writes '" + t->name +
                                "', an argument of the function: its values must be stored",
                            0);
    // Each index must be one of the block's variables, once.
    std::vector<const VarNode*> vars;
    for (const Expr& e : store->indices) {
        auto* v = e.as<VarNode>();
        if (!v || std::find(vars.begin(), vars.end(), v) != vars.end())
            throw ScheduleError("the block '" + name +
                                    "' stores at indices that are not its "
                                    "variables, each once, so its value cannot be inlined",
                                0);
        vars.push_back(v);
    }
    // The blocks' values grow by the inlined value at each read (a chain of blocks that each
    // read their producer twice, inlined one by one, doubles it each time): refuse before an
    // expression beyond what lowering takes, as TE's inlining does.
    auto nodes = [](const Expr& e) {
        std::int64_t n = 0;
        forEachExpr(e, [&](const Expr&) { ++n; });
        return n;
    };
    const std::int64_t inlined = nodes(store->value);
    std::vector<const BlockNode*> readers;
    collectBlocks(f.body, &readers);
    for (const BlockNode* r : readers) {
        auto* w = r->body.as<TensorStoreNode>();
        if (r == b || !w) continue;
        std::int64_t loads = 0;
        forEachExpr(w->value, [&](const Expr& e) {
            if (auto* l = e.as<TensorLoadNode>(); l && l->tensor == t) ++loads;
        });
        const long double size =
            static_cast<long double>(nodes(w->value)) +
            static_cast<long double>(loads) * static_cast<long double>(inlined);
        if (loads > 0 && size > static_cast<long double>(kMaxInlinedNodes)) {
            char count[32];
            std::snprintf(count, sizeof count, "%.3Lg", size);
            throw ScheduleError("inlining '" + name + "' makes the value of block '" + r->name +
                                    "' an expression of " + count + " nodes; at most " +
                                    std::to_string(kMaxInlinedNodes) + " are supported: keep '" +
                                    name + "' a block of its own",
                                0);
        }
    }
    class Inline : public DropBlock {
    public:
        Inline(const TensorStoreNode* s, std::vector<const VarNode*> vars, const BlockNode* self)
            : DropBlock(self), m_s(s), m_vars(std::move(vars))
        {
        }

    protected:
        Expr visitTensorLoad(const TensorLoadNode* op, const Expr& self) override
        {
            Expr e = IRMutator::visitTensorLoad(op, self);
            auto* l = e.as<TensorLoadNode>();
            if (!l || l->tensor != m_s->tensor) return e;
            VarMap at;
            for (std::size_t d = 0; d < m_vars.size(); ++d)
                at[m_vars[d]] = l->indices[d];
            return substitute(m_s->value, at);
        }
        Stmt visitBlock(const BlockNode* op, const Stmt& self) override
        {
            Stmt s = DropBlock::visitBlock(op, self);
            if (!s.defined() || s.same(self)) return s;
            // Its reads: what the inlined value reads instead of the buffer.
            BlockNode b = *s.as<BlockNode>();
            auto* w = b.body.as<TensorStoreNode>();
            if (!w || b.writes.empty()) return s;
            const OperationNode* written = b.writes.front().tensor.get();
            b.reads = readRegions({w->value}, written);
            // A block without an init that reads what it writes lists that first, as TVM does.
            bool readsItself = false;
            forEachExpr(w->value, [&](const Expr& e) {
                if (auto* l = e.as<TensorLoadNode>(); l && l->tensor.get() == written)
                    readsItself = true;
            });
            if (readsItself && !b.init.defined()) b.reads.insert(b.reads.begin(), b.writes.front());
            return makeBlock(std::move(b));
        }

    private:
        const TensorStoreNode* m_s;
        std::vector<const VarNode*> m_vars;
    };
    TirFunc out = f;
    out.body = Inline(store, vars, b).mutate(f.body);
    out.allocs.erase(std::remove_if(out.allocs.begin(), out.allocs.end(),
                                    [&](const BlockAlloc& a) { return a.tensor == t; }),
                     out.allocs.end());
    return out;
}

TirFunc tirRfactor(const TirFunc& f, const Var& loop, int factorAxis, std::string* rfBlock)
{
    const ForNode* rfLoop = &loopOf(f, loop, 0);
    std::vector<const BlockNode*> blocks;
    collectBlocks(rfLoop->body, &blocks);
    if (blocks.size() != 1)
        throw ScheduleError("the loop '" + loop.name() +
                                "' must hold exactly one block, a "
                                "reduction, to rfactor it",
                            0);
    const BlockNode* b = blocks.front();
    auto* store = b->body.as<TensorStoreNode>();
    auto* combine = store ? store->value.as<BinaryNode>() : nullptr;
    auto* acc = combine ? combine->a.as<TensorLoadNode>() : nullptr;
    if (!b->init.defined() || !store || !acc || acc->tensor != store->tensor)
        throw ScheduleError("the block '" + b->name +
                                "' is not a reduction with its init (rfactor "
                                "before decompose_reduction)",
                            0);
    const std::vector<Var> pathVars = blockLoops(f, b->name);
    std::vector<const ForNode*> path;
    for (const Var& v : pathVars)
        path.push_back(findLoop(f, v.get()));
    for (std::size_t k = 0; k + 1 < path.size(); ++k)
        if (path[k]->body.get() != path[k + 1])
            throw ScheduleError("the block's loops must be directly nested to rfactor it", 0);
    if (path.back()->body.get() != b || b->predicate.defined())
        throw ScheduleError("the block must be alone under its loops, without T.where, to "
                            "rfactor it",
                            0);
    // Which loops the reduction variables use, and which the spatial ones.
    VarSet reduceLoops, spatialLoops;
    for (const BlockIter& it : b->iters)
        collectVars(it.binding, it.kind == BlockIterKind::Reduce ? &reduceLoops : &spatialLoops);
    if (!reduceLoops.count(loop.get()))
        throw ScheduleError("the loop '" + loop.name() + "' is not a loop of the reduction", 0);
    for (const VarNode* v : reduceLoops)
        if (spatialLoops.count(v))
            throw ScheduleError("a loop of the reduction is also a loop of its spatial variables",
                                0);
    const std::int64_t ndim = static_cast<std::int64_t>(store->indices.size());
    if (factorAxis < 0) factorAxis += static_cast<int>(ndim) + 1;
    if (factorAxis < 0 || factorAxis > ndim)
        throw ScheduleError("factor_axis must be between " + std::to_string(-ndim - 1) + " and " +
                                std::to_string(ndim),
                            1);
    // The rfactor buffer: the output with the loop's extent as one more dimension.
    const Tensor out = store->tensor;
    std::vector<Expr> shape = out->shape;
    shape.insert(shape.begin() + factorAxis, rfLoop->extent);
    const Tensor rf = makePlaceholder(out->name + "_rf", shape, out->dtype, out->loc);
    // Block variables of the reduction loops, named v<loop>.
    std::unordered_map<const VarNode*, Var> loopBlockVar;
    for (const ForNode* l : path)
        if (reduceLoops.count(l->var.get())) loopBlockVar[l->var.get()] = Var("v" + l->var.name());
    VarMap loopsToBlockVars;
    for (auto& [l, v] : loopBlockVar)
        loopsToBlockVars[l] = v;
    // Copies of the loops for the rfactor block.
    VarMap copies;
    std::vector<Var> copyVars;
    for (const ForNode* l : path) {
        copyVars.emplace_back(l->var.name(), l->var.type());
        copies[l->var.get()] = copyVars.back();
    }
    const Var rfVar = loopBlockVar.at(loop.get());
    BlockNode rb;
    rb.name = rf->name;
    rb.iters.push_back(
        {rfVar, {makeInt(0), rfLoop->extent}, BlockIterKind::Spatial, copies.at(loop.get())});
    VarMap reduceValues; // the block's reduction variables as the new ones
    for (const BlockIter& it : b->iters)
        if (it.kind == BlockIterKind::Spatial)
            rb.iters.push_back({it.var, it.dom, it.kind, substitute(it.binding, copies)});
        else
            reduceValues[it.var.get()] = substitute(it.binding, loopsToBlockVars);
    for (const ForNode* l : path)
        if (reduceLoops.count(l->var.get()) && l != rfLoop)
            rb.iters.push_back({loopBlockVar.at(l->var.get()),
                                {makeInt(0), l->extent},
                                BlockIterKind::Reduce,
                                copies.at(l->var.get())});
    std::vector<Expr> rfIndex = store->indices;
    rfIndex.insert(rfIndex.begin() + factorAxis, rfVar);
    const Expr source = substitute(combine->b, reduceValues);
    const Expr rfAcc = makeTensorLoad(rf, rfIndex);
    rb.reads = readRegions({source}, rf.get());
    TensorRegion rw{rf, {}};
    for (const Expr& e : rfIndex)
        rw.region.push_back({e, makeInt(1)});
    rb.writes.push_back(rw);
    const auto* initStore = b->init.as<TensorStoreNode>();
    if (!initStore) throw ScheduleError("the block's init is not a single store", 0);
    rb.init = makeTensorStore(rf, rfIndex, initStore->value);
    rb.body = makeTensorStore(rf, rfIndex, makeBinary(store->value.kind(), rfAcc, source));
    Stmt rfNest = makeBlock(std::move(rb));
    for (std::size_t k = path.size(); k-- > 0;)
        rfNest = makeFor(copyVars[k], path[k]->min, path[k]->extent, path[k]->forKind, rfNest,
                         path[k]->threadTag);
    // The block now reduces the rfactor buffer over the loop.
    BlockNode wb;
    wb.name = b->name;
    const Var wbVar("v" + loop.name());
    wb.iters.push_back({wbVar, {makeInt(0), rfLoop->extent}, BlockIterKind::Reduce, loop});
    for (const BlockIter& it : b->iters)
        if (it.kind == BlockIterKind::Spatial) wb.iters.push_back(it);
    std::vector<Expr> wbIndex = store->indices;
    wbIndex.insert(wbIndex.begin() + factorAxis, wbVar);
    const Expr partial = makeTensorLoad(rf, wbIndex);
    TensorRegion wr{rf, {}};
    for (const Expr& e : wbIndex)
        wr.region.push_back({e, makeInt(1)});
    wb.reads.push_back(wr);
    wb.writes = b->writes;
    wb.init = b->init;
    wb.body = makeTensorStore(
        out, store->indices,
        makeBinary(store->value.kind(), makeTensorLoad(out, store->indices), partial));
    Stmt wbNest = makeBlock(std::move(wb));
    for (std::size_t k = path.size(); k-- > 0;)
        if (path[k] == rfLoop || !reduceLoops.count(path[k]->var.get()))
            wbNest = makeFor(path[k]->var, path[k]->min, path[k]->extent, path[k]->forKind, wbNest,
                             path[k]->threadTag);
    TirFunc result = rewriteLoop(f, path.front()->var, 0, [&](const ForNode*) {
        return makeSeq({rfNest, wbNest});
    });
    result.allocs.push_back({rf, ""});
    if (rfBlock) *rfBlock = rf->name;
    return result;
}

TirFunc tirTransformLayout(const TirFunc& f, const std::string& name, bool write, int index,
                           const std::vector<Var>& from, const std::vector<Expr>& to)
{
    const BlockNode* b = &blockNamed(f, name, 0);
    const Tensor t =
        bufferAt(write ? b->writes : b->reads, name, write ? "writes" : "reads", index).tensor;
    if (std::find(f.params.begin(), f.params.end(), t) != f.params.end())
        throw ScheduleError("'" + t->name +
                                "' is an argument of the function: its layout is the caller's, "
                                "only a buffer the function allocates can be laid out anew",
                            1);
    if (from.size() != t->shape.size())
        throw ScheduleError("the index map takes " + std::to_string(from.size()) + " index" +
                                (from.size() == 1 ? "" : "es") + " but '" + t->name + "' has " +
                                std::to_string(t->shape.size()) + " dimension" +
                                (t->shape.size() == 1 ? "" : "s"),
                            2);
    if (to.empty()) throw ScheduleError("the index map gives no index", 2);
    Analyzer an;
    std::int64_t before = 1, after = 1;
    for (std::size_t d = 0; d < from.size(); ++d) {
        const std::int64_t n = constIntOr(t->shape[d], -1);
        if (n <= 0)
            throw ScheduleError("'" + t->name + "' has an extent that is not a constant", 1);
        an.bind(from[d], makeInt(0), makeInt(n));
        before *= n;
    }
    std::vector<Expr> shape;
    for (const Expr& e : to) {
        const ConstBound r = an.bound(e);
        if (!r.bounded() || r.lo < 0)
            throw ScheduleError("the index map's index " + printExpr(e) +
                                    " is not a non-negative range over '" + t->name + "'",
                                2);
        shape.push_back(makeInt(r.hi + 1));
        after *= r.hi + 1;
    }
    if (after != before)
        throw ScheduleError("the index map is not one to one on '" + t->name + "' (" +
                                std::to_string(before) + " elements into " + std::to_string(after) +
                                "): a layout with padding (pad_value) is not supported yet",
                            2);
    const Tensor laid = makePlaceholder(t->name, shape, t->dtype, t->loc);
    // Each access's new indices: the map's, at the access's old ones.
    return replaceTensorMapped(f, t, laid, [&](const std::vector<Expr>& old) {
        VarMap at;
        for (std::size_t d = 0; d < from.size(); ++d)
            at[from[d].get()] = old[d];
        std::vector<Expr> out;
        for (const Expr& e : to)
            out.push_back(simplify(substitute(e, at)));
        return out;
    });
}

TirFunc tirSetScope(const TirFunc& f, const std::string& name, int index, const std::string& scope)
{
    const BlockNode* b = &blockNamed(f, name, 0);
    const Tensor t = bufferAt(b->writes, name, "writes", index).tensor;
    checkScope(scope);
    for (const BlockAlloc& a : f.allocs) {
        if (a.tensor != t) continue;
        // As TVM's WithScope: a new buffer, named after the old one and its scope.
        const Tensor scoped = makePlaceholder(t->name + "_" + scope, t->shape, t->dtype, t->loc);
        TirFunc out = replaceTensor(f, t, scoped);
        for (BlockAlloc& b : out.allocs)
            if (b.tensor == scoped) b.scope = scope == "global" ? "" : scope;
        return out;
    }
    throw ScheduleError("'" + t->name +
                            "' is an argument of the function: only a buffer it "
                            "allocates has a scope to set",
                        1);
}

TirFunc tirStorageAlign(const TirFunc& f, const std::string& name, int bufferIndex, int axis,
                        int factor, int offset)
{
    const BlockNode* b = &blockNamed(f, name, 0);
    if (bufferIndex < 0 || bufferIndex >= static_cast<int>(b->writes.size()))
        throw ScheduleError("the block '" + name + "' writes " + std::to_string(b->writes.size()) +
                                " buffer" + (b->writes.size() == 1 ? "" : "s") +
                                ": there is no index " + std::to_string(bufferIndex),
                            1);
    const Tensor& t = b->writes[static_cast<std::size_t>(bufferIndex)].tensor;
    if (std::find(f.params.begin(), f.params.end(), t) != f.params.end())
        throw ScheduleError("'" + t->name +
                                "' is an argument of the function: its layout is the caller's, "
                                "only a buffer the function allocates can be aligned",
                            1);
    if (axis < -t->ndim() || axis >= t->ndim())
        throw ScheduleError("'" + t->name + "' has " + std::to_string(t->ndim()) +
                                " dimensions: there is no axis " + std::to_string(axis),
                            2);
    if (axis < 0) axis += t->ndim(); // from the last, as TVM counts
    if (factor <= 0)
        throw ScheduleError(
            "the factor of storage_align must be positive, not " + std::to_string(factor), 3);
    TirFunc out = f;
    out.body = rewriteBlock(f.body, b, [&](const BlockNode* op, const Stmt&) {
        BlockNode copy = *op;
        auto it = std::find_if(copy.dimAligns.begin(), copy.dimAligns.end(), [&](const auto& a) {
            return a.buffer == bufferIndex && a.axis == axis;
        });
        const BlockNode::DimAlign a{bufferIndex, axis, factor, offset};
        if (it != copy.dimAligns.end())
            *it = a;
        else
            copy.dimAligns.push_back(a);
        return makeBlock(std::move(copy));
    });
    return out;
}

namespace {

// sch.annotate / sch.unannotate on a block's or a loop's annotations: `key` set to `value`, or
// removed when `value` is null (refused, naming `owner`, when it has none).
void setAnnotation(std::vector<std::pair<std::string, Expr>>* ann, const std::string& key,
                   const Expr& value, const std::string& owner)
{
    auto it =
        std::find_if(ann->begin(), ann->end(), [&](const auto& kv) { return kv.first == key; });
    if (!value.defined()) {
        if (it == ann->end()) throw ScheduleError(owner + " has no annotation '" + key + "'", 1);
        ann->erase(it);
    } else if (it != ann->end()) {
        it->second = value;
    } else {
        ann->emplace_back(key, value);
    }
}

} // namespace

TirFunc tirAnnotateBlock(const TirFunc& f, const std::string& name, const std::string& key,
                         const Expr& value)
{
    const BlockNode* b = &blockNamed(f, name, 0);
    TirFunc out = f;
    out.body = rewriteBlock(f.body, b, [&](const BlockNode* op, const Stmt&) {
        BlockNode copy = *op;
        setAnnotation(&copy.annotations, key, value, "block '" + op->name + "'");
        return makeBlock(std::move(copy));
    });
    return out;
}

TirFunc tirAnnotateLoop(const TirFunc& f, const Var& loop, const std::string& key,
                        const Expr& value)
{
    return rewriteLoop(f, loop, 0, [&](const ForNode* op) {
        auto copy = std::make_shared<ForNode>(*op);
        setAnnotation(&copy->annotations, key, value, "loop '" + loop.name() + "'");
        return Stmt(copy);
    });
}

namespace {

// `e` as a sum of variables times constants plus a constant, the variables in the order they
// appear; false when it is not one.
struct LinearTerm {
    Var var;
    std::int64_t coeff = 0;
};
bool linearForm(const Expr& e, std::vector<LinearTerm>* terms, std::int64_t* constant)
{
    std::function<bool(const Expr&, std::int64_t)> walk = [&](const Expr& x,
                                                              std::int64_t c) -> bool {
        std::int64_t k = 0;
        if (isConstInt(x, &k)) {
            *constant += c * k;
            return true;
        }
        if (auto* v = x.as<VarNode>()) {
            for (LinearTerm& t : *terms)
                if (t.var.get() == v) {
                    t.coeff += c;
                    return true;
                }
            terms->push_back({Var(std::static_pointer_cast<const VarNode>(x.node())), c});
            return true;
        }
        auto* b = x.as<BinaryNode>();
        if (!b) return false;
        if (x.kind() == ExprKind::Add) return walk(b->a, c) && walk(b->b, c);
        if (x.kind() == ExprKind::Sub) return walk(b->a, c) && walk(b->b, -c);
        if (x.kind() == ExprKind::Mul) {
            if (isConstInt(b->b, &k)) return walk(b->a, c * k);
            if (isConstInt(b->a, &k)) return walk(b->b, c * k);
        }
        return false;
    };
    return walk(e, 1);
}

// The sum of `terms` (each var times its coefficient, in order) plus `constant`.
Expr linearSum(const std::vector<LinearTerm>& terms, std::int64_t constant)
{
    Expr out;
    for (const LinearTerm& t : terms) {
        if (t.coeff == 0) continue;
        const Expr term = t.coeff == 1 ? Expr(t.var) : t.var * makeInt(t.coeff);
        out = out.defined() ? out + term : term;
    }
    if (constant != 0 || !out.defined())
        out = out.defined() ? out + makeInt(constant) : makeInt(constant);
    return out;
}

} // namespace

TirFunc tirBlockize(const TirFunc& f, const Var& loop, std::string* outerName)
{
    const ForNode* top = &loopOf(f, loop, 0);
    // The loops from `loop` down, and the one block they hold.
    std::vector<const ForNode*> chain;
    const BlockNode* b = nullptr;
    for (const StmtNode* s = top; !b;) {
        if (s && s->kind == StmtKind::For) {
            chain.push_back(static_cast<const ForNode*>(s));
            s = chain.back()->body.get();
        } else if (s && s->kind == StmtKind::Block) {
            b = static_cast<const BlockNode*>(s);
        } else {
            throw ScheduleError("blockize needs the loop to hold one block under loops alone; '" +
                                    loop.name() + "' holds more",
                                0);
        }
    }
    if (b->predicate.defined())
        throw ScheduleError("block '" + b->name +
                                "' is guarded (T.where): blockize needs loops that divide its "
                                "variables exactly",
                            0);
    std::map<const VarNode*, std::int64_t> innerExtent;
    for (const ForNode* l : chain) {
        std::int64_t n = 0;
        if (!isConstInt(l->extent, &n) || !isZero(l->min))
            throw ScheduleError("loop '" + l->var.name() + "' has no constant extent", 0);
        innerExtent[l->var.get()] = n;
    }
    // Each variable divided into the part of the loops outside (the outer block's) and inside
    // (the inner block's): v = v_o * S + v_i, S the inner part's extent.
    struct Divided {
        BlockIter outer;
        std::optional<BlockIter> inner;
        Expr value; // what the variable is, in the new variables
    };
    std::vector<Divided> divided;
    VarMap toNew;
    for (const BlockIter& it : b->iters) {
        std::vector<LinearTerm> terms;
        std::int64_t constant = 0;
        if (!it.binding.defined() || !linearForm(it.binding, &terms, &constant) || constant != 0)
            throw ScheduleError("the binding of '" + it.var.name() + "' in block '" + b->name +
                                    "' is not a sum of loops times constants",
                                0);
        std::vector<LinearTerm> in, out;
        for (const LinearTerm& t : terms)
            (innerExtent.count(t.var.get()) ? in : out).push_back(t);
        // The inner part must walk 0..S-1 once: strides as a split makes them.
        std::vector<LinearTerm> byStride = in;
        std::sort(byStride.begin(), byStride.end(),
                  [](const LinearTerm& a, const LinearTerm& c) { return a.coeff < c.coeff; });
        std::int64_t span = 1;
        for (const LinearTerm& t : byStride) {
            if (t.coeff != span)
                throw ScheduleError("the loops inside '" + loop.name() + "' do not walk '" +
                                        it.var.name() + "' of block '" + b->name + "' densely",
                                    0);
            span *= innerExtent.at(t.var.get());
        }
        std::int64_t extent = 0;
        if (!isConstInt(it.dom.extent, &extent) || !isZero(it.dom.min) || extent % span != 0)
            throw ScheduleError("'" + it.var.name() + "' of block '" + b->name +
                                    "' does not divide by the loops inside '" + loop.name() + "'",
                                0);
        for (LinearTerm& t : out) {
            if (t.coeff % span != 0)
                throw ScheduleError("the loops outside '" + loop.name() + "' do not step '" +
                                        it.var.name() + "' by whole inner tiles",
                                    0);
            t.coeff /= span;
        }
        Divided d;
        const Var vo(it.var.name() + "_o");
        d.outer = {vo, {makeInt(0), makeInt(extent / span)}, it.kind, linearSum(out, 0)};
        if (in.empty()) {
            d.value = vo;
        } else {
            const Var vi(it.var.name() + "_i");
            d.inner = BlockIter{vi, {makeInt(0), makeInt(span)}, it.kind, linearSum(in, 0)};
            d.value = extent / span == 1 ? Expr(vi) : vo * makeInt(span) + vi;
        }
        toNew[it.var.get()] = d.value;
        divided.push_back(std::move(d));
    }
    auto mapRegions = [](const std::vector<TensorRegion>& regions, const VarMap& m) {
        std::vector<TensorRegion> out = regions;
        for (TensorRegion& r : out)
            for (Range& x : r.region)
                x = {substitute(x.min, m), substitute(x.extent, m)};
        return out;
    };
    // The inner block: the original, over the inner variables, without its init (it reads what
    // it writes first then).
    BlockNode inner = *b;
    inner.iters.clear();
    for (const Divided& d : divided)
        if (d.inner) inner.iters.push_back(*d.inner);
    inner.body = substitute(b->body, toNew);
    inner.writes = mapRegions(b->writes, toNew);
    inner.reads = mapRegions(b->reads, toNew);
    if (b->init.defined()) {
        std::vector<TensorRegion> reads = inner.writes;
        reads.insert(reads.end(), inner.reads.begin(), inner.reads.end());
        inner.reads = std::move(reads);
        inner.init = Stmt();
    }
    Stmt nest = makeBlock(std::move(inner));
    for (auto l = chain.rbegin(); l != chain.rend(); ++l)
        nest = remakeFor(*l, (*l)->min, (*l)->extent, nest);
    // The outer block: every variable's outer part, reading and writing what the inner block
    // does over all its iterations.
    BlockNode outer;
    outer.name = b->name + "_o";
    std::map<const VarNode*, std::int64_t> innerVarExtent;
    for (const Divided& d : divided) {
        outer.iters.push_back(d.outer);
        if (d.inner) innerVarExtent[d.inner->var.get()] = constIntOr(d.inner->dom.extent, 1);
    }
    auto relax = [&](const std::vector<TensorRegion>& regions) {
        std::vector<TensorRegion> out = mapRegions(regions, toNew);
        for (TensorRegion& r : out)
            for (Range& x : r.region) {
                std::vector<LinearTerm> terms;
                std::int64_t constant = 0;
                const bool linear = linearForm(x.min, &terms, &constant);
                std::vector<LinearTerm> kept;
                std::int64_t extent = constIntOr(x.extent, -1);
                bool varies = false;
                for (const LinearTerm& t : terms) {
                    auto e = innerVarExtent.find(t.var.get());
                    if (e == innerVarExtent.end()) {
                        kept.push_back(t);
                        continue;
                    }
                    varies = true;
                    if (t.coeff < 0 || extent < 0)
                        throw ScheduleError(
                            "block '" + b->name + "' accesses a region blockize cannot bound", 0);
                    extent += t.coeff * (e->second - 1);
                }
                if (!varies) continue;
                if (!linear)
                    throw ScheduleError(
                        "block '" + b->name + "' accesses a region blockize cannot bound", 0);
                x = {linearSum(kept, constant), makeInt(extent)};
            }
        return out;
    };
    outer.reads = relax(b->reads);
    outer.writes = relax(b->writes);
    if (b->init.defined()) {
        // The init over the inner spatial variables, under copies of the loops they use.
        BlockNode init;
        init.name = b->name + "_init";
        VarSet used;
        VarMap initValue = toNew;
        for (const Divided& d : divided) {
            if (d.outer.kind != BlockIterKind::Spatial || !d.inner) continue;
            const Var v(d.inner->var.name() + "_init");
            init.iters.push_back({v, d.inner->dom, d.inner->kind, d.inner->binding});
            collectVars(d.inner->binding, &used);
            initValue[b->iters[static_cast<std::size_t>(&d - divided.data())].var.get()] =
                substitute(d.value, VarMap{{d.inner->var.get(), v}});
        }
        // Each loop the init needs, with the copy of its variable.
        std::vector<std::pair<const ForNode*, Var>> initLoops;
        VarMap loopCopies;
        for (const ForNode* l : chain)
            if (used.count(l->var.get())) {
                initLoops.emplace_back(l, Var(l->var.name(), l->var.type()));
                loopCopies[l->var.get()] = initLoops.back().second;
            }
        for (BlockIter& it : init.iters)
            it.binding = substitute(it.binding, loopCopies);
        init.body = substitute(b->init, initValue);
        init.writes = mapRegions(b->writes, initValue);
        Stmt initNest = makeBlock(std::move(init));
        for (auto l = initLoops.rbegin(); l != initLoops.rend(); ++l)
            initNest = makeFor(l->second, l->first->min, l->first->extent, l->first->forKind,
                               initNest, l->first->threadTag);
        outer.init = initNest;
    }
    outer.body = nest;
    if (outerName) *outerName = outer.name;
    const Stmt outerBlock = makeBlock(std::move(outer));
    return rewriteLoop(f, loop, 0, [&](const ForNode*) { return outerBlock; });
}

std::vector<AllocPlacement> planAllocations(const TirFunc& f)
{
    std::vector<const ForNode*> none;
    std::vector<PlacedBlock> all;
    placedBlocks(f.body, none, &all);
    std::vector<AllocPlacement> out;
    for (const BlockAlloc& a : f.allocs) {
        AllocPlacement p{a, nullptr, {}};
        auto touches = [&](const BlockNode* b) {
            for (auto* regions : {&b->reads, &b->writes})
                for (const TensorRegion& r : *regions)
                    if (r.tensor == a.tensor) return true;
            return false;
        };
        std::vector<const PlacedBlock*> users;
        for (const PlacedBlock& pb : all)
            if (touches(pb.block)) users.push_back(&pb);
        std::size_t prefix = 0;
        if (!users.empty()) {
            prefix = users.front()->loops.size();
            for (const PlacedBlock* u : users) {
                std::size_t n = 0;
                while (n < prefix && n < u->loops.size() && u->loops[n] == users.front()->loops[n])
                    ++n;
                prefix = n;
            }
            // Where every access is (TVM's buffer access LCA), except that global memory lives
            // outside the kernel: above the first loop bound to a GPU thread.
            const bool global = a.scope.empty() || a.scope == "global";
            for (std::size_t n = 0; n < prefix && global; ++n)
                if (users.front()->loops[n]->forKind == ForKind::ThreadBinding) {
                    prefix = n;
                    break;
                }
        }
        if (prefix > 0) p.loop = users.front()->loops[prefix - 1];
        // The region: what the loops inside touch, and the threads above that share the one
        // copy (TVM's CompactBufferAllocation relaxes them: threadIdx and vthread for shared
        // memory).
        std::vector<IntervalSet> span;
        bool any = false;
        for (const PlacedBlock* u : users) {
            PlacedBlock inner{u->block, std::vector<const ForNode*>(
                                            u->loops.begin() + static_cast<std::ptrdiff_t>(prefix),
                                            u->loops.end())};
            const std::vector<const ForNode*> above = threadLoopsSharing(
                f, prefix > 0 ? users.front()->loops[prefix - 1] : nullptr, a.tensor);
            relaxedRegion(inner, u->block->reads, a.tensor, &span, &any, above);
            relaxedRegion(inner, u->block->writes, a.tensor, &span, &any, above);
        }
        for (std::size_t d = 0; d < a.tensor->shape.size(); ++d) {
            if (d < span.size() && span[d].known())
                p.region.push_back({span[d].min, simplify(span[d].max - span[d].min + makeInt(1))});
            else
                p.region.push_back({makeInt(0), a.tensor->shape[d]});
        }
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<TensorRegion> blockReadRegions(const std::vector<Expr>& values,
                                           const OperationNode* self)
{
    return readRegions(values, self);
}

TirFunc replaceTensor(const TirFunc& f, const Tensor& from, const Tensor& to)
{
    return replaceTensorMapped(f, from, to, {});
}

TirFunc createPrimFunc(const std::vector<Tensor>& args, TirSpelling spelling)
{
    TirFunc f;
    f.spelling = spelling;
    f.params = args;
    std::vector<Stmt> nests;
    for (const Tensor& t : computeOrder(args)) {
        nests.push_back(blockNest(t));
        if (std::find(args.begin(), args.end(), t) == args.end()) f.allocs.push_back({t, ""});
    }
    f.body = makeSeq(std::move(nests));
    return f;
}

const BlockNode* findBlock(const TirFunc& f, const std::string& name)
{
    std::vector<const BlockNode*> blocks;
    collectBlocks(f.body, &blocks);
    for (const BlockNode* b : blocks)
        if (b->name == name) return b;
    return nullptr;
}

std::vector<std::string> blockNames(const TirFunc& f)
{
    std::vector<const BlockNode*> blocks;
    collectBlocks(f.body, &blocks);
    std::vector<std::string> out;
    for (const BlockNode* b : blocks)
        out.push_back(b->name);
    return out;
}

std::vector<Var> blockLoops(const TirFunc& f, const std::string& name)
{
    std::vector<Var> path;
    std::function<bool(const Stmt&)> walk = [&](const Stmt& s) -> bool {
        if (!s.defined()) return false;
        switch (s.kind()) {
        case StmtKind::Block: {
            auto* b = s.as<BlockNode>();
            return b->name == name || walk(b->init) || walk(b->body);
        }
        case StmtKind::For: {
            auto* l = s.as<ForNode>();
            path.push_back(l->var);
            if (walk(l->body)) return true;
            path.pop_back();
            return false;
        }
        case StmtKind::Seq:
            for (const Stmt& c : s.as<SeqNode>()->stmts)
                if (walk(c)) return true;
            return false;
        case StmtKind::IfThenElse: {
            auto* i = s.as<IfThenElseNode>();
            return walk(i->thenCase) || walk(i->elseCase);
        }
        default: return false;
        }
    };
    if (!walk(f.body)) throw ScheduleError("there is no block named '" + name + "'", 0);
    return path;
}

const ForNode* findLoop(const TirFunc& f, const VarNode* v)
{
    const ForNode* found = nullptr;
    anyStmt(f.body, [&](const StmtNode* n) {
        if (n->kind == StmtKind::For && static_cast<const ForNode*>(n)->var.get() == v)
            found = static_cast<const ForNode*>(n);
        return found != nullptr;
    });
    return found;
}

TirFunc tirSplit(const TirFunc& f, const Var& loop,
                 const std::vector<std::optional<std::int64_t>>& factors, std::vector<Var>* out)
{
    const ForNode* l = &loopOf(f, loop, 0);
    if (factors.size() < 2) throw ScheduleError("split needs at least two factors", 1);
    std::int64_t extent = 0;
    const bool known = isConstInt(l->extent, &extent);
    int unknown = -1;
    std::int64_t product = 1;
    for (std::size_t k = 0; k < factors.size(); ++k) {
        if (!factors[k]) {
            if (unknown >= 0)
                throw ScheduleError("at most one factor can be None (inferred from the others)", 1);
            unknown = static_cast<int>(k);
            continue;
        }
        if (*factors[k] <= 0)
            throw ScheduleError("a factor must be positive, not " + std::to_string(*factors[k]), 1);
        product *= *factors[k];
    }
    std::vector<Expr> sizes;
    for (const auto& x : factors)
        sizes.push_back(x ? makeInt(*x) : Expr());
    if (unknown >= 0) {
        if (!known)
            throw ScheduleError("a None factor needs the loop's extent to be a constant", 1);
        sizes[static_cast<std::size_t>(unknown)] = makeInt((extent + product - 1) / product);
        product *= (extent + product - 1) / product;
    } else if (known && product < extent) {
        throw ScheduleError("the factors' product (" + std::to_string(product) +
                                ") is less than the loop's extent (" + std::to_string(extent) + ")",
                            1);
    }
    std::vector<Var> vars;
    for (std::size_t k = 0; k < factors.size(); ++k)
        vars.emplace_back(loop.name() + "_" + std::to_string(k), loop.type());
    // i = i_0 * (f1 * f2 ...) + i_1 * (f2 ...) + ... + i_n
    Expr value;
    for (std::size_t k = 0; k < vars.size(); ++k) {
        std::int64_t stride = 1;
        for (std::size_t j = k + 1; j < vars.size(); ++j) {
            std::int64_t s = 0;
            isConstInt(sizes[j], &s);
            stride *= s;
        }
        Expr term = stride == 1 ? Expr(vars[k]) : vars[k] * makeInt(stride);
        value = value.defined() ? value + term : term;
    }
    if (!isZero(l->min)) value = value + l->min;
    const bool guard = !known || product != extent;
    const Expr limit = l->min + l->extent;
    TirFunc r = rewriteLoop(f, loop, 0, [&](const ForNode* op) {
        Stmt body = substitute(op->body, VarMap{{op->var.get(), value}});
        if (guard)
            body = GuardBlocks(simplify(makeBinary(ExprKind::LT, value, limit))).mutate(body);
        body = FlattenBindings().mutate(body);
        for (std::size_t k = vars.size(); k-- > 0;)
            body = makeFor(vars[k], makeInt(0), sizes[k], ForKind::Serial, body);
        return body;
    });
    if (out) *out = vars;
    return r;
}

TirFunc tirFuse(const TirFunc& f, const std::vector<Var>& loops, Var* out)
{
    if (loops.empty()) throw ScheduleError("fuse needs at least one loop");
    std::vector<const ForNode*> nest;
    for (std::size_t k = 0; k < loops.size(); ++k) {
        const ForNode* l = &loopOf(f, loops[k], static_cast<int>(k));
        if (k > 0 && nest.back()->body.get() != l)
            throw ScheduleError("the loops to fuse must be directly nested, each the only "
                                "statement in the one before ('" +
                                    loops[k].name() + "' is not directly inside '" +
                                    loops[k - 1].name() + "')",
                                static_cast<int>(k));
        if (!isZero(l->min))
            throw ScheduleError("only loops that start at 0 can be fused", static_cast<int>(k));
        nest.push_back(l);
    }
    std::string name;
    for (const Var& v : loops)
        name += v.name() + "_";
    Var fused(name + "fused", loops.front().type());
    Expr extent = nest.front()->extent;
    for (std::size_t k = 1; k < nest.size(); ++k)
        extent = simplify(extent * nest[k]->extent);
    VarMap map;
    Expr inner = makeInt(1);
    for (std::size_t k = nest.size(); k-- > 0;) {
        Expr v = isOne(inner) ? Expr(fused) : makeBinary(ExprKind::FloorDiv, fused, inner);
        if (k > 0) v = makeBinary(ExprKind::FloorMod, v, nest[k]->extent);
        map[nest[k]->var.get()] = v;
        inner = simplify(inner * nest[k]->extent);
    }
    // TVM simplifies the bindings that use the fused loop with its range: `f // 56 // 4` of a
    // loop of 224 is 0, and `f // 56 % 4` is `f // 56`.
    Analyzer an;
    an.bind(fused, makeInt(0), extent);
    TirFunc r = rewriteLoop(f, loops.front(), 0, [&](const ForNode*) {
        return makeFor(
            fused, makeInt(0), extent, ForKind::Serial,
            SimplifyBindings(an, fused.get()).mutate(substitute(nest.back()->body, map)));
    });
    if (out) *out = fused;
    return r;
}

TirFunc tirReorder(const TirFunc& f, const std::vector<Var>& loops)
{
    std::set<const VarNode*> wanted;
    for (std::size_t k = 0; k < loops.size(); ++k) {
        loopOf(f, loops[k], static_cast<int>(k));
        if (!wanted.insert(loops[k].get()).second)
            throw ScheduleError("the loop '" + loops[k].name() + "' is given twice",
                                static_cast<int>(k));
    }
    // The outermost of them: the one no other contains.
    const ForNode* top = nullptr;
    for (const Var& v : loops) {
        const ForNode* l = findLoop(f, v.get());
        bool inside = false;
        for (const Var& w : loops)
            if (w.get() != v.get())
                inside |=
                    anyStmt(findLoop(f, w.get())->body, [&](const StmtNode* n) { return n == l; });
        if (!inside) {
            top = l;
            break;
        }
    }
    // The chain from it down to the last of them: each loop the only statement of the one above.
    std::vector<const ForNode*> chain;
    std::size_t seen = 0;
    for (const ForNode* l = top; l; l = l->body.as<ForNode>()) {
        chain.push_back(l);
        if (wanted.count(l->var.get()) && ++seen == wanted.size()) break;
    }
    if (seen != wanted.size())
        throw ScheduleError("the loops to reorder must be in one nest, each loop between them the "
                            "only statement of the one above");
    std::vector<const ForNode*> given;
    for (const Var& v : loops)
        given.push_back(findLoop(f, v.get()));
    std::vector<const ForNode*> order;
    std::size_t next = 0;
    for (const ForNode* l : chain)
        order.push_back(wanted.count(l->var.get()) ? given[next++] : l);
    // A loop's extent must not use a loop that now comes after it.
    Stmt body = chain.back()->body;
    for (std::size_t k = order.size(); k-- > 0;)
        body = makeFor(order[k]->var, order[k]->min, order[k]->extent, order[k]->forKind, body,
                       order[k]->threadTag);
    return rewriteLoop(f, top->var, 0, [&](const ForNode*) { return body; });
}

namespace {

// TVM's CheckSubtreeCompactDataflow (s_tir/schedule/analysis/analysis.cc): every block under a
// loop to be parallelized, vectorized or bound is a complete block (spatial variables only, the
// only writer of what it writes there, reading none of it) or a reduction block (a T.init, the
// only writer there, its reduction variables not indexing what it writes).
void checkCompactDataflow(const ForNode* loop, const std::vector<const BlockNode*>& blocks,
                          const std::string& primitive)
{
    // Each block's scope: the block it is nested in under the loop (null: the loop's own). A
    // block is complete, or a reduction, among the blocks of its scope (a blockized tile's
    // inner block writes what its outer block does, in another scope).
    std::map<const BlockNode*, const BlockNode*> scopeOf;
    for (const BlockNode* b : blocks) {
        std::vector<const BlockNode*> inside;
        collectBlocks(b->body, &inside);
        if (b->init.defined()) collectBlocks(b->init, &inside);
        for (const BlockNode* n : inside)
            scopeOf[n] = b; // blocks come outermost first: the last is the nearest
        scopeOf.emplace(b, nullptr);
    }
    auto onlyWriter = [&](const BlockNode* b) {
        for (const BlockNode* other : blocks) {
            if (other == b || scopeOf[other] != scopeOf[b]) continue;
            for (const TensorRegion& w : b->writes)
                for (const TensorRegion& o : other->writes)
                    if (w.tensor == o.tensor) return other;
        }
        return static_cast<const BlockNode*>(nullptr);
    };
    for (const BlockNode* b : blocks) {
        const BlockNode* alsoWrites = onlyWriter(b);
        std::string complete, reduction;
        for (const BlockIter& it : b->iters)
            if (it.kind == BlockIterKind::Reduce && complete.empty())
                complete = "its variable '" + it.var.name() + "' is a reduction's";
        if (complete.empty() && alsoWrites)
            complete = "'" + alsoWrites->name + "' writes what it writes";
        for (const TensorRegion& r : b->reads)
            for (const TensorRegion& w : b->writes)
                if (complete.empty() && r.tensor == w.tensor)
                    complete = "it reads '" + r.tensor->name + "', which it writes";
        if (!b->init.defined())
            reduction = "it has no T.init";
        else if (alsoWrites)
            reduction = "'" + alsoWrites->name + "' writes what it writes";
        if (complete.empty() || reduction.empty()) continue;
        throw ScheduleError("the loop '" + loop->var.name() + "' cannot be made " + primitive +
                                ": its block '" + b->name + "' is neither a complete block (" +
                                complete + ") nor a reduction block (" + reduction +
                                "), as TVM requires of every block under it (decompose the "
                                "reduction after this step)",
                            0);
    }
}

} // namespace

TirFunc tirSetKind(const TirFunc& f, const Var& loop, ForKind kind, const std::string& thread)
{
    const ForNode* l = &loopOf(f, loop, 0);
    if (kind == ForKind::Parallel || kind == ForKind::Vectorized ||
        kind == ForKind::ThreadBinding) {
        const char* name = kind == ForKind::Parallel     ? "parallel"
                           : kind == ForKind::Vectorized ? "vectorized"
                                                         : "bound to a thread";
        std::vector<const BlockNode*> blocks;
        collectBlocks(l->body, &blocks);
        checkCompactDataflow(l, blocks, name);
        // TVM refuses a loop a reduction variable is bound to, but for a cross-thread reduction
        // (tir/schedule/primitive/for_kind.cc, CheckLoopParallelizableInBlock).
        const bool crossThread =
            kind == ForKind::ThreadBinding && thread.rfind("threadIdx.", 0) == 0;
        for (const BlockNode* b : blocks)
            for (const BlockIter& it : b->iters)
                if (it.kind == BlockIterKind::Reduce && !crossThread &&
                    usesVar(it.binding, l->var.get()))
                    throw ScheduleError(std::string("the loop '") + loop.name() +
                                            "' is bound to the reduction "
                                            "variable '" +
                                            it.var.name() + "' of block '" + b->name +
                                            "': only loops of spatial variables can be " + name +
                                            (kind == ForKind::ThreadBinding
                                                 ? " other than threadIdx (a cross-thread "
                                                   "reduction)"
                                                 : ""),
                                        0);
    }
    return rewriteLoop(f, loop, 0, [&](const ForNode* op) {
        auto l = std::make_shared<ForNode>(op->var, op->min, op->extent, kind, op->body,
                                           kind == ForKind::ThreadBinding ? thread : std::string());
        l->annotations = op->annotations; // TVM keeps them across a change of kind
        return Stmt(l);
    });
}

std::string tirBindLimitation(const TirFunc& f, const Var& loop, const std::string& thread)
{
    if (!loopOfReduction(f, loop) || thread.rfind("threadIdx", 0) == 0) return {};
    return "binding a reduction's loop to " + thread +
           " would split one sum over separate blocks or virtual threads: a reduction is "
           "shared among the threads of one block (threadIdx) only";
}

bool loopOfReduction(const TirFunc& f, const Var& loop)
{
    const ForNode* l = findLoop(f, loop.get());
    if (!l) return false;
    std::vector<const BlockNode*> blocks;
    collectBlocks(l->body, &blocks);
    for (const BlockNode* b : blocks)
        for (const BlockIter& it : b->iters)
            if (it.kind == BlockIterKind::Reduce && usesVar(it.binding, l->var.get())) return true;
    return false;
}

TirFunc tirDecomposeReduction(const TirFunc& f, const std::string& block, const Var& loop,
                              std::string* initName)
{
    const BlockNode* b = &blockNamed(f, block, 0);
    if (!b->init.defined())
        throw ScheduleError("the block '" + block +
                                "' has no init to decompose (it is not a "
                                "reduction, or its init was decomposed already)",
                            0);
    const std::vector<Var> path = blockLoops(f, block);
    auto at =
        std::find_if(path.begin(), path.end(), [&](const Var& v) { return v.get() == loop.get(); });
    if (at == path.end())
        throw ScheduleError("the loop '" + loop.name() + "' is not above block '" + block + "'", 1);
    // The init block: the spatial variables, bound as in the block; its loops are those from
    // `loop` down that a spatial binding uses.
    BlockNode init;
    init.name = block + "_init";
    VarSet spatialLoops;
    for (const BlockIter& it : b->iters)
        if (it.kind == BlockIterKind::Spatial) {
            Var v(it.var.name()); // TVM keeps the name (copy_with_suffix(""))
            init.iters.push_back({v, it.dom, it.kind, it.binding});
            collectVars(it.binding, &spatialLoops);
        }
    VarMap rename;
    for (std::size_t k = 0, n = 0; k < b->iters.size(); ++k)
        if (b->iters[k].kind == BlockIterKind::Spatial)
            rename[b->iters[k].var.get()] = init.iters[n++].var;
    init.body = substitute(b->init, rename);
    for (auto& w : b->writes) {
        TensorRegion r = w;
        for (auto& x : r.region)
            x = {substitute(x.min, rename), substitute(x.extent, rename)};
        init.writes.push_back(std::move(r));
    }
    std::vector<const ForNode*> below;
    for (auto it = at; it != path.end(); ++it)
        if (spatialLoops.count(it->get())) below.push_back(findLoop(f, it->get()));
    VarMap loopCopies;
    std::vector<Var> newLoops;
    for (const ForNode* l : below) {
        Var v(l->var.name() + "_init", l->var.type());
        loopCopies[l->var.get()] = v;
        newLoops.push_back(v);
    }
    for (auto& it : init.iters)
        it.binding = substitute(it.binding, loopCopies);
    if (b->predicate.defined()) {
        // The guard of the spatial part only, where it uses no reduction loop.
        Expr p = substitute(b->predicate, loopCopies);
        VarSet used;
        collectVars(p, &used);
        bool onlyInit = true;
        for (const VarNode* v : used)
            for (const Var& l : path)
                if (l.get() == v && !loopCopies.count(v)) onlyInit = false;
        if (onlyInit) init.predicate = p;
    }
    if (initName) *initName = init.name;
    Stmt initNest = makeBlock(std::move(init));
    for (std::size_t k = below.size(); k-- > 0;)
        initNest = makeFor(newLoops[k], below[k]->min, below[k]->extent, below[k]->forKind,
                           initNest, below[k]->threadTag);
    // The update block loses its init; the init nest goes before `loop`.
    TirFunc dropped = f;
    dropped.body = rewriteBlock(f.body, b, [](const BlockNode* op, const Stmt&) {
        BlockNode copy = *op;
        copy.init = Stmt();
        copy.name = op->name + "_update";
        // Without its init the block reads what it writes, first.
        std::vector<TensorRegion> reads;
        for (const TensorRegion& w : op->writes)
            if (std::none_of(op->reads.begin(), op->reads.end(),
                             [&](const TensorRegion& r) { return r.tensor == w.tensor; }))
                reads.push_back(w);
        reads.insert(reads.end(), op->reads.begin(), op->reads.end());
        copy.reads = std::move(reads);
        return makeBlock(std::move(copy));
    });
    return rewriteLoop(dropped, loop, 1, [&](const ForNode* op) {
        Stmt self = makeFor(op->var, op->min, op->extent, op->forKind, op->body, op->threadTag);
        return makeSeq({initNest, self});
    });
}

} // namespace loopscope
