#include "tune/TuneStep.h"

#include "ir/IRUtil.h"
#include "te/VariantBlock.h"

#include <algorithm>
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

StepReplay::StepReplay(const Variant& start, bool write)
    : m_writer(start.schedule(), scriptNames(start), write)
{
}

bool StepReplay::resolve(const TuneStep& step, ScheduleStep* out)
{
    const PrimitiveSpec* spec = findPrimitive(step.primitive);
    if (!spec || !spec->apply) {
        m_why = "unknown primitive '" + step.primitive + "'";
        return false;
    }
    const Schedule& sch = m_writer.schedule();
    const Stage* st = findStage(sch, step.stage);
    if (!st) {
        m_why = "no stage '" + step.stage + "'";
        return false;
    }
    ScheduleStep& s = *out = makeStep(*spec, st->op);
    std::vector<IterVar> axes;
    const Stage* axisStage = st;
    const Stage* target = nullptr;
    if (!step.target.empty()) {
        target = findStage(sch, step.target);
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
    if (!ok && m_why.empty()) m_why = "malformed step: " + describe(step);
    return ok;
}

bool StepReplay::apply(const TuneStep& step)
{
    m_why.clear();
    ScheduleStep s;
    if (!resolve(step, &s)) return false;
    // The step's own names; a fused loop without one is named after the variables it fuses
    // (i_0_j_0_fused), as the tuner's statements read.
    auto names = [&](const std::vector<PrintedArg>& printed) {
        if (!step.names.empty() || step.primitive != "fuse" || !printed[0]) return step.names;
        std::string fused;
        for (auto& item : *printed[0])
            fused += item + "_";
        return std::vector<std::string>{fused + "fused"};
    };
    if (!m_writer.apply(s, names)) {
        m_why = m_writer.why();
        return false;
    }
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
