#include "graph/Passes.h"

#include <sstream>
#include <variant>

namespace loopscope {

std::string graphText(const Graph& graph)
{
    std::ostringstream out;
    for (auto& name : graph.inputs)
        out << "input " << name << ": " << graph.tensor(name).dtype.str() << " "
            << dimsText(graph.tensor(name).shape) << "\n";
    for (const GraphNode& n : graph.nodes) {
        for (std::size_t i = 0; i < n.outputs.size(); ++i)
            out << (i ? ", " : "") << n.outputs[i];
        out << " = " << n.op << "(";
        for (std::size_t i = 0; i < n.inputs.size(); ++i) {
            const GraphTensor* t = graph.find(n.inputs[i]);
            out << (i ? ", " : "") << n.inputs[i];
            if (t && t->isConstant()) out << "[" << dimsText(t->shape) << "]";
        }
        out << ")";
        for (auto& [k, a] : n.attributes) {
            out << " " << k << "=";
            if (auto* v = std::get_if<std::int64_t>(&a.value))
                out << *v;
            else if (auto* d = std::get_if<double>(&a.value))
                out << *d;
            else if (auto* s = std::get_if<std::string>(&a.value))
                out << *s;
            else if (auto* l = std::get_if<std::vector<std::int64_t>>(&a.value)) {
                for (std::size_t i = 0; i < l->size(); ++i)
                    out << (i ? "," : "") << (*l)[i];
            } else {
                out << "...";
            }
        }
        out << "\n";
    }
    for (auto& name : graph.outputs)
        out << "output " << name << "\n";
    return out.str();
}

void optimizeGraph(Graph& graph, std::vector<GraphSnapshot>* log)
{
    auto run = [&](const char* name, bool (*pass)(Graph&)) {
        const bool changed = pass(graph);
        if (log)
            log->push_back({name, graphText(graph), static_cast<int>(graph.nodes.size()), changed});
    };
    // SimplifyInference makes BatchNormalization's scale and shift, which FoldConstants turns
    // into values FoldScaleAxis can push into the convolution before it.
    // First: FoldConstants would make the weights' DequantizeLinear float weights.
    run("FuseQuantized", fuseQuantized);
    run("SimplifyInference", simplifyInference);
    run("FoldConstants", foldConstants);
    run("FoldScaleAxis", foldScaleAxis);
    run("AlterConvLayout", alterConvLayout);
    run("AlterDenseLayout", alterDenseLayout);
    run("AlterQLinearConvLayout", alterQLinearConvLayout);
    run("ConvertLayout", convertLayout);
    run("AlterConvWinograd", alterConvWinograd);
    graph.removeUnusedTensors();
}

} // namespace loopscope
