// Bad models are errors in the user's words, never crashes: bytes that are not a model, a file
// cut short, operators Loopscope cannot run (all listed at once), a dynamic dimension without a
// shape, a shape that contradicts the model, weights whose bytes do not match their shape,
// external data outside the model's folder, a tensor read that nothing defines. And tensors
// round-trip through ONNX's TensorProto files.
#include "graph/ModelMaker.h"
#include "graph/OnnxImport.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace loopscope;
namespace fs = std::filesystem;

namespace {

// A model of one Relu on `x` [shape], opset 14; `dynamic` names the first dimension instead.
onnx::ModelProto reluModel(const std::vector<std::int64_t>& shape, const std::string& dynamic = "")
{
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(14);
    auto* g = m.mutable_graph();
    g->set_name("g");
    auto valueInfo = [&](onnx::ValueInfoProto* v, const std::string& name) {
        v->set_name(name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(onnx::TensorProto::FLOAT);
        for (std::size_t i = 0; i < shape.size(); ++i) {
            auto* d = t->mutable_shape()->add_dim();
            if (i == 0 && !dynamic.empty())
                d->set_dim_param(dynamic);
            else
                d->set_dim_value(shape[i]);
        }
    };
    valueInfo(g->add_input(), "x");
    valueInfo(g->add_output(), "y");
    auto* n = g->add_node();
    n->set_op_type("Relu");
    n->set_name("relu");
    n->add_input("x");
    n->add_output("y");
    return m;
}

// Adds `op` (one input, one output) after the graph's output, which it then becomes.
void appendNode(onnx::ModelProto& m, const std::string& op, const std::string& name)
{
    auto* g = m.mutable_graph();
    const std::string in = g->output(0).name();
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    n->add_input(in);
    n->add_output(name + "_out");
    g->mutable_output(0)->set_name(name + "_out");
}

// An Add of `x` and a weight `w` [3] given as `tensor`.
onnx::ModelProto addWeightModel(const onnx::TensorProto& tensor)
{
    onnx::ModelProto m = reluModel({3});
    auto* g = m.mutable_graph();
    *g->add_initializer() = tensor;
    auto* n = g->mutable_node(0);
    n->set_op_type("Add");
    n->set_name("add");
    n->add_input(tensor.name());
    return m;
}

ImportResult importProto(const onnx::ModelProto& m, const ImportOptions& options = {},
                         const std::string& folder = "")
{
    return importOnnxBytes(m.SerializeAsString(), folder, options);
}

TEST(OnnxImport, BytesThatAreNotAModel)
{
    ImportResult r = importOnnxBytes("this is not a model at all", "");
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.error.empty());
    r = importOnnxBytes("", "");
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.error.empty());
}

TEST(OnnxImport, AFileCutShort)
{
    const std::string bytes = makeModelBytes("resnet-block", 1);
    for (std::size_t keep : {bytes.size() / 2, bytes.size() - 7, std::size_t{40}}) {
        ImportResult r = importOnnxBytes(bytes.substr(0, keep), "");
        EXPECT_FALSE(r.ok) << keep;
        EXPECT_FALSE(r.error.empty());
    }
    ImportResult missing = importOnnx("/nonexistent/model.onnx");
    EXPECT_FALSE(missing.ok);
    EXPECT_NE(missing.error.find("/nonexistent/model.onnx"), std::string::npos) << missing.error;
}

TEST(OnnxImport, EveryUnsupportedOperatorIsListedAtOnce)
{
    onnx::ModelProto m = reluModel({2, 3});
    appendNode(m, "Round", "round_a");
    appendNode(m, "Hardmax", "hardmax_a");
    appendNode(m, "Round", "round_b");
    ImportResult r = importProto(m);
    ASSERT_FALSE(r.ok);
    ASSERT_EQ(r.unsupported.size(), 2u) << r.error;
    EXPECT_NE(r.error.find("Round"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("Hardmax"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("round_a"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("round_b"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("2 nodes"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("14"), std::string::npos) << r.error; // the opset

    ImportOptions anyway;
    anyway.allowUnsupported = true;
    EXPECT_TRUE(importProto(m, anyway).ok);
}

TEST(OnnxImport, ADynamicDimensionNeedsAShape)
{
    onnx::ModelProto m = reluModel({1, 8}, "batch");
    ImportResult r = importProto(m);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("batch"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("--shape"), std::string::npos) << r.error;

    ImportOptions o;
    o.shapes["x"] = {4, 8};
    r = importProto(m, o);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.graph.tensor("y").shape, (std::vector<std::int64_t>{4, 8}));
}

TEST(OnnxImport, AShapeThatContradictsTheModel)
{
    onnx::ModelProto m = reluModel({1, 8});
    ImportOptions o;
    o.shapes["x"] = {1, 9};
    ImportResult r = importProto(m, o);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("x"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("8"), std::string::npos) << r.error;

    o.shapes.clear();
    o.shapes["nonexistent"] = {1};
    r = importProto(m, o);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("nonexistent"), std::string::npos) << r.error;
}

TEST(OnnxImport, WeightBytesThatDoNotMatchTheirShape)
{
    onnx::TensorProto w;
    w.set_name("w");
    w.set_data_type(onnx::TensorProto::FLOAT);
    w.add_dims(3);
    w.set_raw_data(std::string(8, '\0')); // 2 floats for 3
    ImportResult r = importProto(addWeightModel(w));
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("'w'"), std::string::npos) << r.error;
}

// Dimensions whose product does not fit in 64 bits (as some of ONNX's own test models have) are
// refused with their size, not converted past the range of an integer.
TEST(OnnxImport, AWeightLargerThanSixtyFourBitsCanCount)
{
    onnx::TensorProto w;
    w.set_name("w");
    w.set_data_type(onnx::TensorProto::FLOAT);
    for (int i = 0; i < 3; ++i)
        w.add_dims(std::int64_t{1} << 30);
    ImportResult r = importProto(addWeightModel(w));
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("'w' would need 4.95e+27 bytes; more than a model may hold"),
              std::string::npos)
        << r.error;
}

TEST(OnnxImport, ExternalDataStaysInTheModelsFolder)
{
    const fs::path dir =
        fs::temp_directory_path() / ("loopscope-import-" + std::to_string(getpid()));
    fs::create_directories(dir / "model");
    {
        std::ofstream out(dir / "outside.bin", std::ios::binary);
        out << std::string(12, '\1');
        std::ofstream in(dir / "model" / "weights.bin", std::ios::binary);
        in << std::string(8, '\1'); // shorter than the tensor
    }
    auto external = [](const std::string& location) {
        onnx::TensorProto w;
        w.set_name("w");
        w.set_data_type(onnx::TensorProto::FLOAT);
        w.add_dims(3);
        w.set_data_location(onnx::TensorProto::EXTERNAL);
        auto* e = w.add_external_data();
        e->set_key("location");
        e->set_value(location);
        return w;
    };
    const std::string folder = (dir / "model").string();
    ImportResult r = importProto(addWeightModel(external("../outside.bin")), {}, folder);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("outside.bin"), std::string::npos) << r.error;
    r = importProto(addWeightModel(external("/etc/passwd")), {}, folder);
    EXPECT_FALSE(r.ok);
    r = importProto(addWeightModel(external("weights.bin")), {}, folder); // 8 bytes for 12
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("weights.bin"), std::string::npos) << r.error;
    r = importProto(addWeightModel(external("absent.bin")), {}, folder);
    EXPECT_FALSE(r.ok);
    fs::remove_all(dir);
}

TEST(OnnxImport, ATensorNothingDefines)
{
    onnx::ModelProto m = reluModel({3});
    m.mutable_graph()->mutable_node(0)->set_input(0, "undefined_tensor");
    ImportResult r = importProto(m);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("undefined_tensor"), std::string::npos) << r.error;
}

TEST(OnnxImport, AZeroStrideIsRefusedBeforeOnnxDividesByIt)
{
    // ONNX's shape inference of a pool with auto_pad divides by the stride unchecked.
    onnx::ModelProto m = reluModel({1, 1, 5, 5});
    auto* n = m.mutable_graph()->mutable_node(0);
    n->set_op_type("AveragePool");
    n->set_name("pool");
    auto attr = [&](const std::string& name, std::vector<std::int64_t> values) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for (std::int64_t v : values)
            a->add_ints(v);
    };
    attr("kernel_shape", {3, 3});
    attr("strides", {0, 2});
    auto* pad = n->add_attribute();
    pad->set_name("auto_pad");
    pad->set_type(onnx::AttributeProto::STRING);
    pad->set_s("SAME_UPPER");
    ImportResult r = importProto(m);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("'pool'"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("'strides' holds 0"), std::string::npos) << r.error;
}

TEST(OnnxImport, AGatherFromAScalarIsRefused)
{
    onnx::ModelProto m = reluModel({});
    auto* g = m.mutable_graph();
    g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape(); // rank 0
    g->mutable_output(0)
        ->mutable_type()
        ->mutable_tensor_type()
        ->mutable_shape()
        ->add_dim()
        ->set_dim_value(1);
    auto* n = g->mutable_node(0);
    n->set_op_type("Gather");
    n->set_name("gather");
    n->add_input("indices");
    auto* ind = g->add_initializer();
    ind->set_name("indices");
    ind->set_data_type(onnx::TensorProto::INT64);
    ind->add_dims(1);
    ind->add_int64_data(0);
    ImportResult r = importProto(m);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("rank 0"), std::string::npos) << r.error;
}

TEST(OnnxImport, AReshapeToMoreElementsThanATensorCanHoldIsRefused)
{
    onnx::ModelProto m = reluModel({2, 3});
    auto* g = m.mutable_graph();
    auto* n = g->mutable_node(0);
    n->set_op_type("Reshape");
    n->set_name("reshape");
    n->add_input("shape");
    auto* shape = g->add_initializer();
    shape->set_name("shape");
    shape->set_data_type(onnx::TensorProto::INT64);
    shape->add_dims(3);
    for (std::int64_t v : {std::int64_t{1} << 40, std::int64_t{1} << 40, std::int64_t{6}})
        shape->add_int64_data(v);
    ImportResult r = importProto(m);
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("'reshape'"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("more elements than a tensor can"), std::string::npos) << r.error;
}

TEST(OnnxImport, ShapeSubgraphsFoldToConstants)
{
    // As PyTorch writes x.reshape(x.shape[0], -1): Shape -> Gather -> Unsqueeze -> Concat ->
    // Reshape.
    onnx::ModelProto m = reluModel({2, 3, 4});
    auto* g = m.mutable_graph();
    auto int64s = [&](const std::string& name, std::vector<std::int64_t> dims,
                      std::vector<std::int64_t> v) {
        auto* t = g->add_initializer();
        t->set_name(name);
        t->set_data_type(onnx::TensorProto::INT64);
        for (auto d : dims)
            t->add_dims(d);
        for (auto x : v)
            t->add_int64_data(x);
    };
    int64s("zero", {}, {0});
    int64s("axes", {1}, {0});
    int64s("minus_one", {1}, {-1});
    auto node = [&](const std::string& op, std::vector<std::string> in, const std::string& out) {
        auto* n = g->add_node();
        n->set_op_type(op);
        n->set_name(out);
        for (auto& i : in)
            n->add_input(i);
        n->add_output(out);
        return n;
    };
    node("Shape", {"y"}, "shape");
    node("Gather", {"shape", "zero"}, "batch");
    node("Unsqueeze", {"batch", "axes"}, "batch1");
    node("Concat", {"batch1", "minus_one"}, "dims")->add_attribute()->set_name("axis");
    auto* axis = g->mutable_node(g->node_size() - 1)->mutable_attribute(0);
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    node("Reshape", {"y", "dims"}, "flat");
    g->mutable_output(0)->set_name("flat");
    auto* shape = g->mutable_output(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
    shape->clear_dim();
    shape->add_dim()->set_dim_value(2);
    shape->add_dim()->set_dim_value(12);

    ImportResult r = importProto(m);
    ASSERT_TRUE(r.ok) << r.error;
    for (const auto& n : r.graph.nodes)
        EXPECT_TRUE(n.op == "Relu" || n.op == "Reshape") << n.op << " was not folded";
    EXPECT_EQ(r.graph.tensor("flat").shape, (std::vector<std::int64_t>{2, 12}));
}

TEST(OnnxImport, TensorFilesRoundTrip)
{
    const fs::path file =
        fs::temp_directory_path() / ("loopscope-tensor-" + std::to_string(getpid()) + ".pb");
    HostBuffer b(DataType::float32(), {2, 3, 4});
    b.fillRandom(7);
    std::string why;
    ASSERT_TRUE(writeTensorFile(file.string(), "input_0", b, &why)) << why;
    std::string name;
    HostBuffer back;
    ASSERT_TRUE(readTensorFile(file.string(), &name, &back, &why)) << why;
    EXPECT_EQ(name, "input_0");
    ASSERT_EQ(back.shape(), b.shape());
    for (std::int64_t i = 0; i < b.elementCount(); ++i)
        EXPECT_EQ(back.get(i), b.get(i));
    {
        std::ofstream cut(file, std::ios::binary | std::ios::trunc);
        cut << "\x08\x02\x08";
    }
    EXPECT_FALSE(readTensorFile(file.string(), &name, &back, &why));
    EXPECT_FALSE(why.empty());
    fs::remove(file);
}

} // namespace

namespace {

// A weight whose raw bytes are fewer than its dimensions say is refused before ONNX's shape
// inference reads past them.
TEST(OnnxImport, RawBytesShorterThanTheDimensionsAreRefused)
{
    onnx::TensorProto w;
    w.set_name("w");
    w.set_data_type(onnx::TensorProto::INT64);
    w.add_dims(4);
    w.set_raw_data(std::string(12, '\0'));
    ImportResult r = importProto(addWeightModel(w));
    ASSERT_FALSE(r.ok);
    EXPECT_NE(r.error.find("tensor 'w' holds 12 bytes where its dimensions need 32"),
              std::string::npos)
        << r.error;
}

} // namespace
