// The unavoidable memory traffic of a program, for arithmetic intensity (FLOPs per byte) on the
// roofline: every input (placeholder) read once and every output written once, whatever the
// schedule does. Intermediate tensors (a packed copy, a cache) are not counted.
#pragma once

#include "ir/Tensor.h"
#include "runtime/FlopCount.h"

#include <vector>

namespace loopscope {

// Bytes of the placeholders reachable from `outputs` plus the outputs themselves: elements x
// element size. A size that stays symbolic takes its value from `sizes`, else counts 0.
double unavoidableBytes(const std::vector<Tensor>& outputs, const SizeValues& sizes = {});

// flops / bytes, 0 when either is 0.
double arithmeticIntensity(double flops, double bytes);

} // namespace loopscope
