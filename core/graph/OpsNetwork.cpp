// The operators with reductions: 1-D, 2-D and 3-D convolution (groups, depthwise, pads, strides,
// dilations, auto_pad), Gemm (alpha, beta, transposes), MatMul (batched, broadcasting), 1-D, 2-D
// and 3-D max and average pooling (pads, ceil_mode, count_include_pad, dilations), global
// average pooling, ReduceMean and ReduceSum, and Softmax (over the flattened trailing axes before
// opset 13, over one axis from it).
#include "graph/Operators.h"
#include "graph/Winograd.h"

#include <algorithm>
#include <cmath>

namespace loopscope {

namespace {

std::string num(std::int64_t v)
{
    return std::to_string(v);
}

// ---- windows: the geometry shared by Conv and the pools, over 1, 2 or 3 spatial axes ----

// Per spatial axis (D, H, W in ONNX's order): the input's size, the window's size, stride and
// dilation, the pads before and after, and the output's size.
struct Window {
    std::vector<std::int64_t> in, k, s, d, p0, p1, out;
    std::size_t rank() const { return k.size(); }
    bool padded() const
    {
        for (std::size_t a = 0; a < rank(); ++a)
            if (p0[a] != 0 || p1[a] != 0) return true;
        return false;
    }
};

// The window on three axes, unit axes in front: the reference loops over 1-, 2- and 3-D alike.
struct Window3 {
    std::int64_t in[3], k[3], s[3], d[3], p0[3], p1[3], out[3];
    std::int64_t outCount() const { return out[0] * out[1] * out[2]; }
    std::int64_t inCount() const { return in[0] * in[1] * in[2]; }
};

Window3 asThree(const Window& g)
{
    Window3 w{};
    const std::size_t lead = 3 - g.rank();
    for (std::size_t a = 0; a < 3; ++a) {
        const bool real = a >= lead;
        const std::size_t i = real ? a - lead : 0;
        w.in[a] = real ? g.in[i] : 1;
        w.k[a] = real ? g.k[i] : 1;
        w.s[a] = real ? g.s[i] : 1;
        w.d[a] = real ? g.d[i] : 1;
        w.p0[a] = real ? g.p0[i] : 0;
        w.p1[a] = real ? g.p1[i] : 0;
        w.out[a] = real ? g.out[i] : 1;
    }
    return w;
}

// The names of the spatial axes in scripts: x; y, x; z, y, x.
std::string axisName(std::size_t axis, std::size_t rank)
{
    static const char* names[] = {"z", "y", "x"};
    return names[3 - rank + axis];
}

// A window of `kernel` over the spatial sizes `in`; for a pool, `ceil` rounds the output size up.
Window windowOf(const OpContext& c, const std::vector<std::int64_t>& in,
                const std::vector<std::int64_t>& kernel, bool ceil)
{
    const GraphNode& n = c.node();
    const std::size_t rank = in.size();
    const std::string axes = std::to_string(rank) + "-D window";
    Window g;
    g.in = in;
    g.k = kernel;
    g.s = n.intsAttr("strides", std::vector<std::int64_t>(rank, 1));
    g.d = n.intsAttr("dilations", std::vector<std::int64_t>(rank, 1));
    if (g.s.size() != rank || g.d.size() != rank)
        c.fail("strides and dilations need " + num(static_cast<std::int64_t>(rank)) +
               " values for a " + axes);
    // Sizes past 2^30 are refused, so that no product of two of them overflows.
    constexpr std::int64_t kLargest = std::int64_t{1} << 30;
    for (std::size_t a = 0; a < rank; ++a) {
        if (g.s[a] < 1 || g.d[a] < 1) c.fail("strides and dilations must be positive");
        if (g.k[a] < 1) c.fail("the window's size must be positive");
        if (g.s[a] > kLargest || g.d[a] > kLargest || g.k[a] > kLargest || in[a] > kLargest)
            c.fail("a window, stride, dilation or input larger than 2^30 is not supported");
    }
    g.p0.assign(rank, 0);
    g.p1.assign(rank, 0);
    g.out.assign(rank, 0);
    auto extent = [&](std::size_t a) { return (g.k[a] - 1) * g.d[a] + 1; };
    const std::string autoPad = n.stringAttr("auto_pad", "NOTSET");
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        for (std::size_t a = 0; a < rank; ++a) {
            g.out[a] = (in[a] + g.s[a] - 1) / g.s[a];
            const std::int64_t p =
                std::max<std::int64_t>(0, (g.out[a] - 1) * g.s[a] + extent(a) - in[a]);
            g.p0[a] = autoPad == "SAME_UPPER" ? p / 2 : p - p / 2;
            g.p1[a] = p - g.p0[a];
        }
        return g;
    }
    if (autoPad != "NOTSET" && autoPad != "VALID")
        c.fail("auto_pad '" + autoPad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
    if (autoPad == "NOTSET") {
        auto pads = n.intsAttr("pads", std::vector<std::int64_t>(2 * rank, 0));
        if (pads.size() != 2 * rank)
            c.fail("pads needs " + num(static_cast<std::int64_t>(2 * rank)) + " values for a " +
                   axes);
        for (std::size_t a = 0; a < rank; ++a) {
            g.p0[a] = pads[a];
            g.p1[a] = pads[rank + a];
            if (g.p0[a] < 0 || g.p1[a] < 0) c.fail("negative pads");
            if (g.p0[a] > kLargest || g.p1[a] > kLargest)
                c.fail("pads larger than 2^30 are not supported");
        }
    }
    for (std::size_t a = 0; a < rank; ++a) {
        const std::int64_t span = in[a] + g.p0[a] + g.p1[a] - extent(a);
        if (span < 0) c.fail("the window is larger than the padded input");
        g.out[a] = (ceil ? (span + g.s[a] - 1) / g.s[a] : span / g.s[a]) + 1;
        // ceil_mode: a last window that would start inside the far padding is dropped.
        if (ceil && (g.out[a] - 1) * g.s[a] >= in[a] + g.p0[a]) --g.out[a];
    }
    return g;
}

// "i * s + r * d" for a window's tap on one axis, without unit factors.
std::string tap(const std::string& v, std::int64_t s, const std::string& r, std::int64_t d)
{
    return (s == 1 ? v : v + " * " + num(s)) + " + " + (d == 1 ? r : r + " * " + num(d));
}

// One reduce axis per spatial axis of the window ("ry", "rx"), declared.
std::vector<std::string> windowAxes(ScriptWriter& w, const Window& g)
{
    std::vector<std::string> r;
    for (std::size_t a = 0; a < g.rank(); ++a) {
        r.push_back(w.fresh("r" + axisName(a, g.rank())));
        w.line(r.back() + " = te.reduce_axis((0, " + num(g.k[a]) + "), name=\"" + r.back() + "\")");
    }
    return r;
}

// A padded copy of an N x C x ... input (or N x C/B x ... x B, in blocks of channels) as a TE
// stage ("pad"), or the input itself when no padding.
std::string padStage(ScriptWriter& w, const std::string& input, const std::vector<std::int64_t>& s,
                     const Window& g, double fill, DataType t, const std::string& base)
{
    if (!g.padded()) return input;
    const bool blocked = s.size() > 2 + g.rank();
    const std::string var = w.fresh(base + "_pad");
    std::vector<std::int64_t> padded{s[0], s[1]};
    for (std::size_t a = 0; a < g.rank(); ++a)
        padded.push_back(s[2 + a] + g.p0[a] + g.p1[a]);
    if (blocked) padded.push_back(s.back());
    w.compute(
        var, padded,
        [&](const std::vector<std::string>& i) {
            std::string inside, load = input + "[" + i[0] + ", " + i[1];
            for (std::size_t a = 0; a < g.rank(); ++a) {
                const std::string& v = i[2 + a];
                inside += (a ? ", " : "") + v + " >= " + num(g.p0[a]) + ", " + v + " < " +
                          num(s[2 + a] + g.p0[a]);
                load += ", " + v + " - " + num(g.p0[a]);
            }
            if (blocked) load += ", " + i.back();
            return "tvm.tir.if_then_else(tvm.tir.all(" + inside + "), " + load + "], " +
                   ScriptWriter::constant(fill, t) + ")";
        },
        var);
    return var;
}

// The spatial sizes of an N x C x ... shape.
std::vector<std::int64_t> spatialOf(const std::vector<std::int64_t>& shape)
{
    return {shape.begin() + 2, shape.end()};
}

// N x C x (the window's output).
std::vector<std::int64_t> windowOutput(std::int64_t n, std::int64_t c, const Window& g)
{
    std::vector<std::int64_t> s{n, c};
    s.insert(s.end(), g.out.begin(), g.out.end());
    return s;
}

// A Conv's or pool's data in blocks of channels (kInBlock, kOutBlock; 0: N x C x S...), checked.
struct DataBlocks {
    std::int64_t in = 0, out = 0;
};

DataBlocks dataBlocksOf(const OpContext& c)
{
    DataBlocks b{c.node().intAttr(kInBlock, 0), c.node().intAttr(kOutBlock, 0)};
    const auto& x = c.shape(0);
    if (b.in < 0 || b.out < 0 || (b.in > 0 && (x.size() != 5 || x.back() != b.in)))
        c.fail("data in blocks of " + num(b.in) + " channels must be N x C/" + num(b.in) +
               " x H x W x " + num(b.in) + ", not " + dimsText(x));
    return b;
}

// Input 0 as N x C x S... .
std::vector<std::int64_t> plainInput(const OpContext& c)
{
    return c.node().intAttr(kInBlock, 0) > 0 ? plainShape(c.shape(0)) : c.shape(0);
}

// An output of N x C x S... in blocks of `block` channels (0: as it is).
std::vector<std::int64_t> outputIn(std::vector<std::int64_t> plain, std::int64_t block)
{
    return block > 0 ? blockedShape(plain, block) : plain;
}

// ---- Conv ----

struct ConvGeometry {
    std::int64_t n, c, f, group, cpg; // cpg: input channels per group
    // Weights in blocks of output channels (F/B x C x KH x KW x B, kWeightBlock), made by
    // AlterConvLayout for 2-D convolutions; 0: as ONNX has them (F x C x K...).
    std::int64_t block = 0;
    Window g;
};

ConvGeometry convOf(const OpContext& c)
{
    const DataBlocks data = dataBlocksOf(c);
    const std::vector<std::int64_t> x = plainInput(c);
    const auto& wt = c.shape(1);
    const std::int64_t block = c.node().intAttr(kWeightBlock, 0);
    // A depthwise convolution's weights are in blocks only where its data is, block for block.
    const bool depthwise = c.node().intAttr("group", 1) == x[1] && wt.size() == 5 &&
                           data.in == block && data.out == block;
    if (block > 0 && (x.size() != 4 || wt.size() != 5 || wt[4] != block ||
                      (c.node().intAttr("group", 1) != 1 && !depthwise)))
        c.fail("weights in blocks of " + num(block) + " output channels must be F/" + num(block) +
               " x C x KH x KW x " + num(block) + " with one group, not " + dimsText(wt));
    if ((data.in > 0 || data.out > 0) && (block == 0 || data.out != block))
        c.fail("data in blocks of channels needs weights in blocks of as many output channels");
    if (x.size() < 3 || x.size() > 5)
        c.fail("Loopscope runs 1-D, 2-D and 3-D convolutions (input N x C x W, N x C x H x W or "
               "N x C x D x H x W), not rank " +
               std::to_string(x.size()));
    if (wt.size() != (block > 0 ? 5U : x.size()))
        c.fail("weights of shape " + dimsText(wt) + " do not fit an input of rank " +
               std::to_string(x.size()));
    ConvGeometry g;
    g.n = x[0];
    g.c = x[1];
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
    const std::vector<std::int64_t> kernel(wt.begin() + 2, wt.begin() + 2 + (x.size() - 2));
    if (c.node().intsAttr("kernel_shape", kernel) != kernel)
        c.fail("kernel_shape does not match the weights " + dimsText(wt));
    if (c.hasInput(2) && c.input(2).elementCount() != g.f)
        c.fail("the bias has " + num(c.input(2).elementCount()) + " values for " + num(g.f) +
               " filters");
    g.g = windowOf(c, spatialOf(x), kernel, false);
    return g;
}

std::vector<TensorType> convInfer(const OpContext& c)
{
    // Integers go through ConvInteger and QLinearConv (OpsInteger.cpp), which call this one.
    if (!c.input(0).dtype.isFloat() && c.input(0).dtype != DataType::int32())
        c.fail("needs a floating-point input");
    ConvGeometry g = convOf(c);
    return {
        {c.input(0).dtype, outputIn(windowOutput(g.n, g.f, g.g), c.node().intAttr(kOutBlock, 0))}};
}

std::vector<HostBuffer> convEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const ConvGeometry g = convOf(c);
    const Window3 wd = asThree(g.g);
    HostBuffer out = referenceBuffer(c.input(0).dtype, windowOutput(g.n, g.f, g.g));
    const std::int64_t fpg = g.f / g.group;
    const std::int64_t per = g.cpg * wd.k[0] * wd.k[1] * wd.k[2]; // weights of one filter
    const DataBlocks blocks = dataBlocksOf(c);
    const HostBuffer plain =
        blocks.in > 0 ? relayout(*in[0], plainInput(c), blocks.in, 0) : HostBuffer();
    const HostBuffer &x = blocks.in > 0 ? plain : *in[0], &wt = *in[1];
    std::int64_t o = 0; // the output's elements in order
    for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t f = 0; f < g.f; ++f) {
            const std::int64_t c0 = (f / fpg) * g.cpg;
            for (std::int64_t oz = 0; oz < wd.out[0]; ++oz)
                for (std::int64_t oy = 0; oy < wd.out[1]; ++oy)
                    for (std::int64_t ox = 0; ox < wd.out[2]; ++ox) {
                        double sum = in.size() > 2 && in[2] ? in[2]->get(f) : 0.0;
                        for (std::int64_t rc = 0; rc < g.cpg; ++rc)
                            for (std::int64_t kz = 0; kz < wd.k[0]; ++kz) {
                                const std::int64_t iz = oz * wd.s[0] + kz * wd.d[0] - wd.p0[0];
                                if (iz < 0 || iz >= wd.in[0]) continue;
                                for (std::int64_t ky = 0; ky < wd.k[1]; ++ky) {
                                    const std::int64_t iy = oy * wd.s[1] + ky * wd.d[1] - wd.p0[1];
                                    if (iy < 0 || iy >= wd.in[1]) continue;
                                    for (std::int64_t kx = 0; kx < wd.k[2]; ++kx) {
                                        const std::int64_t ix =
                                            ox * wd.s[2] + kx * wd.d[2] - wd.p0[2];
                                        if (ix < 0 || ix >= wd.in[2]) continue;
                                        const std::int64_t k =
                                            ((rc * wd.k[0] + kz) * wd.k[1] + ky) * wd.k[2] + kx;
                                        sum += x.get((((n * g.c + c0 + rc) * wd.in[0] + iz) *
                                                          wd.in[1] +
                                                      iy) *
                                                         wd.in[2] +
                                                     ix) *
                                               wt.get(g.block > 0
                                                          ? blockedWeightOffset(f, k, per, g.block)
                                                          : f * per + k);
                                    }
                                }
                            }
                        out.set(o++, sum);
                    }
        }
    if (blocks.out > 0) return {relayout(out, out.shape(), 0, blocks.out)};
    return {std::move(out)};
}

// Data in blocks of channels, as TOPI's conv2d_NCHWc and depthwise_conv2d_NCHWc: the sums are
// N x F/B x H' x W' x B, written as they are; the input is read in its blocks (two reduce axes
// over its channels, the blocks and the channels in one) or as N x C x H x W (the first layer).
void convEmitBlocked(const OpContext& c, ScriptWriter& w, const ConvGeometry& g,
                     const std::string& data, const std::vector<std::string>& in,
                     const std::vector<std::string>& out)
{
    const Window& wd = g.g;
    const DataBlocks blocks = dataBlocksOf(c);
    const bool depthwise = g.group != 1;
    std::vector<std::string> reduce; // the channel axes: none (depthwise), rc, or rco and rci
    auto axis = [&](const std::string& name, std::int64_t extent) {
        reduce.push_back(w.fresh(name));
        w.line(reduce.back() + " = te.reduce_axis((0, " + num(extent) + "), name=\"" +
               reduce.back() + "\")");
    };
    if (!depthwise && blocks.in > 0) {
        axis("rco", g.c / blocks.in);
        axis("rci", blocks.in);
    } else if (!depthwise) {
        axis("rc", g.c);
    }
    const std::vector<std::string> r = windowAxes(w, wd);
    std::string axes;
    for (auto& a : reduce)
        axes += (axes.empty() ? "" : ", ") + a;
    for (auto& a : r)
        axes += (axes.empty() ? "" : ", ") + a;
    const bool bias = in.size() > 2 && !in[2].empty();
    const std::string conv = bias ? w.fresh(out[0] + "_conv") : out[0];
    const std::string b = num(blocks.out);
    std::vector<std::int64_t> shape = blockedShape(windowOutput(g.n, g.f, wd), blocks.out);
    w.compute(
        conv, shape,
        [&](const std::vector<std::string>& i) {
            // data[n, channel(s), taps..., (in-block channel)] * weights[block, channel, r..., f]
            std::string x = data + "[" + i[0] + ", ", k = in[1] + "[" + i[1] + ", ";
            if (depthwise) {
                x += i[1];
                k += "0";
            } else if (blocks.in > 0) {
                x += reduce[0];
                k += reduce[0] + " * " + num(blocks.in) + " + " + reduce[1];
            } else {
                x += reduce[0];
                k += reduce[0];
            }
            for (std::size_t a = 0; a < wd.rank(); ++a) {
                x += ", " + tap(i[2 + a], wd.s[a], r[a], wd.d[a]);
                k += ", " + r[a];
            }
            if (depthwise)
                x += ", " + i.back();
            else if (blocks.in > 0)
                x += ", " + reduce[1];
            return "te.sum(" + x + "] * " + k + ", " + i.back() + "], axis=[" + axes + "])";
        },
        conv);
    // A bias in blocks (F/B x 1 x 1 x B, as ConvertLayout lays it out) is read at the sums' own
    // axes, so the add inlines into whatever reads it.
    const bool biasInBlocks = bias && c.shape(2).size() == 4;
    if (bias)
        w.compute(
            out[0], shape,
            [&](const std::vector<std::string>& i) {
                return ScriptWriter::load(conv, i) + " + " + in[2] +
                       (biasInBlocks ? "[" + i[1] + ", 0, 0, " + i.back() + "]"
                                     : "[" + i[1] + " * " + b + " + " + i.back() + "]");
            },
            out[0]);
}

// sum over k of coefficients[k] * term(k), the zero coefficients left out: "(a - b + 4 * c)".
std::string linearCombination(const std::vector<double>& coefficients,
                              const std::function<std::string(std::size_t)>& term, DataType t)
{
    std::string out;
    for (std::size_t k = 0; k < coefficients.size(); ++k) {
        const double v = coefficients[k];
        if (v == 0) continue;
        const double size = v < 0 ? -v : v;
        const std::string x =
            size == 1 ? term(k) : ScriptWriter::constant(size, t) + " * " + term(k);
        if (out.empty())
            out = v > 0 ? x : ScriptWriter::constant(v, t) + " * " + term(k);
        else
            out += (v < 0 ? " - " : " + ") + x;
    }
    return "(" + out + ")";
}

// Select(axis == 0, value(0), Select(axis == 1, value(1), ... value(n - 1))): a row of a
// transform matrix chosen by an axis; once the axis's loop is unrolled, one row.
std::string selectByAxis(const std::string& axis, std::size_t n,
                         const std::function<std::string(std::size_t)>& value)
{
    std::string out = value(n - 1);
    for (std::size_t k = n - 1; k-- > 0;)
        out = "tvm.tir.Select(" + axis + " == " + std::to_string(k) + ", " + value(k) + ", " + out +
              ")";
    return out;
}

// Winograd's F(m x m, 3 x 3) on data in blocks of channels (kWinogradTile, graph/Winograd.h), as
// TOPI's conv2d_winograd: the input padded to whole tiles, each a x a tile transformed
// (B^T d B, in two passes of one matrix each), the products with the transformed weights summed
// over the input channels as a x a matrix products (tiles x C by C x F), and each a x a result
// transformed back into m x m outputs (A^T M A, two passes), written in the output's blocks.
void convEmitWinograd(const OpContext& c, ScriptWriter& w, const ConvGeometry& g,
                      const std::vector<std::string>& in, const std::vector<std::string>& out)
{
    const int m = static_cast<int>(c.node().intAttr(kWinogradTile, 0));
    const WinogradTransform* t = winogradTransform(m);
    const auto& x = c.shape(0); // N x C/B x H x W x B, or N x C x H x W
    const bool blockedIn = x.size() == 5;
    if (!t || x.size() < 4 || in.size() < 4 || in[3].empty() || g.g.rank() != 2)
        c.fail("a Winograd convolution needs 2-D data, 3x3 weights and their transform");
    const DataType dt = c.input(0).dtype;
    const std::int64_t a = t->a, bi = blockedIn ? x[4] : 1, ch = x[1] * bi, f = g.f;
    const std::int64_t bo = c.node().intAttr(kOutBlock, 0);
    const std::int64_t h = g.g.out[0], wd = g.g.out[1];
    const std::int64_t th = (h + m - 1) / m, tw = (wd + m - 1) / m, tiles = g.n * th * tw;
    const std::string mm = num(m), bis = num(bi), tws = num(tw);
    // A pass of one transform matrix: the stage's axis `by` chooses the matrix's row, whose
    // coefficients weigh the terms term(i, k).
    auto transform =
        [&](const std::string& name, const std::vector<std::int64_t>& shape, std::size_t by,
            const std::vector<std::vector<double>>& matrix,
            const std::function<std::string(const std::vector<std::string>&, std::size_t)>& term) {
            const std::string var = w.fresh(out[0] + name);
            w.compute(
                var, shape,
                [&](const std::vector<std::string>& i) {
                    return selectByAxis(i[by], matrix.size(), [&](std::size_t row) {
                        return linearCombination(
                            matrix[row], [&](std::size_t k) { return term(i, k); }, dt);
                    });
                },
                var);
            return var;
        };
    // The input with its border of zeros, to whole tiles and a tile's overlap.
    const std::string pad = w.fresh(out[0] + "_winograd_pad");
    std::vector<std::int64_t> padded{g.n, x[1], th * m + 2, tw * m + 2};
    if (blockedIn) padded.push_back(bi);
    w.compute(
        pad, padded,
        [&](const std::vector<std::string>& i) {
            return "tvm.tir.if_then_else(tvm.tir.all(" + i[2] + " >= 1, " + i[2] + " < " +
                   num(x[2] + 1) + ", " + i[3] + " >= 1, " + i[3] + " < " + num(x[3] + 1) + "), " +
                   in[0] + "[" + i[0] + ", " + i[1] + ", " + i[2] + " - 1, " + i[3] + " - 1" +
                   (blockedIn ? ", " + i[4] : std::string()) + "], " +
                   ScriptWriter::constant(0.0, dt) + ")";
        },
        pad);
    // d B: each row y of tile p (all channels) times B.
    const std::string rowsPass =
        transform("_winograd_db", {a, a, tiles, ch}, 1, t->bt, [&](const auto& i, std::size_t col) {
            return pad + "[" + i[2] + " // " + num(th * tw) + ", " +
                   (blockedIn ? i[3] + " // " + bis : i[3]) + ", " + i[2] + " // " + tws + " % " +
                   num(th) + " * " + mm + " + " + i[0] + ", " + i[2] + " % " + tws + " * " + mm +
                   " + " + std::to_string(col) +
                   (blockedIn ? ", " + i[3] + " % " + bis : std::string()) + "]";
        });
    // B^T (d B)
    const std::string data =
        transform("_winograd_data", {a, a, tiles, ch}, 0, t->bt, [&](const auto& i, std::size_t y) {
            return rowsPass + "[" + std::to_string(y) + ", " + i[1] + ", " + i[2] + ", " + i[3] +
                   "]";
        });
    // For each of the a x a points: tiles x C by C x F.
    const std::string rc = w.fresh("rc");
    w.line(rc + " = te.reduce_axis((0, " + num(ch) + "), name=\"" + rc + "\")");
    const std::string product = w.fresh(out[0] + "_winograd_product");
    w.compute(
        product, {a, a, tiles, f},
        [&](const std::vector<std::string>& i) {
            return "te.sum(" + data + "[" + i[0] + ", " + i[1] + ", " + i[2] + ", " + rc + "] * " +
                   in[3] + "[" + i[0] + ", " + i[1] + ", " + rc + ", " + i[3] + "], axis=" + rc +
                   ")";
        },
        product);
    // M A, then A^T (M A).
    const std::string colsPass =
        transform("_winograd_ma", {a, m, tiles, f}, 1, t->at, [&](const auto& i, std::size_t b) {
            return product + "[" + i[0] + ", " + std::to_string(b) + ", " + i[2] + ", " + i[3] +
                   "]";
        });
    const std::string inverse =
        transform("_winograd_out", {m, m, tiles, f}, 0, t->at, [&](const auto& i, std::size_t r) {
            return colsPass + "[" + std::to_string(r) + ", " + i[1] + ", " + i[2] + ", " + i[3] +
                   "]";
        });
    // The outputs of each tile in place, in the output's blocks, and the bias.
    const bool bias = in.size() > 2 && !in[2].empty();
    const bool biasInBlocks = bias && c.shape(2).size() == 4;
    w.compute(
        out[0], blockedShape(windowOutput(g.n, f, g.g), bo),
        [&](const std::vector<std::string>& i) {
            std::string v = inverse + "[" + i[2] + " % " + mm + ", " + i[3] + " % " + mm + ", (" +
                            i[0] + " * " + num(th) + " + " + i[2] + " // " + mm + ") * " + tws +
                            " + " + i[3] + " // " + mm + ", " + i[1] + " * " + num(bo) + " + " +
                            i[4] + "]";
            if (bias)
                v += " + " + in[2] +
                     (biasInBlocks ? "[" + i[1] + ", 0, 0, " + i[4] + "]"
                                   : "[" + i[1] + " * " + num(bo) + " + " + i[4] + "]");
            return v;
        },
        out[0]);
}

void convEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
              const std::vector<std::string>& out)
{
    const ConvGeometry g = convOf(c);
    if (w.winograd && c.node().intAttr(kWinogradTile, 0) > 0) {
        convEmitWinograd(c, w, g, in, out);
        return;
    }
    const Window& wd = g.g;
    const DataType t = c.input(0).dtype;
    const std::string data = padStage(w, in[0], c.shape(0), wd, 0.0, t, out[0]);
    if (c.node().intAttr(kOutBlock, 0) > 0) {
        convEmitBlocked(c, w, g, data, in, out);
        return;
    }
    const std::string rc = w.fresh("rc");
    w.line(rc + " = te.reduce_axis((0, " + num(g.cpg) + "), name=\"" + rc + "\")");
    const std::vector<std::string> r = windowAxes(w, wd);
    std::string axes = rc;
    for (auto& a : r)
        axes += ", " + a;
    // data[n, channel, taps...] * weights[filter, rc, r..., (block)]
    auto product = [&](const std::vector<std::string>& i, const std::string& channel,
                       const std::string& filter, const std::string& inBlock) {
        std::string x = data + "[" + i[0] + ", " + channel, k = in[1] + "[" + filter + ", " + rc;
        for (std::size_t a = 0; a < wd.rank(); ++a) {
            x += ", " + tap(i[2 + a], wd.s[a], r[a], wd.d[a]);
            k += ", " + r[a];
        }
        return x + "] * " + k + (inBlock.empty() ? "" : ", " + inBlock) + "]";
    };
    const bool bias = in.size() > 2 && !in[2].empty();
    auto biasOf = [&](const std::string& channel) {
        return bias ? " + " + in[2] + "[" + channel + "]" : std::string();
    };
    const std::vector<std::int64_t> shape = windowOutput(g.n, g.f, wd);
    if (g.block > 0) {
        // In blocks of output channels, as TOPI's conv2d_NCHWc: the block's channels are the
        // innermost axis of the weights and of the sums, which the output then reads back
        // into N x F x H x W.
        const std::string conv = w.fresh(out[0] + "_conv");
        const std::string b = num(g.block);
        std::vector<std::int64_t> blocked = windowOutput(g.n, g.f / g.block, wd);
        blocked.push_back(g.block);
        w.compute(
            conv, blocked,
            [&](const std::vector<std::string>& i) {
                return "te.sum(" + product(i, rc, i[1], i.back()) + ", axis=[" + axes + "])";
            },
            conv);
        w.compute(
            out[0], shape,
            [&](const std::vector<std::string>& i) {
                std::string at = conv + "[" + i[0] + ", " + i[1] + " // " + b;
                for (std::size_t a = 0; a < wd.rank(); ++a)
                    at += ", " + i[2 + a];
                return at + ", " + i[1] + " % " + b + "]" + biasOf(i[1]);
            },
            out[0]);
        return;
    }
    const std::string conv = bias ? w.fresh(out[0] + "_conv") : out[0];
    const std::int64_t fpg = g.f / g.group;
    w.compute(
        conv, shape,
        [&](const std::vector<std::string>& i) {
            const std::string channel =
                g.group == 1 ? rc
                             : "(" + i[1] + " // " + num(fpg) + ") * " + num(g.cpg) + " + " + rc;
            return "te.sum(" + product(i, channel, i[1], "") + ", axis=[" + axes + "])";
        },
        conv);
    if (bias)
        w.compute(
            out[0], shape,
            [&](const std::vector<std::string>& i) {
                return ScriptWriter::load(conv, i) + biasOf(i[1]);
            },
            out[0]);
}

// ---- Gemm: alpha * A' B' + beta * C ----

struct GemmShape {
    std::int64_t m, k, n;
    bool ta, tb;
    // Weights in panels of output columns (N/B x K x B, kWeightBlock), made by
    // AlterDenseLayout; 0: as ONNX has them.
    std::int64_t block = 0;
};

// The panel size of weights in panels of output columns (kWeightBlock), checked against their
// shape N/B x K x B; 0 for weights as ONNX has them.
std::int64_t densePanel(const OpContext& c, int weights)
{
    const std::int64_t block = c.node().intAttr(kWeightBlock, 0);
    const auto& b = c.shape(weights);
    if (block > 0 && (b.size() != 3 || b[2] != block))
        c.fail("weights in panels of " + num(block) + " columns must be N/" + num(block) +
               " x K x " + num(block) + ", not " + dimsText(b));
    return block;
}

// Where the weight of column `n` at row `k` of K lies, in panels of `block` or as ONNX has
// them (K x N, or N x K transposed).
std::int64_t denseWeightOffset(std::int64_t k, std::int64_t n, std::int64_t kk, std::int64_t nn,
                               std::int64_t block, bool transposed)
{
    if (block > 0) return blockedWeightOffset(n, k, kk, block);
    return transposed ? n * kk + k : k * nn + n;
}

// The weight of column `j` at row `k` in a script.
std::string denseWeightLoad(const std::string& w, const std::string& k, const std::string& j,
                            std::int64_t block, bool transposed)
{
    if (block > 0)
        return w + "[" + j + " // " + num(block) + ", " + k + ", " + j + " % " + num(block) + "]";
    return transposed ? w + "[" + j + ", " + k + "]" : w + "[" + k + ", " + j + "]";
}

GemmShape gemmOf(const OpContext& c)
{
    const auto& a = c.shape(0);
    const auto& b = c.shape(1);
    GemmShape g;
    g.block = densePanel(c, 1);
    if (a.size() != 2 || (b.size() != 2 && g.block == 0))
        c.fail("Gemm needs 2-D inputs, got " + dimsText(a) + " and " + dimsText(b));
    g.ta = c.node().intAttr("transA", 0) != 0;
    g.tb = c.node().intAttr("transB", 0) != 0;
    g.m = g.ta ? a[1] : a[0];
    g.k = g.ta ? a[0] : a[1];
    std::int64_t kb = g.tb ? b[1] : b[0];
    g.n = g.tb ? b[0] : b[1];
    if (g.block > 0) {
        kb = b[1];
        g.n = b[0] * g.block;
    }
    if (kb != g.k) c.fail("inner dimensions " + num(g.k) + " and " + num(kb) + " differ");
    if (c.hasInput(2)) broadcastShapes(c.shape(2), {g.m, g.n}, c);
    return g;
}

std::vector<TensorType> gemmInfer(const OpContext& c)
{
    if (!c.input(0).dtype.isFloat() && c.input(0).dtype != DataType::int32())
        c.fail("needs floating-point inputs");
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
                       in[1]->get(denseWeightOffset(k, j, g.k, g.n, g.block, g.tb));
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
            const std::string b = denseWeightLoad(in[1], k, i[1], g.block, g.tb);
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
    // A constant 2-D B in panels of output columns (N/B x K x B, kWeightBlock), made by
    // AlterDenseLayout; `b` is then its K x N shape. 0: as ONNX has it.
    std::int64_t block = 0;
};

MatMulShape matmulOf(const OpContext& c)
{
    MatMulShape s;
    s.a = c.shape(0);
    s.b = c.shape(1);
    s.block = densePanel(c, 1);
    if (s.block > 0) s.b = {s.b[1], s.b[0] * s.block};
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
    if (!c.input(0).dtype.isFloat() && c.input(0).dtype != DataType::int32())
        c.fail("needs floating-point inputs");
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
                    sum += in[0]->get(ao + i * s.k + k) *
                           in[1]->get(bo + denseWeightOffset(k, j, s.k, s.n, s.block, false));
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
            const std::string b = s.block > 0 ? denseWeightLoad(in[1], k, j, s.block, false)
                                              : ScriptWriter::load(in[1], bi);
            return "te.sum(" + ScriptWriter::load(in[0], ai) + " * " + b + ", axis=" + k + ")";
        },
        out[0]);
}

// ---- MaxPool, AveragePool ----

Window poolOf(const OpContext& c)
{
    const DataBlocks blocks = dataBlocksOf(c);
    if (blocks.in != blocks.out)
        c.fail("pools data in blocks of channels into as many blocks, not " + num(blocks.in) +
               " into " + num(blocks.out));
    const std::vector<std::int64_t> x = plainInput(c);
    if (x.size() < 3 || x.size() > 5)
        c.fail("Loopscope runs 1-D, 2-D and 3-D pooling (input N x C x W, N x C x H x W or "
               "N x C x D x H x W), not rank " +
               std::to_string(x.size()));
    auto ks = c.node().intsAttr("kernel_shape");
    if (ks.size() != x.size() - 2)
        c.fail("kernel_shape needs " + num(static_cast<std::int64_t>(x.size() - 2)) +
               " values for an input of rank " + std::to_string(x.size()));
    if (c.node().intAttr("storage_order", 0) != 0) c.fail("storage_order 1 is not supported");
    if (c.node().outputs.size() > 1 && !c.node().outputs[1].empty())
        c.fail("the indices output is not supported");
    return windowOf(c, spatialOf(x), ks, c.node().intAttr("ceil_mode", 0) != 0);
}

std::vector<TensorType> poolInfer(const OpContext& c)
{
    // A max pool of quantized values is the quantized max pool (FuseQuantized makes it).
    const DataType t = c.input(0).dtype;
    const bool quantized = t.bits == 8 && (t.isInt() || t.isUInt()) && t.lanes == 1;
    if (!t.isFloat() && !(quantized && c.node().op == "MaxPool"))
        c.fail("needs a floating-point input");
    Window g = poolOf(c);
    const std::vector<std::int64_t> x = plainInput(c);
    return {
        {c.input(0).dtype, outputIn(windowOutput(x[0], x[1], g), c.node().intAttr(kOutBlock, 0))}};
}

std::vector<HostBuffer> poolEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const Window window = poolOf(c);
    const Window3 g = asThree(window);
    const std::vector<std::int64_t> x = plainInput(c);
    const DataBlocks blocks = dataBlocksOf(c);
    const HostBuffer plain = blocks.in > 0 ? relayout(*in[0], x, blocks.in, 0) : HostBuffer();
    const HostBuffer& data = blocks.in > 0 ? plain : *in[0];
    const bool max = c.node().op == "MaxPool";
    const bool includePad = c.node().intAttr("count_include_pad", 0) != 0;
    HostBuffer out = referenceBuffer(c.input(0).dtype, windowOutput(x[0], x[1], window));
    std::int64_t o = 0; // the output's elements in order
    for (std::int64_t nc = 0; nc < x[0] * x[1]; ++nc)
        for (std::int64_t oz = 0; oz < g.out[0]; ++oz)
            for (std::int64_t oy = 0; oy < g.out[1]; ++oy)
                for (std::int64_t ox = 0; ox < g.out[2]; ++ox) {
                    double acc = max ? -INFINITY : 0.0;
                    std::int64_t count = 0, padded = 0;
                    for (std::int64_t kz = 0; kz < g.k[0]; ++kz)
                        for (std::int64_t ky = 0; ky < g.k[1]; ++ky)
                            for (std::int64_t kx = 0; kx < g.k[2]; ++kx) {
                                const std::int64_t at[3] = {oz * g.s[0] + kz * g.d[0] - g.p0[0],
                                                            oy * g.s[1] + ky * g.d[1] - g.p0[1],
                                                            ox * g.s[2] + kx * g.d[2] - g.p0[2]};
                                // Positions in the explicit padding count for
                                // count_include_pad; those past it (ceil_mode's overhang) never
                                // do.
                                bool inPadding = true, inside = true;
                                for (int a = 0; a < 3; ++a) {
                                    inPadding =
                                        inPadding && at[a] >= -g.p0[a] && at[a] < g.in[a] + g.p1[a];
                                    inside = inside && at[a] >= 0 && at[a] < g.in[a];
                                }
                                if (inPadding) ++padded;
                                if (!inside) continue;
                                const double v = data.get(
                                    ((nc * g.in[0] + at[0]) * g.in[1] + at[1]) * g.in[2] + at[2]);
                                acc = max ? std::max(acc, v) : acc + v;
                                ++count;
                            }
                    if (!max)
                        acc /= static_cast<double>(includePad ? padded
                                                              : std::max<std::int64_t>(count, 1));
                    out.set(o++, acc);
                }
    if (blocks.out > 0) return {relayout(out, out.shape(), 0, blocks.out)};
    return {std::move(out)};
}

void poolEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
              const std::vector<std::string>& out)
{
    const Window g = poolOf(c);
    const std::vector<std::int64_t> x = plainInput(c);
    const std::int64_t block = dataBlocksOf(c).out;
    const DataType t = c.input(0).dtype;
    const bool max = c.node().op == "MaxPool";
    const bool includePad = c.node().intAttr("count_include_pad", 0) != 0;
    // The ceil_mode overhang pads too (with values that never win or count).
    Window padded = g;
    for (std::size_t a = 0; a < g.rank(); ++a)
        padded.p1[a] = std::max(g.p1[a], (g.out[a] - 1) * g.s[a] + (g.k[a] - 1) * g.d[a] + 1 -
                                             g.in[a] - g.p0[a]);
    const double lowest = t.isFloat() ? -INFINITY : t.isUInt() ? 0.0 : -128.0;
    const std::string data = padStage(w, in[0], c.shape(0), padded, max ? lowest : 0.0, t, out[0]);
    const std::vector<std::string> r = windowAxes(w, g);
    std::string axes;
    for (auto& a : r)
        axes += (axes.empty() ? "" : ", ") + a;
    const std::vector<std::int64_t> shape = outputIn(windowOutput(x[0], x[1], g), block);
    const std::string acc = max ? out[0] : w.fresh(out[0] + "_sum");
    w.compute(
        acc, shape,
        [&](const std::vector<std::string>& i) {
            std::string at = data + "[" + i[0] + ", " + i[1];
            for (std::size_t a = 0; a < g.rank(); ++a)
                at += ", " + tap(i[2 + a], g.s[a], r[a], g.d[a]);
            if (block > 0) at += ", " + i.back();
            return std::string(max ? "te.max(" : "te.sum(") + at + "], axis=[" + axes + "])";
        },
        acc);
    if (max) return;
    // The divisor: the window's elements inside the input (or the padding too), clipped.
    w.compute(
        out[0], shape,
        [&](const std::vector<std::string>& i) {
            std::string divisor;
            for (std::size_t a = 0; a < g.rank(); ++a) {
                const std::int64_t lo = includePad ? -g.p0[a] : 0,
                                   hi = includePad ? g.in[a] + g.p1[a] : g.in[a];
                const std::string start =
                    "(" + i[2 + a] + " * " + num(g.s[a]) + " - " + num(g.p0[a]) + ")";
                // A dilated window's taps inside [lo, hi): from the first at or past lo to the
                // last before hi.
                const std::string d = num(g.d[a]);
                divisor +=
                    (a ? " * " : "") +
                    (g.d[a] != 1 ? "(te.min(" + num(g.k[a]) + ", (" + num(hi - 1) + " - " + start +
                                       ") // " + d + " + 1) - te.max(0, (" + num(lo) + " - " +
                                       start + " + " + num(g.d[a] - 1) + ") // " + d + "))"
                                 : "(te.min(" + start + " + " + num(g.k[a]) + ", " + num(hi) +
                                       ") - te.max(" + start + ", " + num(lo) + "))");
            }
            return ScriptWriter::load(acc, i) + " / (" + divisor + ").astype(\"" + t.str() + "\")";
        },
        out[0]);
}

// ---- GlobalAveragePool, ReduceMean, ReduceSum ----

// A global pool may read data in blocks of channels (kInBlock: ConvertLayout), its output
// N x C x 1 x 1: the read-back into N x C x H x W is fused into the reduction.
std::vector<std::int64_t> reduceAxes(const OpContext& c)
{
    const std::vector<std::int64_t> x = plainInput(c);
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
    const std::vector<std::int64_t> x = plainInput(c);
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
    const DataBlocks blocks = dataBlocksOf(c);
    if (blocks.out > 0 || (blocks.in > 0 && c.node().op != "GlobalAveragePool"))
        c.fail("only a global pool reads data in blocks of channels, and writes N x C x 1 x 1");
    return {{c.input(0).dtype, reducedShape(c)}};
}

std::vector<HostBuffer> reduceEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const std::vector<std::int64_t> x = plainInput(c);
    const std::int64_t block = dataBlocksOf(c).in;
    const HostBuffer plain = block > 0 ? relayout(*in[0], x, block, 0) : HostBuffer();
    const HostBuffer& data = block > 0 ? plain : *in[0];
    const auto axes = reduceAxes(c);
    const auto shape = reducedShape(c);
    HostBuffer out = referenceBuffer(c.input(0).dtype, shape);
    std::vector<double> sums(static_cast<std::size_t>(out.elementCount()), 0.0);
    std::int64_t count = 1;
    for (auto a : axes)
        count *= x[static_cast<std::size_t>(a)];
    std::vector<std::int64_t> idx;
    for (std::int64_t i = 0; i < data.elementCount(); ++i) {
        unflatten(i, x, idx);
        std::int64_t flat = 0;
        for (std::size_t d = 0; d < x.size(); ++d) {
            const bool reduced =
                std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) != axes.end();
            if (reduced && !keepDims(c)) continue;
            flat = flat * (reduced ? 1 : x[d]) + (reduced ? 0 : idx[d]);
        }
        sums[static_cast<std::size_t>(flat)] += data.get(i);
    }
    const bool mean = c.node().op != "ReduceSum";
    for (std::int64_t i = 0; i < out.elementCount(); ++i)
        out.set(i, sums[static_cast<std::size_t>(i)] / (mean ? static_cast<double>(count) : 1.0));
    return {std::move(out)};
}

void reduceEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                const std::vector<std::string>& out)
{
    const std::vector<std::int64_t> x = plainInput(c);
    const std::int64_t block = dataBlocksOf(c).in;
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
            if (block > 0) { // channel c of the blocks: [n, c // B, ..., c % B]
                const std::string channel = idx[1];
                idx[1] = channel + " // " + num(block);
                idx.push_back(channel + " % " + num(block));
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
