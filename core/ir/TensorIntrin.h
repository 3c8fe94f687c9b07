// A tensor intrinsic (te.decl_tensor_intrin): a small computation and the statements that do it
// on the machine's own units. `tensorize` replaces the loops under an axis of a stage whose
// computation there is this one by these statements, bound to the stage's tensors.
#pragma once

#include "ir/Diagnostic.h"
#include "ir/Stmt.h"
#include "ir/Tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace loopscope {

struct TensorIntrinNode {
    std::string name = "tensor_intrin";
    // The computation it does: a compute over placeholders (te.compute, as TOPI declares it).
    Tensor op;
    // op's inputs, as op.input_tensors orders them, then op itself: one declared buffer each
    // (the binds given, or a compact buffer of the tensor's shape).
    std::vector<Tensor> tensors;
    std::vector<Buffer> buffers;
    std::vector<Var> scalarParams;
    // The statements over `buffers`: the whole computation; for a reduction also the reset of
    // the output and one update of it (null when the intrinsic has none).
    Stmt body, reduceInit, reduceUpdate;
    SourceLoc loc; // where the script declared it
};
using TensorIntrin = std::shared_ptr<const TensorIntrinNode>;

} // namespace loopscope
