#include "lower/ScheduleOps.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IntervalSet.h"
#include "ir/Limits.h"
#include "ir/Printer.h"
#include "lower/Tensorize.h"
#include "lower/gpu/ThreadAllreduce.h"
#include "schedule/ThreadScope.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>

namespace loopscope {

namespace {

constexpr const char* kLoopScope = "loop_scope";

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

// Every thread variable a launch binds (an attribute's `ref`), with the bind step that made it.
struct LaunchedThread {
    Var var;
    SourceLoc loc;
};
using LaunchedThreads = std::unordered_map<const void*, LaunchedThread>;

// A reduction loop of the stage is bound to a thread (TVM's cross-thread reduction).
bool reducesAcrossThreads(const Stage& s)
{
    for (auto& iv : s.leafIterVars) {
        const IterVarAttr* a = s.attr(iv);
        if (iv->kind == IterKind::Reduce && a && a->kind == ForKind::ThreadBinding) return true;
    }
    return false;
}

class NestBuilder {
public:
    LaunchedThreads threads;
    VarMap threadOf; // each bound loop's variable -> the thread variable it became
    // Serial loops over data-parallel axes: their stage and axis, for SerialInBlocks.
    std::unordered_map<const VarNode*, std::pair<std::string, std::string>> serialLoops;
    // Parallel loops: the parallel step and the axis, for ParallelAroundLaunches.
    std::unordered_map<const VarNode*, std::pair<SourceLoc, std::string>> parallelLoops;

    explicit NestBuilder(const BoundInfo& b) : m_b(b), m_an(b.analyzer) {}

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
        // set_store_predicate: after the bound checks, as TVM appends it to them.
        const Expr storePred = storePredicate(s, sub);
        std::vector<Expr> storePreds = preds;
        if (storePred.defined()) storePreds.push_back(storePred);

        for (std::size_t i = 0; i < n; ++i)
            if (const IterVarAttr* a = s.attr(leaves[i]); a && a->tensorIntrin)
                return tensorize(s, body, i, values, mainVars, storePreds);

        auto* reduce = body.as<ReduceNode>();
        if (!reduce) {
            Stmt store = makeTensorStore(s.op, index, substitute(body, sub));
            return wrapLoops(s, 0, n, wrapIfs(storePreds, store), mainVars, {}, true);
        }
        if (reducesAcrossThreads(s))
            return crossThread(s, *reduce, index, sub, preds, mainVars, storePred);

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
        Stmt update = makeTensorStore(
            s.op, index, reduceCombine(reduce->op, makeTensorLoad(s.op, index), source));
        if (reduce->condition.defined())
            update = makeIfThenElse(substitute(reduce->condition, sub), update);
        update = wrapLoops(s, begin, n, wrapIfs(storePreds, update), mainVars, {}, true);
        return wrapLoops(s, 0, begin, makeSeq({init, update}), mainVars, {}, true);
    }

private:
    bool trivial(const IterVar& iv) const { return isOne(m_b.ranges.at(iv.get()).extent); }

    // As TVM's MakeTensorize: the loops outside leaf `tloc` as they are, and in place of the
    // loops from it in, the intrinsic's statement bound to the region of each tensor those loops
    // touch. With reduction loops outside it, the output is reset before them (the intrinsic's
    // reduce_init) and each iteration is an update (reduce_update); without a reset, the first
    // iteration runs the body and the others the update.
    Stmt tensorize(const Stage& s, const Expr& body, std::size_t tloc, const ValueMap& values,
                   const std::vector<Var>& mainVars, const std::vector<Expr>& storePreds)
    {
        const auto& leaves = s.leafIterVars;
        const std::size_t n = leaves.size();
        const IterVarAttr* attr = s.attr(leaves[tloc]);
        const TensorIntrinNode& intrin = *attr->tensorIntrin;
        const SourceLoc loc = attr->tensorizeLoc;
        const std::string at = "cannot tensorize '" + s.name() + "' at '" +
                               axisDisplayName(leaves[tloc]->name()) + "'";
        VarSet inner;
        IntervalMap relax;
        for (std::size_t i = tloc; i < n; ++i) {
            const IterVar& iv = leaves[i];
            const IterVarAttr* a = s.attr(iv);
            if (a && a->kind == ForKind::ThreadBinding)
                throw UserError(loc, at + ": loop '" + axisDisplayName(iv->name()) +
                                         "' inside it is bound to " + a->threadTag +
                                         " (TVM: \"Do not allow thread in tensorize scope\")");
            inner.insert(iv->var.get());
            const Expr& ext = m_b.ranges.at(iv.get()).extent;
            relax[iv->var.get()] = {makeInt(0), m_an.simplify(ext - 1)};
        }
        for (const Expr& p : storePreds)
            if (usesAnyVar(p, inner))
                throw UserError(loc, at +
                                         ": the loops inside it run past their tensor's end "
                                         "where " +
                                         printExpr(withoutLikely(p)) +
                                         " fails (TVM: \"Tensorize failed, split condition "
                                         "relies on var defined inside tensorize scope\"); split "
                                         "by factors that divide the extents");
        std::unordered_map<const IterVarNode*, Range> region;
        for (const IterVar& iv : s.rootIterVars()) {
            IntervalSet r = evalInterval(values.at(iv.get()), relax, m_an);
            if (!r.known())
                throw UserError(loc, at + ": cannot tell which values of '" +
                                         axisDisplayName(iv->name()) +
                                         "' the loops inside it take (fused loops cannot be "
                                         "tensorized)");
            region[iv.get()] = {m_an.simplify(r.min), m_an.simplify(r.max - r.min + 1)};
        }
        const TensorizeMatch match = matchTensorIntrin(s, body, region, intrin, m_an, loc);
        auto need = [&](const Stmt& st, const char* which, const char* why) {
            if (!st.defined())
                throw UserError(loc, at + ": the intrinsic '" + intrin.name + "' has no " + which +
                                         " statement, which " + why);
            return st;
        };

        std::size_t begin = n;
        std::unordered_set<const IterVarNode*> pureReduce;
        if (body.as<ReduceNode>()) {
            auto mask = reduceTouchMask(s);
            for (std::size_t i = 0; i < n && begin == n; ++i)
                if (mask.at(leaves[i].get()) & 2) begin = i;
            for (auto& [iv, m] : mask)
                if (m == 2) pureReduce.insert(iv);
        }
        if (tloc <= begin) {
            Stmt st = bindTensorIntrin(
                need(intrin.body, "body", "computes the whole region under the loop"), intrin,
                match, true);
            return wrapLoops(s, 0, tloc, wrapIfs(storePreds, st), mainVars, {}, true);
        }
        std::string outside;
        for (std::size_t i = begin; i < tloc; ++i)
            if (pureReduce.count(leaves[i].get()))
                outside +=
                    (outside.empty() ? "'" : ", '") + axisDisplayName(leaves[i]->name()) + "'";
        const std::string reason =
            std::string("the reduction loops ") + outside +
            " outside the tensorized loop need (the third statement its function returns)";
        Stmt update = bindTensorIntrin(need(intrin.reduceUpdate, "reduce_update", reason.c_str()),
                                       intrin, match, true);
        if (intrin.reduceInit.defined()) {
            std::vector<Var> initVars = mainVars;
            VarMap initSub;
            for (std::size_t i = begin; i < tloc; ++i) {
                const IterVar& iv = leaves[i];
                if (pureReduce.count(iv.get()) || trivial(iv)) {
                    initSub[mainVars[i].get()] = makeInt(0);
                    continue;
                }
                initVars[i] = Var(iv->name() + ".init");
                initSub[mainVars[i].get()] = initVars[i];
            }
            // The reset stores where the update does: under the same guards, in its own loops.
            std::vector<Expr> initPreds;
            for (const Expr& p : storePreds)
                initPreds.push_back(substitute(p, initSub));
            Stmt init =
                substitute(bindTensorIntrin(intrin.reduceInit, intrin, match, false), initSub);
            init = wrapLoops(s, begin, tloc, wrapIfs(initPreds, init), initVars, pureReduce, false);
            update = wrapLoops(s, begin, tloc, wrapIfs(storePreds, update), mainVars, {}, true);
            return wrapLoops(s, 0, begin, makeSeq({init, update}), mainVars, {}, true);
        }
        Expr first;
        for (std::size_t i = begin; i < tloc; ++i) {
            if (!pureReduce.count(leaves[i].get()) || trivial(leaves[i])) continue;
            Expr c = likely(makeBinary(ExprKind::GT, mainVars[i], makeInt(0)));
            first = first.defined() ? makeBinary(ExprKind::Or, first, c) : c;
        }
        Stmt whole = bindTensorIntrin(
            need(intrin.body, "body", "the first iteration of the outer reduction runs"), intrin,
            match, true);
        Stmt st = first.defined() ? makeIfThenElse(first, update, whole) : whole;
        return wrapLoops(s, 0, tloc, wrapIfs(storePreds, st), mainVars, {}, true);
    }

    // The stage's store predicate in its loops' variables: the root axes as the loops compute
    // them, a thread tag's variable as the stage's loop bound to that thread. Null when none.
    Expr storePredicate(const Stage& s, const VarMap& sub) const
    {
        if (!s.storePredicate.defined()) return {};
        VarMap map = sub;
        VarSet used;
        collectVars(s.storePredicate, &used);
        for (const VarNode* v : used) {
            if (!isThreadTag(v->name) || map.count(v)) continue;
            for (const IterVar& iv : s.leafIterVars)
                if (const IterVarAttr* a = s.attr(iv);
                    a && a->kind == ForKind::ThreadBinding && a->threadTag == v->name)
                    map[v] = iv->var;
            if (!map.count(v))
                throw UserError(s.storePredicateLoc,
                                "the store predicate of '" + s.name() + "' reads " + v->name +
                                    ", and no loop of '" + s.name() + "' is bound to it");
        }
        return substitute(s.storePredicate, map);
    }

    // As TVM's MakeCrossThreadReduction: each thread first reduces the iterations of the
    // reduction's unbound loops into `normal_reduce_temp0` (when there are any), the threads the
    // reduction's axes are bound to then combine their values (tvm_thread_allreduce, under a
    // "reduce_scope" naming the reducer) into `reduce_temp0`, and the first of those threads
    // stores the result.
    Stmt crossThread(const Stage& s, const ReduceNode& reduce, const std::vector<Expr>& index,
                     const VarMap& sub, const std::vector<Expr>& preds,
                     const std::vector<Var>& vars, const Expr& storePred)
    {
        std::unordered_set<const IterVarNode*> inThread, common;
        std::vector<Expr> threads;
        for (auto& iv : s.leafIterVars) {
            const IterVarAttr* a = s.attr(iv);
            const bool bound = a && a->kind == ForKind::ThreadBinding;
            if (bound && isVirtualThread(a->threadTag)) {
                throw UserError(a->loc, "'" + s.name() +
                                            "' reduces across threads, and a stage that does "
                                            "cannot also run on virtual threads: bind loop '" +
                                            axisDisplayName(iv->name()) +
                                            "' to blockIdx or threadIdx, or leave it a loop");
            }
            if (iv->kind == IterKind::Reduce && !bound) {
                inThread.insert(iv.get());
                continue;
            }
            common.insert(iv.get());
            if (iv->kind != IterKind::Reduce) continue;
            if (!isConstInt(m_b.ranges.at(iv.get()).extent)) {
                throw UserError(a->loc, "reduction loop '" + axisDisplayName(iv->name()) +
                                            "' is bound to " + a->threadTag +
                                            " with an extent that is not a constant: a "
                                            "reduction across threads needs a fixed count; "
                                            "split it by a constant factor and bind the inner "
                                            "part");
            }
            threads.push_back(iv->var);
        }
        const DataType t = s.op->dtype;
        auto temp = [&](const std::string& name) {
            return makeFlatBuffer(name, t, makeInt(1), "local");
        };
        // As TVM's MakeCrossThreadReduction: the bound checks as they are (not marked likely),
        // each its own guard around a thread's partial update, the reduction's condition last.
        std::vector<Expr> checks;
        for (const Expr& p : preds)
            checks.push_back(withoutLikely(p));
        Expr source = substitute(reduce.source, sub);
        Expr cond = reduce.condition.defined() ? substitute(reduce.condition, sub) : Expr();
        std::vector<Expr> updateChecks = checks;
        if (cond.defined()) updateChecks.push_back(cond);
        for (const Expr& p : checks)
            cond = cond.defined() ? makeBinary(ExprKind::And, p, cond) : p;

        Buffer result = temp("reduce_temp0");
        Buffer partial;
        std::vector<Stmt> steps;
        if (!inThread.empty()) {
            partial = temp("normal_reduce_temp0");
            InThreadReduction own = inThreadReduction(reduce.op, t, partial, source);
            steps.push_back(own.init);
            steps.push_back(wrapLoops(s, 0, s.leafIterVars.size(),
                                      wrapIfs(updateChecks, own.update), vars, common, true));
            steps.push_back(threadAllreduce(reduce.op, t, makeBufferLoad(partial, {makeInt(0)}),
                                            makeBool(true), result, threads));
        } else {
            steps.push_back(threadAllreduce(
                reduce.op, t, source, cond.defined() ? cond : makeBool(true), result, threads));
        }
        // The result is stored once, by the first thread of those reducing, where the output's
        // own bounds hold; or, as TVM does, where the stage's store predicate says
        // (set_store_predicate(tx.var.equal(0)) is the same first thread).
        const Expr first = storePred.defined() ? storePred : firstThread(threads);
        Stmt store = makeIfThenElse(
            first, makeTensorStore(s.op, index, makeBufferLoad(result, {makeInt(0)})));
        // The output's own bounds: the checks that name no reduction loop or reducing thread.
        // (TVM leaves them out and stores past the output's end where a split leaves a tail.)
        VarSet reducing;
        for (const IterVarNode* iv : inThread)
            reducing.insert(iv->var.get());
        for (const Expr& v : threads)
            reducing.insert(v.as<VarNode>());
        std::vector<Expr> outputPreds;
        for (const Expr& p : checks)
            if (!usesAnyVar(p, reducing)) outputPreds.push_back(p);
        steps.push_back(wrapIfs(outputPreds, store));
        Stmt body = makeAllocate(result, makeSeq(steps));
        if (partial) body = makeAllocate(partial, body);
        return wrapLoops(s, 0, s.leafIterVars.size(), body, vars, inThread, true);
    }

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
                   bool markers)
    {
        // TVM's MakeLoopNest binds only a loop whose range starts at 0 (an axis of a stage
        // computed inside another starts where its region does), outermost first.
        for (std::size_t i = from; i < to; ++i) {
            const IterVar& iv = s.leafIterVars[i];
            const IterVarAttr* a = s.attr(iv);
            if (skip.count(iv.get()) || !a || a->kind != ForKind::ThreadBinding) continue;
            const Expr start = m_an.simplify(m_b.ranges.at(iv.get()).min);
            if (!isZero(start))
                throw UserError(
                    a->loc, "cannot bind '" + axisDisplayName(iv->name()) + "' of " + s.name() +
                                " to " + a->threadTag +
                                ": where the stage is computed its range starts at " +
                                printExpr(start) +
                                ", and TVM binds only loops that start at zero (\"must start at "
                                "zero\"); split it first (split(" +
                                axisDisplayName(iv->name()) + ", nparts=N)) and bind the parts");
        }
        for (std::size_t i = to; i-- > from;) {
            const IterVar& iv = s.leafIterVars[i];
            if (skip.count(iv.get())) continue;
            if (markers) body = makeAttr(kLoopScope, iv->name(), makeInt(0), body, iv.get());
            const Range& r = m_b.ranges.at(iv.get());
            const IterVarAttr* a = s.attr(iv);
            ForKind kind = a ? a->kind : ForKind::Serial;
            if (kind == ForKind::ThreadBinding) {
                // As TVM prints it: `blockIdx_x = T.launch_thread("blockIdx.x", 16)`, kept
                // when its extent is 1 (the variable is then 0 in the body).
                // The loop's variable becomes the thread's everywhere once every stage is in
                // place (stages computed inside this loop use it too).
                // Loops bound to one te.thread_axis object launch one variable, as in TVM
                // (virtual threads stay apart: each is injected on its own).
                Var thread(a->threadTag);
                if (a->threadAxis && !isVirtualThread(a->threadTag))
                    thread = sharedThread(*a, thread, r.extent);
                threads.try_emplace(thread.get(), LaunchedThread{thread, a->loc});
                threadOf[vars[i].get()] = thread;
                body = makeAttr(isVirtualThread(a->threadTag) ? "virtual_thread" : "thread_extent",
                                a->threadTag, r.extent, body, thread.get());
                continue;
            }
            if (isOne(r.extent)) continue;
            if (kind == ForKind::Serial && iv->kind == IterKind::DataPar)
                serialLoops[vars[i].get()] = {s.name(), axisDisplayName(iv->name())};
            if (kind == ForKind::Parallel)
                parallelLoops[vars[i].get()] = {a->loc, axisDisplayName(iv->name())};
            body = makeFor(vars[i], makeInt(0), r.extent, kind, body, a ? a->threadTag : "");
            if (a) {
                for (auto p = a->pragmas.rbegin(); p != a->pragmas.rend(); ++p)
                    body = makeAttr("pragma_" + p->first, iv->name(), p->second, body, iv.get());
            }
        }
        return body;
    }

    // The variable of the thread axis object `a` binds to: `fresh` at its first bind. As TVM's
    // InferBound, one object has one range wherever it is bound.
    Var sharedThread(const IterVarAttr& a, const Var& fresh, const Expr& extent)
    {
        auto [it, first] =
            m_sharedThreads.try_emplace(a.threadAxis, SharedThread{fresh, extent, a.loc});
        const SharedThread& known = it->second;
        if (first || m_an.canProve(makeBinary(ExprKind::EQ, known.extent, extent)))
            return known.var;
        throw UserError(a.loc, "this te.thread_axis(\"" + a.threadTag +
                                   "\") object is bound here to a loop of extent " +
                                   printExpr(extent) + " and at line " +
                                   std::to_string(known.loc.line) + " to one of extent " +
                                   printExpr(known.extent) +
                                   ": one thread axis object has one extent wherever it is "
                                   "bound (TVM: \"domain already inferred\"); bind a new "
                                   "te.thread_axis here, or split so that both loops have the "
                                   "same extent");
    }

    const BoundInfo& m_b;
    const Analyzer& m_an;
    struct SharedThread {
        Var var;     // launched wherever the object is bound
        Expr extent; // of its first bind, at loc
        SourceLoc loc;
    };
    std::unordered_map<int, SharedThread> m_sharedThreads; // by te.thread_axis object
};

// A stage computed at a loop of a stage that reduces across threads: each thread runs its part
// of that reduction (the reduction's loops no thread is bound to) innermost, inside every other
// loop (TVM's MakeCrossThreadReduction), so a region that depends on those loops has no place at
// the attachment. TVM builds such a program with the loops' variables undefined; refused here.
void checkAttachOutsideThreadReduction(const Stage& s, const Stage& parent,
                                       const std::vector<Range>& region)
{
    if (!reducesAcrossThreads(parent)) return;
    VarSet inThread;
    std::string names;
    for (auto& iv : parent.leafIterVars) {
        const IterVarAttr* a = parent.attr(iv);
        if (iv->kind == IterKind::Reduce && !(a && a->kind == ForKind::ThreadBinding))
            inThread.insert(iv->var.get());
    }
    // Inside the threads' own reduction loops, it is computed where they run.
    if (inThread.empty() || inThread.count(s.attachIvar->var.get())) return;
    std::vector<std::string> used;
    for (auto& iv : parent.leafIterVars) {
        if (!inThread.count(iv->var.get())) continue;
        VarSet one{iv->var.get()};
        for (const Range& r : region)
            if (usesAnyVar(r.min, one) || usesAnyVar(r.extent, one)) {
                used.push_back(axisDisplayName(iv->name()));
                break;
            }
    }
    if (used.empty()) return;
    for (std::size_t i = 0; i < used.size(); ++i)
        names += (i ? ", " : "") + used[i];
    throw UserError(s.attachLoc,
                    "cannot compute '" + s.name() + "' at axis '" +
                        axisDisplayName(s.attachIvar->name()) + "' of '" + parent.name() + "': '" +
                        parent.name() +
                        "' reduces across threads, so each thread runs its part of the "
                        "reduction (" +
                        names +
                        ") inside every other loop, and the region "
                        "of '" +
                        s.name() + "' depends on " + (used.size() > 1 ? "them" : "it") +
                        ": compute it at " + used.back() + " or outside the reduction");
}

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

// As TVM's SchedulePostProc: a launch of a thread tag inside a launch of the same tag (a cache
// stage's loops bound to the threads its consumer runs on) is the same thread; it is dropped and
// its variable becomes the enclosing one. Their extents must agree.
class ThreadLaunchMerger : public IRMutator {
public:
    explicit ThreadLaunchMerger(const LaunchedThreads& threads) : m_threads(threads) {}

protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        // Virtual threads are told apart by their axis, not their tag: each stays.
        auto launched = m_threads.find(op->ref);
        if (op->key != "thread_extent" || launched == m_threads.end())
            return IRMutator::visitAttr(op, self);
        auto outer = m_env.find(op->target);
        if (outer != m_env.end()) {
            std::int64_t mine = 0, theirs = 0;
            if (!exprEqual(op->value, outer->second.extent) &&
                !(isConstInt(op->value, &mine) && isConstInt(outer->second.extent, &theirs) &&
                  mine == theirs)) {
                throw UserError(launched->second.loc,
                                "thread axis '" + op->target + "' is bound here to a loop of " +
                                    printExpr(op->value) +
                                    " iterations inside a loop bound to it with " +
                                    printExpr(outer->second.extent) +
                                    ": the threads of one launch have one extent; split this "
                                    "loop so that its bound part has " +
                                    printExpr(outer->second.extent) + " iterations");
            }
            Stmt body =
                substitute(op->body, VarMap{{launched->second.var.get(), outer->second.var}});
            return mutate(body);
        }
        m_env[op->target] = {launched->second.var, op->value};
        Stmt body = mutate(op->body);
        m_env.erase(op->target);
        if (body.same(op->body)) return self;
        return makeAttr(op->key, op->target, op->value, body, op->ref);
    }

private:
    struct Enclosing {
        Var var;
        Expr extent;
    };
    const LaunchedThreads& m_threads;
    std::unordered_map<std::string, Enclosing> m_env;
};

// As TVM's StorageFlatten: a stage with no scope of its own realized inside a kernel lives where
// the threads around it can share it: in shared memory under block launches only (every thread of
// the block reads what the block computed), in each thread's registers under thread launches.
class DefaultScopes : public IRMutator {
public:
    explicit DefaultScopes(std::unordered_set<const void*> unscoped)
        : m_unscoped(std::move(unscoped))
    {
    }

protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (op->key != "thread_extent") return IRMutator::visitAttr(op, self);
        m_ranks.push_back(threadRank(op->target));
        Stmt out = IRMutator::visitAttr(op, self);
        m_ranks.pop_back();
        return out;
    }
    Stmt visitRealize(const RealizeNode* op, const Stmt& self) override
    {
        Stmt body = mutate(op->body);
        if (!m_unscoped.count(op->tensor.get()) || m_ranks.empty())
            return body.same(op->body) ? self
                                       : makeRealize(op->tensor, op->bounds, op->scope, body);
        return makeRealize(op->tensor, op->bounds, m_ranks.back() == 0 ? "shared" : "local", body);
    }

private:
    std::unordered_set<const void*> m_unscoped; // the operations of stages without a scope
    std::vector<int> m_ranks;
};

// A stage whose region depends on a GPU thread but that is computed outside the launch of that
// thread (a shared cache left at the root while its consumer is bound): TVM leaves the thread
// variable free and fails to build; refused here, at the thread's bind step.
class ThreadsOutsideLaunches : public IRVisitor {
public:
    explicit ThreadsOutsideLaunches(const LaunchedThreads& threads) : m_threads(threads) {}

protected:
    void visitAttr(const AttrNode* op) override
    {
        if (op->key != "thread_extent" && op->key != "virtual_thread")
            return IRVisitor::visitAttr(op);
        visit(op->value);
        m_inScope.insert(op->ref);
        visit(op->body);
        m_inScope.erase(op->ref);
    }
    void visitTensorStore(const TensorStoreNode* op) override
    {
        m_stage = op->tensor->name;
        IRVisitor::visitTensorStore(op);
    }
    void visitRealize(const RealizeNode* op) override
    {
        m_stage = op->tensor->name;
        IRVisitor::visitRealize(op);
    }
    void visitLeaf(const Expr& e) override
    {
        auto* v = e.as<VarNode>();
        if (!v || m_inScope.count(v)) return;
        auto t = m_threads.find(v);
        if (t == m_threads.end()) return;
        throw UserError(t->second.loc,
                        "'" + m_stage + "' is computed outside the kernel that launches " +
                            v->name + " (bound here), yet its region depends on " + v->name +
                            ": compute it inside that kernel's loops (compute_at)");
    }

private:
    const LaunchedThreads& m_threads;
    std::unordered_set<const void*> m_inScope;
    std::string m_stage = "a stage";
};

// A block launch inside a thread launch: a GPU launches blocks, each of threads, so the loops
// bound to blockIdx come before those bound to threadIdx (TVM builds no kernel otherwise).
class BlocksInsideThreads : public IRVisitor {
public:
    explicit BlocksInsideThreads(const LaunchedThreads& threads) : m_threads(threads) {}

protected:
    void visitAttr(const AttrNode* op) override
    {
        if (op->key != "thread_extent") return IRVisitor::visitAttr(op);
        const int rank = threadRank(op->target);
        if (rank == 0 && !m_inThreads.empty()) {
            auto t = m_threads.find(op->ref);
            throw UserError(t == m_threads.end() ? SourceLoc{} : t->second.loc,
                            op->target + " is bound to a loop inside the loop bound to " +
                                m_inThreads.back() +
                                ": a GPU launches blocks of threads, so loops bound to blockIdx "
                                "come before those bound to threadIdx (reorder them)");
        }
        if (rank == 1) m_inThreads.push_back(op->target);
        IRVisitor::visitAttr(op);
        if (rank == 1) m_inThreads.pop_back();
    }

private:
    const LaunchedThreads& m_threads;
    std::vector<std::string> m_inThreads;
};

// A kernel launched inside a loop that runs in parallel on the host: TVM's StorageRewrite cannot
// place the kernel's storage there (it stops on an internal check); refused at the parallel step.
class ParallelAroundLaunches : public IRVisitor {
public:
    explicit ParallelAroundLaunches(
        const std::unordered_map<const VarNode*, std::pair<SourceLoc, std::string>>& loops)
        : m_loops(loops)
    {
    }

protected:
    void visitFor(const ForNode* op) override
    {
        auto it = m_loops.find(op->var.get());
        const bool outer = !m_parallel && it != m_loops.end() && op->forKind == ForKind::Parallel;
        if (outer) m_parallel = &it->second;
        IRVisitor::visitFor(op);
        if (outer) m_parallel = nullptr;
    }
    void visitAttr(const AttrNode* op) override
    {
        if (m_parallel && (op->key == "thread_extent" || op->key == "virtual_thread")) {
            throw UserError(m_parallel->first,
                            "loop '" + m_parallel->second +
                                "' runs in parallel on the host around a GPU kernel (" +
                                op->target +
                                " is bound inside it): bind it to blockIdx instead, or leave it "
                                "serial");
        }
        if (op->key == "thread_extent") return; // inside a kernel, parallel loops are threads'
        IRVisitor::visitAttr(op);
    }

private:
    const std::unordered_map<const VarNode*, std::pair<SourceLoc, std::string>>& m_loops;
    const std::pair<SourceLoc, std::string>* m_parallel = nullptr;
};

// A loop over a data-parallel axis inside a kernel's block launches but outside its thread
// launches: one thread of each block runs all of its iterations while the others wait, where
// binding it (or part of it) to threadIdx would spread them. Said once per stage, at the bind step
// of the kernel's block launch.
class SerialInBlocks : public IRVisitor {
public:
    SerialInBlocks(
        const LaunchedThreads& threads,
        const std::unordered_map<const VarNode*, std::pair<std::string, std::string>>& loops,
        std::vector<Diagnostic>& out)
        : m_threads(threads), m_loops(loops), m_out(out)
    {
    }

protected:
    void visitAttr(const AttrNode* op) override
    {
        if (op->key != "thread_extent") return IRVisitor::visitAttr(op);
        const bool block = threadRank(op->target) == 0;
        const void* saved = m_block;
        if (block && !m_block) m_block = op->ref;
        m_threadDepth += block ? 0 : 1;
        IRVisitor::visitAttr(op);
        m_threadDepth -= block ? 0 : 1;
        m_block = saved;
    }
    void visitFor(const ForNode* op) override
    {
        auto loop = m_loops.find(op->var.get());
        if (m_block && m_threadDepth == 0 && loop != m_loops.end() &&
            m_said.insert(loop->second.first).second) {
            auto launched = m_threads.find(m_block);
            m_out.push_back(
                {launched == m_threads.end() ? SourceLoc{} : launched->second.loc,
                 "loop '" + loop->second.second + "' of '" + loop->second.first +
                     "' runs serially in one thread of each block (no threadIdx is bound around "
                     "it): bind it, or a part of it, to threadIdx"});
        }
        IRVisitor::visitFor(op);
    }

private:
    const LaunchedThreads& m_threads;
    const std::unordered_map<const VarNode*, std::pair<std::string, std::string>>& m_loops;
    std::vector<Diagnostic>& m_out;
    const void* m_block = nullptr;
    int m_threadDepth = 0;
    std::set<std::string> m_said;
};

// What every NVIDIA GPU from sm_50 on allows one kernel (TVM's verify_gpu_code): at most 1,024
// threads per block (1,024 along x and y, 64 along z), and 48 KiB of static shared memory.
class KernelLimits : public IRVisitor {
public:
    KernelLimits(const Schedule& sch, const LaunchedThreads& threads)
        : m_sch(sch), m_threads(threads)
    {
    }

protected:
    void visitAttr(const AttrNode* op) override
    {
        if (op->key != "thread_extent") return IRVisitor::visitAttr(op);
        const bool outermost = !m_inKernel;
        if (outermost) {
            m_inKernel = true;
            m_extents.clear();
            m_sharedBytes = 0;
        }
        std::int64_t extent = 0;
        const int dim = threadDim(op->target);
        if (dim >= 0 && isConstInt(op->value, &extent)) {
            const SourceLoc loc = locOf(op);
            auto [known, added] = m_extents.emplace(op->target, extent);
            if (!added && known->second != extent) {
                throw UserError(loc, op->target + " is bound to a loop of " +
                                         std::to_string(extent) + " iterations here and of " +
                                         std::to_string(known->second) +
                                         " elsewhere in the same kernel; a launch has one "
                                         "extent per thread axis: split this loop so that its "
                                         "bound part has " +
                                         std::to_string(known->second));
            }
            const std::int64_t most = threadRank(op->target) == 0 ? (dim == 0 ? 2147483647 : 65535)
                                      : dim == 2                  ? 64
                                                                  : 1024;
            if (extent > most) {
                throw UserError(loc, op->target + " is bound to a loop of " +
                                         std::to_string(extent) +
                                         " iterations; a launch has at "
                                         "most " +
                                         std::to_string(most) +
                                         (threadRank(op->target) == 0 ? " blocks" : " threads") +
                                         " along " + op->target.substr(op->target.size() - 1) +
                                         ": split the loop and bind the inner part");
            }
            std::int64_t perBlock = 1;
            for (auto& [tag, e] : m_extents)
                if (threadRank(tag) == 1) perBlock *= e;
            if (perBlock > 1024) {
                throw UserError(loc, "this kernel's blocks would have " + std::to_string(perBlock) +
                                         " threads; a block has at most 1024 (threadIdx.x * y * "
                                         "z): bind smaller loops");
            }
        }
        IRVisitor::visitAttr(op);
        if (outermost) m_inKernel = false;
    }

    void visitRealize(const RealizeNode* op) override
    {
        if (m_inKernel && (op->scope == "shared")) {
            std::int64_t elements = 1;
            for (auto& r : op->bounds) {
                std::int64_t e = 0;
                if (!isConstInt(r.extent, &e)) {
                    elements = -1;
                    break;
                }
                elements *= e;
            }
            if (elements > 0) {
                m_sharedBytes += elements * op->tensor->dtype.bytes();
                if (m_sharedBytes > kSharedBytes) {
                    const Stage* st = m_sch.find(op->tensor);
                    throw UserError(
                        st ? st->attachLoc : SourceLoc{},
                        "the shared memory of this kernel's blocks would be " +
                            std::to_string(m_sharedBytes) + " bytes with '" + op->tensor->name +
                            "' (" + std::to_string(elements * op->tensor->dtype.bytes()) +
                            " bytes); a block has at most " + std::to_string(kSharedBytes) +
                            " bytes of static shared memory: compute it at an "
                            "inner loop, or tile smaller");
                }
            }
        }
        IRVisitor::visitRealize(op);
    }

private:
    static constexpr std::int64_t kSharedBytes = 48 * 1024;

    SourceLoc locOf(const AttrNode* op) const
    {
        auto it = m_threads.find(op->ref);
        return it == m_threads.end() ? SourceLoc{} : it->second.loc;
    }

    const Schedule& m_sch;
    const LaunchedThreads& m_threads;
    bool m_inKernel = false;
    std::map<std::string, std::int64_t> m_extents; // per thread tag, in the current kernel
    std::int64_t m_sharedBytes = 0;
};

class MarkerRemover : public IRMutator {
protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (op->key == kLoopScope) return mutate(op->body);
        return IRMutator::visitAttr(op, self);
    }
};

// The copies of loop bodies a schedule's explicit unrolling makes, counted before any copy is made
// so that a typo cannot make a million of them: per stage, the product of its unrolled loops'
// extents and of those of the loops it is computed inside; a loop under the auto_unroll_max_step
// pragma counts as many copies as the pragma allows and its loops have iterations.
class UnrollBudget {
public:
    UnrollBudget(const Schedule& sch, const BoundInfo& b) : m_sch(sch), m_b(b) {}

    void check() const
    {
        const std::int64_t cap = limits().maxUnrollCopies;
        std::int64_t total = 0;
        const Count* worst = nullptr;
        std::vector<Count> counts;
        for (const Stage& s : m_sch.stages()) {
            if (s.isPlaceholder() || s.attach == AttachType::Inline) continue;
            Count c = count(s, s.leafIterVars.size(), 0);
            if (c.copies <= 1) continue;
            counts.push_back(c);
            total = saturatingAdd(total, c.copies);
        }
        if (total <= cap) return;
        for (const Count& c : counts)
            if (!worst || c.copies > worst->copies) worst = &c;
        const std::string limit = "; at most " + std::to_string(cap) +
                                  " are made in one kernel (Run ▸ Settings, or --max-unroll)";
        if (worst->pragma) {
            throw UserError(worst->loc, "the auto_unroll_max_step pragma on loop '" + worst->loop +
                                            "' of '" + worst->stage +
                                            "' lets unrolling make up to " + std::to_string(total) +
                                            " copies of loop bodies" + limit + ": lower its value");
        }
        std::string loops;
        for (std::size_t i = 0; i < worst->loops.size(); ++i) {
            loops += (i ? (i + 1 == worst->loops.size() ? " and '" : ", '") : "'") +
                     worst->loops[i].first + "'";
            if (worst->stages > 1) loops += " of '" + worst->loops[i].second + "'";
        }
        const bool one = worst->loops.size() == 1;
        const std::string what = "unrolling loop" + std::string(one ? " " : "s ") + loops +
                                 (worst->stages > 1 ? "" : " of '" + worst->stage + "'");
        if (total == worst->copies) {
            throw UserError(worst->loc, what + " would make " + std::to_string(total) +
                                            " copies of " + (one ? "its body" : "loop bodies") +
                                            limit +
                                            (one ? ": split it and unroll the inner part"
                                                 : ": unroll fewer or shorter loops"));
        }
        throw UserError(worst->loc, "the unrolled loops of this kernel would make " +
                                        std::to_string(total) + " copies of loop bodies (" + what +
                                        ": " + std::to_string(worst->copies) + ")" + limit +
                                        ": unroll fewer or shorter loops");
    }

private:
    struct Count {
        std::int64_t copies = 1;
        bool pragma = false;     // the copies come from an auto_unroll_max_step pragma
        SourceLoc loc;           // the last of the steps involved
        std::string stage, loop; // the stage and loop of that step
        // Every unrolled loop involved (loop, stage), outermost first.
        std::vector<std::pair<std::string, std::string>> loops;
        int stages = 0; // how many stages those loops belong to
        std::string lastStage;
    };

    static std::int64_t saturatingAdd(std::int64_t a, std::int64_t b)
    {
        return a > std::numeric_limits<std::int64_t>::max() - b
                   ? std::numeric_limits<std::int64_t>::max()
                   : a + b;
    }
    static std::int64_t saturatingMul(std::int64_t a, std::int64_t b)
    {
        if (a == 0 || b == 0) return 0;
        return a > std::numeric_limits<std::int64_t>::max() / b
                   ? std::numeric_limits<std::int64_t>::max()
                   : a * b;
    }

    // The copies made of the body of stage `s` by the unrolled loops among its first `leaves`
    // leaf loops and the loops it is computed inside (`depth` guards the attachment chain).
    Count count(const Stage& s, std::size_t leaves, int depth) const
    {
        Count c;
        if (s.attach == AttachType::Scope && depth < 64) {
            if (const Stage* parent = m_sch.find(s.attachOp)) {
                int at = parent->leafIndex(s.attachIvar);
                if (at >= 0) c = count(*parent, static_cast<std::size_t>(at) + 1, depth + 1);
            }
        }
        for (std::size_t k = 0; k < leaves && k < s.leafIterVars.size(); ++k) {
            const IterVar& iv = s.leafIterVars[k];
            const IterVarAttr* a = s.attr(iv);
            if (!a) continue;
            std::int64_t extent = 0;
            auto range = m_b.ranges.find(iv.get());
            if (range == m_b.ranges.end() || !isConstInt(range->second.extent, &extent)) continue;
            std::int64_t factor = 1;
            bool pragma = false;
            if (a->kind == ForKind::Unrolled) {
                factor = extent;
            } else if (auto step = autoUnrollStep(*a)) {
                // Auto unrolling copies the loops inside at most `step` times over.
                std::int64_t inner = extent;
                for (std::size_t j = k + 1; j < s.leafIterVars.size(); ++j) {
                    std::int64_t e = 0;
                    auto r = m_b.ranges.find(s.leafIterVars[j].get());
                    if (r != m_b.ranges.end() && isConstInt(r->second.extent, &e))
                        inner = saturatingMul(inner, e);
                }
                factor = std::min(*step, inner);
                pragma = true;
            }
            if (factor <= 1) continue;
            if (c.loops.empty() || c.lastStage != s.name()) {
                ++c.stages;
                c.lastStage = s.name();
            }
            if (c.loops.empty() || a->loc.line >= c.loc.line) {
                c.loc = a->loc;
                c.stage = s.name();
                c.loop = axisDisplayName(iv->name());
                c.pragma = pragma;
            }
            c.loops.emplace_back(axisDisplayName(iv->name()), s.name());
            c.copies = saturatingMul(c.copies, factor);
            if (pragma) break; // the pragma's bound covers the loops inside
        }
        return c;
    }

    static std::optional<std::int64_t> autoUnrollStep(const IterVarAttr& a)
    {
        for (auto& [key, value] : a.pragmas) {
            std::int64_t v = 0;
            if (key == "auto_unroll_max_step" && isConstInt(value, &v) && v > 1) return v;
        }
        return std::nullopt;
    }

    const Schedule& m_sch;
    const BoundInfo& m_b;
};

} // namespace

Stmt scheduleOps(const Schedule& sch, const EffectiveBodies& bodies, const BoundInfo& bounds,
                 std::vector<Diagnostic>* warnings)
{
    UnrollBudget(sch, bounds).check();
    NestBuilder builder(bounds);
    Stmt body;
    const auto& stages = sch.stages();
    for (auto it = stages.rbegin(); it != stages.rend(); ++it) {
        const Stage& s = *it;
        if (s.isPlaceholder() || s.attach == AttachType::Inline) continue;
        Stmt nest = builder.build(s, bodies.at(s.op.get()));
        // As TVM's MakePipeline: the producer of a double-buffered stage, marked for
        // InjectDoubleBuffer.
        if (s.doubleBuffer)
            nest = makeAttr("double_buffer_scope", s.name(), makeInt(1), nest, s.op.get());
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
        if (const Stage* parent = sch.find(s.attachOp))
            checkAttachOutsideThreadReduction(s, *parent, realizeBounds);
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
    body = remover.mutate(body);
    if (builder.threads.empty()) return body; // a CPU schedule: no launch to merge or check
    body = substitute(body, builder.threadOf);
    body = ThreadLaunchMerger(builder.threads).mutate(body);
    ThreadsOutsideLaunches(builder.threads).visit(body);
    ParallelAroundLaunches(builder.parallelLoops).visit(body);
    BlocksInsideThreads(builder.threads).visit(body);
    std::unordered_set<const void*> unscoped;
    for (const Stage& s : stages)
        if (s.scope.empty()) unscoped.insert(s.op.get());
    body = DefaultScopes(std::move(unscoped)).mutate(body);
    KernelLimits(sch, builder.threads).visit(body);
    if (warnings) SerialInBlocks(builder.threads, builder.serialLoops, *warnings).visit(body);
    return body;
}

} // namespace loopscope
