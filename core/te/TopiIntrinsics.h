// TOPI's x86 tensor intrinsics as a module scripts may call (tvm.topi.x86.tensor_intrin), read
// from TOPI's own source.
#pragma once

namespace loopscope {

// The module's Python, as TVM v0.17 has it.
const char* topiX86TensorIntrinSource();

} // namespace loopscope
