// TVMScript in a script: `@T.prim_func` functions and `@I.ir_module` classes of them, in both
// spellings (T.block / T.alloc_buffer of v0.20-v0.23, T.sblock / T.sblock_alloc_buffer of
// v0.24-v0.26). Each function is read into the TensorIR function tir.Schedule works on, with the
// names the script gives its loops and block variables, and each block into the TE computation
// it declares, so the outputs, the reference and the checks are those of te.create_prim_func.
// A block that is not such a computation (a predicate, a partial domain, two stores) is refused
// at its line with what differs.
#include "te/EvaluatorInternal.h"

#include "ir/Analyzer.h"
#include "ir/IRUtil.h"
#include "schedule/TensorIR.h"

#include <algorithm>

namespace loopscope::te_detail {

namespace {

// The dotted name of an attribute chain ("T.axis.remap"), or "" for anything else.
std::string dotted(const ast::Expr& e)
{
    if (e.kind == ExprKind::Name) return e.name;
    if (e.kind != ExprKind::Attribute) return "";
    const std::string base = dotted(*e.value);
    return base.empty() ? "" : base + "." + e.name;
}

// The dotted name a call calls ("T.grid"), or "" when `e` is not a call.
std::string callee(const ast::Expr& e)
{
    return e.kind == ExprKind::Call ? dotted(*e.value) : "";
}

const ast::Keyword* keywordOf(const ast::Expr& call, const std::string& name)
{
    for (const ast::Keyword& k : call.keywords)
        if (k.name == name) return &k;
    return nullptr;
}

bool isPrimFuncDecorator(const ast::Expr& d, bool* sTir)
{
    const std::string name = d.kind == ExprKind::Call ? callee(d) : dotted(d);
    if (name != "T.prim_func" && name != "tvm.script.tir.prim_func") return false;
    if (d.kind == ExprKind::Call)
        if (const ast::Keyword* k = keywordOf(d, "s_tir"))
            *sTir = k->value->kind == ExprKind::Bool && k->value->boolValue;
    return true;
}

bool isModuleDecorator(const ast::Expr& d)
{
    const std::string name = d.kind == ExprKind::Call ? callee(d) : dotted(d);
    return name == "I.ir_module" || name == "tvm.script.ir_module" ||
           name == "tvm.script.ir.ir_module";
}

// What a block being read has gathered from its header statements.
struct BlockParts {
    BlockNode node;
    bool readsGiven = false, writesGiven = false;
    SourceLoc loc;
};

// The spelling a function's text uses: v0.20's T.block, v0.26's T.sblock, or neither yet.
enum class Seen { None, Tvm020, Tvm026 };

} // namespace

// Reads one @T.prim_func into a TensorIR function over provisional tensors (every buffer a
// placeholder), then makes each written buffer the TE computation its block declares.
class TvmScriptReader {
public:
    explicit TvmScriptReader(Evaluator& ev) : m_ev(ev), m_savedEnv(ev.m_env), m_savedStmt(ev.m_stmt)
    {
    }
    ~TvmScriptReader()
    {
        m_ev.m_env = m_savedEnv;
        m_ev.m_stmt = m_savedStmt;
    }
    TvmScriptReader(const TvmScriptReader&) = delete;
    TvmScriptReader& operator=(const TvmScriptReader&) = delete;

    Evaluator::ScriptFunc read(const ast::Stmt& def)
    {
        bool sTir = false;
        bool decorated = false;
        for (const ast::ExprPtr& d : def.decorators)
            decorated |= isPrimFuncDecorator(*d, &sTir);
        if (!decorated)
            throw UserError(def.loc, "a 'def' is read only as a TVMScript function "
                                     "(@T.prim_func); write a computation as a lambda "
                                     "inside te.compute");
        if (sTir) note(Seen::Tvm026, def.loc);
        m_ev.m_env["T"] = Value::named(VKind::Module, "T");
        m_func.name = def.name;
        for (const ast::Param& p : def.params)
            m_func.params.push_back(readParam(p));
        std::vector<Stmt> body;
        readStatements(def.body, nullptr, &body, true);
        m_func.body = makeSeq(std::move(body));
        if (!m_func.body.defined() || m_blocks.empty())
            throw UserError(def.nameLoc, "the function '" + def.name +
                                             "' has no block: "
                                             "Loopscope schedules "
                                             "blocks (T.block)");
        declareComputations();
        Evaluator::ScriptFunc out;
        out.func = m_func;
        out.loc = def.loc;
        out.spelling = m_seen == Seen::Tvm026 ? 2 : m_seen == Seen::Tvm020 ? 1 : 0;
        out.spellingLoc = m_seenLoc;
        return out;
    }

private:
    [[noreturn]] static void refuse(SourceLoc loc, const std::string& message)
    {
        throw UserError(loc, message);
    }

    void note(Seen s, SourceLoc loc)
    {
        if (m_seen != Seen::None && m_seen != s)
            refuse(loc, std::string("this mixes TVM's two spellings: ") +
                            (s == Seen::Tvm026 ? "T.sblock, T.sblock_alloc_buffer and s_tir=True"
                                               : "T.block and T.alloc_buffer") +
                            " here, the other one at " + std::to_string(m_seenLoc.line) + ":" +
                            std::to_string(m_seenLoc.col));
        if (m_seen == Seen::None) m_seenLoc = loc;
        m_seen = s;
    }

    Value eval(const ast::Expr& e) { return m_ev.eval(e); }

    std::int64_t intOf(const ast::Expr& e, const std::string& what)
    {
        Value v = eval(e);
        if (v.kind != VKind::Int) refuse(e.loc, what + " must be an integer, not " + typeName(v));
        return v.i;
    }

    Expr exprOf(const ast::Expr& e) { return m_ev.toExpr(eval(e), e.loc); }

    std::vector<Expr> shapeOf(const ast::Expr& e, const std::string& what)
    {
        std::vector<Expr> shape;
        if (e.kind == ExprKind::Tuple || e.kind == ExprKind::List) {
            for (const ast::ExprPtr& d : e.items)
                shape.push_back(makeInt(intOf(*d, what)));
        } else {
            shape.push_back(makeInt(intOf(e, what)));
        }
        for (const Expr& d : shape)
            if (std::int64_t n = 0; !isConstInt(d, &n) || n <= 0)
                refuse(e.loc, what + " must be positive");
        return shape;
    }

    DataType dtypeOf(const ast::Expr& e) { return m_ev.dtypeArg({eval(e), e.loc}); }

    // `A: T.Buffer((128, 128), "float32")`
    Tensor readParam(const ast::Param& p)
    {
        const ast::Expr* a = p.annotation.get();
        if (!a || callee(*a) != "T.Buffer")
            refuse(p.loc, "the parameter '" + p.name + "' needs its buffer in the signature: " +
                              p.name + ": T.Buffer((128, 128), \"float32\")");
        if (p.defaultValue) refuse(p.defaultValue->loc, "a buffer has no default value");
        if (a->items.empty()) refuse(a->opLoc, "T.Buffer needs a shape: T.Buffer((128, 128))");
        DataType t = DataType::float32();
        if (a->items.size() > 1) t = dtypeOf(*a->items[1]);
        if (const ast::Keyword* k = keywordOf(*a, "dtype")) t = dtypeOf(*k->value);
        for (const ast::Keyword& k : a->keywords)
            if (k.name != "dtype")
                refuse(k.loc, "T.Buffer's '" + k.name + "' is not supported (shape and dtype are)");
        Tensor tensor =
            makePlaceholder(p.name, shapeOf(*a->items[0], "a buffer's shape"), t, p.loc);
        m_ev.m_env[p.name] = Value::ofTensor(VKind::Tensor, tensor);
        return tensor;
    }

    // `Y = T.alloc_buffer((128, 128), dtype="float32", scope="shared")`
    BlockAlloc readAlloc(const ast::Stmt& st, const ast::Expr& call)
    {
        if (st.targets.size() != 1 || st.targets[0]->kind != ExprKind::Name)
            refuse(st.loc, "an allocated buffer is bound to one name: Y = T.alloc_buffer(...)");
        const std::string& name = st.targets[0]->name;
        if (call.items.empty()) refuse(call.opLoc, "T.alloc_buffer needs a shape");
        DataType t = DataType::float32();
        std::string scope;
        if (call.items.size() > 1) t = dtypeOf(*call.items[1]);
        if (call.items.size() > 2) refuse(call.items[2]->loc, "give the scope by name: scope=...");
        for (const ast::Keyword& k : call.keywords) {
            if (k.name == "dtype")
                t = dtypeOf(*k.value);
            else if (k.name == "scope")
                scope = m_ev.stringArg({eval(*k.value), k.value->loc}, "scope");
            else
                refuse(k.loc, "T.alloc_buffer's '" + k.name +
                                  "' is not supported (shape, dtype and scope are)");
        }
        if (scope == "global") scope.clear();
        Tensor tensor =
            makePlaceholder(name, shapeOf(*call.items[0], "a buffer's shape"), t, st.loc);
        m_ev.m_env[name] = Value::ofTensor(VKind::Tensor, tensor);
        m_allocated.push_back(tensor);
        return {tensor, scope};
    }

    // A block's statements (block != null) or the function's (top): header statements of the
    // block go into `block`, the rest into `out`.
    void readStatements(const std::vector<ast::Stmt>& stmts, BlockParts* block,
                        std::vector<Stmt>* out, bool top)
    {
        for (const ast::Stmt& st : stmts) {
            m_ev.m_stmt = &st;
            readStatement(st, block, out, top);
        }
    }

    void readStatement(const ast::Stmt& st, BlockParts* block, std::vector<Stmt>* out, bool top)
    {
        switch (st.kind) {
        case ast::StmtKind::Pass: return;
        case ast::StmtKind::Return:
            if (st.value) refuse(st.value->loc, "a TVMScript function returns nothing");
            return;
        case ast::StmtKind::Expr: return readCallStatement(st, block, top);
        case ast::StmtKind::Assign: return readAssign(st, block, out, top);
        case ast::StmtKind::For: out->push_back(readFor(st)); return;
        case ast::StmtKind::With: return readWith(st, block, out, top);
        case ast::StmtKind::Import: refuse(st.loc, "import inside a TVMScript function");
        case ast::StmtKind::Def:
        case ast::StmtKind::Class:
            refuse(st.loc, "a 'def' or 'class' inside a TVMScript function is not supported");
        case ast::StmtKind::Assert:
            refuse(st.loc, "an 'assert' inside a TVMScript function is not supported");
        case ast::StmtKind::If:
            refuse(st.loc, "an 'if' statement inside a TVMScript function is not supported; "
                           "use T.if_then_else or T.where");
        }
    }

    void readCallStatement(const ast::Stmt& st, BlockParts* block, bool top)
    {
        const ast::Expr& e = *st.value;
        const std::string fn = callee(e);
        if (fn == "T.func_attr") {
            if (!top) refuse(e.loc, "T.func_attr belongs at the top of the function");
            return; // tir.noalias is what Loopscope assumes of every function
        }
        if (fn == "T.reads" || fn == "T.writes") {
            if (!block) refuse(e.loc, fn + " belongs inside a block");
            auto& regions = fn == "T.reads" ? block->node.reads : block->node.writes;
            (fn == "T.reads" ? block->readsGiven : block->writesGiven) = true;
            for (const ast::ExprPtr& r : e.items)
                regions.push_back(readRegion(*r));
            return;
        }
        if (fn == "T.where") {
            if (!block || e.items.size() != 1)
                refuse(e.loc, "T.where(condition) belongs in a block");
            block->node.predicate = exprOf(*e.items[0]);
            if (!block->node.predicate.type().isBool())
                refuse(e.items[0]->loc, "T.where takes a condition");
            return;
        }
        if (fn == "T.block_attr" || fn == "T.sblock_attr") {
            if (!block) refuse(e.loc, fn + " belongs inside a block");
            if (e.items.size() != 1 || e.items[0]->kind != ExprKind::Dict)
                refuse(e.loc, fn + " takes a dict: " + fn + "({\"key\": value})");
            const auto& kv = e.items[0]->items;
            for (std::size_t k = 0; k + 1 < kv.size(); k += 2) {
                const std::string key = m_ev.stringArg({eval(*kv[k]), kv[k]->loc}, "the key");
                block->node.annotations.emplace_back(key, exprOf(*kv[k + 1]));
            }
            return;
        }
        refuse(e.loc, "this statement is not supported in a TVMScript function (it reads "
                      "T.func_attr, T.reads, T.writes, T.where and T.block_attr calls, "
                      "allocations, T.axis bindings, stores, for loops and blocks)");
    }

    // `A[vi, 0:128]`: a point per index, a range per slice.
    TensorRegion readRegion(const ast::Expr& e)
    {
        if (e.kind != ExprKind::Subscript) refuse(e.loc, "a region is a buffer indexed: A[vi, vk]");
        Value b = eval(*e.value);
        if (b.kind != VKind::Tensor) refuse(e.value->loc, "a region's buffer, not " + typeName(b));
        TensorRegion r{b.tensor, {}};
        for (const ast::ExprPtr& i : e.items) {
            if (i->kind == ExprKind::Slice) {
                if (!i->lhs || !i->rhs || i->value)
                    refuse(i->loc, "a region's slice gives both ends: lo:hi");
                Expr lo = exprOf(*i->lhs);
                r.region.push_back({lo, simplify(exprOf(*i->rhs) - lo)});
            } else {
                r.region.push_back({exprOf(*i), makeInt(1)});
            }
        }
        if (static_cast<int>(r.region.size()) != b.tensor->ndim())
            refuse(e.loc, "'" + b.tensor->name + "' has " + std::to_string(b.tensor->ndim()) +
                              " dimensions");
        return r;
    }

    void readAssign(const ast::Stmt& st, BlockParts* block, std::vector<Stmt>* out, bool top)
    {
        const ast::Expr& v = *st.value;
        const std::string fn = callee(v);
        if (fn == "T.alloc_buffer" || fn == "T.sblock_alloc_buffer") {
            note(fn == "T.alloc_buffer" ? Seen::Tvm020 : Seen::Tvm026, v.loc);
            BlockAlloc a = readAlloc(st, v);
            if (block)
                block->node.allocs.push_back(a);
            else if (top)
                m_func.allocs.push_back(a);
            else
                refuse(st.loc, "a buffer is allocated at the top of the function or of a block");
            return;
        }
        if (fn.rfind("T.axis.", 0) == 0) {
            if (!block) refuse(st.loc, fn + " belongs inside a block");
            readAxes(st, v, fn, *block);
            return;
        }
        if (st.targets.size() == 1 && st.targets[0]->kind == ExprKind::Subscript) {
            if (m_blockDepth == 0) refuse(st.loc, "a store belongs inside a block (T.block)");
            out->push_back(readStore(*st.targets[0], v));
            return;
        }
        refuse(st.loc, "in a TVMScript function, names are bound by T.alloc_buffer, T.axis and "
                       "for loops, and buffers are stored to: Y[vi, vj] = ...");
    }

    Stmt readStore(const ast::Expr& target, const ast::Expr& value)
    {
        Value b = eval(*target.value);
        if (b.kind != VKind::Tensor)
            refuse(target.value->loc, "only a buffer can be stored to, not " + typeName(b));
        std::vector<Expr> idx;
        for (const ast::ExprPtr& i : target.items) {
            if (i->kind == ExprKind::Slice) refuse(i->loc, "a store is to one element");
            idx.push_back(exprOf(*i));
        }
        if (static_cast<int>(idx.size()) != b.tensor->ndim())
            refuse(target.loc, "'" + b.tensor->name + "' has " + std::to_string(b.tensor->ndim()) +
                                   " dimensions");
        Expr x = m_ev.toExpr(eval(value), value.loc, b.tensor->dtype);
        if (x.type() != b.tensor->dtype)
            refuse(value.loc, "the value is " + x.type().str() + " but '" + b.tensor->name +
                                  "' holds " + b.tensor->dtype.str() + ": cast it (T.Cast)");
        return makeTensorStore(b.tensor, idx, x);
    }

    // `vi, vj, vk = T.axis.remap("SSR", [i, j, k])`, `vi = T.axis.spatial(128, i)`
    void readAxes(const ast::Stmt& st, const ast::Expr& v, const std::string& fn, BlockParts& block)
    {
        const ast::Expr& target = *st.targets[0];
        auto bindIter = [&](const ast::Expr& name, BlockIterKind kind, Range dom, Expr binding) {
            if (name.kind != ExprKind::Name) refuse(name.loc, "a block variable is a plain name");
            Var var(name.name);
            block.node.iters.push_back({var, dom, kind, binding});
            m_ev.m_env[name.name] = Value::ofExpr(var);
        };
        if (fn == "T.axis.remap") {
            if (v.items.size() != 2) refuse(v.loc, "T.axis.remap(kinds, [loops...])");
            const std::string kinds = m_ev.stringArg({eval(*v.items[0]), v.items[0]->loc}, "kinds");
            const ast::Expr& loops = *v.items[1];
            if (loops.kind != ExprKind::List && loops.kind != ExprKind::Tuple)
                refuse(loops.loc, "T.axis.remap takes a list of loop variables");
            std::vector<const ast::Expr*> names;
            if (target.kind == ExprKind::Name)
                names.push_back(&target);
            else
                for (const ast::ExprPtr& t : target.items)
                    names.push_back(t.get());
            if (kinds.size() != loops.items.size() || names.size() != kinds.size())
                refuse(v.loc, "T.axis.remap binds one variable per letter of \"" + kinds +
                                  "\" and per loop");
            for (std::size_t k = 0; k < kinds.size(); ++k) {
                if (kinds[k] != 'S' && kinds[k] != 'R')
                    refuse(v.items[0]->loc, "T.axis.remap's kinds are S (spatial) and R "
                                            "(reduce)");
                Expr loop = exprOf(*loops.items[k]);
                auto it = m_loopRanges.find(loop.as<VarNode>());
                if (it == m_loopRanges.end())
                    refuse(loops.items[k]->loc, "T.axis.remap maps loop variables");
                bindIter(*names[k],
                         kinds[k] == 'S' ? BlockIterKind::Spatial : BlockIterKind::Reduce,
                         {makeInt(0), it->second.extent},
                         isZero(it->second.min) ? loop : loop + it->second.min);
            }
            return;
        }
        const bool spatial = fn == "T.axis.spatial" || fn == "T.axis.S";
        if (!spatial && fn != "T.axis.reduce" && fn != "T.axis.R")
            refuse(v.loc, fn + " is not supported (T.axis.spatial, T.axis.reduce and "
                               "T.axis.remap are)");
        if (v.items.size() != 2 || target.kind != ExprKind::Name)
            refuse(v.loc, "vi = " + fn + "(extent, binding)");
        Range dom;
        const ast::Expr& d = *v.items[0];
        if (d.kind == ExprKind::Tuple) {
            if (d.items.size() != 2) refuse(d.loc, "a domain is an extent or (min, max)");
            Expr lo = exprOf(*d.items[0]);
            dom = {lo, simplify(exprOf(*d.items[1]) - lo)};
        } else {
            dom = {makeInt(0), exprOf(d)};
        }
        bindIter(target, spatial ? BlockIterKind::Spatial : BlockIterKind::Reduce, dom,
                 exprOf(*v.items[1]));
    }

    // for i, j in T.grid(4, 8) | range(n) | T.serial/parallel/vectorized/unroll(n) |
    // T.thread_binding(n, thread="threadIdx.x")
    Stmt readFor(const ast::Stmt& st)
    {
        const ast::Expr& it = *st.value;
        const std::string fn = callee(it);
        const ast::Expr& target = *st.targets[0];
        std::vector<const ast::Expr*> names;
        if (target.kind == ExprKind::Name)
            names.push_back(&target);
        else if (target.kind == ExprKind::Tuple || target.kind == ExprKind::List)
            for (const ast::ExprPtr& t : target.items)
                names.push_back(t.get());
        for (const ast::Expr* n : names)
            if (n->kind != ExprKind::Name) refuse(n->loc, "a loop variable is a plain name");
        struct Loop {
            Var var;
            Expr min, extent;
            ForKind kind;
            std::string thread;
        };
        std::vector<Loop> loops;
        if (fn == "T.grid") {
            if (names.size() != it.items.size())
                refuse(target.loc, "T.grid with " + std::to_string(it.items.size()) +
                                       " extents binds as many loop variables");
            for (std::size_t k = 0; k < names.size(); ++k)
                loops.push_back(
                    {Var(names[k]->name), makeInt(0), exprOf(*it.items[k]), ForKind::Serial, {}});
        } else {
            static const std::map<std::string, ForKind> kinds = {
                {"range", ForKind::Serial},        {"T.serial", ForKind::Serial},
                {"T.parallel", ForKind::Parallel}, {"T.vectorized", ForKind::Vectorized},
                {"T.unroll", ForKind::Unrolled},   {"T.thread_binding", ForKind::ThreadBinding}};
            auto k = kinds.find(fn);
            if (k == kinds.end())
                refuse(it.loc, "a TVMScript loop goes over T.grid, range, T.serial, T.parallel, "
                               "T.vectorized, T.unroll or T.thread_binding");
            if (names.size() != 1) refuse(target.loc, "this loop binds one variable");
            if (it.items.empty() || it.items.size() > 2)
                refuse(it.loc, fn + "(extent) or " + fn + "(start, stop)");
            Expr lo = it.items.size() == 2 ? exprOf(*it.items[0]) : makeInt(0);
            Expr hi = exprOf(*it.items.back());
            std::string thread;
            for (const ast::Keyword& kw : it.keywords) {
                if (kw.name == "thread" && k->second == ForKind::ThreadBinding)
                    thread = m_ev.stringArg({eval(*kw.value), kw.value->loc}, "thread");
                else
                    refuse(kw.loc, fn + "'s '" + kw.name + "' is not supported");
            }
            if (k->second == ForKind::ThreadBinding && thread.empty())
                refuse(it.loc, "T.thread_binding needs thread=\"threadIdx.x\" (or another)");
            loops.push_back({Var(names[0]->name), lo, simplify(hi - lo), k->second, thread});
        }
        for (const Loop& l : loops) {
            std::int64_t n = 0;
            if (!isConstInt(l.extent, &n) || n <= 0)
                refuse(it.loc, "a loop's extent must be a positive integer");
            m_ev.m_env[l.var.name()] = Value::ofExpr(l.var);
            m_loopRanges[l.var.get()] = {l.min, l.extent};
        }
        std::vector<Stmt> body;
        readStatements(st.body, nullptr, &body, false);
        Stmt s = makeSeq(std::move(body));
        if (!s.defined()) refuse(st.loc, "this loop has nothing to do");
        for (std::size_t k = loops.size(); k-- > 0;)
            s = makeFor(loops[k].var, loops[k].min, loops[k].extent, loops[k].kind, s,
                        loops[k].thread);
        return s;
    }

    void readWith(const ast::Stmt& st, BlockParts* block, std::vector<Stmt>* out, bool top)
    {
        const ast::Expr& e = *st.value;
        const std::string fn = callee(e);
        if (!st.targets.empty()) refuse(st.targets[0]->loc, "'as' is not used with " + fn);
        if (fn == "T.init") {
            if (!block) refuse(e.loc, "T.init belongs inside a block");
            std::vector<Stmt> init;
            readStatements(st.body, nullptr, &init, false);
            block->node.init = makeSeq(std::move(init));
            return;
        }
        if (fn != "T.block" && fn != "T.sblock")
            refuse(e.loc, "a TVMScript 'with' is a block (T.block, T.sblock) or T.init");
        note(fn == "T.block" ? Seen::Tvm020 : Seen::Tvm026, e.loc);
        if (e.items.size() != 1) refuse(e.loc, fn + "(\"name\")");
        const std::string name = m_ev.stringArg({eval(*e.items[0]), e.items[0]->loc}, "name");
        // The root block around a function's body: its allocations are the function's.
        if (name == "root" && top && !block) {
            BlockParts root;
            std::vector<Stmt> body;
            readStatements(st.body, &root, &body, true);
            if (!root.node.iters.empty()) refuse(st.loc, "the root block has no variables");
            for (const BlockAlloc& a : root.node.allocs)
                m_func.allocs.push_back(a);
            for (Stmt& s : body)
                out->push_back(std::move(s));
            return;
        }
        for (const BlockNode* b : m_blocks)
            if (b->name == name) refuse(e.items[0]->loc, "a second block named '" + name + "'");
        BlockParts parts;
        parts.node.name = name;
        parts.loc = st.loc;
        std::vector<Stmt> body;
        ++m_blockDepth;
        readStatements(st.body, &parts, &body, false);
        --m_blockDepth;
        parts.node.body = makeSeq(std::move(body));
        if (!parts.node.body.defined()) refuse(st.loc, "the block '" + name + "' has no body");
        inferRegions(parts);
        Stmt s = makeBlock(std::move(parts.node));
        m_blocks.push_back(s.as<BlockNode>());
        m_blockLocs.push_back(st.loc);
        out->push_back(s);
    }

    // TVM's inference where T.reads / T.writes are not written: what the body reads (of a
    // reduction, all but what it accumulates into) and stores.
    static void inferRegions(BlockParts& p)
    {
        std::vector<const TensorStoreNode*> stores;
        anyStmt(p.node.body, [&](const StmtNode* n) {
            if (n->kind == StmtKind::TensorStore)
                stores.push_back(static_cast<const TensorStoreNode*>(n));
            return false;
        });
        if (!p.writesGiven)
            for (const TensorStoreNode* s : stores) {
                TensorRegion r{s->tensor, {}};
                for (const Expr& i : s->indices)
                    r.region.push_back({i, makeInt(1)});
                p.node.writes.push_back(std::move(r));
            }
        if (!p.readsGiven && !stores.empty()) {
            const OperationNode* self = p.node.init.defined() ? stores[0]->tensor.get() : nullptr;
            std::vector<Expr> values;
            for (const TensorStoreNode* s : stores)
                values.push_back(s->value);
            p.node.reads = blockReadRegions(values, self);
        }
    }

    // Each written buffer the TE computation of its block: te.compute over the block's spatial
    // variables, a te.sum / te.max / te.min over its reduce variables for a block with T.init.
    void declareComputations()
    {
        std::vector<std::pair<Tensor, Tensor>> made;
        for (std::size_t k = 0; k < m_blocks.size(); ++k) {
            const BlockNode& b = *m_blocks[k];
            const SourceLoc loc = m_blockLocs[k];
            auto why = [&](const std::string& what) {
                refuse(loc, "the block '" + b.name + "' " + what +
                                ": Loopscope reads a block as the computation it declares "
                                "(what te.compute would declare), to check every schedule "
                                "against it");
            };
            const auto* store = b.body.as<TensorStoreNode>();
            if (!store) why("is not one store of a value");
            if (b.predicate.defined()) why("has a predicate (T.where)");
            const Tensor& out = store->tensor;
            for (auto& [from, to] : made)
                if (from == out) why("writes '" + out->name + "', which another block writes");
            // Output dimension d is the spatial variable the store's index d is.
            std::vector<IterVar> axes;
            VarMap toAxes;
            std::vector<const BlockIter*> spatial;
            for (const BlockIter& it : b.iters)
                if (it.kind == BlockIterKind::Spatial) spatial.push_back(&it);
            if (spatial.size() != store->indices.size())
                why("stores with " + std::to_string(store->indices.size()) + " indices over " +
                    std::to_string(spatial.size()) + " spatial variables");
            for (std::size_t d = 0; d < store->indices.size(); ++d) {
                const BlockIter* it = nullptr;
                for (const BlockIter* s : spatial)
                    if (store->indices[d].as<VarNode>() == s->var.get()) it = s;
                if (!it || toAxes.count(it->var.get()))
                    why("stores at an index that is not one of its spatial variables");
                if (!isZero(it->dom.min) || !exprEqual(simplify(it->dom.extent), out->shape[d]))
                    why("covers part of '" + out->name + "' (its variable '" + it->var.name() +
                        "' does not span dimension " + std::to_string(d) + ")");
                const VarNode* loop = it->binding.as<VarNode>();
                IterVar iv =
                    makeIterVar(loop ? loop->name : it->var.name(), it->dom, IterKind::DataPar);
                toAxes[it->var.get()] = iv->var;
                axes.push_back(iv);
            }
            std::vector<IterVar> reduceAxes;
            for (const BlockIter& it : b.iters) {
                if (it.kind != BlockIterKind::Reduce) continue;
                const VarNode* loop = it.binding.as<VarNode>();
                IterVar iv =
                    makeIterVar(loop ? loop->name : it.var.name(), it.dom, IterKind::Reduce);
                toAxes[it.var.get()] = iv->var;
                reduceAxes.push_back(iv);
            }
            const Expr self = makeTensorLoad(out, store->indices);
            auto readsSelf = [&](const Expr& e) {
                bool found = false;
                forEachExpr(e, [&](const Expr& x) {
                    if (auto* l = x.as<TensorLoadNode>(); l && l->tensor == out) found = true;
                });
                return found;
            };
            Expr body;
            if (reduceAxes.empty()) {
                if (b.init.defined()) why("has T.init but no reduce variable");
                if (readsSelf(store->value)) why("reads what it writes");
                body = store->value;
            } else {
                const auto* init = b.init.as<TensorStoreNode>();
                if (!init || init->tensor != out)
                    why("reduces without a T.init storing to '" + out->name + "'");
                ReduceOp op = ReduceOp::Sum;
                Expr source;
                if (!matchUpdate(store->value, self, &op, &source))
                    why("does not update '" + out->name +
                        "' as a sum, max or min (Y[...] = Y[...] + value, T.max(Y[...], value))");
                if (readsSelf(source)) why("reads what it accumulates into");
                if (!exprEqual(simplify(init->value), simplify(reduceIdentity(op, out->dtype))))
                    why("starts its " + std::string(op == ReduceOp::Sum ? "sum" : "max or min") +
                        " at a value other than the reduction's identity");
                body = makeReduce(op, source, reduceAxes, Expr());
            }
            Tensor computed = makeCompute(out->name, "", axes, substitute(body, toAxes), out->loc);
            computed = replaceInputs(computed, made);
            made.emplace_back(out, computed);
        }
        for (const Tensor& a : m_allocated) {
            bool written = false;
            for (auto& [from, to] : made)
                written |= from == a;
            if (!written)
                refuse(a->loc, "the buffer '" + a->name + "' is allocated but no block writes it");
        }
        for (auto& [from, to] : made) {
            m_func = replaceTensor(m_func, from, to);
            m_ev.m_program.tensors.push_back(to);
        }
        for (const Tensor& p : m_func.params)
            if (p->isPlaceholder()) m_ev.m_program.tensors.push_back(p);
    }

    // value == self + x (or x + self), max(self, x), min(self, x)
    static bool matchUpdate(const Expr& value, const Expr& self, ReduceOp* op, Expr* source)
    {
        const auto* bin = value.as<BinaryNode>();
        if (!bin) return false;
        if (value.kind() == loopscope::ExprKind::Add)
            *op = ReduceOp::Sum;
        else if (value.kind() == loopscope::ExprKind::Max)
            *op = ReduceOp::Max;
        else if (value.kind() == loopscope::ExprKind::Min)
            *op = ReduceOp::Min;
        else
            return false;
        if (exprEqual(bin->a, self)) {
            *source = bin->b;
            return true;
        }
        if (exprEqual(bin->b, self)) {
            *source = bin->a;
            return true;
        }
        return false;
    }

    Evaluator& m_ev;
    std::unordered_map<std::string, Value> m_savedEnv;
    const ast::Stmt* m_savedStmt;
    TirFunc m_func;
    std::vector<const BlockNode*> m_blocks;
    std::vector<SourceLoc> m_blockLocs;
    std::vector<Tensor> m_allocated;
    std::unordered_map<const VarNode*, Range> m_loopRanges;
    Seen m_seen = Seen::None;
    SourceLoc m_seenLoc;
    int m_blockDepth = 0; // blocks being read around the statement
};

Value Evaluator::readTvmScript(const ast::Stmt& st)
{
    auto functionValue = [this](const ast::Stmt& def) {
        ScriptFunc f = TvmScriptReader(*this).read(def);
        Value v;
        v.kind = VKind::PrimFunc;
        v.s = def.name;
        for (const Tensor& t : f.func.params)
            v.items.push_back(Value::ofTensor(VKind::Tensor, t));
        m_scriptFuncs.push_back(std::move(f));
        v.i = static_cast<std::int64_t>(m_scriptFuncs.size());
        return v;
    };
    if (st.kind == ast::StmtKind::Def) return functionValue(st);
    bool module = false;
    for (const ast::ExprPtr& d : st.decorators)
        module |= isModuleDecorator(*d);
    if (!module)
        throw UserError(st.loc, "a 'class' is read only as a TVMScript module (@I.ir_module "
                                "class Module: with @T.prim_func functions)");
    Value m;
    m.kind = VKind::IRModule;
    m.s = st.name;
    for (const ast::Stmt& f : st.body) {
        if (f.kind == ast::StmtKind::Pass) continue;
        if (f.kind != ast::StmtKind::Def)
            throw UserError(f.loc, "an @I.ir_module class holds @T.prim_func functions only");
        m.items.push_back(functionValue(f));
    }
    if (m.items.empty()) throw UserError(st.loc, "the module '" + st.name + "' has no function");
    return m;
}

} // namespace loopscope::te_detail
