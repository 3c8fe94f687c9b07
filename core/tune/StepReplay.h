// Tuner steps (te/NamedStep.h) replayed onto a schedule and written as statements, and the
// block of a variant made of them.
#pragma once

#include "schedule/Primitives.h"
#include "te/NamedStep.h"
#include "te/Program.h"
#include "te/StepWriter.h"

#include <cstdint>
#include <string>
#include <vector>

namespace loopscope {

// Replays tuner steps onto a copy of a variant's schedule, one at a time, and (when asked)
// writes each as a statement in the variant's own names through the one statement writer
// (te/StepWriter.h, which also gives the tuner findStage, findAxis and uniqueName): the step's
// names resolved to the schedule's loops and tensors by resolveStep, binding and printing there.
class StepReplay {
public:
    StepReplay(const Variant& start, bool write);

    // Applies the step; false when the schedule refuses it (why() says why), and then the
    // schedule and the statements are as they were before it.
    bool apply(const NamedStep& step);
    const std::string& why() const { return m_why; }
    // What the last step applied gave back (split: outer, inner; cache_write: the cache).
    const StepOutput& lastOutput() const { return m_writer.lastOutput(); }

    const Schedule& schedule() const { return m_writer.schedule(); }
    // The statements written so far, one per line (several for a step that binds axes first).
    const std::vector<std::string>& statements() const { return m_writer.statements(); }

private:
    StepWriter m_writer;
    std::string m_why;
};

// Whether tuning `start` searches GPU kernels: its target is a GPU, or it binds loops to GPU
// threads. Such a search starts from the variant's declaration.
bool tunesGpuKernels(const Variant& start);

// The variant as declared: none of its steps (nor their trace).
Variant declaration(const Variant& v);

// The block of a new variant, ready to be inserted after line `start.lastLine` of `script`: an
// empty line, `# variant: NAME`, the starting variant's schedule statements (its pinned steps;
// only the one that makes the schedule for a start without steps, a tir.Schedule or GPU start)
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
