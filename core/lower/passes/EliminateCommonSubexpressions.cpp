#include "lower/passes/EliminateCommonSubexpressions.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Tensor.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace loopscope {

namespace {

// ---- expression structure, in the order TVM's ExprVisitor walks children ----

std::vector<Expr> children(const Expr& e)
{
    switch (e.kind()) {
    case ExprKind::IntImm:
    case ExprKind::FloatImm:
    case ExprKind::StringImm:
    case ExprKind::Var: return {};
    case ExprKind::Not: return {e.as<NotNode>()->a};
    case ExprKind::Select: {
        auto* s = e.as<SelectNode>();
        return {s->cond, s->t, s->f};
    }
    case ExprKind::Cast: return {e.as<CastNode>()->value};
    case ExprKind::Call: return e.as<CallNode>()->args;
    case ExprKind::TensorLoad: return e.as<TensorLoadNode>()->indices;
    case ExprKind::BufferLoad: return e.as<BufferLoadNode>()->indices;
    case ExprKind::Ramp: return {e.as<RampNode>()->base, e.as<RampNode>()->stride};
    case ExprKind::Broadcast: return {e.as<BroadcastNode>()->value};
    case ExprKind::Let: return {e.as<LetNode>()->value, e.as<LetNode>()->body};
    case ExprKind::Reduce: {
        auto* r = e.as<ReduceNode>();
        if (r->condition.defined()) return {r->source, r->condition};
        return {r->source};
    }
    default: return {e.as<BinaryNode>()->a, e.as<BinaryNode>()->b};
    }
}

// e with its children (in children() order) replaced; e itself when none changed.
Expr withChildren(const Expr& e, const std::vector<Expr>& c)
{
    std::vector<Expr> old = children(e);
    bool changed = false;
    for (std::size_t i = 0; i < c.size(); ++i)
        if (!c[i].same(old[i])) changed = true;
    if (!changed) return e;
    switch (e.kind()) {
    case ExprKind::Not: return makeNot(c[0]);
    case ExprKind::Select: return makeSelect(c[0], c[1], c[2]);
    case ExprKind::Cast: return makeCast(e.type(), c[0]);
    case ExprKind::Call: return makeCall(e.type(), e.as<CallNode>()->op, c);
    case ExprKind::TensorLoad: return makeTensorLoad(e.as<TensorLoadNode>()->tensor, c);
    case ExprKind::BufferLoad:
        return std::make_shared<BufferLoadNode>(e.type(), e.as<BufferLoadNode>()->buffer, c);
    case ExprKind::Ramp: return makeRamp(c[0], c[1], e.as<RampNode>()->lanes);
    case ExprKind::Broadcast: return makeBroadcast(c[0], e.as<BroadcastNode>()->lanes);
    case ExprKind::Let: return makeLet(e.as<LetNode>()->var, c[0], c[1]);
    case ExprKind::Reduce: {
        auto* r = e.as<ReduceNode>();
        return makeReduce(r->op, c[0], r->axes, c.size() > 1 ? c[1] : Expr());
    }
    default: return makeBinary(e.kind(), c[0], c[1]);
    }
}

bool isAtom(const Expr& e)
{
    ExprKind k = e.kind();
    return k == ExprKind::IntImm || k == ExprKind::FloatImm || k == ExprKind::StringImm ||
           k == ExprKind::Var;
}

// Calls and memory reads: commoning them could change what the program does.
bool isForbidden(const Expr& e)
{
    ExprKind k = e.kind();
    return k == ExprKind::Call || k == ExprKind::BufferLoad || k == ExprKind::TensorLoad;
}

bool isEligible(const Expr& e)
{
    if (isAtom(e) || isForbidden(e)) return false;
    if (e.kind() == ExprKind::Ramp || e.kind() == ExprKind::Broadcast) return false;
    bool forbidden = false;
    forEachExpr(e, [&](const Expr& sub) { forbidden = forbidden || isForbidden(sub); });
    return !forbidden;
}

// TVM's legacy text form (AsLegacyRepr), the tie-break between candidates of equal size.
void legacyRepr(const Expr& e, std::ostringstream& out)
{
    auto bin = [&](const BinaryNode* b, const char* op) {
        out << '(';
        legacyRepr(b->a, out);
        out << op;
        legacyRepr(b->b, out);
        out << ')';
    };
    auto call = [&](const char* name, const std::vector<Expr>& args) {
        out << name << '(';
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (i) out << ", ";
            legacyRepr(args[i], out);
        }
        out << ')';
    };
    switch (e.kind()) {
    case ExprKind::IntImm:
        if (e.type() == DataType::int32())
            out << e.as<IntImmNode>()->value;
        else
            out << '(' << e.type().str() << ')' << e.as<IntImmNode>()->value;
        return;
    case ExprKind::FloatImm:
        out << e.as<FloatImmNode>()->value;
        if (e.type().bits == 32) out << 'f';
        if (e.type().bits == 16) out << 'h';
        return;
    case ExprKind::StringImm: out << '"' << e.as<StringImmNode>()->value << '"'; return;
    case ExprKind::Var: out << e.as<VarNode>()->name; return;
    case ExprKind::Add: bin(e.as<BinaryNode>(), " + "); return;
    case ExprKind::Sub: bin(e.as<BinaryNode>(), " - "); return;
    case ExprKind::Mul: bin(e.as<BinaryNode>(), "*"); return;
    case ExprKind::Div: bin(e.as<BinaryNode>(), "/"); return;
    case ExprKind::Mod: bin(e.as<BinaryNode>(), " % "); return;
    case ExprKind::EQ: bin(e.as<BinaryNode>(), " == "); return;
    case ExprKind::NE: bin(e.as<BinaryNode>(), " != "); return;
    case ExprKind::LT: bin(e.as<BinaryNode>(), " < "); return;
    case ExprKind::LE: bin(e.as<BinaryNode>(), " <= "); return;
    case ExprKind::GT: bin(e.as<BinaryNode>(), " > "); return;
    case ExprKind::GE: bin(e.as<BinaryNode>(), " >= "); return;
    case ExprKind::And: bin(e.as<BinaryNode>(), " && "); return;
    case ExprKind::Or: bin(e.as<BinaryNode>(), " || "); return;
    case ExprKind::FloorDiv: call("floordiv", children(e)); return;
    case ExprKind::FloorMod: call("floormod", children(e)); return;
    case ExprKind::Min: call("min", children(e)); return;
    case ExprKind::Max: call("max", children(e)); return;
    case ExprKind::Select: call("select", children(e)); return;
    case ExprKind::Not:
        out << '!';
        legacyRepr(e.as<NotNode>()->a, out);
        return;
    case ExprKind::Cast:
        out << e.type().str() << '(';
        legacyRepr(e.as<CastNode>()->value, out);
        out << ')';
        return;
    case ExprKind::Call:
        call(("tir." + std::string(callOpName(e.as<CallNode>()->op))).c_str(), children(e));
        return;
    case ExprKind::BufferLoad: {
        auto* l = e.as<BufferLoadNode>();
        out << l->buffer->name << '[';
        for (std::size_t i = 0; i < l->indices.size(); ++i) {
            if (i) out << ", ";
            legacyRepr(l->indices[i], out);
        }
        out << ']';
        return;
    }
    case ExprKind::Ramp: {
        auto* r = e.as<RampNode>();
        out << "ramp(";
        legacyRepr(r->base, out);
        out << ", ";
        legacyRepr(r->stride, out);
        out << ", " << r->lanes << ')';
        return;
    }
    case ExprKind::Broadcast:
        out << 'x' << e.as<BroadcastNode>()->lanes << '(';
        legacyRepr(e.as<BroadcastNode>()->value, out);
        out << ')';
        return;
    case ExprKind::Let: {
        auto* l = e.as<LetNode>();
        out << "(let " << l->var.name() << " = ";
        legacyRepr(l->value, out);
        out << " in ";
        legacyRepr(l->body, out);
        out << ')';
        return;
    }
    default: out << '?'; return;
    }
}

std::string legacyRepr(const Expr& e)
{
    std::ostringstream out;
    legacyRepr(e, out);
    return out.str();
}

// ---- tables of computations: expression -> times seen, in first-seen order ----

struct Table {
    std::vector<std::pair<Expr, std::size_t>> items;
    std::unordered_map<Expr, std::size_t, ExprHash, ExprEqual> index;

    void add(const Expr& e, std::size_t n)
    {
        auto [it, fresh] = index.emplace(e, items.size());
        if (fresh)
            items.emplace_back(e, n);
        else
            items[it->second].second += n;
    }
    void addAll(const Table& t)
    {
        for (auto& [e, n] : t.items)
            add(e, n);
    }
    std::size_t count(const Expr& e) const
    {
        auto it = index.find(e);
        return it == index.end() ? 0 : items[it->second].second;
    }
};

// What a node with three parts always computes: the computations found in at least two of the
// parts, counted over all three (TVM's BuildTableForThreeChildrenNode).
Table threeParts(const Table& a, const Table& b, const Table& c)
{
    Table out;
    auto inBoth = [&](const Table& x, const Table& y) {
        for (auto& [e, n] : x.items)
            if (y.count(e)) out.add(e, 0);
    };
    inBoth(b, c);
    inBoth(a, b);
    inBoth(a, c);
    for (auto& item : out.items)
        item.second = a.count(item.first) + b.count(item.first) + c.count(item.first);
    return out;
}

// TVM's ComputationsDoneBy: the maximal eligible subexpressions and how often each is computed.
class Computations {
public:
    const Table& of(const Expr& e)
    {
        if (!e.defined()) return m_empty;
        auto it = m_exprs.find(e.get());
        if (it != m_exprs.end()) return it->second;
        Table t;
        if (!isAtom(e)) {
            if (isEligible(e))
                t.add(e, 1);
            else
                for (auto& c : children(e))
                    t.addAll(of(c));
        }
        m_keepAlive.push_back(e);
        return m_exprs.emplace(e.get(), std::move(t)).first->second;
    }

    const Table& of(const Stmt& s)
    {
        if (!s.defined()) return m_empty;
        auto it = m_stmts.find(s.get());
        if (it != m_stmts.end()) return it->second;
        Table t = compute(s);
        m_keepAliveStmts.push_back(s);
        return m_stmts.emplace(s.get(), std::move(t)).first->second;
    }

private:
    Table compute(const Stmt& s)
    {
        Table t;
        switch (s.kind()) {
        case StmtKind::For: {
            auto* f = s.as<ForNode>();
            return threeParts(of(f->min), of(f->extent), of(f->body));
        }
        case StmtKind::IfThenElse: {
            auto* i = s.as<IfThenElseNode>();
            return threeParts(of(i->cond), of(i->thenCase), of(i->elseCase));
        }
        case StmtKind::BufferStore: {
            auto* st = s.as<BufferStoreNode>();
            t.addAll(of(st->value));
            for (auto& i : st->indices)
                t.addAll(of(i));
            return t;
        }
        case StmtKind::TensorStore: {
            auto* st = s.as<TensorStoreNode>();
            t.addAll(of(st->value));
            for (auto& i : st->indices)
                t.addAll(of(i));
            return t;
        }
        case StmtKind::LetStmt: {
            auto* l = s.as<LetStmtNode>();
            t.addAll(of(l->value));
            t.addAll(of(l->body));
            return t;
        }
        case StmtKind::Attr: {
            auto* a = s.as<AttrNode>();
            t.addAll(of(a->value));
            t.addAll(of(a->body));
            return t;
        }
        case StmtKind::Allocate: {
            auto* a = s.as<AllocateNode>();
            for (auto& e : a->buffer->shape)
                t.addAll(of(e));
            t.addAll(of(a->body));
            return t;
        }
        case StmtKind::Realize: {
            auto* r = s.as<RealizeNode>();
            for (auto& b : r->bounds) {
                t.addAll(of(b.min));
                t.addAll(of(b.extent));
            }
            t.addAll(of(r->body));
            return t;
        }
        case StmtKind::Seq:
            for (auto& c : s.as<SeqNode>()->stmts)
                t.addAll(of(c));
            return t;
        case StmtKind::Evaluate: return of(s.as<EvaluateNode>()->value);
        case StmtKind::Block: break; // lowered before this pass runs
        }
        return t;
    }

    Table m_empty;
    std::unordered_map<const ExprNode*, Table> m_exprs;
    std::unordered_map<const StmtNode*, Table> m_stmts;
    // Keeps the nodes alive so that their addresses stay unique keys.
    std::vector<Expr> m_keepAlive;
    std::vector<Stmt> m_keepAliveStmts;
};

// The nearest eligible subexpressions of e (through ineligible nodes), in visiting order.
void directSubexprs(const Expr& e, std::vector<Expr>* out)
{
    for (auto& c : children(e)) {
        if (isEligible(c))
            out->push_back(c);
        else
            directSubexprs(c, out);
    }
}

// Replaces several targets in one pass: each target (looked up by hash) becomes its variable, not
// looked inside once replaced. Replacing them one after another, largest first, gives the same
// result (a target cannot contain a larger one), in one walk instead of one per target.
class MultiReplacer : public IRMutator {
public:
    void add(const Expr& target, const Var& var) { m_targets.emplace(target, var); }
    bool empty() const { return m_targets.empty(); }
    // e with every target inside it replaced, but not e itself.
    Expr inside(const Expr& e)
    {
        std::vector<Expr> c = children(e);
        bool changed = false;
        for (auto& x : c) {
            Expr y = mutate(x);
            if (!y.same(x)) changed = true, x = y;
        }
        return changed ? withChildren(e, c) : e;
    }

protected:
    Expr visitBinary(const BinaryNode* op, const Expr& self) override
    {
        return hit(self) ? Expr(*m_hit) : IRMutator::visitBinary(op, self);
    }
    Expr visitNot(const NotNode* op, const Expr& self) override
    {
        return hit(self) ? Expr(*m_hit) : IRMutator::visitNot(op, self);
    }
    Expr visitSelect(const SelectNode* op, const Expr& self) override
    {
        return hit(self) ? Expr(*m_hit) : IRMutator::visitSelect(op, self);
    }
    Expr visitCast(const CastNode* op, const Expr& self) override
    {
        return hit(self) ? Expr(*m_hit) : IRMutator::visitCast(op, self);
    }
    Expr visitLet(const LetNode* op, const Expr& self) override
    {
        return hit(self) ? Expr(*m_hit) : IRMutator::visitLet(op, self);
    }
    Expr visitBufferLoad(const BufferLoadNode* op, const Expr& self) override
    {
        bool changed = false;
        std::vector<Expr> idx = IRMutator::mutate(op->indices, &changed);
        if (!changed) return self;
        return std::make_shared<BufferLoadNode>(self.type(), op->buffer, std::move(idx));
    }

private:
    bool hit(const Expr& e)
    {
        auto it = m_targets.find(e);
        if (it == m_targets.end()) return false;
        m_hit = &it->second;
        return true;
    }

    std::unordered_map<Expr, Var, ExprHash, ExprEqual> m_targets;
    const Var* m_hit = nullptr;
};

class CommonSubexprEliminator {
public:
    explicit CommonSubexprEliminator(const Stmt& body)
    {
        // Names of variables the input uses, which cse_var names must not repeat.
        struct Names : IRVisitor {
            std::unordered_set<std::string>* out;
            void visitLeaf(const Expr& e) override
            {
                if (auto* v = e.as<VarNode>()) out->insert(v->name);
            }
        } names;
        names.out = &m_usedNames;
        names.visit(body);
    }

    Stmt visitStmt(const Stmt& s)
    {
        if (!s.defined()) return s;
        WorkList todo(sorted(m_tables.of(s)));
        // Which computations become variables (and which are bound already) does not depend on
        // the replacements made: decided first, then every replacement is made in one walk.
        MultiReplacer replace;
        std::vector<std::pair<Var, Expr>> lets; // in the order made: the last one outermost
        for (std::size_t i = 0; i < todo.size(); ++i) {
            auto [e, n] = todo[i];
            if (const Var* v = boundTo(e)) {
                replace.add(e, *v);
            } else if (n >= 2 && allDefined(e)) {
                Var v = freshVar(e.type());
                replace.add(e, v);
                lets.emplace_back(v, e);
            } else {
                todo.addSubexprs(e);
            }
        }
        if (replace.empty()) return visitChildren(s);
        Stmt result = replace.mutate(s);
        for (auto& [v, e] : lets)
            result = makeLetStmt(v, replace.inside(e), result);
        // New variables may make more commoning possible (their values join the table).
        if (!lets.empty()) return visitStmt(result);
        return visitChildren(result);
    }

    Expr visitExpr(const Expr& e)
    {
        if (!e.defined()) return e;
        WorkList todo(sorted(m_tables.of(e)));
        MultiReplacer replace; // as in visitStmt
        std::vector<std::pair<Var, Expr>> lets;
        for (std::size_t i = 0; i < todo.size(); ++i) {
            auto [c, n] = todo[i];
            if (const Var* v = boundTo(c)) {
                replace.add(c, *v);
            } else if (n >= 2 && allDefined(c)) {
                Var v = freshVar(c.type());
                replace.add(c, v);
                lets.emplace_back(v, c);
            } else {
                todo.addSubexprs(c);
            }
        }
        Expr result = replace.empty() ? e : replace.mutate(e);
        for (auto& [v, c] : lets)
            result = makeLet(v, replace.inside(c), result);
        // Unlike statements, TVM does not re-run on expressions that got new variables.
        return visitChildren(result);
    }

private:
    static std::vector<std::pair<Expr, std::size_t>> sorted(const Table& t)
    {
        struct Keyed {
            std::pair<Expr, std::size_t> item;
            int size;
            std::string repr;
        };
        std::vector<Keyed> keyed;
        for (auto& item : t.items)
            keyed.push_back({item, exprSize(item.first), legacyRepr(item.first)});
        std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
            if (a.size != b.size) return a.size > b.size;
            return a.repr < b.repr;
        });
        std::vector<std::pair<Expr, std::size_t>> out;
        for (auto& k : keyed)
            out.push_back(k.item);
        return out;
    }

    // The computations still to look at, largest first, with how often each is computed. Its
    // subexpressions join an entry that is not commoned: one more sighting for those already
    // there (anywhere), else a new entry after every entry at least as large. Found by hash and
    // placed by binary search, so that the thousands of distinct indices of an unrolled loop
    // take n log n, not n^2, comparisons.
    class WorkList {
    public:
        explicit WorkList(const std::vector<std::pair<Expr, std::size_t>>& sortedBySize)
        {
            for (auto& [e, n] : sortedBySize) {
                m_items.push_back(e);
                m_sizes.push_back(exprSize(e));
                m_counts.emplace(e, n);
            }
        }
        std::size_t size() const { return m_items.size(); }
        std::pair<Expr, std::size_t> operator[](std::size_t i) const
        {
            return {m_items[i], m_counts.at(m_items[i])};
        }
        void addSubexprs(const Expr& e)
        {
            std::vector<Expr> subs;
            directSubexprs(e, &subs);
            for (auto& sub : subs) {
                if (auto it = m_counts.find(sub); it != m_counts.end()) {
                    ++it->second;
                    continue;
                }
                const int size = exprSize(sub);
                auto at = std::partition_point(m_sizes.begin(), m_sizes.end(),
                                               [&](int s) { return s >= size; });
                const auto k = at - m_sizes.begin();
                m_sizes.insert(at, size);
                m_items.insert(m_items.begin() + k, sub);
                m_counts.emplace(sub, 1);
            }
        }

    private:
        std::vector<Expr> m_items; // sizes never increase along the list
        std::vector<int> m_sizes;
        std::unordered_map<Expr, std::size_t, ExprHash, ExprEqual> m_counts;
    };

    // The variable of the outermost enclosing let whose value is e.
    const Var* boundTo(const Expr& e) const
    {
        auto it = m_letValues.find(e);
        if (it == m_letValues.end() || it->second.empty()) return nullptr;
        return &m_context[it->second.front()].first;
    }

    // Enters the scope of a loop variable (no value) or a let; leave() leaves the innermost.
    // The context is also indexed by variable and by let value: a chain of thousands of lets
    // (an unrolled loop's indices) would otherwise be searched for every computation.
    void enter(const Var& v, const Expr& value)
    {
        if (value.defined()) m_letValues[value].push_back(m_context.size());
        ++m_defined[v.get()];
        m_context.emplace_back(v, value);
    }
    void leave()
    {
        auto& [v, value] = m_context.back();
        if (value.defined()) {
            auto it = m_letValues.find(value);
            it->second.pop_back();
            if (it->second.empty()) m_letValues.erase(it);
        }
        if (--m_defined[v.get()] == 0) m_defined.erase(v.get());
        m_context.pop_back();
    }

    bool allDefined(const Expr& e) const
    {
        VarSet used, defined;
        forEachExpr(e, [&](const Expr& sub) {
            if (auto* v = sub.as<VarNode>()) used.insert(v);
            if (auto* l = sub.as<LetNode>()) defined.insert(l->var.get());
        });
        for (auto* v : used) {
            if (defined.count(v)) continue;
            if (!m_defined.count(v)) return false;
        }
        return true;
    }

    Var freshVar(DataType t)
    {
        std::string name;
        do {
            name = "cse_var_" + std::to_string(++m_lastTry);
        } while (m_usedNames.count(name));
        return Var(name, t);
    }

    // TVM's StmtExprMutator dispatch: children visited with the context of their scope.
    Stmt visitChildren(const Stmt& s)
    {
        switch (s.kind()) {
        case StmtKind::For: {
            auto* f = s.as<ForNode>();
            Expr mn = visitExpr(f->min), ext = visitExpr(f->extent);
            enter(f->var, Expr());
            Stmt body = visitStmt(f->body);
            leave();
            if (mn.same(f->min) && ext.same(f->extent) && body.same(f->body)) return s;
            return remakeFor(f, mn, ext, body);
        }
        case StmtKind::LetStmt: {
            auto* l = s.as<LetStmtNode>();
            Expr value = visitExpr(l->value);
            enter(l->var, l->value);
            Stmt body = visitStmt(l->body);
            leave();
            if (value.same(l->value) && body.same(l->body)) return s;
            return makeLetStmt(l->var, value, body);
        }
        case StmtKind::BufferStore: {
            auto* st = s.as<BufferStoreNode>();
            Expr value = visitExpr(st->value);
            bool changed = !value.same(st->value);
            std::vector<Expr> idx;
            for (auto& i : st->indices) {
                idx.push_back(visitExpr(i));
                if (!idx.back().same(i)) changed = true;
            }
            return changed ? makeBufferStore(st->buffer, std::move(idx), value) : s;
        }
        case StmtKind::TensorStore: {
            auto* st = s.as<TensorStoreNode>();
            Expr value = visitExpr(st->value);
            bool changed = !value.same(st->value);
            std::vector<Expr> idx;
            for (auto& i : st->indices) {
                idx.push_back(visitExpr(i));
                if (!idx.back().same(i)) changed = true;
            }
            return changed ? makeTensorStore(st->tensor, std::move(idx), value) : s;
        }
        case StmtKind::IfThenElse: {
            auto* i = s.as<IfThenElseNode>();
            Expr c = visitExpr(i->cond);
            Stmt t = visitStmt(i->thenCase), e = visitStmt(i->elseCase);
            if (c.same(i->cond) && t.same(i->thenCase) && e.same(i->elseCase)) return s;
            return makeIfThenElse(c, t, e);
        }
        case StmtKind::Seq: {
            auto* q = s.as<SeqNode>();
            bool changed = false;
            std::vector<Stmt> out;
            for (auto& c : q->stmts) {
                out.push_back(visitStmt(c));
                if (!out.back().same(c)) changed = true;
            }
            return changed ? makeSeq(std::move(out)) : s;
        }
        case StmtKind::Attr: {
            auto* a = s.as<AttrNode>();
            Expr v = visitExpr(a->value);
            Stmt b = visitStmt(a->body);
            if (v.same(a->value) && b.same(a->body)) return s;
            return makeAttr(a->key, a->target, v, b, a->ref);
        }
        case StmtKind::Allocate: {
            auto* a = s.as<AllocateNode>();
            Stmt b = visitStmt(a->body);
            return b.same(a->body) ? s : makeAllocate(a->buffer, b);
        }
        case StmtKind::Realize: {
            auto* r = s.as<RealizeNode>();
            Stmt b = visitStmt(r->body);
            return b.same(r->body) ? s : makeRealize(r->tensor, r->bounds, r->scope, b);
        }
        case StmtKind::Evaluate: {
            auto* ev = s.as<EvaluateNode>();
            Expr v = visitExpr(ev->value);
            return v.same(ev->value) ? s : makeEvaluate(v);
        }
        case StmtKind::Block: break; // lowered before this pass runs
        }
        return s;
    }

    Expr visitChildren(const Expr& e)
    {
        if (auto* l = e.as<LetNode>()) {
            Expr value = visitExpr(l->value);
            enter(l->var, l->value);
            Expr body = visitExpr(l->body);
            leave();
            if (value.same(l->value) && body.same(l->body)) return e;
            return makeLet(l->var, value, body);
        }
        std::vector<Expr> c = children(e);
        for (auto& x : c)
            x = visitExpr(x);
        return withChildren(e, c);
    }

    Computations m_tables;
    std::vector<std::pair<Var, Expr>> m_context; // defined variables, with let values
    std::unordered_map<Expr, std::vector<std::size_t>, ExprHash, ExprEqual> m_letValues;
    std::unordered_map<const VarNode*, int> m_defined;
    std::unordered_set<std::string> m_usedNames;
    int m_lastTry = 0;
};

} // namespace

Stmt eliminateCommonSubexpressions(const Stmt& s)
{
    CommonSubexprEliminator cse(s);
    return cse.visitStmt(s);
}

} // namespace loopscope
