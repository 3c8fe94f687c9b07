// AlterConvLayout: a convolution's constant weights rearranged once, when the model is compiled,
// into blocks of 16 output channels (F/16 x C x KH x KW x 16; of 8 where 16 does not divide them,
// as MobileNet's 24), as Relay's AlterOpLayout does on
// x86 (conv2d becomes conv2d_NCHWc, the weights' layout_transform folded into a constant). A
// block's 16 output channels are then adjacent in memory, so a kernel loads them as one vector
// and computes 16 output channels at once, where the weights as ONNX has them put the channels
// C x KH x KW elements apart. Only convolutions of one group whose filters 8 divides and whose
// weights are a constant; ConvertLayout then keeps their output in those blocks.
#include "graph/Operators.h"
#include "graph/Passes.h"

namespace loopscope {

std::string addBlockedWeights(Graph& graph, const std::string& weights, std::int64_t block)
{
    const GraphTensor& w = graph.tensor(weights);
    const std::int64_t f = w.shape[0];
    const std::int64_t per = w.shape[1] * w.shape[2] * w.shape[3]; // C x KH x KW
    auto packed = std::make_shared<HostBuffer>(
        w.dtype, std::vector<std::int64_t>{f / block, w.shape[1], w.shape[2], w.shape[3], block});
    for (std::int64_t o = 0; o < f; ++o)
        for (std::int64_t k = 0; k < per; ++k)
            packed->set(blockedWeightOffset(o, k, per, block), w.constant->get(o * per + k));
    return graph.addConstant(weights + ".packed", std::move(packed));
}

bool alterConvLayout(Graph& graph)
{
    bool changed = false;
    for (GraphNode& conv : graph.nodes) {
        if (conv.op != "Conv" || conv.has(kWeightBlock) || conv.inputs.size() < 2) continue;
        const GraphTensor* w = graph.find(conv.inputs[1]);
        if (!w || !w->isConstant() || w->shape.size() != 4 || conv.intAttr("group", 1) != 1)
            continue;
        const std::int64_t block = w->shape[0] % 16 == 0 ? 16 : w->shape[0] % 8 == 0 ? 8 : 0;
        if (block == 0) continue;
        conv.inputs[1] = addBlockedWeights(graph, conv.inputs[1], block);
        conv.attributes[kWeightBlock].value = block;
        changed = true;
    }
    return changed;
}

} // namespace loopscope
