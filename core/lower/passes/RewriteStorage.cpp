#include "lower/passes/RewriteStorage.h"

#include "ir/Analyzer.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/ModularSet.h"

#include <algorithm>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace loopscope {

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

// ---- storage scopes ("global", "shared", "local", "global.tag", ...) ----

struct StorageScope {
    int rank = 0; // global 0, shared 1, warp 2, local 3, anything else 4
    std::string tag;
    bool operator==(const StorageScope&) const = default;
};

constexpr int kWarpRank = 2;

StorageScope parseScope(const std::string& s)
{
    auto dot = s.find('.');
    std::string base = s.substr(0, dot);
    StorageScope out;
    out.tag = dot == std::string::npos ? "" : s.substr(dot);
    if (base.empty() || base == "global")
        out.rank = 0;
    else if (base == "shared")
        out.rank = 1;
    else if (base == "warp")
        out.rank = 2;
    else if (base == "local")
        out.rank = 3;
    else
        out.rank = 4;
    return out;
}

// Scopes whose allocations TVM packs into one block (not done here; they are never shared).
bool isSpecialTagged(const StorageScope& s)
{
    return !s.tag.empty() && s.tag != ".dyn" && s.tag != ".workspace" && s.tag != ".vtcm";
}

// Number of elements when every extent is a constant, else 0.
u64 constantSize(const Buffer& b)
{
    u64 n = 1;
    for (auto& e : b->shape) {
        i64 v;
        if (!isConstInt(e, &v) || v < 0) return 0;
        n *= static_cast<u64>(v);
    }
    return n;
}

u64 constantBits(const Buffer& b)
{
    return constantSize(b) * b->dtype.bits * b->dtype.lanes;
}

bool isParallelFor(const StmtNode* s)
{
    return s->kind == StmtKind::For && static_cast<const ForNode*>(s)->forKind == ForKind::Parallel;
}

bool isThreadScopeAttr(const std::string& key)
{
    return key == "thread_extent" || key == "virtual_thread" || key.rfind("pragma_", 0) == 0;
}

// ---- TVM's LinearAccessPatternFinder ----
// Loops, ifs and lets are scopes with a begin and an end entry; stores and evaluations are leaf
// entries. An access to an allocation is recorded on the entry at the allocation's own level,
// i.e. on the statement next to the Allocate that contains the access.

struct Entry {
    const StmtNode* stmt = nullptr;
    i64 scopePairOffset = 0; // > 0 on a begin entry, < 0 on an end entry, 0 on a leaf
    std::vector<const VarNode*> touched;
};

struct AllocInfo {
    std::size_t level = 0;
    const AllocateNode* alloc = nullptr;
};

class AccessPatternFinder : public IRVisitor {
public:
    std::vector<Entry> seq;
    std::unordered_map<const VarNode*, AllocInfo> allocs;

protected:
    void visitAllocate(const AllocateNode* op) override
    {
        allocs[op->buffer->data.get()] = {m_scope.size(), op};
        IRVisitor::visitAllocate(op);
    }

    void visitBufferStore(const BufferStoreNode* op) override
    {
        m_scope.emplace_back();
        visit(op->value);
        for (auto& i : op->indices)
            visit(i);
        touch(op->buffer->data.get());
        leaf(op);
    }

    void visitEvaluate(const EvaluateNode* op) override
    {
        m_scope.emplace_back();
        visit(op->value);
        leaf(op);
    }

    void visitBufferLoad(const BufferLoadNode* op) override
    {
        IRVisitor::visitBufferLoad(op);
        touch(op->buffer->data.get());
    }

    void visitFor(const ForNode* op) override
    {
        newScope(op, [&] { IRVisitor::visitFor(op); });
    }
    void visitIfThenElse(const IfThenElseNode* op) override
    {
        newScope(op, [&] { IRVisitor::visitIfThenElse(op); });
    }
    void visitLetStmt(const LetStmtNode* op) override
    {
        newScope(op, [&] { IRVisitor::visitLetStmt(op); });
    }

    void visitAttr(const AttrNode* op) override
    {
        if (op->key == "thread_extent" && !m_inThreadEnv) {
            m_inThreadEnv = true;
            newScope(op, [&] { IRVisitor::visitAttr(op); });
            m_inThreadEnv = false;
        } else if (op->key == "extern_scope" || op->key == "virtual_thread") {
            newScope(op, [&] { IRVisitor::visitAttr(op); });
        } else {
            IRVisitor::visitAttr(op);
        }
    }

private:
    void touch(const VarNode* data)
    {
        auto it = allocs.find(data);
        if (it == allocs.end() || it->second.level >= m_scope.size()) return;
        m_scope[it->second.level].touched.push_back(data);
    }

    void leaf(const StmtNode* op)
    {
        Entry e = std::move(m_scope.back());
        m_scope.pop_back();
        if (e.touched.empty()) return;
        e.stmt = op;
        seq.push_back(std::move(e));
    }

    template <typename F> void newScope(const StmtNode* op, F visitChildren)
    {
        m_scope.emplace_back();
        auto begin = static_cast<i64>(seq.size());
        seq.push_back({op, 0, {}});
        visitChildren();
        Entry e{op, 0, std::move(m_scope.back().touched)};
        m_scope.pop_back();
        auto end = static_cast<i64>(seq.size());
        e.scopePairOffset = begin - end;
        seq.push_back(std::move(e));
        seq[static_cast<std::size_t>(begin)].scopePairOffset = end - begin;
    }

    std::vector<Entry> m_scope;
    bool m_inThreadEnv = false;
};

// ---- TVM's InplaceOpVerifier: dst[index] = f(src[index]) with nothing else touching them ----

class InplaceVerifier : public IRVisitor {
public:
    bool check(const StmtNode* s, const VarNode* dst, const VarNode* src)
    {
        m_dst = dst;
        m_src = src;
        m_ok = true;
        switch (s->kind) {
        case StmtKind::Attr: visitAttr(static_cast<const AttrNode*>(s)); break;
        case StmtKind::For: visitFor(static_cast<const ForNode*>(s)); break;
        case StmtKind::IfThenElse: visitIfThenElse(static_cast<const IfThenElseNode*>(s)); break;
        case StmtKind::BufferStore: visitBufferStore(static_cast<const BufferStoreNode*>(s)); break;
        default: return false;
        }
        return m_ok;
    }

protected:
    void visitBufferStore(const BufferStoreNode* op) override
    {
        if (!m_ok) return;
        ++m_memNest;
        for (auto& i : op->indices)
            visit(i);
        --m_memNest;
        if (op->buffer->data.get() == m_dst) {
            m_store = op;
            visit(op->value);
            m_store = nullptr;
        } else {
            visit(op->value);
        }
    }

    void visitAttr(const AttrNode* op) override
    {
        if (op->key == "extern_scope" || op->key == "volatile_scope") m_ok = false;
        if (m_ok) IRVisitor::visitAttr(op);
    }

    void visitBufferLoad(const BufferLoadNode* op) override
    {
        if (!m_ok) return;
        const VarNode* buf = op->buffer->data.get();
        // No reduction into dst, no indirect access.
        if (buf == m_dst || m_memNest != 0) {
            m_ok = false;
            return;
        }
        if (buf == m_src) {
            if (!m_store || !(m_store->value.type() == op->type) ||
                m_store->indices.size() != op->indices.size()) {
                m_ok = false;
                return;
            }
            for (std::size_t i = 0; i < op->indices.size(); ++i) {
                if (!exprEqual(m_store->indices[i], op->indices[i])) {
                    m_ok = false;
                    return;
                }
            }
        }
        ++m_memNest;
        IRVisitor::visitBufferLoad(op);
        --m_memNest;
    }

    void visitLeaf(const Expr& e) override
    {
        if (e.get() == m_dst || e.get() == m_src) m_ok = false;
    }

private:
    const VarNode* m_dst = nullptr;
    const VarNode* m_src = nullptr;
    const BufferStoreNode* m_store = nullptr;
    int m_memNest = 0;
    bool m_ok = true;
};

// ---- TVM's StoragePlanRewriter planning: liveness, reuse, attach scopes ----

struct StorageEntry {
    const StmtNode* attach = nullptr; // null: the top of the function
    u64 constBits = 0;
    StorageScope scope;
    DataType elemType;
    std::vector<const AllocateNode*> allocs;
    Buffer allocBuffer; // what is allocated at the attach scope
};

class StoragePlanner {
public:
    std::vector<std::unique_ptr<StorageEntry>> entries; // in order of first use
    std::unordered_map<const VarNode*, StorageEntry*> assignment;

    void plan(const std::vector<Entry>& seq,
              const std::unordered_map<const VarNode*, AllocInfo>& allocs)
    {
        liveness(seq);
        std::unordered_set<const VarNode*> inplaceDone;
        for (std::size_t i = 0; i < seq.size(); ++i) {
            const Entry& s = seq[i];
            auto ev = m_events.find(s.stmt);
            if (ev != m_events.end() && s.scopePairOffset >= 0) {
                bool detectInplace = ev->second.gen.size() <= 2;
                for (const VarNode* var : ev->second.gen) {
                    const AllocateNode* alloc = allocs.at(var).alloc;
                    StorageScope scope = parseScope(alloc->buffer->scope);
                    StorageEntry* dst = nullptr;
                    if (detectInplace)
                        dst = findInplace(s.stmt, var, alloc, scope, ev->second.kill, inplaceDone);
                    if (!dst) dst = findAlloc(alloc, scope);
                    dst->allocs.push_back(alloc);
                    assignment[var] = dst;
                }
            }
            if (isParallelFor(s.stmt)) {
                if (!m_threadScope || m_threadScope == s.stmt) newScope(s.stmt);
            } else if (s.stmt->kind == StmtKind::Attr &&
                       isThreadScopeAttr(static_cast<const AttrNode*>(s.stmt)->key)) {
                newScope(s.stmt);
            }
            if (ev != m_events.end() && s.scopePairOffset <= 0) {
                for (const VarNode* var : ev->second.kill)
                    if (!inplaceDone.count(var)) release(var);
            }
        }
    }

private:
    struct Events {
        std::vector<const VarNode*> gen, kill;
    };

    void liveness(const std::vector<Entry>& seq)
    {
        std::unordered_set<const VarNode*> seen;
        for (std::size_t i = seq.size(); i != 0; --i) {
            for (const VarNode* v : seq[i - 1].touched)
                if (seen.insert(v).second) m_events[seq[i - 1].stmt].kill.push_back(v);
        }
        seen.clear();
        for (std::size_t i = 0; i < seq.size(); ++i) {
            if (seq[i].scopePairOffset < 0) continue;
            const Entry& s = seq[i + static_cast<std::size_t>(seq[i].scopePairOffset)];
            for (const VarNode* v : s.touched)
                if (seen.insert(v).second) m_events[s.stmt].gen.push_back(v);
        }
    }

    // Entering a thread scope (the outermost parallel loop) or leaving it; storage freed inside
    // it cannot be reused outside.
    void newScope(const StmtNode* op)
    {
        if (!m_threadScope) {
            m_threadScope = op;
            return;
        }
        for (auto it = m_constFree.begin(); it != m_constFree.end();) {
            if (it->second->attach == op)
                it = m_constFree.erase(it);
            else
                ++it;
        }
        m_symFree.remove_if([&](StorageEntry* e) { return e->attach == op; });
        m_threadScope = nullptr;
    }

    StorageEntry* findInplace(const StmtNode* stmt, const VarNode* var, const AllocateNode* alloc,
                              const StorageScope& scope, const std::vector<const VarNode*>& kills,
                              std::unordered_set<const VarNode*>& inplaceDone)
    {
        for (const VarNode* src : kills) {
            if (inplaceDone.count(src) || !assignment.count(src)) continue;
            StorageEntry* e = assignment.at(src);
            if (!(e->scope == scope) || e->attach != m_threadScope ||
                !(e->elemType == alloc->buffer->dtype.element()))
                continue;
            InplaceVerifier verifier;
            if (!verifier.check(stmt, var, src)) continue;
            if (e->constBits != constantBits(alloc->buffer)) continue;
            inplaceDone.insert(src);
            return e;
        }
        return nullptr;
    }

    StorageEntry* newAlloc(const AllocateNode* op, const StorageScope& scope, u64 bits)
    {
        auto e = std::make_unique<StorageEntry>();
        e->attach = m_threadScope;
        e->scope = scope;
        e->elemType = op->buffer->dtype.element();
        e->constBits = bits;
        entries.push_back(std::move(e));
        return entries.back().get();
    }

    StorageEntry* findAlloc(const AllocateNode* op, const StorageScope& scope)
    {
        constexpr u64 kMatchRange = 16;
        const Buffer& b = op->buffer;
        u64 bits = constantBits(b);
        bool knownSize = bits != 0;
        bool flat = b->shape.size() == 1;
        bool small =
            scope.tag.empty() && (scope.rank >= kWarpRank || b->dtype.code == DataType::Handle ||
                                  (knownSize && bits <= 32));
        if (small || !flat || isSpecialTagged(scope)) return newAlloc(op, scope, bits);
        if (knownSize) {
            auto begin = m_constFree.lower_bound(bits / kMatchRange);
            auto mid = m_constFree.lower_bound(bits);
            auto end = m_constFree.upper_bound(bits * kMatchRange);
            // Larger free blocks first, then smaller ones of the same element type.
            for (auto it = mid; it != end; ++it) {
                StorageEntry* e = it->second;
                if (e->attach != m_threadScope || !(e->scope == scope)) continue;
                e->constBits = std::max(bits, e->constBits);
                m_constFree.erase(it);
                return e;
            }
            for (auto it = mid; it != begin;) {
                --it;
                StorageEntry* e = it->second;
                if (e->attach != m_threadScope || !(e->scope == scope)) continue;
                if (!(e->elemType == b->dtype.element())) continue;
                e->constBits = std::max(bits, e->constBits);
                m_constFree.erase(it);
                return e;
            }
        } else {
            for (auto it = m_symFree.begin(); it != m_symFree.end(); ++it) {
                StorageEntry* e = *it;
                if (e->attach != m_threadScope || !(e->scope == scope)) continue;
                if (!(e->elemType == b->dtype.element())) continue;
                m_symFree.erase(it);
                return e;
            }
        }
        return newAlloc(op, scope, bits);
    }

    void release(const VarNode* var)
    {
        auto it = assignment.find(var);
        if (it == assignment.end()) return;
        StorageEntry* e = it->second;
        if (e->scope.tag.empty()) {
            if (e->scope.rank >= kWarpRank || e->allocs[0]->buffer->dtype.code == DataType::Handle)
                return;
            if (e->constBits > 0 && e->constBits <= 32) return;
        }
        if (isSpecialTagged(e->scope)) return;
        if (e->constBits != 0)
            m_constFree.emplace(e->constBits, e);
        else
            m_symFree.push_back(e);
    }

    std::unordered_map<const StmtNode*, Events> m_events;
    const StmtNode* m_threadScope = nullptr;
    std::multimap<u64, StorageEntry*> m_constFree;
    std::list<StorageEntry*> m_symFree;
};

// The allocation that backs a storage entry: the first buffer itself when every allocation
// sharing it is identical, else one block of the largest size in the widest element type.
Buffer backingBuffer(const StorageEntry& e)
{
    const Buffer& first = e.allocs[0]->buffer;
    DataType type = first->dtype;
    for (auto* a : e.allocs)
        if (a->buffer->dtype.lanes > type.lanes) type = a->buffer->dtype;
    bool identical = std::all_of(e.allocs.begin(), e.allocs.end(), [&](const AllocateNode* a) {
        const Buffer& b = a->buffer;
        if (!(b->dtype == first->dtype) || b->shape.size() != first->shape.size()) return false;
        for (std::size_t i = 0; i < b->shape.size(); ++i)
            if (!exprEqual(b->shape[i], first->shape[i])) return false;
        return true;
    });
    if (identical) return first;
    Expr bits;
    for (auto* a : e.allocs) {
        const Buffer& b = a->buffer;
        Expr size = b->shape.back();
        for (std::size_t i = 0; i + 1 < b->shape.size(); ++i)
            size = size * b->shape[i];
        Expr n = size * makeInt(b->dtype.bits * b->dtype.lanes, size.type());
        bits = bits.defined() ? max(bits, n) : n;
    }
    i64 typeBits = type.bits * type.lanes;
    Analyzer an;
    Expr words = floordiv(bits, makeInt(typeBits, bits.type()));
    Expr rest = floormod(bits, makeInt(typeBits, bits.type()));
    if (!an.canProve(makeBinary(ExprKind::EQ, rest, makeInt(0, bits.type()))))
        words = words + makeInt(1, bits.type());
    auto merged = std::make_shared<BufferNode>(*first);
    merged->dtype = type;
    merged->shape = {an.simplify(words)};
    return merged;
}

// Removes every Allocate, re-emits the planned ones at their attach scopes and points the
// accesses of buffers that share storage at the storage's buffer.
class PlanRewriter : public IRMutator {
public:
    explicit PlanRewriter(const StoragePlanner& plan) : m_plan(plan)
    {
        for (auto& e : plan.entries) {
            m_backing[e.get()] = backingBuffer(*e);
            m_attach[e->attach].push_back(e.get());
        }
    }

    Stmt rewrite(const Stmt& s)
    {
        Stmt out = mutate(s);
        auto it = m_attach.find(nullptr);
        return it == m_attach.end() ? out : attach(it->second, out);
    }

protected:
    Stmt visitAllocate(const AllocateNode* op, const Stmt&) override { return mutate(op->body); }

    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitFor(op, self);
        auto it = m_attach.find(op);
        if (it == m_attach.end()) return s;
        auto* f = s.as<ForNode>();
        return remakeFor(f, f->min, f->extent, attach(it->second, f->body));
    }

    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitAttr(op, self);
        auto it = m_attach.find(op);
        if (it == m_attach.end()) return s;
        auto* a = s.as<AttrNode>();
        return makeAttr(a->key, a->target, a->value, attach(it->second, a->body), a->ref);
    }

    Expr visitBufferLoad(const BufferLoadNode* op, const Expr& self) override
    {
        bool changed = false;
        std::vector<Expr> idx = IRMutator::mutate(op->indices, &changed);
        Buffer b = remap(op->buffer);
        if (!changed && b == op->buffer) return self;
        return std::make_shared<BufferLoadNode>(self.type(), b, std::move(idx));
    }

    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitBufferStore(op, self);
        auto* st = s.as<BufferStoreNode>();
        Buffer b = remap(st->buffer);
        if (b == st->buffer) return s;
        return makeBufferStore(b, st->indices, st->value);
    }

private:
    Stmt attach(const std::vector<StorageEntry*>& entries, Stmt body) const
    {
        for (auto it = entries.rbegin(); it != entries.rend(); ++it)
            body = makeAllocate(m_backing.at(*it), body);
        return body;
    }

    // A buffer whose storage is another allocation's: same view, that allocation's data.
    Buffer remap(const Buffer& b)
    {
        auto it = m_plan.assignment.find(b->data.get());
        if (it == m_plan.assignment.end()) return b;
        const Buffer& backing = m_backing.at(it->second);
        if (backing->data.same(b->data)) return b;
        auto cached = m_remapped.find(b.get());
        if (cached != m_remapped.end()) return cached->second;
        auto r = std::make_shared<BufferNode>(*b);
        r->data = backing->data;
        r->name = backing->data.name();
        m_remapped[b.get()] = r;
        return r;
    }

    const StoragePlanner& m_plan;
    std::unordered_map<const StorageEntry*, Buffer> m_backing;
    std::unordered_map<const StmtNode*, std::vector<StorageEntry*>> m_attach;
    std::unordered_map<const BufferNode*, Buffer> m_remapped;
};

// ---- TVM's PointerValueTypeRewrite for allocations (no scalar-read shuffles) ----

struct VarInfo {
    DataType elem;
    Expr extent;
    std::vector<DataType> accesses; // distinct
};

class VectorAccessChecker : public IRVisitor {
public:
    std::unordered_map<const VarNode*, VarInfo> info;

protected:
    void visitAllocate(const AllocateNode* op) override
    {
        info[op->buffer->data.get()] = {op->buffer->dtype, op->buffer->shape.back(), {}};
        IRVisitor::visitAllocate(op);
    }
    void visitBufferLoad(const BufferLoadNode* op) override
    {
        access(op->type, op->buffer->data.get(), op->indices);
        IRVisitor::visitBufferLoad(op);
    }
    void visitBufferStore(const BufferStoreNode* op) override
    {
        access(op->value.type(), op->buffer->data.get(), op->indices);
        IRVisitor::visitBufferStore(op);
    }

private:
    void access(DataType value, const VarNode* data, const std::vector<Expr>& indices)
    {
        auto it = info.find(data);
        if (it == info.end() || indices.empty()) return;
        VarInfo& v = it->second;
        int lanesUsed = v.elem.lanes;
        if (indices.back().type().lanes * v.elem.lanes != value.lanes) {
            lanesUsed = 1;
            v.elem = v.elem.withLanes(1);
        }
        if (auto* r = indices.back().as<RampNode>(); r && isOne(r->stride)) {
            if (modularSet(r->base).divisibleBy(r->lanes)) lanesUsed = r->lanes;
        }
        DataType t = value.withLanes(lanesUsed);
        if (std::find(v.accesses.begin(), v.accesses.end(), t) == v.accesses.end())
            v.accesses.push_back(t);
    }
};

// The element type an allocation should have: the vector type of its accesses when they all use
// the same aligned vector width dividing the extent.
DataType preferredType(const VarInfo& v)
{
    if (v.accesses.empty()) return v.elem;
    DataType base = v.accesses[0].element();
    for (auto& t : v.accesses)
        if (!(t.element() == base)) return v.elem;
    int lanes = v.elem.lanes;
    if (v.elem.lanes == 1 && v.accesses.size() == 1) {
        int l = v.accesses[0].lanes;
        if (modularSet(v.extent).divisibleBy(l)) lanes = l;
    }
    return base.withLanes(lanes);
}

class VectorTypeRewriter : public IRMutator {
public:
    explicit VectorTypeRewriter(const std::unordered_map<const VarNode*, VarInfo>& info)
    {
        for (auto& [var, v] : info) {
            DataType t = preferredType(v);
            if (!(t == v.elem) && t.lanes % v.elem.lanes == 0) m_types[var] = t;
        }
    }

    bool active() const { return !m_types.empty(); }

protected:
    Stmt visitFor(const ForNode* op, const Stmt& self) override
    {
        m_an.bind(op->var, op->min, op->extent);
        Stmt s = IRMutator::visitFor(op, self);
        m_an.unbind(op->var.get());
        return s;
    }

    Stmt visitAllocate(const AllocateNode* op, const Stmt& self) override
    {
        Stmt body = mutate(op->body);
        Buffer b = remap(op->buffer);
        if (body.same(op->body) && b == op->buffer) return self;
        return makeAllocate(b, body);
    }

    Expr visitBufferLoad(const BufferLoadNode* op, const Expr& self) override
    {
        Expr e = IRMutator::visitBufferLoad(op, self);
        auto* l = e.as<BufferLoadNode>();
        Buffer b = remap(l->buffer);
        if (b == l->buffer) return e;
        std::vector<Expr> idx = index(l->buffer, l->indices);
        int lanes = b->dtype.lanes;
        for (auto& i : idx)
            lanes *= i.type().lanes;
        return std::make_shared<BufferLoadNode>(b->dtype.withLanes(lanes), b, std::move(idx));
    }

    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        Stmt s = IRMutator::visitBufferStore(op, self);
        auto* st = s.as<BufferStoreNode>();
        Buffer b = remap(st->buffer);
        if (b == st->buffer) return s;
        return makeBufferStore(b, index(st->buffer, st->indices), st->value);
    }

private:
    int factor(const Buffer& b) const { return m_types.at(b->data.get()).lanes / b->dtype.lanes; }

    // Ramp(base, 1, L) becomes base / L (a ramp over base / L when L is a multiple of the new
    // element's lanes).
    std::vector<Expr> index(const Buffer& old, std::vector<Expr> idx) const
    {
        int f = factor(old);
        Expr& last = idx.back();
        auto* r = last.as<RampNode>();
        if (!r || !isOne(r->stride)) return idx;
        Expr base = m_an.simplify(floordiv(r->base, makeInt(f, r->base.type())));
        if (r->lanes == f)
            last = base;
        else
            last = makeRamp(m_an.simplify(base * makeInt(r->lanes / f, base.type())), r->stride,
                            r->lanes / f);
        return idx;
    }

    Buffer remap(const Buffer& b)
    {
        auto t = m_types.find(b->data.get());
        if (t == m_types.end()) return b;
        auto cached = m_buffers.find(b.get());
        if (cached != m_buffers.end()) return cached->second;
        auto nb = std::make_shared<BufferNode>(*b);
        int f = t->second.lanes / b->dtype.lanes;
        nb->dtype = t->second;
        Expr& last = nb->shape.back();
        last = m_an.simplify(floordiv(last, makeInt(f, last.type())));
        m_buffers[b.get()] = nb;
        return nb;
    }

    std::unordered_map<const VarNode*, DataType> m_types;
    std::unordered_map<const BufferNode*, Buffer> m_buffers;
    Analyzer m_an;
};

// Whether `after` is `before` again: the same allocations around the same body.
bool sameAllocations(Stmt before, Stmt after)
{
    while (before.as<AllocateNode>() && after.as<AllocateNode>()) {
        auto* b = before.as<AllocateNode>();
        auto* a = after.as<AllocateNode>();
        if (a->buffer != b->buffer) return false;
        before = b->body;
        after = a->body;
    }
    return before.same(after);
}

Stmt planStorage(const Stmt& s)
{
    AccessPatternFinder finder;
    finder.visit(s);
    if (finder.allocs.empty()) return s;
    StoragePlanner planner;
    planner.plan(finder.seq, finder.allocs);
    PlanRewriter rewriter(planner);
    Stmt out = rewriter.rewrite(s);
    return sameAllocations(s, out) ? s : out;
}

Stmt rewriteVectorTypes(const Stmt& s)
{
    VectorAccessChecker checker;
    checker.visit(s);
    VectorTypeRewriter rewriter(checker.info);
    return rewriter.active() ? rewriter.mutate(s) : s;
}

} // namespace

Stmt rewriteStorage(const Stmt& s)
{
    return rewriteVectorTypes(planStorage(s));
}

} // namespace loopscope
