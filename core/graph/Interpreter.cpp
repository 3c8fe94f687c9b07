#include "graph/Interpreter.h"

#include "graph/Operators.h"

#include <cmath>
#include <sstream>

namespace loopscope {

std::map<std::string, HostBuffer> interpret(const Graph& graph,
                                            const std::map<std::string, HostBuffer>& inputs)
{
    std::map<std::string, HostBuffer> values;
    for (auto& [name, t] : graph.tensors())
        if (t.constant) {
            HostBuffer b = referenceBuffer(t.dtype, t.shape);
            for (std::int64_t i = 0; i < b.elementCount(); ++i) {
                if (t.dtype.isFloat())
                    b.set(i, t.constant->get(i));
                else
                    b.setInt(i, t.constant->getInt(i));
            }
            values.emplace(name, std::move(b));
        }
    for (auto& name : graph.inputs) {
        auto it = inputs.find(name);
        if (it == inputs.end()) throw GraphError("no value for input '" + name + "'");
        HostBuffer b = referenceBuffer(it->second.dtype(), it->second.shape());
        for (std::int64_t i = 0; i < b.elementCount(); ++i) {
            if (b.dtype().isFloat())
                b.set(i, it->second.get(i));
            else
                b.setInt(i, it->second.getInt(i));
        }
        values.insert_or_assign(name, std::move(b));
    }
    for (const GraphNode& n : graph.nodes) {
        const OpSpec* spec = findOperator(n.op);
        if (!spec) throw GraphError("no reference for operator " + n.op);
        OpContext ctx(graph, n);
        std::vector<const HostBuffer*> in;
        for (auto& i : n.inputs) {
            if (i.empty()) {
                in.push_back(nullptr);
                continue;
            }
            auto it = values.find(i);
            if (it == values.end())
                throw GraphError(ctx.where() + ": input '" + i + "' has no value yet");
            in.push_back(&it->second);
        }
        std::vector<HostBuffer> out = spec->evaluate(ctx, in);
        for (std::size_t o = 0; o < n.outputs.size() && o < out.size(); ++o)
            if (!n.outputs[o].empty()) values.insert_or_assign(n.outputs[o], std::move(out[o]));
    }
    return values;
}

Comparison compareTensors(const HostBuffer& actual, const HostBuffer& expected, double rtol,
                          double atol)
{
    Comparison c;
    if (actual.shape() != expected.shape()) {
        c.ok = false;
        c.first = "the shape is " + dimsText(actual.shape()) + " but expected " +
                  dimsText(expected.shape());
        return c;
    }
    c.elements = actual.elementCount();
    const bool integral = !actual.dtype().isFloat() && !expected.dtype().isFloat();
    std::vector<std::int64_t> idx;
    for (std::int64_t i = 0; i < c.elements; ++i) {
        bool bad;
        double a, e;
        if (integral) {
            a = static_cast<double>(actual.getInt(i));
            e = static_cast<double>(expected.getInt(i));
            bad = actual.getInt(i) != expected.getInt(i);
        } else {
            a = actual.get(i);
            e = expected.get(i);
            if (std::isnan(a) || std::isnan(e))
                bad = std::isnan(a) != std::isnan(e);
            else if (std::isinf(a) || std::isinf(e))
                bad = a != e;
            else
                bad = std::fabs(a - e) > atol + rtol * std::fabs(e);
        }
        if (std::isfinite(a) && std::isfinite(e)) {
            const double abs = std::fabs(a - e);
            c.maxAbsError = std::max(c.maxAbsError, abs);
            if (e != 0) c.maxRelError = std::max(c.maxRelError, abs / std::fabs(e));
        }
        if (!bad) continue;
        if (c.mismatches++ == 0) {
            unflatten(i, actual.shape(), idx);
            std::ostringstream s;
            s << "[";
            for (std::size_t d = 0; d < idx.size(); ++d)
                s << (d ? ", " : "") << idx[d];
            s << "]: " << a << " but expected " << e;
            c.first = s.str();
        }
    }
    c.ok = c.mismatches == 0;
    return c;
}

} // namespace loopscope
