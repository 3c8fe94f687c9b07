#include "editor/StatementWriter.h"

#include "schedule/Primitives.h"
#include "te/StepWriter.h"
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

const AxisInfo* axisInfo(const StageInfo& s, const std::string& var)
{
    int i = leafIndex(s, var);
    return i < 0 ? nullptr : &s.axes[static_cast<std::size_t>(i)];
}

// The name to show for an axis var of a stage: its printed name when it is a loop.
std::string shownAxis(const StageInfo& s, const std::string& var)
{
    const AxisInfo* a = axisInfo(s, var);
    return quoted(a ? a->name : axisDisplayName(var));
}

} // namespace

StatementWriter::StatementWriter(std::vector<StageInfo> stages, ScheduleContext context)
    : m_stages(std::move(stages)), m_context(std::move(context))
{
}

const StageInfo* StatementWriter::stageInfo(const std::string& name) const
{
    for (auto& s : m_stages)
        if (s.name == name) return &s;
    return nullptr;
}

ScriptNames StatementWriter::scriptNames() const
{
    ScriptNames out;
    out.scheduleVar = m_context.scheduleVar;
    out.tensorVars = m_context.tensorVars;
    out.axisVars = m_context.stageAxisVars;
    // Without per-stage variables, a variable holds the axis of its name in every stage.
    if (out.axisVars.empty() && m_context.schedule)
        for (const Stage& st : m_context.schedule->stages())
            out.axisVars[st.name()] = m_context.axisVars;
    out.used = m_context.usedNames;
    return out;
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
    const StageInfo* st = stageInfo(r.stage);
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
        std::string stageLevel = stageRefusal(r);
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
        const AxisInfo* a = axisInfo(*st, r.axes[0]);
        if (a->kind == k->second) return quoted(a->name) + " is already " + k->second;
    }
    if (r.primitive == "compute_inline" && st->attach.kind == Attachment::Kind::Inline)
        return quoted(name) + " is already inlined";
    if (r.primitive == "compute_root" && st->attach.kind == Attachment::Kind::Root)
        return quoted(name) + " is already computed at root";
    if (r.primitive == "compute_at") {
        const StageInfo* target = stageInfo(r.targetStage);
        if (!target) return "there is no stage " + quoted(r.targetStage);
        if (const AxisInfo* a = axisInfo(*target, r.targetAxis);
            a && st->attach.isAt(target->name, a->name))
            return quoted(name) + " is already computed at " + target->name + "." + a->name;
    }
    if (r.primitive == "cache_read" && r.readers.empty()) {
        return consumersOf(name).empty() ? quoted(name) + " has no reader to cache it for"
                                         : "cache_read needs at least one reader";
    }
    return {};
}

namespace {

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

std::string StatementWriter::scheduleRefusal(const PrimitiveRequest& r) const
{
    if (!m_context.schedule) return "no schedule is shown";
    if (!findStage(*m_context.schedule, r.stage)) return "there is no stage " + quoted(r.stage);
    return {};
}

std::string StatementWriter::resolve(const PrimitiveRequest& r,
                                     const std::vector<std::string>& axes, bool probe,
                                     ScheduleStep* step) const
{
    const PrimitiveSpec& p = *findPrimitive(r.primitive);
    const Schedule& sch = *m_context.schedule;
    const Stage* st = findStage(sch, r.stage);
    *step = makeStep(p, st->op);
    std::string missing;
    auto axis = [&](const Stage& s, const std::string& var) {
        IterVar iv = findAxis(s, var);
        if (!iv && missing.empty())
            missing =
                "axis " + quoted(axisDisplayName(var)) + " is not a loop of " + quoted(s.name());
        return iv;
    };
    auto tensor = [&](const std::string& name) -> Tensor {
        const Stage* s = findStage(sch, name);
        if (!s && missing.empty()) missing = "there is no stage " + quoted(name);
        return s ? s->op : nullptr;
    };
    // Probing an incomplete request: a stand-in for a loop not chosen, so that core can say
    // what it says about the stage as a whole.
    const IterVar standIn = makeIterVar("?", Range{makeInt(0), makeInt(1)}, IterKind::DataPar);
    const std::vector<RequestedArg> requested = requestedArgs(p, r, axes);
    const Stage* target = nullptr; // the stage argument's, once read
    for (std::size_t i = 0; i < p.args.size(); ++i) {
        const ArgSpec& a = p.args[i];
        const RequestedArg& q = requested[i];
        StepArg& v = step->args[i];
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
            target = findStage(sch, q.names.front());
            if (!target && probe) {
                std::vector<std::string> consumers = consumersOf(r.stage);
                target = consumers.empty() ? st : findStage(sch, consumers.front());
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
    return missing;
}

std::string StatementWriter::stageRefusal(const PrimitiveRequest& r) const
{
    if (std::string why = scheduleRefusal(r); !why.empty()) return why;
    ScheduleStep step;
    // Only a refusal of the call as a whole: one about an argument may be the stand-in's.
    if (!resolve(r, r.axes, true, &step).empty()) return {};
    AppliedStep applied = applyToCopy(*m_context.schedule, step);
    return applied.ok() || applied.error->argument() >= 0 ? std::string()
                                                          : applied.error->message();
}

WrittenStatement StatementWriter::build(const PrimitiveRequest& r) const
{
    WrittenStatement out;
    out.refusal = check(r);
    if (out.refusal.empty()) out.refusal = scheduleRefusal(r);
    if (!out.refusal.empty()) return out;

    // The loops a list of axes names, as written: fuse outer to inner; a full reorder only the
    // loops that moved (reorder keeps the others in place).
    const StageInfo& st = *stageInfo(r.stage);
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
    ScheduleStep step;
    out.refusal = resolve(r, listed, false, &step);
    if (!out.refusal.empty()) return out;
    // Core's check and the statement, in the script's names (binding a loop that has none).
    StepWriter writer(*m_context.schedule, scriptNames());
    if (!writer.apply(step)) {
        out.refusal = writer.why();
        return out;
    }
    for (const std::string& line : writer.statements())
        out.text += (out.text.empty() ? "" : "\n") + line;
    return out;
}

std::string StatementWriter::newVariantFromHere(const std::string& scriptText, int variantLine,
                                                int lastLine, const std::string& newName)
{
    return variantBlockText(scriptText, variantLine, lastLine, lastLine, newName);
}

} // namespace loopscope
