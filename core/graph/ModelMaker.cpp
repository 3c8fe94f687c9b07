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
        addNode(op, inputs, name)->add_output(name + "_out");
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

    // A float initializer with the given values.
    std::string constant(const std::string& name, const std::vector<std::int64_t>& shape,
                         const std::vector<float>& values)
    {
        auto* t = m_graph->add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto::FLOAT);
        for (auto d : shape)
            t->add_dims(d);
        for (float v : values)
            t->add_float_data(v);
        return name;
    }

    // A 1-D int64 initializer (a Reshape's shape, a Split's sizes).
    std::string int64s(const std::string& name, const std::vector<std::int64_t>& values)
    {
        auto* t = m_graph->add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto::INT64);
        t->add_dims(static_cast<std::int64_t>(values.size()));
        for (auto v : values)
            t->add_int64_data(v);
        return name;
    }

    // A node with several outputs, named NAME_out0, NAME_out1, ...
    std::vector<std::string> nodeN(const std::string& op, const std::vector<std::string>& inputs,
                                   const std::string& name, int outputs)
    {
        onnx::NodeProto* n = addNode(op, inputs, name);
        std::vector<std::string> out;
        for (int i = 0; i < outputs; ++i) {
            out.push_back(name + "_out" + std::to_string(i));
            n->add_output(out.back());
        }
        return out;
    }

    std::string conv(const std::string& x, const std::string& name, std::int64_t cin,
                     std::int64_t cout, std::int64_t k, std::int64_t stride, std::int64_t pad,
                     std::int64_t groups = 1)
    {
        const double stddev = std::sqrt(2.0 / static_cast<double>(cin / groups * k * k));
        std::string w = weight(name + ".weight", {cout, cin / groups, k, k}, stddev);
        std::string y = node("Conv", {x, w}, name);
        ints("kernel_shape", {k, k});
        ints("strides", {stride, stride});
        ints("pads", {pad, pad, pad, pad});
        if (groups != 1) integer("group", groups);
        return y;
    }

    // ReLU6, as PyTorch exports it at opset 14: Clip with its bounds as inputs.
    std::string relu6(const std::string& x, const std::string& name)
    {
        if (m_relu6Min.empty()) {
            m_relu6Min = constant("relu6.min", {}, {0.0f});
            m_relu6Max = constant("relu6.max", {}, {6.0f});
        }
        return node("Clip", {x, m_relu6Min, m_relu6Max}, name);
    }

    // A dense layer over the last axis of x, as PyTorch exports nn.Linear on a 3-D input:
    // MatMul by the transposed weight, then Add the bias.
    std::string linear(const std::string& x, const std::string& name, std::int64_t in,
                       std::int64_t out)
    {
        std::string w =
            weight(name + ".weight", {in, out}, std::sqrt(1.0 / static_cast<double>(in)));
        std::string bias = weight(name + ".bias", {out}, 0, -0.05, 0.05);
        return node("Add", {node("MatMul", {x, w}, name + ".matmul"), bias}, name);
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
    // A node without outputs yet; the attribute setters then apply to it.
    onnx::NodeProto* addNode(const std::string& op, const std::vector<std::string>& inputs,
                             const std::string& name)
    {
        m_last = m_graph->add_node();
        m_last->set_op_type(op);
        m_last->set_name(name);
        for (auto& i : inputs)
            m_last->add_input(i);
        return m_last;
    }

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
    std::string m_relu6Min, m_relu6Max;
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

// A classifier of 28x28 images as the MNIST tutorials write it, batch 8: 784 -> 512 -> 256 -> 10,
// each layer a Gemm by the transposed weight (as PyTorch's Linear exports), ReLU between, softmax.
std::string mlp(std::uint64_t seed)
{
    Builder b(seed);
    std::string x = b.input("input", {8, 784});
    std::int64_t cin = 784;
    int layer = 0;
    for (std::int64_t cout : {512, 256, 10}) {
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
    b.output(x, {8, 10});
    return b.bytes();
}

// torchvision's MobileNetV2 (width 1.0) at 224x224: a 3x3 stem, 17 inverted residuals (a 1x1
// expansion, a depthwise 3x3, a linear 1x1 projection, each with a batch norm; ReLU6 after the
// first two; a residual add where stride and width allow), a 1x1 head to 1280, global average
// pool, dense to 1000.
std::string mobilenetV2(std::uint64_t seed)
{
    Builder b(seed);
    std::string x = b.input("input", {1, 3, 224, 224});
    x = b.relu6(b.batchNorm(b.conv(x, "features.0", 3, 32, 3, 2, 1), "features.0.bn", 32),
                "features.0.relu6");
    struct Stage {
        std::int64_t expand, width, repeats, stride;
    };
    const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                            {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
    std::int64_t cin = 32;
    int block = 1;
    for (const Stage& s : stages) {
        for (std::int64_t i = 0; i < s.repeats; ++i, ++block) {
            const std::string n = "features." + std::to_string(block);
            const std::int64_t stride = i == 0 ? s.stride : 1;
            const std::int64_t hidden = cin * s.expand;
            std::string y = x;
            if (s.expand != 1)
                y = b.relu6(b.batchNorm(b.conv(y, n + ".expand", cin, hidden, 1, 1, 0),
                                        n + ".expand.bn", hidden),
                            n + ".expand.relu6");
            y = b.relu6(b.batchNorm(b.conv(y, n + ".dw", hidden, hidden, 3, stride, 1, hidden),
                                    n + ".dw.bn", hidden),
                        n + ".dw.relu6");
            y = b.batchNorm(b.conv(y, n + ".project", hidden, s.width, 1, 1, 0), n + ".project.bn",
                            s.width);
            if (stride == 1 && cin == s.width) y = b.node("Add", {x, y}, n + ".add");
            x = y;
            cin = s.width;
        }
    }
    x = b.relu6(b.batchNorm(b.conv(x, "features.18", cin, 1280, 1, 1, 0), "features.18.bn", 1280),
                "features.18.relu6");
    x = b.node("GlobalAveragePool", {x}, "avgpool");
    x = b.node("Flatten", {x}, "flatten");
    b.integer("axis", 1);
    std::string w = b.weight("classifier.weight", {1000, 1280}, std::sqrt(1.0 / 1280));
    std::string bias = b.weight("classifier.bias", {1000}, 0, -0.05, 0.05);
    x = b.node("Gemm", {x, w, bias}, "classifier");
    b.integer("transB", 1);
    b.output(x, {1, 1000});
    return b.bytes();
}

// LayerNorm over the last axis, decomposed as PyTorch exports it at opset 14: ReduceMean, Sub,
// Pow, ReduceMean, Add eps, Sqrt, Div, Mul gamma, Add beta.
std::string layerNorm(Builder& b, const std::string& x, const std::string& name, std::int64_t dim)
{
    std::string mean = b.node("ReduceMean", {x}, name + ".mean");
    b.ints("axes", {-1});
    std::string centred = b.node("Sub", {x, mean}, name + ".sub");
    std::string two = b.constant(name + ".two", {}, {2.0f});
    std::string var =
        b.node("ReduceMean", {b.node("Pow", {centred, two}, name + ".pow")}, name + ".var");
    b.ints("axes", {-1});
    std::string eps = b.constant(name + ".eps", {}, {1e-5f});
    std::string sd = b.node("Sqrt", {b.node("Add", {var, eps}, name + ".addeps")}, name + ".sqrt");
    std::string gamma = b.weight(name + ".weight", {dim}, 0, 0.5, 1.5);
    std::string beta = b.weight(name + ".bias", {dim}, 0, -0.2, 0.2);
    return b.node(
        "Add",
        {b.node("Mul", {b.node("Div", {centred, sd}, name + ".div"), gamma}, name + ".mul"), beta},
        name);
}

// One transformer encoder block, pre-norm, as samples/models/encoder_block is at 1x16x64 but at
// 1x64x128 with 4 heads and a feed-forward of 512: LayerNorm, a fused QKV projection split in
// three, per-head attention (Reshape, Transpose, MatMul, Div, Softmax), the output projection and
// a residual add, LayerNorm, a GELU (through Erf) feed-forward and a residual add.
std::string encoder(std::uint64_t seed)
{
    constexpr std::int64_t tokens = 64, dim = 128, heads = 4, hidden = 512;
    constexpr std::int64_t headDim = dim / heads;
    Builder b(seed);
    std::string x = b.input("input", {1, tokens, dim});
    std::string qkv = b.linear(layerNorm(b, x, "ln1", dim), "qkv", dim, 3 * dim);
    std::vector<std::string> parts =
        b.nodeN("Split", {qkv, b.int64s("qkv.sizes", {dim, dim, dim})}, "qkv.split", 3);
    b.integer("axis", -1);
    const std::string headsShape = b.int64s("heads.shape", {1, tokens, heads, headDim});
    auto perHead = [&](const std::string& t, const std::string& name,
                       const std::vector<std::int64_t>& perm) {
        std::string y =
            b.node("Transpose", {b.node("Reshape", {t, headsShape}, name + ".reshape")}, name);
        b.ints("perm", perm);
        return y;
    };
    std::string q = perHead(parts[0], "q", {0, 2, 1, 3});
    std::string k = perHead(parts[1], "k", {0, 2, 3, 1});
    std::string v = perHead(parts[2], "v", {0, 2, 1, 3});
    std::string scale = b.constant("attn.scale", {}, {std::sqrt(static_cast<float>(headDim))});
    std::string scores = b.node("Div", {b.node("MatMul", {q, k}, "attn.qk"), scale}, "attn.div");
    std::string att = b.node("Softmax", {scores}, "attn.softmax");
    b.integer("axis", -1);
    std::string y = b.node("MatMul", {att, v}, "attn.av");
    y = b.node("Transpose", {y}, "attn.merge");
    b.ints("perm", {0, 2, 1, 3});
    y = b.node("Reshape", {y, b.int64s("merge.shape", {1, tokens, dim})}, "attn.reshape");
    x = b.node("Add", {x, b.linear(y, "proj", dim, dim)}, "residual1");
    std::string h = b.linear(layerNorm(b, x, "ln2", dim), "ff1", dim, hidden);
    std::string sqrt2 = b.constant("gelu.sqrt2", {}, {std::sqrt(2.0f)});
    std::string one = b.constant("gelu.one", {}, {1.0f});
    std::string half = b.constant("gelu.half", {}, {0.5f});
    std::string erf = b.node("Erf", {b.node("Div", {h, sqrt2}, "gelu.div")}, "gelu.erf");
    std::string gelu =
        b.node("Mul", {b.node("Mul", {h, b.node("Add", {erf, one}, "gelu.add")}, "gelu.mul"), half},
               "gelu");
    x = b.node("Add", {x, b.linear(gelu, "ff2", hidden, dim)}, "residual2");
    b.output(x, {1, tokens, dim});
    return b.bytes();
}

} // namespace

std::string makeDenseModelBytes(const DenseLayerSpec& spec, std::uint64_t seed)
{
    Builder b(seed);
    std::string x = b.input("x", spec.input);
    const std::int64_t k = spec.input.back();
    std::vector<std::int64_t> out = spec.input;
    out.back() = spec.n;
    const double scale = std::sqrt(1.0 / static_cast<double>(k));
    std::string bias = b.weight("bias", {spec.n}, 0, -0.05, 0.05);
    if (spec.matmul) {
        std::string w = b.weight("weight", {k, spec.n}, scale);
        x = b.node("Add", {b.node("MatMul", {x, w}, "matmul"), bias}, "dense");
    } else {
        std::string w = b.weight("weight",
                                 spec.transB ? std::vector<std::int64_t>{spec.n, k}
                                             : std::vector<std::int64_t>{k, spec.n},
                                 scale);
        x = b.node("Gemm", {x, w, bias}, "dense");
        if (spec.transB) b.integer("transB", 1);
    }
    if (spec.relu) x = b.relu(x, "relu");
    b.output(x, out);
    return b.bytes();
}

std::string makeConvModelBytes(const ConvLayerSpec& spec, std::uint64_t seed)
{
    Builder b(seed);
    std::string x = b.input("x", {1, spec.channels, spec.size, spec.size});
    std::string w = b.weight("conv.weight", {spec.filters, spec.channels, 3, 3},
                             std::sqrt(2.0 / static_cast<double>(spec.channels * 9)));
    std::string bias = b.weight("conv.bias", {spec.filters}, 0, -0.1, 0.1);
    x = b.node("Conv", {x, w, bias}, "conv");
    b.ints("kernel_shape", {3, 3});
    b.ints("pads", {1, 1, 1, 1});
    x = b.relu(x, "relu");
    b.output(x, {1, spec.filters, spec.size, spec.size});
    return b.bytes();
}

const std::vector<std::string>& modelKinds()
{
    static const std::vector<std::string> kinds = {"resnet18", "mobilenetv2", "encoder",
                                                   "resnet-block", "mlp"};
    return kinds;
}

std::string makeModelBytes(const std::string& kind, std::uint64_t seed)
{
    if (kind == "resnet18") return resnet18(seed);
    if (kind == "mobilenetv2") return mobilenetV2(seed);
    if (kind == "encoder") return encoder(seed);
    if (kind == "resnet-block") return resnetBlock(seed);
    if (kind == "mlp") return mlp(seed);
    return {};
}

bool makeModel(const std::string& kind, const std::string& path, std::uint64_t seed,
               std::string* why)
{
    const std::string bytes = makeModelBytes(kind, seed);
    if (bytes.empty()) {
        std::string known;
        for (const auto& k : modelKinds())
            known += (known.empty() ? "" : ", ") + k;
        *why = "unknown model '" + kind + "' (known: " + known + ")";
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
