// Storage flattening: tensors become one-dimensional buffers, realized regions become allocations.
#pragma once

#include "ir/Diagnostic.h"
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
//
// A tensorized loop's intrinsic buffers (buffer_bind_scope, lower/Tensorize.h) become views of
// the regions they are bound to: their reads and writes go to the tensor's flat buffer at the
// region's start plus the index along the tensor's strides, and their variables (data, start,
// strides) take the region's values. A binding the buffer's declaration does not allow (a compact
// buffer on a strided region, a region that starts elsewhere than a buffer without an offset
// allows, strides other than declared) is refused at the tensorize step in `bindLocs`.
using BindLocs = std::unordered_map<const BufferNode*, SourceLoc>;
PrimFunc flattenStorage(const Stmt& body, const std::vector<Tensor>& args, const AlignMap& aligns,
                        const std::string& name, const BindLocs& bindLocs = {});

} // namespace loopscope
