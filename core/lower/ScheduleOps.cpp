#include "lower/ScheduleOps.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

#include <unordered_set>

namespace loopscope {

namespace {

// The most copies of a loop body an explicit unroll makes.
constexpr std::int64_t kMaxUnrollCopies = 4096;

constexpr const char* kLoopScope = "loop_scope";

Expr combine(ReduceOp op, const Expr& acc, const Expr& value)
{
    switch (op) {
    case ReduceOp::Sum: return acc + value;
    case ReduceOp::Prod: return acc * value;
    case ReduceOp::Max: return max(acc, value);
    case ReduceOp::Min: return min(acc, value);
    }
    return Expr();
}

Expr likely(const Expr& cond)
{
    return makeCall(DataType::boolean(), CallOp::Likely, {cond});
}

Stmt wrapIfs(const std::vector<Expr>& preds, Stmt body)
{
    for (auto it = preds.rbegin(); it != preds.rend(); ++it)
        body = makeIfThenElse(*it, body);
    return body;
}

class NestBuilder {
public:
    NestBuilder(const Schedule& sch, const BoundInfo& b) : m_sch(sch), m_b(b), m_an(b.analyzer) {}

    Stmt build(const Stage& s, const Expr& body)
    {
        const auto& leaves = s.leafIterVars;
        std::size_t n = leaves.size();
        checkLoopKinds(s);

        ValueMap leafOff;
        std::vector<Var> mainVars;
        for (auto& iv : leaves) {
            mainVars.push_back(iv->var);
            leafOff[iv.get()] = trivial(iv) ? makeInt(0) : Expr(iv->var);
        }
        ValueMap offsets = passUpOffsets(s, m_b.ranges, leafOff, m_an);
        ValueMap values = offsetsToValues(s, m_b.ranges, offsets, m_an);
        VarMap sub;
        for (auto& iv : s.rootIterVars())
            sub[iv->var.get()] = values.at(iv.get());
        std::vector<Expr> index;
        for (auto& axis : s.op->axes)
            index.push_back(values.at(axis.get()));
        std::vector<Expr> preds = boundChecks(s, offsets, values, false, {});

        auto* reduce = body.as<ReduceNode>();
        if (!reduce) {
            Stmt store = makeTensorStore(s.op, index, substitute(body, sub));
            return wrapLoops(s, 0, n, wrapIfs(preds, store), mainVars, {}, true);
        }

        // The reduction's init goes inside the loops before the first loop touching a reduction
        // axis; its own loops cover the remaining data-parallel axes.
        auto mask = reduceTouchMask(s);
        std::size_t begin = n;
        for (std::size_t i = 0; i < n; ++i) {
            if (mask.at(leaves[i].get()) & 2) {
                begin = i;
                break;
            }
        }
        std::unordered_set<const IterVarNode*> pureReduce;
        for (auto& [iv, m] : mask)
            if (m == 2) pureReduce.insert(iv);
        ValueMap initLeafOff = leafOff;
        std::vector<Var> initVars = mainVars;
        for (std::size_t i = begin; i < n; ++i) {
            const IterVar& iv = leaves[i];
            if (pureReduce.count(iv.get()) || trivial(iv)) {
                initLeafOff[iv.get()] = makeInt(0);
                continue;
            }
            initVars[i] = Var(iv->name() + ".init");
            initLeafOff[iv.get()] = initVars[i];
        }
        ValueMap initOffsets = passUpOffsets(s, m_b.ranges, initLeafOff, m_an);
        ValueMap initValues = offsetsToValues(s, m_b.ranges, initOffsets, m_an);
        std::vector<Expr> initIndex;
        for (auto& axis : s.op->axes)
            initIndex.push_back(initValues.at(axis.get()));
        std::vector<Expr> initPreds = boundChecks(s, initOffsets, initValues, true, pureReduce);
        Stmt init = makeTensorStore(s.op, initIndex, reduceIdentity(reduce->op, s.op->dtype));
        init = wrapLoops(s, begin, n, wrapIfs(initPreds, init), initVars, pureReduce, false);

        Expr source = substitute(reduce->source, sub);
        Stmt update =
            makeTensorStore(s.op, index, combine(reduce->op, makeTensorLoad(s.op, index), source));
        if (reduce->condition.defined())
            update = makeIfThenElse(substitute(reduce->condition, sub), update);
        update = wrapLoops(s, begin, n, wrapIfs(preds, update), mainVars, {}, true);
        return wrapLoops(s, 0, begin, makeSeq({init, update}), mainVars, {}, true);
    }

private:
    bool trivial(const IterVar& iv) const { return isOne(m_b.ranges.at(iv.get()).extent); }

    void checkLoopKinds(const Stage& s) const
    {
        for (auto& iv : s.leafIterVars) {
            const IterVarAttr* a = s.attr(iv);
            if (!a) continue;
            const Expr& ext = m_b.ranges.at(iv.get()).extent;
            if ((a->kind == ForKind::Vectorized || a->kind == ForKind::Unrolled) &&
                !isConstInt(ext)) {
                throw UserError(a->loc,
                                std::string("cannot ") +
                                    (a->kind == ForKind::Vectorized ? "vectorize" : "unroll") +
                                    " loop '" + axisDisplayName(iv->name()) +
                                    "': its extent is not a constant; split it by a "
                                    "constant factor first");
            }
            // An explicit unroll makes one copy of the body per iteration: bounded before any
            // work, so a typo cannot make a million copies.
            std::int64_t copies = 0;
            if (a->kind == ForKind::Unrolled && isConstInt(ext, &copies) &&
                copies > kMaxUnrollCopies) {
                throw UserError(a->loc, "unrolling loop '" + axisDisplayName(iv->name()) +
                                            "' would make " + std::to_string(copies) +
                                            " copies of its body; at most " +
                                            std::to_string(kMaxUnrollCopies) +
                                            " are made: split it and unroll the inner part");
            }
        }
    }

    std::vector<Expr> boundChecks(const Stage& s, const ValueMap& offsets, const ValueMap& values,
                                  bool skipDomain,
                                  const std::unordered_set<const IterVarNode*>& skip) const
    {
        std::vector<Expr> preds;
        auto need = passUpBoundCheck(s, m_b.ranges, m_an);
        for (auto& iv : s.allIterVars) {
            if (skip.count(iv.get())) continue;
            auto it = need.find(iv.get());
            if (it == need.end() || !it->second) continue;
            Expr off = offsets.at(iv.get());
            Expr cond = off < m_b.ranges.at(iv.get()).extent;
            if (!m_an.canProve(cond)) preds.push_back(likely(cond));
        }
        if (skipDomain) return preds;
        for (auto& iv : s.rootIterVars()) {
            if (skip.count(iv.get())) continue;
            const Range& r = m_b.ranges.at(iv.get());
            if (exprEqual(r.min, iv->dom.min) && exprEqual(r.extent, iv->dom.extent)) continue;
            Expr value = m_an.simplify(values.at(iv.get()) - iv->dom.min);
            if (!m_an.canProve(value >= makeInt(0))) preds.push_back(likely(value >= makeInt(0)));
            if (!m_an.canProve(value < iv->dom.extent))
                preds.push_back(likely(value < iv->dom.extent));
        }
        return preds;
    }

    Stmt wrapLoops(const Stage& s, std::size_t from, std::size_t to, Stmt body,
                   const std::vector<Var>& vars, const std::unordered_set<const IterVarNode*>& skip,
                   bool markers) const
    {
        for (std::size_t i = to; i-- > from;) {
            const IterVar& iv = s.leafIterVars[i];
            if (skip.count(iv.get())) continue;
            if (markers) body = makeAttr(kLoopScope, iv->name(), makeInt(0), body, iv.get());
            const Range& r = m_b.ranges.at(iv.get());
            if (isOne(r.extent)) continue;
            const IterVarAttr* a = s.attr(iv);
            ForKind kind = a ? a->kind : ForKind::Serial;
            if (kind == ForKind::ThreadBinding) {
                // As TVM prints it: `blockIdx_x = T.launch_thread("blockIdx.x", 16)`.
                Var thread(a->threadTag);
                body = substitute(body, VarMap{{vars[i].get(), thread}});
                body = makeAttr("thread_extent", a->threadTag, r.extent, body);
                continue;
            }
            body = makeFor(vars[i], makeInt(0), r.extent, kind, body, a ? a->threadTag : "");
            if (a) {
                for (auto p = a->pragmas.rbegin(); p != a->pragmas.rend(); ++p)
                    body = makeAttr("pragma_" + p->first, iv->name(), p->second, body, iv.get());
            }
        }
        return body;
    }

    const Schedule& m_sch;
    const BoundInfo& m_b;
    const Analyzer& m_an;
};

class AttachInjector : public IRMutator {
public:
    AttachInjector(const IterVarNode* target, std::function<Stmt(Stmt)> make)
        : m_target(target), m_make(std::move(make))
    {
    }
    bool found = false;

protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (op->key == kLoopScope && op->ref == m_target) {
            found = true;
            return makeAttr(op->key, op->target, op->value, m_make(op->body), op->ref);
        }
        return IRMutator::visitAttr(op, self);
    }

private:
    const IterVarNode* m_target;
    std::function<Stmt(Stmt)> m_make;
};

class MarkerRemover : public IRMutator {
protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (op->key == kLoopScope) return mutate(op->body);
        return IRMutator::visitAttr(op, self);
    }
};

} // namespace

Stmt scheduleOps(const Schedule& sch, const EffectiveBodies& bodies, const BoundInfo& bounds)
{
    NestBuilder builder(sch, bounds);
    Stmt body;
    const auto& stages = sch.stages();
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
        const Stage& s = *it;
        if (s.isPlaceholder() || s.attach == AttachType::Inline) continue;
        Stmt nest = builder.build(s, bodies.at(s.op.get()));
        std::vector<Range> realizeBounds;
        for (auto& axis : s.op->axes)
            realizeBounds.push_back(bounds.ranges.at(axis.get()));
        std::string scope = s.scope.empty() ? "global" : s.scope;
        auto pipeline = [&](Stmt consumer) {
            return makeRealize(s.op, realizeBounds, scope, makeSeq({nest, consumer}));
        };
        if (s.attach != AttachType::Scope) {
            body = pipeline(body);
            continue;
        }
        AttachInjector inject(s.attachIvar.get(), pipeline);
        body = inject.mutate(body);
        if (!inject.found) {
            const Stage* parent = sch.find(s.attachOp);
            throw UserError(s.attachLoc, "cannot compute '" + s.name() + "' at axis '" +
                                             axisDisplayName(s.attachIvar->name()) + "' of '" +
                                             (parent ? parent->name() : std::string("?")) +
                                             "': that stage has no such loop (is it inlined?)");
        }
    }
    MarkerRemover remover;
    return remover.mutate(body);
}

} // namespace loopscope
