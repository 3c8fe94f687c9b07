#include "lower/Tails.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

namespace loopscope {

namespace {

bool hasLikely(const Expr& e)
{
    bool found = false;
    forEachExpr(e, [&](const Expr& x) {
        if (auto* c = x.as<CallNode>(); c && c->op == CallOp::Likely) found = true;
    });
    return found;
}

std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// Integer evaluation of a guard at one point; false when the expression holds something else.
class Evaluator {
public:
    // The loops' values: a few, found by a linear scan (faster than hashing for so few).
    std::vector<std::pair<const VarNode*, std::int64_t>> values;

    std::int64_t& at(const VarNode* v)
    {
        for (auto& [var, value] : values)
            if (var == v) return value;
        values.emplace_back(v, 0);
        return values.back().second;
    }

    bool eval(const Expr& e, std::int64_t* out) const
    {
        switch (e.kind()) {
        case ExprKind::IntImm: *out = e.as<IntImmNode>()->value; return true;
        case ExprKind::Var: {
            const VarNode* v = e.as<VarNode>();
            for (const auto& [var, value] : values)
                if (var == v) {
                    *out = value;
                    return true;
                }
            return false;
        }
        case ExprKind::Not: {
            std::int64_t a = 0;
            if (!eval(e.as<NotNode>()->a, &a)) return false;
            *out = !a;
            return true;
        }
        case ExprKind::Cast: {
            if (!e.type().isInt() && !e.type().isUInt() && !e.type().isBool()) return false;
            return eval(e.as<CastNode>()->value, out);
        }
        case ExprKind::Select: {
            auto* s = e.as<SelectNode>();
            std::int64_t c = 0;
            if (!eval(s->cond, &c)) return false;
            return eval(c ? s->t : s->f, out);
        }
        case ExprKind::Call: {
            auto* c = e.as<CallNode>();
            if (c->op != CallOp::Likely || c->args.size() != 1) return false;
            return eval(c->args[0], out);
        }
        default: break;
        }
        auto* b = e.as<BinaryNode>();
        if (!b) return false;
        std::int64_t x = 0, y = 0;
        if (!eval(b->a, &x)) return false;
        // And/Or short-circuit as the generated code does.
        if (e.kind() == ExprKind::And && !x) return *out = 0, true;
        if (e.kind() == ExprKind::Or && x) return *out = 1, true;
        if (!eval(b->b, &y)) return false;
        switch (e.kind()) {
        case ExprKind::Add: *out = x + y; return true;
        case ExprKind::Sub: *out = x - y; return true;
        case ExprKind::Mul: *out = x * y; return true;
        case ExprKind::Div:
            if (y == 0) return false;
            *out = x / y;
            return true;
        case ExprKind::Mod:
            if (y == 0) return false;
            *out = x % y;
            return true;
        case ExprKind::FloorDiv:
            if (y == 0) return false;
            *out = floorDiv(x, y);
            return true;
        case ExprKind::FloorMod:
            if (y == 0) return false;
            *out = x - floorDiv(x, y) * y;
            return true;
        case ExprKind::Min: *out = std::min(x, y); return true;
        case ExprKind::Max: *out = std::max(x, y); return true;
        case ExprKind::EQ: *out = x == y; return true;
        case ExprKind::NE: *out = x != y; return true;
        case ExprKind::LT: *out = x < y; return true;
        case ExprKind::LE: *out = x <= y; return true;
        case ExprKind::GT: *out = x > y; return true;
        case ExprKind::GE: *out = x >= y; return true;
        case ExprKind::And: *out = y != 0; return true;
        case ExprKind::Or: *out = y != 0; return true;
        default: return false;
        }
    }
};

struct Loop {
    const ForNode* node;
    std::int64_t min = 0, extent = 0;
    bool constant = false;
};

struct Guard {
    const IfThenElseNode* node;
    Expr cond; // lets substituted
};

// A store, the loops around it and the guards around it.
struct GuardedStore {
    std::vector<Loop> loops;
    std::vector<Guard> guards;
};

// A TensorIR block's T.where, lowered to a plain `if` (TVM marks no guard likely there): a
// comparison of loops with a bound, or several joined by `and`; an equality (a reduction's first
// iteration, the first thread storing a shared sum) is not a tile's guard.
bool isBoundGuard(const Expr& e)
{
    switch (e.kind()) {
    case ExprKind::LT:
    case ExprKind::LE:
    case ExprKind::GT:
    case ExprKind::GE: return true;
    case ExprKind::And: {
        auto* b = e.as<BinaryNode>();
        return isBoundGuard(b->a) && isBoundGuard(b->b);
    }
    default: return false;
    }
}

class Collector : public IRVisitor {
public:
    std::vector<GuardedStore> stores;
    bool tensorIR = false; // a TensorIR function's: its blocks' plain `if` guards count

protected:
    void visitFor(const ForNode* op) override
    {
        Loop l{op};
        l.constant = isConstInt(op->min, &l.min) && isConstInt(op->extent, &l.extent);
        m_loops.push_back(l);
        visit(op->body);
        m_loops.pop_back();
    }
    void visitLetStmt(const LetStmtNode* op) override
    {
        m_lets[op->var.get()] = m_lets.empty() ? op->value : substitute(op->value, m_lets);
        visit(op->body);
        m_lets.erase(op->var.get());
    }
    void visitIfThenElse(const IfThenElseNode* op) override
    {
        const bool guard = hasLikely(op->cond) || (tensorIR && isBoundGuard(op->cond));
        if (guard)
            m_guards.push_back({op, m_lets.empty() ? op->cond : substitute(op->cond, m_lets)});
        visit(op->thenCase);
        if (guard) m_guards.pop_back();
        if (op->elseCase.defined()) visit(op->elseCase);
    }
    void visitBufferStore(const BufferStoreNode*) override
    {
        stores.push_back({m_loops, m_guards});
    }
    void visitTensorStore(const TensorStoreNode*) override
    {
        stores.push_back({m_loops, m_guards});
    }

private:
    std::vector<Loop> m_loops;
    std::vector<Guard> m_guards;
    VarMap m_lets;
};

struct Counted {
    bool ok = false;
    std::int64_t iterations = 0, inTail = 0, off = 0;
    std::vector<const Loop*> loops; // outermost first
};

// Counts the guards of one group (they read the loops `loops`, outermost first) at every value
// of those loops.
Counted countGroup(const std::vector<const Guard*>& guards, std::vector<const Loop*> loops,
                   std::int64_t maxEnumerated)
{
    Counted c;
    c.loops = loops;
    std::int64_t total = 1;
    for (const Loop* l : loops) {
        if (!l->constant || l->extent <= 0) return c;
        total *= l->extent;
        if (total > maxEnumerated) return c;
    }
    Evaluator ev;
    const Loop* inner = loops.back();
    std::vector<std::int64_t> at(loops.size() - 1, 0);
    const std::int64_t outerCount = total / inner->extent;
    for (std::int64_t o = 0; o < outerCount; ++o) {
        for (std::size_t i = 0; i < at.size(); ++i)
            ev.at(loops[i]->node->var.get()) = loops[i]->min + at[i];
        std::int64_t pass = 0;
        std::int64_t& innerValue = ev.at(inner->node->var.get());
        for (std::int64_t v = 0; v < inner->extent; ++v) {
            innerValue = inner->min + v;
            bool all = true;
            for (const Guard* g : guards) {
                std::int64_t r = 0;
                if (!ev.eval(g->cond, &r)) return c;
                if (!r) {
                    all = false;
                    break;
                }
            }
            pass += all ? 1 : 0;
        }
        if (pass < inner->extent) {
            c.inTail += inner->extent;
            c.off += inner->extent - pass;
        }
        for (std::size_t i = at.size(); i-- > 0;) {
            if (++at[i] < loops[i]->extent) break;
            at[i] = 0;
        }
    }
    c.iterations = total;
    c.ok = true;
    return c;
}

} // namespace

TailReport guardedTails(const LoweredFunc& lowered, std::int64_t maxEnumerated)
{
    return guardedTails(lowered, printTVMScriptWithLines(lowered.func), maxEnumerated);
}

TailReport guardedTails(const LoweredFunc& lowered, const PrintedFunction& tvm,
                        std::int64_t maxEnumerated)
{
    Collector col;
    col.tensorIR = lowered.func.fromTensorIR;
    col.visit(lowered.func.body);

    std::unordered_map<const StmtNode*, int> lineOf;
    std::unordered_map<const VarNode*, int> loopLine;
    for (std::size_t i = 0; i < tvm.lineStatements.size(); ++i)
        for (const StmtNode* s : tvm.lineStatements[i]) {
            lineOf.emplace(s, static_cast<int>(i + 1));
            if (s->kind == StmtKind::For)
                loopLine.emplace(static_cast<const ForNode*>(s)->var.get(),
                                 static_cast<int>(i + 1));
        }

    TailReport report;
    // A group's guards, by their nodes: counted once, listed once.
    std::map<std::vector<const IfThenElseNode*>, Counted> counted;
    std::vector<std::vector<const IfThenElseNode*>> order;
    double storeIterations = 0, tailIterations = 0, offIterations = 0;
    std::set<const IfThenElseNode*> uncounted;

    for (const GuardedStore& s : col.stores) {
        double runs = 1;
        for (const Loop& l : s.loops)
            runs *= l.constant ? static_cast<double>(l.extent) : 1.0;
        storeIterations += runs;
        if (s.guards.empty()) continue;
        // The loops each guard reads, as positions in the store's loop list.
        std::vector<std::set<std::size_t>> reads(s.guards.size());
        for (std::size_t g = 0; g < s.guards.size(); ++g) {
            VarSet vars;
            collectVars(s.guards[g].cond, &vars);
            for (std::size_t l = 0; l < s.loops.size(); ++l)
                if (vars.count(s.loops[l].node->var.get())) reads[g].insert(l);
        }
        // Guards reading a common loop are one group (union-find over the guards).
        std::vector<std::size_t> parent(s.guards.size());
        std::iota(parent.begin(), parent.end(), 0);
        auto find = [&](std::size_t x) {
            while (parent[x] != x)
                x = parent[x] = parent[parent[x]];
            return x;
        };
        for (std::size_t a = 0; a < s.guards.size(); ++a)
            for (std::size_t b = a + 1; b < s.guards.size(); ++b)
                for (std::size_t l : reads[a])
                    if (reads[b].count(l)) parent[find(a)] = find(b);
        std::map<std::size_t, std::vector<std::size_t>> groups;
        for (std::size_t g = 0; g < s.guards.size(); ++g)
            groups[find(g)].push_back(g);

        double keep = 1, pass = 1; // shares outside every tail, passing every guard
        for (auto& [root, members] : groups) {
            std::vector<const IfThenElseNode*> key;
            std::vector<const Guard*> guards;
            std::set<std::size_t> loops;
            for (std::size_t g : members) {
                key.push_back(s.guards[g].node);
                guards.push_back(&s.guards[g]);
                loops.insert(reads[g].begin(), reads[g].end());
            }
            if (loops.empty()) continue; // a condition on no loop: not a tail
            auto it = counted.find(key);
            if (it == counted.end()) {
                std::vector<const Loop*> ls;
                for (std::size_t l : loops)
                    ls.push_back(&s.loops[l]);
                it = counted.emplace(key, countGroup(guards, ls, maxEnumerated)).first;
                order.push_back(key);
            }
            const Counted& c = it->second;
            if (!c.ok) {
                uncounted.insert(key.begin(), key.end());
                continue;
            }
            keep *= 1.0 - double(c.inTail) / double(c.iterations);
            pass *= 1.0 - double(c.off) / double(c.iterations);
        }
        tailIterations += runs * (1.0 - keep);
        offIterations += runs * (1.0 - pass);
    }

    for (const auto& key : order) {
        const Counted& c = counted.at(key);
        if (!c.ok || c.inTail == 0) continue;
        GuardedTail t;
        for (const Loop* l : c.loops)
            t.loops.push_back(scriptName(l->node->var.name()));
        t.loop = t.loops.back();
        auto ll = loopLine.find(c.loops.back()->node->var.get());
        t.loopLine = ll == loopLine.end() ? 0 : ll->second;
        for (const IfThenElseNode* g : key) {
            auto gl = lineOf.find(g);
            if (gl != lineOf.end()) t.lines.push_back(gl->second);
        }
        std::sort(t.lines.begin(), t.lines.end());
        t.iterations = c.iterations;
        t.inTail = c.inTail;
        t.guardedOff = c.off;
        report.tails.push_back(std::move(t));
    }
    report.uncounted = static_cast<int>(uncounted.size());
    report.storeIterations = static_cast<std::int64_t>(storeIterations);
    if (storeIterations > 0) {
        report.tailShare = tailIterations / storeIterations;
        report.offShare = offIterations / storeIterations;
    }
    return report;
}

std::string describeTail(const GuardedTail& t)
{
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%s: %lld of %lld iterations (%.1f %%) run in a partial tile, %lld (%.1f %%) "
                  "guarded off",
                  t.loop.c_str(), static_cast<long long>(t.inTail),
                  static_cast<long long>(t.iterations), 100 * t.tailShare(),
                  static_cast<long long>(t.guardedOff), 100 * t.offShare());
    return buf;
}

} // namespace loopscope
