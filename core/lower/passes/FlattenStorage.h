// Storage flattening: tensors become one-dimensional buffers, realized regions become allocations.
#pragma once

#include "ir/PrimFunc.h"

#include <unordered_map>

namespace loopscope {

// storage_align of one dimension: its stride becomes k * factor + offset.
struct DimAlign {
    int dim = 0;
    int factor = 1;
    int offset = 0;
};
using AlignMap = std::unordered_map<const OperationNode*, std::vector<DimAlign>>;

// Precondition: the output of scheduleOps (Realize, TensorStore, TensorLoad). Arguments get a
// buffer each (the function's parameters); a realized tensor that is not an argument gets an
// Allocate of its region, and accesses are offset by the region's minimum. Accesses go through
// one-dimensional buffers that share the data of the multi-dimensional ones.
PrimFunc flattenStorage(const Stmt& body, const std::vector<Tensor>& args, const AlignMap& aligns,
                        const std::string& name);

} // namespace loopscope
