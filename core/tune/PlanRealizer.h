// What a sketch rule realizes its plans with: the candidate's knob values, and the steps it makes,
// applied one at a time to the starting variant's schedule (a step the schedule refuses makes the
// candidate invalid, with the reason). Written in tune/Realize.cpp.
#pragma once

#include "tune/Space.h"

#include <map>

namespace loopscope {

// The longest loop worth vectorizing.
constexpr std::int64_t kMaxVectorLoop = 64;

// A name for variables made from an axis ("i.c" -> "i_c").
std::string baseName(const std::string& axis);
// The extent of a leaf axis, from its root's extent through the splits and fuses (0: unknown).
std::int64_t leafExtent(const Stage& st, const IterVar& iv);
// The leaves a root axis was split into, outermost first.
std::vector<IterVar> pieces(const Stage& st, const IterVar& root);

class PlanRealizer {
public:
    PlanRealizer(const Variant& start, const Sketch& sketch, const Knobs& knobs,
                 const SpaceOptions& options, bool write);

    // The sketch's prologue, then every plan through its rule.
    Realized run();

    const SpaceOptions& options() const { return m_options; }
    bool allowed(const char* primitive) const { return tunerMayWrite(m_options, primitive); }
    // The stage as the steps so far left it, or null.
    const Stage* stage(const std::string& name) const;
    // The sketch's facts of a stage, or null.
    const StageFacts* facts(const std::string& name) const { return m_sketch.factsOf(name); }
    const StagePlan* planOf(const std::string& name) const;
    // What the last step gave back (split: outer, inner; fuse: the fused loop; rfactor: the
    // tensor of partial results).
    const StepOutput& lastOutput() const { return m_replay.lastOutput(); }

    // The value of a choice knob (`otherwise` for -1, no knob).
    std::int64_t choice(int knob, std::int64_t otherwise) const;
    // The sizes of every level of a tile knob, outermost first (the outermost derived); an axis
    // without a knob is one loop at level 0.
    std::vector<std::int64_t> tile(int knob, std::int64_t extent, int levels) const;

    // Makes one step (one of tunerPrimitives(), or an InternalError).
    bool step(NamedStep s);
    bool simpleStep(const char* primitive, const std::string& st, std::vector<std::string> axes,
                    std::vector<std::string> names = {});
    bool computeAt(const std::string& st, const std::string& target, const std::string& axis);
    bool split(const std::string& st, const std::string& axis, std::int64_t factor,
               std::vector<std::string> names, std::string* outer, std::string* inner);
    // Splits `axis` into the levels first .. sizes.size()-1 (sizes of every level, outermost
    // first); a level of size 1 gets no loop, except the first. `loops` gets each level's loop.
    bool splitLevels(const std::string& st, const std::string& axis,
                     const std::vector<std::int64_t>& sizes, int first,
                     std::vector<std::string>* loops);
    // Written only when it changes the order of the loops it names.
    bool reorder(const std::string& st, const std::vector<std::string>& order);
    // Fuses `group` (adjacent loops) and makes the result parallel; `loop` gets the loop that
    // stands for them afterwards.
    bool parallel(const std::string& st, const std::vector<std::string>& group, std::string* loop);
    // Fuses `group` (adjacent loops; one is left as it is); `loop` gets the loop that stands for
    // them afterwards.
    bool fuse(const std::string& st, const std::vector<std::string>& group, std::string* loop);
    // Binds a loop to a GPU thread axis ("blockIdx.x", "vthread", "threadIdx.x").
    bool bind(const std::string& st, const std::string& loop, const std::string& thread);
    // The unroll pragma on the stage's outermost loop, as the knob says.
    bool unroll(const std::string& st, int knob);
    // Gives up with a reason.
    bool fail(const std::string& why);

    // Where a guest is to be computed, as its host's realization decided (the host's plan comes
    // first: consumers before producers); null when not decided.
    void attachGuest(const std::string& guest, const std::string& hostLoop);
    const std::string* guestAttachment(const std::string& guest) const;

private:
    const Sketch& m_sketch;
    const Knobs& m_knobs;
    const SpaceOptions& m_options;
    StepReplay m_replay;
    std::vector<NamedStep> m_steps;
    std::string m_why;
    std::map<std::string, std::string> m_attach; // guest -> the host loop it is computed in
};

} // namespace loopscope
