// Whole models compiled and run: intermediate tensors share storage without changing a result,
// the check names the task that is wrong (and only it), and a task script that does not fit its
// task is an error naming the task.
#include "graph/ModelRun.h"
#include "graph/FuseOps.h"
#include "graph/Interpreter.h"
#include "graph/ModelMaker.h"
#include "graph/OnnxImport.h"
#include "graph/Operators.h"
#include "graph/Passes.h"
#include "graph/Task.h"

#include <gtest/gtest.h>

using namespace loopscope;

namespace {

Graph optimized(const std::string& kind)
{
    ImportResult r = importOnnxBytes(makeModelBytes(kind, 5), "");
    EXPECT_TRUE(r.ok) << r.error;
    optimizeGraph(r.graph);
    return r.graph;
}

std::map<std::string, HostBuffer> inputsOf(const Graph& g)
{
    std::map<std::string, HostBuffer> in;
    for (auto& name : g.inputs) {
        const GraphTensor& t = g.tensor(name);
        HostBuffer b(t.dtype, t.shape);
        b.fillRandom(21);
        in[name] = std::move(b);
    }
    return in;
}

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

TEST(ModelRun, IntermediatesShareStorage)
{
    Graph g = optimized("resnet18");
    std::string why;
    auto model = CompiledModel::compile(g, {}, &why);
    ASSERT_NE(model, nullptr) << why;
    // ResNet-18's activations: about 10.7 MB each in a buffer of its own; with a plan a few
    // slots hold them all.
    EXPECT_GT(model->unplannedIntermediateBytes(), 10'000'000);
    EXPECT_LT(model->intermediateBytes() * 2, model->unplannedIntermediateBytes());
}

TEST(ModelRun, SharedStorageKeepsTheResultRight)
{
    // Downsampling blocks: a tensor read by two tasks (the shortcut) lives until the later one.
    ImportResult r =
        importOnnx(std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/models/resnet_tiny/model.onnx");
    ASSERT_TRUE(r.ok) << r.error;
    optimizeGraph(r.graph);
    const Graph& g = r.graph;
    std::string why;
    auto model = CompiledModel::compile(g, {}, &why);
    ASSERT_NE(model, nullptr) << why;
    EXPECT_LT(model->intermediateBytes(), model->unplannedIntermediateBytes());
    const auto inputs = inputsOf(g);
    const auto reference = interpret(g, inputs);
    ModelCheck check = model->check(inputs, reference);
    for (auto& e : check.tasks)
        EXPECT_TRUE(e.comparison.ok) << e.name << ": " << e.comparison.first;
    ASSERT_EQ(check.outputs.size(), 1u);
    EXPECT_TRUE(check.outputs[0].comparison.ok) << check.outputs[0].comparison.first;
    // A second run from the same inputs computes the same outputs (no tensor read after its
    // slot was handed on).
    const HostBuffer first = model->value(g.outputs[0]);
    model->run();
    const HostBuffer second = model->value(g.outputs[0]);
    for (std::int64_t i = 0; i < first.elementCount(); ++i)
        ASSERT_EQ(first.get(i), second.get(i)) << i;
}

TEST(ModelRun, TheCheckNamesTheWrongTaskAndOnlyIt)
{
    Graph g = optimized("resnet-block");
    std::vector<Task> tasks = fuseOps(g);
    ASSERT_EQ(tasks.size(), 4u); // conv_relu, a layout change, conv_add_relu, a layout change
    // The first task's relu made a min: wrong where the convolution is positive.
    ModelOptions o;
    o.scripts[tasks[0].workload] = replaced(taskScript(g, tasks[0]), "te.max(", "te.min(");
    std::string why;
    auto model = CompiledModel::compile(g, o, &why);
    ASSERT_NE(model, nullptr) << why;
    EXPECT_EQ(model->tasks()[0].source, "project file");
    const auto inputs = inputsOf(g);
    ModelCheck check = model->check(inputs, interpret(g, inputs));
    EXPECT_FALSE(check.ok());
    EXPECT_EQ(check.firstWrongTask, 0);
    EXPECT_FALSE(check.tasks[0].comparison.ok);
    // The later tasks run on the reference's values of their inputs: right.
    for (std::size_t i = 1; i < check.tasks.size(); ++i)
        EXPECT_TRUE(check.tasks[i].comparison.ok) << check.tasks[i].comparison.first;
    EXPECT_FALSE(check.outputs[0].comparison.ok);
}

TEST(ModelRun, AScriptThatDoesNotFitItsTaskIsAnError)
{
    Graph g = optimized("resnet-block");
    std::vector<Task> tasks = fuseOps(g);
    const std::string script = taskScript(g, tasks[0]);
    std::string why;
    {
        ModelOptions o;
        o.scripts[tasks[0].workload] =
            replaced(script, "(1, 16, 14, 14), name=\"input\"", "(1, 16, 14, 15), name=\"input\"");
        EXPECT_EQ(CompiledModel::compile(g, o, &why), nullptr);
        EXPECT_NE(why.find(tasks[0].name), std::string::npos) << why;
    }
    {
        ModelOptions o;
        o.scripts[tasks[0].workload] = script;
        o.variants[tasks[0].workload] = "tuned";
        EXPECT_EQ(CompiledModel::compile(g, o, &why), nullptr);
        EXPECT_NE(why.find("tuned"), std::string::npos) << why;
    }
    {
        ModelOptions o;
        o.scripts[tasks[0].workload] = replaced(script, "import tvm", "import tvm\n)");
        EXPECT_EQ(CompiledModel::compile(g, o, &why), nullptr);
        EXPECT_NE(why.find("line"), std::string::npos) << why;
    }
}

} // namespace

TEST(ModelRun, TheBenchmarkModelsImportAndRun)
{
    // MobileNetV2 as torchvision builds it: 52 convolutions (17 depthwise), ReLU6 as Clip, ten
    // residual adds.
    ImportResult m = importOnnxBytes(makeModelBytes("mobilenetv2", 4), "");
    ASSERT_TRUE(m.ok) << m.error;
    std::map<std::string, int> ops;
    int depthwise = 0;
    for (auto& n : m.graph.nodes) {
        ++ops[n.op];
        if (n.op == "Conv" && n.intAttr("group", 1) > 1) ++depthwise;
    }
    EXPECT_EQ(ops["Conv"], 52);
    EXPECT_EQ(depthwise, 17);
    EXPECT_EQ(ops["Clip"], 35);
    EXPECT_EQ(ops["Add"], 10);
    EXPECT_EQ(m.graph.tensor(m.graph.outputs.at(0)).shape, (std::vector<std::int64_t>{1, 1000}));

    // The encoder block compiles, and every task agrees with the reference interpreter.
    Graph g = optimized("encoder");
    EXPECT_EQ(g.tensor(g.outputs.at(0)).shape, (std::vector<std::int64_t>{1, 64, 128}));
    std::string why;
    auto model = CompiledModel::compile(g, {}, &why);
    ASSERT_NE(model, nullptr) << why;
    const auto inputs = inputsOf(g);
    ModelCheck check = model->check(inputs, interpret(g, inputs));
    for (auto& e : check.tasks)
        EXPECT_TRUE(e.comparison.ok) << e.name << ": " << e.comparison.first;
    ASSERT_EQ(check.outputs.size(), 1u);
    EXPECT_TRUE(check.outputs[0].comparison.ok) << check.outputs[0].comparison.first;
}

namespace {

// A graph built node by node, each output's shape from its operator.
struct GraphBuilder {
    Graph g;
    std::uint64_t seed = 40;

    std::string tensor(const std::string& name, std::vector<std::int64_t> shape, bool constant)
    {
        GraphTensor t;
        t.name = name;
        t.shape = std::move(shape);
        if (constant) {
            auto b = std::make_shared<HostBuffer>(t.dtype, t.shape);
            b->fillRandom(seed++);
            t.constant = std::move(b);
        }
        return g.add(std::move(t)).name;
    }
    std::string node(const std::string& op, std::vector<std::string> inputs,
                     std::map<std::string, Attribute> attributes = {})
    {
        GraphNode n;
        n.op = op;
        n.name = op + std::to_string(g.nodes.size());
        n.inputs = std::move(inputs);
        n.attributes = std::move(attributes);
        n.outputs = {n.name + "_out"};
        const std::vector<TensorType> types = findOperator(op)->infer(OpContext(g, n));
        tensor(n.outputs[0], types.at(0).shape, false);
        g.nodes.push_back(n);
        return n.outputs[0];
    }
};

Attribute ints(std::vector<std::int64_t> v)
{
    return {std::move(v)};
}

} // namespace

// Data in blocks of 16 channels through everything that keeps them: a convolution from the
// graph's N x C x H x W input, average and max pools (padded, ceil mode), a depthwise
// convolution, a per-channel constant and a full-shape tensor added, a clip; then a global pool,
// which reads the blocks and writes N x C x 1 x 1, and the clip's output as the model's. Values
// as before the layout pass, every task checked.
TEST(ModelRun, DataStaysInBlocksOfChannelsFromLayerToLayer)
{
    GraphBuilder b;
    b.g.opset = 17;
    b.g.inputs = {b.tensor("x", {1, 8, 12, 12}, false)};
    const std::string conv =
        b.node("Conv", {"x", b.tensor("w", {32, 8, 3, 3}, true), b.tensor("bias", {32}, true)},
               {{"pads", ints({1, 1, 1, 1})}});
    const std::string avg = b.node(
        "AveragePool", {conv},
        {{"kernel_shape", ints({3, 3})}, {"pads", ints({1, 1, 1, 1})}, {"strides", ints({2, 2})}});
    const std::string mx = b.node("MaxPool", {avg},
                                  {{"kernel_shape", ints({2, 2})},
                                   {"strides", ints({2, 2})},
                                   {"ceil_mode", {std::int64_t{1}}}});
    const std::string dw = b.node("Conv", {mx, b.tensor("dw", {32, 1, 3, 3}, true)},
                                  {{"group", {std::int64_t{32}}}, {"pads", ints({1, 1, 1, 1})}});
    const std::string scaled = b.node("Mul", {dw, b.tensor("scale", {32, 1, 1}, true)});
    const std::string summed = b.node("Add", {scaled, mx});
    const std::string clipped =
        b.node("Clip", {summed, b.tensor("lo", {}, true), b.tensor("hi", {}, true)});
    b.g.outputs = {b.node("GlobalAveragePool", {clipped}), clipped};
    const Graph original = b.g;

    Graph g = b.g;
    optimizeGraph(g);
    std::map<std::string, int> ops;
    for (const GraphNode& n : g.nodes) {
        ++ops[n.op];
        if (n.op == "Conv" || n.op == "MaxPool" || n.op == "AveragePool")
            EXPECT_EQ(n.intAttr(kOutBlock, 0), 16) << graphText(g);
    }
    // One layout change, for the graph's output; the global pool reads the blocks itself.
    EXPECT_EQ(ops["LayoutTransform"], 1) << graphText(g);
    for (const GraphNode& n : g.nodes)
        if (n.op == "GlobalAveragePool") EXPECT_EQ(n.intAttr(kInBlock, 0), 16);
    EXPECT_EQ(g.tensor(g.outputs[1]).shape, (std::vector<std::int64_t>{1, 32, 3, 3}));
    // The model view names the layout with the shape a reader thinks of.
    EXPECT_EQ(tensorShapeText(g.tensor(g.nodes.front().outputs[0])), "1x32x12x12 NCHW16c");

    const auto inputs = inputsOf(original);
    const auto before = interpret(original, inputs);
    const auto after = interpret(g, inputs);
    for (auto& o : original.outputs) {
        Comparison c = compareTensors(after.at(o), before.at(o), 1e-12, 1e-12);
        EXPECT_TRUE(c.ok) << o << ": " << c.first;
    }
    std::string why;
    auto model = CompiledModel::compile(g, {}, &why);
    ASSERT_NE(model, nullptr) << why;
    ModelCheck check = model->check(inputs, after);
    for (auto& e : check.tasks)
        EXPECT_TRUE(e.comparison.ok) << e.name << ": " << e.comparison.first;
    for (auto& e : check.outputs)
        EXPECT_TRUE(e.comparison.ok) << e.name << ": " << e.comparison.first;
}
