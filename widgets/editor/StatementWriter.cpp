#include "editor/StatementWriter.h"

#include "schedule/Primitives.h"
#include "te/StepWriter.h"
#include "te/TirStepWriter.h"
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

// What a step names, by the roles the panel gives them: the selected loops (the axis arguments
// before a stage argument, and a list of axes), the consumer and its loop (a stage argument and
// the axis after it), the readers (a list of tensors).
struct StepParts {
    std::vector<std::string> loops;
    std::string targetStage, targetAxis;
    std::vector<std::string> readers;
    std::size_t axisArgs = 0; // axis arguments before a stage argument
    bool axisList = false, afterStage = false;
    const ArgSpec* list = nullptr; // the list of axes, if any
};

StepParts partsOf(const PrimitiveSpec& p, const NamedStep& r)
{
    StepParts out;
    for (const ArgSpec& a : p.args) {
        const NamedArg* v = r.arg(a.name);
        switch (a.kind) {
        case ArgKind::Stage:
            out.afterStage = true;
            if (v && !v->names.empty()) out.targetStage = v->names.front();
            break;
        case ArgKind::Axis:
            if (out.afterStage) {
                if (v && !v->names.empty()) out.targetAxis = v->names.front();
            } else {
                ++out.axisArgs;
                if (v) out.loops.insert(out.loops.end(), v->names.begin(), v->names.end());
            }
            break;
        case ArgKind::Axes:
            out.axisList = true;
            out.list = &a;
            if (v) out.loops.insert(out.loops.end(), v->names.begin(), v->names.end());
            break;
        case ArgKind::Tensors:
            if (v) out.readers = v->names;
            break;
        default: break;
        }
    }
    return out;
}

// The step as its statement lists its loops: fuse's outer to inner; of a full reorder (every
// loop of the stage in the new order), only the loops that moved (reorder keeps the others in
// place).
NamedStep asWritten(const StageInfo& st, const PrimitiveSpec& p, const NamedStep& r)
{
    const StepParts parts = partsOf(p, r);
    std::vector<std::string> listed = parts.loops;
    if (r.primitive == "fuse") {
        std::sort(listed.begin(), listed.end(),
                  [&](auto& a, auto& b) { return leafIndex(st, a) < leafIndex(st, b); });
    } else if (r.primitive == "reorder" && listed.size() == st.axes.size()) {
        std::vector<std::string> moved;
        for (std::size_t i = 0; i < listed.size(); ++i)
            if (st.axes[i].var != listed[i]) moved.push_back(listed[i]);
        listed = moved;
    }
    NamedStep written = r;
    if (parts.list) written.loops(parts.list->name, listed);
    return written;
}

std::string joinedLines(const std::vector<std::string>& lines)
{
    std::string out;
    for (const std::string& line : lines)
        out += (out.empty() ? "" : "\n") + line;
    return out;
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

ScheduleContext scheduleContextFor(const VariantView& v, const StepView& last,
                                   const std::vector<std::string>& allNames)
{
    ScheduleContext ctx;
    ctx.scheduleVar = v.scheduleVar;
    for (auto& [var, tensor] : v.tensorVars)
        ctx.tensorVars[tensor] = var;
    for (auto& [var, axis] : v.axisVars)
        ctx.axisVars[axis] = var;
    ctx.stageAxisVars = v.stageAxisVars;
    ctx.blockVars = v.blockVars;
    ctx.blockLoopVars = v.blockLoopVars;
    ctx.usedNames.insert(allNames.begin(), allNames.end());
    for (auto& st : last.stages)
        ctx.readers[st.name] = st.readers;
    ctx.schedule = last.schedule;
    return ctx;
}

std::vector<std::string> StatementWriter::producersOf(const std::string& stage) const
{
    std::vector<std::string> out;
    for (auto& s : m_stages)
        if (!isPlaceholder(s))
            for (const std::string& r : consumersOf(s.name))
                if (r == stage) out.push_back(s.name);
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

std::string StatementWriter::whyIllegal(const NamedStep& step) const
{
    return build(step).refusal;
}

WrittenStatement StatementWriter::write(const NamedStep& step) const
{
    return build(step);
}

std::string StatementWriter::check(const NamedStep& r, bool probeCore) const
{
    const PrimitiveSpec* p = findPrimitive(r.primitive);
    if (!p) return "there is no primitive " + quoted(r.primitive);
    const StageInfo* st = stageInfo(r.stage);
    if (!st) return r.stage.empty() ? "select a stage" : "there is no stage " + quoted(r.stage);
    const std::string& name = st->name;

    // How many of the selected loops the primitive takes: its axis arguments (an axis after a
    // stage argument is that stage's loop, chosen apart) or two or more for a list of axes.
    const StepParts parts = partsOf(*p, r);
    const std::size_t axisArgs = parts.axisArgs;
    const bool axisList = parts.axisList, afterStage = parts.afterStage;
    const std::vector<std::string>& loops = parts.loops;
    if (p->on == PrimitiveOn::Stage && (axisArgs || axisList) && !isPlaceholder(*st) &&
        st->attach.kind == Attachment::Kind::Inline)
        return quoted(name) + " is inlined; it has no loops (compute_root it first)";
    std::string incomplete;
    if (axisList && loops.size() < 2)
        incomplete = r.primitive + " needs two or more axes";
    else if (axisArgs == 1 && loops.size() != 1)
        incomplete = "select one axis to " + r.primitive;
    else if (axisArgs > 1 && loops.size() != axisArgs)
        incomplete = r.primitive + " needs " + std::to_string(axisArgs) + " axes";
    else if (afterStage && (parts.targetStage.empty() || parts.targetAxis.empty()))
        incomplete = "choose a loop of a consumer to compute " + quoted(name) + " at";
    // What core says about the stage itself comes first: no choice of loops would help.
    if (!incomplete.empty()) {
        std::string stageLevel = probeCore ? stageRefusal(r) : std::string();
        return stageLevel.empty() ? incomplete : stageLevel;
    }
    if (axisArgs || axisList) {
        for (auto& a : loops)
            if (leafIndex(*st, a) < 0)
                return "axis " + shownAxis(*st, a) + " is not a loop of " + quoted(name);
    }

    // Requests that would change nothing.
    if (r.primitive == "reorder") {
        std::vector<int> pos;
        for (auto& a : loops)
            pos.push_back(leafIndex(*st, a));
        if (std::is_sorted(pos.begin(), pos.end()) &&
            std::adjacent_find(pos.begin(), pos.end()) == pos.end())
            return "the loop order is unchanged";
    }
    static const std::map<std::string, std::string> kKinds = {
        {"vectorize", "vectorized"}, {"parallel", "parallel"}, {"unroll", "unrolled"}};
    if (auto k = kKinds.find(r.primitive); k != kKinds.end() && loops.size() == 1) {
        const AxisInfo* a = axisInfo(*st, loops[0]);
        if (a->kind == k->second) return quoted(a->name) + " is already " + k->second;
    }
    if (r.primitive == "compute_inline" && st->attach.kind == Attachment::Kind::Inline)
        return quoted(name) + " is already inlined";
    if (r.primitive == "compute_root" && st->attach.kind == Attachment::Kind::Root)
        return quoted(name) + " is already computed at root";
    if (r.primitive == "compute_at") {
        const StageInfo* target = stageInfo(parts.targetStage);
        if (!target) return "there is no stage " + quoted(parts.targetStage);
        if (const AxisInfo* a = axisInfo(*target, parts.targetAxis);
            a && st->attach.isAt(target->name, a->name))
            return quoted(name) + " is already computed at " + target->name + "." + a->name;
    }
    if (r.primitive == "cache_read" && parts.readers.empty()) {
        return consumersOf(name).empty() ? quoted(name) + " has no reader to cache it for"
                                         : "cache_read needs at least one reader";
    }
    return {};
}

std::string StatementWriter::scheduleRefusal(const NamedStep& r) const
{
    if (!m_context.schedule) return "no schedule is shown";
    if (!findStage(*m_context.schedule, r.stage)) return "there is no stage " + quoted(r.stage);
    return {};
}

std::string StatementWriter::stageRefusal(const NamedStep& r) const
{
    if (std::string why = scheduleRefusal(r); !why.empty()) return why;
    ScheduleStep step;
    // Only a refusal of the call as a whole: one about an argument may be the stand-in's.
    const std::vector<std::string> consumers = consumersOf(r.stage);
    const ResolveProbe probe{consumers.empty() ? std::string() : consumers.front()};
    if (!resolveStep(*m_context.schedule, r, &step, &probe).empty()) return {};
    AppliedStep applied = applyToCopy(*m_context.schedule, step);
    return applied.ok() || applied.error->argument() >= 0 ? std::string()
                                                          : applied.error->message();
}

WrittenStatement StatementWriter::build(const NamedStep& r) const
{
    WrittenStatement out;
    if (tensorIR()) return buildTensorIR(r);
    out.refusal = check(r);
    if (out.refusal.empty()) out.refusal = scheduleRefusal(r);
    if (!out.refusal.empty()) return out;

    const NamedStep written = asWritten(*stageInfo(r.stage), *findPrimitive(r.primitive), r);
    ScheduleStep step;
    out.refusal = resolveStep(*m_context.schedule, written, &step);
    if (!out.refusal.empty()) return out;
    // Core's check and the statement, in the script's names (binding a loop that has none).
    StepWriter writer(*m_context.schedule, scriptNames());
    if (!writer.apply(step)) {
        out.refusal = writer.why();
        return out;
    }
    out.text = joinedLines(writer.statements());
    return out;
}

WrittenStatement StatementWriter::buildTensorIR(const NamedStep& r) const
{
    WrittenStatement out;
    const StageInfo* st = stageInfo(r.stage);
    if (!st) {
        out.refusal = r.stage.empty() ? "select a block" : "there is no block " + quoted(r.stage);
        return out;
    }
    if (std::string why = tirLacks(r.primitive); !why.empty()) {
        out.refusal = why;
        return out;
    }
    if (isPlaceholder(*st) && r.primitive != "cache_read") {
        out.refusal = quoted(r.stage) + " is an input: it has no block to schedule";
        return out;
    }
    NamedStep written = r;
    if (const PrimitiveSpec* p = findPrimitive(r.primitive)) {
        // The panel's own checks where they read the same (loops chosen, an order unchanged).
        if (std::string why = check(r, false); !why.empty()) {
            out.refusal = why;
            return out;
        }
        written = asWritten(*st, *p, r);
    }
    TirScriptNames names;
    names.scheduleVar = m_context.scheduleVar.empty() ? "sch" : m_context.scheduleVar;
    names.blockVars = m_context.blockVars;
    names.loopVars = m_context.blockLoopVars;
    names.used = m_context.usedNames;
    TirWrittenStep w = writeTirStep(*m_context.schedule->tensorIR(), names, written);
    out.refusal = w.refusal;
    out.text = joinedLines(w.lines);
    return out;
}

std::string StatementWriter::newVariantFromHere(const std::string& scriptText, int variantLine,
                                                int lastLine, const std::string& newName)
{
    return variantBlockText(scriptText, variantLine, lastLine, lastLine, newName);
}

} // namespace loopscope
