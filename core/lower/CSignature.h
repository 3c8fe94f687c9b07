// The C face of a lowered function, shared by the code generator, the C export and object
// headers: the symbolic sizes it takes after its buffers, and its typed C prototype.
#pragma once

#include "ir/PrimFunc.h"

#include <string>
#include <vector>

namespace loopscope {

// The symbolic sizes a function needs at run time (te.var), in the order the function takes them
// (by name), after its buffers.
std::vector<Var> sizeParameters(const PrimFunc& f);

// The C type of a buffer element or size in the typed function's prototype (float16 travels as
// its bits, uint16_t; bool as uint8_t).
std::string cPrototypeType(DataType t);

// `void NAME(float* A, ..., int32_t n)`: the typed function of an exported object or C source.
std::string cPrototype(const PrimFunc& f);

} // namespace loopscope
