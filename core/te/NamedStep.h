// A schedule step by names, the one shape every maker of steps uses: the primitive, the stage it
// is called on and each argument by the catalogue's argument name (schedule/Primitives.h), its
// loops and stages named as the schedule names them. The tuner makes steps so that one replays
// onto any copy of a schedule and is kept as a line of a tuning log; the schedule panel makes one
// from what the user chose. resolveStep is the one resolver: names to the loops and tensors of a
// schedule, as a catalogue step that applies and prints itself; no maker of steps knows which
// primitive takes what.
#pragma once

#include "schedule/Primitives.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace loopscope {

// One argument's value by names, read as its kind says.
struct NamedArg {
    // Axis (one), Axes: loops by name ("i.outer"), of the step's stage, or for an axis after a
    // stage argument, of that stage. Stage (one), Tensors: stages by name.
    std::vector<std::string> names;
    std::int64_t number = 0; // Factor, Int, Value
    std::string text;        // Text, Scope, ThreadAxis

    bool operator==(const NamedArg& o) const
    {
        return names == o.names && number == o.number && text == o.text;
    }
};

struct NamedStep {
    std::string primitive; // a name in the primitive catalogue
    std::string stage;     // the stage it is called on (a Tensor argument is this stage)
    // The arguments given, by the catalogue's names; one left out takes its default.
    std::map<std::string, NamedArg> args;
    // Names for what the statement binds, if free (split: outer, inner; fuse: one).
    std::vector<std::string> names;

    NamedStep() = default;
    NamedStep(std::string primitive, std::string stage)
        : primitive(std::move(primitive)), stage(std::move(stage))
    {
    }

    // Setters, each returning the step (NamedStep("split", "C").loops("parent", {"i"})...).
    NamedStep& loops(const std::string& arg, std::vector<std::string> loopNames);
    NamedStep& stages(const std::string& arg, std::vector<std::string> stageNames);
    NamedStep& number(const std::string& arg, std::int64_t value);
    NamedStep& text(const std::string& arg, std::string value);
    // Null when the argument is not given.
    const NamedArg* arg(const std::string& name) const;

    // Every loop the step names, in the catalogue's order of its arguments.
    std::vector<std::string> allLoops() const;

    // The same step (result names aside).
    bool operator==(const NamedStep& o) const;
};

// "split C i factor=16": a short, stable text of the step (for logs, duplicates, messages): the
// primitive, the stage, then each argument given in the catalogue's order: loops as they are
// named, numbers as name=value, texts as they are, stages as @name.
std::string describe(const NamedStep& step);

// The step with `loopNames` (loops of its stage, as selected) in its axis arguments: one each for
// the axis arguments before a stage argument, in order, and all of them for a list of axes.
void fillLoops(NamedStep& step, const PrimitiveSpec& primitive,
               const std::vector<std::string>& loopNames);

// How resolveStep treats an argument the step leaves out: as not given (a step to apply), or as
// a stand-in (probing an incomplete step, so that core can say what it says of the stage as a
// whole): a placeholder loop, and `stage` for a stage argument.
struct ResolveProbe {
    std::string stage;
};

// The catalogue step `step` names on `schedule`. Empty when every name resolved, else what the
// schedule lacks ("there is no stage 'D'", "axis 'x' is not a loop of 'C'", an axis split or
// fused since), in the words the schedule panel shows.
std::string resolveStep(const Schedule& schedule, const NamedStep& step, ScheduleStep* out,
                        const ResolveProbe* probe = nullptr);

} // namespace loopscope
