// Arithmetic facts about integer index expressions: constant bounds from loop ranges, proofs of
// simple comparisons, and the simplifier that gives index arithmetic TVM's canonical printed form.
#pragma once

#include "ir/Expr.h"
#include "ir/IRUtil.h"

#include <cstdint>
#include <limits>
#include <unordered_map>

namespace loopscope {

// A closed integer interval; the int64 extremes stand for minus and plus infinity.
struct ConstBound {
    static constexpr std::int64_t kNegInf = std::numeric_limits<std::int64_t>::min();
    static constexpr std::int64_t kPosInf = std::numeric_limits<std::int64_t>::max();
    std::int64_t lo = kNegInf;
    std::int64_t hi = kPosInf;
    bool bounded() const { return lo != kNegInf && hi != kPosInf; }
    bool isPoint() const { return bounded() && lo == hi; }
};

class Analyzer {
public:
    // v takes the values min, min+1, ..., min+extent-1.
    void bind(const Var& v, const Expr& min, const Expr& extent);
    void bind(const VarNode* v, ConstBound b) { m_bounds[v] = b; }
    void unbind(const VarNode* v) { m_bounds.erase(v); }
    bool isBound(const VarNode* v) const { return m_bounds.count(v) != 0; }

    ConstBound bound(const Expr& e) const;
    // True when e (a boolean expression) is true for every value of the bound variables.
    bool canProve(const Expr& e) const;
    Expr simplify(const Expr& e) const;

private:
    std::unordered_map<const VarNode*, ConstBound> m_bounds;
};

// Simplify with no knowledge of variable ranges.
Expr simplify(const Expr& e);

} // namespace loopscope
