// Every operator compiled through its TE compute and run, against its reference semantics, on
// random shapes: broadcasting of every kind, convolutions and pools over one, two and three
// spatial axes at their padding, stride, dilation, group and ceil_mode corners, reductions over any
// axes, views and copies.
#include "graph/Operators.h"
#include "graph/Interpreter.h"
#include "graph/ModelRun.h"

#include <gtest/gtest.h>

#include <random>

using namespace loopscope;

namespace {

struct Case {
    std::string label;
    Graph graph;
};

// A graph of one node whose inputs are graph inputs of these shapes (constants where given).
class OneNode {
public:
    OneNode(const std::string& op, std::int64_t opset = 13)
    {
        m_g.opset = opset;
        m_node.op = op;
        m_node.name = op + "_test";
    }
    OneNode& input(const std::vector<std::int64_t>& shape, DataType t = DataType::float32())
    {
        const std::string name = "in" + std::to_string(m_node.inputs.size());
        GraphTensor x;
        x.name = name;
        x.dtype = t;
        x.shape = shape;
        m_g.add(x);
        m_g.inputs.push_back(name);
        m_node.inputs.push_back(name);
        return *this;
    }
    OneNode& constant(HostBuffer value)
    {
        const std::string name = "k" + std::to_string(m_node.inputs.size());
        GraphTensor x;
        x.name = name;
        x.dtype = value.dtype();
        x.shape = value.shape();
        x.constant = std::make_shared<const HostBuffer>(std::move(value));
        m_g.add(x);
        m_node.inputs.push_back(name);
        return *this;
    }
    OneNode& absent()
    {
        m_node.inputs.push_back("");
        return *this;
    }
    OneNode& attr(const std::string& k, Attribute a)
    {
        m_node.attributes[k] = std::move(a);
        return *this;
    }
    OneNode& outputs(int n)
    {
        m_outputs = n;
        return *this;
    }
    // The node added, its output shapes inferred.
    Graph build()
    {
        for (int o = 0; o < m_outputs; ++o)
            m_node.outputs.push_back("out" + std::to_string(o));
        OpContext ctx(m_g, m_node);
        auto types = findOperator(m_node.op)->infer(ctx);
        for (int o = 0; o < m_outputs; ++o) {
            GraphTensor t;
            t.name = m_node.outputs[static_cast<std::size_t>(o)];
            t.dtype = types[static_cast<std::size_t>(o)].dtype;
            t.shape = types[static_cast<std::size_t>(o)].shape;
            m_g.add(t);
            m_g.outputs.push_back(t.name);
        }
        m_g.nodes.push_back(m_node);
        return m_g;
    }

private:
    Graph m_g;
    GraphNode m_node;
    int m_outputs = 1;
};

Attribute ints(std::vector<std::int64_t> v)
{
    return {std::move(v)};
}
Attribute integer(std::int64_t v)
{
    return {v};
}
Attribute text(std::string v)
{
    return {std::move(v)};
}
Attribute real(double v)
{
    return {v};
}

HostBuffer int64s(std::vector<std::int64_t> v)
{
    HostBuffer b(DataType::int64(), {static_cast<std::int64_t>(v.size())});
    for (std::size_t i = 0; i < v.size(); ++i)
        b.setInt(static_cast<std::int64_t>(i), v[i]);
    return b;
}

HostBuffer randomFloats(std::vector<std::int64_t> shape, std::uint64_t seed, double lo = 0)
{
    HostBuffer b(DataType::float32(), std::move(shape));
    b.fillRandom(seed);
    if (lo > 0)
        for (std::int64_t i = 0; i < b.elementCount(); ++i)
            b.set(i, lo + std::abs(b.get(i)));
    return b;
}

void expectMatchesReference(const Graph& g, const std::string& label)
{
    SCOPED_TRACE(label);
    std::string why;
    auto model = CompiledModel::compile(g, {}, &why);
    ASSERT_NE(model, nullptr) << why;
    std::map<std::string, HostBuffer> inputs;
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
        const GraphTensor& t = g.tensor(g.inputs[i]);
        HostBuffer b(t.dtype, t.shape);
        b.fillRandom(17 + i);
        if (t.dtype.isFloat() && g.nodes[0].op == "Pow" && i == 0)
            for (std::int64_t k = 0; k < b.elementCount(); ++k)
                b.set(k, 0.1 + std::abs(b.get(k))); // a positive base
        ASSERT_TRUE(model->setInput(g.inputs[i], b, &why)) << why;
        inputs[g.inputs[i]] = std::move(b);
    }
    model->run();
    auto reference = interpret(g, inputs);
    for (auto& o : g.outputs) {
        Comparison c = compareTensors(model->value(o), reference.at(o), 1e-4, 1e-5);
        EXPECT_TRUE(c.ok) << o << ": " << c.first << " (" << c.mismatches << " of " << c.elements
                          << ")";
    }
}

TEST(Operators, ElementwiseAndBroadcasting)
{
    for (const char* op : {"Relu", "Sigmoid", "Tanh", "Exp", "Abs", "Neg", "Erf"})
        expectMatchesReference(OneNode(op).input({2, 3, 5}).build(), op);
    expectMatchesReference(
        OneNode("Sqrt").constant(randomFloats({3, 4}, 5, 0.1)).input({3, 4}).build(),
        "Sqrt of a constant");
    // Every way two shapes broadcast: equal, a trailing vector, leading ones, ones in the middle,
    // a scalar, both sides.
    const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> shapes = {
        {{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {4}}, {{2, 3, 4}, {1, 3, 1}},     {{4}, {2, 3, 4}},
        {{2, 1, 4}, {1, 3, 1}}, {{2, 3}, {}},     {{1, 16, 5, 5}, {16, 1, 1}}};
    for (const char* op : {"Add", "Sub", "Mul", "Div"})
        for (auto& [a, b] : shapes)
            expectMatchesReference(OneNode(op).input(a).input(b).build(),
                                   std::string(op) + " " + dimsText(a) + " " + dimsText(b));
    expectMatchesReference(OneNode("Pow").input({3, 4}).input({4}).build(), "Pow");
    HostBuffer two(DataType::float32(), {});
    two.set(0, 2.0);
    expectMatchesReference(OneNode("Pow").input({3, 4}).constant(two).build(),
                           "Pow by a constant 2");
    expectMatchesReference(OneNode("Mul").input({2, 3}).constant(two).build(),
                           "a scalar constant as a literal");
    expectMatchesReference(
        OneNode("Add", 13).input({2, 3}, DataType::int64()).input({3}, DataType::int64()).build(),
        "integer Add");
}

TEST(Operators, ClipAndBatchNormalization)
{
    HostBuffer lo(DataType::float32(), {}), hi(DataType::float32(), {});
    lo.set(0, -0.25);
    hi.set(0, 0.5);
    expectMatchesReference(OneNode("Clip", 13).input({4, 5}).constant(lo).constant(hi).build(),
                           "Clip constants");
    expectMatchesReference(OneNode("Clip", 13).input({4, 5}).input({}).input({}).build(),
                           "Clip inputs");
    expectMatchesReference(OneNode("Clip", 13).input({4, 5}).absent().constant(hi).build(),
                           "Clip max only");
    expectMatchesReference(
        OneNode("Clip", 6).input({4, 5}).attr("min", real(-0.1)).attr("max", real(0.2)).build(),
        "Clip attributes");
    expectMatchesReference(OneNode("BatchNormalization")
                               .input({2, 3, 4, 4})
                               .constant(randomFloats({3}, 1))
                               .constant(randomFloats({3}, 2))
                               .constant(randomFloats({3}, 3))
                               .constant(randomFloats({3}, 4, 0.5))
                               .attr("epsilon", real(1e-3))
                               .build(),
                           "BatchNormalization");
}

// QuantizeLinear rounds halves to even and saturates, as ONNX says; per tensor and per axis,
// uint8 and int8, the compiled tasks agree with the interpreter; DequantizeLinear undoes it.
TEST(Operators, QuantizeAndDequantize)
{
    const DataType u8{DataType::UInt, 8, 1}, s8{DataType::Int, 8, 1};
    HostBuffer scale(DataType::float32(), {}), zp(u8, {}), zpS8(s8, {});
    scale.set(0, 0.5);
    zp.setInt(0, 128);
    zpS8.setInt(0, -3);
    // The interpreter's values: x / 0.5 + 128 rounded halves to even, saturated to [0, 255].
    Graph q = OneNode("QuantizeLinear").input({8}).constant(scale).constant(zp).build();
    HostBuffer x(DataType::float32(), {8});
    const double xs[] = {0.25, 0.75, -0.25, 1.25, 100.0, -100.0, 0.0, 63.75};
    const std::int64_t expected[] = {128, 130, 128, 130, 255, 0, 128, 255};
    for (int i = 0; i < 8; ++i)
        x.set(i, xs[i]);
    auto values = interpret(q, {{"in0", x}});
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(values.at("out0").getInt(i), expected[i]) << "x = " << xs[i];

    expectMatchesReference(q, "QuantizeLinear to uint8");
    expectMatchesReference(
        OneNode("QuantizeLinear").input({2, 3, 4}).constant(scale).constant(zpS8).build(),
        "QuantizeLinear to int8");
    expectMatchesReference(OneNode("QuantizeLinear").input({2, 3, 4}).constant(scale).build(),
                           "QuantizeLinear without a zero point (uint8)");
    HostBuffer scales(DataType::float32(), {3}), zps(s8, {3});
    for (int i = 0; i < 3; ++i) {
        scales.set(i, 0.25 * (i + 1));
        zps.setInt(i, i - 1);
    }
    expectMatchesReference(OneNode("QuantizeLinear")
                               .input({2, 3, 4})
                               .constant(scales)
                               .constant(zps)
                               .attr("axis", integer(1))
                               .build(),
                           "QuantizeLinear per axis");
    expectMatchesReference(
        OneNode("DequantizeLinear").input({2, 3, 4}, u8).constant(scale).constant(zp).build(),
        "DequantizeLinear from uint8");
    expectMatchesReference(OneNode("DequantizeLinear")
                               .input({2, 3, 4}, s8)
                               .constant(scales)
                               .constant(zps)
                               .attr("axis", integer(1))
                               .build(),
                           "DequantizeLinear per axis");
}

// The integer operators: the sums of values less their zero points (per tensor, per filter,
// per row and column), requantized with halves to even and saturated; the compiled tasks agree
// with the interpreter, and the interpreter with sums written out here.
TEST(Operators, IntegerConvolutionAndMatMul)
{
    const DataType u8{DataType::UInt, 8, 1}, s8{DataType::Int, 8, 1}, f32 = DataType::float32();
    auto scalar = [](DataType t, double v) {
        HostBuffer b(t, {});
        b.set(0, v);
        return b;
    };
    auto vector = [](DataType t, std::vector<double> v) {
        HostBuffer b(t, {static_cast<std::int64_t>(v.size())});
        for (std::size_t i = 0; i < v.size(); ++i)
            b.set(static_cast<std::int64_t>(i), v[i]);
        return b;
    };
    auto random = [](DataType t, std::vector<std::int64_t> shape, std::uint64_t seed) {
        HostBuffer r(t, std::move(shape));
        r.fillRandom(seed);
        return r;
    };
    const HostBuffer weights = random(s8, {4, 3, 3, 3}, 3);

    // MatMulInteger by hand: (A - 1) x (B - 2).
    HostBuffer a(u8, {2, 2}), b(u8, {2, 1});
    const std::int64_t av[] = {3, 5, 1, 255}, bv[] = {4, 0};
    for (int i = 0; i < 4; ++i)
        a.setInt(i, av[i]);
    for (int i = 0; i < 2; ++i)
        b.setInt(i, bv[i]);
    Graph mm = OneNode("MatMulInteger", 13)
                   .input({2, 2}, u8)
                   .input({2, 1}, u8)
                   .constant(scalar(u8, 1))
                   .constant(scalar(u8, 2))
                   .build();
    EXPECT_EQ(mm.tensor("out0").dtype, DataType::int32());
    auto values = interpret(mm, {{"in0", a}, {"in1", b}});
    EXPECT_EQ(values.at("out0").getInt(0), 2 * 2 + 4 * -2);
    EXPECT_EQ(values.at("out0").getInt(1), 0 * 2 + 254 * -2);
    expectMatchesReference(mm, "MatMulInteger");
    expectMatchesReference(OneNode("MatMulInteger", 13)
                               .input({3, 5, 8}, u8)
                               .constant(random(s8, {8, 6}, 4))
                               .constant(vector(u8, {1, 2, 3, 4, 5}))
                               .build(),
                           "MatMulInteger batched, a zero point per row");
    expectMatchesReference(OneNode("ConvInteger", 10)
                               .input({1, 3, 7, 7}, u8)
                               .constant(weights)
                               .constant(scalar(u8, 128))
                               .attr("pads", ints({1, 1, 1, 1}))
                               .build(),
                           "ConvInteger padded with the zero point");
    // QLinearConv: per-filter weight scales, a bias, strides, uint8 out.
    expectMatchesReference(OneNode("QLinearConv", 10)
                               .input({1, 3, 9, 9}, u8)
                               .constant(scalar(f32, 0.02))
                               .constant(scalar(u8, 120))
                               .constant(weights)
                               .constant(vector(f32, {0.01, 0.02, 0.005, 0.04}))
                               .constant(vector(s8, {0, 0, 0, 0}))
                               .constant(scalar(f32, 0.05))
                               .constant(scalar(u8, 10))
                               .constant(vector(DataType::int32(), {100, -200, 0, 5000}))
                               .attr("pads", ints({1, 1, 1, 1}))
                               .attr("strides", ints({2, 2}))
                               .build(),
                           "QLinearConv per filter");
    expectMatchesReference(OneNode("QLinearConv", 10)
                               .input({1, 4, 6, 6}, s8)
                               .input({}, f32)
                               .input({}, s8)
                               .constant(random(s8, {4, 1, 3, 3}, 5))
                               .constant(scalar(f32, 0.03))
                               .constant(scalar(s8, 0))
                               .constant(scalar(f32, 0.07))
                               .constant(scalar(s8, -5))
                               .attr("group", integer(4))
                               .build(),
                           "QLinearConv depthwise, int8, its input's scale an input");
    expectMatchesReference(OneNode("QLinearMatMul", 10)
                               .input({4, 8}, u8)
                               .constant(scalar(f32, 0.1))
                               .constant(scalar(u8, 7))
                               .input({8, 5}, s8)
                               .constant(vector(f32, {0.1, 0.2, 0.3, 0.4, 0.5}))
                               .constant(vector(s8, {0, 1, -1, 2, 0}))
                               .constant(scalar(f32, 0.9))
                               .constant(scalar(s8, 3))
                               .build(),
                           "QLinearMatMul per column");
    Graph add = OneNode("QLinearAdd", 13)
                    .input({2, 3, 4}, u8)
                    .constant(scalar(f32, 0.1))
                    .constant(scalar(u8, 100))
                    .input({3, 1}, u8)
                    .constant(scalar(f32, 0.3))
                    .constant(scalar(u8, 5))
                    .constant(scalar(f32, 0.2))
                    .constant(scalar(u8, 90))
                    .build();
    expectMatchesReference(add, "QLinearAdd broadcasting");
}

TEST(Operators, ConvolutionsAtTheirCorners)
{
    struct C {
        std::vector<std::int64_t> x, w;
        std::vector<std::int64_t> pads, strides, dilations;
        std::int64_t group;
        std::string autoPad;
        bool bias;
    };
    const C cases[] = {
        {{1, 3, 7, 5}, {4, 3, 3, 3}, {0, 0, 0, 0}, {1, 1}, {1, 1}, 1, "NOTSET", true},
        {{2, 4, 9, 9}, {6, 4, 3, 3}, {1, 1, 1, 1}, {2, 2}, {1, 1}, 1, "NOTSET", false},
        {{1, 4, 8, 8}, {4, 1, 3, 3}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 4, "NOTSET", true}, // depthwise
        {{1, 6, 8, 7},
         {4, 3, 3, 3},
         {2, 1, 0, 2},
         {1, 2},
         {1, 1},
         2,
         "NOTSET",
         true}, // groups, uneven pads
        {{1, 2, 11, 11},
         {3, 2, 3, 3},
         {2, 2, 2, 2},
         {1, 1},
         {2, 2},
         1,
         "NOTSET",
         false}, // dilation
        {{1, 3, 10, 9}, {2, 3, 3, 3}, {}, {2, 2}, {1, 1}, 1, "SAME_UPPER", true},
        {{1, 3, 10, 9}, {2, 3, 4, 4}, {}, {3, 3}, {1, 1}, 1, "SAME_LOWER", false},
        {{1, 3, 6, 6}, {2, 3, 1, 1}, {}, {1, 1}, {1, 1}, 1, "VALID", true},
        // One and three spatial axes.
        {{2, 4, 13}, {6, 2, 3}, {2, 1}, {2}, {2}, 2, "NOTSET", true},
        {{1, 3, 9}, {2, 3, 4}, {}, {3}, {1}, 1, "SAME_LOWER", false},
        {{1, 2, 5, 6, 7},
         {3, 2, 3, 2, 3},
         {1, 0, 2, 0, 1, 1},
         {2, 1, 2},
         {1, 2, 1},
         1,
         "NOTSET",
         true},
        {{1, 4, 4, 5, 6}, {4, 1, 3, 3, 3}, {}, {1, 2, 2}, {1, 1, 1}, 4, "SAME_UPPER", false},
    };
    for (const C& c : cases) {
        OneNode n("Conv");
        n.input(c.x).constant(randomFloats(c.w, 9));
        if (c.bias) n.constant(randomFloats({c.w[0]}, 10));
        n.attr("strides", ints(c.strides))
            .attr("dilations", ints(c.dilations))
            .attr("group", integer(c.group));
        if (c.autoPad == "NOTSET")
            n.attr("pads", ints(c.pads));
        else
            n.attr("auto_pad", text(c.autoPad));
        expectMatchesReference(n.build(),
                               "Conv " + dimsText(c.x) + " " + dimsText(c.w) + " " + c.autoPad);
    }
}

TEST(Operators, PoolsAtTheirCorners)
{
    for (const char* op : {"MaxPool", "AveragePool"})
        for (int ceil : {0, 1})
            for (int includePad : {0, 1}) {
                OneNode n(op, 12);
                n.input({1, 2, 9, 8})
                    .attr("kernel_shape", ints({3, 2}))
                    .attr("strides", ints({2, 2}))
                    .attr("pads", ints({1, 0, 1, 1}))
                    .attr("ceil_mode", integer(ceil));
                if (std::string(op) == "AveragePool")
                    n.attr("count_include_pad", integer(includePad));
                expectMatchesReference(n.build(), std::string(op) + " ceil " +
                                                      std::to_string(ceil) + " include_pad " +
                                                      std::to_string(includePad));
            }
    expectMatchesReference(OneNode("MaxPool", 12)
                               .input({1, 2, 10, 10})
                               .attr("kernel_shape", ints({2, 2}))
                               .attr("dilations", ints({2, 2}))
                               .build(),
                           "MaxPool dilated");
    // Dilated averages with padding and a ceil_mode overhang: the divisor counts the taps
    // inside.
    for (int includePad : {0, 1})
        expectMatchesReference(OneNode("AveragePool", 19)
                                   .input({1, 2, 9, 10})
                                   .attr("kernel_shape", ints({3, 2}))
                                   .attr("dilations", ints({2, 3}))
                                   .attr("strides", ints({2, 1}))
                                   .attr("pads", ints({2, 1, 1, 2}))
                                   .attr("ceil_mode", integer(1))
                                   .attr("count_include_pad", integer(includePad))
                                   .build(),
                               "AveragePool dilated, include_pad " + std::to_string(includePad));
    // One and three spatial axes.
    for (const char* op : {"MaxPool", "AveragePool"}) {
        expectMatchesReference(OneNode(op, 12)
                                   .input({2, 3, 11})
                                   .attr("kernel_shape", ints({3}))
                                   .attr("strides", ints({2}))
                                   .attr("pads", ints({1, 2}))
                                   .attr("ceil_mode", integer(1))
                                   .build(),
                               std::string(op) + " 1-D");
        expectMatchesReference(OneNode(op, 12)
                                   .input({1, 2, 5, 6, 7})
                                   .attr("kernel_shape", ints({2, 3, 2}))
                                   .attr("strides", ints({1, 2, 2}))
                                   .attr("pads", ints({1, 1, 0, 0, 1, 1}))
                                   .build(),
                               std::string(op) + " 3-D");
    }
    expectMatchesReference(OneNode("GlobalAveragePool").input({2, 3, 5, 4}).build(),
                           "GlobalAveragePool");
}

TEST(Operators, DenseAndMatmul)
{
    for (int ta : {0, 1})
        for (int tb : {0, 1}) {
            const std::vector<std::int64_t> a =
                ta ? std::vector<std::int64_t>{5, 3} : std::vector<std::int64_t>{3, 5};
            const std::vector<std::int64_t> b =
                tb ? std::vector<std::int64_t>{4, 5} : std::vector<std::int64_t>{5, 4};
            expectMatchesReference(OneNode("Gemm")
                                       .input(a)
                                       .constant(randomFloats(b, 3))
                                       .constant(randomFloats({4}, 4))
                                       .attr("transA", integer(ta))
                                       .attr("transB", integer(tb))
                                       .attr("alpha", real(0.5))
                                       .attr("beta", real(2.0))
                                       .build(),
                                   "Gemm " + std::to_string(ta) + std::to_string(tb));
        }
    const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> shapes = {
        {{3, 5}, {5, 4}},          {{2, 3, 5}, {5, 4}}, {{2, 3, 5}, {2, 5, 4}},
        {{2, 1, 3, 5}, {4, 5, 2}}, {{5}, {5, 4}},       {{3, 5}, {5}}};
    for (auto& [a, b] : shapes)
        expectMatchesReference(OneNode("MatMul").input(a).input(b).build(),
                               "MatMul " + dimsText(a) + " " + dimsText(b));
}

TEST(Operators, ReductionsAndSoftmax)
{
    expectMatchesReference(OneNode("ReduceMean").input({2, 3, 4}).attr("axes", ints({-1})).build(),
                           "ReduceMean last");
    expectMatchesReference(OneNode("ReduceMean")
                               .input({2, 3, 4})
                               .attr("axes", ints({0, 2}))
                               .attr("keepdims", integer(0))
                               .build(),
                           "ReduceMean 0,2");
    expectMatchesReference(OneNode("ReduceSum", 13).input({2, 3, 4}).constant(int64s({1})).build(),
                           "ReduceSum");
    expectMatchesReference(OneNode("Softmax", 13).input({2, 3, 5}).attr("axis", integer(1)).build(),
                           "Softmax 13 axis 1");
    expectMatchesReference(OneNode("Softmax", 11).input({2, 3, 5}).attr("axis", integer(1)).build(),
                           "Softmax 11 over the flattened axes 1..");
}

TEST(Operators, MovingData)
{
    expectMatchesReference(
        OneNode("Transpose").input({2, 3, 4}).attr("perm", ints({2, 0, 1})).build(), "Transpose");
    expectMatchesReference(OneNode("Concat")
                               .input({2, 3})
                               .input({2, 1})
                               .input({2, 2})
                               .attr("axis", integer(1))
                               .build(),
                           "Concat");
    expectMatchesReference(
        OneNode("Split", 13).input({6, 2}).constant(int64s({2, 4})).outputs(2).build(), "Split");
    expectMatchesReference(OneNode("Slice", 13)
                               .input({5, 6})
                               .constant(int64s({1, -1}))
                               .constant(int64s({4, -6}))
                               .constant(int64s({0, 1}))
                               .constant(int64s({2, -2}))
                               .build(),
                           "Slice with a negative step");
    expectMatchesReference(OneNode("Gather")
                               .input({4, 3})
                               .constant(int64s({3, 0, -1}))
                               .attr("axis", integer(0))
                               .build(),
                           "Gather");
    // Views compute nothing of their own inside a task; a Reshape's index arithmetic is tested
    // through a Transpose after it in a model (CliModel tests) and by the test data.
}

} // namespace
