#include "editor/StatementWriter.h"

#include <algorithm>
#include <sstream>

namespace loopscope {

namespace {

std::string quoted(const std::string& s)
{
    return "'" + s + "'";
}

bool isLoopPrimitive(Primitive p)
{
    switch (p) {
    case Primitive::Split:
    case Primitive::Tile:
    case Primitive::Fuse:
    case Primitive::Reorder:
    case Primitive::Vectorize:
    case Primitive::Parallel:
    case Primitive::Unroll:
    case Primitive::Pragma:
    case Primitive::Bind:
    case Primitive::StorageAlign: return true;
    default: return false;
    }
}

bool isPlaceholder(const StageInfo& s)
{
    return s.kind == "placeholder";
}

int leafIndex(const StageInfo& s, const std::string& var)
{
    for (std::size_t i = 0; i < s.axes.size(); ++i)
        if (s.axes[i].var == var) return static_cast<int>(i);
    return -1;
}

const AxisInfo* findAxis(const StageInfo& s, const std::string& var)
{
    int i = leafIndex(s, var);
    return i < 0 ? nullptr : &s.axes[static_cast<std::size_t>(i)];
}

std::string displayName(const std::string& var)
{
    std::string out = var;
    std::replace(out.begin(), out.end(), '.', '_');
    return out;
}

// The name to show for an axis var of a stage: its printed name when it is a loop.
std::string shownAxis(const StageInfo& s, const std::string& var)
{
    const AxisInfo* a = findAxis(s, var);
    return quoted(a ? a->name : displayName(var));
}

bool isRoot(const StageInfo& s, const std::string& var)
{
    return std::find(s.rootAxes.begin(), s.rootAxes.end(), var) != s.rootAxes.end();
}

// The root axis a loop axis derives from: the longest root that is the var or a dotted prefix.
std::string rootOf(const StageInfo& s, const std::string& var)
{
    std::string best;
    for (auto& r : s.rootAxes) {
        bool derived = var == r || (var.size() > r.size() && var.compare(0, r.size(), r) == 0 &&
                                    var[r.size()] == '.');
        if (derived && r.size() > best.size()) best = r;
    }
    return best;
}

// Whether the root axis at `index` of rootAxes is a reduction axis (by the loops derived from
// it); -1 when no loop tells.
int rootIsReduction(const StageInfo& s, const std::string& root)
{
    for (auto& a : s.axes)
        if (rootOf(s, a.var) == root) return a.reduction ? 1 : 0;
    return -1;
}

// Root axes come as op.axis then op.reduce_axis: the number of data-parallel ones.
int dataParallelRootCount(const StageInfo& s)
{
    for (std::size_t i = 0; i < s.rootAxes.size(); ++i)
        if (rootIsReduction(s, s.rootAxes[i]) == 1) return static_cast<int>(i);
    return static_cast<int>(s.rootAxes.size());
}

// The stage's loops are still its root axes in order, none annotated.
bool isUnscheduled(const StageInfo& s)
{
    if (s.axes.size() != s.rootAxes.size()) return false;
    for (std::size_t i = 0; i < s.axes.size(); ++i)
        if (s.axes[i].var != s.rootAxes[i] || s.axes[i].kind != "serial") return false;
    return true;
}

bool anyAnnotated(const StageInfo& s)
{
    return std::any_of(s.axes.begin(), s.axes.end(),
                       [](const AxisInfo& a) { return a.kind != "serial"; });
}

std::string joined(const std::vector<std::string>& items, const std::string& sep)
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? sep : "") + items[i];
    return out;
}

const std::vector<std::string> kPragmas = {"unroll",
                                           "vectorize",
                                           "auto_unroll_max_step",
                                           "unroll_explicit",
                                           "parallel_launch_point",
                                           "parallel_stride_pattern",
                                           "parallel_barrier_when_finish",
                                           "import_llvm",
                                           "import_c"};

} // namespace

std::string primitiveName(Primitive p)
{
    switch (p) {
    case Primitive::Split: return "split";
    case Primitive::Tile: return "tile";
    case Primitive::Fuse: return "fuse";
    case Primitive::Reorder: return "reorder";
    case Primitive::Vectorize: return "vectorize";
    case Primitive::Parallel: return "parallel";
    case Primitive::Unroll: return "unroll";
    case Primitive::ComputeAt: return "compute_at";
    case Primitive::ComputeInline: return "compute_inline";
    case Primitive::ComputeRoot: return "compute_root";
    case Primitive::Pragma: return "pragma";
    case Primitive::StorageAlign: return "storage_align";
    case Primitive::CacheRead: return "cache_read";
    case Primitive::CacheWrite: return "cache_write";
    case Primitive::Rfactor: return "rfactor";
    case Primitive::Bind: return "bind";
    }
    return "";
}

StatementWriter::StatementWriter(std::vector<StageInfo> stages, ScheduleContext context)
    : m_stages(std::move(stages)), m_context(std::move(context))
{
}

const StageInfo* StatementWriter::findStage(const std::string& name) const
{
    for (auto& s : m_stages)
        if (s.name == name) return &s;
    return nullptr;
}

std::string StatementWriter::uniqueName(const std::string& base, const std::set<std::string>& used)
{
    if (!used.count(base)) return base;
    for (int k = 1;; ++k) {
        std::string candidate = base + "_" + std::to_string(k);
        if (!used.count(candidate)) return candidate;
    }
}

std::string StatementWriter::axisVariable(const std::string& stage,
                                          const std::string& axisVar) const
{
    if (auto s = m_context.stageAxisVars.find(stage); s != m_context.stageAxisVars.end())
        if (auto a = s->second.find(axisVar); a != s->second.end()) return a->second;
    if (auto a = m_context.axisVars.find(axisVar); a != m_context.axisVars.end()) return a->second;
    return {};
}

std::vector<std::string> StatementWriter::consumersOf(const std::string& stage) const
{
    if (auto it = m_context.readers.find(stage); it != m_context.readers.end()) return it->second;
    std::vector<std::string> out;
    bool after = false;
    for (auto& s : m_stages) {
        if (after && !isPlaceholder(s)) out.push_back(s.name);
        if (s.name == stage) after = true;
    }
    return out;
}

std::string StatementWriter::whyIllegal(const PrimitiveRequest& request) const
{
    return build(request).refusal;
}

WrittenStatement StatementWriter::write(const PrimitiveRequest& request) const
{
    return build(request);
}

std::string StatementWriter::check(const PrimitiveRequest& r) const
{
    const StageInfo* st = findStage(r.stage);
    if (!st) return r.stage.empty() ? "select a stage" : "there is no stage " + quoted(r.stage);
    const std::string& name = st->name;
    const Primitive p = r.primitive;

    if (isLoopPrimitive(p)) {
        if (isPlaceholder(*st))
            return quoted(name) + " is a placeholder; it has no loops to schedule";
        if (st->attach == "inline")
            return quoted(name) + " is inlined; it has no loops (compute_root it first)";
    }
    auto needAxes = [&](std::size_t n, const std::string& what) -> std::string {
        if (r.axes.size() != n) return what;
        for (auto& a : r.axes)
            if (leafIndex(*st, a) < 0)
                return "axis " + shownAxis(*st, a) + " is not a loop of " + quoted(name);
        return {};
    };
    auto axis = [&](std::size_t i) { return findAxis(*st, r.axes[i]); };

    switch (p) {
    case Primitive::Split: {
        if (auto e = needAxes(1, "select one axis to split"); !e.empty()) return e;
        if (r.factor <= 0)
            return std::string("split ") + (r.nparts ? "nparts" : "factor") +
                   " must be a positive integer";
        return {};
    }
    case Primitive::Tile: {
        if (r.axes.size() != 2) return "tile needs two axes, x and y";
        if (r.axes[0] == r.axes[1]) return "tile needs two different axes";
        if (auto e = needAxes(2, ""); !e.empty()) return e;
        if (r.factor <= 0 || r.yFactor <= 0) return "tile factor must be a positive integer";
        return {};
    }
    case Primitive::Fuse: {
        if (r.axes.size() < 2) return "fuse needs two or more adjacent axes";
        if (auto e = needAxes(r.axes.size(), ""); !e.empty()) return e;
        std::vector<std::string> sorted = r.axes;
        std::sort(sorted.begin(), sorted.end(),
                  [&](auto& a, auto& b) { return leafIndex(*st, a) < leafIndex(*st, b); });
        for (std::size_t k = 1; k < sorted.size(); ++k) {
            const AxisInfo* outer = findAxis(*st, sorted[k - 1]);
            const AxisInfo* inner = findAxis(*st, sorted[k]);
            if (outer == inner)
                return "axis " + quoted(outer->name) + " appears more than once in fuse";
            if (outer->reduction != inner->reduction) {
                return "cannot fuse data-parallel axis with reduction axis: " +
                       quoted(outer->name) + " and " + quoted(inner->name);
            }
            if (leafIndex(*st, sorted[k]) != leafIndex(*st, sorted[k - 1]) + 1) {
                return "can only fuse adjacent axes: " + quoted(outer->name) + " and " +
                       quoted(inner->name) + " are not next to each other";
            }
        }
        return {};
    }
    case Primitive::Reorder: {
        if (r.axes.size() < 2) return "reorder needs two or more axes";
        if (auto e = needAxes(r.axes.size(), ""); !e.empty()) return e;
        for (std::size_t i = 0; i < r.axes.size(); ++i)
            for (std::size_t j = 0; j < i; ++j)
                if (r.axes[i] == r.axes[j])
                    return "axis " + shownAxis(*st, r.axes[i]) +
                           " appears more than once in reorder";
        std::vector<int> pos;
        for (auto& a : r.axes)
            pos.push_back(leafIndex(*st, a));
        if (std::is_sorted(pos.begin(), pos.end())) return "the loop order is unchanged";
        return {};
    }
    case Primitive::Vectorize:
    case Primitive::Parallel:
    case Primitive::Unroll: {
        if (auto e = needAxes(1, "select one axis to " + primitiveName(p)); !e.empty()) return e;
        const AxisInfo* a = axis(0);
        if (p == Primitive::Vectorize && a->reduction) {
            return "cannot vectorize reduction axis " + quoted(a->name) +
                   "; vectorize a data-parallel axis (reorder it innermost)";
        }
        if (p == Primitive::Parallel && a->reduction) {
            return "cannot parallelize reduction axis " + quoted(a->name) +
                   ": its iterations update the same output element";
        }
        const char* kind = p == Primitive::Vectorize  ? "vectorized"
                           : p == Primitive::Parallel ? "parallel"
                                                      : "unrolled";
        if (a->kind == kind) return quoted(a->name) + " is already " + kind;
        return {};
    }
    case Primitive::Pragma: {
        if (auto e = needAxes(1, "select one axis for the pragma"); !e.empty()) return e;
        if (std::find(kPragmas.begin(), kPragmas.end(), r.pragmaKey) == kPragmas.end()) {
            return "unknown pragma " + quoted(r.pragmaKey) +
                   "; for CPU the pragmas are unroll, vectorize, auto_unroll_max_step, "
                   "unroll_explicit, parallel_launch_point";
        }
        if (r.pragmaKey == "vectorize" && axis(0)->reduction) {
            return "cannot vectorize reduction axis " + quoted(axis(0)->name) +
                   "; vectorize a data-parallel axis (reorder it innermost)";
        }
        if (r.pragmaKey == "auto_unroll_max_step" && (!r.hasPragmaValue || r.pragmaValue < 0))
            return "pragma auto_unroll_max_step needs a non-negative integer value";
        return {};
    }
    case Primitive::Bind: {
        if (auto e = needAxes(1, "select one axis to bind"); !e.empty()) return e;
        if (r.threadTag.empty()) return "bind needs a thread axis such as threadIdx.x";
        return {};
    }
    case Primitive::StorageAlign: {
        if (auto e = needAxes(1, "select one axis to align"); !e.empty()) return e;
        const AxisInfo* a = axis(0);
        if (a->reduction || !isRoot(*st, a->var)) {
            return "storage_align needs one of the tensor's own dimensions (an axis of op.axis), "
                   "not a split or reduction axis";
        }
        if (r.factor <= 0) return "storage_align factor must be a positive integer";
        if (r.offset < 0 || r.offset >= r.factor)
            return "storage_align offset must be in [0, factor)";
        return {};
    }
    case Primitive::ComputeAt: {
        if (isPlaceholder(*st))
            return quoted(name) + " is a placeholder; only computed tensors can be attached";
        if (st->output) {
            return "cannot compute_at " + quoted(name) +
                   ": it is an output; only producers can be computed inside a consumer's loop";
        }
        std::vector<std::string> consumers = consumersOf(name);
        if (consumers.empty()) return quoted(name) + " has no consumer to be computed in";
        if (r.targetStage.empty() || r.targetAxis.empty())
            return "choose a loop of a consumer to compute " + quoted(name) + " at";
        const StageInfo* target = findStage(r.targetStage);
        if (!target) return "there is no stage " + quoted(r.targetStage);
        if (target == st) {
            return "cannot compute " + quoted(name) + " at its own axis " +
                   shownAxis(*st, r.targetAxis);
        }
        if (target->attach == "inline")
            return quoted(target->name) + " is inlined; it has no loops to compute " +
                   quoted(name) + " in";
        if (leafIndex(*target, r.targetAxis) < 0) {
            return "axis " + shownAxis(*target, r.targetAxis) + " is not a loop of " +
                   quoted(target->name);
        }
        if (std::find(consumers.begin(), consumers.end(), target->name) == consumers.end()) {
            return "cannot compute " + quoted(name) + " at a loop of " + quoted(target->name) +
                   ": " + quoted(target->name) + " does not read " + quoted(name);
        }
        if (st->attach == "at " + target->name + "." + findAxis(*target, r.targetAxis)->name) {
            return quoted(name) + " is already computed at " + target->name + "." +
                   findAxis(*target, r.targetAxis)->name;
        }
        return {};
    }
    case Primitive::ComputeInline: {
        if (isPlaceholder(*st))
            return quoted(name) + " is a placeholder; there is nothing to inline";
        if (st->kind == "reduction") {
            return "cannot inline " + quoted(name) +
                   ": it is a reduction; compute_at it into its consumer instead";
        }
        if (st->output) {
            return "cannot inline " + quoted(name) +
                   ": it is an output of the schedule and must be stored";
        }
        if (st->attach == "inline") return quoted(name) + " is already inlined";
        if (!isUnscheduled(*st)) {
            return "cannot inline " + quoted(name) +
                   ": its loops have been scheduled; an inlined stage has no loops";
        }
        return {};
    }
    case Primitive::ComputeRoot: {
        if (isPlaceholder(*st)) return quoted(name) + " is a placeholder";
        if (st->attach == "root") return quoted(name) + " is already computed at root";
        return {};
    }
    case Primitive::CacheRead: {
        if (st->attach == "inline")
            return quoted(name) + " is inlined; there is no buffer to cache";
        if (r.scope != "global" && r.scope != "local" && r.scope != "shared") {
            return "unknown storage scope " + quoted(r.scope) +
                   "; use \"global\", \"local\" or \"shared\"";
        }
        if (r.readers.empty()) {
            return consumersOf(name).empty() ? quoted(name) + " has no reader to cache it for"
                                             : "cache_read needs at least one reader";
        }
        std::vector<std::string> consumers = consumersOf(name);
        for (auto& reader : r.readers) {
            const StageInfo* rs = findStage(reader);
            if (!rs) return "reader " + quoted(reader) + " is not in the schedule";
            if (std::find(consumers.begin(), consumers.end(), reader) == consumers.end())
                return quoted(reader) + " does not read " + quoted(name);
        }
        return {};
    }
    case Primitive::CacheWrite: {
        if (isPlaceholder(*st))
            return "cannot cache_write " + quoted(name) + ": it is a placeholder";
        if (!isUnscheduled(*st) || st->attach != "root") {
            return "cache_write of " + quoted(name) + " must come before any other primitive on it";
        }
        if (r.scope != "global" && r.scope != "local" && r.scope != "shared") {
            return "unknown storage scope " + quoted(r.scope) +
                   "; use \"global\", \"local\" or \"shared\"";
        }
        return {};
    }
    case Primitive::Rfactor: {
        if (isPlaceholder(*st) || st->kind != "reduction")
            return "cannot rfactor " + quoted(name) + ": it is not a reduction";
        if (auto e = needAxes(1, "select a reduction axis to rfactor"); !e.empty()) return e;
        const AxisInfo* a = axis(0);
        if (!a->reduction)
            return "rfactor needs a reduction axis; " + quoted(a->name) + " is data-parallel";
        int ndim = dataParallelRootCount(*st);
        if (r.factorAxis < 0 || r.factorAxis > ndim)
            return "factor_axis must be between 0 and " + std::to_string(ndim);
        if (st->attach != "root" || anyAnnotated(*st)) {
            return "rfactor of " + quoted(name) +
                   " must come before compute_at or loop annotations on it";
        }
        std::string root = rootOf(*st, a->var);
        for (auto& other : st->axes) {
            if (rootOf(*st, other.var) == root) continue;
            if (!isRoot(*st, other.var)) {
                return "rfactor of " + quoted(name) +
                       " must come before splitting or fusing its other axes";
            }
        }
        return {};
    }
    }
    return {};
}

WrittenStatement StatementWriter::build(const PrimitiveRequest& r) const
{
    WrittenStatement out;
    out.refusal = check(r);
    if (!out.refusal.empty()) return out;

    const StageInfo& st = *findStage(r.stage);
    std::set<std::string> used = m_context.usedNames;
    std::vector<std::string> lines;
    std::string refusal;

    auto fresh = [&](const std::string& base) {
        std::string n = uniqueName(base, used);
        used.insert(n);
        return n;
    };
    auto tensorVar = [&](const std::string& stage) -> std::string {
        auto it = m_context.tensorVars.find(stage);
        if (it == m_context.tensorVars.end() || it->second.empty()) {
            if (refusal.empty()) {
                refusal = "tensor " + quoted(stage) +
                          " has no script variable, so the script cannot refer to its stage";
            }
            return "?";
        }
        return it->second;
    };
    const std::string& sch = m_context.scheduleVar;
    auto stageRef = [&](const std::string& stage) { return sch + "[" + tensorVar(stage) + "]"; };
    // The variable for a loop axis of `stage`, binding a root axis first when it has none.
    auto axisRef = [&](const std::string& stage, const std::string& var) -> std::string {
        std::string v = axisVariable(stage, var);
        if (!v.empty()) return v;
        const StageInfo& s = *findStage(stage);
        const AxisInfo& a = *findAxis(s, var);
        auto rootPos = std::find(s.rootAxes.begin(), s.rootAxes.end(), var);
        if (rootPos == s.rootAxes.end()) {
            if (refusal.empty()) {
                refusal = "axis " + quoted(a.name) +
                          " has no script variable: bind the result of the statement that "
                          "created it (e.g. `xo, xi = " +
                          sch + "[T].split(...)`)";
            }
            return "?";
        }
        int index = static_cast<int>(rootPos - s.rootAxes.begin());
        std::string list = "axis";
        if (a.reduction) {
            list = "reduce_axis";
            index -= dataParallelRootCount(s);
        }
        std::string name = fresh(displayName(a.name));
        lines.push_back(name + " = " + stageRef(stage) + ".op." + list + "[" +
                        std::to_string(index) + "]");
        return name;
    };
    auto display = [&](const std::string& var) { return findAxis(st, var)->name; };

    const std::string self = stageRef(st.name);
    switch (r.primitive) {
    case Primitive::Split: {
        std::string x = axisRef(st.name, r.axes[0]);
        std::string outer = fresh(display(r.axes[0]) + "_outer");
        std::string inner = fresh(display(r.axes[0]) + "_inner");
        lines.push_back(outer + ", " + inner + " = " + self + ".split(" + x + ", " +
                        (r.nparts ? "nparts=" : "factor=") + std::to_string(r.factor) + ")");
        break;
    }
    case Primitive::Tile: {
        std::string x = axisRef(st.name, r.axes[0]);
        std::string y = axisRef(st.name, r.axes[1]);
        std::string xo = fresh(display(r.axes[0]) + "_outer");
        std::string yo = fresh(display(r.axes[1]) + "_outer");
        std::string xi = fresh(display(r.axes[0]) + "_inner");
        std::string yi = fresh(display(r.axes[1]) + "_inner");
        lines.push_back(xo + ", " + yo + ", " + xi + ", " + yi + " = " + self + ".tile(" + x +
                        ", " + y + ", x_factor=" + std::to_string(r.factor) +
                        ", y_factor=" + std::to_string(r.yFactor) + ")");
        break;
    }
    case Primitive::Fuse: {
        std::vector<std::string> sorted = r.axes;
        std::sort(sorted.begin(), sorted.end(),
                  [&](auto& a, auto& b) { return leafIndex(st, a) < leafIndex(st, b); });
        std::vector<std::string> refs;
        std::string fusedName = display(sorted[0]);
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            refs.push_back(axisRef(st.name, sorted[i]));
            if (i) fusedName += "_" + display(sorted[i]) + "_fused";
        }
        lines.push_back(fresh(fusedName) + " = " + self + ".fuse(" + joined(refs, ", ") + ")");
        break;
    }
    case Primitive::Reorder: {
        std::vector<std::string> order = r.axes;
        if (order.size() == st.axes.size()) {
            // A full order: write only the axes that moved (reorder keeps the others in place).
            std::vector<std::string> moved;
            for (std::size_t i = 0; i < order.size(); ++i)
                if (st.axes[i].var != order[i]) moved.push_back(order[i]);
            order = moved;
        }
        std::vector<std::string> refs;
        for (auto& a : order)
            refs.push_back(axisRef(st.name, a));
        lines.push_back(self + ".reorder(" + joined(refs, ", ") + ")");
        break;
    }
    case Primitive::Vectorize:
    case Primitive::Parallel:
    case Primitive::Unroll: {
        std::string x = axisRef(st.name, r.axes[0]);
        lines.push_back(self + "." + primitiveName(r.primitive) + "(" + x + ")");
        break;
    }
    case Primitive::Pragma: {
        std::string x = axisRef(st.name, r.axes[0]);
        std::string value = r.hasPragmaValue ? ", " + std::to_string(r.pragmaValue) : "";
        lines.push_back(self + ".pragma(" + x + ", \"" + r.pragmaKey + "\"" + value + ")");
        break;
    }
    case Primitive::Bind: {
        std::string x = axisRef(st.name, r.axes[0]);
        lines.push_back(self + ".bind(" + x + ", te.thread_axis(\"" + r.threadTag + "\"))");
        break;
    }
    case Primitive::StorageAlign: {
        std::string x = axisRef(st.name, r.axes[0]);
        lines.push_back(self + ".storage_align(" + x + ", " + std::to_string(r.factor) + ", " +
                        std::to_string(r.offset) + ")");
        break;
    }
    case Primitive::ComputeAt: {
        std::string x = axisRef(r.targetStage, r.targetAxis);
        lines.push_back(self + ".compute_at(" + stageRef(r.targetStage) + ", " + x + ")");
        break;
    }
    case Primitive::ComputeInline: lines.push_back(self + ".compute_inline()"); break;
    case Primitive::ComputeRoot: lines.push_back(self + ".compute_root()"); break;
    case Primitive::CacheRead: {
        std::string t = tensorVar(st.name);
        std::vector<std::string> readers;
        for (auto& reader : r.readers)
            readers.push_back(tensorVar(reader));
        lines.push_back(fresh(t + "_" + r.scope) + " = " + sch + ".cache_read(" + t + ", \"" +
                        r.scope + "\", [" + joined(readers, ", ") + "])");
        break;
    }
    case Primitive::CacheWrite: {
        std::string t = tensorVar(st.name);
        lines.push_back(fresh(t + "_" + r.scope) + " = " + sch + ".cache_write(" + t + ", \"" +
                        r.scope + "\")");
        break;
    }
    case Primitive::Rfactor: {
        std::string t = tensorVar(st.name);
        std::string x = axisRef(st.name, r.axes[0]);
        std::string factorAxis =
            r.factorAxis ? ", factor_axis=" + std::to_string(r.factorAxis) : "";
        lines.push_back(fresh(t + "_rf") + " = " + sch + ".rfactor(" + t + ", " + x + factorAxis +
                        ")");
        break;
    }
    }
    if (!refusal.empty()) {
        out.refusal = refusal;
        return out;
    }
    out.text = joined(lines, "\n");
    return out;
}

std::string StatementWriter::newVariantFromHere(const std::string& scriptText, int variantLine,
                                                int lastLine, const std::string& newName)
{
    std::vector<std::string> lines;
    std::istringstream in(scriptText);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    int n = static_cast<int>(lines.size());
    int first = std::clamp(variantLine, 1, std::max(n, 1));
    int last = std::clamp(lastLine, first, std::max(n, 1));
    std::string out = "\n# variant: " + newName;
    for (int l = first; l <= last && l <= n; ++l)
        out += "\n" + lines[static_cast<std::size_t>(l - 1)];
    return out;
}

} // namespace loopscope
