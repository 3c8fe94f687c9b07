// The graph passes and fusion on small graphs: batch norms folded into the convolutions before
// them (the block computes what it computed, to 1e-6), identities and dropouts gone, constant
// subgraphs folded, and tasks grouped as Relay groups them.
#include "graph/Passes.h"
#include "graph/FuseOps.h"
#include "graph/Interpreter.h"
#include "graph/ModelMaker.h"
#include "graph/OnnxImport.h"
#include "graph/Task.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace loopscope;

namespace {

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
    ASSERT_EQ(log.size(), 3u);
    EXPECT_EQ(log[0].pass, "SimplifyInference");
    EXPECT_TRUE(log[0].changed);
    EXPECT_NE(log[0].text.find("Mul("), std::string::npos) << log[0].text;
    EXPECT_EQ(log[2].pass, "FoldScaleAxis");
    EXPECT_TRUE(log[2].changed);

    const auto after = interpret(folded, inputs);
    for (auto& o : g.outputs) {
        Comparison c = compareTensors(after.at(o), before.at(o), 1e-6, 1e-6);
        EXPECT_TRUE(c.ok) << c.first << " (max abs error " << c.maxAbsError << ")";
    }
}

TEST(GraphPasses, FusionGroupsTheBlockAsRelayDoes)
{
    Graph g = imported(makeModelBytes("resnet-block", 3));
    optimizeGraph(g);
    std::vector<Task> tasks = fuseOps(g);
    // conv -> (bias) -> relu, then conv -> (bias) -> add the block's input -> relu.
    ASSERT_EQ(tasks.size(), 2u);
    EXPECT_EQ(tasks[0].anchor, "Conv");
    EXPECT_EQ(tasks[0].name.rfind("conv_relu", 0), 0u) << tasks[0].name;
    EXPECT_EQ(tasks[1].name.rfind("conv_add_relu", 0), 0u) << tasks[1].name;
    // Both convolutions have the same shapes and weights of the same shapes: one workload.
    EXPECT_NE(tasks[0].workload, tasks[1].workload); // different fused tails
    // 16x16x3x3 weights over 14x14 outputs: 2 * 16 * 16 * 9 * 196 = 903,168 (and the relu's
    // and adds' few).
    for (const Task& t : tasks) {
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
