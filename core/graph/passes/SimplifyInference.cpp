// SimplifyInference: BatchNormalization with constant parameters becomes x * scale + shift
// (scale = gamma / sqrt(var + eps), shift = beta - mean * scale, per channel, shaped to broadcast
// over the spatial axes), as Relay's simplify_inference.cc; Identity and inference Dropout are
// removed (their readers read the input), unless their output is the graph's.
#include "graph/Operators.h"
#include "graph/Passes.h"

#include <algorithm>
#include <cmath>

namespace loopscope {

namespace {

void rename(Graph& g, const std::string& from, const std::string& to)
{
    for (GraphNode& n : g.nodes)
        for (auto& in : n.inputs)
            if (in == from) in = to;
}

} // namespace

bool simplifyInference(Graph& graph)
{
    bool changed = false;
    std::vector<GraphNode> out;
    for (GraphNode& n : graph.nodes) {
        if ((n.op == "Identity" || (n.op == "Dropout" && n.outputs.size() == 1)) &&
            std::find(graph.outputs.begin(), graph.outputs.end(), n.outputs[0]) ==
                graph.outputs.end()) {
            rename(graph, n.outputs[0], n.inputs[0]);
            changed = true;
            continue;
        }
        if (n.op != "BatchNormalization" || n.outputs.size() != 1) {
            out.push_back(std::move(n));
            continue;
        }
        const GraphTensor& x = graph.tensor(n.inputs[0]);
        const GraphTensor* params[4];
        bool constant = true;
        for (int i = 0; i < 4; ++i) {
            params[i] = graph.find(n.inputs[static_cast<std::size_t>(i) + 1]);
            constant = constant && params[i] && params[i]->isConstant();
        }
        if (!constant || x.shape.size() < 2) {
            out.push_back(std::move(n));
            continue;
        }
        const double eps = n.floatAttr("epsilon", 1e-5);
        const std::int64_t channels = x.shape[1];
        std::vector<std::int64_t> shape{channels};
        for (std::size_t d = 2; d < x.shape.size(); ++d)
            shape.push_back(1);
        auto scale = std::make_shared<HostBuffer>(x.dtype, shape);
        auto shift = std::make_shared<HostBuffer>(x.dtype, shape);
        for (std::int64_t c = 0; c < channels; ++c) {
            const double s =
                params[0]->constant->get(c) / std::sqrt(params[3]->constant->get(c) + eps);
            scale->set(c, s);
            shift->set(c, params[1]->constant->get(c) - params[2]->constant->get(c) * s);
        }
        auto constantTensor = [&](const std::string& base, std::shared_ptr<HostBuffer> value) {
            GraphTensor t;
            t.name = graph.freshName(base);
            t.dtype = x.dtype;
            t.shape = shape;
            t.constant = std::move(value);
            return graph.add(std::move(t)).name;
        };
        const std::string sName = constantTensor(n.name + ".scale", scale);
        const std::string bName = constantTensor(n.name + ".shift", shift);
        GraphTensor scaled;
        scaled.name = graph.freshName(n.name + ".scaled");
        scaled.dtype = x.dtype;
        scaled.shape = x.shape;
        const std::string scaledName = graph.add(std::move(scaled)).name;
        GraphNode mul;
        mul.name = n.name + ".mul";
        mul.op = "Mul";
        mul.inputs = {n.inputs[0], sName};
        mul.outputs = {scaledName};
        GraphNode add;
        add.name = n.name + ".add";
        add.op = "Add";
        add.inputs = {scaledName, bName};
        add.outputs = {n.outputs[0]};
        out.push_back(std::move(mul));
        out.push_back(std::move(add));
        changed = true;
    }
    graph.nodes = std::move(out);
    if (changed) graph.removeUnusedTensors();
    return changed;
}

} // namespace loopscope
