#include "export/PythonText.h"

#include <cmath>
#include <cstdio>

namespace loopscope::python {

std::string string(const std::string& s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

std::string number(double v)
{
    char buf[64];
    if (v == std::floor(v) && std::fabs(v) < 1e18)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string shape(const Tensor& t, const SizeValues& sizes, SourceLoc loc)
{
    std::string s = "(";
    for (auto& dim : t->shape) {
        std::int64_t n;
        if (!evaluateSize(dim, sizes, &n))
            throw UserError(loc, "the shape of '" + t->name + "' is not known");
        s += std::to_string(n) +
             (t->shape.size() == 1 ? "," : (&dim == &t->shape.back() ? "" : ", "));
    }
    return s + ")";
}

std::string randomArray(DataType t, const std::string& shape)
{
    const std::string dtype = string(t.str());
    if (t.isFloat()) return "rng.uniform(-1, 1, size=" + shape + ").astype(" + dtype + ")";
    if (t.isBool()) return "rng.integers(0, 2, size=" + shape + ").astype(" + dtype + ")";
    if (t.isUInt()) return "rng.integers(0, 9, size=" + shape + ").astype(" + dtype + ")";
    return "rng.integers(-8, 9, size=" + shape + ").astype(" + dtype + ")";
}

} // namespace loopscope::python
