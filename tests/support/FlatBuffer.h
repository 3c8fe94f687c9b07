// A one-dimensional buffer with storage of its own, for tests that build TIR by hand.
#pragma once

#include "ir/Expr.h"

#include <cstdint>
#include <memory>
#include <string>

namespace loopscope::testsupport {

inline Buffer flatBuffer(const std::string& name, std::int64_t size,
                         DataType dtype = DataType::float32(), const std::string& scope = "global")
{
    auto b = std::make_shared<BufferNode>();
    b->name = name;
    b->dtype = dtype;
    b->shape = {makeInt(size)};
    b->data = Var(name, DataType::handle());
    b->scope = scope;
    return b;
}

} // namespace loopscope::testsupport
