// TensorIR in a script: te.create_prim_func, tvm.tir.Schedule (v0.20 to v0.23) and
// tvm.s_tir.Schedule (v0.24 on), and the schedule's methods. A schedule is a variant whose
// snapshots carry the TensorIR function after each step; its TE stages stay as declared, so the
// outputs, the reference and the checks are the declarations'.
#include "te/EvaluatorInternal.h"

#include "ir/Printer.h"
#include "schedule/TensorIR.h"

namespace loopscope::te_detail {

namespace {

// TVM's method names in both spellings, each to the one this evaluator implements.
std::string canonicalMethod(const std::string& name)
{
    if (name == "get_sblock") return "get_block";
    return name;
}

const std::set<std::string>& tirMethods()
{
    static const std::set<std::string> names = {
        "get_block",
        "storage_align",
        "get_sblock",
        "get_loops",
        "get_child_blocks",
        "split",
        "fuse",
        "reorder",
        "parallel",
        "vectorize",
        "unroll",
        "bind",
        "decompose_reduction",
        "show",
        "script",
        "work_on",
        "compute_at",
        "cache_read",
        "cache_write",
        "compute_inline",
        "reverse_compute_at",
        "rfactor",
        "set_scope",
        "annotate",
        "unannotate",
        "get_producers",
        "get_consumers",
        "reverse_compute_inline",
        "transform_layout",
        "blockize",
    };
    return names;
}

} // namespace

std::string Evaluator::traceName(const Value& h)
{
    TraceNames& t = m_traceNames[h.variant];
    if (auto it = t.handles.find(h.i); h.i > 0 && it != t.handles.end()) return it->second;
    if (h.kind == VKind::TirBlock) {
        auto it = t.blocks.find(h.s);
        return it == t.blocks.end() ? newTraceName(h.variant, h) : it->second;
    }
    auto it = t.loops.find(h.expr.as<VarNode>());
    return it == t.loops.end() ? newTraceName(h.variant, h) : it->second;
}

std::string Evaluator::newTraceName(int variant, const Value& h)
{
    TraceNames& t = m_traceNames[variant];
    const std::string name = (h.kind == VKind::TirBlock ? "b" : "l") + std::to_string(t.next++);
    if (h.i > 0) t.handles[h.i] = name;
    if (h.kind == VKind::TirBlock)
        t.blocks[h.s] = name;
    else
        t.loops[h.expr.as<VarNode>()] = name;
    return name;
}

void Evaluator::trace(int variant, const std::string& line)
{
    m_program.variants[static_cast<std::size_t>(variant)].trace.push_back(line);
}

Value Evaluator::createPrimFunc(const CallArgs& c)
{
    Bound b(c, {{"ops", true}});
    const Arg& a = b["ops"];
    if (!a.value.isSeq())
        throw UserError(a.loc, "te.create_prim_func takes a list of tensors: [A, B, C]");
    Value f;
    f.kind = VKind::PrimFunc;
    bool computed = false;
    for (const Value& t : a.value.items) {
        if (t.kind != VKind::Tensor)
            throw UserError(a.loc, "te.create_prim_func takes tensors, not " + typeName(t));
        computed |= t.tensor->isCompute();
        f.items.push_back(t);
    }
    if (!computed)
        throw UserError(a.loc, "te.create_prim_func needs at least one computed tensor among "
                               "its arguments");
    return f;
}

Value Evaluator::createTirSchedule(const CallArgs& c)
{
    Bound b(c, {{"mod", true},
                {"seed", false},
                {"debug_mask", false},
                {"error_render_level", false},
                {"enable_check", false}});
    const Arg& a = b["mod"];
    Value fn = a.value;
    if (fn.kind == VKind::IRModule) {
        if (fn.items.size() != 1) {
            std::string names;
            for (const Value& f : fn.items)
                names += (names.empty() ? "" : ", ") + f.s;
            throw UserError(a.loc, "Loopscope schedules one function per module; '" + fn.s +
                                       "' has " + std::to_string(fn.items.size()) + " (" + names +
                                       "): schedule " + fn.s + "[\"NAME\"]");
        }
        Value only = fn.items[0]; // copied first: it lives in what is assigned to
        fn = std::move(only);
    }
    if (fn.kind != VKind::PrimFunc)
        throw UserError(a.loc, c.function +
                                   " takes a PrimFunc (te.create_prim_func([...]) or "
                                   "@T.prim_func) or an @I.ir_module, not " +
                                   typeName(a.value));
    std::vector<Tensor> args, outs;
    for (const Value& t : fn.items) {
        args.push_back(t.tensor);
        if (t.tensor->isCompute()) outs.push_back(t.tensor);
    }
    const TirSpelling spelling =
        c.function.find("s_tir") != std::string::npos ? TirSpelling::Tvm026 : TirSpelling::Tvm020;
    TirFunc func;
    if (fn.i > 0) {
        const ScriptFunc& sf = m_scriptFuncs[static_cast<std::size_t>(fn.i - 1)];
        const int wanted = spelling == TirSpelling::Tvm026 ? 2 : 1;
        if (sf.spelling != 0 && sf.spelling != wanted)
            throw UserError(a.loc,
                            "'" + fn.s + "' is written in TVM " +
                                (sf.spelling == 2 ? "v0.24-v0.26's spelling (T.sblock)"
                                                  : "v0.20-v0.23's spelling (T.block)") +
                                " at " + std::to_string(sf.spellingLoc.line) + ":" +
                                std::to_string(sf.spellingLoc.col) + "; schedule it with " +
                                (sf.spelling == 2 ? "tvm.s_tir.Schedule" : "tvm.tir.Schedule"));
        func = sf.func;
        func.spelling = spelling;
    } else {
        func = loopscope::createPrimFunc(args, spelling);
    }
    const int var = addVariant(outs);
    Variant& v = m_program.variants[static_cast<std::size_t>(var)];
    v.args = args;
    v.argsFromScript = true;
    v.funcName = func.name;
    v.snapshots.back().setTensorIR(std::move(func));
    Value s;
    s.kind = VKind::TirSchedule;
    s.variant = var;
    touch(var);
    return s;
}

Value Evaluator::tirAttribute(const Value& obj, const std::string& a, SourceLoc loc)
{
    if (obj.kind == VKind::TirSchedule) {
        if (a == "mod" || a == "trace") {
            Value m = obj;
            m.kind = a == "mod" ? VKind::TirModule : VKind::TirTrace;
            return m;
        }
        if (tirMethods().count(a)) return method(obj, a);
        std::string supported;
        for (const std::string& m : tirMethods())
            supported += (supported.empty() ? "" : ", ") + m;
        throw UserError(loc, "tir.Schedule method '" + a +
                                 "' is not supported yet (supported: " + supported + ")");
    }
    if ((obj.kind == VKind::TirModule || obj.kind == VKind::TirTrace) &&
        (a == "show" || a == "script"))
        return method(obj, a);
    throw UserError(loc, typeName(obj) + " has no attribute '" + a + "'");
}

Var Evaluator::loopArg(const Arg& a, int variant, const std::string& fn)
{
    if (a.value.kind != VKind::TirLoop)
        throw UserError(a.loc,
                        fn + "() needs a loop here (from sch.get_loops), not " + typeName(a.value));
    if (a.value.variant != variant) throw UserError(a.loc, "this loop belongs to another schedule");
    return Var(std::static_pointer_cast<const VarNode>(a.value.expr.node()));
}

std::string Evaluator::blockArg(const Arg& a, int variant, const std::string& fn)
{
    if (a.value.kind != VKind::TirBlock)
        throw UserError(a.loc, fn + "() needs a block here (from sch.get_block), not " +
                                   typeName(a.value));
    if (a.value.variant != variant)
        throw UserError(a.loc, "this block belongs to another schedule");
    return currentBlockName(variant, a.value.s);
}

std::string Evaluator::currentBlockName(int variant, std::string name) const
{
    for (auto it = m_blockRenames.find({variant, name}); it != m_blockRenames.end();
         it = m_blockRenames.find({variant, name}))
        name = it->second;
    return name;
}

void Evaluator::recordTirStep(int variant, const std::string& primitive, const std::string& block,
                              TirFunc after)
{
    Schedule s = schedule(variant);
    s.setTensorIR(std::move(after));
    recordStep(variant, primitive, block, std::move(s));
}

std::vector<Expr> Evaluator::indexMap(const ast::Expr& lam, std::vector<Var>* params)
{
    // The lambda's parameters shadow names of the script while its body is evaluated.
    std::vector<std::pair<std::string, std::optional<Value>>> shadowed;
    for (const std::string& name : lam.params) {
        auto it = m_env.find(name);
        shadowed.emplace_back(name, it == m_env.end() ? std::nullopt : std::optional(it->second));
        const Var v(name);
        params->push_back(v);
        m_env[name] = Value::ofExpr(v);
    }
    auto restore = [&] {
        for (auto p = shadowed.rbegin(); p != shadowed.rend(); ++p) {
            if (p->second)
                m_env[p->first] = *p->second;
            else
                m_env.erase(p->first);
        }
    };
    std::vector<Expr> out;
    try {
        const Value body = eval(*lam.value);
        if (body.isSeq()) {
            for (const Value& x : body.items)
                out.push_back(toExpr(x, lam.value->loc));
        } else {
            out.push_back(toExpr(body, lam.value->loc));
        }
    } catch (...) {
        restore();
        throw;
    }
    restore();
    return out;
}

Value Evaluator::tirMethod(const Value& self, const std::string& rawName, const CallArgs& c)
{
    const int var = self.variant;
    touch(var);
    if (self.kind != VKind::TirSchedule) {
        // sch.mod.show(), sch.mod.script(), sch.trace.show(): the views show them. Like
        // tvm.lower, they end the schedule's statements: a new step is written before them.
        m_lowered.insert(var);
        return Value::none();
    }
    const std::string name = canonicalMethod(rawName);
    const TirFunc& f = *schedule(var).tensorIR();
    auto loopValue = [&](const Var& v) {
        Value l;
        l.kind = VKind::TirLoop;
        l.expr = v;
        l.variant = var;
        l.i = ++m_nextHandle;
        return l;
    };
    auto blockValue = [&](const std::string& n) {
        Value b = Value::str(n);
        b.kind = VKind::TirBlock;
        b.variant = var;
        b.i = ++m_nextHandle;
        return b;
    };
    // A refusal of the primitive, at the argument it is about.
    auto refused = [&](const ScheduleError& e, const std::vector<SourceLoc>& argLocs) {
        const int arg = e.argument();
        SourceLoc loc = c.loc;
        if (arg >= 0 && static_cast<std::size_t>(arg) < argLocs.size())
            loc = argLocs[static_cast<std::size_t>(arg)];
        return UserError(loc, rawName + ": " + e.message());
    };
    // The first block under a loop: what a loop step is recorded against.
    auto blockUnder = [&](const TirFunc& fn, const Var& loop) {
        for (const std::string& n : blockNames(fn))
            for (const Var& l : blockLoops(fn, n))
                if (l.get() == loop.get()) return n;
        return std::string();
    };
    if (name == "get_block") {
        Bound b(c, {{"name", true}, {"func_name", false}});
        const std::string n = stringArg(b["name"], "the block's name");
        if (!findBlock(f, n)) {
            std::string known;
            for (const std::string& k : blockNames(f))
                known += (known.empty() ? "" : ", ") + k;
            throw UserError(b["name"].loc,
                            "there is no block named '" + n + "' (the blocks: " + known + ")");
        }
        Value h = blockValue(n);
        const bool s26 = f.spelling == TirSpelling::Tvm026;
        trace(var, newTraceName(var, h) + " = sch." + (s26 ? "get_sblock" : "get_block") +
                       "(name=\"" + n + "\", func_name=\"main\")");
        return h;
    }
    if (name == "get_loops") {
        Bound b(c, {{"block", true}});
        const std::string n = blockArg(b["block"], var, rawName);
        std::vector<Value> items;
        std::string names;
        for (const Var& v : blockLoops(f, n)) {
            items.push_back(loopValue(v));
            names += (names.empty() ? "" : ", ") + newTraceName(var, items.back());
        }
        trace(var, names + (items.size() == 1 ? "," : "") +
                       " = sch.get_loops(block=" + traceName(b["block"].value) + ")");
        return Value::seq(VKind::List, std::move(items));
    }
    if (name == "get_producers" || name == "get_consumers") {
        // The blocks that write what this one reads, or read what it writes (TVM's
        // GetProducers/GetConsumers), in the function's order.
        Bound b(c, {{"block", true}});
        const std::string n = blockArg(b["block"], var, rawName);
        const BlockNode* me = findBlock(f, n);
        const bool producers = name == "get_producers";
        auto touches = [](const std::vector<TensorRegion>& regions, const Tensor& t) {
            return std::any_of(regions.begin(), regions.end(),
                               [&](const TensorRegion& r) { return r.tensor == t; });
        };
        std::vector<Value> items;
        std::string names;
        for (const std::string& other : blockNames(f)) {
            const BlockNode* o = findBlock(f, other);
            if (o == me) continue;
            bool linked = false;
            for (const TensorRegion& r : producers ? me->reads : me->writes)
                linked |= touches(producers ? o->writes : o->reads, r.tensor);
            if (!linked) continue;
            items.push_back(blockValue(other));
            names += (names.empty() ? "" : ", ") + newTraceName(var, items.back());
        }
        if (!items.empty())
            trace(var, names + (items.size() == 1 ? "," : "") + " = sch." + name +
                           "(block=" + traceName(b["block"].value) + ")");
        return Value::seq(VKind::List, std::move(items));
    }
    if (name == "get_child_blocks") {
        Bound b(c, {{"block_or_loop", true}});
        std::vector<Value> items;
        if (b["block_or_loop"].value.kind == VKind::TirLoop) {
            const Var l = loopArg(b["block_or_loop"], var, rawName);
            for (const std::string& n : blockNames(f))
                for (const Var& x : blockLoops(f, n))
                    if (x.get() == l.get()) items.push_back(blockValue(n));
        } else {
            const std::string parent = blockArg(b["block_or_loop"], var, rawName);
            (void)parent; // blocks inside blocks come with TVMScript modules
        }
        return Value::seq(VKind::List, std::move(items));
    }
    if (name == "split") {
        Bound b(c, {{"loop", true},
                    {"factors", true},
                    {"preserve_unit_iters", false},
                    {"disable_predication", false}});
        const Var loop = loopArg(b["loop"], var, rawName);
        const Arg& fa = b["factors"];
        if (!fa.value.isSeq())
            throw UserError(fa.loc, "split's factors are a list: factors=[None, 16]");
        std::vector<std::optional<std::int64_t>> factors;
        for (const Value& x : fa.value.items) {
            if (x.kind == VKind::None) {
                factors.emplace_back();
                continue;
            }
            factors.emplace_back(factorArg({x, fa.loc}, "a split factor"));
        }
        std::vector<Var> out;
        TirFunc after;
        try {
            after = tirSplit(f, loop, factors, &out);
        } catch (const ScheduleError& e) {
            throw refused(e, {b["loop"].loc, fa.loc});
        }
        const std::string block = blockUnder(after, out.front());
        recordTirStep(var, "split", block, std::move(after));
        const std::string from = traceName(b["loop"].value);
        std::vector<Value> items;
        std::string names, given;
        for (const Var& v : out) {
            items.push_back(loopValue(v));
            names += (names.empty() ? "" : ", ") + newTraceName(var, items.back());
        }
        for (const auto& x : factors)
            given += (given.empty() ? "" : ", ") + (x ? std::to_string(*x) : std::string("None"));
        trace(var, names + " = sch.split(loop=" + from + ", factors=[" + given +
                       "], preserve_unit_iters=True, disable_predication=False)");
        return Value::seq(VKind::List, std::move(items));
    }
    if (name == "fuse") {
        std::vector<Var> loops;
        std::vector<SourceLoc> locs;
        for (const Arg& a : c.positional) {
            loops.push_back(loopArg(a, var, rawName));
            locs.push_back(a.loc);
        }
        for (const auto& [k, a] : c.keywords)
            if (k != "preserve_unit_iters")
                throw UserError(a.loc, "fuse() got an unexpected keyword argument '" + k + "'");
        Var out;
        TirFunc after;
        try {
            after = tirFuse(f, loops, &out);
        } catch (const ScheduleError& e) {
            throw refused(e, locs);
        }
        const std::string block = blockUnder(after, out);
        recordTirStep(var, "fuse", block, std::move(after));
        std::string given;
        for (const Arg& a : c.positional)
            given += traceName(a.value) + ", ";
        Value fused = loopValue(out);
        trace(var, newTraceName(var, fused) + " = sch.fuse(" + given + "preserve_unit_iters=True)");
        return fused;
    }
    if (name == "reorder") {
        std::vector<Var> loops;
        std::vector<SourceLoc> locs;
        for (const Arg& a : c.positional) {
            loops.push_back(loopArg(a, var, rawName));
            locs.push_back(a.loc);
        }
        TirFunc after;
        try {
            after = tirReorder(f, loops);
        } catch (const ScheduleError& e) {
            throw refused(e, locs);
        }
        const std::string block = loops.empty() ? std::string() : blockUnder(after, loops.front());
        recordTirStep(var, "reorder", block, std::move(after));
        std::string given;
        for (const Arg& a : c.positional)
            given += (given.empty() ? "" : ", ") + traceName(a.value);
        trace(var, "sch.reorder(" + given + ")");
        return Value::none();
    }
    if (name == "parallel" || name == "vectorize" || name == "unroll" || name == "bind") {
        Bound b = name == "bind" ? Bound(c, {{"loop", true}, {"thread_axis", true}})
                                 : Bound(c, {{"loop", true}});
        const Var loop = loopArg(b["loop"], var, rawName);
        std::string thread;
        if (name == "bind") thread = stringArg(b["thread_axis"], "the thread axis");
        const ForKind kind = name == "parallel"    ? ForKind::Parallel
                             : name == "vectorize" ? ForKind::Vectorized
                             : name == "unroll"    ? ForKind::Unrolled
                                                   : ForKind::ThreadBinding;
        TirFunc after;
        try {
            after = tirSetKind(f, loop, kind, thread);
        } catch (const ScheduleError& e) {
            throw refused(e, {b["loop"].loc});
        }
        if (kind == ForKind::ThreadBinding)
            if (std::string why = tirBindLimitation(f, loop, thread); !why.empty())
                throw UserError(b["loop"].loc, why);
        const std::string block = blockUnder(after, loop);
        recordTirStep(var, name, block, std::move(after));
        trace(var, "sch." + name + "(loop=" + traceName(b["loop"].value) +
                       (name == "bind" ? ", thread_axis=\"" + thread + "\"" : std::string()) + ")");
        return Value::none();
    }
    if (name == "decompose_reduction") {
        Bound b(c, {{"block", true}, {"loop", true}});
        const std::string block = blockArg(b["block"], var, rawName);
        const Var loop = loopArg(b["loop"], var, rawName);
        std::string init;
        TirFunc after;
        try {
            after = tirDecomposeReduction(f, block, loop, &init);
        } catch (const ScheduleError& e) {
            throw refused(e, {b["block"].loc, b["loop"].loc});
        }
        m_blockRenames[{var, block}] = block + "_update";
        recordTirStep(var, "decompose_reduction", block, std::move(after));
        Value h = blockValue(init);
        const std::string blockName = traceName(b["block"].value);
        const std::string loopName = traceName(b["loop"].value);
        trace(var, newTraceName(var, h) + " = sch.decompose_reduction(block=" + blockName +
                       ", loop=" + loopName + ")");
        return h;
    }
    if (name == "compute_at" || name == "reverse_compute_at") {
        Bound b(
            c, {{"block", true}, {"loop", true}, {"preserve_unit_loops", false}, {"index", false}});
        const std::string block = blockArg(b["block"], var, rawName);
        const Var loop = loopArg(b["loop"], var, rawName);
        bool preserve = false;
        if (b.has("preserve_unit_loops")) {
            const Value& p = b["preserve_unit_loops"].value;
            if (p.kind != VKind::Bool)
                throw UserError(b["preserve_unit_loops"].loc,
                                "preserve_unit_loops is True or False");
            preserve = p.i != 0;
        }
        TirFunc after;
        try {
            after = tirComputeAt(f, block, loop, name == "reverse_compute_at", preserve);
        } catch (const ScheduleError& e) {
            throw refused(e, {b["block"].loc, b["loop"].loc});
        }
        recordTirStep(var, name, block, std::move(after));
        trace(var, "sch." + name + "(block=" + traceName(b["block"].value) +
                       ", loop=" + traceName(b["loop"].value) +
                       ", preserve_unit_loops=" + (preserve ? "True" : "False") + ", index=-1)");
        return Value::none();
    }
    if (name == "cache_read" || name == "cache_write") {
        const bool read = name == "cache_read";
        Bound b(c, {{"block", true},
                    {read ? "read_buffer_index" : "write_buffer_index", true},
                    {"storage_scope", true},
                    {"consumer_blocks", false}});
        const std::string block = blockArg(b["block"], var, rawName);
        const Arg& index = b[read ? "read_buffer_index" : "write_buffer_index"];
        const int i = intArg(index, "the buffer's index");
        const std::string scope = stringArg(b["storage_scope"], "the storage scope");
        if (b.has("consumer_blocks"))
            throw UserError(b["consumer_blocks"].loc,
                            "consumer_blocks is not supported yet: the cache serves every block");
        std::string cache;
        TirFunc after;
        try {
            after = read ? tirCacheRead(f, block, i, scope, &cache)
                         : tirCacheWrite(f, block, i, scope, &cache);
        } catch (const ScheduleError& e) {
            throw refused(e, {b["block"].loc, index.loc, b["storage_scope"].loc});
        }
        recordTirStep(var, name, block, std::move(after));
        Value h = blockValue(cache);
        const std::string blockName = traceName(b["block"].value);
        trace(var, newTraceName(var, h) + " = sch." + name + "(block=" + blockName + ", " +
                       (read ? "read" : "write") + "_buffer_index=" + std::to_string(i) +
                       ", storage_scope=\"" + scope + "\")");
        return h;
    }
    if (name == "storage_align") {
        Bound b(c, {{"block", true},
                    {"buffer_index", true},
                    {"axis", true},
                    {"factor", true},
                    {"offset", true}});
        const std::string block = blockArg(b["block"], var, rawName);
        const int index = intArg(b["buffer_index"], "the buffer's index");
        const int axis = intArg(b["axis"], "the axis");
        const int factor = intArg(b["factor"], "the factor");
        const int offset = intArg(b["offset"], "the offset");
        TirFunc after;
        try {
            after = tirStorageAlign(f, block, index, axis, factor, offset);
        } catch (const ScheduleError& e) {
            throw refused(e, {b["block"].loc, b["buffer_index"].loc, b["axis"].loc, b["factor"].loc,
                              b["offset"].loc});
        }
        recordTirStep(var, name, block, std::move(after));
        trace(var, "sch.storage_align(block=" + traceName(b["block"].value) +
                       ", buffer_index=" + std::to_string(index) +
                       ", axis=" + std::to_string(axis) + ", factor=" + std::to_string(factor) +
                       ", offset=" + std::to_string(offset) + ")");
        return Value::none();
    }
    if (name == "compute_inline" || name == "reverse_compute_inline") {
        Bound b(c, {{"block", true}});
        const std::string block = blockArg(b["block"], var, rawName);
        TirFunc after;
        try {
            after = name == "compute_inline" ? tirComputeInline(f, block)
                                             : tirReverseComputeInline(f, block);
        } catch (const ScheduleError& e) {
            throw refused(e, {b["block"].loc});
        }
        recordTirStep(var, name, block, std::move(after));
        trace(var, "sch." + name + "(block=" + traceName(b["block"].value) + ")");
        return Value::none();
    }
    if (name == "rfactor") {
        Bound b(c, {{"loop", true}, {"factor_axis", true}});
        const Var loop = loopArg(b["loop"], var, rawName);
        const int axis = intArg(b["factor_axis"], "factor_axis");
        std::string rf;
        TirFunc after;
        try {
            after = tirRfactor(f, loop, axis, &rf);
        } catch (const ScheduleError& e) {
            throw refused(e, {b["loop"].loc, b["factor_axis"].loc});
        }
        const std::string block = blockUnder(f, loop);
        recordTirStep(var, name, block, std::move(after));
        Value h = blockValue(rf);
        const std::string loopName = traceName(b["loop"].value);
        trace(var, newTraceName(var, h) + " = sch.rfactor(loop=" + loopName +
                       ", factor_axis=" + std::to_string(axis) + ")");
        return h;
    }
    if (name == "set_scope") {
        Bound b(c, {{"block", true}, {"buffer_index", true}, {"storage_scope", true}});
        const std::string block = blockArg(b["block"], var, rawName);
        const int i = intArg(b["buffer_index"], "the buffer's index");
        const std::string scope = stringArg(b["storage_scope"], "the storage scope");
        TirFunc after;
        try {
            after = tirSetScope(f, block, i, scope);
        } catch (const ScheduleError& e) {
            throw refused(e, {b["block"].loc, b["buffer_index"].loc, b["storage_scope"].loc});
        }
        recordTirStep(var, name, block, std::move(after));
        trace(var, "sch.set_scope(block=" + traceName(b["block"].value) + ", buffer_index=" +
                       std::to_string(i) + ", storage_scope=\"" + scope + "\")");
        return Value::none();
    }
    if (name == "annotate" || name == "unannotate") {
        const bool add = name == "annotate";
        Bound b = add ? Bound(c, {{"block_or_loop", true}, {"ann_key", true}, {"ann_val", true}})
                      : Bound(c, {{"block_or_loop", true}, {"ann_key", true}});
        const bool onLoop = b["block_or_loop"].value.kind == VKind::TirLoop;
        const std::string block =
            onLoop ? std::string() : blockArg(b["block_or_loop"], var, rawName);
        const std::string key = stringArg(b["ann_key"], "the annotation's key");
        Expr value;
        if (add) {
            const Value& v = b["ann_val"].value;
            if (v.kind == VKind::Str)
                value = Expr(std::make_shared<StringImmNode>(v.s));
            else if (v.kind == VKind::Int || v.kind == VKind::Bool)
                value = makeInt(v.i);
            else if (v.kind == VKind::Float)
                value = makeFloat(v.f);
            else
                throw UserError(b["ann_val"].loc,
                                "an annotation's value is a number or a string, not " +
                                    typeName(v));
        }
        TirFunc after;
        std::string recordedBlock = block;
        try {
            if (onLoop) {
                const Var loop = loopArg(b["block_or_loop"], var, rawName);
                after = tirAnnotateLoop(f, loop, key, value);
                recordedBlock = blockUnder(after, loop);
            } else {
                after = tirAnnotateBlock(f, block, key, value);
            }
        } catch (const ScheduleError& e) {
            throw refused(e, {b["block_or_loop"].loc, b["ann_key"].loc});
        }
        recordTirStep(var, name, recordedBlock, std::move(after));
        std::string line = "sch." + name + "(block_or_loop=" + traceName(b["block_or_loop"].value) +
                           ", ann_key=\"" + key + "\"";
        if (add) line += ", ann_val=" + printExpr(value);
        trace(var, line + ")");
        return Value::none();
    }
    if (name == "blockize") {
        Bound b(c, {{"target", true}, {"preserve_unit_iters", false}});
        const Arg& t = b["target"];
        if (t.value.kind != VKind::TirLoop)
            throw UserError(t.loc, "blockize takes a loop here (blockize of a list of blocks is "
                                   "not supported yet), not " +
                                       typeName(t.value));
        if (b.has("preserve_unit_iters") && !(b["preserve_unit_iters"].value.kind == VKind::Bool &&
                                              b["preserve_unit_iters"].value.i != 0))
            throw UserError(b["preserve_unit_iters"].loc,
                            "only preserve_unit_iters=True (the default) is supported");
        const Var loop = loopArg(t, var, rawName);
        std::string outer;
        TirFunc after;
        try {
            after = tirBlockize(f, loop, &outer);
        } catch (const ScheduleError& e) {
            throw refused(e, {t.loc});
        }
        recordTirStep(var, name, outer, std::move(after));
        Value h = blockValue(outer);
        const std::string loopName = traceName(t.value);
        trace(var, newTraceName(var, h) + " = sch.blockize(target=" + loopName +
                       ", preserve_unit_iters=True)");
        return h;
    }
    if (name == "transform_layout") {
        Bound b(c, {{"block", true},
                    {"buffer", true},
                    {"index_map", true},
                    {"pad_value", false},
                    {"assume_injective_transform", false}});
        const std::string block = blockArg(b["block"], var, rawName);
        const BlockNode* blk = findBlock(f, block);
        // The buffer: ("read" or "write", index), or its name among what the block accesses.
        const Arg& buf = b["buffer"];
        bool write = true;
        int index = -1;
        std::string bufferText;
        if (buf.value.isSeq() && buf.value.items.size() == 2 &&
            buf.value.items[0].kind == VKind::Str && buf.value.items[1].kind == VKind::Int &&
            (buf.value.items[0].s == "read" || buf.value.items[0].s == "write")) {
            write = buf.value.items[0].s == "write";
            index = static_cast<int>(buf.value.items[1].i);
            bufferText = "(\"" + buf.value.items[0].s + "\", " + std::to_string(index) + ")";
        } else if (buf.value.kind == VKind::Str) {
            for (std::size_t i = 0; i < blk->writes.size() && index < 0; ++i)
                if (blk->writes[i].tensor->name == buf.value.s) index = static_cast<int>(i);
            for (std::size_t i = 0; i < blk->reads.size() && index < 0; ++i)
                if (blk->reads[i].tensor->name == buf.value.s) {
                    index = static_cast<int>(i);
                    write = false;
                }
            if (index < 0)
                throw UserError(buf.loc, "block '" + block + "' does not access a buffer named '" +
                                             buf.value.s + "'");
            bufferText = "(\"" + std::string(write ? "write" : "read") + "\", " +
                         std::to_string(index) + ")";
        } else {
            throw UserError(buf.loc, "the buffer is (\"read\" or \"write\", index) or its name, "
                                     "not " +
                                         typeName(buf.value));
        }
        if (b.has("pad_value") && b["pad_value"].value.kind != VKind::None)
            throw UserError(b["pad_value"].loc, "pad_value is not supported yet: a layout "
                                                "transformation here is one to one");
        const Arg& m = b["index_map"];
        if (m.value.kind != VKind::Lambda)
            throw UserError(m.loc, "the index map is a lambda of the buffer's indices "
                                   "(lambda i, j: (i // 4, j, i % 4)), not " +
                                       typeName(m.value));
        std::vector<Var> params;
        std::vector<Expr> to = indexMap(*m.value.lambda, &params);
        TirFunc after;
        try {
            after = tirTransformLayout(f, block, write, index, params, to);
        } catch (const ScheduleError& e) {
            throw refused(e, {b["block"].loc, buf.loc, m.loc});
        }
        recordTirStep(var, name, block, std::move(after));
        std::string names, results;
        for (const Var& p : params)
            names += (names.empty() ? "" : ", ") + p->name;
        for (const Expr& e : to)
            results += (results.empty() ? "" : ", ") + printExpr(e);
        if (to.size() == 1) results += ",";
        trace(var, "sch.transform_layout(block=" + traceName(b["block"].value) +
                       ", buffer=" + bufferText + ", index_map=lambda " + names + ": (" + results +
                       "), pad_value=None, assume_injective_transform=False)");
        return Value::none();
    }
    if (name == "work_on") return Value::none();
    throw UserError(c.loc, "tir.Schedule method '" + rawName + "' is not supported yet");
}

} // namespace loopscope::te_detail

namespace loopscope {

std::string traceText(const Variant& v)
{
    const TirFunc* f = v.snapshots.empty() ? nullptr : v.snapshots.front().tensorIR();
    if (!f) return {};
    const bool s26 = f->spelling == TirSpelling::Tvm026;
    std::string out = std::string("# from tvm import ") + (s26 ? "s_tir" : "tir") +
                      "\ndef apply_trace(sch: " + (s26 ? "s_tir" : "tir") + ".Schedule) -> None:\n";
    for (const std::string& line : v.trace)
        out += "  " + line + "\n";
    if (v.trace.empty()) out += "  pass\n";
    return out;
}

} // namespace loopscope
