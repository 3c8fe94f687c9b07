// Divisibility facts about integer index expressions: every value of e is coeff * k + base for
// some integer k, as TVM's arith::ModularSet reports them (used to prove ramp bases aligned).
#pragma once

#include "ir/Expr.h"

#include <cstdint>

namespace loopscope {

// coeff == 0 means the expression is the constant `base`; otherwise 0 <= base < coeff.
// {1, 0} says nothing.
struct ModularSet {
    std::int64_t coeff = 1;
    std::int64_t base = 0;

    // Every value is a multiple of n (n > 0).
    bool divisibleBy(std::int64_t n) const { return coeff % n == 0 && base % n == 0; }
};

// Variables are unknown integers; constants, sums, products, floordiv/floormod by constants and
// min/max/select are followed.
ModularSet modularSet(const Expr& e);

} // namespace loopscope
