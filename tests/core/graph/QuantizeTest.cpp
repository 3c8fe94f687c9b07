// Quantized models: `model quantize`'s QDQ form of a float model (batch norms folded, int8
// weights per channel, int32 biases, calibrated uint8 activations), written and read back as
// ONNX; FuseQuantized making its Q/DQ groups integer operators; and the compiled integer tasks
// against the reference, and against the float model within the quantization's error.
#include "graph/Quantize.h"
#include "graph/FuseOps.h"
#include "graph/Interpreter.h"
#include "graph/ModelMaker.h"
#include "graph/ModelRun.h"
#include "graph/OnnxImport.h"
#include "graph/Operators.h"
#include "graph/Passes.h"
#include "graph/Task.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <unistd.h>

using namespace loopscope;

namespace {

Graph imported(const std::string& bytes)
{
    ImportResult r = importOnnxBytes(bytes, "");
    EXPECT_TRUE(r.ok) << r.error;
    return r.graph;
}

int count(const Graph& g, const std::string& op)
{
    int n = 0;
    for (auto& node : g.nodes)
        n += node.op == op;
    return n;
}

std::map<std::string, HostBuffer> inputsOf(const Graph& g, std::uint64_t seed)
{
    std::map<std::string, HostBuffer> in;
    for (auto& name : g.inputs) {
        const GraphTensor& t = g.tensor(name);
        HostBuffer b(t.dtype, t.shape);
        b.fillRandom(seed);
        in[name] = std::move(b);
    }
    return in;
}

// The model quantized, written as ONNX and read back.
Graph quantizedThroughOnnx(const std::string& floatBytes, QuantizeReport* report)
{
    Graph g = imported(floatBytes);
    *report = quantizeGraph(g, {});
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("loopscope-quantize-" + std::to_string(getpid()) + ".onnx"))
                                 .string();
    std::string why;
    EXPECT_TRUE(writeOnnxModel(g, path, &why)) << why;
    ImportResult r = importOnnx(path);
    std::filesystem::remove(path);
    EXPECT_TRUE(r.ok) << r.error;
    return r.graph;
}

} // namespace

TEST(Quantize, AResidualBlockBecomesQdqAndThenIntegerTasks)
{
    const std::string bytes = makeModelBytes("resnet-block", 3);
    QuantizeReport report;
    Graph qdq = quantizedThroughOnnx(bytes, &report);
    // Two convolutions (their batch norms folded) and the residual add.
    EXPECT_EQ(report.operators, 3);
    EXPECT_EQ(report.weights, 2);
    EXPECT_EQ(count(qdq, "BatchNormalization"), 0);
    EXPECT_EQ(count(qdq, "Conv"), 2);
    EXPECT_GE(count(qdq, "QuantizeLinear"), 4);
    EXPECT_EQ(qdq.opset, 14);
    for (auto& node : qdq.nodes)
        if (node.op == "DequantizeLinear" && qdq.tensor(node.inputs[0]).isConstant() &&
            qdq.tensor(node.inputs[0]).dtype == DataType{DataType::Int, 8, 1}) {
            // Weights: int8, one scale per filter along axis 0.
            EXPECT_EQ(node.intAttr("axis", 1), 0) << node.name;
            EXPECT_EQ(qdq.tensor(node.inputs[1]).elementCount(), 16) << node.name;
        }

    Graph fused = qdq;
    optimizeGraph(fused);
    EXPECT_EQ(count(fused, "QLinearConv"), 2);
    EXPECT_EQ(count(fused, "QLinearAdd"), 1);
    EXPECT_EQ(count(fused, "Conv"), 0);
    EXPECT_EQ(count(fused, "Relu"), 0) << graphText(fused); // the saturation is the Relu
    EXPECT_EQ(count(fused, "DequantizeLinear"), 1);         // the output's

    // The integer tasks against the reference of the fused graph, exactly as it computes them,
    // and the model's output near the float model's.
    std::string why;
    auto model = CompiledModel::compile(fused, {}, &why);
    ASSERT_NE(model, nullptr) << why;
    const auto in = inputsOf(fused, 9);
    for (auto& [name, value] : in)
        ASSERT_TRUE(model->setInput(name, value, &why)) << why;
    model->run();
    const auto reference = interpret(fused, in);
    const std::string out = fused.outputs[0];
    const Comparison exact = compareTensors(model->value(out), reference.at(out), 0, 1e-6);
    EXPECT_TRUE(exact.ok) << exact.first << " (" << exact.mismatches << " of " << exact.elements
                          << ")";
    Graph floating = imported(bytes);
    const auto expected = interpret(floating, in).at(floating.outputs[0]);
    double largest = 0;
    for (std::int64_t i = 0; i < expected.elementCount(); ++i)
        largest = std::max(largest, std::fabs(expected.get(i)));
    // Inputs other than the calibration's may leave its ranges and saturate: nearly all
    // elements within 5% of the largest value.
    const Comparison close = compareTensors(model->value(out), expected, 0, 0.05 * largest);
    EXPECT_LE(close.mismatches * 100, close.elements)
        << close.first << " (" << close.mismatches << " of " << close.elements
        << "), largest |value| " << largest;
}

TEST(Quantize, PercentileCalibrationNarrowsTheRanges)
{
    Graph a = imported(makeModelBytes("resnet-block", 3)), b = a;
    QuantizeOptions minmax, percentile;
    percentile.percentile = true;
    percentile.percent = 99.0;
    const QuantizeReport ra = quantizeGraph(a, minmax), rb = quantizeGraph(b, percentile);
    ASSERT_EQ(ra.ranges.size(), rb.ranges.size());
    // The scales: percentile's are no larger, and some smaller.
    int smaller = 0;
    for (auto& node : a.nodes) {
        if (node.op != "QuantizeLinear") continue;
        const GraphNode* other = nullptr;
        for (auto& m : b.nodes)
            if (m.name == node.name) other = &m;
        ASSERT_NE(other, nullptr) << node.name;
        const double sa = a.tensor(node.inputs[1]).constant->get(0);
        const double sb = b.tensor(other->inputs[1]).constant->get(0);
        EXPECT_LE(sb, sa * (1 + 1e-6)) << node.name;
        smaller += sb < sa * 0.999;
    }
    EXPECT_GT(smaller, 0);
}

TEST(Quantize, AModelWithNothingToQuantizeIsAnError)
{
    Graph g;
    g.opset = 13;
    for (const char* name : {"x", "y"}) {
        GraphTensor t;
        t.name = name;
        t.shape = {2, 3};
        g.add(t);
    }
    g.inputs = {"x"};
    g.outputs = {"y"};
    GraphNode relu;
    relu.op = "Relu";
    relu.name = "relu";
    relu.inputs = {"x"};
    relu.outputs = {"y"};
    g.nodes.push_back(relu);
    EXPECT_THROW(quantizeGraph(g, {}), GraphError);
}

// A dense layer (Gemm, its weights transposed as PyTorch's Linear exports them) becomes
// com.microsoft's QGemm: weights per output column, an int32 bias, its Relu in the saturation,
// then TOPI's int8 dense blocks; the integer task matches the reference.
TEST(Quantize, ADenseLayerBecomesQGemm)
{
    Graph g = imported(makeDenseModelBytes({{4, 32}, 24, true, false, true}, 1));
    const QuantizeReport report = quantizeGraph(g, {});
    EXPECT_EQ(report.operators, 1);
    Graph plain = g;
    fuseQuantized(plain);
    optimizeGraph(g);
    EXPECT_EQ(count(g, "QGemm"), 1) << graphText(g);
    // Where this CPU has an int8 dot product, its weights are in TOPI's dense_int8 blocks, and
    // compute exactly what the plain QGemm computes.
    if (int8DotLanesHere() > 0) {
        EXPECT_NE(graphText(g).find("loopscope_weight_block"), std::string::npos) << graphText(g);
        const auto in = inputsOf(g, 5);
        EXPECT_TRUE(compareTensors(interpret(g, in).at(g.outputs[0]),
                                   interpret(plain, in).at(plain.outputs[0]), 0, 0)
                        .ok);
    }
    EXPECT_EQ(count(g, "Relu"), 0) << graphText(g);
    std::string why;
    auto model = CompiledModel::compile(g, {}, &why);
    ASSERT_NE(model, nullptr) << why;
    const auto in = inputsOf(g, 4);
    for (auto& [name, value] : in)
        ASSERT_TRUE(model->setInput(name, value, &why)) << why;
    model->run();
    const Comparison c =
        compareTensors(model->value(g.outputs[0]), interpret(g, in).at(g.outputs[0]), 0, 1e-6);
    EXPECT_TRUE(c.ok) << c.first;
}

// A QLinearConv in TOPI's int8 blocks (AlterQLinearConvLayout) computes exactly what it computed
// before, padded channels (a first layer's 3), padded filters (MobileNet's 24) and strides
// included, and its task's default
// schedule computes the blocks with the machine's int8 dot product (tensorize).
TEST(Quantize, Int8BlocksComputeWhatThePlainConvolutionComputes)
{
    if (int8DotLanesHere() == 0) GTEST_SKIP() << "this CPU has no int8 dot product (AVX2 or more)";
    const DataType u8{DataType::UInt, 8, 1}, s8{DataType::Int, 8, 1}, f32 = DataType::float32();
    struct Shape {
        std::int64_t channels, filters, group;
    };
    for (auto [channels, filters, group] : {Shape{3, 16, 1}, Shape{8, 24, 1}}) {
        Graph g;
        g.opset = 13;
        auto add = [&](const std::string& name, DataType t, std::vector<std::int64_t> shape,
                       std::uint64_t seed, double value) {
            GraphTensor x;
            x.name = name;
            x.dtype = t;
            x.shape = shape;
            if (seed > 0) {
                auto b = std::make_shared<HostBuffer>(t, shape);
                b->fillRandom(seed);
                // A value: near it (scales), or exactly it for integers (zero points).
                if (value != 0 || !t.isFloat())
                    for (std::int64_t i = 0; i < b->elementCount() && name != "w" && name != "b";
                         ++i)
                        b->set(i, t.isFloat() ? value * (1 + 0.01 * static_cast<double>(i % 7))
                                              : value);
                x.constant = b;
            }
            g.add(x);
            return name;
        };
        g.inputs = {add("x", u8, {1, channels, 9, 9}, 0, 0)};
        GraphNode n;
        n.op = "QLinearConv";
        n.name = "conv";
        n.inputs = {"x",
                    add("sx", f32, {}, 1, 0.02),
                    add("zx", u8, {}, 2, 100),
                    add("w", s8, {filters, channels / group, 3, 3}, 3, 0),
                    add("sw", f32, {filters}, 4, 0.01),
                    add("zw", s8, {filters}, 5, 0),
                    add("sy", f32, {}, 6, 0.5),
                    add("zy", u8, {}, 7, 20),
                    add("b", DataType::int32(), {filters}, 8, 0)};
        n.outputs = {"y"};
        n.attributes["pads"] = Attribute{std::vector<std::int64_t>{1, 1, 1, 1}};
        n.attributes["strides"] = Attribute{std::vector<std::int64_t>{2, 1}};
        n.attributes["group"] = Attribute{group};
        add("y", u8, {1, filters, 5, 9}, 0, 0);
        g.nodes.push_back(n);
        g.outputs = {"y"};
        Graph blocked = g;
        ASSERT_TRUE(alterQLinearConvLayout(blocked));
        const std::map<std::string, HostBuffer> in = inputsOf(g, 12);
        const HostBuffer plain = interpret(g, in).at("y"), packed = interpret(blocked, in).at("y");
        EXPECT_TRUE(compareTensors(packed, plain, 0, 0).ok) << channels << " channels";

        std::string why;
        auto model = CompiledModel::compile(blocked, {}, &why);
        ASSERT_NE(model, nullptr) << why;
        ASSERT_TRUE(model->setInput("x", in.at("x"), &why)) << why;
        model->run();
        const Comparison c = compareTensors(model->value("y"), packed, 0, 0);
        EXPECT_TRUE(c.ok) << channels << " channels: " << c.first;
        const auto tasks = fuseOps(blocked);
        ASSERT_EQ(tasks.size(), 1u);
        const std::string script = taskScript(blocked, tasks[0]);
        EXPECT_NE(script.find(".tensorize("), std::string::npos) << script;
    }
}

// MobileNet's ReLU6 (a Clip to [0, 6]) goes into its convolution's saturation as a Relu does:
// every convolution of the sample becomes a QLinearConv, its depthwise ones too, and no Clip is
// left; the residual adds are QLinearAdds.
TEST(Quantize, MobileNetsClipsAreTheSaturation)
{
    ImportResult r =
        importOnnx(std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/models/mobilenet_tiny/model.onnx");
    ASSERT_TRUE(r.ok) << r.error;
    Graph g = r.graph;
    quantizeGraph(g, {});
    const int convs = count(g, "Conv");
    ASSERT_GT(convs, 10);
    optimizeGraph(g);
    EXPECT_EQ(count(g, "QLinearConv"), convs) << graphText(g);
    EXPECT_EQ(count(g, "Clip"), 0) << graphText(g);
    EXPECT_GT(count(g, "QLinearAdd"), 0);
}
