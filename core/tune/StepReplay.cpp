#include "tune/StepReplay.h"

#include "ir/GpuTarget.h"
#include "te/VariantBlock.h"

#include <algorithm>
#include <sstream>

namespace loopscope {

StepReplay::StepReplay(const Variant& start, bool write)
    : m_writer(start.schedule(), scriptNames(start), write)
{
}

bool StepReplay::apply(const NamedStep& step)
{
    m_why.clear();
    ScheduleStep s;
    m_why = resolveStep(m_writer.schedule(), step, &s);
    if (!m_why.empty()) return false;
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

bool tunesGpuKernels(const Variant& start)
{
    return isGpuTarget(start.target) || bindsGpuThreads(start);
}

Variant declaration(const Variant& v)
{
    Variant declared = v;
    declared.steps.clear();
    declared.trace.clear();
    declared.snapshots = {Schedule(v.snapshots.front().outputs())};
    return declared;
}

std::string variantBlock(const std::string& script, const Variant& start, const std::string& name,
                         const std::vector<std::string>& statements)
{
    // A tir.Schedule variant's tuned calls start from the function as declared, and so do a GPU
    // variant's (a GPU search starts from the declaration) and a start's without steps: only
    // the statement that makes the schedule is copied (the statements after it name axes, which
    // the tuner's statements name again).
    const bool tir = start.snapshots.front().tensorIR() != nullptr || start.steps.empty() ||
                     tunesGpuKernels(start);
    return variantBlockText(script, start.loc.line, tir ? start.loc.line : start.scheduleEndLine,
                            tir ? start.loc.line : std::max(start.lastLine, start.loc.line), name,
                            statements) +
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
