// FoldConstants: a node whose inputs are all constant is evaluated once (by its reference
// semantics) and its outputs become constants of their declared types.
#include "graph/Operators.h"
#include "graph/Passes.h"

namespace loopscope {

bool foldConstants(Graph& graph)
{
    bool changed = false;
    std::vector<GraphNode> kept;
    for (GraphNode& n : graph.nodes) {
        const OpSpec* spec = findOperator(n.op);
        OpContext ctx(graph, n);
        bool constant = spec != nullptr;
        std::vector<const HostBuffer*> in;
        for (int i = 0; i < ctx.inputCount() && constant; ++i) {
            if (!ctx.hasInput(i)) {
                in.push_back(nullptr);
                continue;
            }
            constant = ctx.input(i).isConstant();
            in.push_back(ctx.input(i).constant.get());
        }
        if (!constant) {
            kept.push_back(std::move(n));
            continue;
        }
        std::vector<HostBuffer> values = spec->evaluate(ctx, in);
        for (std::size_t o = 0; o < n.outputs.size() && o < values.size(); ++o) {
            if (n.outputs[o].empty()) continue;
            GraphTensor& t = graph.tensor(n.outputs[o]);
            auto v = std::make_shared<HostBuffer>(t.dtype, t.shape);
            for (std::int64_t i = 0; i < v->elementCount(); ++i) {
                if (t.dtype.isFloat())
                    v->set(i, values[o].get(i));
                else
                    v->setInt(i, values[o].getInt(i));
            }
            t.constant = std::move(v);
        }
        changed = true;
    }
    graph.nodes = std::move(kept);
    if (changed) graph.removeUnusedTensors();
    return changed;
}

} // namespace loopscope
