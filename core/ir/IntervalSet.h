// Symbolic integer intervals [min, max] and their evaluation over index expressions, used to find
// the region of a tensor that a loop nest touches.
#pragma once

#include "ir/Analyzer.h"

#include <unordered_map>

namespace loopscope {

// Both ends defined: the interval; both null: unknown (everything).
struct IntervalSet {
    Expr min, max;
    bool known() const { return min.defined() && max.defined(); }
    static IntervalSet point(const Expr& e) { return {e, e}; }
    static IntervalSet everything() { return {}; }
};

using IntervalMap = std::unordered_map<const VarNode*, IntervalSet>;

// The values e takes when each variable in `relax` ranges over its interval (other variables are
// held fixed). Exact for affine expressions; conservative (or unknown) otherwise.
IntervalSet evalInterval(const Expr& e, const IntervalMap& relax, const Analyzer& an);

// The smallest interval holding both, or unknown when the ends cannot be ordered.
IntervalSet unionInterval(const IntervalSet& a, const IntervalSet& b, const Analyzer& an);

} // namespace loopscope
