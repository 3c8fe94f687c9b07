// Bound inference: the range every iteration variable of every stage takes, from what each
// stage's consumers read of it at the place the stage is attached.
#pragma once

#include "schedule/Inline.h"
#include "schedule/IterGraph.h"

namespace loopscope {

// One loop of the nest around a stage: which stage's axis it is.
struct LoopRef {
    const Stage* stage;
    IterVar iv;
    bool operator==(const LoopRef& o) const { return stage == o.stage && iv == o.iv; }
};

struct BoundInfo {
    RangeMap ranges;   // every iteration variable of every materialized stage
    Analyzer analyzer; // every loop variable bound to [0, extent)
};

// The loops enclosing a stage's own loops because of where it is attached (outermost first).
std::vector<LoopRef> attachPath(const Schedule& sch, const Stage& s);

// Throws UserError (at the compute_at step) when a consumer of an attached stage is not inside
// the loop it was attached to.
BoundInfo inferBound(const Schedule& sch, const EffectiveBodies& bodies);

} // namespace loopscope
