// A schedule step as the tuner makes it: the primitive, its stage and axes by name, so that one
// step replays onto any copy of the starting schedule, is kept as a line of a tuning log, and
// prints as the TVM 0.17 statement a person would write (through the primitive catalogue).
#pragma once

#include "schedule/Primitives.h"
#include "te/Program.h"
#include "te/StepWriter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope {

struct TuneStep {
    std::string primitive;         // a name in the primitive catalogue
    std::string stage;             // the stage's name (for cache_write, rfactor: the tensor's)
    std::vector<std::string> axes; // axes of `stage` by name (compute_at: one axis of `target`)
    std::int64_t number = 0;       // split factor or nparts, pragma value, rfactor factor_axis
    bool nparts = false;           // split by nparts= instead of factor=
    std::string text;              // pragma type, cache scope
    std::string target;            // compute_at: the consumer stage; cache_read: its reader
    // The variable names the statement should bind, if free (split: outer, inner; fuse: one).
    std::vector<std::string> names;

    bool operator==(const TuneStep& o) const;
};

// "split C i factor=16": a short, stable text of the step (for logs, duplicates, messages).
std::string describe(const TuneStep& step);

// Replays tuner steps onto a copy of a variant's schedule, one at a time, and (when asked)
// writes each as a statement in the variant's own names through the one statement writer
// (te/StepWriter.h, which also gives the tuner findStage, findAxis and uniqueName): the step's
// names resolved to the schedule's loops and tensors here, binding and printing there.
class StepReplay {
public:
    StepReplay(const Variant& start, bool write);

    // Applies the step; false when the schedule refuses it (why() says why), and then the
    // schedule and the statements are as they were before it.
    bool apply(const TuneStep& step);
    const std::string& why() const { return m_why; }
    // What the last step applied gave back (split: outer, inner; cache_write: the cache).
    const StepOutput& lastOutput() const { return m_writer.lastOutput(); }

    const Schedule& schedule() const { return m_writer.schedule(); }
    // The statements written so far, one per line (several for a step that binds axes first).
    const std::vector<std::string>& statements() const { return m_writer.statements(); }

private:
    // The catalogue step for `step` on the current schedule; false (m_why says why) when it
    // names what the schedule does not have.
    bool resolve(const TuneStep& step, ScheduleStep* out);

    StepWriter m_writer;
    std::string m_why;
};

// The block of a new variant, ready to be inserted after line `start.lastLine` of `script`: an
// empty line, `# variant: NAME`, the starting variant's schedule statements (its pinned steps)
// as written, the tuner's statements, then the rest of the starting block (tvm.build ...).
std::string variantBlock(const std::string& script, const Variant& start, const std::string& name,
                         const std::vector<std::string>& statements);

// `script` with the block inserted after the starting variant, and everything after the
// starting variant's block dropped when `truncate` (what a measurement needs: the declarations
// the variant sees, and nothing that evaluates after it).
std::string scriptWithVariant(const std::string& script, const Variant& start,
                              const std::string& name, const std::vector<std::string>& statements,
                              bool truncate);

} // namespace loopscope
