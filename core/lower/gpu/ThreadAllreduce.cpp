#include "lower/gpu/ThreadAllreduce.h"

#include "ir/Diagnostic.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "lower/gpu/ThreadSync.h"
#include "schedule/ThreadScope.h"

#include <algorithm>

namespace loopscope {

InThreadReduction inThreadReduction(ReduceOp op, DataType t, const Buffer& partial,
                                    const Expr& source)
{
    return {makeBufferStore(partial, {makeInt(0)}, reduceIdentity(op, t)),
            makeBufferStore(partial, {makeInt(0)},
                            reduceCombine(op, makeBufferLoad(partial, {makeInt(0)}), source))};
}

Stmt threadAllreduce(ReduceOp op, DataType t, const Expr& value, const Expr& cond,
                     const Buffer& result, const std::vector<Expr>& threads)
{
    std::vector<Expr> args{makeInt(1, DataType{DataType::UInt, 32, 1}), value, cond,
                           makeBufferLoad(result, {makeInt(0)})};
    args.insert(args.end(), threads.begin(), threads.end());
    return makeAttr("reduce_scope", reduceOpName(op), reduceIdentity(op, t),
                    makeEvaluate(makeCall(t, CallOp::ThreadAllreduce, args)));
}

Expr firstThread(const std::vector<Expr>& threads)
{
    Expr first;
    for (const Expr& v : threads) {
        Expr zero = makeBinary(ExprKind::EQ, v, makeInt(0));
        first = first.defined() ? makeBinary(ExprKind::And, first, zero) : zero;
    }
    return first;
}

namespace {

constexpr std::int64_t kWarp = 32;

const DataType kMaskType{DataType::UInt, 32, 1};

// A thread launch enclosing the statement being lowered.
struct Launch {
    std::string tag;
    std::int64_t extent = 0;
    Var var; // undefined where the body no longer uses it
};

Buffer newBuffer(const std::string& name, DataType t, std::int64_t size, const std::string& scope)
{
    return makeFlatBuffer(name, t, makeInt(size), scope);
}

Expr at(const Buffer& b, Expr index = makeInt(0))
{
    return makeBufferLoad(b, {std::move(index)});
}

Stmt put(const Buffer& b, Expr index, Expr value)
{
    return makeBufferStore(b, {std::move(index)}, std::move(value));
}

Expr lt(Expr a, Expr b)
{
    return makeBinary(ExprKind::LT, std::move(a), std::move(b));
}

// a + b, without the a where it is 0 (the group of a block with one group).
Expr plus(Expr a, Expr b)
{
    return isZero(a) ? b : std::move(a) + std::move(b);
}

Expr eq(Expr a, Expr b)
{
    return makeBinary(ExprKind::EQ, std::move(a), std::move(b));
}

// The threadIdx launches around a statement, x first, with their variables (a launch whose body
// no longer names its variable has extent 1 and counts as 0).
struct ThreadSet {
    Expr index = makeInt(0);
    std::int64_t extent = 1;
    void add(const Expr& var, std::int64_t n)
    {
        // Flattened as TVM's FlattenThread: x + y * nx + z * nx * ny.
        index = extent == 1 ? var : index + var * makeInt(extent);
        extent *= n;
    }
};

class Lowering : public IRMutator {
protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (op->key == "thread_extent") {
            std::int64_t n = 0;
            m_launches.push_back(
                {op->target, isConstInt(op->value, &n) ? n : -1, findVar(op->body, op->ref)});
            Stmt body = mutate(op->body);
            m_launches.pop_back();
            return body.same(op->body) ? self
                                       : makeAttr(op->key, op->target, op->value, body, op->ref);
        }
        if (op->key != "reduce_scope") return IRMutator::visitAttr(op, self);
        auto* ev = op->body.as<EvaluateNode>();
        auto* call = ev ? ev->value.as<CallNode>() : nullptr;
        ReduceOp r{};
        if (!call || call->op != CallOp::ThreadAllreduce || !reduceOpNamed(op->target, &r))
            return IRMutator::visitAttr(op, self);
        return makeAttr(op->key, op->target, op->value, lower(r, op->value, *call), op->ref);
    }

private:
    // tvm_thread_allreduce(1, value, cond, dst[0], threads...)
    Stmt lower(ReduceOp r, const Expr& identity, const CallNode& call)
    {
        LS_ASSERT(call.args.size() >= 5, "tvm_thread_allreduce with too few arguments");
        Expr value = call.args[1];
        const Expr& cond = call.args[2];
        auto* dstLoad = call.args[3].as<BufferLoadNode>();
        LS_ASSERT(dstLoad, "tvm_thread_allreduce without a destination buffer");
        const Buffer dst = dstLoad->buffer;
        if (!isOne(cond)) value = makeSelect(cond, value, identity);

        VarSet reduced;
        for (std::size_t i = 4; i < call.args.size(); ++i)
            if (auto* v = call.args[i].as<VarNode>()) reduced.insert(v);
        // Threads reduced over and the groups they form, x first, as TVM sorts them.
        ThreadSet red, group;
        std::int64_t contiguous = 1;
        bool contiguousEnded = false;
        for (int dim = 0; dim < 3; ++dim) {
            for (const Launch& l : m_launches) {
                if (threadRank(l.tag) != 1 || threadDim(l.tag) != dim || l.extent == 1) continue;
                if (l.extent < 1) {
                    throw UserError({}, l.tag + " has an extent that is not a constant: a "
                                                "reduction across threads needs a fixed count");
                }
                const Var& v = l.var;
                const bool isReduced = v.defined() && reduced.count(v.get());
                (isReduced ? red : group).add(v.defined() ? Expr(v) : makeInt(0), l.extent);
                if (isReduced && !contiguousEnded) contiguous *= l.extent;
                if (!isReduced) contiguousEnded = true;
                break; // one launch per axis encloses a statement
            }
        }
        const std::int64_t n = red.extent;
        const DataType t = value.type();
        if (n == 1) return put(dst, makeInt(0), value);

        const bool fourBytes = t.isScalar() && t.bytes() == 4 && !t.isBool();
        const bool warp = fourBytes && contiguous == n &&
                          (kWarp % n == 0 || (n % kWarp == 0 && n <= kWarp * kWarp) ||
                           (group.extent == 1 && n <= kWarp));
        if (!warp) return tree(r, value, dst, red, group);
        if (n <= kWarp) {
            std::vector<Stmt> steps{put(dst, makeInt(0), value)};
            Buffer mask, tmp;
            shuffleSteps(r, dst, n, red.index, steps, mask, tmp);
            Expr leader = makeInt(n) * group.index;
            steps.push_back(
                put(dst, makeInt(0), shuffle(CallOp::WarpShuffle, mask, at(dst), leader)));
            return makeAllocate(mask, makeAllocate(tmp, makeSeq(std::move(steps))));
        }
        // Shuffles within each warp, then over the warps' results.
        const std::int64_t warps = n / kWarp;
        Buffer staging = newBuffer("red_buf_staging", t, warps * group.extent, "shared");
        Buffer result = newBuffer("red_result", t, group.extent, "shared");
        Buffer acc = newBuffer("red_buf0", t, 1, "local");
        std::vector<Stmt> steps{put(dst, makeInt(0), value)};
        Buffer mask1, tmp1;
        shuffleSteps(r, dst, kWarp, red.index, steps, mask1, tmp1);
        Expr base = isZero(group.index) ? makeInt(0) : group.index * makeInt(warps);
        steps.push_back(makeIfThenElse(
            eq(makeBinary(ExprKind::FloorMod, red.index, makeInt(kWarp)), makeInt(0)),
            put(staging, plus(base, makeBinary(ExprKind::FloorDiv, red.index, makeInt(kWarp))),
                at(dst))));
        steps.push_back(put(acc, makeInt(0), identity));
        steps.push_back(makeIfThenElse(lt(red.index, makeInt(warps)),
                                       put(acc, makeInt(0), at(staging, plus(base, red.index)))));
        Buffer mask2, tmp2;
        shuffleSteps(r, acc, warps, red.index, steps, mask2, tmp2);
        steps.push_back(
            makeIfThenElse(eq(red.index, makeInt(0)), put(result, group.index, at(acc))));
        steps.push_back(put(dst, makeInt(0), at(result, group.index)));
        Stmt body = makeSeq(std::move(steps));
        for (const Buffer& b : {tmp1, mask1, tmp2, mask2, acc, result, staging})
            if (b) body = makeAllocate(b, body);
        return body;
    }

    // The shuffle-down steps over `n` lanes into acc[0]: from the largest power of two below
    // `n`, halving; a step whose partner may lie past the n-th lane is guarded.
    void shuffleSteps(ReduceOp r, const Buffer& acc, std::int64_t n, const Expr& lane,
                      std::vector<Stmt>& steps, Buffer& mask, Buffer& tmp)
    {
        const DataType t = acc->dtype;
        mask = newBuffer("mask", kMaskType, 1, "local");
        tmp = newBuffer("t0", t, 1, "local");
        steps.push_back(put(mask, makeInt(0), makeCall(kMaskType, CallOp::WarpActiveMask, {})));
        std::int64_t offset = 1;
        while (offset * 2 < n)
            offset *= 2;
        for (; offset >= 1; offset /= 2) {
            steps.push_back(put(tmp, makeInt(0),
                                shuffle(CallOp::WarpShuffleDown, mask, at(acc), makeInt(offset))));
            Stmt combine = put(acc, makeInt(0), reduceCombine(r, at(acc), at(tmp)));
            if (offset * 2 > n)
                combine = makeIfThenElse(lt(lane + makeInt(offset), makeInt(n)), combine);
            steps.push_back(combine);
        }
    }

    static Expr shuffle(CallOp op, const Buffer& mask, Expr value, Expr lane)
    {
        DataType t = value.type();
        return makeCall(
            t, op, {at(mask), std::move(value), std::move(lane), makeInt(kWarp), makeInt(kWarp)});
    }

    // A tree in shared memory: every thread stores its value, then halving steps; each step's
    // reads of another thread's slot get their barrier from insertThreadSyncs.
    Stmt tree(ReduceOp r, const Expr& value, const Buffer& dst, const ThreadSet& red,
              const ThreadSet& group)
    {
        const std::int64_t n = red.extent;
        Buffer buf = newBuffer("red_buf0", value.type(), n * group.extent, "shared");
        Expr base = group.extent == 1 ? makeInt(0) : group.index * makeInt(n);
        auto slot = [&](Expr i) { return isZero(base) ? i : base + i; };
        std::vector<Stmt> steps{put(buf, slot(red.index), value)};
        std::int64_t align = 1;
        while (align < n)
            align *= 2;
        auto step = [&](std::int64_t bound, std::int64_t distance) {
            Expr mine = slot(red.index);
            steps.push_back(
                makeIfThenElse(lt(red.index, makeInt(bound)),
                               put(buf, mine,
                                   reduceCombine(r, at(buf, mine),
                                                 at(buf, slot(red.index + makeInt(distance)))))));
        };
        if (align > n) {
            align /= 2;
            step(n - align, align);
        }
        while (align > 1) {
            align /= 2;
            step(align, align);
        }
        steps.push_back(put(dst, makeInt(0), at(buf, base)));
        return makeAllocate(buf, makeSeq(std::move(steps)));
    }

private:
    std::vector<Launch> m_launches;
};

// Shuffles as exchanges through shared memory, for the CPU: `x = shuffle(mask, v, d, ...)`
// becomes `xchg[tid] = v; x = xchg[partner]`, partner the lane CUDA's __shfl_down_sync or
// __shfl_sync reads (its own where the partner is past the warp).
class ShuffleExchange : public IRMutator {
protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (op->key != "thread_extent" || threadRank(op->target) != 1)
            return IRMutator::visitAttr(op, self);
        std::int64_t n = -1; // not a constant: no shuffle can be under it (see Lowering)
        isConstInt(op->value, &n);
        Var v = findVar(op->body, op->ref);
        m_threads.push_back({threadDim(op->target), n, v.defined() ? Expr(v) : makeInt(0)});
        Stmt body = mutate(op->body);
        m_threads.pop_back();
        return body.same(op->body) ? self : makeAttr(op->key, op->target, op->value, body, op->ref);
    }

    Expr visitCall(const CallNode* op, const Expr& self) override
    {
        if (op->op == CallOp::WarpActiveMask) return makeInt(0xffffffffLL, kMaskType);
        LS_ASSERT(op->op != CallOp::WarpShuffle && op->op != CallOp::WarpShuffleDown,
                  "a warp shuffle outside a store of its own");
        return IRMutator::visitCall(op, self);
    }

    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        auto* call = op->value.as<CallNode>();
        if (!call || (call->op != CallOp::WarpShuffle && call->op != CallOp::WarpShuffleDown))
            return IRMutator::visitBufferStore(op, self);
        // The thread's number in its block, z slowest, x fastest, and its lane.
        Expr tid = makeInt(0);
        std::int64_t threads = 1;
        for (int dim = 2; dim >= 0; --dim) {
            for (const Thread& t : m_threads) {
                if (t.dim != dim) continue;
                LS_ASSERT(t.extent > 0, "a warp shuffle under a launch whose extent varies");
                tid = threads == 1 ? t.var : tid * makeInt(t.extent) + t.var;
                threads *= t.extent;
                break;
            }
        }
        // The block's threads, in whole warps: a partner past the last thread reads its slot.
        Buffer xchg = newBuffer("shuffle_exchange", call->type,
                                (threads + kWarp - 1) / kWarp * kWarp, "shared");
        Expr lane = makeBinary(ExprKind::FloorMod, tid, makeInt(kWarp));
        Expr partner;
        if (call->op == CallOp::WarpShuffleDown) {
            const Expr& delta = call->args[2];
            partner = tid + makeSelect(lt(lane + delta, makeInt(kWarp)), delta, makeInt(0));
        } else {
            partner = tid - lane + makeBinary(ExprKind::FloorMod, call->args[2], makeInt(kWarp));
        }
        std::vector<Expr> indices;
        for (const Expr& i : op->indices)
            indices.push_back(mutate(i));
        return makeAllocate(xchg,
                            makeSeq({put(xchg, tid, mutate(call->args[1])),
                                     makeBufferStore(op->buffer, indices, at(xchg, partner))}));
    }

private:
    struct Thread {
        int dim;
        std::int64_t extent;
        Expr var;
    };
    std::vector<Thread> m_threads;
};

} // namespace

Stmt lowerThreadAllreduce(const Stmt& s)
{
    return Lowering().mutate(s);
}

Stmt exchangeShufflesInSharedMemory(const Stmt& s)
{
    return ShuffleExchange().mutate(s);
}

Stmt lowerForDevice(const Stmt& s, bool forCpu)
{
    Stmt out = lowerThreadAllreduce(s);
    if (forCpu) out = exchangeShufflesInSharedMemory(out);
    return insertThreadSyncs(out);
}

} // namespace loopscope
