// FoldScaleAxis: a convolution followed by a multiply by a per-output-channel constant has the
// constant folded into its weights (and bias), and an add of a per-channel constant folded into
// its bias, as Relay's FoldScaleAxis and FoldConstant do after SimplifyInference: Conv -> BN
// becomes one Conv. Only where the convolution's output has that one reader.
#include "graph/Operators.h"
#include "graph/Passes.h"

#include <algorithm>

namespace loopscope {

namespace {

// The per-channel values of a constant that broadcasts along axis 1 of a rank-4 tensor only.
bool perChannel(const GraphTensor* t, std::int64_t channels, std::vector<double>* values)
{
    if (!t || !t->isConstant() || t->shape.size() > 4 || t->elementCount() != channels)
        return false;
    std::vector<std::int64_t> s(4 - t->shape.size(), 1);
    s.insert(s.end(), t->shape.begin(), t->shape.end());
    if (s[0] != 1 || s[2] != 1 || s[3] != 1) return false;
    values->clear();
    for (std::int64_t i = 0; i < channels; ++i)
        values->push_back(t->constant->get(i));
    return true;
}

} // namespace

bool foldScaleAxis(Graph& graph)
{
    bool changed = false;
    for (bool again = true; again;) {
        again = false;
        for (std::size_t ci = 0; ci < graph.nodes.size() && !again; ++ci) {
            GraphNode& conv = graph.nodes[ci];
            if (conv.op != "Conv" || conv.outputs.size() != 1) continue;
            const std::string out = conv.outputs[0];
            const auto readers = graph.consumers(out);
            if (readers.size() != 1 ||
                std::find(graph.outputs.begin(), graph.outputs.end(), out) != graph.outputs.end())
                continue;
            GraphNode& next = graph.nodes[static_cast<std::size_t>(readers[0])];
            if (next.op != "Mul" && next.op != "Add") continue;
            const GraphTensor* w = graph.find(conv.inputs[1]);
            if (!w || !w->isConstant() || w->shape.size() != 4) continue;
            const std::int64_t f = w->shape[0];
            const std::string other = next.inputs[0] == out ? next.inputs[1] : next.inputs[0];
            std::vector<double> values;
            if (!perChannel(graph.find(other), f, &values)) continue;
            const bool hasBias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
            auto bias = std::make_shared<HostBuffer>(w->dtype, std::vector<std::int64_t>{f});
            if (hasBias)
                for (std::int64_t i = 0; i < f; ++i)
                    bias->set(i, graph.tensor(conv.inputs[2]).constant
                                     ? graph.tensor(conv.inputs[2]).constant->get(i)
                                     : 0.0);
            if (hasBias && !graph.tensor(conv.inputs[2]).isConstant()) continue;
            if (next.op == "Mul") {
                auto weights = std::make_shared<HostBuffer>(*w->constant);
                const std::int64_t per = weights->elementCount() / f;
                for (std::int64_t i = 0; i < weights->elementCount(); ++i)
                    weights->set(i, weights->get(i) * values[static_cast<std::size_t>(i / per)]);
                GraphTensor nw;
                nw.name = graph.freshName(conv.inputs[1] + ".scaled");
                nw.dtype = w->dtype;
                nw.shape = w->shape;
                nw.constant = weights;
                conv.inputs[1] = graph.add(std::move(nw)).name;
                for (std::int64_t i = 0; i < f; ++i)
                    bias->set(i, bias->get(i) * values[static_cast<std::size_t>(i)]);
            } else {
                for (std::int64_t i = 0; i < f; ++i)
                    bias->set(i, bias->get(i) + values[static_cast<std::size_t>(i)]);
            }
            if (hasBias || next.op == "Add") {
                GraphTensor nb;
                nb.name = graph.freshName(conv.name + ".bias");
                nb.dtype = w->dtype;
                nb.shape = {f};
                nb.constant = bias;
                const std::string bname = graph.add(std::move(nb)).name;
                if (conv.inputs.size() < 3) conv.inputs.resize(3);
                conv.inputs[2] = bname;
            }
            // The convolution now writes what the multiply or add wrote.
            conv.outputs[0] = next.outputs[0];
            graph.nodes.erase(graph.nodes.begin() + readers[0]);
            graph.remove(out);
            changed = again = true;
        }
    }
    if (changed) graph.removeUnusedTensors();
    return changed;
}

} // namespace loopscope
