// The bodies stages actually compute once inlined stages are substituted into their readers.
#pragma once

#include "schedule/Schedule.h"

#include <unordered_map>

namespace loopscope {

// For every materialized compute stage (not inlined, not a placeholder): its body with every read
// of an inlined stage replaced by that stage's body at the read's indices, recursively.
using EffectiveBodies = std::unordered_map<const OperationNode*, Expr>;
EffectiveBodies inlineBodies(const Schedule& sch);

// The tensors an expression reads, in order of first appearance.
std::vector<Tensor> tensorsRead(const Expr& e);

} // namespace loopscope
