// AlterConvWinograd: a 3x3 convolution of stride 1 whose output is in blocks of channels is also
// computed by Winograd's method (graph/Winograd.h), as Relay's AlterOpLayout makes
// conv2d_winograd with the weight transform folded into a constant: U = G g G^T for each pair of
// input and output channels, a x a x C x F, made once here. The convolution keeps its weights
// (the reference reads them) and gets U as input 3 and the tile size as kWinogradTile; its task
// script then holds both computations, the default running Winograd's.
//
// The tile, from ResNet-18's layers timed inside the whole model on Zen 5 (AVX-512, 2 threads;
// bench/results/winograd-tiles-*.txt): F(4x4, 3x3) where the output is at least 28 x 28 (its
// 6x6 input tiles overlap least, 2.8x faster than direct at 28 x 28 x 128), F(2x2, 3x3) from
// 14 x 14 (4 x 4 tiles there would waste a quarter of the work on the border), and below that
// the direct convolution: a 7 x 7 x 512 layer reads its weights for 49 pixels, and their
// transform is 1.8x (F(2x2)) to 4x (F(4x4)) larger, which no cache holds for the next layer.
// Narrow layers (under 32 channels in or out) stay direct too: their transforms cost more than
// the multiplications they save. `model tune` times the direct convolution against the
// default, so another machine's answer is found there.
#include "graph/Operators.h"
#include "graph/Passes.h"
#include "graph/Winograd.h"

#include <algorithm>

namespace loopscope {

namespace {

// The tile for an output of h x w, or 0 for the direct convolution: see above.
int winogradTileFor(std::int64_t h, std::int64_t w)
{
    const std::int64_t side = std::min(h, w);
    return side >= 28 ? 4 : side >= 14 ? 2 : 0;
}

bool eligible(const Graph& graph, const GraphNode& conv)
{
    if (conv.op != "Conv" || conv.has(kWinogradTile) || conv.inputs.size() < 2) return false;
    const GraphTensor* w = graph.find(conv.inputs[1]);
    const std::int64_t block = conv.intAttr(kWeightBlock, 0);
    if (!w || !w->isConstant() || block == 0 || w->shape.size() != 5 || w->shape[2] != 3 ||
        w->shape[3] != 3)
        return false;
    if (conv.intAttr(kOutBlock, 0) != block || conv.intAttr("group", 1) != 1 ||
        conv.stringAttr("auto_pad", "NOTSET") != "NOTSET")
        return false;
    auto all = [&](const char* attr, std::int64_t v, std::size_t n) {
        const auto values = conv.intsAttr(attr, std::vector<std::int64_t>(n, v));
        if (values.size() != n) return false;
        for (auto x : values)
            if (x != v) return false;
        return true;
    };
    return all("strides", 1, 2) && all("dilations", 1, 2) && all("pads", 1, 4) &&
           w->shape[1] >= 32 && w->shape[0] * block >= 32;
}

// U[e][n][c][f] = sum over ky, kx of G[e][ky] g[f][c][ky][kx] G[n][kx], from weights in blocks of
// output channels (F/B x C x 3 x 3 x B).
std::string addTransformedWeights(Graph& graph, const std::string& weights, int m)
{
    const WinogradTransform& t = *winogradTransform(m);
    const GraphTensor& w = graph.tensor(weights);
    const std::int64_t block = w.shape[4], c = w.shape[1], f = w.shape[0] * block;
    const std::int64_t a = t.a;
    auto u = std::make_shared<HostBuffer>(w.dtype, std::vector<std::int64_t>{a, a, c, f});
    const std::int64_t per = c * 9;
    for (std::int64_t fo = 0; fo < f; ++fo)
        for (std::int64_t ci = 0; ci < c; ++ci) {
            // G g, then (G g) G^T.
            double gg[6][3] = {};
            for (std::int64_t e = 0; e < a; ++e)
                for (int kx = 0; kx < 3; ++kx)
                    for (int ky = 0; ky < 3; ++ky)
                        gg[e][kx] +=
                            t.g[static_cast<std::size_t>(e)][static_cast<std::size_t>(ky)] *
                            w.constant->get(
                                blockedWeightOffset(fo, ci * 9 + ky * 3 + kx, per, block));
            for (std::int64_t e = 0; e < a; ++e)
                for (std::int64_t n = 0; n < a; ++n) {
                    double sum = 0;
                    for (int kx = 0; kx < 3; ++kx)
                        sum += gg[e][kx] *
                               t.g[static_cast<std::size_t>(n)][static_cast<std::size_t>(kx)];
                    u->set(((e * a + n) * c + ci) * f + fo, sum);
                }
        }
    return graph.addConstant(weights + ".winograd", std::move(u));
}

} // namespace

bool alterConvWinograd(Graph& graph)
{
    bool changed = false;
    for (GraphNode& conv : graph.nodes) {
        if (!eligible(graph, conv)) continue;
        const GraphTensor& out = graph.tensor(conv.outputs[0]);
        // N x F/B x H x W x B
        const int m = winogradTileFor(out.shape[2], out.shape[3]);
        if (m == 0) continue;
        const std::string u = addTransformedWeights(graph, conv.inputs[1], m);
        conv.inputs.resize(3);
        conv.inputs.push_back(u);
        conv.attributes[kWinogradTile].value = std::int64_t{m};
        changed = true;
    }
    return changed;
}

} // namespace loopscope
