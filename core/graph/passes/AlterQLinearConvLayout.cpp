// AlterQLinearConvLayout: a QLinearConv's (and a QGemm's, packDense) constant int8 weights
// rearranged once into TOPI's int8 layout (F/L x C/4 x KH x KW x L x 4: blocks of L output channels
// by 4 input channels, L the lanes of the machine's int8 dot product), as Relay's AlterOpLayout
// makes x86's int8 conv2d conv2d_NCHWc_int8. The task then reads the data in blocks of 4 channels
// and computes each block of L output channels by 4 input channels as one dot product of TOPI's
// intrinsic (vpdpbusd with VNNI), which the default schedule tensorizes. The data's zero point
// moves into the bias: sum((x - zx) * w) = sum(x * w) - zx * sum(w), the padding then zx, as
// Relay's QNN canonicalization rewrites qnn.conv2d. Only uint8 data, int8 weights without zero
// points, one group, 2-D, and a constant zx; channels not by 4 and filters not by L are padded with
// zero weights (the bias, of the real filters, says how many there are). Depthwise convolutions
// keep their plain computation: in blocks of channels they would need the data in those blocks too
// (its transposition inside the task cost more than the blocks saved on MobileNetV2).
#include "graph/Operators.h"
#include "graph/Passes.h"
#include "tune/rules/Int8DotRule.h"

namespace loopscope {

namespace {

const DataType kU8{DataType::UInt, 8, 1};
const DataType kS8{DataType::Int, 8, 1};

bool allZero(const HostBuffer* b)
{
    if (!b) return false;
    for (std::int64_t i = 0; i < b->elementCount(); ++i)
        if (b->getInt(i) != 0) return false;
    return true;
}

} // namespace

std::int64_t int8DotLanesHere()
{
    // VNNI's vpdpbusd only: the fallback's pmaddubsw adds pairs of products into int16 with
    // saturation, which full-range uint8 data times int8 weights overflow (2 x 255 x 127), so a
    // quantized model's task would no longer compute its definition. Without VNNI the tasks keep
    // the plain int32 sums.
    if (!hostCpuFeatureNames().count("avx512vnni")) return 0;
    return Int8DotRule::intrinsicFor(16).empty() ? 0 : 16;
}

namespace {

// A QGemm's constant weights as TOPI's dense_int8 packs them (N/L x K/4 x L x 4), the data's zero
// point moved into the bias; only uint8 data whose K is a multiple of 4, weights without zero
// points.
bool packDense(Graph& graph, GraphNode& gemm, std::int64_t lanes)
{
    const GraphTensor* a = graph.find(gemm.inputs[0]);
    const GraphTensor* za = graph.find(gemm.inputs[2]);
    const GraphTensor* w = graph.find(gemm.inputs[3]);
    const GraphTensor* zw = graph.find(gemm.inputs[5]);
    if (!a || !za || !w || !zw || a->dtype != kU8 || w->dtype != kS8 || !w->isConstant() ||
        !za->isConstant() || za->elementCount() != 1 || !allZero(zw->constant.get()) ||
        a->shape.size() != 2 || w->shape.size() != 2 || a->shape[1] % 4 != 0)
        return false;
    const bool transposed = gemm.intAttr("transB", 0) != 0;
    const std::int64_t k = a->shape[1], n = transposed ? w->shape[0] : w->shape[1];
    if (n < lanes) return false; // as for a convolution's filters: no lanes left unread
    const HostBuffer* b = gemm.inputs.size() > 6 && !gemm.inputs[6].empty()
                              ? graph.tensor(gemm.inputs[6]).constant.get()
                              : nullptr;
    if (gemm.inputs.size() > 6 && !gemm.inputs[6].empty() && (!b || b->elementCount() != n))
        return false;
    const std::int64_t nl = (n + lanes - 1) / lanes;
    auto packed = std::make_shared<HostBuffer>(kS8, std::vector<std::int64_t>{nl, k / 4, lanes, 4});
    auto bias = std::make_shared<HostBuffer>(DataType::int32(), std::vector<std::int64_t>{n});
    const std::int64_t zero = za->constant->getInt(0);
    for (std::int64_t j = 0; j < n; ++j) {
        std::int64_t sum = 0;
        for (std::int64_t kk = 0; kk < k; ++kk) {
            const std::int64_t v = w->constant->getInt(transposed ? j * k + kk : kk * n + j);
            sum += v;
            packed->setInt((((j / lanes) * (k / 4) + kk / 4) * lanes + j % lanes) * 4 + kk % 4, v);
        }
        bias->setInt(j, (b ? b->getInt(j) : 0) - zero * sum);
    }
    gemm.inputs[3] = graph.addConstant(gemm.inputs[3] + ".int8_blocks", std::move(packed));
    gemm.inputs[6] = graph.addConstant(gemm.name + ".bias_less_zero_point", std::move(bias));
    gemm.attributes.erase("transB");
    gemm.attributes[kWeightBlock].value = lanes;
    return true;
}

} // namespace

bool alterQLinearConvLayout(Graph& graph)
{
    const std::int64_t lanes = int8DotLanesHere();
    if (lanes == 0) return false;
    bool changed = false;
    for (GraphNode& conv : graph.nodes) {
        if (conv.op == "QGemm" && !conv.has(kWeightBlock) && conv.inputs.size() >= 9) {
            changed = packDense(graph, conv, lanes) || changed;
            continue;
        }
        if (conv.op != "QLinearConv" || conv.has(kWeightBlock) || conv.inputs.size() < 8) continue;
        const GraphTensor* x = graph.find(conv.inputs[0]);
        const GraphTensor* w = graph.find(conv.inputs[3]);
        const GraphTensor* zx = graph.find(conv.inputs[2]);
        const GraphTensor* zw = graph.find(conv.inputs[5]);
        if (!x || !w || !zx || !zw || x->dtype != kU8 || w->dtype != kS8 || !w->isConstant() ||
            !zx->isConstant() || zx->elementCount() != 1 || !allZero(zw->constant.get()) ||
            w->shape.size() != 4 || conv.stringAttr("auto_pad", "NOTSET") != "NOTSET")
            continue;
        if (conv.intAttr("group", 1) != 1) continue;
        const std::int64_t f = w->shape[0], c = w->shape[1], kh = w->shape[2], kw = w->shape[3];
        // Fewer filters than lanes (a narrow network's 12) leave the block's last lanes unread:
        // bound inference then shrinks the sums to fewer lanes than the intrinsic computes.
        if (f < lanes) continue;
        // Channels in blocks of 4, the last block's missing ones (a first layer's 3) zero, and
        // filters in blocks of L, the last block's missing ones (MobileNet's 24) zero too.
        const std::int64_t c4 = (c + 3) / 4, fl = (f + lanes - 1) / lanes;
        auto packed =
            std::make_shared<HostBuffer>(kS8, std::vector<std::int64_t>{fl, c4, kh, kw, lanes, 4});
        std::vector<std::int64_t> sums(static_cast<std::size_t>(f), 0);
        for (std::int64_t o = 0; o < f; ++o)
            for (std::int64_t ic = 0; ic < c; ++ic)
                for (std::int64_t y = 0; y < kh; ++y)
                    for (std::int64_t xx = 0; xx < kw; ++xx) {
                        const std::int64_t v =
                            w->constant->getInt(((o * c + ic) * kh + y) * kw + xx);
                        sums[static_cast<std::size_t>(o)] += v;
                        packed->setInt(((((o / lanes) * c4 + ic / 4) * kh + y) * kw + xx) * lanes *
                                               4 +
                                           (o % lanes) * 4 + ic % 4,
                                       v);
                    }
        const std::int64_t zero = zx->constant->getInt(0);
        const HostBuffer* b = conv.inputs.size() > 8 && !conv.inputs[8].empty()
                                  ? graph.tensor(conv.inputs[8]).constant.get()
                                  : nullptr;
        if (conv.inputs.size() > 8 && !conv.inputs[8].empty() && !b) continue;
        auto bias = std::make_shared<HostBuffer>(DataType::int32(), std::vector<std::int64_t>{f});
        for (std::int64_t o = 0; o < f; ++o)
            bias->setInt(o, (b ? b->getInt(o) : 0) - zero * sums[static_cast<std::size_t>(o)]);
        conv.inputs[3] = graph.addConstant(conv.inputs[3] + ".int8_blocks", std::move(packed));
        conv.inputs.resize(9);
        conv.inputs[8] = graph.addConstant(conv.name + ".bias_less_zero_point", std::move(bias));
        conv.attributes[kWeightBlock].value = lanes;
        changed = true;
    }
    if (changed) graph.removeUnusedTensors();
    return changed;
}

} // namespace loopscope
