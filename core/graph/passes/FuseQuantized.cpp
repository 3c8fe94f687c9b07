// FuseQuantized: a QDQ model's quantized operators made integer ones, as ONNX Runtime's QDQ
// transformers and Relay's QNN canonicalization do. DequantizeLinear of the data and of constant
// weights, then Conv (or MatMul, Gemm, Add), then QuantizeLinear, becomes one QLinearConv
// (QLinearMatMul, com.microsoft's QGemm and QLinearAdd) reading the quantized values: the sums are
// integer, and the requantization is the task's output stage. A Relu between the operator and its
// quantization (or a Clip, MobileNet's ReLU6) goes with it where the quantized range lies within
// its bounds (the saturation is then the Relu: a zero point at the type's smallest value). A float
// bias is quantized with the scale of the sums (sx * sw, zero point 0), as ONNX Runtime's quantizer
// writes it. A max pool between a DequantizeLinear and a QuantizeLinear of the same scale and
// zero point pools the quantized values. Runs first: FoldConstants would otherwise make the
// weights' DequantizeLinear float weights.
#include "graph/Operators.h"
#include "graph/Passes.h"

#include <algorithm>
#include <cmath>

namespace loopscope {

namespace {

// The DequantizeLinear node that computes `tensor`, or null.
const GraphNode* dequantizerOf(const Graph& g, const std::string& tensor)
{
    const int p = g.producer(tensor);
    if (p < 0) return nullptr;
    const GraphNode& n = g.nodes[static_cast<std::size_t>(p)];
    return n.op == "DequantizeLinear" && n.inputs.size() >= 2 ? &n : nullptr;
}

bool isOutput(const Graph& g, const std::string& tensor)
{
    return std::find(g.outputs.begin(), g.outputs.end(), tensor) != g.outputs.end();
}

// The one node reading `tensor` (null where there are more, none, or it is a model output).
int soleReader(const Graph& g, const std::string& tensor)
{
    const auto readers = g.consumers(tensor);
    return readers.size() == 1 && !isOutput(g, tensor) ? readers[0] : -1;
}

const HostBuffer* constantOf(const Graph& g, const std::string& tensor)
{
    const GraphTensor* t = tensor.empty() ? nullptr : g.find(tensor);
    return t ? t->constant.get() : nullptr;
}

// A scale and zero point that are one value each (the data's, the output's).
bool perTensor(const Graph& g, const GraphNode& q)
{
    const GraphTensor* s = g.find(q.inputs[1]);
    if (!s || s->elementCount() != 1) return false;
    return q.inputs.size() < 3 || q.inputs[2].empty() || g.tensor(q.inputs[2]).elementCount() == 1;
}

std::string input(const GraphNode& n, std::size_t i)
{
    return i < n.inputs.size() ? n.inputs[i] : std::string();
}

// The quantization that ends an operator's output: QuantizeLinear to uint8 or int8, per tensor,
// right after it or after a Relu it makes redundant; the nodes to remove with it.
struct Ending {
    const GraphNode* q = nullptr;
    std::vector<int> nodes; // the Relu (if any) and the QuantizeLinear
};

// The bounds a Relu or Clip keeps values in; false for another node or bounds not known now.
bool boundsOf(const Graph& g, const GraphNode& n, double* lo, double* hi)
{
    *lo = -INFINITY;
    *hi = INFINITY;
    if (n.op == "Relu") {
        *lo = 0;
        return true;
    }
    if (n.op != "Clip") return false;
    if (g.opset < 11) {
        *lo = n.floatAttr("min", *lo);
        *hi = n.floatAttr("max", *hi);
        return true;
    }
    for (int i : {1, 2}) {
        const std::string t = input(n, static_cast<std::size_t>(i));
        if (t.empty()) continue;
        const HostBuffer* b = constantOf(g, t);
        if (!b || b->elementCount() != 1) return false;
        (i == 1 ? *lo : *hi) = b->get(0);
    }
    return true;
}

Ending endingOf(const Graph& g, const std::string& out)
{
    Ending e;
    int r = soleReader(g, out);
    if (r < 0) return e;
    const GraphNode* n = &g.nodes[static_cast<std::size_t>(r)];
    double lo = -INFINITY, hi = INFINITY;
    const bool clamp = boundsOf(g, *n, &lo, &hi);
    if (clamp) {
        e.nodes.push_back(r);
        r = soleReader(g, n->outputs[0]);
        if (r < 0) return e;
        n = &g.nodes[static_cast<std::size_t>(r)];
    }
    if (n->op != "QuantizeLinear" || !perTensor(g, *n)) return e;
    const GraphTensor& y = g.tensor(n->outputs[0]);
    if (y.dtype != kUInt8 && y.dtype != kInt8) return e;
    if (clamp) {
        // A Relu or Clip is the saturation only where the quantized range lies within its
        // bounds (a Relu: the zero point is the type's smallest value).
        const HostBuffer* zp = constantOf(g, input(*n, 2));
        const HostBuffer* scale = constantOf(g, n->inputs[1]);
        if ((!input(*n, 2).empty() && !zp) || !scale) return e;
        const double z = zp ? static_cast<double>(zp->getInt(0)) : 0.0, s = scale->get(0);
        const double qmin = y.dtype == kUInt8 ? 0 : -128, qmax = y.dtype == kUInt8 ? 255 : 127;
        // (A range calibrated up to a Clip's bound has its top a rounding above it.)
        const double top = (qmax - z) * s, bottom = (qmin - z) * s;
        if (!(lo <= bottom + 1e-6 * std::fabs(bottom) && hi >= top - 1e-6 * std::fabs(top)))
            return e;
    }
    e.nodes.push_back(r);
    e.q = n;
    return e;
}

// A zero point's tensor, or a new constant of zeros of the type where the node has none.
std::string zeroPointOf(Graph& g, const GraphNode& dq, DataType t)
{
    if (!input(dq, 2).empty()) return dq.inputs[2];
    auto zero = std::make_shared<HostBuffer>(t, std::vector<std::int64_t>{});
    return g.addConstant(dq.name + ".zero_point", zero);
}

// A float bias quantized into int32 with the sums' scale sx * sw[f]; empty where it cannot be
// (not constant, or a scale that is not).
std::string quantizedBias(Graph& g, const std::string& bias, const std::string& sx,
                          const std::string& sw, std::int64_t filters)
{
    const GraphTensor* b = g.find(bias);
    const HostBuffer *x = constantOf(g, sx), *w = constantOf(g, sw);
    if (!b || !b->isConstant() || !x || !w || b->elementCount() != filters) return {};
    auto q = std::make_shared<HostBuffer>(DataType::int32(), std::vector<std::int64_t>{filters});
    for (std::int64_t f = 0; f < filters; ++f) {
        const float scale = static_cast<float>(x->get(0)) *
                            static_cast<float>(w->get(w->elementCount() == 1 ? 0 : f));
        q->setInt(f, static_cast<std::int64_t>(std::nearbyint(b->constant->get(f) / scale)));
    }
    return g.addConstant(bias + ".quantized", q);
}

// Replaces node `at` by `fused`, which writes what the ending's QuantizeLinear wrote, and drops
// the ending's nodes.
void replace(Graph& g, std::size_t at, GraphNode fused, const Ending& e)
{
    fused.outputs = {e.q->outputs[0]};
    g.nodes[at] = std::move(fused);
    std::vector<int> gone = e.nodes;
    std::sort(gone.rbegin(), gone.rend());
    for (int i : gone)
        g.nodes.erase(g.nodes.begin() + i);
}

// The same scale and zero point: constants of equal values.
bool sameParams(const Graph& g, const GraphNode& a, const GraphNode& b)
{
    for (std::size_t i : {1, 2}) {
        const HostBuffer *x = constantOf(g, input(a, i)), *y = constantOf(g, input(b, i));
        if (input(a, i).empty() != input(b, i).empty()) return false;
        if (input(a, i).empty()) continue;
        if (!x || !y || x->elementCount() != 1 || y->elementCount() != 1 || x->get(0) != y->get(0))
            return false;
    }
    return true;
}

// DequantizeLinear -> MaxPool -> QuantizeLinear of the same scale and zero point is the max pool
// of the quantized values (quantization keeps order), as ONNX Runtime drops such Q/DQ pairs.
bool fusePool(Graph& g, std::size_t at)
{
    GraphNode& pool = g.nodes[at];
    if (pool.op != "MaxPool" || pool.outputs.size() != 1 || pool.inputs.empty()) return false;
    const GraphNode* dq = dequantizerOf(g, pool.inputs[0]);
    const int r = soleReader(g, pool.outputs[0]);
    if (!dq || r < 0 || !perTensor(g, *dq)) return false;
    const GraphNode& q = g.nodes[static_cast<std::size_t>(r)];
    if (q.op != "QuantizeLinear" || !perTensor(g, q) || !sameParams(g, *dq, q) ||
        g.tensor(q.outputs[0]).dtype != g.tensor(dq->inputs[0]).dtype)
        return false;
    pool.inputs[0] = dq->inputs[0];
    pool.outputs[0] = q.outputs[0];
    g.nodes.erase(g.nodes.begin() + r);
    return true;
}

bool fuseOne(Graph& g, std::size_t at)
{
    if (fusePool(g, at)) return true;
    const GraphNode& op = g.nodes[at];
    const bool conv = op.op == "Conv", matmul = op.op == "MatMul", add = op.op == "Add";
    // A dense layer as QGemm: alpha 1, A as it is, the bias (if any) added once.
    const bool gemm = op.op == "Gemm" && op.floatAttr("alpha", 1.0) == 1.0 &&
                      op.intAttr("transA", 0) == 0 &&
                      (input(op, 2).empty() || op.floatAttr("beta", 1.0) == 1.0);
    if ((!conv && !matmul && !add && !gemm) || op.inputs.size() < 2 || op.outputs.size() != 1)
        return false;
    const GraphNode* da = dequantizerOf(g, op.inputs[0]);
    const GraphNode* db = dequantizerOf(g, op.inputs[1]);
    if (!da || !db || !perTensor(g, *da)) return false;
    const GraphTensor &a = g.tensor(da->inputs[0]), &b = g.tensor(db->inputs[0]);
    if ((a.dtype != kUInt8 && a.dtype != kInt8) || (b.dtype != kUInt8 && b.dtype != kInt8))
        return false;
    const Ending e = endingOf(g, op.outputs[0]);
    if (!e.q) return false;
    const GraphTensor& bScale = g.tensor(db->inputs[1]);
    if (bScale.elementCount() != 1) {
        // Per axis: a convolution's filters (axis 0), a matmul's columns (the last axis), a
        // dense layer's output columns (axis 0 of weights it transposes).
        const std::int64_t axis = db->intAttr("axis", 1);
        const std::int64_t want = conv || (gemm && op.intAttr("transB", 0))
                                      ? 0
                                      : static_cast<std::int64_t>(b.shape.size()) - 1;
        if (add || (axis != want && axis != want - static_cast<std::int64_t>(b.shape.size())))
            return false;
    } else if (!perTensor(g, *db)) {
        return false;
    }
    if (conv && a.dtype == kInt8 && b.dtype == kUInt8) return false;

    // A convolution's bias as int32 at the sums' scale (first: nothing is added to the graph
    // where it cannot be).
    std::string qb;
    if ((conv || gemm) && !input(op, 2).empty()) {
        const std::string bias = op.inputs[2];
        const std::int64_t outputs =
            conv || op.intAttr("transB", 0) ? b.shape[0] : b.shape[b.shape.size() - 1];
        if (const GraphNode* dbias = dequantizerOf(g, bias))
            qb = g.tensor(dbias->inputs[0]).dtype == DataType::int32() ? dbias->inputs[0] : "";
        else
            qb = quantizedBias(g, bias, da->inputs[1], db->inputs[1], outputs);
        if (qb.empty()) return false;
    }
    GraphNode fused;
    fused.name = op.name;
    fused.attributes = op.attributes;
    const std::string za = zeroPointOf(g, *da, a.dtype), zb = zeroPointOf(g, *db, b.dtype);
    const std::string zy = input(*e.q, 2).empty() ? zeroPointOf(g, *e.q, kUInt8) : e.q->inputs[2];
    fused.inputs = {
        da->inputs[0], da->inputs[1], za, db->inputs[0], db->inputs[1], zb, e.q->inputs[1], zy};
    if (conv) {
        fused.op = "QLinearConv";
        if (!qb.empty()) fused.inputs.push_back(qb);
    } else if (matmul) {
        fused.op = "QLinearMatMul";
    } else if (gemm) {
        // com.microsoft's QGemm: A, its scale and zero point, B, its, the bias, then Y's.
        fused.op = "QGemm";
        fused.domain = "com.microsoft";
        fused.inputs.insert(fused.inputs.begin() + 6, qb);
        fused.attributes.erase("beta");
    } else {
        fused.op = "QLinearAdd";
        fused.domain = "com.microsoft";
    }
    replace(g, at, std::move(fused), e);
    return true;
}

// Drops nodes none of whose outputs is read or is a model output (the DequantizeLinear nodes
// the fused operators no longer read).
void removeDeadNodes(Graph& g)
{
    for (bool again = true; again;) {
        again = false;
        for (std::size_t i = g.nodes.size(); i-- > 0;) {
            bool used = false;
            for (auto& o : g.nodes[i].outputs)
                used = used || isOutput(g, o) || !g.consumers(o).empty();
            if (used) continue;
            g.nodes.erase(g.nodes.begin() + static_cast<long>(i));
            again = true;
        }
    }
}

} // namespace

bool fuseQuantized(Graph& graph)
{
    bool changed = false;
    for (std::size_t i = 0; i < graph.nodes.size(); ++i)
        changed = fuseOne(graph, i) || changed;
    if (!changed) return false;
    removeDeadNodes(graph);
    graph.removeUnusedTensors();
    return true;
}

} // namespace loopscope
