#include "tune/TuneStep.h"

#include "ir/IRUtil.h"
#include "te/VariantBlock.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace loopscope {

bool TuneStep::operator==(const TuneStep& o) const
{
    return primitive == o.primitive && stage == o.stage && axes == o.axes && number == o.number &&
           nparts == o.nparts && text == o.text && target == o.target;
}

std::string describe(const TuneStep& step)
{
    std::ostringstream out;
    out << step.primitive << " " << step.stage;
    for (auto& a : step.axes)
        out << " " << a;
    if (step.primitive == "split")
        out << (step.nparts ? " nparts=" : " factor=") << step.number;
    else if (step.primitive == "pragma")
        out << " " << step.text << "=" << step.number;
    else if (step.primitive == "rfactor")
        out << " factor_axis=" << step.number;
    else if (!step.text.empty())
        out << " " << step.text;
    if (!step.target.empty()) out << " @" << step.target;
    return out.str();
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

std::string uniqueName(const std::string& base, const std::set<std::string>& used)
{
    if (!used.count(base)) return base;
    for (int i = 1;; ++i) {
        std::string name = base + "_" + std::to_string(i);
        if (!used.count(name)) return name;
    }
}

namespace {

// A Python identifier from an axis or tensor name: "i.outer" -> "i_outer", "C.local" ->
// "C_local".
std::string identifier(const std::string& name)
{
    std::string out;
    for (char c : name)
        out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "v" + out;
    return out;
}

} // namespace

StepReplay::StepReplay(const Variant& start, bool write)
    : m_start(start), m_write(write), m_schedule(start.schedule())
{
    m_used.insert(start.names.begin(), start.names.end());
    for (auto& [var, tensor] : start.tensorVars) {
        // Of two variables holding one tensor, the first in name order.
        if (!m_tensorVars.count(tensor)) m_tensorVars[tensor] = var;
    }
    for (auto& [stageName, axes] : start.stageAxisVars) {
        const Stage* st = findStage(m_schedule, stageName);
        if (!st) continue;
        for (auto& [axisName, var] : axes) {
            IterVar iv = findAxis(*st, axisName);
            if (iv) m_axisVars[iv.get()] = var;
        }
    }
}

std::string StepReplay::fresh(const std::string& base)
{
    std::string name = uniqueName(identifier(base), m_used);
    m_used.insert(name);
    return name;
}

std::string StepReplay::tensorVariable(const std::string& tensorName)
{
    auto it = m_tensorVars.find(tensorName);
    if (it != m_tensorVars.end()) return it->second;
    // A stage without a variable (an intermediate tensor bound to no name): no statement can
    // name it. The caller has refused the step already when it matters.
    return {};
}

// The variable holding `axis` of `stage`, binding the stage's root axes (`i, j =
// s[C].op.axis`) or one leaf (`x = s[C].leaf_iter_vars[2]`) first when none does.
std::string StepReplay::axisVariable(const Stage& stage, const IterVar& axis)
{
    auto it = m_axisVars.find(axis.get());
    if (it != m_axisVars.end()) return it->second;
    const std::string sv = m_start.scheduleVar.empty() ? "s" : m_start.scheduleVar;
    const std::string tv = tensorVariable(stage.name());
    auto bindAll = [&](const std::vector<IterVar>& axes, const char* field) {
        std::vector<std::string> names;
        for (auto& a : axes) {
            auto known = m_axisVars.find(a.get());
            names.push_back(known != m_axisVars.end() ? known->second : fresh(a->name()));
            m_axisVars[a.get()] = names.back();
        }
        std::string line;
        for (std::size_t i = 0; i < names.size(); ++i)
            line += (i ? ", " : "") + names[i];
        if (names.size() == 1) line = "(" + line + ",)";
        m_lines.push_back(line + " = " + sv + "[" + tv + "].op." + field);
    };
    const auto& ops = stage.op->axes;
    const auto& reduce = stage.op->reduceAxes;
    if (std::find(ops.begin(), ops.end(), axis) != ops.end()) {
        bindAll(ops, "axis");
    } else if (std::find(reduce.begin(), reduce.end(), axis) != reduce.end()) {
        bindAll(reduce, "reduce_axis");
    } else {
        int index = stage.leafIndex(axis);
        LS_ASSERT(index >= 0, "axis " << axis->name() << " of " << stage.name()
                                      << " is neither a root axis nor a leaf");
        std::string name = fresh(axis->name());
        m_axisVars[axis.get()] = name;
        m_lines.push_back(name + " = " + sv + "[" + tv + "].leaf_iter_vars[" +
                          std::to_string(index) + "]");
    }
    return m_axisVars[axis.get()];
}

bool StepReplay::apply(const TuneStep& step)
{
    m_why.clear();
    const PrimitiveSpec* spec = findPrimitive(step.primitive);
    if (!spec || !spec->apply) {
        m_why = "unknown primitive '" + step.primitive + "'";
        return false;
    }
    const Stage* st = findStage(m_schedule, step.stage);
    if (!st) {
        m_why = "no stage '" + step.stage + "'";
        return false;
    }
    ScheduleStep s = makeStep(*spec, st->op);
    std::vector<IterVar> axes;
    const Stage* axisStage = st;
    const Stage* target = nullptr;
    if (!step.target.empty()) {
        target = findStage(m_schedule, step.target);
        if (!target) {
            m_why = "no stage '" + step.target + "'";
            return false;
        }
        if (step.primitive == "compute_at") axisStage = target;
    }
    for (auto& name : step.axes) {
        IterVar iv = findAxis(*axisStage, name);
        if (!iv) {
            m_why = "no axis '" + name + "' in stage '" + axisStage->name() + "'";
            return false;
        }
        // Every primitive takes current loops; a step (from a damaged log) may name one that
        // has been split or fused since.
        if (axisStage->leafIndex(iv) < 0) {
            m_why = "axis '" + name + "' of '" + axisStage->name() +
                    "' has been split or fused; it is no longer a loop";
            return false;
        }
        axes.push_back(iv);
    }
    auto axisArg = [&](const char* arg, std::size_t count) {
        if (axes.size() != count) {
            m_why = step.primitive + " needs " + std::to_string(count) + " axis";
            return false;
        }
        s.arg(arg).given = true;
        s.arg(arg).axes = axes;
        return true;
    };
    const std::string& p = step.primitive;
    bool ok = true;
    if (p == "split") {
        ok = axisArg("parent", 1);
        StepArg& n = s.arg(step.nparts ? "nparts" : "factor");
        n.given = true;
        n.number = step.number;
    } else if (p == "fuse" || p == "reorder") {
        s.arg("args").given = true;
        s.arg("args").axes = axes;
    } else if (p == "vectorize" || p == "parallel" || p == "unroll") {
        ok = axisArg("var", 1);
    } else if (p == "pragma") {
        ok = axisArg("var", 1);
        s.arg("pragma_type").given = true;
        s.arg("pragma_type").text = step.text;
        s.arg("pragma_value").given = true;
        s.arg("pragma_value").value = makeInt(step.number);
    } else if (p == "compute_at") {
        ok = target && axisArg("scope", 1);
        if (ok) {
            s.arg("parent").given = true;
            s.arg("parent").tensors = {target->op};
        }
    } else if (p == "compute_inline" || p == "compute_root") {
    } else if (p == "cache_write" || p == "cache_read") {
        s.arg("tensor").given = true;
        s.arg("tensor").tensors = {st->op};
        s.arg("scope").given = true;
        s.arg("scope").text = step.text;
        if (p == "cache_read") {
            ok = target != nullptr;
            if (ok) {
                s.arg("readers").given = true;
                s.arg("readers").tensors = {target->op};
            }
        }
    } else if (p == "rfactor") {
        ok = axisArg("axis", 1);
        s.arg("tensor").given = true;
        s.arg("tensor").tensors = {st->op};
        s.arg("factor_axis").given = true;
        s.arg("factor_axis").number = step.number;
    } else {
        m_why = "the tuner does not write '" + p + "'";
        return false;
    }
    if (!ok) {
        if (m_why.empty()) m_why = "malformed step: " + describe(step);
        return false;
    }

    // Variables first (they may need binding statements), from the schedule before the step.
    std::vector<PrintedArg> printed(spec->args.size());
    std::size_t linesBefore = m_lines.size();
    auto usedBefore = m_used;
    auto axisVarsBefore = m_axisVars;
    auto tensorVarsBefore = m_tensorVars;
    if (m_write) {
        const std::string sv = m_start.scheduleVar.empty() ? "s" : m_start.scheduleVar;
        for (std::size_t i = 0; i < spec->args.size(); ++i) {
            const StepArg& a = s.args[i];
            if (!a.given) continue;
            std::vector<std::string> items;
            switch (spec->args[i].kind) {
            case ArgKind::Axis:
            case ArgKind::Axes:
                for (auto& iv : a.axes)
                    items.push_back(axisVariable(*axisStage, iv));
                break;
            case ArgKind::Factor:
            case ArgKind::Int: items.push_back(std::to_string(a.number)); break;
            case ArgKind::Value: items.push_back(std::to_string(step.number)); break;
            case ArgKind::Text:
            case ArgKind::Scope: items.push_back(a.text); break;
            case ArgKind::Stage:
            case ArgKind::Tensor:
            case ArgKind::Tensors:
                for (auto& t : a.tensors) {
                    const Stage* ts = m_schedule.find(t);
                    std::string v = tensorVariable(ts ? ts->name() : t->name);
                    if (v.empty()) {
                        m_why = "no variable holds tensor '" + t->name + "'";
                        m_lines.resize(linesBefore);
                        m_used = usedBefore;
                        m_axisVars = axisVarsBefore;
                        return false;
                    }
                    items.push_back(v);
                }
                break;
            default: break;
            }
            printed[i] = items;
        }
        if (spec->on == PrimitiveOn::Stage && tensorVariable(st->name()).empty()) {
            m_why = "no variable holds tensor '" + st->name() + "'";
            m_lines.resize(linesBefore);
            m_used = usedBefore;
            m_axisVars = axisVarsBefore;
            return false;
        }
        (void)sv;
    }

    Schedule before = m_schedule;
    st = axisStage = target = nullptr; // applying the step may move the stages
    StepOutput out;
    try {
        out = spec->apply(m_schedule, s);
    } catch (const ScheduleError& e) {
        m_why = e.message();
    } catch (const UserError& e) {
        m_why = e.message();
    }
    if (!m_why.empty()) {
        m_schedule = std::move(before);
        m_lines.resize(linesBefore);
        m_used = std::move(usedBefore);
        m_axisVars = std::move(axisVarsBefore);
        m_tensorVars = std::move(tensorVarsBefore);
        return false;
    }
    m_lastOutput = out;
    if (!m_write) return true;

    // A split's or fuse's results may take the names of the axes they replace.
    for (auto& iv : axes) {
        auto it = m_axisVars.find(iv.get());
        if (it != m_axisVars.end() && (p == "split" || p == "fuse")) {
            m_used.erase(it->second);
            m_axisVars.erase(it);
        }
    }
    std::vector<std::string> results;
    std::string fusedHint;
    if (p == "fuse" && step.names.empty() && printed.size() == 1 && printed[0]) {
        for (auto& item : *printed[0])
            fusedHint += item + "_";
        fusedHint += "fused";
    }
    for (std::size_t i = 0; i < out.axes.size(); ++i) {
        std::string hint = i < step.names.size() ? step.names[i]
                           : !fusedHint.empty()  ? fusedHint
                                                 : out.axes[i]->name();
        std::string v = fresh(hint);
        m_axisVars[out.axes[i].get()] = v;
        results.push_back(v);
    }
    if (out.tensor) {
        std::string hint = !step.names.empty() ? step.names[0] : out.tensor->name;
        std::string v = fresh(hint);
        m_tensorVars[out.tensor->name] = v;
        results.push_back(v);
    }
    const std::string sv = m_start.scheduleVar.empty() ? "s" : m_start.scheduleVar;
    m_lines.push_back(printStatement(*spec, sv, tensorVariable(step.stage), printed, results));
    return true;
}

std::string variantBlock(const std::string& script, const Variant& start, const std::string& name,
                         const std::vector<std::string>& statements)
{
    return variantBlockText(script, start.loc.line, start.scheduleEndLine,
                            std::max(start.lastLine, start.loc.line), name, statements) +
           "\n";
}

std::string scriptWithVariant(const std::string& script, const Variant& start,
                              const std::string& name, const std::vector<std::string>& statements,
                              bool truncate)
{
    const int last = std::max(start.lastLine, start.loc.line);
    std::string out;
    std::istringstream in(script);
    int n = 0;
    std::string rest;
    for (std::string line; std::getline(in, line);) {
        ++n;
        (n <= last ? out : rest) += line + "\n";
    }
    out += variantBlock(script, start, name, statements);
    if (!truncate) out += rest;
    return out;
}

} // namespace loopscope
