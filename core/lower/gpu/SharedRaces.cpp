#include "lower/gpu/SharedRaces.h"

#include "ir/IRUtil.h"
#include "ir/Printer.h"
#include "schedule/ThreadScope.h"

#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace loopscope {

namespace {

struct Stop {}; // the walk of one thread (or of all, past the access limit) ends

// What happened to one element of a shared buffer in one interval between barriers.
struct Cell {
    std::int64_t writer = -1; // the first thread that wrote it
    const BufferStoreNode* writeStmt = nullptr;
    std::optional<std::size_t> writeValue; // what was written, where it is known (see valueKey)
    std::int64_t readers[2] = {-1, -1};    // two different threads that read it
    const BufferStoreNode* readStmt[2] = {nullptr, nullptr};
};

class Walker {
public:
    Walker(const SharedRaceLimits& limits, std::array<std::int64_t, 3> block)
        : m_limits(limits), m_block(block)
    {
    }

    std::optional<SharedRace> race;
    std::int64_t accesses = 0;

    // Every thread of the first block through `kernel` (its outermost launch).
    void run(const Stmt& kernel)
    {
        const std::int64_t threads = m_block[0] * m_block[1] * m_block[2];
        for (std::int64_t t = 0; t < threads && !race; ++t) {
            m_thread = t;
            m_at = coordinates(t);
            m_interval = 0;
            m_env.clear();
            try {
                walk(kernel);
            } catch (const Stop&) {
                if (accesses >= m_limits.accesses) return;
            }
        }
    }

private:
    std::optional<std::int64_t> eval(const Expr& e)
    {
        if (auto* i = e.as<IntImmNode>()) return i->value;
        if (auto* v = e.as<VarNode>()) {
            auto it = m_env.find(v);
            if (it == m_env.end()) return std::nullopt;
            return it->second;
        }
        if (auto* b = e.as<BinaryNode>()) {
            auto x = eval(b->a), y = eval(b->b);
            if (!x || !y) return std::nullopt;
            const std::int64_t p = *x, q = *y;
            switch (e.kind()) {
            case ExprKind::Add: return p + q;
            case ExprKind::Sub: return p - q;
            case ExprKind::Mul: return p * q;
            case ExprKind::Div:
                if (q == 0) return std::nullopt;
                return p / q;
            case ExprKind::Mod:
                if (q == 0) return std::nullopt;
                return p % q;
            case ExprKind::FloorDiv:
                if (q == 0) return std::nullopt;
                return floorDivInt(p, q);
            case ExprKind::FloorMod:
                if (q == 0) return std::nullopt;
                return floorModInt(p, q);
            case ExprKind::Min: return std::min(p, q);
            case ExprKind::Max: return std::max(p, q);
            case ExprKind::EQ: return p == q;
            case ExprKind::NE: return p != q;
            case ExprKind::LT: return p < q;
            case ExprKind::LE: return p <= q;
            case ExprKind::GT: return p > q;
            case ExprKind::GE: return p >= q;
            case ExprKind::And: return p && q;
            case ExprKind::Or: return p || q;
            default: return std::nullopt;
            }
        }
        if (auto* n = e.as<NotNode>()) {
            auto x = eval(n->a);
            if (!x) return std::nullopt;
            return !*x;
        }
        if (auto* s = e.as<SelectNode>()) {
            auto c = eval(s->cond);
            if (!c) return std::nullopt;
            return eval(*c ? s->t : s->f);
        }
        if (auto* c = e.as<CastNode>()) {
            if (!c->type.isInt() && !c->type.isUInt() && !c->type.isBool()) return std::nullopt;
            return eval(c->value);
        }
        if (auto* l = e.as<LetNode>()) {
            auto v = eval(l->value);
            if (!v) return std::nullopt;
            Bind bind(m_env, l->var.get(), *v);
            return eval(l->body);
        }
        if (auto* call = e.as<CallNode>()) {
            if (call->op == CallOp::Likely && call->args.size() == 1) return eval(call->args[0]);
            if (call->op == CallOp::IfThenElse && call->args.size() == 3) {
                auto c = eval(call->args[0]);
                if (!c) return std::nullopt;
                return eval(call->args[*c ? 1 : 2]);
            }
        }
        return std::nullopt;
    }

    // The elements an index names: a ramp's lanes, a broadcast's one, or the scalar's.
    std::vector<std::int64_t> elements(const Expr& index)
    {
        if (auto* r = index.as<RampNode>()) {
            auto base = eval(r->base), stride = eval(r->stride);
            if (!base || !stride) return {};
            std::vector<std::int64_t> out;
            for (int i = 0; i < r->lanes; ++i)
                out.push_back(*base + *stride * i);
            return out;
        }
        if (auto* b = index.as<BroadcastNode>()) return elements(b->value);
        auto v = eval(index);
        if (!v) return {};
        return {*v};
    }

    // What a store writes, as a key equal for equal values: constants, indices and elements of
    // buffers other than this thread's own (local) ones. None where it is not known.
    std::optional<std::size_t> valueKey(const Expr& e)
    {
        auto mix = [](std::size_t h, std::size_t v) {
            return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
        };
        if (auto* f = e.as<FloatImmNode>()) return std::hash<double>()(f->value);
        if (auto* l = e.as<BufferLoadNode>()) {
            if (l->buffer->scope == "local" || l->buffer->scope == "warp") return std::nullopt;
            std::size_t h = std::hash<const void*>()(l->buffer->data.get());
            for (std::int64_t i : elements(l->indices.back()))
                h = mix(h, std::hash<std::int64_t>()(i));
            return h;
        }
        if (auto v = eval(e)) return std::hash<std::int64_t>()(*v);
        std::size_t h = static_cast<std::size_t>(e.kind()) + 1;
        if (auto* b = e.as<BinaryNode>()) {
            auto x = valueKey(b->a), y = valueKey(b->b);
            if (!x || !y) return std::nullopt;
            return mix(mix(h, *x), *y);
        }
        if (auto* c = e.as<CastNode>()) {
            auto x = valueKey(c->value);
            if (!x) return std::nullopt;
            return mix(h, *x);
        }
        if (auto* call = e.as<CallNode>()) {
            h = mix(h, static_cast<std::size_t>(call->op));
            if (call->op == CallOp::IfThenElse && call->args.size() == 3) {
                auto c = eval(call->args[0]);
                if (!c) return std::nullopt;
                return valueKey(call->args[*c ? 1 : 2]);
            }
            for (const Expr& a : call->args) {
                auto x = valueKey(a);
                if (!x) return std::nullopt;
                h = mix(h, *x);
            }
            return h;
        }
        if (auto* b = e.as<BroadcastNode>()) return valueKey(b->value);
        return std::nullopt;
    }

    // The shared loads of an expression, as they are evaluated (the taken side of a condition).
    void reads(const Expr& e, const BufferStoreNode* stmt)
    {
        if (!e.defined()) return;
        if (auto* l = e.as<BufferLoadNode>()) {
            for (const Expr& i : l->indices)
                reads(i, stmt);
            if (l->buffer->scope == "shared")
                for (std::int64_t el : elements(l->indices.back()))
                    access(l->buffer, el, false, stmt, std::nullopt);
            return;
        }
        if (auto* call = e.as<CallNode>()) {
            if (call->op == CallOp::IfThenElse && call->args.size() == 3) {
                reads(call->args[0], stmt);
                if (auto c = eval(call->args[0])) reads(call->args[*c ? 1 : 2], stmt);
                return;
            }
            for (const Expr& a : call->args)
                reads(a, stmt);
            return;
        }
        if (auto* b = e.as<BinaryNode>()) {
            reads(b->a, stmt);
            reads(b->b, stmt);
        } else if (auto* n = e.as<NotNode>()) {
            reads(n->a, stmt);
        } else if (auto* s = e.as<SelectNode>()) {
            reads(s->cond, stmt);
            reads(s->t, stmt);
            reads(s->f, stmt);
        } else if (auto* c = e.as<CastNode>()) {
            reads(c->value, stmt);
        } else if (auto* r = e.as<RampNode>()) {
            reads(r->base, stmt);
        } else if (auto* b = e.as<BroadcastNode>()) {
            reads(b->value, stmt);
        } else if (auto* l = e.as<LetNode>()) {
            reads(l->value, stmt);
            auto v = eval(l->value);
            if (!v) return;
            Bind bind(m_env, l->var.get(), *v);
            reads(l->body, stmt);
        }
    }

    void access(const Buffer& b, std::int64_t element, bool write, const BufferStoreNode* stmt,
                std::optional<std::size_t> value)
    {
        if (++accesses > m_limits.accesses) throw Stop{};
        Cell& c = m_cells[{b->data.get(), m_interval, element}];
        auto report = [&](std::int64_t other, bool otherWrites, const BufferStoreNode* otherStmt) {
            SharedRace r;
            r.buffer = scriptName(b->name);
            r.element = element;
            r.first = {coordinates(other), otherWrites,
                       otherStmt ? scriptName(otherStmt->buffer->name) : ""};
            r.second = {m_at, write, stmt ? scriptName(stmt->buffer->name) : ""};
            race = r;
            throw Stop{};
        };
        if (c.writer >= 0 && c.writer != m_thread) {
            const bool sameWrite = write && c.writeStmt == stmt && value && c.writeValue == value;
            if (!sameWrite) report(c.writer, true, c.writeStmt);
        }
        if (write) {
            for (int i = 0; i < 2; ++i)
                if (c.readers[i] >= 0 && c.readers[i] != m_thread)
                    report(c.readers[i], false, c.readStmt[i]);
            if (c.writer < 0) {
                c.writer = m_thread;
                c.writeStmt = stmt;
                c.writeValue = value;
            }
            return;
        }
        for (int i = 0; i < 2; ++i) {
            if (c.readers[i] == m_thread) return;
            if (c.readers[i] < 0) {
                c.readers[i] = m_thread;
                c.readStmt[i] = stmt;
                return;
            }
        }
    }

    std::array<std::int64_t, 3> coordinates(std::int64_t t) const
    {
        return {t % m_block[0], t / m_block[0] % m_block[1], t / (m_block[0] * m_block[1])};
    }

    void walk(const Stmt& s)
    {
        if (!s.defined()) return;
        switch (s.kind()) {
        case StmtKind::Seq:
            for (const Stmt& c : s.as<SeqNode>()->stmts)
                walk(c);
            break;
        case StmtKind::For: {
            auto* f = s.as<ForNode>();
            auto lo = eval(f->min), n = eval(f->extent);
            if (!lo || !n) break;
            for (std::int64_t i = *lo; i < *lo + *n; ++i) {
                Bind bind(m_env, f->var.get(), i);
                walk(f->body);
            }
            break;
        }
        case StmtKind::LetStmt: {
            auto* l = s.as<LetStmtNode>();
            auto v = eval(l->value);
            if (!v) {
                // Accesses that depend on it are not known.
                auto saved = m_env.find(l->var.get());
                if (saved != m_env.end()) m_env.erase(saved);
                walk(l->body);
                break;
            }
            Bind bind(m_env, l->var.get(), *v);
            walk(l->body);
            break;
        }
        case StmtKind::IfThenElse: {
            auto* i = s.as<IfThenElseNode>();
            auto c = eval(i->cond);
            if (c) walk(*c ? i->thenCase : i->elseCase);
            break;
        }
        case StmtKind::Allocate: walk(s.as<AllocateNode>()->body); break;
        case StmtKind::Attr: {
            auto* a = s.as<AttrNode>();
            if (isStorageSync(s)) {
                if (++m_interval >= m_limits.barrierIntervals) throw Stop{};
                break;
            }
            if (a->key == "thread_extent") {
                Var v = findVar(a->body, a->ref);
                const int dim = threadDim(a->target);
                std::int64_t value = 0;
                if (threadRank(a->target) == 1 && dim >= 0)
                    value = m_at[static_cast<std::size_t>(dim)];
                if (v.defined()) {
                    Bind bind(m_env, v.get(), value);
                    walk(a->body);
                    break;
                }
            }
            walk(a->body);
            break;
        }
        case StmtKind::BufferStore: {
            auto* st = s.as<BufferStoreNode>();
            if (++m_stores > m_limits.stores) {
                accesses = m_limits.accesses; // the whole check ends here
                throw Stop{};
            }
            reads(st->value, st);
            for (const Expr& i : st->indices)
                reads(i, st);
            if (st->buffer->scope == "shared") {
                const std::optional<std::size_t> value = valueKey(st->value);
                for (std::int64_t el : elements(st->indices.back()))
                    access(st->buffer, el, true, st, value);
            }
            break;
        }
        case StmtKind::Evaluate: reads(s.as<EvaluateNode>()->value, nullptr); break;
        default: break;
        }
    }

    // A variable's value while a scope is walked.
    struct Bind {
        Bind(std::unordered_map<const VarNode*, std::int64_t>& env, const VarNode* v,
             std::int64_t value)
            : m_env(env), m_var(v)
        {
            auto it = env.find(v);
            if (it != env.end()) m_saved = it->second;
            env[v] = value;
        }
        ~Bind()
        {
            if (m_saved) {
                m_env[m_var] = *m_saved;
            } else {
                m_env.erase(m_var);
            }
        }
        Bind(const Bind&) = delete;
        Bind& operator=(const Bind&) = delete;

    private:
        std::unordered_map<const VarNode*, std::int64_t>& m_env;
        const VarNode* m_var;
        std::optional<std::int64_t> m_saved;
    };

    const SharedRaceLimits& m_limits;
    std::array<std::int64_t, 3> m_block;
    std::int64_t m_thread = 0;
    std::int64_t m_stores = 0;
    std::array<std::int64_t, 3> m_at{};
    int m_interval = 0;
    std::unordered_map<const VarNode*, std::int64_t> m_env;
    std::map<std::tuple<const VarNode*, int, std::int64_t>, Cell> m_cells;
};

// The kernels (outermost launches) of a program, and their threads per block (x, y, z); a
// kernel whose thread extents are not constant is left out.
void kernelsOf(const Stmt& s, std::vector<std::pair<Stmt, std::array<std::int64_t, 3>>>* out)
{
    if (!s.defined()) return;
    if (auto* a = s.as<AttrNode>(); a && a->key == "thread_extent") {
        std::array<std::int64_t, 3> block{1, 1, 1};
        bool constant = true;
        anyAttr(s, [&](const AttrNode* b) {
            if (b->key != "thread_extent" || threadRank(b->target) != 1) return false;
            const int dim = threadDim(b->target);
            std::int64_t n = 0;
            if (dim < 0 || !isConstInt(b->value, &n)) {
                constant = false;
            } else {
                block[static_cast<std::size_t>(dim)] = n;
            }
            return false;
        });
        // Only kernels with shared memory can race on it.
        const bool shared = anyStmt(s, [](const StmtNode* x) {
            return x->kind == StmtKind::Allocate &&
                   static_cast<const AllocateNode*>(x)->buffer->scope == "shared";
        });
        if (constant && shared) out->push_back({s, block});
        return;
    }
    switch (s.kind()) {
    case StmtKind::Seq:
        for (const Stmt& c : s.as<SeqNode>()->stmts)
            kernelsOf(c, out);
        break;
    case StmtKind::For: kernelsOf(s.as<ForNode>()->body, out); break;
    case StmtKind::LetStmt: kernelsOf(s.as<LetStmtNode>()->body, out); break;
    case StmtKind::Allocate: kernelsOf(s.as<AllocateNode>()->body, out); break;
    case StmtKind::Attr: kernelsOf(s.as<AttrNode>()->body, out); break;
    case StmtKind::IfThenElse:
        kernelsOf(s.as<IfThenElseNode>()->thenCase, out);
        kernelsOf(s.as<IfThenElseNode>()->elseCase, out);
        break;
    default: break;
    }
}

std::string threadText(const std::array<std::int64_t, 3>& t)
{
    return "(" + std::to_string(t[0]) + ", " + std::to_string(t[1]) + ", " + std::to_string(t[2]) +
           ")";
}

} // namespace

std::optional<SharedRace> findSharedRace(const Stmt& s, const SharedRaceLimits& limits)
{
    std::vector<std::pair<Stmt, std::array<std::int64_t, 3>>> kernels;
    kernelsOf(s, &kernels);
    std::int64_t used = 0;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        SharedRaceLimits left = limits;
        left.accesses = limits.accesses - used;
        if (left.accesses <= 0) break;
        Walker w(left, kernels[k].second);
        w.run(kernels[k].first);
        used += w.accesses;
        if (w.race) {
            if (kernels.size() > 1)
                w.race->kernel =
                    "kernel " + std::to_string(k + 1) + " of " + std::to_string(kernels.size());
            return w.race;
        }
    }
    return std::nullopt;
}

std::string describeSharedRace(const SharedRace& r)
{
    auto what = [](const SharedRaceAccess& a) {
        return std::string(a.write ? "writes" : "reads") + " it" +
               (a.statement.empty() ? std::string() : " (storing into " + a.statement + ")");
    };
    return "race on shared memory" + (r.kernel.empty() ? std::string() : " in " + r.kernel) +
           ": threads " + threadText(r.first.thread) + " and " + threadText(r.second.thread) +
           " of a block access " + r.buffer + "[" + std::to_string(r.element) +
           "] with no barrier between: the first " + what(r.first) + ", the second " +
           what(r.second) + "; on a GPU the result depends on which runs first";
}

} // namespace loopscope
