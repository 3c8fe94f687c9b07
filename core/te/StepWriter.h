// The one writer of schedule statements in a script's own names, for the schedule panel and the
// tuner alike: given what the script calls things where the statements go (ScriptNames) and a
// catalogue step whose arguments are loops and tensors of a schedule, it applies the step through
// the catalogue (or says why core refuses it), binds the variables the statement needs
// (`i, j = s[C].op.axis`, `x = s[C].leaf_iter_vars[2]`), and prints the statement through
// printStatement with fresh names for what it binds. It lives in te because the names are the
// script's: the evaluator records them for a variant (te/Program.h), while the schedule layer
// below knows loops and tensors, not the variables that hold them.
#pragma once

#include "schedule/Primitives.h"
#include "te/Program.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace loopscope {

// `base`, else base_1, base_2, ...: the first not in `used`.
std::string uniqueName(const std::string& base, const std::set<std::string>& used);

// A stage of `sch` by name, or null.
const Stage* findStage(const Schedule& sch, const std::string& name);
// An axis of `stage` by name ("i.outer"): a loop first, else any of its iteration variables;
// null if none.
IterVar findAxis(const Stage& stage, const std::string& name);

// What a script calls things at the point where a statement is written.
struct ScriptNames {
    std::string scheduleVar = "s";
    // Stage (tensor) name -> the variable holding the tensor. A stage without one cannot be
    // named, so no statement on it can be written.
    std::map<std::string, std::string> tensorVars;
    // Stage name -> axis name ("i.outer") -> the variable holding that axis of that stage.
    std::map<std::string, std::map<std::string, std::string>> axisVars;
    // Every name a fresh variable must not take.
    std::set<std::string> used;
};

// The names as they stand after a variant's last statement; of two variables holding one
// tensor, the first in name order.
ScriptNames scriptNames(const Variant& variant);

// Applies steps to a copy of a schedule, one at a time, and writes each as statements. An axis
// the script holds in no variable is bound first: a root axis with its siblings (`i, j =
// s[C].op.axis`, `(k,) = s[C].op.reduce_axis`), any other loop by its position (`x =
// s[C].leaf_iter_vars[2]`), so that every loop can be named, as TVM's Python allows.
class StepWriter {
public:
    // Names for what a statement binds, given its arguments as printed (their variables, numbers,
    // scopes); each is made unique. Fewer than the results, or an empty one: the catalogue's
    // names (after the loops' own names) for those.
    using ResultNames = std::function<std::vector<std::string>(const std::vector<PrintedArg>&)>;

    // `write` false: steps are applied and nothing is written or checked for names (the tuner's
    // search, which prints only the candidates it keeps).
    StepWriter(Schedule schedule, const ScriptNames& names, bool write = true);

    // Applies `step` (its arguments are loops and tensors of schedule()) and writes it after the
    // statements that bind what it needs. False when core refuses the step or the script cannot
    // name a stage it needs (why() says which, core first); then nothing has changed. The step
    // applies in place, as the tuner's rules expect: a stage of schedule() stays where it is
    // across a step that adds no stage.
    bool apply(const ScheduleStep& step, const ResultNames& names = {});
    const std::string& why() const { return m_why; }
    // What the last step applied gave back (split: outer, inner; cache_write: the cache).
    const StepOutput& lastOutput() const { return m_lastOutput; }

    const Schedule& schedule() const { return m_schedule; }
    // The statements written so far, one per line (several for a step that binds axes first).
    const std::vector<std::string>& statements() const { return m_lines; }

private:
    // The names as they change with each statement; a step writes into a copy, kept (and its
    // lines added to the statements) when the step is written.
    struct Names {
        std::set<std::string> used;
        std::map<IterVar, std::string> axisVars;       // holding the axis keeps its address unique
        std::map<std::string, std::string> tensorVars; // stage name -> variable
        std::vector<std::string> lines;                // this step's
    };

    // A step's arguments as the statement prints them, and as its results are named after.
    struct Printed {
        std::vector<PrintedArg> args;
        std::vector<std::vector<std::string>> shown; // an axis's display name, else as printed
        std::string self;                            // the stage's variable
    };

    std::string fresh(Names& n, const std::string& base) const;
    std::string tensorVariable(Names& n, const std::string& stage);
    std::string axisVariable(Names& n, const Stage& stage, const IterVar& axis);
    // Binds what the step's arguments need (a refusal in m_why when the script cannot name one).
    Printed print(Names& n, const ScheduleStep& step);
    // The step's statement, once it applied and gave `out` (naming what it binds).
    std::string statement(Names& n, const ScheduleStep& step, const Printed& printed,
                          const StepOutput& out, const ResultNames& names);

    Schedule m_schedule;
    std::string m_scheduleVar;
    bool m_write;
    Names m_names;
    std::vector<std::string> m_lines;
    std::string m_why;
    StepOutput m_lastOutput;
};

} // namespace loopscope
