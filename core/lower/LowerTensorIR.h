// A TensorIR function's blocks as the loop program the rest of the pipeline takes (TVM's
// LowerInitBlock, ConvertBlocksToOpaque and LowerOpaqueBlock): each block's variables replaced by
// their bindings, its init run where every reduction variable is at its start, its T.where a
// guard, and what it allocates realized around it.
#pragma once

#include "ir/PrimFunc.h"

namespace loopscope {

Stmt lowerTensorIR(const TirFunc& f);

} // namespace loopscope
