#include "lower/LowerTensorIR.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Tensor.h"
#include "lower/gpu/ThreadAllreduce.h"
#include "schedule/TensorIR.h"

#include <functional>
#include <map>
#include <unordered_map>

namespace loopscope {

namespace {

Stmt realize(const AllocPlacement& p, Stmt body)
{
    return makeRealize(p.alloc.tensor, p.region, p.alloc.scope, std::move(body));
}

// A reduction block whose reduction loops include loops bound to threadIdx (TVM's
// LowerCrossThreadReduction): the loops from the outermost reduction loop down to it.
struct CrossThread {
    const BlockNode* block = nullptr;
    std::vector<const ForNode*> chain; // outermost reduction loop first
};

bool isThreadIdx(const ForNode* l)
{
    return l->forKind == ForKind::ThreadBinding && l->threadTag.rfind("threadIdx", 0) == 0;
}

// Every cross-thread reduction of `body`, by its outermost reduction loop.
std::unordered_map<const ForNode*, CrossThread> findCrossThread(const Stmt& body)
{
    std::unordered_map<const ForNode*, CrossThread> out;
    std::vector<const ForNode*> loops;
    std::function<void(const Stmt&)> walk = [&](const Stmt& s) {
        if (!s.defined()) return;
        if (auto* l = s.as<ForNode>()) {
            loops.push_back(l);
            walk(l->body);
            loops.pop_back();
            return;
        }
        if (auto* seq = s.as<SeqNode>()) {
            for (const Stmt& x : seq->stmts)
                walk(x);
            return;
        }
        auto* b = s.as<BlockNode>();
        if (!b) return;
        VarSet reduce;
        for (const BlockIter& it : b->iters)
            if (it.kind == BlockIterKind::Reduce && it.binding.defined())
                collectVars(it.binding, &reduce);
        std::size_t root = loops.size();
        bool threaded = false;
        for (std::size_t i = 0; i < loops.size(); ++i) {
            if (!reduce.count(loops[i]->var.get())) continue;
            root = std::min(root, i);
            if (loops[i]->forKind == ForKind::ThreadBinding) {
                if (!isThreadIdx(loops[i]))
                    throw UserError(SourceLoc{}, "block '" + b->name + "' reduces over loop '" +
                                                     loops[i]->var->name + "', bound to " +
                                                     loops[i]->threadTag +
                                                     ": a reduction spans threads of one "
                                                     "block (threadIdx) only");
                threaded = true;
            }
        }
        if (!threaded) {
            walk(b->body);
            return;
        }
        if (!b->init.defined())
            throw UserError(SourceLoc{},
                            "block '" + b->name +
                                "' reduces across threads without its initialization (after "
                                "decompose_reduction): a cross-thread reduction starts from its "
                                "block's own T.init()");
        CrossThread c;
        c.block = b;
        c.chain.assign(loops.begin() + static_cast<std::ptrdiff_t>(root), loops.end());
        for (std::size_t i = 0; i + 1 < c.chain.size(); ++i)
            if (c.chain[i]->body.get() != static_cast<const StmtNode*>(c.chain[i + 1]))
                throw UserError(SourceLoc{}, "block '" + b->name +
                                                 "' reduces across threads, and loop '" +
                                                 c.chain[i]->var->name +
                                                 "' holds more than it: its reduction loops "
                                                 "must hold that block alone");
        if (c.chain.back()->body.get() != static_cast<const StmtNode*>(b))
            throw UserError(SourceLoc{}, "block '" + b->name +
                                             "' reduces across threads, and its innermost loop "
                                             "holds more than it");
        out[c.chain.front()] = c;
    };
    walk(body);
    return out;
}

// The reduction a block's body performs: Y[...] = Y[...] op value.
bool reductionUpdate(const BlockNode* b, ReduceOp* op, Expr* value, const TensorStoreNode** st)
{
    *st = b->body.as<TensorStoreNode>();
    if (!*st) return false;
    const Expr& v = (*st)->value;
    auto* bin = v.as<BinaryNode>();
    if (!bin) return false;
    auto* acc = bin->a.as<TensorLoadNode>();
    if (!acc || acc->tensor != (*st)->tensor) return false;
    switch (v.kind()) {
    case ExprKind::Add: *op = ReduceOp::Sum; break;
    case ExprKind::Mul: *op = ReduceOp::Prod; break;
    case ExprKind::Max: *op = ReduceOp::Max; break;
    case ExprKind::Min: *op = ReduceOp::Min; break;
    default: return false;
    }
    *value = bin->b;
    return true;
}

class LowerBlocks : public IRMutator {
public:
    LowerBlocks(const std::vector<AllocPlacement>& plans, const Stmt& body)
        : m_cross(findCrossThread(body))
    {
        for (const AllocPlacement& p : plans)
            m_under[p.loop].push_back(&p);
    }
    // Each loop bound to a GPU thread's variable, to the thread's.
    VarMap threads;

    Stmt realizedAtRoot(Stmt body) { return realizeUnder(nullptr, std::move(body)); }

protected:
    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        if (auto c = m_cross.find(op); c != m_cross.end()) return crossThread(c->second);
        if (op->forKind != ForKind::ThreadBinding) {
            Stmt s = IRMutator::visitFor(op, self);
            auto* l = s.as<ForNode>();
            if (!l) return s;
            // A loop's pragma annotations become attributes around it, as TVM's
            // LowerOpaqueBlock makes them (the passes after read them as TE's pragmas); the
            // others stay on the loop.
            auto lowered = std::make_shared<ForNode>(*l);
            lowered->body = realizeUnder(op, l->body);
            std::erase_if(lowered->annotations,
                          [](const auto& a) { return a.first.rfind("pragma_", 0) == 0; });
            s = Stmt(lowered);
            for (auto a = op->annotations.rbegin(); a != op->annotations.rend(); ++a)
                if (a->first.rfind("pragma_", 0) == 0)
                    s = makeAttr(a->first, op->var->name, a->second, s, op->var.get());
            return s;
        }
        // A loop bound to a GPU thread launches it, as TE's bound loops do: `blockIdx_x =
        // T.launch_thread("blockIdx.x", 16)` with the loop's variable replaced by the thread's.
        // A loop inside one launched on the same thread is that thread again, not a second
        // launch (TVM's UnifyThreadBinding): cooperative fetching binds copy loops to the
        // threadIdx of the loops around them.
        if (auto outer = m_launched.find(op->threadTag); outer != m_launched.end()) {
            threads[op->var.get()] = outer->second;
            return realizeUnder(op, mutate(op->body));
        }
        Var thread(op->threadTag);
        threads[op->var.get()] = thread;
        m_launched[op->threadTag] = thread;
        Stmt body = realizeUnder(op, mutate(op->body));
        m_launched.erase(op->threadTag);
        const bool virtualThread = op->threadTag.rfind("vthread", 0) == 0;
        return makeAttr(virtualThread ? "virtual_thread" : "thread_extent", op->threadTag,
                        op->extent, body, thread.get());
    }

    Stmt visitBlock(const BlockNode* op, const Stmt& self) override
    {
        (void)self;
        VarMap bindings;
        for (const BlockIter& it : op->iters)
            bindings[it.var.get()] = it.binding;
        std::vector<Stmt> parts;
        if (op->init.defined()) {
            Expr first;
            for (const BlockIter& it : op->iters) {
                if (it.kind != BlockIterKind::Reduce) continue;
                Expr atStart = makeBinary(ExprKind::EQ, it.binding, it.dom.min);
                first = first.defined() ? makeBinary(ExprKind::And, first, atStart) : atStart;
            }
            Stmt init = mutate(substitute(op->init, bindings));
            parts.push_back(first.defined() ? makeIfThenElse(first, init) : init);
        }
        parts.push_back(mutate(substitute(op->body, bindings)));
        Stmt body = makeSeq(std::move(parts));
        if (op->predicate.defined())
            body = makeIfThenElse(substitute(op->predicate, bindings), body);
        for (auto it = op->allocs.rbegin(); it != op->allocs.rend(); ++it) {
            std::vector<Range> bounds;
            for (const Expr& e : it->tensor->shape)
                bounds.push_back({makeInt(0), e});
            body = makeRealize(it->tensor, std::move(bounds), it->scope, body);
        }
        return body;
    }

private:
    // As TVM's LowerCrossThreadReduction: under the reduction's spatial and thread-bound loops
    // (in their order), each thread reduces its share over the other reduction loops into
    // `in_thread_Y` (when there are any), the threads combine theirs (tvm_thread_allreduce, under
    // a "reduce_scope" naming the reducer) into `cross_thread_Y`, and the first thread stores it.
    Stmt crossThread(const CrossThread& c)
    {
        const BlockNode* b = c.block;
        ReduceOp op{};
        Expr value;
        const TensorStoreNode* st = nullptr;
        if (!reductionUpdate(b, &op, &value, &st))
            throw UserError(SourceLoc{}, "block '" + b->name +
                                             "' reduces across threads, and its body is not "
                                             "one update Y = Y op value (+, *, max, min)");
        VarMap bindings;
        VarSet reduce;
        for (const BlockIter& it : b->iters) {
            bindings[it.var.get()] = it.binding;
            if (it.kind == BlockIterKind::Reduce) collectVars(it.binding, &reduce);
        }
        std::vector<const ForNode*> common, inThread;
        std::vector<Expr> threads;
        for (const ForNode* l : c.chain) {
            const bool reducing = reduce.count(l->var.get()) != 0;
            if (reducing && !isThreadIdx(l))
                inThread.push_back(l);
            else
                common.push_back(l);
            if (reducing && isThreadIdx(l)) threads.push_back(l->var);
        }
        const DataType t = st->tensor->dtype;
        const std::string name = b->name;
        Buffer result = makeFlatBuffer("cross_thread_" + name, t, makeInt(1), "local");
        Buffer partial;
        const Expr predicate = b->predicate.defined() ? substitute(b->predicate, bindings) : Expr();
        const Expr source = substitute(value, bindings);
        std::vector<Stmt> steps;
        if (!inThread.empty()) {
            partial = makeFlatBuffer("in_thread_" + name, t, makeInt(1), "local");
            InThreadReduction own = inThreadReduction(op, t, partial, source);
            steps.push_back(own.init);
            Stmt update = own.update;
            if (predicate.defined()) update = makeIfThenElse(predicate, update);
            for (auto l = inThread.rbegin(); l != inThread.rend(); ++l)
                update = remakeFor(*l, (*l)->min, (*l)->extent, update);
            steps.push_back(mutate(update));
            steps.push_back(threadAllreduce(op, t, makeBufferLoad(partial, {makeInt(0)}),
                                            makeBool(true), result, threads));
        } else {
            steps.push_back(threadAllreduce(
                op, t, source, predicate.defined() ? predicate : makeBool(true), result, threads));
        }
        // The first of the reducing threads stores the result, where the block's predicate
        // holds of what is not reduced.
        Expr first = firstThread(threads);
        if (predicate.defined() && !usesAnyVar(predicate, reduce))
            first = makeBinary(ExprKind::And, first, predicate);
        std::vector<Expr> index;
        for (const Expr& e : st->indices)
            index.push_back(substitute(e, bindings));
        steps.push_back(makeIfThenElse(
            first, makeTensorStore(st->tensor, index, makeBufferLoad(result, {makeInt(0)}))));
        Stmt body = makeAllocate(result, makeSeq(std::move(steps)));
        if (partial) body = makeAllocate(partial, body);
        // The spatial and thread loops around it, as any loops (threads launched, allocations
        // placed under them kept there).
        for (auto l = common.rbegin(); l != common.rend(); ++l)
            body = remakeFor(*l, (*l)->min, (*l)->extent, body);
        Stmt lowered = mutate(body);
        for (const ForNode* l : c.chain)
            if (m_under.count(l)) lowered = realizeUnder(l, lowered);
        return lowered;
    }

    Stmt realizeUnder(const ForNode* loop, Stmt body)
    {
        auto it = m_under.find(loop);
        if (it == m_under.end()) return body;
        for (auto p = it->second.rbegin(); p != it->second.rend(); ++p)
            body = realize(**p, body);
        return body;
    }

    std::unordered_map<const ForNode*, CrossThread> m_cross;
    std::unordered_map<const ForNode*, std::vector<const AllocPlacement*>> m_under;
    std::map<std::string, Var> m_launched; // the threads launched around what is lowered now
};

} // namespace

Stmt lowerTensorIR(const TirFunc& f)
{
    const std::vector<AllocPlacement> plans = planAllocations(f);
    LowerBlocks lower(plans, f.body);
    Stmt body = lower.realizedAtRoot(lower.mutate(f.body));
    return lower.threads.empty() ? body : substitute(body, lower.threads);
}

} // namespace loopscope
