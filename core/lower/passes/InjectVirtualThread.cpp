#include "lower/passes/InjectVirtualThread.h"

#include "ir/Diagnostic.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

#include <unordered_map>

namespace loopscope {

namespace {

// Whether an expression uses a touched variable (or reads a touched buffer), and which
// variables and buffers it reads otherwise.
struct ExprTouched {
    const VarSet& touched;
    bool hit = false;
    std::vector<const VarNode*> used;

    void use(const VarNode* v)
    {
        if (touched.count(v)) hit = true;
        if (!hit) used.push_back(v);
    }
    void operator()(const Expr& e)
    {
        if (!e.defined()) return;
        forEachExpr(e, [&](const Expr& x) {
            if (auto* v = x.as<VarNode>()) use(v);
            if (auto* l = x.as<BufferLoadNode>()) use(l->buffer->data.get());
        });
    }
};

// Which variables and buffers take values that depend on the virtual thread: a store depending
// on it touches its buffer, a let its variable, and what is computed from something touched is
// touched in turn.
class VarTouchedAnalysis : public IRVisitor {
public:
    VarSet touchedBy(const Stmt& s, const VarNode* thread)
    {
        m_touched.insert(thread);
        visit(s);
        std::vector<const VarNode*> pending(m_touched.begin(), m_touched.end());
        while (!pending.empty()) {
            const VarNode* v = pending.back();
            pending.pop_back();
            for (const VarNode* r : m_affects[v])
                if (m_touched.insert(r).second) pending.push_back(r);
        }
        return m_touched;
    }

protected:
    void visitLetStmt(const LetStmtNode* op) override
    {
        ExprTouched t{m_touched};
        t(op->value);
        record(op->var.get(), t);
        visit(op->body);
    }
    void visitBufferStore(const BufferStoreNode* op) override
    {
        ExprTouched t{m_touched};
        t(op->value);
        for (auto& i : op->indices)
            t(i);
        record(op->buffer->data.get(), t);
    }
    void visitFor(const ForNode* op) override
    {
        ExprTouched t{m_touched};
        t(op->min);
        t(op->extent);
        record(op->var.get(), t);
        visit(op->body);
    }
    void visitAllocate(const AllocateNode* op) override
    {
        ExprTouched t{m_touched};
        for (auto& e : op->buffer->shape)
            t(e);
        record(op->buffer->data.get(), t);
        visit(op->body);
    }

private:
    void record(const VarNode* var, const ExprTouched& t)
    {
        if (m_touched.count(var)) return;
        if (t.hit) {
            m_touched.insert(var);
            return;
        }
        for (const VarNode* r : t.used)
            if (r != var) m_affects[r].push_back(var);
    }

    VarSet m_touched;
    std::unordered_map<const VarNode*, std::vector<const VarNode*>> m_affects;
};

// A buffer given one part per virtual thread: its new declaration and the size of one part.
struct Remapped {
    Expr stride;
    std::unordered_map<const BufferNode*, Buffer> views;
};

class VTInjector {
public:
    VTInjector(Var var, int threads, const VarSet& touched, bool allowShare)
        : m_var(std::move(var)), m_threads(threads), m_touched(touched), m_allowShare(allowShare)
    {
    }

    Stmt visit(const Stmt& s)
    {
        Stmt out = visitNode(s);
        if (m_visitTouched || m_triggerBase) {
            if (!m_injected) return inject(out, false);
            m_visitTouched = false;
            m_triggerBase = false;
        }
        return out;
    }

private:
    // Marks what an expression touches and moves its accesses to remapped buffers into the
    // virtual thread's part.
    class ExprRewriter : public IRMutator {
    public:
        explicit ExprRewriter(VTInjector& in) : m_in(in) {}

    protected:
        Expr visitLeaf(const Expr& self) override
        {
            if (auto* v = self.as<VarNode>(); v && m_in.m_touched.count(v))
                m_in.m_visitTouched = true;
            return self;
        }
        Expr visitBufferLoad(const BufferLoadNode* op, const Expr& self) override
        {
            Expr e = IRMutator::visitBufferLoad(op, self);
            auto* load = e.as<BufferLoadNode>();
            if (m_in.m_touched.count(load->buffer->data.get())) m_in.m_visitTouched = true;
            auto it = m_in.m_remap.find(load->buffer->data.get());
            if (it == m_in.m_remap.end()) return e;
            return makeBufferLoad(m_in.view(it->second, load->buffer),
                                  m_in.shifted(load->indices, it->second.stride));
        }

    private:
        VTInjector& m_in;
    };

    Expr expr(const Expr& e)
    {
        if (!e.defined()) return e;
        ExprRewriter r(*this);
        return r.mutate(e);
    }

    Buffer view(Remapped& r, const Buffer& old)
    {
        auto it = r.views.find(old.get());
        if (it != r.views.end()) return it->second;
        auto b = std::make_shared<BufferNode>(*old);
        b->shape = {simplifyConstant(makeInt(m_threads) * r.stride)};
        return r.views[old.get()] = b;
    }

    std::vector<Expr> shifted(std::vector<Expr> indices, const Expr& stride) const
    {
        Expr& last = indices.back();
        Expr offset = m_var * stride;
        last =
            last.type().lanes > 1 ? last + makeBroadcast(offset, last.type().lanes) : last + offset;
        return indices;
    }

    Stmt visitNode(const Stmt& s)
    {
        switch (s.kind()) {
        case StmtKind::Attr: {
            auto* op = s.as<AttrNode>();
            Expr value = expr(op->value);
            if (m_visitTouched && !m_injected) return inject(s, true);
            Stmt body = visit(op->body);
            if (value.same(op->value) && body.same(op->body)) return s;
            return makeAttr(op->key, op->target, value, body, op->ref);
        }
        case StmtKind::LetStmt: {
            auto* op = s.as<LetStmtNode>();
            Expr value = expr(op->value);
            if (m_visitTouched && !m_injected) return inject(s, true);
            m_visitTouched = false;
            Stmt body = visit(op->body);
            if (value.same(op->value) && body.same(op->body)) return s;
            return makeLetStmt(op->var, value, body);
        }
        case StmtKind::For: {
            auto* op = s.as<ForNode>();
            Expr extent = expr(op->extent);
            if (m_visitTouched && !m_injected) {
                Stmt out = inject(s, true);
                ++m_maxLoopDepth;
                return out;
            }
            m_visitTouched = false;
            Stmt body = visit(op->body);
            ++m_maxLoopDepth;
            if (extent.same(op->extent) && body.same(op->body)) return s;
            return makeFor(op->var, op->min, extent, op->forKind, body, op->threadTag);
        }
        case StmtKind::IfThenElse: {
            auto* op = s.as<IfThenElseNode>();
            Expr cond = expr(op->cond);
            if (m_visitTouched && !m_injected) return inject(s, true);
            m_visitTouched = false;
            Stmt thenCase = visit(op->thenCase);
            Stmt elseCase;
            if (op->elseCase.defined()) {
                int outer = m_maxLoopDepth;
                m_maxLoopDepth = 0;
                elseCase = visit(op->elseCase);
                m_maxLoopDepth = std::max(outer, m_maxLoopDepth);
            }
            if (cond.same(op->cond) && thenCase.same(op->thenCase) && elseCase.same(op->elseCase))
                return s;
            return makeIfThenElse(cond, thenCase, elseCase);
        }
        case StmtKind::Seq: {
            auto* op = s.as<SeqNode>();
            std::vector<Stmt> out;
            bool changed = false;
            for (auto& x : op->stmts) {
                int outer = m_maxLoopDepth;
                m_maxLoopDepth = 0;
                Stmt y = visit(x);
                m_maxLoopDepth = std::max(m_maxLoopDepth, outer);
                changed = changed || !y.same(x);
                out.push_back(y);
            }
            return changed ? makeSeq(std::move(out)) : s;
        }
        case StmtKind::Allocate: {
            auto* op = s.as<AllocateNode>();
            for (auto& e : op->buffer->shape) {
                expr(e);
                if (m_visitTouched && !m_injected) return inject(s, true);
            }
            m_visitTouched = false;
            if (!m_touched.count(op->buffer->data.get()) && m_allowShare) {
                Stmt body = visit(op->body);
                return body.same(op->body) ? s : makeAllocate(op->buffer, body);
            }
            // One part per virtual thread, the thread's part first in the index.
            Expr size = makeInt(1);
            for (auto& e : op->buffer->shape)
                size = size * e;
            size = simplifyConstant(size * makeInt(op->buffer->dtype.lanes));
            Remapped& r = m_remap[op->buffer->data.get()];
            r.stride = size;
            Buffer grown = view(r, op->buffer);
            Stmt body = visit(op->body);
            return makeAllocate(grown, body);
        }
        case StmtKind::BufferStore: {
            auto* op = s.as<BufferStoreNode>();
            Expr value = expr(op->value);
            std::vector<Expr> indices;
            bool changed = !value.same(op->value);
            for (auto& i : op->indices) {
                indices.push_back(expr(i));
                changed = changed || !indices.back().same(i);
            }
            if (m_touched.count(op->buffer->data.get())) m_visitTouched = true;
            m_triggerBase = !m_allowShare;
            auto it = m_remap.find(op->buffer->data.get());
            if (it != m_remap.end()) {
                return makeBufferStore(view(it->second, op->buffer),
                                       shifted(indices, it->second.stride), value);
            }
            return changed ? makeBufferStore(op->buffer, indices, value) : s;
        }
        case StmtKind::Evaluate: {
            auto* op = s.as<EvaluateNode>();
            m_triggerBase = !m_allowShare;
            Expr value = expr(op->value);
            return value.same(op->value) ? s : makeEvaluate(value);
        }
        default: LS_ASSERT(false, "InjectVirtualThread met a statement from before flattening");
        }
        return s;
    }

    // Copies of `s` per virtual thread: unrolled when it holds no loop and there are few
    // virtual threads, else a loop over them.
    Stmt inject(Stmt s, bool beforeMutation)
    {
        LS_ASSERT(!m_injected, "virtual thread copies injected twice");
        m_visitTouched = false;
        m_triggerBase = false;
        m_injected = true;
        if (beforeMutation) s = visit(s);
        m_injected = false;
        m_visitTouched = false;
        if (m_maxLoopDepth == 0 && m_threads < 16) {
            std::vector<Stmt> copies;
            for (int i = 0; i < m_threads; ++i)
                copies.push_back(substitute(s, VarMap{{m_var.get(), makeInt(i)}}));
            return makeSeq(std::move(copies));
        }
        Var index(m_var->name + ".s");
        return makeFor(index, makeInt(0), makeInt(m_threads), ForKind::Serial,
                       substitute(s, VarMap{{m_var.get(), index}}));
    }

    static Expr simplifyConstant(const Expr& e)
    {
        std::int64_t v = 0;
        return isConstInt(e, &v) ? makeInt(v) : e;
    }

    Var m_var;
    int m_threads;
    const VarSet& m_touched;
    bool m_allowShare;
    bool m_injected = false;
    bool m_visitTouched = false;
    bool m_triggerBase = false;
    int m_maxLoopDepth = 0;
    std::unordered_map<const VarNode*, Remapped> m_remap;
};

class VirtualThreadInjector : public IRMutator {
protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitAttr(op, self);
        auto* attr = s.as<AttrNode>();
        if (!attr || attr->key != "virtual_thread") return s;
        std::int64_t threads = 0;
        LS_ASSERT(isConstInt(attr->value, &threads), "a virtual thread's extent is not constant");
        Var var = findVar(attr->body, attr->ref);
        if (!var.defined()) return attr->body; // nothing depends on it: one copy is all
        VarSet touched = VarTouchedAnalysis().touchedBy(attr->body, var.get());
        return VTInjector(var, static_cast<int>(threads), touched,
                          attr->target.rfind("vthread", 0) == 0)
            .visit(attr->body);
    }
};

} // namespace

Stmt injectVirtualThreads(const Stmt& s)
{
    return VirtualThreadInjector().mutate(s);
}

} // namespace loopscope
