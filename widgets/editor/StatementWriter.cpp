#include "editor/StatementWriter.h"

#include "schedule/Primitives.h"
#include "te/VariantBlock.h"

#include <algorithm>
#include <sstream>

namespace loopscope {

namespace {

std::string quoted(const std::string& s)
{
    return "'" + s + "'";
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

std::string joined(const std::vector<std::string>& items, const std::string& sep)
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? sep : "") + items[i];
    return out;
}

} // namespace

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
    // Where the stages' variables are known, another stage's variable of that name is no help.
    if (!m_context.stageAxisVars.empty()) return {};
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
    const PrimitiveSpec* p = findPrimitive(r.primitive);
    if (!p) return "there is no primitive " + quoted(r.primitive);
    const StageInfo* st = findStage(r.stage);
    if (!st) return r.stage.empty() ? "select a stage" : "there is no stage " + quoted(r.stage);
    const std::string& name = st->name;

    // How many of the selected loops the primitive takes: its axis arguments (an axis after a
    // stage argument is that stage's loop, chosen apart) or two or more for a list of axes.
    std::size_t axisArgs = 0;
    bool axisList = false, afterStage = false;
    for (const ArgSpec& a : p->args) {
        if (a.kind == ArgKind::Stage) afterStage = true;
        if (a.kind == ArgKind::Axis && !afterStage) ++axisArgs;
        if (a.kind == ArgKind::Axes) axisList = true;
    }
    if (p->on == PrimitiveOn::Stage && (axisArgs || axisList) && !isPlaceholder(*st) &&
        st->attach.kind == Attachment::Kind::Inline)
        return quoted(name) + " is inlined; it has no loops (compute_root it first)";
    std::string incomplete;
    if (axisList && r.axes.size() < 2)
        incomplete = r.primitive + " needs two or more axes";
    else if (axisArgs == 1 && r.axes.size() != 1)
        incomplete = "select one axis to " + r.primitive;
    else if (axisArgs > 1 && r.axes.size() != axisArgs)
        incomplete = r.primitive + " needs " + std::to_string(axisArgs) + " axes";
    else if (afterStage && (r.targetStage.empty() || r.targetAxis.empty()))
        incomplete = "choose a loop of a consumer to compute " + quoted(name) + " at";
    // What core says about the stage itself comes first: no choice of loops would help.
    if (!incomplete.empty()) {
        std::string stageLevel = applies(r, true);
        return stageLevel.empty() ? incomplete : stageLevel;
    }
    if (axisArgs || axisList) {
        for (auto& a : r.axes)
            if (leafIndex(*st, a) < 0)
                return "axis " + shownAxis(*st, a) + " is not a loop of " + quoted(name);
    }

    // Requests that would change nothing.
    if (r.primitive == "reorder") {
        std::vector<int> pos;
        for (auto& a : r.axes)
            pos.push_back(leafIndex(*st, a));
        if (std::is_sorted(pos.begin(), pos.end()) &&
            std::adjacent_find(pos.begin(), pos.end()) == pos.end())
            return "the loop order is unchanged";
    }
    static const std::map<std::string, std::string> kKinds = {
        {"vectorize", "vectorized"}, {"parallel", "parallel"}, {"unroll", "unrolled"}};
    if (auto k = kKinds.find(r.primitive); k != kKinds.end() && r.axes.size() == 1) {
        const AxisInfo* a = findAxis(*st, r.axes[0]);
        if (a->kind == k->second) return quoted(a->name) + " is already " + k->second;
    }
    if (r.primitive == "compute_inline" && st->attach.kind == Attachment::Kind::Inline)
        return quoted(name) + " is already inlined";
    if (r.primitive == "compute_root" && st->attach.kind == Attachment::Kind::Root)
        return quoted(name) + " is already computed at root";
    if (r.primitive == "compute_at") {
        const StageInfo* target = findStage(r.targetStage);
        if (!target) return "there is no stage " + quoted(r.targetStage);
        if (const AxisInfo* a = findAxis(*target, r.targetAxis);
            a && st->attach.isAt(target->name, a->name))
            return quoted(name) + " is already computed at " + target->name + "." + a->name;
    }
    if (r.primitive == "cache_read" && r.readers.empty()) {
        return consumersOf(name).empty() ? quoted(name) + " has no reader to cache it for"
                                         : "cache_read needs at least one reader";
    }
    return applies(r, false);
}

namespace {

const Stage* stageNamed(const Schedule& sch, const std::string& name)
{
    for (const Stage& s : sch.stages())
        if (s.name() == name) return &s;
    return nullptr;
}

IterVar axisNamed(const Stage& st, const std::string& var)
{
    for (const IterVar& iv : st.leafIterVars)
        if (iv->name() == var) return iv;
    for (const IterVar& iv : st.allIterVars)
        if (iv->name() == var) return iv;
    return nullptr;
}

// What a request says for one argument of its primitive. Names are still the panel's: loop
// variables (AxisInfo::var) of `stage`, or stage names.
struct RequestedArg {
    bool given = true;
    std::int64_t number = 0;        // Factor, Int, Value
    std::string text;               // Text, Scope, ThreadAxis
    std::string stage;              // Axis, Axes: the stage whose loops `names` are
    std::vector<std::string> names; // Axis (one, or none chosen), Axes; Stage, Tensor, Tensors
};

// The one mapping from the panel's fields to the catalogue's arguments, for checking a step and
// for writing it. An axis after a stage argument is a loop of that stage (compute_at's scope);
// `axes` is what a list of axes names (the request's own, or as it is written).
std::vector<RequestedArg> requestedArgs(const PrimitiveSpec& p, const PrimitiveRequest& r,
                                        const std::vector<std::string>& axes)
{
    std::vector<RequestedArg> out(p.args.size());
    std::size_t nextAxis = 0, nextFactor = 0;
    bool afterStage = false;
    for (std::size_t i = 0; i < p.args.size(); ++i) {
        const ArgSpec& a = p.args[i];
        RequestedArg& v = out[i];
        switch (a.kind) {
        case ArgKind::Axis:
            if (afterStage) {
                v.stage = r.targetStage;
                if (!r.targetAxis.empty()) v.names = {r.targetAxis};
            } else {
                v.stage = r.stage;
                if (nextAxis < r.axes.size()) v.names = {r.axes[nextAxis++]};
            }
            break;
        case ArgKind::Axes:
            v.stage = r.stage;
            v.names = axes;
            break;
        case ArgKind::Factor:
            if (a.required) {
                v.number = nextFactor++ == 0 ? r.factor : r.yFactor;
            } else {
                v.given = (a.name == "nparts") == r.nparts && a.name != "disable_predication";
                v.number = r.factor;
            }
            break;
        case ArgKind::Int:
            v.number = a.name == "offset"        ? r.offset
                       : a.name == "factor_axis" ? r.factorAxis
                                                 : r.factor;
            v.given = a.required || v.number != 0;
            break;
        case ArgKind::Text: v.text = r.pragmaKey; break;
        case ArgKind::Scope: v.text = r.scope; break;
        case ArgKind::ThreadAxis: v.text = r.threadTag; break;
        case ArgKind::Stage:
            afterStage = true;
            v.names = {r.targetStage};
            break;
        case ArgKind::Tensor: v.names = {r.stage}; break;
        case ArgKind::Tensors: v.names = r.readers; break;
        case ArgKind::Value:
            v.given = a.name == "pragma_value" && r.hasPragmaValue;
            v.number = r.pragmaValue;
            break;
        }
    }
    return out;
}

} // namespace

std::string StatementWriter::applies(const PrimitiveRequest& r, bool probe) const
{
    const PrimitiveSpec& p = *findPrimitive(r.primitive);
    if (!m_context.schedule) return "no schedule is shown";
    const Schedule& sch = *m_context.schedule;
    const Stage* st = stageNamed(sch, r.stage);
    if (!st) return "there is no stage " + quoted(r.stage);

    ScheduleStep step = makeStep(p, st->op);
    std::string missing;
    auto axis = [&](const Stage& s, const std::string& var) {
        IterVar iv = axisNamed(s, var);
        if (!iv && missing.empty())
            missing = "axis " + quoted(displayName(var)) + " is not a loop of " + quoted(s.name());
        return iv;
    };
    auto tensor = [&](const std::string& name) -> Tensor {
        const Stage* s = stageNamed(sch, name);
        if (!s && missing.empty()) missing = "there is no stage " + quoted(name);
        return s ? s->op : nullptr;
    };
    // Probing an incomplete request: a stand-in for a loop not chosen, so that core can say
    // what it says about the stage as a whole.
    const IterVar standIn = makeIterVar("?", Range{makeInt(0), makeInt(1)}, IterKind::DataPar);
    const std::vector<RequestedArg> requested = requestedArgs(p, r, r.axes);
    const Stage* target = nullptr; // the stage argument's, once read
    for (std::size_t i = 0; i < p.args.size(); ++i) {
        const ArgSpec& a = p.args[i];
        const RequestedArg& q = requested[i];
        StepArg& v = step.args[i];
        v.given = q.given;
        v.number = q.number;
        v.text = q.text;
        switch (a.kind) {
        case ArgKind::Axis: {
            // A loop of the stage, or, after a stage argument, of that stage.
            const Stage& of = target ? *target : *st;
            if (!q.names.empty()) {
                if (IterVar iv = axis(of, q.names.front())) v.axes = {iv};
            } else if (probe) {
                v.axes = {target && !target->leafIterVars.empty() ? target->leafIterVars[0]
                                                                  : standIn};
            }
            break;
        }
        case ArgKind::Axes:
            for (auto& var : q.names)
                if (IterVar iv = axis(*st, var)) v.axes.push_back(iv);
            if (probe && v.axes.empty()) v.axes = {standIn};
            break;
        case ArgKind::Stage: {
            target = stageNamed(sch, q.names.front());
            if (!target && probe) {
                std::vector<std::string> consumers = consumersOf(r.stage);
                target = consumers.empty() ? st : stageNamed(sch, consumers.front());
                if (!target) target = st;
            }
            if (!target && missing.empty()) missing = "there is no stage " + quoted(r.targetStage);
            if (target) v.tensors = {target->op};
            break;
        }
        case ArgKind::Tensor: v.tensors = {st->op}; break;
        case ArgKind::Tensors:
            for (auto& reader : q.names)
                if (Tensor t = tensor(reader)) v.tensors.push_back(t);
            break;
        case ArgKind::Value: v.value = makeInt(q.number); break;
        default: break;
        }
        if (a.kind == ArgKind::Axis && v.axes.empty() && missing.empty())
            missing = "choose an axis for " + quoted(a.name);
    }
    if (probe) {
        // Only a refusal of the call as a whole: one about an argument may be the stand-in's.
        if (!missing.empty()) return {};
        AppliedStep applied = applyToCopy(sch, step);
        return applied.ok() || applied.error->argument() >= 0 ? std::string()
                                                              : applied.error->message();
    }
    if (!missing.empty()) return missing;
    AppliedStep applied = applyToCopy(sch, step);
    return applied.ok() ? std::string() : applied.error->message();
}

WrittenStatement StatementWriter::build(const PrimitiveRequest& r) const
{
    WrittenStatement out;
    out.refusal = check(r);
    if (!out.refusal.empty()) return out;

    const PrimitiveSpec& p = *findPrimitive(r.primitive);
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

    // The loops a list of axes names, as written: fuse outer to inner; a full reorder only the
    // loops that moved (reorder keeps the others in place).
    std::vector<std::string> listed = r.axes;
    if (r.primitive == "fuse") {
        std::sort(listed.begin(), listed.end(),
                  [&](auto& a, auto& b) { return leafIndex(st, a) < leafIndex(st, b); });
    } else if (r.primitive == "reorder" && listed.size() == st.axes.size()) {
        std::vector<std::string> moved;
        for (std::size_t i = 0; i < listed.size(); ++i)
            if (st.axes[i].var != listed[i]) moved.push_back(listed[i]);
        listed = moved;
    }

    std::vector<PrintedArg> printed(p.args.size());
    std::vector<std::vector<std::string>> shown(p.args.size());
    const std::vector<RequestedArg> requested = requestedArgs(p, r, listed);
    for (std::size_t i = 0; i < p.args.size(); ++i) {
        const RequestedArg& q = requested[i];
        if (!q.given) continue;
        std::vector<std::string> items;
        switch (p.args[i].kind) {
        case ArgKind::Axis:
        case ArgKind::Axes:
            for (auto& var : q.names) {
                items.push_back(axisRef(q.stage, var));
                shown[i].push_back(findAxis(*findStage(q.stage), var)->name);
            }
            break;
        case ArgKind::Factor:
        case ArgKind::Int:
        case ArgKind::Value: items = {std::to_string(q.number)}; break;
        case ArgKind::Text:
        case ArgKind::Scope:
        case ArgKind::ThreadAxis: items = {q.text}; break;
        case ArgKind::Stage:
        case ArgKind::Tensor:
        case ArgKind::Tensors:
            for (auto& stage : q.names)
                items.push_back(tensorVar(stage));
            break;
        }
        if (shown[i].empty()) shown[i] = items;
        printed[i] = std::move(items);
    }
    std::vector<std::string> results;
    if (p.resultNames)
        for (const std::string& base : p.resultNames(shown))
            results.push_back(fresh(base));
    std::string self = p.on == PrimitiveOn::Stage ? tensorVar(st.name) : std::string();
    if (!refusal.empty()) {
        out.refusal = refusal;
        return out;
    }
    lines.push_back(printStatement(p, sch, self, printed, results));
    out.text = joined(lines, "\n");
    return out;
}

std::string StatementWriter::newVariantFromHere(const std::string& scriptText, int variantLine,
                                                int lastLine, const std::string& newName)
{
    return variantBlockText(scriptText, variantLine, lastLine, lastLine, newName);
}

} // namespace loopscope
