// The operators with reductions: 2-D convolution (groups, depthwise, pads, strides, dilations,
// auto_pad), Gemm (alpha, beta, transposes), MatMul (batched, broadcasting), max and average
// pooling (pads, ceil_mode, count_include_pad, dilations), global average pooling, ReduceMean and
// ReduceSum, and Softmax (over the flattened trailing axes before opset 13, over one axis from it).
#include "graph/Operators.h"

#include <algorithm>
#include <cmath>

namespace loopscope {

namespace {

std::string num(std::int64_t v)
{
    return std::to_string(v);
}

// ---- windows: the geometry shared by Conv and the pools ----

struct Window {
    std::int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
    std::int64_t pt = 0, pl = 0, pb = 0, pr = 0; // pads: top, left, bottom, right
    std::int64_t oh = 0, ow = 0;
};

// `kernel`: the window's size; for a pool, `ceil` rounds the output size up.
Window windowOf(const OpContext& c, std::int64_t h, std::int64_t w, std::int64_t kh,
                std::int64_t kw, bool ceil)
{
    const GraphNode& n = c.node();
    Window g;
    g.kh = kh;
    g.kw = kw;
    auto strides = n.intsAttr("strides", {1, 1});
    auto dilations = n.intsAttr("dilations", {1, 1});
    if (strides.size() != 2 || dilations.size() != 2)
        c.fail("strides and dilations need two values for a 2-D window");
    g.sh = strides[0];
    g.sw = strides[1];
    g.dh = dilations[0];
    g.dw = dilations[1];
    if (g.sh < 1 || g.sw < 1 || g.dh < 1 || g.dw < 1)
        c.fail("strides and dilations must be positive");
    const std::int64_t ekh = (kh - 1) * g.dh + 1, ekw = (kw - 1) * g.dw + 1;
    const std::string autoPad = n.stringAttr("auto_pad", "NOTSET");
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        g.oh = (h + g.sh - 1) / g.sh;
        g.ow = (w + g.sw - 1) / g.sw;
        const std::int64_t ph = std::max<std::int64_t>(0, (g.oh - 1) * g.sh + ekh - h);
        const std::int64_t pw = std::max<std::int64_t>(0, (g.ow - 1) * g.sw + ekw - w);
        const bool upper = autoPad == "SAME_UPPER";
        g.pt = upper ? ph / 2 : ph - ph / 2;
        g.pb = ph - g.pt;
        g.pl = upper ? pw / 2 : pw - pw / 2;
        g.pr = pw - g.pl;
        return g;
    }
    if (autoPad != "NOTSET" && autoPad != "VALID")
        c.fail("auto_pad '" + autoPad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
    if (autoPad == "NOTSET") {
        auto pads = n.intsAttr("pads", {0, 0, 0, 0});
        if (pads.size() != 4) c.fail("pads needs four values for a 2-D window");
        g.pt = pads[0];
        g.pl = pads[1];
        g.pb = pads[2];
        g.pr = pads[3];
        if (g.pt < 0 || g.pl < 0 || g.pb < 0 || g.pr < 0) c.fail("negative pads");
    }
    auto out = [&](std::int64_t in, std::int64_t pad, std::int64_t ek, std::int64_t s) {
        const std::int64_t span = in + pad - ek;
        if (span < 0) c.fail("the window is larger than the padded input");
        return (ceil ? (span + s - 1) / s : span / s) + 1;
    };
    g.oh = out(h, g.pt + g.pb, ekh, g.sh);
    g.ow = out(w, g.pl + g.pr, ekw, g.sw);
    // ceil_mode: a last window that would start inside the right padding is dropped.
    if (ceil) {
        if ((g.oh - 1) * g.sh >= h + g.pt) --g.oh;
        if ((g.ow - 1) * g.sw >= w + g.pl) --g.ow;
    }
    return g;
}

// A padded copy of a 4-D input as a TE stage ("pad"), or the input itself when no padding.
std::string padStage(ScriptWriter& w, const std::string& input, const std::vector<std::int64_t>& s,
                     const Window& g, double fill, DataType t, const std::string& base)
{
    if (g.pt == 0 && g.pl == 0 && g.pb == 0 && g.pr == 0) return input;
    const std::string var = w.fresh(base + "_pad");
    const std::vector<std::int64_t> padded{s[0], s[1], s[2] + g.pt + g.pb, s[3] + g.pl + g.pr};
    w.compute(
        var, padded,
        [&](const std::vector<std::string>& i) {
            const std::string& y = i[2];
            const std::string& x = i[3];
            return "tvm.tir.if_then_else(tvm.tir.all(" + y + " >= " + num(g.pt) + ", " + y + " < " +
                   num(s[2] + g.pt) + ", " + x + " >= " + num(g.pl) + ", " + x + " < " +
                   num(s[3] + g.pl) + "), " + input + "[" + i[0] + ", " + i[1] + ", " + y + " - " +
                   num(g.pt) + ", " + x + " - " + num(g.pl) + "], " +
                   ScriptWriter::constant(fill, t) + ")";
        },
        var);
    return var;
}

// ---- Conv ----

struct ConvGeometry {
    std::int64_t n, c, h, w, f, group, cpg; // cpg: input channels per group
    // Weights in blocks of output channels (F/B x C x KH x KW x B, kConvWeightBlock), made by
    // AlterConvLayout; 0: as ONNX has them (F x C x KH x KW).
    std::int64_t block = 0;
    Window g;
};

ConvGeometry convOf(const OpContext& c)
{
    const auto& x = c.shape(0);
    const auto& wt = c.shape(1);
    const std::int64_t block = c.node().intAttr(kConvWeightBlock, 0);
    if (block > 0 && (wt.size() != 5 || wt[4] != block || c.node().intAttr("group", 1) != 1))
        c.fail("weights in blocks of " + num(block) + " output channels must be F/" + num(block) +
               " x C x KH x KW x " + num(block) + " with one group, not " + dimsText(wt));
    if (x.size() != 4 || wt.size() != (block > 0 ? 5U : 4U))
        c.fail("Loopscope runs 2-D convolutions (input N x C x H x W), not rank " +
               std::to_string(x.size()));
    if (!c.input(0).dtype.isFloat()) c.fail("needs a floating-point input");
    ConvGeometry g;
    g.n = x[0];
    g.c = x[1];
    g.h = x[2];
    g.w = x[3];
    g.block = block;
    g.f = block > 0 ? wt[0] * block : wt[0];
    g.group = c.node().intAttr("group", 1);
    if (g.group < 1 || g.c % g.group || g.f % g.group)
        c.fail("group " + num(g.group) + " does not divide " + num(g.c) + " input and " + num(g.f) +
               " output channels");
    g.cpg = g.c / g.group;
    if (wt[1] != g.cpg)
        c.fail("weights of shape " + dimsText(wt) + " do not fit " + num(g.c) +
               " input channels in " + num(g.group) + " group(s)");
    auto ks = c.node().intsAttr("kernel_shape", {wt[2], wt[3]});
    if (ks.size() != 2 || ks[0] != wt[2] || ks[1] != wt[3])
        c.fail("kernel_shape does not match the weights " + dimsText(wt));
    if (c.hasInput(2) && c.input(2).elementCount() != g.f)
        c.fail("the bias has " + num(c.input(2).elementCount()) + " values for " + num(g.f) +
               " filters");
    g.g = windowOf(c, g.h, g.w, wt[2], wt[3], false);
    return g;
}

std::vector<TensorType> convInfer(const OpContext& c)
{
    ConvGeometry g = convOf(c);
    return {{c.input(0).dtype, {g.n, g.f, g.g.oh, g.g.ow}}};
}

std::vector<HostBuffer> convEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const ConvGeometry g = convOf(c);
    const Window& wd = g.g;
    HostBuffer out = referenceBuffer(c.input(0).dtype, {g.n, g.f, wd.oh, wd.ow});
    const std::int64_t fpg = g.f / g.group;
    const std::int64_t per = g.cpg * wd.kh * wd.kw; // weights of one filter
    const HostBuffer &x = *in[0], &wt = *in[1];
    for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t f = 0; f < g.f; ++f) {
            const std::int64_t c0 = (f / fpg) * g.cpg;
            for (std::int64_t oy = 0; oy < wd.oh; ++oy)
                for (std::int64_t ox = 0; ox < wd.ow; ++ox) {
                    double sum = in.size() > 2 && in[2] ? in[2]->get(f) : 0.0;
                    for (std::int64_t rc = 0; rc < g.cpg; ++rc)
                        for (std::int64_t ky = 0; ky < wd.kh; ++ky) {
                            const std::int64_t iy = oy * wd.sh + ky * wd.dh - wd.pt;
                            if (iy < 0 || iy >= g.h) continue;
                            for (std::int64_t kx = 0; kx < wd.kw; ++kx) {
                                const std::int64_t ix = ox * wd.sw + kx * wd.dw - wd.pl;
                                if (ix < 0 || ix >= g.w) continue;
                                const std::int64_t k = (rc * wd.kh + ky) * wd.kw + kx;
                                sum += x.get(((n * g.c + c0 + rc) * g.h + iy) * g.w + ix) *
                                       wt.get(g.block > 0 ? blockedWeightOffset(f, k, per, g.block)
                                                          : f * per + k);
                            }
                        }
                    out.set(((n * g.f + f) * wd.oh + oy) * wd.ow + ox, sum);
                }
        }
    return {std::move(out)};
}

void convEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
              const std::vector<std::string>& out)
{
    const ConvGeometry g = convOf(c);
    const Window& wd = g.g;
    const DataType t = c.input(0).dtype;
    const std::string data = padStage(w, in[0], c.shape(0), wd, 0.0, t, out[0]);
    const std::string rc = w.fresh("rc"), ry = w.fresh("ry"), rx = w.fresh("rx");
    w.line(rc + " = te.reduce_axis((0, " + num(g.cpg) + "), name=\"" + rc + "\")");
    w.line(ry + " = te.reduce_axis((0, " + num(wd.kh) + "), name=\"" + ry + "\")");
    w.line(rx + " = te.reduce_axis((0, " + num(wd.kw) + "), name=\"" + rx + "\")");
    const bool bias = in.size() > 2 && !in[2].empty();
    auto at = [](const std::string& v, std::int64_t s, const std::string& k, std::int64_t d) {
        return (s == 1 ? v : v + " * " + num(s)) + " + " + (d == 1 ? k : k + " * " + num(d));
    };
    auto biasOf = [&](const std::string& channel) {
        return bias ? " + " + in[2] + "[" + channel + "]" : std::string();
    };
    if (g.block > 0) {
        // In blocks of output channels, as TOPI's conv2d_NCHWc: the block's channels are the
        // innermost axis of the weights and of the sums, which the output then reads back
        // into N x F x H x W.
        const std::string conv = w.fresh(out[0] + "_conv");
        const std::string b = num(g.block);
        w.compute(
            conv, {g.n, g.f / g.block, wd.oh, wd.ow, g.block},
            [&](const std::vector<std::string>& i) {
                return "te.sum(" + data + "[" + i[0] + ", " + rc + ", " +
                       at(i[2], wd.sh, ry, wd.dh) + ", " + at(i[3], wd.sw, rx, wd.dw) + "] * " +
                       in[1] + "[" + i[1] + ", " + rc + ", " + ry + ", " + rx + ", " + i[4] +
                       "], axis=[" + rc + ", " + ry + ", " + rx + "])";
            },
            conv);
        w.compute(
            out[0], {g.n, g.f, wd.oh, wd.ow},
            [&](const std::vector<std::string>& i) {
                return conv + "[" + i[0] + ", " + i[1] + " // " + b + ", " + i[2] + ", " + i[3] +
                       ", " + i[1] + " % " + b + "]" + biasOf(i[1]);
            },
            out[0]);
        return;
    }
    const std::string conv = bias ? w.fresh(out[0] + "_conv") : out[0];
    const std::int64_t fpg = g.f / g.group;
    w.compute(
        conv, {g.n, g.f, wd.oh, wd.ow},
        [&](const std::vector<std::string>& i) {
            const std::string channel =
                g.group == 1 ? rc
                             : "(" + i[1] + " // " + num(fpg) + ") * " + num(g.cpg) + " + " + rc;
            return "te.sum(" + data + "[" + i[0] + ", " + channel + ", " +
                   at(i[2], wd.sh, ry, wd.dh) + ", " + at(i[3], wd.sw, rx, wd.dw) + "] * " + in[1] +
                   "[" + i[1] + ", " + rc + ", " + ry + ", " + rx + "], axis=[" + rc + ", " + ry +
                   ", " + rx + "])";
        },
        conv);
    if (bias)
        w.compute(
            out[0], {g.n, g.f, wd.oh, wd.ow},
            [&](const std::vector<std::string>& i) {
                return ScriptWriter::load(conv, i) + biasOf(i[1]);
            },
            out[0]);
}

// ---- Gemm: alpha * A' B' + beta * C ----

struct GemmShape {
    std::int64_t m, k, n;
    bool ta, tb;
};

GemmShape gemmOf(const OpContext& c)
{
    const auto& a = c.shape(0);
    const auto& b = c.shape(1);
    if (a.size() != 2 || b.size() != 2)
        c.fail("Gemm needs 2-D inputs, got " + dimsText(a) + " and " + dimsText(b));
    GemmShape g;
    g.ta = c.node().intAttr("transA", 0) != 0;
    g.tb = c.node().intAttr("transB", 0) != 0;
    g.m = g.ta ? a[1] : a[0];
    g.k = g.ta ? a[0] : a[1];
    const std::int64_t kb = g.tb ? b[1] : b[0];
    g.n = g.tb ? b[0] : b[1];
    if (kb != g.k) c.fail("inner dimensions " + num(g.k) + " and " + num(kb) + " differ");
    if (c.hasInput(2)) broadcastShapes(c.shape(2), {g.m, g.n}, c);
    return g;
}

std::vector<TensorType> gemmInfer(const OpContext& c)
{
    if (!c.input(0).dtype.isFloat()) c.fail("needs floating-point inputs");
    GemmShape g = gemmOf(c);
    return {{c.input(0).dtype, {g.m, g.n}}};
}

std::vector<HostBuffer> gemmEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const GemmShape g = gemmOf(c);
    const double alpha = c.node().floatAttr("alpha", 1.0), beta = c.node().floatAttr("beta", 1.0);
    HostBuffer out = referenceBuffer(c.input(0).dtype, {g.m, g.n});
    for (std::int64_t i = 0; i < g.m; ++i)
        for (std::int64_t j = 0; j < g.n; ++j) {
            double sum = 0;
            for (std::int64_t k = 0; k < g.k; ++k)
                sum += in[0]->get(g.ta ? k * g.m + i : i * g.k + k) *
                       in[1]->get(g.tb ? j * g.k + k : k * g.n + j);
            double v = alpha * sum;
            if (in.size() > 2 && in[2]) v += beta * in[2]->get(broadcastFlat({i, j}, c.shape(2)));
            out.set(i * g.n + j, v);
        }
    return {std::move(out)};
}

void gemmEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
              const std::vector<std::string>& out)
{
    const GemmShape g = gemmOf(c);
    const DataType t = c.input(0).dtype;
    const double alpha = c.node().floatAttr("alpha", 1.0), beta = c.node().floatAttr("beta", 1.0);
    const bool bias = in.size() > 2 && !in[2].empty() && beta != 0;
    const std::string k = w.fresh("k");
    w.line(k + " = te.reduce_axis((0, " + num(g.k) + "), name=\"" + k + "\")");
    const std::string dense = bias || alpha != 1 ? w.fresh(out[0] + "_dense") : out[0];
    w.compute(
        dense, {g.m, g.n},
        [&](const std::vector<std::string>& i) {
            const std::string a =
                g.ta ? in[0] + "[" + k + ", " + i[0] + "]" : in[0] + "[" + i[0] + ", " + k + "]";
            const std::string b =
                g.tb ? in[1] + "[" + i[1] + ", " + k + "]" : in[1] + "[" + k + ", " + i[1] + "]";
            return "te.sum(" + a + " * " + b + ", axis=" + k + ")";
        },
        dense);
    if (dense != out[0])
        w.compute(
            out[0], {g.m, g.n},
            [&](const std::vector<std::string>& i) {
                std::string v = ScriptWriter::load(dense, i);
                if (alpha != 1) v = ScriptWriter::constant(alpha, t) + " * " + v;
                if (bias) {
                    std::string cv =
                        ScriptWriter::load(in[2], broadcastIndices(i, {g.m, g.n}, c.shape(2)));
                    if (beta != 1) cv = ScriptWriter::constant(beta, t) + " * " + cv;
                    v += " + " + cv;
                }
                return v;
            },
            out[0]);
}

// ---- MatMul: numpy's matmul, batch dimensions broadcast ----

struct MatMulShape {
    std::vector<std::int64_t> a, b;  // as 2-D or more (a 1-D operand gets a unit axis)
    std::vector<std::int64_t> batch; // broadcast batch dimensions
    std::int64_t m, k, n;
    bool aVector = false, bVector = false;
    std::vector<std::int64_t> out; // the output's shape as ONNX gives it
};

MatMulShape matmulOf(const OpContext& c)
{
    MatMulShape s;
    s.a = c.shape(0);
    s.b = c.shape(1);
    if (s.a.empty() || s.b.empty()) c.fail("MatMul needs inputs of rank 1 or more");
    if (s.a.size() == 1) {
        s.aVector = true;
        s.a.insert(s.a.begin(), 1);
    }
    if (s.b.size() == 1) {
        s.bVector = true;
        s.b.push_back(1);
    }
    s.m = s.a[s.a.size() - 2];
    s.k = s.a.back();
    s.n = s.b.back();
    if (s.b[s.b.size() - 2] != s.k)
        c.fail("inner dimensions " + num(s.k) + " and " + num(s.b[s.b.size() - 2]) + " differ");
    std::vector<std::int64_t> ab(s.a.begin(), s.a.end() - 2), bb(s.b.begin(), s.b.end() - 2);
    s.batch = broadcastShapes(ab, bb, c);
    s.out = s.batch;
    if (!s.aVector) s.out.push_back(s.m);
    if (!s.bVector) s.out.push_back(s.n);
    return s;
}

std::vector<TensorType> matmulInfer(const OpContext& c)
{
    if (!c.input(0).dtype.isFloat()) c.fail("needs floating-point inputs");
    return {{c.input(0).dtype, matmulOf(c).out}};
}

std::vector<HostBuffer> matmulEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const MatMulShape s = matmulOf(c);
    HostBuffer out = referenceBuffer(c.input(0).dtype, s.out);
    std::int64_t batches = 1;
    for (auto d : s.batch)
        batches *= d;
    const std::vector<std::int64_t> ab(s.a.begin(), s.a.end() - 2), bb(s.b.begin(), s.b.end() - 2);
    std::vector<std::int64_t> idx;
    for (std::int64_t bi = 0; bi < batches; ++bi) {
        unflatten(bi, s.batch, idx);
        const std::int64_t ao = broadcastFlat(idx, ab) * s.m * s.k;
        const std::int64_t bo = broadcastFlat(idx, bb) * s.k * s.n;
        for (std::int64_t i = 0; i < s.m; ++i)
            for (std::int64_t j = 0; j < s.n; ++j) {
                double sum = 0;
                for (std::int64_t k = 0; k < s.k; ++k)
                    sum += in[0]->get(ao + i * s.k + k) * in[1]->get(bo + k * s.n + j);
                out.set((bi * s.m + i) * s.n + j, sum);
            }
    }
    return {std::move(out)};
}

void matmulEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                const std::vector<std::string>& out)
{
    const MatMulShape s = matmulOf(c);
    const std::string k = w.fresh("k");
    w.line(k + " = te.reduce_axis((0, " + num(s.k) + "), name=\"" + k + "\")");
    const std::size_t nb = s.batch.size();
    w.compute(
        out[0], s.out,
        [&](const std::vector<std::string>& idx) {
            std::vector<std::string> batch(idx.begin(), idx.begin() + static_cast<long>(nb));
            std::string i = s.aVector ? "0" : idx[nb];
            std::string j = s.bVector ? "0" : idx[nb + (s.aVector ? 0 : 1)];
            const std::vector<std::int64_t> ab(s.a.begin(), s.a.end() - 2),
                bb(s.b.begin(), s.b.end() - 2);
            std::vector<std::string> ai = broadcastIndices(batch, s.batch, ab);
            std::vector<std::string> bi = broadcastIndices(batch, s.batch, bb);
            if (!s.aVector) ai.push_back(i);
            ai.push_back(k);
            bi.push_back(k);
            if (!s.bVector) bi.push_back(j);
            return "te.sum(" + ScriptWriter::load(in[0], ai) + " * " +
                   ScriptWriter::load(in[1], bi) + ", axis=" + k + ")";
        },
        out[0]);
}

// ---- MaxPool, AveragePool ----

Window poolOf(const OpContext& c)
{
    const auto& x = c.shape(0);
    if (x.size() != 4)
        c.fail("Loopscope runs 2-D pooling (input N x C x H x W), not rank " +
               std::to_string(x.size()));
    auto ks = c.node().intsAttr("kernel_shape");
    if (ks.size() != 2) c.fail("kernel_shape needs two values");
    if (c.node().intAttr("storage_order", 0) != 0) c.fail("storage_order 1 is not supported");
    if (c.node().outputs.size() > 1 && !c.node().outputs[1].empty())
        c.fail("the indices output is not supported");
    return windowOf(c, x[2], x[3], ks[0], ks[1], c.node().intAttr("ceil_mode", 0) != 0);
}

std::vector<TensorType> poolInfer(const OpContext& c)
{
    if (!c.input(0).dtype.isFloat()) c.fail("needs a floating-point input");
    Window g = poolOf(c);
    const auto& x = c.shape(0);
    return {{c.input(0).dtype, {x[0], x[1], g.oh, g.ow}}};
}

std::vector<HostBuffer> poolEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const Window g = poolOf(c);
    const auto& x = c.shape(0);
    const bool max = c.node().op == "MaxPool";
    const bool includePad = c.node().intAttr("count_include_pad", 0) != 0;
    HostBuffer out = referenceBuffer(c.input(0).dtype, {x[0], x[1], g.oh, g.ow});
    for (std::int64_t nc = 0; nc < x[0] * x[1]; ++nc)
        for (std::int64_t oy = 0; oy < g.oh; ++oy)
            for (std::int64_t ox = 0; ox < g.ow; ++ox) {
                double acc = max ? -INFINITY : 0.0;
                std::int64_t count = 0, padded = 0;
                for (std::int64_t ky = 0; ky < g.kh; ++ky)
                    for (std::int64_t kx = 0; kx < g.kw; ++kx) {
                        const std::int64_t iy = oy * g.sh + ky * g.dh - g.pt;
                        const std::int64_t ix = ox * g.sw + kx * g.dw - g.pl;
                        // Positions in the explicit padding count for count_include_pad; those past
                        // it (ceil_mode's overhang) never do.
                        if (iy >= -g.pt && iy < x[2] + g.pb && ix >= -g.pl && ix < x[3] + g.pr)
                            ++padded;
                        if (iy < 0 || iy >= x[2] || ix < 0 || ix >= x[3]) continue;
                        const double v = in[0]->get((nc * x[2] + iy) * x[3] + ix);
                        acc = max ? std::max(acc, v) : acc + v;
                        ++count;
                    }
                if (!max)
                    acc /=
                        static_cast<double>(includePad ? padded : std::max<std::int64_t>(count, 1));
                out.set((nc * g.oh + oy) * g.ow + ox, acc);
            }
    return {std::move(out)};
}

void poolEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
              const std::vector<std::string>& out)
{
    const Window g = poolOf(c);
    const auto& x = c.shape(0);
    const DataType t = c.input(0).dtype;
    const bool max = c.node().op == "MaxPool";
    const bool includePad = c.node().intAttr("count_include_pad", 0) != 0;
    // The ceil_mode overhang pads too (with values that never win or count).
    Window padded = g;
    padded.pb = std::max(g.pb, (g.oh - 1) * g.sh + (g.kh - 1) * g.dh + 1 - x[2] - g.pt);
    padded.pr = std::max(g.pr, (g.ow - 1) * g.sw + (g.kw - 1) * g.dw + 1 - x[3] - g.pl);
    const std::string data = padStage(w, in[0], x, padded, max ? -INFINITY : 0.0, t, out[0]);
    const std::string ry = w.fresh("ry"), rx = w.fresh("rx");
    w.line(ry + " = te.reduce_axis((0, " + num(g.kh) + "), name=\"" + ry + "\")");
    w.line(rx + " = te.reduce_axis((0, " + num(g.kw) + "), name=\"" + rx + "\")");
    const std::vector<std::int64_t> shape{x[0], x[1], g.oh, g.ow};
    const std::string acc = max ? out[0] : w.fresh(out[0] + "_sum");
    w.compute(
        acc, shape,
        [&](const std::vector<std::string>& i) {
            auto at = [](const std::string& v, std::int64_t s, const std::string& k,
                         std::int64_t d) {
                return (s == 1 ? v : v + " * " + num(s)) + " + " +
                       (d == 1 ? k : k + " * " + num(d));
            };
            return std::string(max ? "te.max(" : "te.sum(") + data + "[" + i[0] + ", " + i[1] +
                   ", " + at(i[2], g.sh, ry, g.dh) + ", " + at(i[3], g.sw, rx, g.dw) + "], axis=[" +
                   ry + ", " + rx + "])";
        },
        acc);
    if (max) return;
    // The divisor: the window's elements inside the input (or the padding too), clipped.
    w.compute(
        out[0], shape,
        [&](const std::vector<std::string>& i) {
            auto count = [&](const std::string& o, std::int64_t s, std::int64_t k, std::int64_t d,
                             std::int64_t p0, std::int64_t size, std::int64_t p1) {
                const std::int64_t lo = includePad ? -p0 : 0, hi = includePad ? size + p1 : size;
                if (d != 1) // dilated windows: every tap counted (the uncommon case)
                    return num(k);
                const std::string start = "(" + o + " * " + num(s) + " - " + num(p0) + ")";
                return "(te.min(" + start + " + " + num(k) + ", " + num(hi) + ") - te.max(" +
                       start + ", " + num(lo) + "))";
            };
            return ScriptWriter::load(acc, i) + " / (" +
                   count(i[2], g.sh, g.kh, g.dh, g.pt, x[2], g.pb) + " * " +
                   count(i[3], g.sw, g.kw, g.dw, g.pl, x[3], g.pr) + ").astype(\"" + t.str() +
                   "\")";
        },
        out[0]);
}

// ---- GlobalAveragePool, ReduceMean, ReduceSum ----

std::vector<std::int64_t> reduceAxes(const OpContext& c)
{
    const auto& x = c.shape(0);
    if (c.node().op == "GlobalAveragePool") {
        if (x.size() < 3) c.fail("needs an input of rank 3 or more");
        std::vector<std::int64_t> axes;
        for (std::size_t d = 2; d < x.size(); ++d)
            axes.push_back(static_cast<std::int64_t>(d));
        return axes;
    }
    std::vector<std::int64_t> axes = c.node().intsAttr("axes");
    if (c.node().op == "ReduceSum" && c.opset() >= 13 && c.hasInput(1))
        axes = c.constantInts(1, "axes");
    if (axes.empty())
        for (std::size_t d = 0; d < x.size(); ++d)
            axes.push_back(static_cast<std::int64_t>(d));
    for (auto& a : axes)
        a = normalizeAxis(a, x.size(), c);
    std::sort(axes.begin(), axes.end());
    return axes;
}

bool keepDims(const OpContext& c)
{
    return c.node().op == "GlobalAveragePool" || c.node().intAttr("keepdims", 1) != 0;
}

std::vector<std::int64_t> reducedShape(const OpContext& c)
{
    const auto& x = c.shape(0);
    const auto axes = reduceAxes(c);
    std::vector<std::int64_t> out;
    for (std::size_t d = 0; d < x.size(); ++d) {
        const bool reduced =
            std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) != axes.end();
        if (!reduced)
            out.push_back(x[d]);
        else if (keepDims(c))
            out.push_back(1);
    }
    return out;
}

std::vector<TensorType> reduceInfer(const OpContext& c)
{
    if (!c.input(0).dtype.isFloat()) c.fail("needs a floating-point input");
    return {{c.input(0).dtype, reducedShape(c)}};
}

std::vector<HostBuffer> reduceEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const auto& x = c.shape(0);
    const auto axes = reduceAxes(c);
    const auto shape = reducedShape(c);
    HostBuffer out = referenceBuffer(c.input(0).dtype, shape);
    std::vector<double> sums(static_cast<std::size_t>(out.elementCount()), 0.0);
    std::int64_t count = 1;
    for (auto a : axes)
        count *= x[static_cast<std::size_t>(a)];
    std::vector<std::int64_t> idx;
    for (std::int64_t i = 0; i < in[0]->elementCount(); ++i) {
        unflatten(i, x, idx);
        std::int64_t flat = 0;
        for (std::size_t d = 0; d < x.size(); ++d) {
            const bool reduced =
                std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) != axes.end();
            if (reduced && !keepDims(c)) continue;
            flat = flat * (reduced ? 1 : x[d]) + (reduced ? 0 : idx[d]);
        }
        sums[static_cast<std::size_t>(flat)] += in[0]->get(i);
    }
    const bool mean = c.node().op != "ReduceSum";
    for (std::int64_t i = 0; i < out.elementCount(); ++i)
        out.set(i, sums[static_cast<std::size_t>(i)] / (mean ? static_cast<double>(count) : 1.0));
    return {std::move(out)};
}

void reduceEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                const std::vector<std::string>& out)
{
    const auto& x = c.shape(0);
    const auto axes = reduceAxes(c);
    const auto shape = reducedShape(c);
    const DataType t = c.input(0).dtype;
    std::vector<std::string> raxes;
    std::int64_t count = 1;
    for (auto a : axes) {
        raxes.push_back(w.fresh("r" + std::to_string(a)));
        w.line(raxes.back() + " = te.reduce_axis((0, " + num(x[static_cast<std::size_t>(a)]) +
               "), name=\"" + raxes.back() + "\")");
        count *= x[static_cast<std::size_t>(a)];
    }
    const bool mean = c.node().op != "ReduceSum";
    const std::string sum = mean ? w.fresh(out[0] + "_sum") : out[0];
    std::string axisList;
    for (std::size_t i = 0; i < raxes.size(); ++i)
        axisList += (i ? ", " : "") + raxes[i];
    w.compute(
        sum, shape,
        [&](const std::vector<std::string>& o) {
            std::vector<std::string> idx;
            std::size_t next = 0, r = 0;
            for (std::size_t d = 0; d < x.size(); ++d) {
                const bool reduced =
                    std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) != axes.end();
                if (reduced) {
                    idx.push_back(raxes[r++]);
                    if (keepDims(c)) ++next;
                } else {
                    idx.push_back(o[next++]);
                }
            }
            return "te.sum(" + ScriptWriter::load(in[0], idx) + ", axis=[" + axisList + "])";
        },
        sum);
    if (mean)
        w.compute(
            out[0], shape,
            [&](const std::vector<std::string>& o) {
                return ScriptWriter::load(sum, o) + " / " +
                       ScriptWriter::constant(static_cast<double>(count), t);
            },
            out[0]);
}

// ---- Softmax ----

// The axes softmax normalizes over: from `axis` to the end before opset 13 (the input seen as
// 2-D), `axis` alone from 13.
std::pair<std::int64_t, std::int64_t> softmaxAxes(const OpContext& c)
{
    const auto& x = c.shape(0);
    const std::int64_t fallback = c.opset() >= 13 ? -1 : 1;
    const std::int64_t axis = normalizeAxis(c.node().intAttr("axis", fallback), x.size(), c);
    return {axis, c.opset() >= 13 ? axis + 1 : static_cast<std::int64_t>(x.size())};
}

std::vector<TensorType> softmaxInfer(const OpContext& c)
{
    if (!c.input(0).dtype.isFloat()) c.fail("needs a floating-point input");
    softmaxAxes(c);
    return {{c.input(0).dtype, c.shape(0)}};
}

std::vector<HostBuffer> softmaxEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const auto& x = c.shape(0);
    auto [first, last] = softmaxAxes(c);
    std::int64_t inner = 1, span = 1;
    for (std::size_t d = static_cast<std::size_t>(last); d < x.size(); ++d)
        inner *= x[d];
    for (std::int64_t d = first; d < last; ++d)
        span *= x[static_cast<std::size_t>(d)];
    HostBuffer out = referenceBuffer(c.input(0).dtype, x);
    const std::int64_t outer = out.elementCount() / (span * inner);
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
            double mx = -INFINITY, sum = 0;
            for (std::int64_t k = 0; k < span; ++k)
                mx = std::max(mx, in[0]->get((o * span + k) * inner + i));
            for (std::int64_t k = 0; k < span; ++k)
                sum += std::exp(in[0]->get((o * span + k) * inner + i) - mx);
            for (std::int64_t k = 0; k < span; ++k)
                out.set((o * span + k) * inner + i,
                        std::exp(in[0]->get((o * span + k) * inner + i) - mx) / sum);
        }
    return {std::move(out)};
}

void softmaxEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                 const std::vector<std::string>& out)
{
    const auto& x = c.shape(0);
    // Plain variables, not a structured binding: the lambdas below capture them.
    const auto axes = softmaxAxes(c);
    const std::int64_t first = axes.first, last = axes.second;
    const DataType t = c.input(0).dtype;
    // The shape without the normalized axes, and the reduction axes over them.
    std::vector<std::int64_t> kept;
    for (std::size_t d = 0; d < x.size(); ++d)
        if (static_cast<std::int64_t>(d) < first || static_cast<std::int64_t>(d) >= last)
            kept.push_back(x[d]);
    auto reduceOver = [&](const std::string& base) {
        std::vector<std::string> r;
        for (std::int64_t d = first; d < last; ++d) {
            r.push_back(w.fresh(base + std::to_string(d)));
            w.line(r.back() + " = te.reduce_axis((0, " + num(x[static_cast<std::size_t>(d)]) +
                   "), name=\"" + r.back() + "\")");
        }
        return r;
    };
    // The input's index from kept indices and the reduction (or full) indices.
    auto full = [&](const std::vector<std::string>& keptIdx, const std::vector<std::string>& mid) {
        std::vector<std::string> idx;
        std::size_t k = 0, m = 0;
        for (std::size_t d = 0; d < x.size(); ++d)
            idx.push_back(static_cast<std::int64_t>(d) >= first &&
                                  static_cast<std::int64_t>(d) < last
                              ? mid[m++]
                              : keptIdx[k++]);
        return idx;
    };
    auto keptOf = [&](const std::vector<std::string>& idx) {
        std::vector<std::string> k;
        for (std::size_t d = 0; d < idx.size(); ++d)
            if (static_cast<std::int64_t>(d) < first || static_cast<std::int64_t>(d) >= last)
                k.push_back(idx[d]);
        return k;
    };
    auto list = [](const std::vector<std::string>& v) {
        std::string s;
        for (std::size_t i = 0; i < v.size(); ++i)
            s += (i ? ", " : "") + v[i];
        return s;
    };
    const std::string mx = w.fresh(out[0] + "_max"), e = w.fresh(out[0] + "_exp"),
                      sum = w.fresh(out[0] + "_sum");
    auto r1 = reduceOver("k");
    w.compute(
        mx, kept,
        [&](const std::vector<std::string>& k) {
            return "te.max(" + ScriptWriter::load(in[0], full(k, r1)) + ", axis=[" + list(r1) +
                   "])";
        },
        mx);
    w.compute(
        e, x,
        [&](const std::vector<std::string>& idx) {
            return "te.exp(" + ScriptWriter::load(in[0], idx) + " - " +
                   ScriptWriter::load(mx, keptOf(idx)) + ")";
        },
        e);
    auto r2 = reduceOver("k");
    w.compute(
        sum, kept,
        [&](const std::vector<std::string>& k) {
            return "te.sum(" + ScriptWriter::load(e, full(k, r2)) + ", axis=[" + list(r2) + "])";
        },
        sum);
    w.compute(
        out[0], x,
        [&](const std::vector<std::string>& idx) {
            return ScriptWriter::load(e, idx) + " / " + ScriptWriter::load(sum, keptOf(idx));
        },
        out[0]);
    (void)t;
}

} // namespace

void registerNetworkOps(std::vector<OpSpec>& out)
{
    out.push_back({"Conv", OpPattern::OutEWiseFusable, convInfer, convEval, convEmit});
    out.push_back({"Gemm", OpPattern::OutEWiseFusable, gemmInfer, gemmEval, gemmEmit});
    out.push_back({"MatMul", OpPattern::OutEWiseFusable, matmulInfer, matmulEval, matmulEmit});
    out.push_back({"MaxPool", OpPattern::OutEWiseFusable, poolInfer, poolEval, poolEmit});
    out.push_back({"AveragePool", OpPattern::OutEWiseFusable, poolInfer, poolEval, poolEmit});
    out.push_back(
        {"GlobalAveragePool", OpPattern::OutEWiseFusable, reduceInfer, reduceEval, reduceEmit});
    out.push_back({"ReduceMean", OpPattern::CommReduce, reduceInfer, reduceEval, reduceEmit});
    out.push_back({"ReduceSum", OpPattern::CommReduce, reduceInfer, reduceEval, reduceEmit});
    out.push_back({"Softmax", OpPattern::OutEWiseFusable, softmaxInfer, softmaxEval, softmaxEmit});
}

} // namespace loopscope
