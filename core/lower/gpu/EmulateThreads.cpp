#include "lower/gpu/EmulateThreads.h"

#include "lower/gpu/ThreadAllreduce.h"
#include "lower/gpu/ThreadSync.h"

#include "ir/Diagnostic.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"
#include "schedule/ThreadScope.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace loopscope {

namespace {

bool isLaunch(const AttrNode* a)
{
    return a->key == "thread_extent";
}

// A launch of threads within a block (threadIdx.*; virtual threads are injected by now).
bool isThreadIdx(const AttrNode* a)
{
    return isLaunch(a) && threadRank(a->target) == 1;
}

// The variable a launch binds: the one its `ref` names where the body uses it, else a new one
// (an extent of 1 leaves the body without it).
Var launchedVar(const AttrNode* op)
{
    Var v = findVar(op->body, op->ref);
    return v.defined() ? v : Var(op->target);
}

bool hasSync(const Stmt& s)
{
    return anyAttr(s, [](const AttrNode* a) { return a->key == "tvm_storage_sync"; });
}

// Gives every thread its own part of each local buffer of a kernel: an access at i becomes an
// access at i + tid * size, tid the thread's number in its block.
class LocalPerThread : public IRMutator {
public:
    explicit LocalPerThread(std::map<std::string, std::int64_t> extents)
        : m_extents(std::move(extents))
    {
        for (auto& [tag, e] : m_extents)
            m_threads *= e;
    }

protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (!isThreadIdx(op)) return IRMutator::visitAttr(op, self);
        // A launch whose body does not name its thread (an extent of 1) is thread 0 there.
        Var v = findVar(op->body, op->ref);
        auto previous = m_current.find(op->target);
        Expr saved = previous == m_current.end() ? Expr() : previous->second;
        m_current[op->target] = v.defined() ? Expr(v) : makeInt(0);
        Stmt body = mutate(op->body);
        if (saved.defined()) {
            m_current[op->target] = saved;
        } else {
            m_current.erase(op->target);
        }
        return body.same(op->body) ? self : makeAttr(op->key, op->target, op->value, body, op->ref);
    }

    Stmt visitAllocate(const AllocateNode* op, const Stmt& self) override
    {
        if ((op->buffer->scope != "local" && op->buffer->scope != "warp") || m_threads == 1)
            return IRMutator::visitAllocate(op, self);
        std::int64_t size = 1;
        for (auto& e : op->buffer->shape) {
            std::int64_t n = 0;
            if (!isConstInt(e, &n)) {
                throw UserError({}, "local buffer '" + op->buffer->name +
                                        "' of a GPU kernel has a size that varies (" +
                                        printExpr(e) +
                                        "): a thread's registers have a fixed count; split the "
                                        "loops it is computed in by constant factors");
            }
            size *= n;
        }
        m_parts[op->buffer->data.get()] = size;
        Buffer grown = view(op->buffer);
        return makeAllocate(grown, mutate(op->body));
    }

    Expr visitBufferLoad(const BufferLoadNode* op, const Expr& self) override
    {
        Expr e = IRMutator::visitBufferLoad(op, self);
        auto* load = e.as<BufferLoadNode>();
        auto it = m_parts.find(load->buffer->data.get());
        if (it == m_parts.end()) return e;
        return makeBufferLoad(view(load->buffer), shifted(load->indices, it->second));
    }

    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitBufferStore(op, self);
        auto* store = s.as<BufferStoreNode>();
        auto it = m_parts.find(store->buffer->data.get());
        if (it == m_parts.end()) return s;
        return makeBufferStore(view(store->buffer), shifted(store->indices, it->second),
                               store->value);
    }

private:
    Buffer view(const Buffer& old)
    {
        auto it = m_views.find(old.get());
        if (it != m_views.end()) return it->second;
        auto b = std::make_shared<BufferNode>(*old);
        b->shape = {makeInt(m_parts.at(old->data.get()) * m_threads)};
        return m_views[old.get()] = b;
    }

    // The thread's number in its block: (z * ny + y) * nx + x, over the threads launched here.
    Expr threadNumber() const
    {
        Expr tid = makeInt(0);
        for (const char* tag : {"threadIdx.z", "threadIdx.y", "threadIdx.x"}) {
            auto extent = m_extents.find(tag);
            if (extent == m_extents.end()) continue;
            auto v = m_current.find(tag);
            tid = tid * makeInt(extent->second) + (v == m_current.end() ? makeInt(0) : v->second);
        }
        return tid;
    }

    std::vector<Expr> shifted(std::vector<Expr> indices, std::int64_t size) const
    {
        Expr& last = indices.back();
        Expr offset = threadNumber() * makeInt(size);
        last = last.type().isVector() ? last + makeBroadcast(offset, last.type().lanes)
                                      : last + offset;
        return indices;
    }

    std::map<std::string, std::int64_t> m_extents;
    std::int64_t m_threads = 1;
    std::map<std::string, Expr> m_current;
    std::unordered_map<const VarNode*, std::int64_t> m_parts;
    std::unordered_map<const BufferNode*, Buffer> m_views;
};

struct Thread {
    Var var;
    Expr extent;
};

// A block's threads between barriers as loops.
class ThreadLoops {
public:
    explicit ThreadLoops(std::vector<Thread> threads) : m_threads(std::move(threads))
    {
        for (auto& t : m_threads)
            m_vars.insert(t.var.get());
    }

    Stmt split(const Stmt& s)
    {
        if (!s.defined()) return s;
        if (!hasSync(s)) return wrap(s);
        switch (s.kind()) {
        case StmtKind::Seq: {
            std::vector<Stmt> out, segment;
            auto flush = [&] {
                if (!segment.empty()) out.push_back(wrap(makeSeq(std::move(segment))));
                segment.clear();
            };
            for (auto& c : s.as<SeqNode>()->stmts) {
                if (isStorageSync(c)) {
                    flush();
                } else if (hasSync(c)) {
                    flush();
                    out.push_back(split(c));
                } else {
                    segment.push_back(c);
                }
            }
            flush();
            return makeSeq(std::move(out));
        }
        case StmtKind::For: {
            auto* op = s.as<ForNode>();
            if (usesAnyVar(op->min, m_vars) || usesAnyVar(op->extent, m_vars))
                throw UserError({}, "loop '" + op->var->name +
                                        "' holds a barrier but its bounds depend on the thread: "
                                        "threads of a block would not all reach the barrier");
            return remakeFor(op, op->min, op->extent, split(op->body));
        }
        case StmtKind::LetStmt: {
            auto* op = s.as<LetStmtNode>();
            if (usesAnyVar(op->value, m_vars))
                return split(substitute(op->body, VarMap{{op->var.get(), op->value}}));
            return makeLetStmt(op->var, op->value, split(op->body));
        }
        case StmtKind::Allocate: {
            auto* op = s.as<AllocateNode>();
            return makeAllocate(op->buffer, split(op->body));
        }
        case StmtKind::Attr: {
            auto* op = s.as<AttrNode>();
            if (isLaunch(op)) return split(loopOf(op));
            return makeAttr(op->key, op->target, op->value, split(op->body), op->ref);
        }
        case StmtKind::IfThenElse: {
            auto* op = s.as<IfThenElseNode>();
            if (usesAnyVar(op->cond, m_vars))
                throw UserError({}, "a barrier is inside a condition that depends on the "
                                    "thread: threads of a block would not all reach it");
            return makeIfThenElse(op->cond, split(op->thenCase), split(op->elseCase));
        }
        default: return wrap(s);
        }
    }

    // A launch nested in a block's code, as a loop over its threads.
    static Stmt loopOf(const AttrNode* op)
    {
        return makeFor(launchedVar(op), makeInt(0), op->value, ForKind::Serial, op->body);
    }

private:
    // Every thread runs `s`: loops over the threads, threadIdx.x innermost. Launches nested in
    // it become loops too.
    Stmt wrap(const Stmt& s) const
    {
        class Nested : public IRMutator {
        protected:
            Stmt visitAttr(const AttrNode* op, const Stmt& self) override
            {
                if (!isLaunch(op)) return IRMutator::visitAttr(op, self);
                return mutate(loopOf(op));
            }
        };
        Stmt body = Nested().mutate(s);
        for (auto it = m_threads.rbegin(); it != m_threads.rend(); ++it)
            body = makeFor(it->var, makeInt(0), it->extent, ForKind::Serial, body);
        return body;
    }

    std::vector<Thread> m_threads;
    VarSet m_vars;
};

// A kernel whose thread launches are not all at its start (a launch inside a loop of the kernel,
// which TVM builds as it stands: every thread of the block runs the whole kernel, and the launch
// only names its thread there) with them all at its start, past the block launches and the
// block's allocations: the same program, in the form the emulation takes. A tag launched twice
// is one thread; its second variable becomes the first's.
Stmt threadLaunchesFirst(const Stmt& kernel)
{
    struct Launch {
        std::string tag;
        Var var;
        Expr extent;
        const void* ref;
    };
    class Remove : public IRMutator {
    public:
        std::vector<Launch> launches;
        VarMap same;

    protected:
        Stmt visitAttr(const AttrNode* op, const Stmt& self) override
        {
            if (!isThreadIdx(op)) return IRMutator::visitAttr(op, self);
            const Var v = launchedVar(op);
            auto it = std::find_if(launches.begin(), launches.end(),
                                   [&](const Launch& l) { return l.tag == op->target; });
            if (it == launches.end())
                launches.push_back({op->target, v, op->value, op->ref});
            else if (!it->var.same(v))
                same[v.get()] = it->var;
            return mutate(op->body);
        }
    };
    // Where the threads start: below the block launches and allocations at the kernel's top.
    std::vector<Stmt> top;
    Stmt rest = kernel;
    while (true) {
        if (auto* a = rest.as<AttrNode>(); a && isLaunch(a) && !isThreadIdx(a)) {
            top.push_back(rest);
            rest = a->body;
        } else if (auto* al = rest.as<AllocateNode>()) {
            top.push_back(rest);
            rest = al->body;
        } else {
            break;
        }
    }
    // Already in that form: the launches at the start, none further in.
    Stmt inner = rest;
    while (auto* a = inner.as<AttrNode>()) {
        if (!isThreadIdx(a)) break;
        inner = a->body;
    }
    if (!anyAttr(inner, [](const AttrNode* a) { return isThreadIdx(a); })) return kernel;

    Remove remove;
    Stmt body = remove.mutate(rest);
    if (!remove.same.empty()) body = substitute(body, remove.same);
    for (auto it = remove.launches.rbegin(); it != remove.launches.rend(); ++it)
        body = makeAttr("thread_extent", it->tag, it->extent, body, it->ref);
    for (auto it = top.rbegin(); it != top.rend(); ++it) {
        if (auto* a = it->as<AttrNode>())
            body = makeAttr(a->key, a->target, a->value, body, a->ref);
        else if (auto* al = it->as<AllocateNode>())
            body = makeAllocate(al->buffer, body);
    }
    return body;
}

// Turns each kernel (from its first launch) into loops.
class Emulator : public IRMutator {
protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (!isLaunch(op)) return IRMutator::visitAttr(op, self);
        Stmt kernel = threadLaunchesFirst(self);
        std::map<std::string, std::int64_t> extents;
        collectExtents(kernel, extents);
        kernel = LocalPerThread(extents).mutate(kernel);
        return blocks(kernel);
    }

private:
    static void collectExtents(const Stmt& s, std::map<std::string, std::int64_t>& out)
    {
        class Finder : public IRVisitor {
        public:
            std::map<std::string, std::int64_t>& out;
            explicit Finder(std::map<std::string, std::int64_t>& o) : out(o) {}

        protected:
            void visitAttr(const AttrNode* op) override
            {
                std::int64_t e = 0;
                if (isThreadIdx(op) && isConstInt(op->value, &e)) out.emplace(op->target, e);
                IRVisitor::visitAttr(op);
            }
        };
        Finder f(out);
        f.visit(s);
    }

    // Above the threads: block launches become loops; the first thread launch starts a region.
    Stmt blocks(const Stmt& s)
    {
        if (!s.defined()) return s;
        switch (s.kind()) {
        case StmtKind::Attr: {
            auto* op = s.as<AttrNode>();
            if (isThreadIdx(op)) return region(op);
            if (isLaunch(op))
                return makeFor(launchedVar(op), makeInt(0), op->value, ForKind::Serial,
                               blocks(op->body));
            return makeAttr(op->key, op->target, op->value, blocks(op->body), op->ref);
        }
        case StmtKind::Allocate: {
            auto* op = s.as<AllocateNode>();
            return makeAllocate(op->buffer, blocks(op->body));
        }
        case StmtKind::LetStmt: {
            auto* op = s.as<LetStmtNode>();
            return makeLetStmt(op->var, op->value, blocks(op->body));
        }
        case StmtKind::Seq: {
            std::vector<Stmt> out;
            for (auto& c : s.as<SeqNode>()->stmts)
                out.push_back(blocks(c));
            return makeSeq(std::move(out));
        }
        case StmtKind::For: {
            auto* op = s.as<ForNode>();
            return remakeFor(op, op->min, op->extent, blocks(op->body));
        }
        case StmtKind::IfThenElse: {
            auto* op = s.as<IfThenElseNode>();
            return makeIfThenElse(op->cond, blocks(op->thenCase), blocks(op->elseCase));
        }
        default: return s;
        }
    }

    // The threads launched one inside another at the start of a region, and the region's body
    // split at its barriers.
    // Allocations between the launches (StorageRewrite puts a kernel's there) go around the
    // loops over the threads: local ones have a part per thread by now, shared ones are the
    // block's.
    static Stmt region(const AttrNode* first)
    {
        std::vector<Thread> threads;
        std::vector<const AllocateNode*> allocs;
        Stmt body = first->body;
        threads.push_back({launchedVar(first), first->value});
        while (true) {
            if (auto* a = body.as<AttrNode>(); a && isThreadIdx(a)) {
                threads.push_back({launchedVar(a), a->value});
                body = a->body;
            } else if (auto* al = body.as<AllocateNode>()) {
                allocs.push_back(al);
                body = al->body;
            } else {
                break;
            }
        }
        Stmt out = ThreadLoops(std::move(threads)).split(body);
        for (auto it = allocs.rbegin(); it != allocs.rend(); ++it)
            out = makeAllocate((*it)->buffer, out);
        return out;
    }
};

} // namespace

Stmt emulateThreadsOnCpu(const Stmt& s)
{
    return Emulator().mutate(s);
}

Stmt programForCpu(const Stmt& s)
{
    return launchesThreads(s) ? emulateThreadsOnCpu(lowerForDevice(s, true)) : s;
}

} // namespace loopscope
