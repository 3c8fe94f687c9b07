// AlterDenseLayout: the constant weights of a Gemm or a 2-D MatMul rearranged once, when the
// model is compiled, into panels of 16 output columns (N/16 x K x 16; of 8 where 16 does not
// divide N), as Relay's AlterOpLayout makes x86's dense_pack. A panel's 16 columns of one row
// are then adjacent, and the rows of a panel follow each other: a kernel that computes 16
// columns at once loads each row's weights as one vector and walks the panel as one stream.
// Weights given transposed (Gemm's transB=1, as PyTorch's Linear exports them) would otherwise
// put neighbouring columns K elements apart, so a vector of them is a gather.
#include "graph/Operators.h"
#include "graph/Passes.h"

namespace loopscope {

namespace {

// The weights `name` (K x N, or N x K when transposed) as a new constant in panels of `block`
// columns; its name.
std::string addPanelledWeights(Graph& graph, const std::string& name, bool transposed,
                               std::int64_t block)
{
    const GraphTensor& w = graph.tensor(name);
    const std::int64_t k = transposed ? w.shape[1] : w.shape[0];
    const std::int64_t n = transposed ? w.shape[0] : w.shape[1];
    auto packed =
        std::make_shared<HostBuffer>(w.dtype, std::vector<std::int64_t>{n / block, k, block});
    for (std::int64_t r = 0; r < k; ++r)
        for (std::int64_t c = 0; c < n; ++c)
            packed->set(blockedWeightOffset(c, r, k, block),
                        w.constant->get(transposed ? c * k + r : r * n + c));
    return graph.addConstant(name + ".packed", std::move(packed));
}

} // namespace

bool alterDenseLayout(Graph& graph)
{
    bool changed = false;
    for (GraphNode& node : graph.nodes) {
        if ((node.op != "Gemm" && node.op != "MatMul") || node.has(kWeightBlock) ||
            node.inputs.size() < 2)
            continue;
        const GraphTensor* a = graph.find(node.inputs[0]);
        const GraphTensor* w = graph.find(node.inputs[1]);
        if (!a || !w || !w->isConstant() || w->shape.size() != 2 || a->shape.size() < 2 ||
            !w->dtype.isFloat())
            continue;
        const bool transposed = node.op == "Gemm" && node.intAttr("transB", 0) != 0;
        const std::int64_t n = transposed ? w->shape[0] : w->shape[1];
        const std::int64_t block = n % 16 == 0 ? 16 : n % 8 == 0 ? 8 : 0;
        if (block == 0) continue;
        node.inputs[1] = addPanelledWeights(graph, node.inputs[1], transposed, block);
        node.attributes[kWeightBlock].value = block;
        changed = true;
    }
    return changed;
}

} // namespace loopscope
