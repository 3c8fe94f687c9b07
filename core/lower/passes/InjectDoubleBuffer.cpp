#include "lower/passes/InjectDoubleBuffer.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

#include <map>
#include <unordered_map>

namespace loopscope {

namespace {

constexpr const char* kScope = "double_buffer_scope";
constexpr const char* kWrite = "double_buffer_write";

// The storage double-buffered: the marks' buffers, by their data variable.
class Marks : public IRVisitor {
public:
    std::unordered_map<const void*, std::string> buffers;

protected:
    void visitAttr(const AttrNode* op) override
    {
        if (op->key == kScope && op->ref) buffers[op->ref] = op->target;
        IRVisitor::visitAttr(op);
    }
};

bool launchesOrAllocates(const Stmt& s)
{
    return anyStmt(s, [](const StmtNode* n) {
        if (n->kind == StmtKind::Allocate) return true;
        if (n->kind != StmtKind::Attr) return false;
        const std::string& key = static_cast<const AttrNode*>(n)->key;
        return key == "thread_extent" || key == "virtual_thread";
    });
}

// A copy of a loop body with new storage for what it allocates: a program allocates each
// buffer's storage once (StorageRewrite plans it so), and the peeled last iteration is a second
// copy of the body.
class FreshAllocations : public IRMutator {
protected:
    Stmt visitAllocate(const AllocateNode* op, const Stmt&) override
    {
        const Var& old = op->buffer->data;
        m_data.emplace(old.get(), Var(old.name(), old.type()));
        Stmt body = mutate(op->body);
        return makeAllocate(renamed(op->buffer), body);
    }
    Expr visitLeaf(const Expr& self) override
    {
        auto* v = self.as<VarNode>();
        auto it = v ? m_data.find(v) : m_data.end();
        return it == m_data.end() ? self : Expr(it->second);
    }
    Expr visitBufferLoad(const BufferLoadNode* op, const Expr& self) override
    {
        Expr x = IRMutator::visitBufferLoad(op, self);
        auto* load = x.as<BufferLoadNode>();
        if (!m_data.count(load->buffer->data.get())) return x;
        return makeBufferLoad(renamed(load->buffer), load->indices);
    }
    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitBufferStore(op, self);
        auto* store = s.as<BufferStoreNode>();
        if (!m_data.count(store->buffer->data.get())) return s;
        return makeBufferStore(renamed(store->buffer), store->indices, store->value);
    }

private:
    Buffer renamed(const Buffer& b)
    {
        auto it = m_buffers.find(b.get());
        if (it != m_buffers.end()) return it->second;
        auto copy = std::make_shared<BufferNode>(*b);
        copy->data = m_data.at(b->data.get());
        return m_buffers[b.get()] = copy;
    }

    std::unordered_map<const VarNode*, Var> m_data;
    std::unordered_map<const BufferNode*, Buffer> m_buffers;
};

class Injector : public IRMutator {
public:
    Injector(std::unordered_map<const void*, std::string> marked,
             const std::map<std::string, SourceLoc>& steps)
        : m_marked(std::move(marked)), m_steps(steps)
    {
    }

protected:
    Stmt visitAllocate(const AllocateNode* op, const Stmt& self) override
    {
        const void* data = op->buffer->data.get();
        if (!m_marked.count(data)) return IRMutator::visitAllocate(op, self);
        Entry& e = m_entries[data];
        e.stride = op->buffer->shape.at(0);
        auto doubled = std::make_shared<BufferNode>(*op->buffer);
        doubled->shape = {e.stride * makeInt(2, e.stride.type())};
        e.buffer = doubled;
        Stmt body = mutate(op->body);
        if (!e.loop) return makeAllocate(op->buffer, body); // no loop: nothing to double
        // Allocated around the loop instead, where both copies outlive every iteration.
        m_loopAllocs[e.loop].push_back(e.buffer);
        return body;
    }

    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        m_loops.push_back(op);
        Stmt body = mutate(op->body);
        m_loops.pop_back();
        Stmt out = body.same(op->body) ? self : remakeFor(op, op->min, op->extent, body);
        auto pre = m_prologue.find(op);
        if (pre != m_prologue.end()) {
            // One iteration short, then the last without the fetch.
            Expr last = op->min + op->extent - makeInt(1, op->extent.type());
            // TVM names the shortened loop's variable after the old one (`k_outer.outer`).
            Var outer(op->var.name() + ".outer", op->var.type());
            Stmt loop =
                makeFor(outer, op->min, op->extent - makeInt(1, op->extent.type()), op->forKind,
                        substitute(body, VarMap{{op->var.get(), Expr(outer)}}), op->threadTag);
            Stmt tail = substitute(FreshAllocations().mutate(WithoutFetch().mutate(body)),
                                   VarMap{{op->var.get(), last}});
            std::vector<Stmt> seq = pre->second;
            seq.push_back(loop);
            seq.push_back(tail);
            out = makeSeq(std::move(seq));
        }
        auto allocs = m_loopAllocs.find(op);
        if (allocs != m_loopAllocs.end())
            for (auto it = allocs->second.rbegin(); it != allocs->second.rend(); ++it)
                out = makeAllocate(*it, out);
        return out;
    }

    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (op->key == "thread_extent" || op->key == "virtual_thread") {
            // A launch between a loop and a fetch: the loop is not the fetch's to double.
            m_loops.push_back(nullptr);
            Stmt out = IRMutator::visitAttr(op, self);
            m_loops.pop_back();
            return out;
        }
        if (op->key != kScope) return IRMutator::visitAttr(op, self);
        auto it = m_entries.find(op->ref);
        // Iterations of a parallel loop run at once: none can fetch for the next. A producer
        // that launches threads or allocates storage of its own is not copied into a prologue.
        if (it == m_entries.end() || m_loops.empty() || !m_loops.back() ||
            m_loops.back()->forKind == ForKind::Parallel || launchesOrAllocates(op->body))
            return mutate(op->body);
        Entry& e = it->second;
        const ForNode* loop = m_loops.back();
        refuseFetchOfThisIteration(*loop, *op);
        e.loop = loop;
        e.writeVar = Var(loop->var.name() + ".db", loop->var.type());
        const Expr two = makeInt(2, loop->var.type());
        e.read = makeBinary(ExprKind::FloorMod, loop->var - loop->min, two);
        m_writing = op->ref;
        Stmt body = mutate(op->body);
        m_writing = nullptr;
        // The prologue fetches iteration 0 into the first copy; in the loop, the next iteration
        // into the other.
        m_prologue[loop].push_back(
            substitute(body, VarMap{{e.writeVar.get(), makeInt(0, loop->var.type())},
                                    {loop->var.get(), loop->min}}));
        Expr next = loop->var + makeInt(1, loop->var.type());
        Stmt fetch = substitute(
            body,
            VarMap{{loop->var.get(), next},
                   {e.writeVar.get(), makeBinary(ExprKind::FloorMod, next - loop->min, two)}});
        fetch = makeAttr(kWrite, op->target, makeInt(1), fetch, op->ref);
        return makeIfThenElse(makeBinary(ExprKind::LT, next, loop->min + loop->extent), fetch);
    }

    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitBufferStore(op, self);
        auto* store = s.as<BufferStoreNode>();
        auto it = m_entries.find(store->buffer->data.get());
        if (it == m_entries.end() || !it->second.loop) return s;
        const Entry& e = it->second;
        const Expr half = m_writing == store->buffer->data.get() ? Expr(e.writeVar) : e.read;
        return makeBufferStore(e.buffer, shifted(store->indices, half, e.stride), store->value);
    }

    Expr visitBufferLoad(const BufferLoadNode* op, const Expr& self) override
    {
        Expr x = IRMutator::visitBufferLoad(op, self);
        auto* load = x.as<BufferLoadNode>();
        auto it = m_entries.find(load->buffer->data.get());
        if (it == m_entries.end() || !it->second.loop) return x;
        const Entry& e = it->second;
        const Expr half = m_writing == load->buffer->data.get() ? Expr(e.writeVar) : e.read;
        return makeBufferLoad(e.buffer, shifted(load->indices, half, e.stride));
    }

private:
    struct Entry {
        Expr stride;   // elements of one copy
        Buffer buffer; // both copies
        const ForNode* loop = nullptr;
        Var writeVar; // which copy the fetch writes, substituted per iteration
        Expr read;    // which copy the iteration reads: (loop - min) % 2
    };

    // The fetch reads storage the loop also writes (other than the double-buffered copy): made
    // an iteration ahead, it would read that storage before this iteration writes it.
    void refuseFetchOfThisIteration(const ForNode& loop, const AttrNode& fetch) const
    {
        std::unordered_map<const VarNode*, std::string> read;
        class Reads : public IRVisitor {
        public:
            std::unordered_map<const VarNode*, std::string>& out;
            explicit Reads(std::unordered_map<const VarNode*, std::string>& o) : out(o) {}

        protected:
            void visitBufferLoad(const BufferLoadNode* op) override
            {
                out.emplace(op->buffer->data.get(), op->buffer->name);
                IRVisitor::visitBufferLoad(op);
            }
        } reads(read);
        reads.visit(fetch.body);
        std::string written;
        const bool found = anyStmt(loop.body, [&](const StmtNode* n) {
            if (n->kind != StmtKind::BufferStore) return false;
            auto* store = static_cast<const BufferStoreNode*>(n);
            auto it = read.find(store->buffer->data.get());
            if (it == read.end() || store->buffer->data.get() == fetch.ref) return false;
            written = it->second;
            return true;
        });
        if (!found) return;
        auto step = m_steps.find(fetch.target);
        throw UserError(step == m_steps.end() ? SourceLoc{} : step->second,
                        "cannot double-buffer '" + fetch.target + "': it is fetched a loop " +
                            "iteration ahead, within loop '" + loop.var.name() +
                            "', but it reads '" + written +
                            "', which that loop computes in each iteration, so the next "
                            "iteration's values are not there yet; compute '" +
                            written + "' outside loop '" + loop.var.name() + "', or leave '" +
                            fetch.target + "' single-buffered");
    }

    // Removes the fetches (for the last iteration, which has no next).
    class WithoutFetch : public IRMutator {
    protected:
        Stmt visitAttr(const AttrNode* op, const Stmt& self) override
        {
            if (op->key == kWrite) return makeEvaluate(makeInt(0));
            return IRMutator::visitAttr(op, self);
        }
    };

    static std::vector<Expr> shifted(std::vector<Expr> indices, const Expr& half,
                                     const Expr& stride)
    {
        Expr& last = indices.back();
        Expr offset = half * stride;
        last = last.type().isVector() ? last + makeBroadcast(offset, last.type().lanes)
                                      : last + offset;
        return indices;
    }

    std::unordered_map<const void*, std::string> m_marked;
    const std::map<std::string, SourceLoc>& m_steps;
    std::unordered_map<const void*, Entry> m_entries;
    std::vector<const ForNode*> m_loops;
    std::map<const ForNode*, std::vector<Stmt>> m_prologue;
    std::map<const ForNode*, std::vector<Buffer>> m_loopAllocs;
    const void* m_writing = nullptr;
};

} // namespace

Stmt injectDoubleBuffer(const Stmt& s, const std::map<std::string, SourceLoc>& steps)
{
    Marks marks;
    marks.visit(s);
    if (marks.buffers.empty()) return s;
    return Injector(std::move(marks.buffers), steps).mutate(s);
}

} // namespace loopscope
