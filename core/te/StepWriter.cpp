#include "te/StepWriter.h"

#include "ir/Printer.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace loopscope {

std::string uniqueName(const std::string& base, const std::set<std::string>& used)
{
    if (!used.count(base)) return base;
    for (int i = 1;; ++i) {
        std::string name = base + "_" + std::to_string(i);
        if (!used.count(name)) return name;
    }
}

const Stage* findStage(const Schedule& sch, const std::string& name)
{
    for (auto& st : sch.stages())
        if (st.name() == name) return &st;
    return nullptr;
}

IterVar findAxis(const Stage& stage, const std::string& name)
{
    for (auto& iv : stage.leafIterVars)
        if (iv->name() == name) return iv;
    for (auto& iv : stage.allIterVars)
        if (iv->name() == name) return iv;
    return nullptr;
}

namespace {

// A Python identifier from an axis or tensor name: "i.outer" -> "i_outer", "C.local" ->
// "C_local".
std::string identifier(const std::string& name)
{
    std::string out = scriptName(name);
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "v" + out;
    return out;
}

std::string valueText(const Expr& value)
{
    std::int64_t n = 0;
    return isConstInt(value, &n) ? std::to_string(n) : printExpr(value);
}

} // namespace

ScriptNames scriptNames(const Variant& variant)
{
    ScriptNames out;
    if (!variant.scheduleVar.empty()) out.scheduleVar = variant.scheduleVar;
    for (auto& [var, tensor] : variant.tensorVars)
        out.tensorVars.emplace(tensor, var); // the first variable in name order stays
    out.axisVars = variant.stageAxisVars;
    out.used.insert(variant.names.begin(), variant.names.end());
    return out;
}

StepWriter::StepWriter(Schedule schedule, const ScriptNames& names, bool write)
    : m_schedule(std::move(schedule)),
      m_scheduleVar(names.scheduleVar.empty() ? "s" : names.scheduleVar), m_write(write)
{
    m_names.used = names.used;
    for (auto& [stage, var] : names.tensorVars)
        if (!var.empty()) m_names.tensorVars[stage] = var;
    for (auto& [stageName, axes] : names.axisVars) {
        const Stage* st = findStage(m_schedule, stageName);
        if (!st) continue;
        for (auto& [axisName, var] : axes)
            if (IterVar iv = findAxis(*st, axisName)) m_names.axisVars[iv] = var;
    }
}

std::string StepWriter::fresh(Names& n, const std::string& base) const
{
    std::string name = uniqueName(identifier(base), n.used);
    n.used.insert(name);
    return name;
}

// The variable holding the tensor of the stage named `stage`; a refusal when there is none.
std::string StepWriter::tensorVariable(Names& n, const std::string& stage)
{
    auto it = n.tensorVars.find(stage);
    if (it != n.tensorVars.end()) return it->second;
    if (m_why.empty())
        m_why = "tensor '" + stage +
                "' has no script variable, so the script cannot refer to its stage";
    return "?";
}

// The variable holding `axis` of `stage`, binding the stage's root axes (`i, j = s[C].op.axis`)
// or the loop by its position (`x = s[C].leaf_iter_vars[2]`) first when none does.
std::string StepWriter::axisVariable(Names& n, const Stage& stage, const IterVar& axis)
{
    auto it = n.axisVars.find(axis);
    if (it != n.axisVars.end()) return it->second;
    const std::string self = m_scheduleVar + "[" + tensorVariable(n, stage.name()) + "]";
    auto bindAll = [&](const std::vector<IterVar>& axes, const char* field) {
        std::string targets;
        for (auto& a : axes) {
            auto known = n.axisVars.find(a);
            std::string name = known != n.axisVars.end() ? known->second : fresh(n, a->name());
            n.axisVars[a] = name;
            targets += (targets.empty() ? "" : ", ") + name;
        }
        if (axes.size() == 1) targets = "(" + targets + ",)";
        n.lines.push_back(targets + " = " + self + ".op." + field);
    };
    const auto& ops = stage.op->axes;
    const auto& reduce = stage.op->reduceAxes;
    if (std::find(ops.begin(), ops.end(), axis) != ops.end()) {
        bindAll(ops, "axis");
    } else if (std::find(reduce.begin(), reduce.end(), axis) != reduce.end()) {
        bindAll(reduce, "reduce_axis");
    } else if (int index = stage.leafIndex(axis); index >= 0) {
        std::string name = fresh(n, axis->name());
        n.axisVars[axis] = name;
        n.lines.push_back(name + " = " + self + ".leaf_iter_vars[" + std::to_string(index) + "]");
    } else {
        if (m_why.empty())
            m_why = "axis '" + axisDisplayName(axis->name()) + "' of '" + stage.name() +
                    "' is neither a loop nor a root axis; no statement can name it";
        return "?";
    }
    return n.axisVars[axis];
}

bool StepWriter::apply(const ScheduleStep& step, const ResultNames& names)
{
    m_why.clear();
    LS_ASSERT(step.primitive && step.primitive->apply, "a schedule step without a primitive");
    LS_ASSERT(step.args.size() == step.primitive->args.size(),
              step.primitive->name << " step has " << step.args.size() << " arguments, needs "
                                   << step.primitive->args.size());
    // The variables the statement needs, bound on the schedule before the step.
    Names draft;
    Printed printed;
    std::string namesRefusal;
    if (m_write) {
        draft = m_names;
        printed = print(draft, step);
        namesRefusal = std::exchange(m_why, {});
    }
    // Applied in place, so that stages of schedule() stay where they are (the tuner's rules hold
    // them across steps); core's refusal comes before the names'.
    Schedule before = m_schedule;
    StepOutput out;
    try {
        out = step.primitive->apply(m_schedule, step);
    } catch (const ScheduleError& e) {
        m_why = e.message();
    } catch (const UserError& e) { // past a bound (ir/Limits.h)
        m_why = e.message();
    }
    if (m_why.empty()) m_why = namesRefusal;
    if (!m_why.empty()) {
        m_schedule = std::move(before);
        return false;
    }
    if (m_write) {
        std::string line = statement(draft, step, printed, out, names);
        m_lines.insert(m_lines.end(), draft.lines.begin(), draft.lines.end());
        m_lines.push_back(std::move(line));
        draft.lines.clear();
        m_names = std::move(draft);
    }
    m_lastOutput = std::move(out);
    return true;
}

StepWriter::Printed StepWriter::print(Names& n, const ScheduleStep& step)
{
    const PrimitiveSpec& p = *step.primitive;
    const Stage* self = m_schedule.find(step.stage);
    LS_ASSERT(self, p.name << " of a tensor without a stage: " << step.stage->name);
    // Whose loops the axis arguments are: the stage's own, or after a stage argument that
    // stage's (compute_at's scope).
    const Stage* loopsOf = self;
    Printed out;
    out.args.resize(p.args.size());
    out.shown.resize(p.args.size());
    for (std::size_t i = 0; i < p.args.size(); ++i) {
        const StepArg& a = step.args[i];
        if (!a.given) continue;
        std::vector<std::string> items;
        switch (p.args[i].kind) {
        case ArgKind::Axis:
        case ArgKind::Axes:
            for (auto& iv : a.axes) {
                items.push_back(axisVariable(n, *loopsOf, iv));
                out.shown[i].push_back(axisDisplayName(iv->name()));
            }
            break;
        case ArgKind::Factor:
        case ArgKind::Int: items = {std::to_string(a.number)}; break;
        case ArgKind::Value: items = {valueText(a.value)}; break;
        case ArgKind::Text:
        case ArgKind::Scope:
        case ArgKind::ThreadAxis:
        case ArgKind::Intrinsic: items = {a.text}; break;
        case ArgKind::Stage:
        case ArgKind::Tensor:
        case ArgKind::Tensors:
            for (auto& t : a.tensors) {
                const Stage* ts = m_schedule.find(t);
                items.push_back(tensorVariable(n, ts ? ts->name() : t->name));
                if (p.args[i].kind == ArgKind::Stage && ts) loopsOf = ts;
            }
            break;
        }
        if (out.shown[i].empty()) out.shown[i] = items;
        out.args[i] = std::move(items);
    }
    if (p.on == PrimitiveOn::Stage) out.self = tensorVariable(n, self->name());
    return out;
}

std::string StepWriter::statement(Names& n, const ScheduleStep& step, const Printed& printed,
                                  const StepOutput& out, const ResultNames& names)
{
    const PrimitiveSpec& p = *step.primitive;
    // The loops a split, tile or fuse replaces leave their variables free for the loops it
    // returns (`f_1, f_2 = s[C].split(f_1, ...)`).
    if (!out.axes.empty()) {
        for (const StepArg& a : step.args) {
            for (auto& iv : a.axes) {
                auto it = n.axisVars.find(iv);
                if (it == n.axisVars.end()) continue;
                n.used.erase(it->second);
                n.axisVars.erase(it);
            }
        }
    }
    const std::vector<std::string> hints = names ? names(printed.args) : std::vector<std::string>{};
    const std::vector<std::string> catalogue =
        p.resultNames ? p.resultNames(printed.shown) : std::vector<std::string>{};
    std::vector<std::string> results;
    const std::size_t count = out.axes.size() + (out.tensor ? 1 : 0);
    for (std::size_t i = 0; i < count; ++i) {
        const bool isAxis = i < out.axes.size();
        std::string base = i < hints.size() && !hints[i].empty() ? hints[i]
                           : i < catalogue.size()                ? catalogue[i]
                           : isAxis                              ? out.axes[i]->name()
                                                                 : out.tensor->name;
        results.push_back(fresh(n, base));
        if (isAxis)
            n.axisVars[out.axes[i]] = results.back();
        else
            n.tensorVars[out.tensor->name] = results.back();
    }
    return printStatement(p, m_scheduleVar, printed.self, printed.args, results);
}

} // namespace loopscope
