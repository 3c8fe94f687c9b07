// A lowered function: its argument buffers (with their multi-dimensional shapes) and its body.
#pragma once

#include "ir/Stmt.h"

#include <string>
#include <vector>

namespace loopscope {

// The two spellings of TensorIR: TVM v0.20 to v0.23 (`from tvm.script import tir as T`,
// `T.block`, `T.alloc_buffer`) and v0.24 to v0.26 (`tirx`, `T.sblock`, `T.sblock_alloc_buffer`,
// `@T.prim_func(s_tir=True)`, `"tirx.noalias": True`), as TVM 0.20 and 0.26 print them
// (tests/data/tvm-tir).
enum class TirSpelling : std::uint8_t { Tvm020, Tvm026 };

struct PrimFunc {
    std::string name = "main";
    std::vector<Buffer> params;
    Stmt body;
    bool fromTensorIR = false; // lowered from a TensorIR function, not a TE schedule
};

// A TensorIR function before it is lowered (`te.create_prim_func`, a `@T.prim_func`, or either
// after `tir.Schedule` steps): its parameters, the buffers its root block allocates, and its body
// of loops and blocks (BlockNode).
struct TirFunc {
    std::string name = "main";
    TirSpelling spelling = TirSpelling::Tvm020; // the script's, for printing
    std::vector<Tensor> params;
    std::vector<BlockAlloc> allocs; // the root block's
    Stmt body;
};

} // namespace loopscope
