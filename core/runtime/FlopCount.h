// The operation count of a program, from its TE definitions (independent of the schedule): the
// arithmetic on values in each compute body (floating-point, or on integers read from tensors;
// not index arithmetic) times the size of its iteration domain. A matmul counts 2*M*N*K, in
// float32 as in int32; a copy or a padding stage counts nothing.
#pragma once

#include "ir/Tensor.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace loopscope {

using SizeValues = std::unordered_map<const VarNode*, std::int64_t>;

// An extent with the symbolic sizes given values: true (and *out) when that makes it a constant.
bool evaluateSize(const Expr& e, const SizeValues& sizes, std::int64_t* out);

// Every compute reachable from `outputs` counts once.
double flopCount(const std::vector<Tensor>& outputs, const SizeValues& sizes = {});

} // namespace loopscope
