#include "graph/Operators.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace loopscope {

const char* patternName(OpPattern p)
{
    switch (p) {
    case OpPattern::ElemWise: return "elementwise";
    case OpPattern::Broadcast: return "broadcast";
    case OpPattern::Injective: return "injective";
    case OpPattern::CommReduce: return "reduction";
    case OpPattern::OutEWiseFusable: return "output-fusable";
    case OpPattern::Opaque: return "opaque";
    }
    return "opaque";
}

bool OpContext::hasInput(int i) const
{
    return i >= 0 && i < inputCount() && !m_node.inputs[static_cast<std::size_t>(i)].empty();
}

const GraphTensor& OpContext::input(int i) const
{
    if (!hasInput(i)) fail("input " + std::to_string(i) + " is missing");
    const GraphTensor* t = m_graph.find(m_node.inputs[static_cast<std::size_t>(i)]);
    if (!t) fail("input '" + m_node.inputs[static_cast<std::size_t>(i)] + "' is not defined");
    return *t;
}

const HostBuffer* OpContext::constant(int i) const
{
    if (!hasInput(i)) return nullptr;
    return input(i).constant.get();
}

std::vector<std::int64_t> OpContext::constantInts(int i, const char* what) const
{
    const HostBuffer* b = constant(i);
    if (!b) {
        const std::string& name = m_node.inputs[static_cast<std::size_t>(i)];
        const auto& inputs = m_graph.inputs;
        const bool graphInput = std::find(inputs.begin(), inputs.end(), name) != inputs.end();
        fail(std::string(what) + " (input " + std::to_string(i) +
             ") must be a constant: Loopscope runs models with static shapes" +
             (graphInput ? "; it is the model's input '" + name +
                               "': give its value with --input " + name + "=FILE.pb"
                         : std::string()));
    }
    std::vector<std::int64_t> out;
    for (std::int64_t k = 0; k < b->elementCount(); ++k) {
        if (!b->dtype().isFloat()) {
            out.push_back(b->getInt(k));
            continue;
        }
        // A float where integers are meant: whole values in int64's range only.
        const double v = b->get(k);
        if (!(v >= -9.2e18 && v <= 9.2e18) || v != std::trunc(v))
            fail(std::string(what) + " (input " + std::to_string(i) + ") holds " +
                 std::to_string(v) + " at " + std::to_string(k) + ", which is not a whole number");
        out.push_back(static_cast<std::int64_t>(v));
    }
    return out;
}

std::string OpContext::where() const
{
    return m_node.op + " '" + m_node.name + "'";
}

void OpContext::fail(const std::string& message) const
{
    throw GraphError(where() + ": " + message);
}

std::string ScriptWriter::fresh(const std::string& base)
{
    std::string b;
    for (char c : base)
        b += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (b.empty() || std::isdigit(static_cast<unsigned char>(b[0]))) b = "t_" + b;
    // Names the scripts use themselves, and Python's words.
    static const char* const reserved[] = {
        "te",  "tvm",    "s",      "lambda", "in",   "if",   "else",  "and",   "or", "not", "for",
        "def", "return", "import", "from",   "None", "True", "False", "class", "is", "as",  "with"};
    for (auto* r : reserved)
        if (b == r) b += "_";
    std::string name = b;
    for (int n = 1; std::find(m_used.begin(), m_used.end(), name) != m_used.end(); ++n)
        name = b + "_" + std::to_string(n);
    m_used.push_back(name);
    return name;
}

std::vector<std::string> ScriptWriter::indices(std::size_t rank, const std::string& prefix)
{
    std::vector<std::string> out;
    for (std::size_t i = 0; i < std::max<std::size_t>(rank, 1); ++i)
        out.push_back(prefix + std::to_string(i));
    return out;
}

std::vector<std::int64_t> ScriptWriter::scriptShape(const std::vector<std::int64_t>& shape)
{
    return shape.empty() ? std::vector<std::int64_t>{1} : shape;
}

std::string ScriptWriter::shapeText(const std::vector<std::int64_t>& shape)
{
    auto s = scriptShape(shape);
    std::string out = "(";
    for (std::size_t i = 0; i < s.size(); ++i)
        out += (i ? ", " : "") + std::to_string(s[i]);
    return out + (s.size() == 1 ? ",)" : ")");
}

std::string ScriptWriter::load(const std::string& tensor, const std::vector<std::string>& idx)
{
    if (idx.empty()) return tensor + "[0]";
    std::string out = tensor + "[";
    for (std::size_t i = 0; i < idx.size(); ++i)
        out += (i ? ", " : "") + idx[i];
    return out + "]";
}

std::string ScriptWriter::constant(double v, DataType t)
{
    // The largest finite value stands for an infinity (a max pool's padding).
    if (std::isinf(v))
        v = (v > 0 ? 1 : -1) * (t.bits == 64 ? 1.7976931348623157e308 : 3.4028234663852886e38);
    char buffer[64];
    if (t.isFloat())
        std::snprintf(buffer, sizeof buffer, "%.17g", v);
    else
        std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(v));
    std::string text = buffer;
    if (t.isFloat() && text.find_first_of(".en") == std::string::npos) text += ".0";
    return "tvm.tir.const(" + text + ", \"" + t.str() + "\")";
}

void ScriptWriter::compute(const std::string& var, const std::vector<std::int64_t>& shape,
                           const std::function<std::string(const std::vector<std::string>&)>& body,
                           const std::string& name)
{
    const auto idx = indices(shape.size());
    std::string params;
    for (std::size_t i = 0; i < idx.size(); ++i)
        params += (i ? ", " : "") + idx[i];
    // A scalar's one index is not an index of its inputs.
    const std::vector<std::string> visible = shape.empty() ? std::vector<std::string>{} : idx;
    line(var + " = te.compute(" + shapeText(shape) + ", lambda " + params + ": " + body(visible) +
         ", name=\"" + name + "\")");
}

std::vector<std::int64_t> broadcastShapes(const std::vector<std::int64_t>& a,
                                          const std::vector<std::int64_t>& b, const OpContext& c)
{
    const std::size_t rank = std::max(a.size(), b.size());
    std::vector<std::int64_t> out(rank, 1);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1)
            c.fail("shapes " + dimsText(a) + " and " + dimsText(b) + " do not broadcast");
        out[i] = da == 1 ? db : da;
    }
    return out;
}

std::int64_t broadcastFlat(const std::vector<std::int64_t>& outIndex,
                           const std::vector<std::int64_t>& inShape)
{
    const std::size_t offset = outIndex.size() - inShape.size();
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < inShape.size(); ++d) {
        const std::int64_t i = inShape[d] == 1 ? 0 : outIndex[d + offset];
        flat = flat * inShape[d] + i;
    }
    return flat;
}

std::int64_t sliceAlong(std::int64_t flat, const std::vector<std::int64_t>& shape, std::size_t axis)
{
    std::int64_t inner = 1;
    for (std::size_t d = axis + 1; d < shape.size(); ++d)
        inner *= shape[d];
    return (flat / inner) % shape[axis];
}

void unflatten(std::int64_t flat, const std::vector<std::int64_t>& shape,
               std::vector<std::int64_t>& index)
{
    index.assign(shape.size(), 0);
    for (std::size_t d = shape.size(); d-- > 0;) {
        index[d] = flat % shape[d];
        flat /= shape[d];
    }
}

std::vector<std::string> broadcastIndices(const std::vector<std::string>& outIndices,
                                          const std::vector<std::int64_t>& outShape,
                                          const std::vector<std::int64_t>& inShape)
{
    std::vector<std::string> idx;
    const std::size_t offset = outShape.size() - inShape.size();
    for (std::size_t d = 0; d < inShape.size(); ++d)
        idx.push_back(inShape[d] == 1 && outShape[d + offset] != 1 ? "0" : outIndices[d + offset]);
    return idx;
}

std::int64_t normalizeAxis(std::int64_t axis, std::size_t rank, const OpContext& c)
{
    const auto r = static_cast<std::int64_t>(rank);
    if (r == 0) c.fail("axis " + std::to_string(axis) + " of a scalar: the input has rank 0");
    if (axis < -r || axis >= r)
        c.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
    return axis < 0 ? axis + r : axis;
}

HostBuffer referenceBuffer(DataType t, const std::vector<std::int64_t>& shape)
{
    return HostBuffer(t.isFloat() ? DataType::float64() : t, shape);
}

const std::vector<OpSpec>& operatorCatalogue()
{
    static const std::vector<OpSpec> catalogue = [] {
        std::vector<OpSpec> all;
        registerElementwiseOps(all);
        registerNetworkOps(all);
        registerShapeOps(all);
        registerQuantizeOps(all);
        registerIntegerOps(all);
        std::sort(all.begin(), all.end(),
                  [](const OpSpec& a, const OpSpec& b) { return a.name < b.name; });
        return all;
    }();
    return catalogue;
}

HostBuffer relayout(const HostBuffer& value, const std::vector<std::int64_t>& plain,
                    std::int64_t from, std::int64_t to)
{
    HostBuffer out(value.dtype(), to > 0 ? blockedShape(plain, to) : plain);
    const std::int64_t n = plain[0], c = plain[1];
    std::int64_t spatial = 1;
    for (std::size_t a = 2; a < plain.size(); ++a)
        spatial *= plain[a];
    // Where channel `ch` of image `i` at position `s` lies in blocks of `b` channels.
    auto at = [&](std::int64_t b, std::int64_t i, std::int64_t ch, std::int64_t s) {
        return b > 0 ? ((i * (c / b) + ch / b) * spatial + s) * b + ch % b
                     : (i * c + ch) * spatial + s;
    };
    const auto bytes = static_cast<std::size_t>(value.elementBytes());
    const auto* src = static_cast<const std::byte*>(value.data());
    auto* dst = static_cast<std::byte*>(out.data());
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t ch = 0; ch < c; ++ch)
            for (std::int64_t s = 0; s < spatial; ++s)
                std::memcpy(dst + static_cast<std::size_t>(at(to, i, ch, s)) * bytes,
                            src + static_cast<std::size_t>(at(from, i, ch, s)) * bytes, bytes);
    return out;
}

const OpSpec* findOperator(const std::string& name)
{
    for (const OpSpec& s : operatorCatalogue())
        if (s.name == name) return &s;
    return nullptr;
}

} // namespace loopscope
