#include "graph/Quantize.h"

#include "graph/Interpreter.h"
#include "graph/ModelRun.h"
#include "graph/Operators.h"
#include "graph/Passes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

namespace loopscope {

namespace {

bool isOutput(const Graph& g, const std::string& t)
{
    return std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end();
}

bool isActivation(const Graph& g, const std::string& t)
{
    const GraphTensor* x = t.empty() ? nullptr : g.find(t);
    return x && !x->isConstant() && x->dtype == DataType::float32();
}

bool constantWeights(const Graph& g, const std::string& t, std::size_t rank)
{
    const GraphTensor* x = g.find(t);
    return x && x->isConstant() && x->dtype == DataType::float32() &&
           (rank == 0 ? x->shape.size() >= 3 : x->shape.size() == rank);
}

// Where an operator's output is quantized: after the Relu or Clip (ReLU6) that is its one
// reader, if any.
std::string endingOf(const Graph& g, const std::string& out)
{
    const auto readers = g.consumers(out);
    if (readers.size() != 1 || isOutput(g, out)) return out;
    const GraphNode& r = g.nodes[static_cast<std::size_t>(readers[0])];
    return r.op == "Relu" || r.op == "Clip" ? r.outputs[0] : out;
}

struct CalibrationRange {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    std::vector<float> values; // percentile: every value seen
};

struct QParams {
    float scale = 1;
    std::int64_t zero = 0;
};

// uint8, asymmetric, the range widened to hold zero (so that zero and a Relu are exact).
QParams uint8Params(double lo, double hi)
{
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
    QParams p;
    p.scale = static_cast<float>((hi - lo) / 255.0);
    if (!(p.scale > 0) || !std::isfinite(p.scale)) p.scale = 1;
    p.zero =
        std::clamp<std::int64_t>(static_cast<std::int64_t>(std::nearbyint(-lo / p.scale)), 0, 255);
    return p;
}

std::shared_ptr<HostBuffer> scalar(DataType t, double v)
{
    auto b = std::make_shared<HostBuffer>(t, std::vector<std::int64_t>{});
    if (t.isFloat())
        b->set(0, v);
    else
        b->setInt(0, static_cast<std::int64_t>(v));
    return b;
}

class Rewriter {
public:
    explicit Rewriter(Graph& g) : m_g(g) {}

    // A QuantizeLinear -> DequantizeLinear pair after `t`: the name of the dequantized copy.
    // `dq`: the copy's name where it is given (a model output keeps its name).
    std::string pair(const std::string& t, const QParams& p, std::vector<GraphNode>& into,
                     std::string dq = {})
    {
        const std::vector<std::int64_t> shape = m_g.tensor(t).shape;
        const std::string scale =
            m_g.addConstant(t + "_scale", scalar(DataType::float32(), p.scale));
        const std::string zero = m_g.addConstant(t + "_zero_point", scalar(kUInt8, p.zero));
        const std::string q = addTensor(t + "_quantized", kUInt8, shape);
        if (dq.empty()) dq = addTensor(t + "_dequantized", DataType::float32(), shape);
        into.push_back(node("QuantizeLinear", t + "_QuantizeLinear", {t, scale, zero}, q));
        into.push_back(node("DequantizeLinear", t + "_DequantizeLinear", {q, scale, zero}, dq));
        return dq;
    }

    // Constant weights as int8, symmetric, one scale per slice along `axis`; the name of their
    // dequantized copy, and the scales in `scales`.
    std::string weights(const std::string& t, std::int64_t axis, std::vector<float>* scales,
                        std::vector<GraphNode>& into)
    {
        const GraphTensor& w = m_g.tensor(t);
        const std::int64_t slices = w.shape[static_cast<std::size_t>(axis)];
        auto sliceOf = [&](std::int64_t i) {
            return sliceAlong(i, w.shape, static_cast<std::size_t>(axis));
        };
        std::vector<double> largest(static_cast<std::size_t>(slices), 0.0);
        for (std::int64_t i = 0; i < w.elementCount(); ++i) {
            double& m = largest[static_cast<std::size_t>(sliceOf(i))];
            m = std::max(m, std::fabs(w.constant->get(i)));
        }
        scales->clear();
        auto scale =
            std::make_shared<HostBuffer>(DataType::float32(), std::vector<std::int64_t>{slices});
        auto zero = std::make_shared<HostBuffer>(kInt8, std::vector<std::int64_t>{slices});
        for (std::int64_t s = 0; s < slices; ++s) {
            const double m = largest[static_cast<std::size_t>(s)];
            scales->push_back(m > 0 ? static_cast<float>(m / 127.0) : 1.0f);
            scale->set(s, static_cast<double>(scales->back()));
        }
        auto q = std::make_shared<HostBuffer>(kInt8, w.shape);
        for (std::int64_t i = 0; i < w.elementCount(); ++i) {
            const float s = (*scales)[static_cast<std::size_t>(sliceOf(i))];
            const double v =
                std::nearbyint(static_cast<double>(static_cast<float>(w.constant->get(i)) / s));
            q->setInt(i, static_cast<std::int64_t>(std::clamp(v, -127.0, 127.0)));
        }
        return dequantized(t, q, scale, zero, axis, into);
    }

    // A convolution's bias as int32 at the sums' scale, sx * sw[f].
    std::string bias(const std::string& t, float sx, const std::vector<float>& sw,
                     std::vector<GraphNode>& into)
    {
        const GraphTensor& b = m_g.tensor(t);
        const std::int64_t n = b.elementCount();
        auto scale =
            std::make_shared<HostBuffer>(DataType::float32(), std::vector<std::int64_t>{n});
        auto zero = std::make_shared<HostBuffer>(DataType::int32(), std::vector<std::int64_t>{n});
        auto q = std::make_shared<HostBuffer>(DataType::int32(), std::vector<std::int64_t>{n});
        for (std::int64_t f = 0; f < n; ++f) {
            const float s = sx * sw[static_cast<std::size_t>(sw.size() == 1 ? 0 : f)];
            scale->set(f, static_cast<double>(s));
            q->setInt(f, static_cast<std::int64_t>(std::nearbyint(b.constant->get(f) / s)));
        }
        return dequantized(t, q, scale, zero, 0, into);
    }

private:
    std::string dequantized(const std::string& t, std::shared_ptr<HostBuffer> q,
                            std::shared_ptr<HostBuffer> scale, std::shared_ptr<HostBuffer> zero,
                            std::int64_t axis, std::vector<GraphNode>& into)
    {
        const std::vector<std::int64_t> shape = m_g.tensor(t).shape;
        const std::string qn = m_g.addConstant(t + "_quantized", std::move(q));
        const std::string sn = m_g.addConstant(t + "_scale", std::move(scale));
        const std::string zn = m_g.addConstant(t + "_zero_point", std::move(zero));
        const std::string dq = addTensor(t + "_dequantized", DataType::float32(), shape);
        GraphNode n = node("DequantizeLinear", t + "_DequantizeLinear", {qn, sn, zn}, dq);
        n.attributes["axis"] = Attribute{axis};
        into.push_back(std::move(n));
        return dq;
    }

public:
    std::string addTensor(const std::string& base, DataType t, std::vector<std::int64_t> shape)
    {
        GraphTensor x;
        x.name = m_g.freshName(base);
        x.dtype = t;
        x.shape = std::move(shape);
        return m_g.add(std::move(x)).name;
    }

private:
    GraphNode node(const std::string& op, const std::string& name, std::vector<std::string> inputs,
                   const std::string& output)
    {
        GraphNode n;
        n.op = op;
        n.name = name;
        n.inputs = std::move(inputs);
        n.outputs = {output};
        return n;
    }

    Graph& m_g;
};

std::string rangeText(const std::string& t, double lo, double hi, const QParams& p)
{
    char buffer[256];
    std::snprintf(buffer, sizeof buffer, "%s: [%.6g, %.6g] scale %.6g zero point %lld", t.c_str(),
                  lo, hi, static_cast<double>(p.scale), static_cast<long long>(p.zero));
    return buffer;
}

} // namespace

QuantizeReport quantizeGraph(Graph& g, const QuantizeOptions& o)
{
    QuantizeReport report;
    // Batch norms into the convolutions, as ONNX Runtime's pre-processing does, so that a
    // convolution's output is the Relu's input.
    simplifyInference(g);
    foldConstants(g);
    foldScaleAxis(g);

    // The operators to quantize and the activations around them, in the graph's order.
    std::vector<std::size_t> ops;
    std::vector<std::string> activations;
    std::set<std::string> seen;
    auto activation = [&](const std::string& t) {
        if (seen.insert(t).second) activations.push_back(t);
    };
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        const GraphNode& n = g.nodes[i];
        if (n.outputs.size() != 1 || n.inputs.size() < 2) continue;
        bool quantized = false;
        if (n.op == "Conv")
            quantized =
                isActivation(g, n.inputs[0]) && constantWeights(g, n.inputs[1], 0) &&
                (n.inputs.size() < 3 || n.inputs[2].empty() || g.tensor(n.inputs[2]).isConstant());
        else if (n.op == "MatMul")
            quantized = isActivation(g, n.inputs[0]) && constantWeights(g, n.inputs[1], 2);
        else if (n.op == "Gemm")
            quantized =
                isActivation(g, n.inputs[0]) && constantWeights(g, n.inputs[1], 2) &&
                n.floatAttr("alpha", 1.0) == 1.0 && n.floatAttr("beta", 1.0) == 1.0 &&
                n.intAttr("transA", 0) == 0 &&
                (n.inputs.size() < 3 || n.inputs[2].empty() ||
                 (g.tensor(n.inputs[2]).isConstant() && g.tensor(n.inputs[2]).shape.size() == 1));
        else if (n.op == "Add")
            quantized = isActivation(g, n.inputs[0]) && isActivation(g, n.inputs[1]) &&
                        g.tensor(n.inputs[0]).shape == g.tensor(n.inputs[1]).shape;
        if (!quantized) continue;
        ops.push_back(i);
        activation(n.inputs[0]);
        if (n.op == "Add") activation(n.inputs[1]);
        activation(endingOf(g, n.outputs[0]));
    }
    report.operators = static_cast<int>(ops.size());
    if (ops.empty())
        throw GraphError("the model has no convolution, dense layer, matmul by constant "
                         "weights or add of two tensors to quantize");

    // Calibration: every input run through the reference, each activation's range kept.
    std::vector<std::map<std::string, HostBuffer>> samples = o.inputs;
    if (samples.empty())
        for (int s = 0; s < std::max(1, o.samples); ++s) {
            std::map<std::string, HostBuffer> in;
            for (auto& name : g.inputs) {
                const GraphTensor& t = g.tensor(name);
                HostBuffer b(t.dtype, t.shape);
                b.fillRandom(o.seed + static_cast<std::uint64_t>(s) * 7919 + in.size());
                in.emplace(name, std::move(b));
            }
            samples.push_back(std::move(in));
        }
    // The model compiled, every activation one of its outputs (so that fusion keeps it), runs
    // the samples in milliseconds; where it cannot compile, the reference runs them.
    Graph calibration = g;
    for (auto& t : activations)
        if (!isOutput(calibration, t)) calibration.outputs.push_back(t);
    optimizeGraph(calibration);
    std::string why;
    const auto compiled = CompiledModel::compile(calibration, {}, &why);
    std::map<std::string, CalibrationRange> ranges;
    for (const auto& in : samples) {
        std::map<std::string, HostBuffer> values;
        bool ran = compiled != nullptr;
        for (auto& [name, v] : in)
            ran = ran && compiled->setInput(name, v, &why);
        if (ran) {
            compiled->run();
            for (auto& t : activations)
                values.emplace(t, compiled->value(t));
        } else {
            values = interpret(g, in);
        }
        for (auto& t : activations) {
            CalibrationRange& r = ranges[t];
            const HostBuffer& v = values.at(t);
            for (std::int64_t i = 0; i < v.elementCount(); ++i) {
                const double x = v.get(i);
                r.lo = std::min(r.lo, x);
                r.hi = std::max(r.hi, x);
                if (o.percentile) r.values.push_back(static_cast<float>(x));
            }
        }
    }
    report.samples = static_cast<int>(samples.size());
    std::map<std::string, QParams> params;
    for (auto& t : activations) {
        CalibrationRange& r = ranges[t];
        double lo = r.lo, hi = r.hi;
        if (o.percentile && !r.values.empty()) {
            auto& v = r.values;
            const auto n = static_cast<double>(v.size() - 1);
            const auto upper = static_cast<std::size_t>(std::nearbyint(n * o.percent / 100.0));
            const auto lower =
                static_cast<std::size_t>(std::nearbyint(n * (1 - o.percent / 100.0)));
            std::nth_element(v.begin(), v.begin() + static_cast<long>(upper), v.end());
            hi = v[upper];
            std::nth_element(v.begin(), v.begin() + static_cast<long>(lower), v.end());
            lo = v[lower];
        }
        params[t] = uint8Params(lo, hi);
        // A max pool's output keeps its input's scale and zero point (as ONNX Runtime's
        // quantizer shares them), so that the pool runs on the quantized values.
        if (const int p = g.producer(t); p >= 0) {
            const GraphNode& n = g.nodes[static_cast<std::size_t>(p)];
            if (n.op == "MaxPool" && params.count(n.inputs[0])) params[t] = params[n.inputs[0]];
        }
        report.ranges.push_back(rangeText(t, lo, hi, params[t]));
    }

    // The pairs: after the node (or at the start, for the model's inputs) that computes each
    // activation; every reader then reads the dequantized copy. Weights and biases first.
    Rewriter rw(g);
    std::vector<GraphNode> head, nodes;
    std::map<std::string, std::string> dequantized;
    for (auto& t : activations)
        if (g.producer(t) < 0) dequantized[t] = rw.pair(t, params[t], head);
    const std::set<std::size_t> quantizedOps(ops.begin(), ops.end());
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        GraphNode n = g.nodes[i];
        if (quantizedOps.count(i) && n.op != "Add") {
            // One scale per output channel: a convolution's filters, a matmul's columns, a
            // dense layer's (axis 0 of weights it transposes).
            const bool conv = n.op == "Conv";
            const bool rows = conv || (n.op == "Gemm" && n.intAttr("transB", 0) != 0);
            std::vector<float> sw;
            n.inputs[1] = rw.weights(n.inputs[1], rows ? 0 : 1, &sw, head);
            ++report.weights;
            if (n.op != "MatMul" && n.inputs.size() > 2 && !n.inputs[2].empty())
                n.inputs[2] = rw.bias(n.inputs[2], params[n.inputs[0]].scale, sw, head);
        }
        for (auto& in : n.inputs)
            if (dequantized.count(in)) in = dequantized[in];
        // A model output stays float under its name: the node writes a copy the pair reads.
        std::vector<std::pair<std::string, std::string>> outputs;
        for (auto& out : n.outputs) {
            if (!params.count(out)) continue;
            if (!isOutput(g, out)) {
                outputs.emplace_back(out, "");
                continue;
            }
            const GraphTensor& t = g.tensor(out);
            const std::string copy = rw.addTensor(out + "_float", t.dtype, t.shape);
            outputs.emplace_back(copy, out);
            params[copy] = params[out];
            out = copy;
        }
        nodes.push_back(std::move(n));
        for (auto& [out, name] : outputs) {
            const std::string dq = rw.pair(out, params[out], nodes, name);
            if (name.empty()) dequantized[out] = dq;
        }
    }
    head.insert(head.end(), std::make_move_iterator(nodes.begin()),
                std::make_move_iterator(nodes.end()));
    g.nodes = std::move(head);
    report.activations = static_cast<int>(activations.size());
    g.opset = std::max<std::int64_t>(g.opset, 13); // per-axis DequantizeLinear
    g.removeUnusedTensors();
    return report;
}

} // namespace loopscope
