// ONNX's integer operators (the QOperator form of a quantized model): MatMulInteger and
// ConvInteger (int32 sums of uint8 or int8 values less their zero points), QLinearMatMul and
// QLinearConv (the same sums requantized into the output's scale and zero point), and
// com.microsoft's QLinearAdd. The sums are Conv's and MatMul's own computation (shapes, pads,
// strides, groups, broadcasting; com.microsoft's QGemm, a quantized dense layer with an int32
// bias, Gemm's), run on int32 values: each input's values less their zero point
// are a stage of the task, and the requantization, y = saturate(round(acc * sx * sw / sy) + zy)
// with halves to even in float32 as ONNX Runtime computes it, is the task's output stage (Relay's
// QNN canonicalization: the integer part, then the float multiplier, fused).
#include "graph/Operators.h"

#include <cmath>

namespace loopscope {

namespace {

const DataType kI32 = DataType::int32();
const DataType kF32 = DataType::float32();

std::string num(std::int64_t v)
{
    return std::to_string(v);
}

bool quantizedType(DataType t)
{
    return t == kUInt8 || t == kInt8;
}

// Where a quantized operator's inputs are: the values, their scale (-1: none, as
// MatMulInteger's) and zero point, per input of the float computation; the output's scale and
// zero point (-1: int32 sums); the bias (-1: none).
struct Layout {
    struct In {
        int values, scale, zero;
    };
    std::vector<In> in;
    int yScale = -1, yZero = -1, bias = -1;
    const char* core; // the float operator whose sums these are
};

Layout layoutOf(const std::string& op)
{
    if (op == "MatMulInteger") return {{{0, -1, 2}, {1, -1, 3}}, -1, -1, -1, "MatMul"};
    if (op == "ConvInteger") return {{{0, -1, 2}, {1, -1, 3}}, -1, -1, -1, "Conv"};
    if (op == "QLinearMatMul") return {{{0, 1, 2}, {3, 4, 5}}, 6, 7, -1, "MatMul"};
    if (op == "QLinearConv") return {{{0, 1, 2}, {3, 4, 5}}, 6, 7, 8, "Conv"};
    if (op == "QGemm") return {{{0, 1, 2}, {3, 4, 5}}, 7, 8, 6, "Gemm"};
    return {{{0, 1, 2}, {3, 4, 5}}, 6, 7, -1, "Add"}; // QLinearAdd
}

// The axis of input `which` (0 or 1) along which its scale and zero point may vary, as the
// operator allows: a matmul's rows of A and columns of B, a convolution's filters.
std::int64_t paramAxis(const OpContext& c, const std::string& core, int which, std::size_t rank)
{
    if (core == "Conv") return which == 1 ? 0 : -1;
    // A Gemm's B: per output column, its axis 0 when transposed (N x K).
    if (core == "Gemm") return which == 1 ? (c.node().intAttr("transB", 0) ? 0 : 1) : -1;
    if (core == "MatMul")
        return which == 0 ? static_cast<std::int64_t>(rank) - 2
                          : static_cast<std::int64_t>(rank) - 1;
    return -1;
}

// A scale or zero point: a scalar (or one value), or one per slice along `axis`; checked.
struct Param {
    bool present = false;
    bool perAxis = false;
    std::int64_t axis = -1;
};

Param paramOf(const OpContext& c, int input, std::int64_t axis, const std::vector<std::int64_t>& of,
              const char* what, bool zeroPoint, DataType values)
{
    Param p;
    if (input < 0 || !c.hasInput(input)) return p;
    p.present = true;
    const GraphTensor& t = c.input(input);
    if (zeroPoint && t.dtype != values)
        c.fail(std::string(what) + " '" + t.name + "' is " + t.dtype.str() + "; its values are " +
               values.str());
    if (!zeroPoint && !t.dtype.isFloat())
        c.fail(std::string(what) + " '" + t.name + "' must be floating-point");
    if (t.elementCount() == 1) return p;
    if (axis < 0 || t.shape.size() != 1 || t.shape[0] != of[static_cast<std::size_t>(axis)])
        c.fail(std::string(what) + " '" + t.name + "' is " + dimsText(t.shape) +
               (axis < 0 ? "; it must be one value"
                         : "; it must be one value or " + num(of[static_cast<std::size_t>(axis)]) +
                               " (axis " + num(axis) + " of " + dimsText(of) + ")"));
    p.perAxis = true;
    p.axis = axis;
    return p;
}

// The float operator's node over int32 stand-ins of the integer operator's values (at 0 and 1,
// the bias at 2), in a graph of their own: Conv's and MatMul's checks and shapes as they are.
struct Core {
    Graph graph;
    GraphNode node;
    OpContext context() const { return OpContext(graph, node); }
};

Core coreOf(const OpContext& c, const Layout& l)
{
    Core k;
    k.graph.opset = c.opset();
    k.node = c.node();
    k.node.op = l.core;
    k.node.inputs.clear();
    std::vector<int> from{l.in[0].values, l.in[1].values};
    if (l.bias >= 0) from.push_back(l.bias);
    for (int i : from) {
        if (!c.hasInput(i)) {
            k.node.inputs.push_back("");
            continue;
        }
        GraphTensor t = c.input(i);
        t.dtype = kI32;
        t.name = "in" + num(static_cast<std::int64_t>(k.node.inputs.size()));
        k.node.inputs.push_back(t.name);
        k.graph.add(std::move(t));
    }
    return k;
}

// A QLinearConv whose weights AlterQLinearConvLayout packed into blocks of `lanes` output by 4
// input channels (kWeightBlock; F/L x C/4 x KH x KW x L x 4), its data's zero point then in its
// bias (whose length is the number of filters: the last block may hold fewer): 2-D, one group,
// pads given (no auto_pad).
struct Blocked {
    std::int64_t n = 0, c = 0, h = 0, w = 0, f = 0, kh = 0, kw = 0, lanes = 0;
    std::int64_t sy = 1, sx = 1, dy = 1, dx = 1, py = 0, px = 0, py1 = 0, px1 = 0, oh = 0, ow = 0;
};

bool isBlocked(const OpContext& c)
{
    return c.node().op == "QLinearConv" && c.node().intAttr(kWeightBlock, 0) > 0;
}

// A QGemm whose weights AlterQLinearConvLayout packed as TOPI's dense_int8 packs them: N/L x
// K/4 x L x 4, the data's zero point in the bias (which it always writes, one value per output
// column: the last block may hold fewer columns).
bool isDenseBlocked(const OpContext& c)
{
    return c.node().op == "QGemm" && c.node().intAttr(kWeightBlock, 0) > 0;
}

struct DenseBlocked {
    std::int64_t m = 0, k = 0, n = 0, lanes = 0;
};

DenseBlocked denseBlockedOf(const OpContext& c)
{
    DenseBlocked d;
    const auto& a = c.shape(0);
    const auto& wt = c.shape(3);
    d.lanes = c.node().intAttr(kWeightBlock, 0);
    d.n = c.hasInput(6) && c.input(6).shape.size() == 1 ? c.shape(6)[0] : 0;
    if (a.size() != 2 || wt.size() != 4 || wt[2] != d.lanes || wt[3] != 4 || wt[1] * 4 != a[1] ||
        d.n < 1 || (d.n + d.lanes - 1) / d.lanes != wt[0])
        c.fail("weights in int8 blocks of " + num(d.lanes) + " x 4 must be N/" + num(d.lanes) +
               " x K/4 x " + num(d.lanes) + " x 4 for data M x K, not " + dimsText(wt));
    d.m = a[0];
    d.k = a[1];
    return d;
}

// Strides, dilations, pads and the output's size of a 2-D window (pads given, no auto_pad).
void windowOf2d(const OpContext& c, Blocked& b)
{
    const auto s = c.node().intsAttr("strides", {1, 1});
    const auto d = c.node().intsAttr("dilations", {1, 1});
    const auto p = c.node().intsAttr("pads", {0, 0, 0, 0});
    if (s.size() != 2 || d.size() != 2 || p.size() != 4 ||
        c.node().stringAttr("auto_pad", "NOTSET") != "NOTSET")
        c.fail("needs 2-D strides, dilations and pads");
    b.sy = s[0];
    b.sx = s[1];
    b.dy = d[0];
    b.dx = d[1];
    b.py = p[0];
    b.px = p[1];
    b.py1 = p[2];
    b.px1 = p[3];
    b.oh = (b.h + b.py + b.py1 - b.dy * (b.kh - 1) - 1) / b.sy + 1;
    b.ow = (b.w + b.px + b.px1 - b.dx * (b.kw - 1) - 1) / b.sx + 1;
    if (b.oh < 1 || b.ow < 1) c.fail("the window is larger than the padded input");
}

Blocked blockedOf(const OpContext& c)
{
    Blocked b;
    const auto& x = c.shape(0);
    const auto& wt = c.shape(3);
    b.lanes = c.node().intAttr(kWeightBlock, 0);
    // The filters: as many as the bias (AlterQLinearConvLayout always writes one) has values.
    const std::int64_t f = c.hasInput(8) && c.input(8).shape.size() == 1 ? c.shape(8)[0] : 0;
    if (x.size() != 4 || wt.size() != 6 || wt[4] != b.lanes || wt[5] != 4 ||
        wt[1] != (x[1] + 3) / 4 || f < 1 || (f + b.lanes - 1) / b.lanes != wt[0] ||
        c.node().intAttr("group", 1) != 1 || c.node().stringAttr("auto_pad", "NOTSET") != "NOTSET")
        c.fail("weights in int8 blocks of " + num(b.lanes) + " x 4 must be F/" + num(b.lanes) +
               " x C/4 x KH x KW x " + num(b.lanes) + " x 4 for data N x C x H x W, not " +
               dimsText(wt));
    b.n = x[0];
    b.c = x[1];
    b.h = x[2];
    b.w = x[3];
    b.f = f;
    b.kh = wt[2];
    b.kw = wt[3];
    windowOf2d(c, b);
    return b;
}

struct Checked {
    Layout layout;
    std::vector<Param> scale, zero; // per input of the core
    Param yScale, yZero;
    DataType out = kI32;
    std::vector<std::int64_t> shape; // the sums' (and output's) shape
};

Checked checkedOf(const OpContext& c)
{
    Checked k;
    k.layout = layoutOf(c.node().op);
    const Layout& l = k.layout;
    const bool add = std::string(l.core) == "Add";
    for (std::size_t w = 0; w < l.in.size(); ++w) {
        const GraphTensor& v = c.input(l.in[w].values);
        if (!quantizedType(v.dtype))
            c.fail("'" + v.name + "' is " + v.dtype.str() + "; quantized values are uint8 or int8");
        if (l.in[w].scale >= 0 && !c.hasInput(l.in[w].scale)) c.fail("a scale is missing");
        std::int64_t axis = paramAxis(c, l.core, static_cast<int>(w), v.shape.size());
        // Packed weights: their scales and zero points are still one per filter (or column).
        std::vector<std::int64_t> of =
            w == 1 && isBlocked(c) ? std::vector<std::int64_t>{blockedOf(c).f} : v.shape;
        if (w == 1 && isDenseBlocked(c)) {
            of = {denseBlockedOf(c).n};
            axis = 0;
        }
        k.scale.push_back(paramOf(c, l.in[w].scale, axis, of, "the scale", false, v.dtype));
        k.zero.push_back(paramOf(c, l.in[w].zero, axis, of, "the zero point", true, v.dtype));
    }
    if (isBlocked(c)) {
        const Blocked b = blockedOf(c);
        k.shape = {b.n, b.f, b.oh, b.ow};
    } else if (isDenseBlocked(c)) {
        const DenseBlocked d = denseBlockedOf(c);
        k.shape = {d.m, d.n};
    } else if (add) {
        k.shape = broadcastShapes(c.shape(0), c.shape(3), c);
    } else {
        if (std::string(l.core) == "Conv" && c.input(l.in[1].values).dtype == kUInt8 &&
            c.input(l.in[0].values).dtype == kInt8)
            c.fail("int8 data with uint8 weights is not a form ONNX Runtime runs either");
        Core core = coreOf(c, l);
        const OpContext cc = core.context();
        k.shape = findOperator(l.core)->infer(cc).at(0).shape;
    }
    if (l.bias >= 0 && c.hasInput(l.bias) && c.input(l.bias).dtype != kI32)
        c.fail("the bias '" + c.input(l.bias).name + "' must be int32");
    if (l.yScale >= 0) {
        if (!c.hasInput(l.yScale)) c.fail("the output's scale is missing");
        k.out = c.hasInput(l.yZero) ? c.input(l.yZero).dtype : kUInt8;
        if (!quantizedType(k.out))
            c.fail("the output's zero point is " + k.out.str() + "; it must be uint8 or int8");
        std::int64_t axis = -1;
        // QLinearMatMul's output may be per column, as its B is.
        if (std::string(l.core) == "MatMul") axis = static_cast<std::int64_t>(k.shape.size()) - 1;
        if (std::string(l.core) == "Gemm" &&
            (c.node().floatAttr("alpha", 1.0) != 1.0 || c.node().intAttr("transA", 0) != 0))
            c.fail("QGemm runs here with alpha 1 and A not transposed");
        k.yScale = paramOf(c, l.yScale, axis, k.shape, "the output's scale", false, k.out);
        k.yZero = paramOf(c, l.yZero, axis, k.shape, "the output's zero point", true, k.out);
    }
    return k;
}

std::vector<TensorType> integerInfer(const OpContext& c)
{
    const Checked k = checkedOf(c);
    return {{k.out, k.shape}};
}

// ---- the reference ----

// The slice along `axis` that element `flat` of `shape` is in (0 for a scalar parameter).
std::int64_t sliceAt(const Param& p, std::int64_t flat, const std::vector<std::int64_t>& shape)
{
    return p.perAxis ? sliceAlong(flat, shape, static_cast<std::size_t>(p.axis)) : 0;
}

double paramValue(const Param& p, const HostBuffer* b, std::int64_t slice, double fallback)
{
    if (!p.present || !b) return fallback;
    return b->get(p.perAxis ? slice : 0);
}

// Values less their zero point, int32.
HostBuffer shifted(const HostBuffer& v, const Param& zero, const HostBuffer* zp)
{
    HostBuffer out(kI32, v.shape());
    for (std::int64_t i = 0; i < v.elementCount(); ++i)
        out.setInt(i, v.getInt(i) - static_cast<std::int64_t>(
                                        paramValue(zero, zp, sliceAt(zero, i, v.shape()), 0.0)));
    return out;
}

// The output slices a scale or zero point of input `w` follows: a convolution's filter is the
// output's axis 1; a matmul's rows and columns are its last two axes.
std::int64_t outputSlice(const Checked& k, int w, std::int64_t flat)
{
    const Param& p = k.scale[static_cast<std::size_t>(w)];
    if (!p.perAxis) return 0;
    const std::vector<std::int64_t>& s = k.shape;
    const std::size_t axis = std::string(k.layout.core) == "Conv" ? 1
                             : w == 0                             ? s.size() - 2
                                                                  : s.size() - 1;
    return sliceAlong(flat, s, axis);
}

float requantScale(float sa, float sb, float sy)
{
    return sa * sb / sy; // in float32, in this order, as ONNX Runtime's kernels make it
}

std::int64_t saturate(double v, DataType t)
{
    const double lo = t == kUInt8 ? 0 : -128, hi = t == kUInt8 ? 255 : 127;
    return static_cast<std::int64_t>(std::min(std::max(v, lo), hi));
}

// The int32 sums of a packed QLinearConv: the data as it is (zx in the padding), the bias
// holding -zx * sum(w).
HostBuffer blockedSums(const OpContext& c, const HostBuffer& x, const HostBuffer& wt,
                       const HostBuffer* bias)
{
    const Blocked b = blockedOf(c);
    const std::int64_t zx = c.constant(2) ? c.constant(2)->getInt(0) : 0;
    HostBuffer out(kI32, {b.n, b.f, b.oh, b.ow});
    std::int64_t o = 0;
    for (std::int64_t n = 0; n < b.n; ++n)
        for (std::int64_t f = 0; f < b.f; ++f)
            for (std::int64_t oy = 0; oy < b.oh; ++oy)
                for (std::int64_t ox = 0; ox < b.ow; ++ox) {
                    std::int64_t sum = bias ? bias->getInt(f) : 0;
                    for (std::int64_t ic = 0; ic < b.c; ++ic)
                        for (std::int64_t ky = 0; ky < b.kh; ++ky)
                            for (std::int64_t kx = 0; kx < b.kw; ++kx) {
                                const std::int64_t iy = oy * b.sy + ky * b.dy - b.py;
                                const std::int64_t ix = ox * b.sx + kx * b.dx - b.px;
                                const bool inside = iy >= 0 && iy < b.h && ix >= 0 && ix < b.w;
                                const std::int64_t v =
                                    inside ? x.getInt(((n * b.c + ic) * b.h + iy) * b.w + ix) : zx;
                                const std::int64_t w = wt.getInt(
                                    ((((f / b.lanes) * ((b.c + 3) / 4) + ic / 4) * b.kh + ky) *
                                         b.kw +
                                     kx) *
                                        b.lanes * 4 +
                                    (f % b.lanes) * 4 + ic % 4);
                                sum += v * w;
                            }
                    out.setInt(o++, sum);
                }
    return out;
}

// The int32 sums of a packed QGemm: A as it is, the bias holding -za * sum(w).
HostBuffer denseBlockedSums(const OpContext& c, const HostBuffer& a, const HostBuffer& wt,
                            const HostBuffer& bias)
{
    const DenseBlocked d = denseBlockedOf(c);
    HostBuffer out(kI32, {d.m, d.n});
    for (std::int64_t i = 0; i < d.m; ++i)
        for (std::int64_t j = 0; j < d.n; ++j) {
            std::int64_t sum = bias.getInt(j);
            for (std::int64_t k = 0; k < d.k; ++k)
                sum += a.getInt(i * d.k + k) *
                       wt.getInt((((j / d.lanes) * (d.k / 4) + k / 4) * d.lanes + j % d.lanes) * 4 +
                                 k % 4);
            out.setInt(i * d.n + j, sum);
        }
    return out;
}

std::vector<HostBuffer> integerEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const Checked k = checkedOf(c);
    const Layout& l = k.layout;
    auto at = [&](int i) -> const HostBuffer* {
        return i >= 0 && static_cast<std::size_t>(i) < in.size() ? in[static_cast<std::size_t>(i)]
                                                                 : nullptr;
    };
    const HostBuffer a = shifted(*at(l.in[0].values), k.zero[0], at(l.in[0].zero));
    const HostBuffer b = shifted(*at(l.in[1].values), k.zero[1], at(l.in[1].zero));
    HostBuffer out(k.out, k.shape);
    if (std::string(l.core) == "Add") {
        const auto &sa = c.shape(0), &sb = c.shape(3);
        std::vector<std::int64_t> idx;
        for (std::int64_t i = 0; i < out.elementCount(); ++i) {
            unflatten(i, k.shape, idx);
            // Each side requantized into the output's scale, then added (Relay's qnn.add):
            // one float32 multiply before each rounding, so no fused multiply-add can make
            // the task round otherwise than this.
            const float ra = static_cast<float>(at(1)->get(0)) / static_cast<float>(at(6)->get(0));
            const float rb = static_cast<float>(at(4)->get(0)) / static_cast<float>(at(6)->get(0));
            const double x = std::nearbyint(
                static_cast<double>(static_cast<float>(a.get(broadcastFlat(idx, sa))) * ra));
            const double y = std::nearbyint(
                static_cast<double>(static_cast<float>(b.get(broadcastFlat(idx, sb))) * rb));
            const double zy = paramValue(k.yZero, at(l.yZero), 0, 0.0);
            out.setInt(i, saturate(x + y + zy, k.out));
        }
        return {std::move(out)};
    }
    HostBuffer sums;
    if (isBlocked(c)) {
        sums = blockedSums(c, *at(0), *at(3), at(8));
    } else if (isDenseBlocked(c)) {
        sums = denseBlockedSums(c, *at(0), *at(3), *at(6));
    } else {
        Core core = coreOf(c, l);
        const OpContext cc = core.context();
        std::vector<const HostBuffer*> coreIn{&a, &b};
        if (l.bias >= 0 && c.hasInput(l.bias)) coreIn.push_back(at(l.bias));
        sums = findOperator(l.core)->evaluate(cc, coreIn).at(0);
    }
    if (l.yScale < 0) return {std::move(sums)};
    for (std::int64_t i = 0; i < out.elementCount(); ++i) {
        const float sa =
            static_cast<float>(paramValue(k.scale[0], at(l.in[0].scale), outputSlice(k, 0, i), 1));
        const float sb =
            static_cast<float>(paramValue(k.scale[1], at(l.in[1].scale), outputSlice(k, 1, i), 1));
        const std::int64_t ys = sliceAt(k.yScale, i, k.shape);
        const float sy = static_cast<float>(paramValue(k.yScale, at(l.yScale), ys, 1));
        const float q = static_cast<float>(sums.getInt(i)) * requantScale(sa, sb, sy);
        const double zy = paramValue(k.yZero, at(l.yZero), sliceAt(k.yZero, i, k.shape), 0.0);
        out.setInt(i, saturate(std::nearbyint(static_cast<double>(q)) + zy, k.out));
    }
    return {std::move(out)};
}

// ---- the task's computation ----

// A scale or zero point at an element, as script text: a literal where it is a known single
// value, else a read at the element's slice; `index` is the slice's index expression.
std::string paramText(const OpContext& c, const Param& p, int input, const std::string& var,
                      const std::string& index, DataType as)
{
    if (!p.present) return ScriptWriter::constant(0.0, as);
    const HostBuffer* k = c.constant(input);
    if (k && k->elementCount() == 1) return ScriptWriter::constant(k->get(0), as);
    const std::string load = var + "[" + (p.perAxis ? index : std::string("0")) + "]";
    return c.input(input).dtype == as ? load : load + ".astype(\"" + as.str() + "\")";
}

bool knownZero(const OpContext& c, const Param& p, int input)
{
    if (!p.present) return true;
    const HostBuffer* k = c.constant(input);
    if (!k) return false;
    for (std::int64_t i = 0; i < k->elementCount(); ++i)
        if (k->getInt(i) != 0) return false;
    return true;
}

// The values of input `w` of the core as int32 less their zero point: a stage (inlined by the
// default schedule into the sums, which then read uint8 or int8 and widen).
std::string shiftStage(const OpContext& c, ScriptWriter& w, const Checked& k, int which,
                       const std::vector<std::string>& in, const std::string& base)
{
    const Layout::In& li = k.layout.in[static_cast<std::size_t>(which)];
    const Param& zero = k.zero[static_cast<std::size_t>(which)];
    const std::string var = w.fresh(base);
    const bool zeroFree = knownZero(c, zero, li.zero);
    w.compute(
        var, ScriptWriter::scriptShape(c.shape(li.values)),
        [&](const std::vector<std::string>& i) {
            const std::string x = ScriptWriter::load(in[static_cast<std::size_t>(li.values)], i) +
                                  ".astype(\"int32\")";
            if (zeroFree) return x;
            const std::string slice = zero.perAxis ? i[static_cast<std::size_t>(zero.axis)] : "0";
            return x + " - " +
                   paramText(c, zero, li.zero, in[static_cast<std::size_t>(li.zero)], slice, kI32);
        },
        var);
    return var;
}

// The index of the output element's slice for input `which`'s scale: a convolution's filter
// (axis 1), a matmul's row or column (its last two axes).
std::string outputIndex(const Checked& k, int which, const std::vector<std::string>& i)
{
    if (std::string(k.layout.core) == "Conv") return i[1];
    return which == 0 ? i[i.size() - 2] : i.back();
}

std::string saturateText(const std::string& q, DataType t)
{
    const std::string lo = ScriptWriter::constant(t == kUInt8 ? 0 : -128, kF32);
    const std::string hi = ScriptWriter::constant(t == kUInt8 ? 255 : 127, kF32);
    return "te.min(te.max(" + q + ", " + lo + "), " + hi + ").astype(\"" + t.str() + "\")";
}

// A packed QLinearConv as TOPI's conv2d_NCHWc_int8: the data in blocks of 4 channels (padded
// with its zero point), the sums in blocks of L output channels, each L x 4 block one dot product
// (StageFacts::int8DotLanes), then the bias and the requantization back into N x F x H x W.
template <class Requant>
void blockedEmit(const OpContext& c, ScriptWriter& w, const Checked& k,
                 const std::vector<std::string>& in, const std::vector<std::string>& out,
                 const Requant& requant)
{
    const Blocked b = blockedOf(c);
    const Layout& l = k.layout;
    const std::int64_t zx = c.constant(2) ? c.constant(2)->getInt(0) : 0;
    const std::string data = w.fresh(out[0] + "_data");
    const bool padded = b.py || b.px || b.py1 || b.px1;
    const std::int64_t c4 = (b.c + 3) / 4; // the last block's missing channels read as zx
    w.compute(
        data, {b.n, c4, b.h + b.py + b.py1, b.w + b.px + b.px1, 4},
        [&](const std::vector<std::string>& i) {
            const std::string y = b.py ? i[2] + " - " + num(b.py) : i[2];
            const std::string x = b.px ? i[3] + " - " + num(b.px) : i[3];
            const std::string load =
                in[0] + "[" + i[0] + ", " + i[1] + " * 4 + " + i[4] + ", " + y + ", " + x + "]";
            std::vector<std::string> inside;
            if (b.c % 4) inside.push_back(i[1] + " * 4 + " + i[4] + " < " + num(b.c));
            if (padded)
                for (const std::string& cond :
                     {i[2] + " >= " + num(b.py), i[2] + " < " + num(b.h + b.py),
                      i[3] + " >= " + num(b.px), i[3] + " < " + num(b.w + b.px)})
                    inside.push_back(cond);
            if (inside.empty()) return load;
            std::string all;
            for (auto& cond : inside)
                all += (all.empty() ? "" : ", ") + cond;
            return "tvm.tir.if_then_else(tvm.tir.all(" + all + "), " + load + ", " +
                   ScriptWriter::constant(static_cast<double>(zx), kUInt8) + ")";
        },
        data);
    const std::int64_t extents[] = {c4, b.kh, b.kw, 4};
    std::vector<std::string> r;
    for (const char* base : {"ico", "ry", "rx", "ici"}) {
        r.push_back(w.fresh(base));
        w.line(r.back() + " = te.reduce_axis((0, " + num(extents[r.size() - 1]) + "), name=\"" +
               r.back() + "\")");
    }
    auto tap = [](const std::string& v, std::int64_t s, const std::string& rr, std::int64_t d) {
        return (s == 1 ? v : v + " * " + num(s)) + " + " + (d == 1 ? rr : rr + " * " + num(d));
    };
    const std::string sums = w.fresh(out[0] + "_acc");
    w.compute(
        sums, {b.n, c.shape(3)[0], b.oh, b.ow, b.lanes},
        [&](const std::vector<std::string>& i) {
            return "te.sum(" + data + "[" + i[0] + ", " + r[0] + ", " +
                   tap(i[2], b.sy, r[1], b.dy) + ", " + tap(i[3], b.sx, r[2], b.dx) + ", " + r[3] +
                   "].astype(\"int32\") * " + in[3] + "[" + i[1] + ", " + r[0] + ", " + r[1] +
                   ", " + r[2] + ", " + i[4] + ", " + r[3] + "].astype(\"int32\"), axis=[" + r[0] +
                   ", " + r[1] + ", " + r[2] + ", " + r[3] + "])";
        },
        sums);
    w.compute(
        out[0], k.shape,
        [&](const std::vector<std::string>& i) {
            const std::string acc = sums + "[" + i[0] + ", " + i[1] + " // " + num(b.lanes) + ", " +
                                    i[2] + ", " + i[3] + ", " + i[1] + " % " + num(b.lanes) + "]";
            return requant(c.hasInput(l.bias) ? "(" + acc + " + " + in[8] + "[" + i[1] + "])" : acc,
                           i);
        },
        out[0]);
}

void integerEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                 const std::vector<std::string>& out)
{
    const Checked k = checkedOf(c);
    const Layout& l = k.layout;
    auto var = [&](int i) {
        return i >= 0 && static_cast<std::size_t>(i) < in.size() ? in[static_cast<std::size_t>(i)]
                                                                 : std::string();
    };
    auto scaleAt = [&](int which, const std::vector<std::string>& i) {
        const int input = l.in[static_cast<std::size_t>(which)].scale;
        return paramText(c, k.scale[static_cast<std::size_t>(which)], input, var(input),
                         outputIndex(k, which, i), kF32);
    };
    auto yParam = [&](const Param& p, int input, const std::vector<std::string>& i, DataType as) {
        return paramText(c, p, input, var(input), i.back(), as);
    };
    // The output element from its int32 sum: saturate(round(acc * sx * sw / sy) + zy).
    auto requant = [&](const std::string& acc, const std::vector<std::string>& i) {
        const std::string scale = "(" + scaleAt(0, i) + " * " + scaleAt(1, i) + " / " +
                                  yParam(k.yScale, l.yScale, i, kF32) + ")";
        return saturateText("tvm.tir.nearbyint(" + acc + ".astype(\"float32\") * " + scale +
                                ") + " + yParam(k.yZero, l.yZero, i, kF32),
                            k.out);
    };
    // An input's scale over the output's: a literal where both are known (divided in float32
    // as the reference divides), else the division.
    auto ratio = [&](int which, const std::string& sc, const std::vector<std::string>& i) {
        const HostBuffer* s = c.constant(l.in[static_cast<std::size_t>(which)].scale);
        const HostBuffer* y = c.constant(l.yScale);
        if (s && y && s->elementCount() == 1 && y->elementCount() == 1)
            return ScriptWriter::constant(
                static_cast<double>(static_cast<float>(s->get(0)) / static_cast<float>(y->get(0))),
                kF32);
        return "(" + scaleAt(which, i) + " / " + sc + ")";
    };
    if (isBlocked(c)) {
        blockedEmit(c, w, k, in, out, requant);
        return;
    }
    if (isDenseBlocked(c)) {
        // As TOPI's dense_int8: each block of L columns by 4 of k one dot product
        // (StageFacts::int8DotLanes), then the bias and the requantization.
        const DenseBlocked d = denseBlockedOf(c);
        const std::string kk = w.fresh("k"), L = num(d.lanes);
        w.line(kk + " = te.reduce_axis((0, " + num(d.k) + "), name=\"" + kk + "\")");
        const std::string sums = w.fresh(out[0] + "_acc");
        w.compute(
            sums, {d.m, c.shape(3)[0], d.lanes},
            [&](const std::vector<std::string>& i) {
                return "te.sum(" + in[0] + "[" + i[0] + ", " + kk + "].astype(\"int32\") * " +
                       in[3] + "[" + i[1] + ", " + kk + " // 4, " + i[2] + ", " + kk +
                       " % 4].astype(\"int32\"), axis=" + kk + ")";
            },
            sums);
        w.compute(
            out[0], k.shape,
            [&](const std::vector<std::string>& i) {
                return requant("(" + sums + "[" + i[0] + ", " + i[1] + " // " + L + ", " + i[1] +
                                   " % " + L + "] + " + in[6] + "[" + i[1] + "])",
                               i);
            },
            out[0]);
        return;
    }
    const std::string a = shiftStage(c, w, k, 0, in, out[0] + "_a");
    const std::string b = shiftStage(c, w, k, 1, in, out[0] + "_b");
    if (std::string(l.core) == "Add") {
        w.compute(
            out[0], ScriptWriter::scriptShape(k.shape),
            [&](const std::vector<std::string>& i) {
                const std::string sc = yParam(k.yScale, l.yScale, i, kF32);
                auto side = [&](const std::string& v, int which, int shape) {
                    return "tvm.tir.nearbyint(" +
                           ScriptWriter::load(v, broadcastIndices(i, k.shape, c.shape(shape))) +
                           ".astype(\"float32\") * " + ratio(which, sc, i) + ")";
                };
                return saturateText(side(a, 0, 0) + " + " + side(b, 1, 3) + " + " +
                                        yParam(k.yZero, l.yZero, i, kF32),
                                    k.out);
            },
            out[0]);
        return;
    }
    Core core = coreOf(c, l);
    const OpContext cc = core.context();
    std::vector<std::string> coreIn{a, b};
    if (l.bias >= 0 && c.hasInput(l.bias)) coreIn.push_back(var(l.bias));
    if (l.yScale < 0) {
        findOperator(l.core)->emit(cc, w, coreIn, out);
        return;
    }
    const std::string sums = w.fresh(out[0] + "_acc");
    findOperator(l.core)->emit(cc, w, coreIn, {sums});
    w.compute(
        out[0], ScriptWriter::scriptShape(k.shape),
        [&](const std::vector<std::string>& i) { return requant(ScriptWriter::load(sums, i), i); },
        out[0]);
}

} // namespace

void registerIntegerOps(std::vector<OpSpec>& out)
{
    for (const char* op : {"MatMulInteger", "ConvInteger", "QLinearMatMul", "QLinearConv"})
        out.push_back({op, OpPattern::OutEWiseFusable, integerInfer, integerEval, integerEmit});
    OpSpec add{"QLinearAdd", OpPattern::Broadcast, integerInfer, integerEval, integerEmit};
    add.domain = "com.microsoft";
    out.push_back(add);
    OpSpec gemm{"QGemm", OpPattern::OutEWiseFusable, integerInfer, integerEval, integerEmit};
    gemm.domain = "com.microsoft";
    out.push_back(gemm);
}

} // namespace loopscope
