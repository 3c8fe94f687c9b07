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

// What both packings need of a QLinearConv or QGemm (the data at 0, its zero point at 2, the
// weights at 3, theirs at 5): uint8 data, constant int8 weights of `rank` without zero points,
// and the data's zero point known now.
struct Operands {
    const GraphTensor* data = nullptr;
    const GraphTensor* weights = nullptr;
    std::int64_t zero = 0;
};

bool packable(const Graph& graph, const GraphNode& node, std::size_t rank, Operands* o)
{
    const GraphTensor* x = graph.find(node.inputs[0]);
    const GraphTensor* zx = graph.find(node.inputs[2]);
    const GraphTensor* w = graph.find(node.inputs[3]);
    const GraphTensor* zw = graph.find(node.inputs[5]);
    if (!x || !zx || !w || !zw || x->dtype != kUInt8 || w->dtype != kInt8 || !w->isConstant() ||
        !zx->isConstant() || zx->elementCount() != 1 || !allZero(zw->constant.get()) ||
        w->shape.size() != rank)
        return false;
    *o = {x, w, zx->constant->getInt(0)};
    return true;
}

// The int32 bias at input `at` (none: zeros) less zx * sum(w) per output, `sums` the weights'
// sums; null where the bias is not a constant of one value per output.
std::shared_ptr<HostBuffer> biasLessZeroPoint(const Graph& graph, const GraphNode& node,
                                              std::size_t at, const std::vector<std::int64_t>& sums,
                                              std::int64_t zero)
{
    const auto n = static_cast<std::int64_t>(sums.size());
    const bool given = node.inputs.size() > at && !node.inputs[at].empty();
    const HostBuffer* b = given ? graph.tensor(node.inputs[at]).constant.get() : nullptr;
    if (given && (!b || b->elementCount() != n)) return nullptr;
    auto bias = std::make_shared<HostBuffer>(DataType::int32(), std::vector<std::int64_t>{n});
    for (std::int64_t j = 0; j < n; ++j)
        bias->setInt(j, (b ? b->getInt(j) : 0) - zero * sums[static_cast<std::size_t>(j)]);
    return bias;
}

// The packed weights and the bias in place of the node's (weights at 3, the bias at `biasAt`).
void install(Graph& graph, GraphNode& node, std::size_t biasAt, std::shared_ptr<HostBuffer> packed,
             std::shared_ptr<HostBuffer> bias, std::int64_t lanes)
{
    node.inputs[3] = graph.addConstant(node.inputs[3] + ".int8_blocks", std::move(packed));
    if (node.inputs.size() <= biasAt) node.inputs.resize(biasAt + 1);
    node.inputs[biasAt] = graph.addConstant(node.name + ".bias_less_zero_point", std::move(bias));
    node.attributes[kWeightBlock].value = lanes;
}

// A QGemm's constant weights as TOPI's dense_int8 packs them (N/L x K/4 x L x 4), the data's zero
// point moved into the bias; only data whose K is a multiple of 4.
bool packDense(Graph& graph, GraphNode& gemm, std::int64_t lanes)
{
    Operands o;
    if (!packable(graph, gemm, 2, &o) || o.data->shape.size() != 2 || o.data->shape[1] % 4 != 0)
        return false;
    const bool transposed = gemm.intAttr("transB", 0) != 0;
    const std::int64_t k = o.data->shape[1];
    const std::int64_t n = transposed ? o.weights->shape[0] : o.weights->shape[1];
    if (n < lanes) return false; // as for a convolution's filters: no lanes left unread
    auto packed = std::make_shared<HostBuffer>(
        kInt8, std::vector<std::int64_t>{(n + lanes - 1) / lanes, k / 4, lanes, 4});
    std::vector<std::int64_t> sums(static_cast<std::size_t>(n), 0);
    for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t kk = 0; kk < k; ++kk) {
            const std::int64_t v =
                o.weights->constant->getInt(transposed ? j * k + kk : kk * n + j);
            sums[static_cast<std::size_t>(j)] += v;
            packed->setInt((((j / lanes) * (k / 4) + kk / 4) * lanes + j % lanes) * 4 + kk % 4, v);
        }
    auto bias = biasLessZeroPoint(graph, gemm, 6, sums, o.zero);
    if (!bias) return false;
    install(graph, gemm, 6, std::move(packed), std::move(bias), lanes);
    gemm.attributes.erase("transB");
    return true;
}

// A QLinearConv's weights in TOPI's int8 blocks (above); one group, 2-D, pads given.
bool packConv(Graph& graph, GraphNode& conv, std::int64_t lanes)
{
    Operands o;
    if (!packable(graph, conv, 4, &o) || conv.stringAttr("auto_pad", "NOTSET") != "NOTSET" ||
        conv.intAttr("group", 1) != 1)
        return false;
    const GraphTensor& w = *o.weights;
    const std::int64_t f = w.shape[0], c = w.shape[1], kh = w.shape[2], kw = w.shape[3];
    // Fewer filters than lanes (a narrow network's 12) leave the block's last lanes unread:
    // bound inference then shrinks the sums to fewer lanes than the intrinsic computes.
    if (f < lanes) return false;
    // Channels in blocks of 4, the last block's missing ones (a first layer's 3) zero, and
    // filters in blocks of L, the last block's missing ones (MobileNet's 24) zero too.
    const std::int64_t c4 = (c + 3) / 4, fl = (f + lanes - 1) / lanes;
    auto packed =
        std::make_shared<HostBuffer>(kInt8, std::vector<std::int64_t>{fl, c4, kh, kw, lanes, 4});
    std::vector<std::int64_t> sums(static_cast<std::size_t>(f), 0);
    for (std::int64_t of = 0; of < f; ++of)
        for (std::int64_t ic = 0; ic < c; ++ic)
            for (std::int64_t y = 0; y < kh; ++y)
                for (std::int64_t x = 0; x < kw; ++x) {
                    const std::int64_t v = w.constant->getInt(((of * c + ic) * kh + y) * kw + x);
                    sums[static_cast<std::size_t>(of)] += v;
                    packed->setInt(((((of / lanes) * c4 + ic / 4) * kh + y) * kw + x) * lanes * 4 +
                                       (of % lanes) * 4 + ic % 4,
                                   v);
                }
    auto bias = biasLessZeroPoint(graph, conv, 8, sums, o.zero);
    if (!bias) return false;
    install(graph, conv, 8, std::move(packed), std::move(bias), lanes);
    return true;
}

} // namespace

bool alterQLinearConvLayout(Graph& graph)
{
    const std::int64_t lanes = int8DotLanesHere();
    if (lanes == 0) return false;
    bool changed = false;
    for (GraphNode& node : graph.nodes) {
        if (node.has(kWeightBlock)) continue;
        if (node.op == "QGemm" && node.inputs.size() >= 9)
            changed = packDense(graph, node, lanes) || changed;
        else if (node.op == "QLinearConv" && node.inputs.size() >= 8)
            changed = packConv(graph, node, lanes) || changed;
    }
    if (changed) graph.removeUnusedTensors();
    return changed;
}

} // namespace loopscope
