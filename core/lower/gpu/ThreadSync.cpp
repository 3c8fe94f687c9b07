#include "lower/gpu/ThreadSync.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "schedule/ThreadScope.h"

#include <unordered_set>

namespace loopscope {

namespace {

enum class AccessKind { Read, Write, Sync };

// One access to shared memory: its buffer, its index when it is one element per thread (null
// once relaxed over a loop, or for a vector of elements), and the innermost thread it runs on.
struct Access {
    AccessKind kind;
    const VarNode* buffer = nullptr;
    Expr index;
    const VarNode* thread = nullptr;
};

// A statement of a sequence, with the shared accesses it makes (a loop or a branch: the ones
// left exposed by the barriers inside).
struct Entry {
    const StmtNode* stmt;
    std::vector<Access> accesses;
};

// A launch of threads within a block (threadIdx.*; virtual threads are injected by now).
bool isThreadLaunch(const AttrNode* a)
{
    return a->key == "thread_extent" && threadRank(a->target) == 1;
}

class Planner {
public:
    std::unordered_set<const StmtNode*> syncBefore;

    void region(const Stmt& body)
    {
        std::vector<Entry> seq;
        collect(body, seq);
        plan(seq, nullptr, true);
    }

private:
    void collect(const Stmt& s, std::vector<Entry>& seq)
    {
        if (!s.defined()) return;
        switch (s.kind()) {
        case StmtKind::Seq:
            for (auto& c : s.as<SeqNode>()->stmts)
                collect(c, seq);
            return;
        case StmtKind::LetStmt: {
            auto* op = s.as<LetStmtNode>();
            Entry e{op, {}};
            reads(op->value, e.accesses);
            if (!e.accesses.empty()) seq.push_back(std::move(e));
            collect(op->body, seq);
            return;
        }
        case StmtKind::Allocate: collect(s.as<AllocateNode>()->body, seq); return;
        case StmtKind::Attr: {
            auto* op = s.as<AttrNode>();
            if (isStorageSync(s)) {
                seq.push_back({op, {{AccessKind::Sync}}});
                return;
            }
            const bool launch = isThreadLaunch(op) && op->ref;
            if (launch) m_threads.push_back(static_cast<const VarNode*>(op->ref));
            collect(op->body, seq);
            if (launch) m_threads.pop_back();
            return;
        }
        case StmtKind::For: {
            auto* op = s.as<ForNode>();
            std::vector<Entry> inner;
            collect(op->body, inner);
            std::vector<Access> summary = plan(inner, op, m_conditions == 0);
            for (auto& a : summary)
                if (a.index.defined() && usesVar(a.index, op->var.get())) a.index = Expr();
            seq.push_back({op, std::move(summary)});
            return;
        }
        case StmtKind::IfThenElse: {
            auto* op = s.as<IfThenElseNode>();
            Entry e{op, {}};
            reads(op->cond, e.accesses);
            // TVM puts no barrier inside a condition: what a branch leaves exposed is the
            // branch statement's, and the barrier goes before it.
            ++m_conditions;
            for (const Stmt* branch : {&op->thenCase, &op->elseCase}) {
                std::vector<Entry> inner;
                collect(*branch, inner);
                for (auto& a : plan(inner, nullptr, false))
                    e.accesses.push_back(a);
            }
            --m_conditions;
            seq.push_back(std::move(e));
            return;
        }
        case StmtKind::BufferStore: {
            auto* op = s.as<BufferStoreNode>();
            Entry e{op, {}};
            reads(op->value, e.accesses);
            for (auto& i : op->indices)
                reads(i, e.accesses);
            if (op->buffer->scope == "shared")
                e.accesses.push_back({AccessKind::Write, op->buffer->data.get(),
                                      singleIndex(op->indices), innermostThread()});
            if (!e.accesses.empty()) seq.push_back(std::move(e));
            return;
        }
        case StmtKind::Evaluate: {
            Entry e{s.get(), {}};
            reads(s.as<EvaluateNode>()->value, e.accesses);
            if (!e.accesses.empty()) seq.push_back(std::move(e));
            return;
        }
        default: return;
        }
    }

    void reads(const Expr& e, std::vector<Access>& out) const
    {
        if (!e.defined()) return;
        forEachExpr(e, [&](const Expr& x) {
            auto* load = x.as<BufferLoadNode>();
            if (load && load->buffer->scope == "shared")
                out.push_back({AccessKind::Read, load->buffer->data.get(),
                               singleIndex(load->indices), innermostThread()});
        });
    }

    static Expr singleIndex(const std::vector<Expr>& indices)
    {
        if (indices.size() != 1 || indices[0].type().isVector()) return Expr();
        return indices[0];
    }

    const VarNode* innermostThread() const
    {
        return m_threads.empty() ? nullptr : m_threads.back();
    }

    // TVM's FindConflict: an access conflicts with an earlier one to the same buffer unless
    // both are at one element, the same, whose index depends on the innermost thread.
    static bool conflicts(const std::vector<Access>& earlier, const Access& now)
    {
        for (const Access& prev : earlier) {
            if (prev.buffer != now.buffer) continue;
            bool same =
                prev.index.defined() && now.index.defined() && exprEqual(prev.index, now.index);
            if (same && prev.thread)
                same = usesVar(prev.index, prev.thread) && usesVar(now.index, prev.thread);
            if (!same) return true;
        }
        return false;
    }

    // TVM's ThreadSyncPlanner::Summarize over one sequence: barriers where a statement reads
    // what was written, or writes what was read, since the last barrier; for a loop, also where
    // the start of the next iteration meets the end of this one. Returns the accesses the
    // sequence leaves exposed: those before its first barrier, a barrier, those after its last.
    std::vector<Access> plan(const std::vector<Entry>& seq, const ForNode* loop, bool insert)
    {
        std::vector<Access> reads, writes;
        for (const Entry& s : seq) {
            bool sync = syncBefore.count(s.stmt) != 0;
            if (sync) {
                reads.clear();
                writes.clear();
            }
            for (const Access& a : s.accesses) {
                if (a.kind == AccessKind::Read && conflicts(writes, a)) {
                    sync = true;
                    break;
                }
                if (a.kind == AccessKind::Write && conflicts(reads, a)) {
                    sync = true;
                    break;
                }
                if (a.kind == AccessKind::Sync) {
                    reads.clear();
                    writes.clear();
                }
            }
            if (sync) {
                reads.clear();
                writes.clear();
            }
            for (const Access& a : s.accesses) {
                if (a.kind == AccessKind::Read) reads.push_back(a);
                if (a.kind == AccessKind::Write) writes.push_back(a);
                if (a.kind == AccessKind::Sync) {
                    reads.clear();
                    writes.clear();
                }
            }
            if (sync && insert) syncBefore.insert(s.stmt);
        }
        if (loop && insert) {
            for (const Entry& s : seq) {
                if (syncBefore.count(s.stmt) || (reads.empty() && writes.empty())) break;
                bool sync = false;
                for (const Access& a : s.accesses) {
                    if (a.kind == AccessKind::Read && conflicts(writes, a)) sync = true;
                    if (a.kind == AccessKind::Write && conflicts(reads, a)) sync = true;
                    if (a.kind == AccessKind::Sync) {
                        reads.clear();
                        writes.clear();
                    }
                }
                if (sync) {
                    syncBefore.insert(s.stmt);
                    break;
                }
            }
        }
        int syncs = 0;
        std::vector<Access> head, tail;
        for (const Entry& s : seq) {
            auto barrier = [&] {
                if (syncs++ != 0) {
                    tail.clear();
                } else {
                    head.push_back({AccessKind::Sync});
                }
            };
            if (syncBefore.count(s.stmt)) barrier();
            for (const Access& a : s.accesses) {
                if (a.kind == AccessKind::Sync) {
                    barrier();
                } else {
                    (syncs ? tail : head).push_back(a);
                }
            }
        }
        head.insert(head.end(), tail.begin(), tail.end());
        return head;
    }

    std::vector<const VarNode*> m_threads;
    int m_conditions = 0;
};

// Puts a barrier before every statement the planner chose.
Stmt insertBefore(const Stmt& s, const std::unordered_set<const StmtNode*>& marks)
{
    if (!s.defined()) return s;
    Stmt out = s;
    switch (s.kind()) {
    case StmtKind::Seq: {
        std::vector<Stmt> stmts;
        for (auto& c : s.as<SeqNode>()->stmts)
            stmts.push_back(insertBefore(c, marks));
        out = makeSeq(std::move(stmts));
        break;
    }
    case StmtKind::For: {
        auto* op = s.as<ForNode>();
        out = remakeFor(op, op->min, op->extent, insertBefore(op->body, marks));
        break;
    }
    case StmtKind::LetStmt: {
        auto* op = s.as<LetStmtNode>();
        out = makeLetStmt(op->var, op->value, insertBefore(op->body, marks));
        break;
    }
    case StmtKind::Allocate: {
        auto* op = s.as<AllocateNode>();
        out = makeAllocate(op->buffer, insertBefore(op->body, marks));
        break;
    }
    case StmtKind::Attr: {
        auto* op = s.as<AttrNode>();
        if (!isStorageSync(s))
            out = makeAttr(op->key, op->target, op->value, insertBefore(op->body, marks), op->ref);
        break;
    }
    default: break; // no barrier inside a branch, a store or a call
    }
    if (marks.count(s.get())) return makeSeq({makeStorageSync("shared"), out});
    return out;
}

// Plans each kernel whole, from its first launch, as TVM plans a device function.
class RegionFinder : public IRMutator {
protected:
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (op->key != "thread_extent") return IRMutator::visitAttr(op, self);
        Planner planner;
        planner.region(self);
        if (planner.syncBefore.empty()) return self;
        return insertBefore(self, planner.syncBefore);
    }
};

} // namespace

Stmt insertThreadSyncs(const Stmt& s)
{
    return RegionFinder().mutate(s);
}

bool launchesThreads(const Stmt& s)
{
    return anyAttr(s, [](const AttrNode* a) { return a->key == "thread_extent"; });
}

} // namespace loopscope
