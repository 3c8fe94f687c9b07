// Element-wise and broadcasting operators: activations, arithmetic with numpy broadcasting, Clip
// (attributes before opset 11, inputs from it), inference BatchNormalization, and the pass-through
// Identity and Dropout.
#include "graph/Operators.h"

#include <cmath>
#include <functional>

namespace loopscope {

namespace {

// ---- unary ----

struct Unary {
    const char* name;
    double (*f)(double);
    // The TE expression of one element.
    std::string (*te)(const std::string& x, DataType t);
};

double relu(double x)
{
    return x > 0 ? x : 0.0;
}
double sigmoid(double x)
{
    return 1.0 / (1.0 + std::exp(-x));
}
double neg(double x)
{
    return -x;
}
double reciprocal(double x)
{
    return 1.0 / x;
}
double erfOf(double x)
{
    return std::erf(x);
}
double sqrtOf(double x)
{
    return std::sqrt(x);
}
double expOf(double x)
{
    return std::exp(x);
}
double logOf(double x)
{
    return std::log(x);
}
double tanhOf(double x)
{
    return std::tanh(x);
}
double absOf(double x)
{
    return std::fabs(x);
}

// erf as Abramowitz and Stegun's 7.1.26 (absolute error below 1.5e-7, under float32's rounding
// of the results it feeds), built from what the TE subset has: exp, abs, a select for the sign.
std::string erfTe(const std::string& x, DataType t)
{
    auto c = [&](double v) { return ScriptWriter::constant(v, t); };
    const std::string ax = "te.abs(" + x + ")";
    const std::string tt =
        "(" + c(1.0) + " / (" + c(1.0) + " + " + c(0.3275911) + " * " + ax + "))";
    const std::string poly = "((((" + c(1.061405429) + " * " + tt + " + " + c(-1.453152027) +
                             ") * " + tt + " + " + c(1.421413741) + ") * " + tt + " + " +
                             c(-0.284496736) + ") * " + tt + " + " + c(0.254829592) + ") * " + tt;
    const std::string e =
        "(" + c(1.0) + " - " + poly + " * te.exp(" + c(0.0) + " - " + ax + " * " + ax + "))";
    // A select, not if_then_else: both sides are safe to compute, and a select vectorizes
    // (TVM's vectorizer keeps an if_then_else of a vector condition scalar).
    return "tvm.tir.Select(" + x + " < " + c(0.0) + ", " + c(0.0) + " - " + e + ", " + e + ")";
}

const Unary kUnary[] = {
    {"Relu", relu,
     [](const std::string& x, DataType t) {
         return "te.max(" + x + ", " + ScriptWriter::constant(0, t) + ")";
     }},
    {"Sigmoid", sigmoid, [](const std::string& x, DataType) { return "te.sigmoid(" + x + ")"; }},
    {"Tanh", tanhOf, [](const std::string& x, DataType) { return "te.tanh(" + x + ")"; }},
    {"Sqrt", sqrtOf, [](const std::string& x, DataType) { return "te.sqrt(" + x + ")"; }},
    {"Exp", expOf, [](const std::string& x, DataType) { return "te.exp(" + x + ")"; }},
    {"Log", logOf, [](const std::string& x, DataType) { return "te.log(" + x + ")"; }},
    {"Abs", absOf, [](const std::string& x, DataType) { return "te.abs(" + x + ")"; }},
    {"Neg", neg,
     [](const std::string& x, DataType t) { return ScriptWriter::constant(0, t) + " - " + x; }},
    {"Reciprocal", reciprocal,
     [](const std::string& x, DataType t) { return ScriptWriter::constant(1, t) + " / " + x; }},
    {"Erf", erfOf, erfTe},
};

const Unary& unaryOf(const OpContext& c)
{
    for (auto& u : kUnary)
        if (c.node().op == u.name) return u;
    c.fail("not a unary operator");
}

void requireFloat(const OpContext& c, int i)
{
    if (!c.input(i).dtype.isFloat())
        c.fail("input '" + c.input(i).name + "' is " + c.input(i).dtype.str() +
               "; Loopscope runs this operator on floating-point tensors");
}

std::vector<TensorType> sameAsInput(const OpContext& c)
{
    return {{c.input(0).dtype, c.shape(0)}};
}

std::vector<TensorType> unaryInfer(const OpContext& c)
{
    requireFloat(c, 0);
    return sameAsInput(c);
}

std::vector<HostBuffer> unaryEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const Unary& u = unaryOf(c);
    HostBuffer out = referenceBuffer(c.input(0).dtype, c.shape(0));
    for (std::int64_t i = 0; i < out.elementCount(); ++i)
        out.set(i, u.f(in[0]->get(i)));
    return {std::move(out)};
}

void unaryEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
               const std::vector<std::string>& out)
{
    const Unary& u = unaryOf(c);
    const DataType t = c.input(0).dtype;
    w.compute(
        out[0], c.shape(0),
        [&](const std::vector<std::string>& idx) {
            return u.te(ScriptWriter::load(in[0], idx), t);
        },
        out[0]);
}

// ---- binary, with broadcasting ----

struct Binary {
    const char* name;
    double (*f)(double, double);
    const char* te; // the operator between the two loads; "**" is Pow
};

const Binary kBinary[] = {
    {"Add", [](double a, double b) { return a + b; }, "+"},
    {"Sub", [](double a, double b) { return a - b; }, "-"},
    {"Mul", [](double a, double b) { return a * b; }, "*"},
    {"Div", [](double a, double b) { return a / b; }, "/"},
    {"Pow", [](double a, double b) { return std::pow(a, b); }, "**"},
};

const Binary& binaryOf(const OpContext& c)
{
    for (auto& b : kBinary)
        if (c.node().op == b.name) return b;
    c.fail("not a binary operator");
}

std::vector<TensorType> binaryInfer(const OpContext& c)
{
    // Integers add, subtract and multiply (wrapping as their type does); the rest is floating.
    const std::string& op = c.node().op;
    if (op != "Add" && op != "Sub" && op != "Mul") requireFloat(c, 0);
    const DataType t = c.input(0).dtype;
    if (!t.isFloat() && !t.isIntegral()) c.fail("input '" + c.input(0).name + "' is " + t.str());
    if (c.node().op != "Pow" && c.input(1).dtype != c.input(0).dtype)
        c.fail("inputs of types " + c.input(0).dtype.str() + " and " + c.input(1).dtype.str());
    return {{c.input(0).dtype, broadcastShapes(c.shape(0), c.shape(1), c)}};
}

std::vector<HostBuffer> binaryEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const Binary& op = binaryOf(c);
    const auto shape = broadcastShapes(c.shape(0), c.shape(1), c);
    HostBuffer out = referenceBuffer(c.input(0).dtype, shape);
    std::vector<std::int64_t> idx;
    for (std::int64_t i = 0; i < out.elementCount(); ++i) {
        unflatten(i, shape, idx);
        out.set(i, op.f(in[0]->get(broadcastFlat(idx, c.shape(0))),
                        in[1]->get(broadcastFlat(idx, c.shape(1)))));
    }
    return {std::move(out)};
}

// A scalar constant operand is written as a literal (x * 0.5), not read from a buffer.
std::string operand(const OpContext& c, int i, const std::string& var,
                    const std::vector<std::string>& idx, const std::vector<std::int64_t>& shape)
{
    const HostBuffer* k = c.constant(i);
    if (k && k->elementCount() == 1) return ScriptWriter::constant(k->get(0), c.input(0).dtype);
    return ScriptWriter::load(var, broadcastIndices(idx, shape, c.shape(i)));
}

void binaryEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                const std::vector<std::string>& out)
{
    const Binary& op = binaryOf(c);
    const auto shape = broadcastShapes(c.shape(0), c.shape(1), c);
    w.compute(
        out[0], shape,
        [&](const std::vector<std::string>& idx) {
            std::string a = operand(c, 0, in[0], idx, shape);
            std::string b = operand(c, 1, in[1], idx, shape);
            // x ** 2 is x * x: exact, and what a decomposed LayerNorm does most.
            const HostBuffer* k = c.constant(1);
            if (std::string(op.te) == "**" && k && k->elementCount() == 1 && k->get(0) == 2.0)
                return a + " * " + a;
            return a + " " + op.te + " " + b;
        },
        out[0]);
}

// ---- Clip: min and max as attributes before opset 11, as optional scalar inputs from it ----

std::vector<TensorType> clipInfer(const OpContext& c)
{
    requireFloat(c, 0);
    if (c.opset() >= 11)
        for (int i : {1, 2})
            if (c.hasInput(i) && c.input(i).elementCount() != 1)
                c.fail(std::string(i == 1 ? "min" : "max") + " must be a scalar");
    return sameAsInput(c);
}

// A bound: an attribute (before opset 11), a value of an input (constant or not), or none.
double clipBound(const OpContext& c, const std::vector<const HostBuffer*>& in, int i)
{
    const double none = i == 1 ? -INFINITY : INFINITY;
    if (c.opset() < 11) return c.node().floatAttr(i == 1 ? "min" : "max", none);
    return c.hasInput(i) && in[static_cast<std::size_t>(i)]
               ? in[static_cast<std::size_t>(i)]->get(0)
               : none;
}

std::vector<HostBuffer> clipEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const double lo = clipBound(c, in, 1), hi = clipBound(c, in, 2);
    HostBuffer out = referenceBuffer(c.input(0).dtype, c.shape(0));
    for (std::int64_t i = 0; i < out.elementCount(); ++i)
        out.set(i, std::min(std::max(in[0]->get(i), lo), hi));
    return {std::move(out)};
}

void clipEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
              const std::vector<std::string>& out)
{
    const DataType t = c.input(0).dtype;
    // A bound as script text: a literal when known now, the input's element when not.
    auto bound = [&](int i) -> std::string {
        if (c.opset() < 11) {
            const double v =
                c.node().floatAttr(i == 1 ? "min" : "max", i == 1 ? -INFINITY : INFINITY);
            return std::isfinite(v) ? ScriptWriter::constant(v, t) : std::string();
        }
        if (!c.hasInput(i)) return {};
        if (const HostBuffer* k = c.constant(i)) return ScriptWriter::constant(k->get(0), t);
        return ScriptWriter::load(in[static_cast<std::size_t>(i)], {});
    };
    const std::string lo = bound(1), hi = bound(2);
    w.compute(
        out[0], c.shape(0),
        [&](const std::vector<std::string>& idx) {
            std::string x = ScriptWriter::load(in[0], idx);
            if (!lo.empty()) x = "te.max(" + x + ", " + lo + ")";
            if (!hi.empty()) x = "te.min(" + x + ", " + hi + ")";
            return x;
        },
        out[0]);
}

// ---- BatchNormalization, inference: (x - mean) / sqrt(var + eps) * scale + bias per channel ----

std::vector<TensorType> batchNormInfer(const OpContext& c)
{
    requireFloat(c, 0);
    if (c.shape(0).size() < 2) c.fail("needs an input of rank 2 or more (N, C, ...)");
    const std::int64_t channels = c.shape(0)[1];
    for (int i = 1; i <= 4; ++i)
        if (c.input(i).elementCount() != channels)
            c.fail("input '" + c.input(i).name + "' has " +
                   std::to_string(c.input(i).elementCount()) + " values for " +
                   std::to_string(channels) + " channels");
    if (c.node().intAttr("training_mode", 0) != 0)
        c.fail("training mode is not supported (inference only)");
    return {{c.input(0).dtype, c.shape(0)}};
}

std::vector<HostBuffer> batchNormEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    const double eps = c.node().floatAttr("epsilon", 1e-5);
    const auto& shape = c.shape(0);
    HostBuffer out = referenceBuffer(c.input(0).dtype, shape);
    std::int64_t inner = 1;
    for (std::size_t d = 2; d < shape.size(); ++d)
        inner *= shape[d];
    for (std::int64_t i = 0; i < out.elementCount(); ++i) {
        const std::int64_t ch = (i / inner) % shape[1];
        const double scale = in[1]->get(ch) / std::sqrt(in[4]->get(ch) + eps);
        out.set(i, (in[0]->get(i) - in[3]->get(ch)) * scale + in[2]->get(ch));
    }
    return {std::move(out)};
}

void batchNormEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
                   const std::vector<std::string>& out)
{
    const DataType t = c.input(0).dtype;
    const std::string eps = ScriptWriter::constant(c.node().floatAttr("epsilon", 1e-5), t);
    w.compute(
        out[0], c.shape(0),
        [&](const std::vector<std::string>& idx) {
            const std::vector<std::string> ch{idx[1]};
            return "(" + ScriptWriter::load(in[0], idx) + " - " + ScriptWriter::load(in[3], ch) +
                   ") / te.sqrt(" + ScriptWriter::load(in[4], ch) + " + " + eps + ") * " +
                   ScriptWriter::load(in[1], ch) + " + " + ScriptWriter::load(in[2], ch);
        },
        out[0]);
}

// ---- pass-through: Identity, Dropout (inference) ----

std::vector<TensorType> passInfer(const OpContext& c)
{
    if (c.node().op == "Dropout") {
        bool training =
            c.opset() < 7 && c.node().intAttr("is_test", 0) == 0 && c.opset() > 0 && false;
        if (c.opset() >= 12 && c.hasInput(2)) {
            const HostBuffer* mode = c.constant(2);
            if (!mode) c.fail("training_mode must be a constant (inference: false)");
            training = mode->getInt(0) != 0;
        }
        if (training) c.fail("training mode is not supported (inference only)");
    }
    std::vector<TensorType> out{{c.input(0).dtype, c.shape(0)}};
    if (c.node().outputs.size() > 1) out.push_back({DataType::boolean(), c.shape(0)}); // the mask
    return out;
}

std::vector<HostBuffer> passEval(const OpContext& c, const std::vector<const HostBuffer*>& in)
{
    std::vector<HostBuffer> out{*in[0]};
    if (c.node().outputs.size() > 1) {
        HostBuffer mask(DataType::boolean(), c.shape(0));
        mask.fill(1);
        out.push_back(std::move(mask));
    }
    return out;
}

void passEmit(const OpContext& c, ScriptWriter& w, const std::vector<std::string>& in,
              const std::vector<std::string>& out)
{
    if (!out[0].empty())
        w.compute(
            out[0], c.shape(0),
            [&](const std::vector<std::string>& idx) { return ScriptWriter::load(in[0], idx); },
            out[0]);
    if (out.size() > 1 && !out[1].empty())
        w.compute(
            out[1], c.shape(0),
            [&](const std::vector<std::string>&) {
                return std::string("tvm.tir.const(1, \"bool\")");
            },
            out[1]);
}

} // namespace

void registerElementwiseOps(std::vector<OpSpec>& out)
{
    for (auto& u : kUnary)
        out.push_back({u.name, OpPattern::ElemWise, unaryInfer, unaryEval, unaryEmit});
    for (auto& b : kBinary)
        out.push_back({b.name, OpPattern::Broadcast, binaryInfer, binaryEval, binaryEmit});
    out.push_back({"Clip", OpPattern::ElemWise, clipInfer, clipEval, clipEmit});
    out.push_back(
        {"BatchNormalization", OpPattern::Broadcast, batchNormInfer, batchNormEval, batchNormEmit});
    out.push_back({"Identity", OpPattern::ElemWise, passInfer, passEval, passEmit, true});
    out.push_back({"Dropout", OpPattern::ElemWise, passInfer, passEval, passEmit, true});
}

} // namespace loopscope
