// Turns a schedule primitive chosen in the schedule panel into the script statement, or says why
// it cannot: the request is incomplete or would change nothing (said here, in the panel's terms),
// or, once the request is a catalogue step on the shown schedule, core refuses it or the script
// cannot name a stage it needs (said by te/StepWriter.h, the one writer of statements, which the
// tuner uses too). Qt-free so it is unit-testable.
#pragma once

#include "explore/Explorer.h"
#include "te/NamedStep.h"
#include "te/StepWriter.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace loopscope {

// What the script calls things in the variant a statement is written for.
struct ScheduleContext {
    std::string scheduleVar = "s"; // the variant's schedule variable
    // Stage name -> the script variable holding that tensor ("C" -> "C"). A stage without one
    // cannot be referred to, so primitives on it are refused.
    std::map<std::string, std::string> tensorVars;
    // AxisInfo::var -> the script variable holding that axis ("i.outer" -> "io").
    std::map<std::string, std::string> axisVars;
    // Optional, per stage (stage name -> AxisInfo::var -> variable). When given, it alone says
    // which variable holds a stage's axis (two stages may have axes of one name).
    std::map<std::string, std::map<std::string, std::string>> stageAxisVars;
    // Every name bound anywhere in the script: fresh names never clash with these.
    std::set<std::string> usedNames;
    // Optional: stage name -> the stages that read it. Without an entry, every later computed
    // stage counts as a possible consumer (stages are listed producers first).
    std::map<std::string, std::vector<std::string>> readers;
    // The schedule at the point where the statement will be written: a primitive is legal when
    // it applies to a copy of it (core's own check; the refusal is its message). A TensorIR
    // variant's (schedule->tensorIR()): the stages are its blocks, and steps are written as
    // tir.Schedule calls (te/TirStepWriter.h).
    std::shared_ptr<const Schedule> schedule;
    // A TensorIR variant's handles: block -> variable; block -> loop -> variable.
    std::map<std::string, std::string> blockVars;
    std::map<std::string, std::map<std::string, std::string>> blockLoopVars;
};

// The context for writing after the last step of `variant` (`last` is its last step's view);
// `allNames` every name the script binds.
ScheduleContext scheduleContextFor(const VariantView& variant, const StepView& last,
                                   const std::vector<std::string>& allNames);

// A written statement (one or more lines, no trailing newline) or why it cannot be written.
struct WrittenStatement {
    std::string text;
    std::string refusal;
    bool ok() const { return refusal.empty(); }
};

class StatementWriter {
public:
    StatementWriter(std::vector<StageInfo> stages, ScheduleContext context);

    const std::vector<StageInfo>& stages() const { return m_stages; }
    const ScheduleContext& context() const { return m_context; }
    const StageInfo* stageInfo(const std::string& name) const;

    // Empty when the step the user chose is legal and writable, else the reason (core's words
    // where the schedule refuses it). Its loops are named by AxisInfo::var ("i.outer"); the
    // loops of a list of axes as selected (a full reorder: every loop of the stage in the new
    // order, of which only those that moved are written).
    std::string whyIllegal(const NamedStep& step) const;
    WrittenStatement write(const NamedStep& step) const;

    // The stages whose loops `stage` may be computed at (its consumers), and those whose loops
    // a TensorIR block may be reverse-computed at (its producers).
    std::vector<std::string> consumersOf(const std::string& stage) const;
    std::vector<std::string> producersOf(const std::string& stage) const;
    // Whether the statements are tir.Schedule calls (a TensorIR variant is shown).
    bool tensorIR() const { return m_context.schedule && m_context.schedule->tensorIR(); }

    // A copy of the variant's block (its te.create_schedule line `variantLine` through
    // `lastLine`, 1-based) headed by "# variant: NEWNAME" and preceded by an empty line, ready to
    // be inserted after `lastLine`. The schedule variable is kept (the copy rebinds it).
    static std::string newVariantFromHere(const std::string& scriptText, int variantLine,
                                          int lastLine, const std::string& newName);

private:
    // What the panel says about a step before it is resolved (incomplete, changes nothing);
    // `probeCore`: of an incomplete step, what core refuses about the TE stage first.
    std::string check(const NamedStep& r, bool probeCore = true) const;
    // No schedule shown, or no such stage in it.
    std::string scheduleRefusal(const NamedStep& r) const;
    // For an incomplete step: what core refuses about the call as a whole, if anything.
    std::string stageRefusal(const NamedStep& r) const;
    // The context's names as the statement writer takes them.
    ScriptNames scriptNames() const;
    WrittenStatement build(const NamedStep& r) const;
    WrittenStatement buildTensorIR(const NamedStep& r) const;

    std::vector<StageInfo> m_stages;
    ScheduleContext m_context;
};

} // namespace loopscope
