#include "graph/ModelMaker.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <fstream>
#include <random>

namespace loopscope {

namespace {

// Builds a ModelProto node by node, weights drawn from one seeded generator.
class Builder {
public:
    explicit Builder(std::uint64_t seed) : m_rng(seed)
    {
        m_model.set_ir_version(8);
        m_model.set_producer_name("loopscope");
        auto* opset = m_model.add_opset_import();
        opset->set_domain("");
        opset->set_version(14);
        m_graph = m_model.mutable_graph();
        m_graph->set_name("loopscope");
    }

    std::string input(const std::string& name, const std::vector<std::int64_t>& shape)
    {
        valueInfo(m_graph->add_input(), name, shape);
        return name;
    }

    void output(const std::string& name, const std::vector<std::int64_t>& shape)
    {
        valueInfo(m_graph->add_output(), name, shape);
    }

    // A weight with values normal(0, stddev), or uniform in [lo, hi) when stddev is 0.
    std::string weight(const std::string& name, const std::vector<std::int64_t>& shape,
                       double stddev, double lo = 0, double hi = 0)
    {
        auto* t = m_graph->add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto::FLOAT);
        std::int64_t n = 1;
        for (auto d : shape) {
            t->add_dims(d);
            n *= d;
        }
        std::normal_distribution<float> normal(0.0f, static_cast<float>(stddev));
        std::uniform_real_distribution<float> uniform(static_cast<float>(lo),
                                                      static_cast<float>(hi));
        std::string raw(static_cast<std::size_t>(n) * sizeof(float), '\0');
        auto* f = reinterpret_cast<float*>(raw.data());
        for (std::int64_t i = 0; i < n; ++i)
            f[i] = stddev > 0 ? normal(m_rng) : uniform(m_rng);
        t->set_raw_data(raw);
        return name;
    }

    std::string node(const std::string& op, const std::vector<std::string>& inputs,
                     const std::string& name)
    {
        auto* n = m_graph->add_node();
        n->set_op_type(op);
        n->set_name(name);
        for (auto& i : inputs)
            n->add_input(i);
        n->add_output(name + "_out");
        m_last = n;
        return name + "_out";
    }

    void ints(const std::string& key, const std::vector<std::int64_t>& v)
    {
        auto* a = m_last->add_attribute();
        a->set_name(key);
        a->set_type(onnx::AttributeProto::INTS);
        for (auto x : v)
            a->add_ints(x);
    }
    void integer(const std::string& key, std::int64_t v)
    {
        auto* a = m_last->add_attribute();
        a->set_name(key);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(v);
    }

    std::string conv(const std::string& x, const std::string& name, std::int64_t cin,
                     std::int64_t cout, std::int64_t k, std::int64_t stride, std::int64_t pad)
    {
        const double stddev = std::sqrt(2.0 / static_cast<double>(cin * k * k));
        std::string w = weight(name + ".weight", {cout, cin, k, k}, stddev);
        std::string y = node("Conv", {x, w}, name);
        ints("kernel_shape", {k, k});
        ints("strides", {stride, stride});
        ints("pads", {pad, pad, pad, pad});
        return y;
    }

    std::string batchNorm(const std::string& x, const std::string& name, std::int64_t c)
    {
        std::string g = weight(name + ".gamma", {c}, 0, 0.5, 1.5);
        std::string b = weight(name + ".beta", {c}, 0, -0.2, 0.2);
        std::string m = weight(name + ".mean", {c}, 0, -0.2, 0.2);
        std::string v = weight(name + ".var", {c}, 0, 0.5, 1.5);
        return node("BatchNormalization", {x, g, b, m, v}, name);
    }

    std::string relu(const std::string& x, const std::string& name)
    {
        return node("Relu", {x}, name);
    }

    std::string bytes() const { return m_model.SerializeAsString(); }

private:
    static void valueInfo(onnx::ValueInfoProto* v, const std::string& name,
                          const std::vector<std::int64_t>& shape)
    {
        v->set_name(name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(onnx::TensorProto::FLOAT);
        for (auto d : shape)
            t->mutable_shape()->add_dim()->set_dim_value(d);
    }

    onnx::ModelProto m_model;
    onnx::GraphProto* m_graph = nullptr;
    onnx::NodeProto* m_last = nullptr;
    std::mt19937_64 m_rng;
};

// A ResNet basic block: conv-bn-relu-conv-bn, the shortcut (a 1x1 conv-bn when it downsamples),
// add, relu.
std::string basicBlock(Builder& b, const std::string& x, const std::string& name, std::int64_t cin,
                       std::int64_t cout, std::int64_t stride)
{
    std::string y = b.relu(
        b.batchNorm(b.conv(x, name + ".conv1", cin, cout, 3, stride, 1), name + ".bn1", cout),
        name + ".relu1");
    y = b.batchNorm(b.conv(y, name + ".conv2", cout, cout, 3, 1, 1), name + ".bn2", cout);
    std::string shortcut = x;
    if (stride != 1 || cin != cout)
        shortcut = b.batchNorm(b.conv(x, name + ".down", cin, cout, 1, stride, 0),
                               name + ".down.bn", cout);
    return b.relu(b.node("Add", {y, shortcut}, name + ".add"), name + ".relu2");
}

std::string resnet18(std::uint64_t seed)
{
    Builder b(seed);
    std::string x = b.input("input", {1, 3, 224, 224});
    x = b.relu(b.batchNorm(b.conv(x, "conv1", 3, 64, 7, 2, 3), "bn1", 64), "relu");
    x = b.node("MaxPool", {x}, "maxpool");
    b.ints("kernel_shape", {3, 3});
    b.ints("strides", {2, 2});
    b.ints("pads", {1, 1, 1, 1});
    std::int64_t cin = 64;
    const std::int64_t widths[] = {64, 128, 256, 512};
    for (int stage = 0; stage < 4; ++stage) {
        const std::string layer = "layer" + std::to_string(stage + 1);
        x = basicBlock(b, x, layer + ".0", cin, widths[stage], stage == 0 ? 1 : 2);
        x = basicBlock(b, x, layer + ".1", widths[stage], widths[stage], 1);
        cin = widths[stage];
    }
    x = b.node("GlobalAveragePool", {x}, "avgpool");
    x = b.node("Flatten", {x}, "flatten");
    b.integer("axis", 1);
    std::string w = b.weight("fc.weight", {1000, 512}, std::sqrt(1.0 / 512));
    std::string bias = b.weight("fc.bias", {1000}, 0, -0.05, 0.05);
    x = b.node("Gemm", {x, w, bias}, "fc");
    b.integer("transB", 1);
    b.output(x, {1, 1000});
    return b.bytes();
}

std::string resnetBlock(std::uint64_t seed)
{
    Builder b(seed);
    std::string x = b.input("input", {1, 16, 14, 14});
    x = basicBlock(b, x, "block", 16, 16, 1);
    b.output(x, {1, 16, 14, 14});
    return b.bytes();
}

std::string mlp(std::uint64_t seed)
{
    Builder b(seed);
    std::string x = b.input("input", {4, 64});
    std::int64_t cin = 64;
    int layer = 0;
    for (std::int64_t cout : {128, 64, 10}) {
        const std::string n = "fc" + std::to_string(++layer);
        std::string w =
            b.weight(n + ".weight", {cout, cin}, std::sqrt(1.0 / static_cast<double>(cin)));
        std::string bias = b.weight(n + ".bias", {cout}, 0, -0.05, 0.05);
        x = b.node("Gemm", {x, w, bias}, n);
        b.integer("transB", 1);
        if (cout != 10) x = b.relu(x, n + ".relu");
        cin = cout;
    }
    x = b.node("Softmax", {x}, "softmax");
    b.integer("axis", -1);
    b.output(x, {4, 10});
    return b.bytes();
}

} // namespace

const std::vector<std::string>& modelKinds()
{
    static const std::vector<std::string> kinds = {"resnet18", "resnet-block", "mlp"};
    return kinds;
}

std::string makeModelBytes(const std::string& kind, std::uint64_t seed)
{
    if (kind == "resnet18") return resnet18(seed);
    if (kind == "resnet-block") return resnetBlock(seed);
    if (kind == "mlp") return mlp(seed);
    return {};
}

bool makeModel(const std::string& kind, const std::string& path, std::uint64_t seed,
               std::string* why)
{
    const std::string bytes = makeModelBytes(kind, seed);
    if (bytes.empty()) {
        *why = "unknown model '" + kind + "' (known: resnet18, resnet-block, mlp)";
        return false;
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    if (!out) {
        *why = "cannot write '" + path + "'";
        return false;
    }
    return true;
}

} // namespace loopscope
