#include "te/TirStepWriter.h"

#include "ir/IRUtil.h"
#include "schedule/TensorIR.h"
#include "te/StepWriter.h"

#include <algorithm>
#include <optional>

namespace loopscope {

TirScriptNames tirScriptNames(const Variant& variant)
{
    TirScriptNames out;
    if (!variant.scheduleVar.empty()) out.scheduleVar = variant.scheduleVar;
    out.blockVars = variant.blockVars;
    out.loopVars = variant.blockLoopVars;
    out.used.insert(variant.names.begin(), variant.names.end());
    return out;
}

const std::vector<std::string>& tirOnlyPrimitives()
{
    static const std::vector<std::string> names = {"reverse_compute_at", "reverse_compute_inline",
                                                   "decompose_reduction", "blockize"};
    return names;
}

std::string tirLacks(const std::string& primitive)
{
    if (primitive == "compute_root")
        return "tir.Schedule has no compute_root: a block stays where it is until compute_at "
               "moves it";
    if (primitive == "double_buffer")
        return "tir.Schedule has no double_buffer (TVM pipelines loops by annotations, which "
               "Loopscope does not support yet)";
    return {};
}

namespace {

std::string quoted(const std::string& s)
{
    return "'" + s + "'";
}

// A step's refusal: raised where the request cannot be written, caught by writeTirStep.
struct Refusal {
    std::string why;
};

class Writer {
public:
    Writer(const TirFunc& f, TirScriptNames names) : m_f(f), m_names(std::move(names)) {}

    TirFunc f() const { return m_f; }
    void setF(TirFunc f) { m_f = std::move(f); }
    const std::vector<std::string>& lines() const { return m_lines; }
    void line(std::string l) { m_lines.push_back(std::move(l)); }
    std::string sch() const { return m_names.scheduleVar; }

    std::string fresh(const std::string& base)
    {
        std::string name = uniqueName(pythonIdentifier(base), m_names.used);
        m_names.used.insert(name);
        return name;
    }

    // The block named `name`, a refusal when there is none.
    const BlockNode* block(const std::string& name) const
    {
        const BlockNode* b = name == "root" ? nullptr : findBlock(m_f, name);
        if (!b) throw Refusal{"there is no block " + quoted(name)};
        return b;
    }

    // The variable holding block `name`, bound first when the script holds it in none.
    std::string blockVar(const std::string& name)
    {
        block(name);
        if (auto it = m_names.blockVars.find(name); it != m_names.blockVars.end())
            return it->second;
        const std::string v = fresh("block_" + name);
        const bool s26 = m_f.spelling == TirSpelling::Tvm026;
        line(v + " = " + sch() + (s26 ? ".get_sblock(\"" : ".get_block(\"") + name + "\")");
        m_names.blockVars[name] = v;
        return v;
    }

    // The loop named `loop` above block `blockName`.
    Var loop(const std::string& blockName, const std::string& loopName) const
    {
        block(blockName);
        for (const Var& l : blockLoops(m_f, blockName))
            if (l->name == loopName) return l;
        throw Refusal{"loop " + quoted(loopName) + " is not above block " + quoted(blockName)};
    }

    // The variable holding that loop: every loop of the block bound first when the script holds
    // this one in none (`i, j, k = sch.get_loops(block_C)`).
    std::string loopVar(const std::string& blockName, const Var& l)
    {
        std::map<std::string, std::string>& held = m_names.loopVars[blockName];
        if (auto it = held.find(l->name); it != held.end()) return it->second;
        const std::string b = blockVar(blockName);
        const std::vector<Var> loops = blockLoops(m_f, blockName);
        std::string lhs;
        for (const Var& x : loops) {
            auto it = held.find(x->name);
            const std::string name = it != held.end() ? it->second : fresh(x->name);
            held[x->name] = name;
            lhs += (lhs.empty() ? "" : ", ") + name;
        }
        if (loops.size() == 1) lhs += ",";
        line(lhs + " = " + sch() + ".get_loops(" + b + ")");
        return held.at(l->name);
    }

    // What a step binds, named after what TVM names it, and held from then on.
    std::string bindLoop(const std::string& blockName, const Var& l)
    {
        const std::string v = fresh(l->name);
        m_names.loopVars[blockName][l->name] = v;
        return v;
    }
    std::string bindBlock(const std::string& name)
    {
        const std::string v = fresh("block_" + name);
        m_names.blockVars[name] = v;
        return v;
    }

private:
    TirFunc m_f;
    TirScriptNames m_names;
    std::vector<std::string> m_lines;
};

const NamedArg& given(const NamedStep& s, const std::string& arg, const std::string& what)
{
    const NamedArg* a = s.arg(arg);
    if (!a || (a->names.empty() && a->text.empty() && a->number == 0)) throw Refusal{what};
    return *a;
}

std::string oneName(const NamedStep& s, const std::string& arg, const std::string& what)
{
    const NamedArg& a = given(s, arg, what);
    if (a.names.size() != 1) throw Refusal{what};
    return a.names.front();
}

// Applies a TensorIR primitive to the writer's function, its refusal the step's.
template <typename Apply> void apply(Writer& w, Apply&& fn)
{
    try {
        w.setF(fn(w.f()));
    } catch (const ScheduleError& e) {
        throw Refusal{e.message()};
    }
}

// The dimension of the block's written buffer that loop `l` walks: the block variable bound to a
// value of the loop, at the buffer's index it writes.
int walkedDimension(const BlockNode* b, const Var& l)
{
    if (b->writes.empty()) return -1;
    for (const BlockIter& it : b->iters) {
        if (!it.binding.defined() || !usesVar(it.binding, l.get())) continue;
        const std::vector<Range>& region = b->writes.front().region;
        for (std::size_t d = 0; d < region.size(); ++d)
            if (region[d].min.as<VarNode>() == it.var.get()) return static_cast<int>(d);
    }
    return -1;
}

void writeSplit(Writer& w, const std::string& block, const Var& l,
                std::optional<std::int64_t> factor, std::optional<std::int64_t> nparts,
                std::vector<std::string>* results)
{
    const std::string lv = w.loopVar(block, l);
    std::vector<std::optional<std::int64_t>> factors =
        factor ? std::vector<std::optional<std::int64_t>>{std::nullopt, *factor}
               : std::vector<std::optional<std::int64_t>>{*nparts, std::nullopt};
    std::vector<Var> out;
    apply(w, [&](const TirFunc& f) { return tirSplit(f, l, factors, &out); });
    std::string lhs;
    for (const Var& v : out) {
        results->push_back(w.bindLoop(block, v));
        lhs += (lhs.empty() ? "" : ", ") + results->back();
    }
    w.line(lhs + " = " + w.sch() + ".split(" + lv + ", factors=[" +
           (factor ? "None, " + std::to_string(*factor) : std::to_string(*nparts) + ", None") +
           "])");
}

void write(Writer& w, const NamedStep& s)
{
    const std::string& p = s.primitive;
    const std::string& block = s.stage;
    auto loopArg = [&](const std::string& arg) {
        return w.loop(block, oneName(s, arg, "select one loop to " + p));
    };
    auto loopList = [&](const std::string& arg) {
        std::vector<Var> loops;
        if (const NamedArg* a = s.arg(arg))
            for (const std::string& n : a->names)
                loops.push_back(w.loop(block, n));
        if (loops.size() < 2) throw Refusal{p + " needs two or more loops"};
        return loops;
    };
    auto number = [&](const std::string& arg) -> std::optional<std::int64_t> {
        const NamedArg* a = s.arg(arg);
        return a ? std::optional<std::int64_t>(a->number) : std::nullopt;
    };
    if (p == "split") {
        const Var l = loopArg("parent");
        const auto factor = number("factor"), nparts = number("nparts");
        if (factor.has_value() == nparts.has_value())
            throw Refusal{"split needs a factor or a number of parts"};
        std::vector<std::string> names;
        writeSplit(w, block, l, factor, nparts, &names);
    } else if (p == "tile") {
        const Var x = loopArg("x_parent"), y = loopArg("y_parent");
        std::vector<std::string> xs, ys;
        writeSplit(w, block, x, number("x_factor").value_or(1), std::nullopt, &xs);
        writeSplit(w, block, y, number("y_factor").value_or(1), std::nullopt, &ys);
        // The four loops the splits made (NAME_0, NAME_1), outer parts first.
        const std::vector<Var> loops = blockLoops(w.f(), block);
        auto byName = [&](const std::string& suffix, const Var& parent) {
            for (const Var& l : loops)
                if (l->name == parent->name + suffix) return l;
            throw Refusal{"tile: the split of " + quoted(parent->name) + " is gone"};
        };
        const std::vector<Var> order = {byName("_0", x), byName("_0", y), byName("_1", x),
                                        byName("_1", y)};
        apply(w, [&](const TirFunc& f) { return tirReorder(f, order); });
        w.line(w.sch() + ".reorder(" + xs[0] + ", " + ys[0] + ", " + xs[1] + ", " + ys[1] + ")");
    } else if (p == "fuse") {
        const std::vector<Var> loops = loopList("args");
        std::string args;
        for (const Var& l : loops)
            args += (args.empty() ? "" : ", ") + w.loopVar(block, l);
        Var out;
        apply(w, [&](const TirFunc& f) { return tirFuse(f, loops, &out); });
        w.line(w.bindLoop(block, out) + " = " + w.sch() + ".fuse(" + args + ")");
    } else if (p == "reorder") {
        const std::vector<Var> loops = loopList("args");
        std::string args;
        for (const Var& l : loops)
            args += (args.empty() ? "" : ", ") + w.loopVar(block, l);
        apply(w, [&](const TirFunc& f) { return tirReorder(f, loops); });
        w.line(w.sch() + ".reorder(" + args + ")");
    } else if (p == "parallel" || p == "vectorize" || p == "unroll") {
        const Var l = loopArg("var");
        const ForKind kind = p == "parallel"    ? ForKind::Parallel
                             : p == "vectorize" ? ForKind::Vectorized
                                                : ForKind::Unrolled;
        const std::string lv = w.loopVar(block, l);
        apply(w, [&](const TirFunc& f) { return tirSetKind(f, l, kind); });
        w.line(w.sch() + "." + p + "(" + lv + ")");
    } else if (p == "bind") {
        const Var l = loopArg("ivar");
        std::string thread = given(s, "thread_ivar", "choose a thread axis to bind to").text;
        if (thread == "vthread") thread = "vthread.x"; // TensorIR names each virtual thread axis
        if (std::string why = tirBindLimitation(w.f(), l, thread); !why.empty()) throw Refusal{why};
        const std::string lv = w.loopVar(block, l);
        apply(w,
              [&](const TirFunc& f) { return tirSetKind(f, l, ForKind::ThreadBinding, thread); });
        w.line(w.sch() + ".bind(" + lv + ", \"" + thread + "\")");
    } else if (p == "compute_at" || p == "reverse_compute_at") {
        const std::string target = oneName(
            s, "parent",
            "choose a loop of a " + std::string(p == "compute_at" ? "consumer" : "producer") +
                " to compute " + quoted(block) + " at");
        const Var l = w.loop(target, oneName(s, "scope", "choose a loop of " + quoted(target)));
        const std::string bv = w.blockVar(block);
        const std::string lv = w.loopVar(target, l);
        apply(w, [&](const TirFunc& f) {
            return tirComputeAt(f, block, l, p == "reverse_compute_at", false);
        });
        w.line(w.sch() + "." + p + "(" + bv + ", " + lv + ")");
    } else if (p == "compute_inline" || p == "reverse_compute_inline") {
        const std::string bv = w.blockVar(block);
        apply(w, [&](const TirFunc& f) {
            return p == "compute_inline" ? tirComputeInline(f, block)
                                         : tirReverseComputeInline(f, block);
        });
        w.line(w.sch() + "." + p + "(" + bv + ")");
    } else if (p == "cache_read") {
        // The stage is what is read (a block's output or an input); the cache serves one reader.
        const NamedArg& readers = given(s, "readers", "choose the block to read through the cache");
        if (readers.names.size() != 1)
            throw Refusal{"tir.Schedule's cache_read serves one reading block here (its "
                          "consumer_blocks is not supported yet): choose one reader"};
        const std::string reader = readers.names.front();
        const BlockNode* r = w.block(reader);
        Tensor read;
        if (const BlockNode* producer = block == "root" ? nullptr : findBlock(w.f(), block)) {
            if (!producer->writes.empty()) read = producer->writes.front().tensor;
        } else {
            for (const Tensor& t : w.f().params)
                if (t->name == block) read = t;
        }
        int index = -1;
        for (std::size_t i = 0; read && i < r->reads.size(); ++i)
            if (r->reads[i].tensor == read) index = static_cast<int>(i);
        if (index < 0) throw Refusal{quoted(reader) + " does not read " + quoted(block)};
        const std::string scope = given(s, "scope", "choose a storage scope").text;
        const std::string rv = w.blockVar(reader);
        std::string cache;
        apply(w, [&](const TirFunc& f) { return tirCacheRead(f, reader, index, scope, &cache); });
        w.line(w.bindBlock(cache) + " = " + w.sch() + ".cache_read(" + rv + ", " +
               std::to_string(index) + ", \"" + scope + "\")");
    } else if (p == "cache_write") {
        const std::string scope = given(s, "scope", "choose a storage scope").text;
        const std::string bv = w.blockVar(block);
        std::string cache;
        apply(w, [&](const TirFunc& f) { return tirCacheWrite(f, block, 0, scope, &cache); });
        w.line(w.bindBlock(cache) + " = " + w.sch() + ".cache_write(" + bv + ", 0, \"" + scope +
               "\")");
    } else if (p == "rfactor") {
        const Var l = loopArg("axis");
        const int axis = static_cast<int>(number("factor_axis").value_or(0));
        const std::string lv = w.loopVar(block, l);
        std::string rf;
        apply(w, [&](const TirFunc& f) { return tirRfactor(f, l, axis, &rf); });
        w.line(w.bindBlock(rf) + " = " + w.sch() + ".rfactor(" + lv + ", " + std::to_string(axis) +
               ")");
    } else if (p == "decompose_reduction") {
        const Var l = loopArg("loop");
        const std::string bv = w.blockVar(block);
        const std::string lv = w.loopVar(block, l);
        std::string init;
        apply(w, [&](const TirFunc& f) { return tirDecomposeReduction(f, block, l, &init); });
        w.line(w.bindBlock(init) + " = " + w.sch() + ".decompose_reduction(" + bv + ", " + lv +
               ")");
    } else if (p == "pragma") {
        // A pragma is an annotation of the loop, "pragma_" before its name (TE's value 1 when
        // it takes none).
        const Var l = loopArg("var");
        const std::string type = given(s, "pragma_type", "choose a pragma").text;
        if (type == "unroll") { // TE's unroll pragma is the loop's kind
            const std::string lv = w.loopVar(block, l);
            apply(w, [&](const TirFunc& f) { return tirSetKind(f, l, ForKind::Unrolled); });
            w.line(w.sch() + ".unroll(" + lv + ")");
            return;
        }
        const std::string key = "pragma_" + type;
        const std::int64_t value = number("pragma_value").value_or(1);
        const std::string lv = w.loopVar(block, l);
        apply(w, [&](const TirFunc& f) { return tirAnnotateLoop(f, l, key, makeInt(value)); });
        w.line(w.sch() + ".annotate(" + lv + ", \"" + key + "\", " + std::to_string(value) + ")");
    } else if (p == "blockize") {
        const Var l = loopArg("loop");
        const std::string lv = w.loopVar(block, l);
        std::string outer;
        apply(w, [&](const TirFunc& f) { return tirBlockize(f, l, &outer); });
        w.line(w.bindBlock(outer) + " = " + w.sch() + ".blockize(" + lv + ")");
    } else if (p == "storage_align") {
        const Var l = loopArg("axis");
        const int dim = walkedDimension(w.block(block), l);
        if (dim < 0)
            throw Refusal{quoted(l->name) + " walks no dimension of the buffer " + quoted(block) +
                          " writes"};
        const int factor = static_cast<int>(number("factor").value_or(1));
        const int offset = static_cast<int>(number("offset").value_or(0));
        const std::string bv = w.blockVar(block);
        apply(w,
              [&](const TirFunc& f) { return tirStorageAlign(f, block, 0, dim, factor, offset); });
        w.line(w.sch() + ".storage_align(" + bv + ", 0, axis=" + std::to_string(dim) +
               ", factor=" + std::to_string(factor) + ", offset=" + std::to_string(offset) + ")");
    } else {
        const std::string why = tirLacks(p);
        throw Refusal{why.empty() ? "tir.Schedule has no " + p : why};
    }
}

} // namespace

TirWrittenStep writeTirStep(const TirFunc& f, const TirScriptNames& names, const NamedStep& step)
{
    TirWrittenStep out;
    Writer w(f, names);
    try {
        if (step.stage.empty()) throw Refusal{"select a block"};
        write(w, step);
        out.lines = w.lines();
        out.after = w.f();
    } catch (const Refusal& r) {
        out.refusal = r.why;
    }
    return out;
}

} // namespace loopscope
