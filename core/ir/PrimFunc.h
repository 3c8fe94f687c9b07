// A lowered function: its argument buffers (with their multi-dimensional shapes) and its body.
#pragma once

#include "ir/Stmt.h"

#include <string>
#include <vector>

namespace loopscope {

struct PrimFunc {
    std::string name = "main";
    std::vector<Buffer> params;
    Stmt body;
};

} // namespace loopscope
