// The graph passes and fusion on small graphs: batch norms folded into the convolutions before
// them (the block computes what it computed, to 1e-6), identities and dropouts gone, constant
// subgraphs folded, convolution weights in blocks of output channels, and tasks grouped as Relay
// groups them.
#include "graph/Passes.h"
#include "graph/FuseOps.h"
#include "graph/Interpreter.h"
#include "graph/ModelMaker.h"
#include "graph/OnnxImport.h"
#include "graph/Operators.h"
#include "graph/Task.h"
#include "support/SourceFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace loopscope;

namespace {

std::string readFile(const std::string& path)
{
    return readText(path);
}

Graph imported(const std::string& bytes, const ImportOptions& options = {})
{
    ImportResult r = importOnnxBytes(bytes, "", options);
    EXPECT_TRUE(r.ok) << r.error;
    return r.graph;
}

int countOps(const Graph& g, const std::string& op)
{
    return static_cast<int>(std::count_if(g.nodes.begin(), g.nodes.end(),
                                          [&](const GraphNode& n) { return n.op == op; }));
}

std::map<std::string, HostBuffer> randomInputs(const Graph& g, std::uint64_t seed)
{
    std::map<std::string, HostBuffer> in;
    for (auto& name : g.inputs) {
        const GraphTensor& t = g.tensor(name);
        HostBuffer b(t.dtype, t.shape);
        b.fillRandom(seed++);
        in[name] = std::move(b);
    }
    return in;
}

TEST(GraphPasses, BatchNormFoldsIntoTheConvolutionExactly)
{
    Graph g = imported(makeModelBytes("resnet-block", 3));
    ASSERT_EQ(countOps(g, "BatchNormalization"), 2);
    const auto inputs = randomInputs(g, 11);
    const auto before = interpret(g, inputs);

    std::vector<GraphSnapshot> log;
    Graph folded = g;
    optimizeGraph(folded, &log);
    EXPECT_EQ(countOps(folded, "BatchNormalization"), 0);
    EXPECT_EQ(countOps(folded, "Mul"), 0) << graphText(folded); // the scale is in the weights
    EXPECT_EQ(countOps(folded, "Conv"), 2);
    ASSERT_EQ(log.size(), 9u);
    EXPECT_EQ(log[0].pass, "FuseQuantized");
    EXPECT_FALSE(log[0].changed); // a float model
    EXPECT_EQ(log[1].pass, "SimplifyInference");
    EXPECT_TRUE(log[1].changed);
    EXPECT_NE(log[1].text.find("Mul("), std::string::npos) << log[1].text;
    EXPECT_EQ(log[3].pass, "FoldScaleAxis");
    EXPECT_TRUE(log[3].changed);
    EXPECT_EQ(log[5].pass, "AlterDenseLayout");
    EXPECT_FALSE(log[5].changed); // a block without dense layers
    EXPECT_EQ(log[6].pass, "AlterQLinearConvLayout");
    EXPECT_FALSE(log[6].changed);
    EXPECT_EQ(log[7].pass, "ConvertLayout");
    EXPECT_TRUE(log[7].changed);
    EXPECT_EQ(log[8].pass, "AlterConvWinograd");
    EXPECT_FALSE(log[8].changed); // 16 channels: narrower than Winograd pays for

    const auto after = interpret(folded, inputs);
    for (auto& o : g.outputs) {
        Comparison c = compareTensors(after.at(o), before.at(o), 1e-6, 1e-6);
        EXPECT_TRUE(c.ok) << c.first << " (max abs error " << c.maxAbsError << ")";
    }
}

// Each convolution of the block (16 filters) gets its weights in one block of 16 output channels,
// element for element, and computes what it computed before; a convolution of 12 filters (the
// stem of the bundled small ResNet) keeps its weights as they were.
TEST(GraphPasses, ConvolutionWeightsGoInBlocksOf16OutputChannels)
{
    Graph g = imported(makeModelBytes("resnet-block", 3));
    simplifyInference(g);
    foldConstants(g);
    foldScaleAxis(g);
    g.removeUnusedTensors();
    Graph packed = g;
    ASSERT_TRUE(alterConvLayout(packed));
    int convs = 0;
    for (std::size_t i = 0; i < packed.nodes.size(); ++i) {
        const GraphNode& n = packed.nodes[i];
        if (n.op != "Conv") continue;
        ++convs;
        EXPECT_EQ(n.intAttr(kWeightBlock, 0), 16);
        const GraphTensor& w = packed.tensor(n.inputs[1]);
        const GraphTensor& old = g.tensor(g.nodes[i].inputs[1]);
        ASSERT_EQ(w.shape, (std::vector<std::int64_t>{1, 16, 3, 3, 16}));
        ASSERT_EQ(old.shape, (std::vector<std::int64_t>{16, 16, 3, 3}));
        for (std::int64_t f = 0; f < 16; ++f)
            for (std::int64_t k = 0; k < 16 * 9; ++k)
                ASSERT_EQ(w.constant->get(k * 16 + f), old.constant->get(f * 144 + k));
    }
    EXPECT_EQ(convs, 2);
    EXPECT_FALSE(alterConvLayout(packed)); // once only

    const auto inputs = randomInputs(g, 5);
    const auto before = interpret(g, inputs);
    const auto after = interpret(packed, inputs);
    for (auto& o : g.outputs) {
        Comparison c = compareTensors(after.at(o), before.at(o), 1e-12, 1e-12);
        EXPECT_TRUE(c.ok) << c.first << " (max abs error " << c.maxAbsError << ")";
    }
    // The task computes the sums in blocks and writes them so (ConvertLayout), with no read-back
    // into N x F x H x W.
    optimizeGraph(packed);
    const std::string script = taskScript(packed, fuseOps(packed).front());
    EXPECT_NE(script.find("te.compute((1, 1, 14, 14, 16)"), std::string::npos) << script;
    EXPECT_EQ(script.find(" // 16"), std::string::npos) << script;

    Graph tiny = imported(
        readFile(std::string(LOOPSCOPE_SOURCE_DIR) + "/samples/models/resnet_tiny/model.onnx"));
    optimizeGraph(tiny);
    const GraphNode& stem = tiny.nodes.front();
    ASSERT_EQ(stem.op, "Conv");
    EXPECT_FALSE(stem.has(kWeightBlock));
    EXPECT_EQ(tiny.tensor(stem.inputs[1]).shape, (std::vector<std::int64_t>{12, 3, 3, 3}));
}

TEST(GraphPasses, FusionGroupsTheBlockAsRelayDoes)
{
    Graph g = imported(makeModelBytes("resnet-block", 3));
    optimizeGraph(g);
    std::vector<Task> tasks = fuseOps(g);
    // conv -> (bias) -> relu; the block's input in blocks of 16 channels for the add; conv ->
    // (bias) -> add -> relu; the output back as N x C x H x W. A layout change is a task of
    // its own (injective: it joins no convolution).
    ASSERT_EQ(tasks.size(), 4u);
    EXPECT_EQ(tasks[0].anchor, "Conv");
    EXPECT_EQ(tasks[0].name.rfind("conv_relu", 0), 0u) << tasks[0].name;
    EXPECT_EQ(tasks[1].name.rfind("layouttransform", 0), 0u) << tasks[1].name;
    EXPECT_EQ(tasks[2].name.rfind("conv_add_relu", 0), 0u) << tasks[2].name;
    EXPECT_EQ(tasks[3].name.rfind("layouttransform", 0), 0u) << tasks[3].name;
    EXPECT_NE(tasks[1].workload, tasks[3].workload); // into blocks and out of them
    EXPECT_NE(tasks[0].workload, tasks[2].workload); // different fused tails
    // 16x16x3x3 weights over 14x14 outputs: 2 * 16 * 16 * 9 * 196 = 903,168 (and the relu's
    // and adds' few).
    for (const Task& t : {tasks[0], tasks[2]}) {
        const double flops = taskFlops(taskScript(g, t));
        EXPECT_GE(flops, 903168) << t.name;
        EXPECT_LT(flops, 903168 * 1.05) << t.name;
    }

    // Without fusion every node is a task of its own.
    std::vector<Task> alone = fuseOps(g, FuseOptions{false, 32});
    EXPECT_EQ(alone.size(), g.nodes.size());
}

TEST(GraphPasses, IdenticalWorkloadsAreOneTaskWithAWeight)
{
    Graph g = imported(makeModelBytes("resnet18", 1));
    optimizeGraph(g);
    std::vector<Task> tasks = fuseOps(g);
    std::map<std::string, int> seen;
    for (const Task& t : tasks)
        ++seen[t.workload];
    bool someRepeated = false;
    for (const Task& t : tasks) {
        EXPECT_EQ(t.weight, seen[t.workload]) << t.name;
        someRepeated = someRepeated || t.weight > 1;
    }
    EXPECT_TRUE(someRepeated); // layer1's four 3x3 convolutions share shapes
    EXPECT_EQ(countOps(g, "BatchNormalization"), 0);
}

TEST(GraphPasses, DropoutAndIdentityDisappear)
{
    Graph g;
    g.opset = 13;
    GraphTensor x;
    x.name = "x";
    x.shape = {2, 3};
    g.add(x);
    g.inputs = {"x"};
    auto addNode = [&](const std::string& op, const std::string& in, const std::string& out) {
        GraphNode n;
        n.op = op;
        n.name = out;
        n.inputs = {in};
        n.outputs = {out};
        g.nodes.push_back(n);
        GraphTensor t = x;
        t.name = out;
        g.add(t);
    };
    addNode("Identity", "x", "a");
    addNode("Dropout", "a", "b");
    addNode("Relu", "b", "c");
    g.outputs = {"c"};
    optimizeGraph(g);
    ASSERT_EQ(g.nodes.size(), 1u) << graphText(g);
    EXPECT_EQ(g.nodes[0].op, "Relu");
    EXPECT_EQ(g.nodes[0].inputs[0], "x");
}

} // namespace
