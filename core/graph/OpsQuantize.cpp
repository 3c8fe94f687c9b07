// Quantization's two element-wise operators, as ONNX defines them (opset 10; per-axis scales and
// zero points from 13): QuantizeLinear, y = saturate(round(x / scale) + zero_point), rounding
// halves to even and saturating to uint8 or int8; DequantizeLinear, y = (x - zero_point) *
// scale. A QDQ model runs with them as float computations around its operators.
#include "graph/Operators.h"

#include <cmath>

namespace loopscope {

namespace {

// Where the scale and zero point of output element `index` are: one for the tensor, or one per
// slice along `axis`.
struct QuantParams {
    bool perAxis = false;
    std::int64_t axis = 0;
    DataType quantized = kUInt8; // the zero point's type (uint8 without one)
};

QuantParams quantParams(const OpContext& c, bool quantize)
{
    QuantParams p;
    const auto& x = c.input(0);
    const GraphTensor& scale = c.input(1);
    if (!scale.dtype.isFloat()) c.fail("the scale '" + scale.name + "' must be floating-point");
    if (c.hasInput(2)) {
        p.quantized = c.input(2).dtype;
        if (c.input(2).shape != scale.shape)
            c.fail("the zero point and the scale must have the same shape");
    } else if (!quantize) {
        p.quantized = x.dtype;
    }
    if (p.quantized != kUInt8 && p.quantized != kInt8 &&
        !(p.quantized == DataType::int32() && !quantize))
        c.fail("quantized values are uint8 or int8 here (int32 too, dequantized), not " +
               p.quantized.str());
    if (scale.elementCount() != 1) {
        if (scale.shape.size() != 1) c.fail("a scale is a scalar or, per axis, one-dimensional");
        p.axis = normalizeAxis(c.node().intAttr("axis", 1), x.shape.size(), c);
        if (scale.shape[0] != x.shape[static_cast<std::size_t>(p.axis)])
            c.fail("the scale has " + std::to_string(scale.shape[0]) + " values; axis " +
                   std::to_string(p.axis) + " of the input has " +
                   std::to_string(x.shape[static_cast<std::size_t>(p.axis)]));
        p.perAxis = true;
    }
    return p;
}

std::vector<TensorType> quantizeInfer(const OpContext& c)
{
    if (!c.input(0).dtype.isFloat())
        c.fail("QuantizeLinear takes floating-point values, not " + c.input(0).dtype.str());
    return {{quantParams(c, true).quantized, c.shape(0)}};
}

std::vector<TensorType> dequantizeInfer(const OpContext& c)
{
    quantParams(c, false);
    return {{DataType::float32(), c.shape(0)}};
}

std::vector<HostBuffer> quantizeEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const QuantParams p = quantParams(c, true);
    const double lo = p.quantized == kUInt8 ? 0 : -128, hi = p.quantized == kUInt8 ? 255 : 127;
    HostBuffer out(p.quantized, c.shape(0));
    for (std::int64_t i = 0; i < out.elementCount(); ++i) {
        const std::int64_t s =
            p.perAxis ? sliceAlong(i, c.shape(0), static_cast<std::size_t>(p.axis)) : 0;
        // In float32, as ONNX Runtime divides; halves to even.
        const float q = static_cast<float>(in[0]->get(i)) / static_cast<float>(in[1]->get(s));
        const double zp = c.hasInput(2) && in[2] ? static_cast<double>(in[2]->getInt(s)) : 0.0;
        out.setInt(i, static_cast<std::int64_t>(
                          std::min(std::max(std::nearbyint(static_cast<double>(q)) + zp, lo), hi)));
    }
    return {std::move(out)};
}

std::vector<HostBuffer> dequantizeEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const QuantParams p = quantParams(c, false);
    HostBuffer out = referenceBuffer(DataType::float32(), c.shape(0));
    for (std::int64_t i = 0; i < out.elementCount(); ++i) {
        const std::int64_t s =
            p.perAxis ? sliceAlong(i, c.shape(0), static_cast<std::size_t>(p.axis)) : 0;
        const double zp = c.hasInput(2) && in[2] ? static_cast<double>(in[2]->getInt(s)) : 0.0;
        // float32 arithmetic, as the task computes it.
        out.set(i,
                static_cast<double>(static_cast<float>(static_cast<double>(in[0]->getInt(i)) - zp) *
                                    static_cast<float>(in[1]->get(s))));
    }
    return {std::move(out)};
}

// The scale or zero point of an element as script text: a literal when the tensor's is known
// now, else a read of the input at the element's slice.
std::string paramText(const OpContext& c, const QuantParams& p, int i, const std::string& var,
                      const std::vector<std::string>& idx)
{
    if (!c.hasInput(i)) return ScriptWriter::constant(0.0, DataType::float32());
    const HostBuffer* k = c.constant(i);
    if (k && k->elementCount() == 1) return ScriptWriter::constant(k->get(0), DataType::float32());
    const std::string at = p.perAxis ? idx[static_cast<std::size_t>(p.axis)] : std::string("0");
    const std::string load = var + "[" + at + "]";
    return c.input(i).dtype.isFloat() ? load : load + ".astype(\"float32\")";
}

void quantizeEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                  const std::vector<std::string>& out)
{
    const QuantParams p = quantParams(c, true);
    const DataType f = DataType::float32();
    const std::string lo = ScriptWriter::constant(p.quantized == kUInt8 ? 0 : -128, f);
    const std::string hi = ScriptWriter::constant(p.quantized == kUInt8 ? 255 : 127, f);
    w.compute(
        out[0], c.shape(0),
        [&](const std::vector<std::string>& idx) {
            std::string x = ScriptWriter::load(in[0], idx);
            if (c.input(0).dtype != f) x += ".astype(\"float32\")";
            const std::string q = "tvm.tir.nearbyint(" + x + " / " +
                                  paramText(c, p, 1, in[1], idx) + ") + " +
                                  paramText(c, p, 2, in.size() > 2 ? in[2] : "", idx);
            return "te.min(te.max(" + q + ", " + lo + "), " + hi + ").astype(\"" +
                   p.quantized.str() + "\")";
        },
        out[0]);
}

void dequantizeEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                    const std::vector<std::string>& out)
{
    const QuantParams p = quantParams(c, false);
    w.compute(
        out[0], c.shape(0),
        [&](const std::vector<std::string>& idx) {
            return "(" + ScriptWriter::load(in[0], idx) + ".astype(\"float32\") - " +
                   paramText(c, p, 2, in.size() > 2 ? in[2] : "", idx) + ") * " +
                   paramText(c, p, 1, in[1], idx);
        },
        out[0]);
}

} // namespace

void registerQuantizeOps(std::vector<OpSpec>& out)
{
    out.push_back(
        {"QuantizeLinear", OpPattern::ElemWise, quantizeInfer, quantizeEval, quantizeEmit});
    out.push_back(
        {"DequantizeLinear", OpPattern::ElemWise, dequantizeInfer, dequantizeEval, dequantizeEmit});
}

} // namespace loopscope
