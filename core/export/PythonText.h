// Python text the TVM exports share (export/TvmScript.cpp for TE, export/TvmTensorIR.cpp for
// TensorIR): string literals, numbers, shapes and the seeded random inputs.
#pragma once

#include "ir/Diagnostic.h"
#include "ir/Tensor.h"
#include "runtime/FlopCount.h"

#include <string>

namespace loopscope::python {

// "text" with its quotes and backslashes escaped.
std::string string(const std::string& s);
// An integral value without a decimal point, else 6 significant digits.
std::string number(double v);
// `(1024, 64)`, `(1024,)`: the tensor's shape with its symbolic sizes given by `sizes`; a
// UserError at `loc` when one is not known.
std::string shape(const Tensor& t, const SizeValues& sizes, SourceLoc loc);
// NumPy's seeded `rng` drawing an array of the type: floats in [-1, 1), small integers.
std::string randomArray(DataType t, const std::string& shape);

} // namespace loopscope::python
