#include "graph/OnnxImport.h"

#include "ir/Limits.h"

#include "graph/Operators.h"
#include "ir/Diagnostic.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <variant>

namespace loopscope {

namespace fs = std::filesystem;

namespace {

// Models past this size are refused before parsing (protobuf's own limit is 2 GB).
constexpr std::int64_t kMaxModelBytes = std::int64_t{1} << 31;

class ImportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::optional<DataType> dtypeOf(int elemType)
{
    using T = onnx::TensorProto;
    switch (elemType) {
    case T::FLOAT: return DataType::float32();
    case T::DOUBLE: return DataType::float64();
    case T::FLOAT16: return DataType{DataType::Float, 16, 1};
    case T::INT64: return DataType::int64();
    case T::INT32: return DataType::int32();
    case T::INT16: return DataType{DataType::Int, 16, 1};
    case T::INT8: return DataType{DataType::Int, 8, 1};
    case T::UINT8: return DataType{DataType::UInt, 8, 1};
    case T::BOOL: return DataType::boolean();
    default: return std::nullopt;
    }
}

int elemTypeOf(DataType t)
{
    using T = onnx::TensorProto;
    if (t == DataType::float32()) return T::FLOAT;
    if (t == DataType::float64()) return T::DOUBLE;
    if (t.isFloat() && t.bits == 16) return T::FLOAT16;
    if (t == DataType::int64()) return T::INT64;
    if (t == DataType::int32()) return T::INT32;
    if (t.isInt() && t.bits == 16) return T::INT16;
    if (t.isInt() && t.bits == 8) return T::INT8;
    if (t.isUInt() && t.bits == 8) return T::UINT8;
    if (t.isBool()) return T::BOOL;
    return T::UNDEFINED;
}

std::string bytesText(std::int64_t n)
{
    const std::string digits = std::to_string(n);
    std::string s;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
        s += digits[i];
    }
    return s + " bytes";
}

// A byte count too large for 64 bits (dimensions multiplied in long double), in the form of 1e+29.
std::string bytesTextOf(long double n)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3Lg bytes", n);
    return text;
}

// The values of a TensorProto, from its raw bytes, its typed fields or its external file.
HostBuffer tensorFromProto(const onnx::TensorProto& t, const std::string& folder)
{
    const std::string what = "tensor '" + t.name() + "'";
    auto dtype = dtypeOf(t.data_type());
    if (!dtype)
        throw ImportError(what + " has an element type Loopscope does not read (ONNX type " +
                          std::to_string(t.data_type()) + ")");
    std::vector<std::int64_t> shape;
    long double count = 1;
    for (auto d : t.dims()) {
        if (d < 0) throw ImportError(what + " has a negative dimension");
        shape.push_back(d);
        count *= static_cast<long double>(d);
    }
    const long double bytes = count * dtype->bytes();
    if (bytes > static_cast<long double>(kMaxModelBytes))
        throw ImportError(
            what + " would need " +
            (bytes < 9e18L ? bytesText(static_cast<std::int64_t>(bytes)) : bytesTextOf(bytes)) +
            "; more than a model may hold");
    HostBuffer out(*dtype, shape);
    const std::int64_t n = out.elementCount();
    auto copyRaw = [&](const char* data, std::size_t size) {
        if (static_cast<std::int64_t>(size) != out.byteSize())
            throw ImportError(what + " says " + dimsText(shape) + " " + dtype->str() + " (" +
                              bytesText(out.byteSize()) + ") but holds " +
                              bytesText(static_cast<std::int64_t>(size)));
        if (size) std::memcpy(out.data(), data, size); // little-endian, as ONNX stores it
    };
    if (t.data_location() == onnx::TensorProto::EXTERNAL) {
        std::string location;
        std::int64_t offset = 0, length = -1;
        for (auto& e : t.external_data()) {
            if (e.key() == "location") location = e.value();
            if (e.key() == "offset") offset = std::stoll(e.value());
            if (e.key() == "length") length = std::stoll(e.value());
        }
        // External data stays inside the model's folder: no absolute path, nothing above it.
        const fs::path rel(location);
        if (folder.empty() || location.empty() || rel.is_absolute() ||
            std::any_of(rel.begin(), rel.end(), [](const fs::path& p) { return p == ".."; }))
            throw ImportError(what + "'s external data '" + location +
                              "' is not a file in the model's folder");
        const fs::path file = fs::path(folder) / rel;
        std::error_code ec;
        const auto size = static_cast<std::int64_t>(fs::file_size(file, ec));
        if (ec)
            throw ImportError(what + "'s external data '" + location +
                              "' cannot be read: " + ec.message());
        if (length < 0) length = size - offset;
        if (offset < 0 || length < 0 || offset + length > size)
            throw ImportError(what + "'s external data asks for bytes " + std::to_string(offset) +
                              " to " + std::to_string(offset + length) + " of '" + location +
                              "', which has " + bytesText(size));
        std::ifstream in(file, std::ios::binary);
        std::string data(static_cast<std::size_t>(length), '\0');
        in.seekg(offset);
        in.read(data.data(), length);
        copyRaw(data.data(), data.size());
        return out;
    }
    if (t.has_raw_data()) {
        copyRaw(t.raw_data().data(), t.raw_data().size());
        return out;
    }
    auto need = [&](std::int64_t have) {
        if (have != n)
            throw ImportError(what + " says " + dimsText(shape) + " (" + std::to_string(n) +
                              " values) but holds " + std::to_string(have));
    };
    using T = onnx::TensorProto;
    switch (t.data_type()) {
    case T::FLOAT:
        need(t.float_data_size());
        for (std::int64_t i = 0; i < n; ++i)
            out.set(i, t.float_data(static_cast<int>(i)));
        break;
    case T::DOUBLE:
        need(t.double_data_size());
        for (std::int64_t i = 0; i < n; ++i)
            out.set(i, t.double_data(static_cast<int>(i)));
        break;
    case T::INT64:
        need(t.int64_data_size());
        for (std::int64_t i = 0; i < n; ++i)
            out.setInt(i, t.int64_data(static_cast<int>(i)));
        break;
    case T::FLOAT16: {
        need(t.int32_data_size());
        auto* bits = static_cast<std::uint16_t*>(out.data());
        for (std::int64_t i = 0; i < n; ++i)
            bits[i] = static_cast<std::uint16_t>(t.int32_data(static_cast<int>(i)));
        break;
    }
    default: // int32, int16, int8, uint8, bool: in int32_data
        need(t.int32_data_size());
        for (std::int64_t i = 0; i < n; ++i)
            out.setInt(i, t.int32_data(static_cast<int>(i)));
        break;
    }
    return out;
}

void tensorToProto(const std::string& name, const HostBuffer& b, onnx::TensorProto* t)
{
    t->set_name(name);
    t->set_data_type(elemTypeOf(b.dtype()));
    for (auto d : b.shape())
        t->add_dims(d);
    t->set_raw_data(
        std::string(static_cast<const char*>(b.data()), static_cast<std::size_t>(b.byteSize())));
}

Attribute attributeOf(const onnx::AttributeProto& a, const std::string& folder)
{
    using A = onnx::AttributeProto;
    Attribute out;
    switch (a.type()) {
    case A::INT: out.value = static_cast<std::int64_t>(a.i()); break;
    case A::FLOAT: out.value = static_cast<double>(a.f()); break;
    case A::STRING: out.value = a.s(); break;
    case A::INTS: out.value = std::vector<std::int64_t>(a.ints().begin(), a.ints().end()); break;
    case A::FLOATS: out.value = std::vector<double>(a.floats().begin(), a.floats().end()); break;
    case A::STRINGS:
        out.value = std::vector<std::string>(a.strings().begin(), a.strings().end());
        break;
    case A::TENSOR:
        out.value = std::make_shared<const HostBuffer>(tensorFromProto(a.t(), folder));
        break;
    default: out.value = std::string("(unsupported attribute type)"); break;
    }
    return out;
}

bool isDefaultDomain(const std::string& d)
{
    return d.empty() || d == "ai.onnx";
}

// The shape a ValueInfo gives, with the user's dimensions for the inputs; nullopt for a
// dimension nobody gave (its name in *missing).
std::optional<std::vector<std::int64_t>> shapeOf(const onnx::ValueInfoProto& v,
                                                 std::string* missing)
{
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) {
        *missing = "(no shape)";
        return std::nullopt;
    }
    std::vector<std::int64_t> out;
    for (auto& d : v.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value() || d.dim_value() < 0) {
            *missing = d.has_dim_param() ? d.dim_param() : "?";
            return std::nullopt;
        }
        out.push_back(d.dim_value());
    }
    return out;
}

void setShape(onnx::ValueInfoProto* v, const std::vector<std::int64_t>& shape)
{
    auto* s = v->mutable_type()->mutable_tensor_type()->mutable_shape();
    s->clear_dim();
    for (auto d : shape)
        s->add_dim()->set_dim_value(d);
}

// Our own inference and folding, node by node: every output's shape and type; nodes whose inputs
// are all constant (Shape -> Gather -> Concat -> Reshape chains, Constant nodes) become constants.
void inferAndFold(Graph& g, std::vector<std::string>& notes)
{
    std::vector<GraphNode> kept;
    int folded = 0;
    for (GraphNode& node : g.nodes) {
        const OpSpec* spec = findOperator(node.op);
        LS_ASSERT(spec, "an unsupported operator " << node.op << " reached folding");
        OpContext ctx(g, node);
        std::vector<TensorType> types = spec->infer(ctx);
        // What Loopscope indexes is at most kMaxIndex elements: refused here, before a constant
        // of that shape is computed or a task is written for it.
        for (const TensorType& t : types) {
            std::int64_t n = 1;
            bool over = false;
            for (std::int64_t d : t.shape)
                over = over || d < 0 || __builtin_mul_overflow(n, d, &n) || n > kMaxIndex;
            if (over)
                ctx.fail("makes a tensor of shape " + dimsText(t.shape) + ": more than " +
                         std::to_string(kMaxIndex) + " elements, what Loopscope can index");
        }
        if (types.size() < node.outputs.size())
            ctx.fail("makes " + std::to_string(types.size()) + " outputs, the model names " +
                     std::to_string(node.outputs.size()));
        bool allConstant = node.op == "Constant" || node.op == "Shape";
        if (!allConstant) {
            allConstant = true;
            for (int i = 0; i < ctx.inputCount(); ++i)
                if (ctx.hasInput(i) && !ctx.input(i).isConstant()) allConstant = false;
            // Quantized weights stay quantized until FuseQuantized has read them (as ONNX
            // Runtime's constant folding leaves DequantizeLinear); FoldConstants folds the rest.
            if (node.op == "DequantizeLinear") allConstant = false;
        }
        std::vector<HostBuffer> values;
        if (allConstant) {
            std::vector<const HostBuffer*> in;
            for (int i = 0; i < ctx.inputCount(); ++i)
                in.push_back(ctx.hasInput(i) ? ctx.input(i).constant.get() : nullptr);
            values = spec->evaluate(ctx, in);
        }
        for (std::size_t o = 0; o < node.outputs.size(); ++o) {
            if (node.outputs[o].empty()) continue;
            GraphTensor t;
            t.name = node.outputs[o];
            t.dtype = types[o].dtype;
            t.shape = types[o].shape;
            if (const GraphTensor* declared = g.find(t.name);
                declared && !declared->shape.empty() && declared->shape != t.shape &&
                declared->elementCount() != 0) {
                ctx.fail("makes " + dimsText(t.shape) + " for '" + t.name + "', the model says " +
                         dimsText(declared->shape));
            }
            if (allConstant) {
                // The values in the output's own type (the interpreter computes floats in float64).
                HostBuffer v(t.dtype, t.shape);
                for (std::int64_t i = 0; i < v.elementCount(); ++i) {
                    if (t.dtype.isFloat())
                        v.set(i, values[o].get(i));
                    else
                        v.setInt(i, values[o].getInt(i));
                }
                t.constant = std::make_shared<const HostBuffer>(std::move(v));
            }
            g.add(std::move(t));
        }
        if (allConstant)
            ++folded;
        else
            kept.push_back(std::move(node));
    }
    g.nodes = std::move(kept);
    g.removeUnusedTensors();
    if (folded) notes.push_back(std::to_string(folded) + " node(s) of constants folded at import");
}

} // namespace

const std::vector<std::string>& supportedOperators()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (auto& s : operatorCatalogue())
            if (!s.internal) n.push_back(s.name);
        return n;
    }();
    return names;
}

bool bindsAsConstant(const HostBuffer& value)
{
    return !value.dtype().isFloat();
}

ImportResult importOnnx(const std::string& path, const ImportOptions& options)
{
    ImportResult r;
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) {
        r.error = "cannot read '" + path + "': " + ec.message();
        return r;
    }
    if (static_cast<std::int64_t>(size) >= kMaxModelBytes) {
        r.error = "'" + path + "' is " + bytesText(static_cast<std::int64_t>(size)) +
                  "; a model must be under 2 GB (larger weights go in external data files)";
        return r;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return importOnnxBytes(ss.str(), fs::path(path).parent_path().string(), options);
}

ImportResult importOnnxBytes(const std::string& bytes, const std::string& folder,
                             const ImportOptions& options)
{
    ImportResult r;
    try {
        onnx::ModelProto model;
        if (!model.ParseFromString(bytes) || !model.has_graph())
            throw ImportError(
                "the file is not an ONNX model (no ModelProto with a graph could be read)");
        Graph& g = r.graph;
        for (auto& o : model.opset_import())
            if (isDefaultDomain(o.domain())) g.opset = o.version();
        if (g.opset == 0) throw ImportError("the model names no opset of the default domain");
        onnx::GraphProto* graph = model.mutable_graph();
        g.name = graph->name();

        // The inputs' shapes: the user's where given (and consistent with the model's).
        std::set<std::string> initializers;
        for (auto& t : graph->initializer())
            initializers.insert(t.name());
        // Inputs given as constants become initializers.
        for (auto& [name, value] : options.constants) {
            const onnx::ValueInfoProto* input = nullptr;
            std::string names;
            for (auto& v : graph->input()) {
                if (v.name() == name) input = &v;
                if (!initializers.count(v.name())) names += (names.empty() ? "" : ", ") + v.name();
            }
            if (!input)
                throw ImportError("'" + name +
                                  "' is not an input of the model (its inputs: " + names + ")");
            const int declared = input->type().tensor_type().elem_type();
            if (declared != 0 && declared != elemTypeOf(value.dtype()))
                throw ImportError("input '" + name + "' is " +
                                  (dtypeOf(declared) ? dtypeOf(declared)->str()
                                                     : "of ONNX type " + std::to_string(declared)) +
                                  "; the value given for it is " + value.dtype().str());
            // An input with a default value (an initializer of its name) takes the one given.
            if (initializers.count(name)) {
                for (auto& t : *graph->mutable_initializer())
                    if (t.name() == name) {
                        t.Clear();
                        tensorToProto(name, value, &t);
                    }
                continue;
            }
            tensorToProto(name, value, graph->add_initializer());
            initializers.insert(name);
        }
        std::set<std::string> given;
        for (auto& v : *graph->mutable_input()) {
            if (initializers.count(v.name())) continue;
            auto it = options.shapes.find(v.name());
            std::string missing;
            auto declared = shapeOf(v, &missing);
            if (it != options.shapes.end()) {
                given.insert(v.name());
                const auto& want = it->second;
                const auto& dims = v.type().tensor_type().shape().dim();
                if (v.type().tensor_type().has_shape() &&
                    static_cast<std::size_t>(dims.size()) != want.size())
                    throw ImportError("input '" + v.name() + "' has rank " +
                                      std::to_string(dims.size()) + "; --shape gives " +
                                      dimsText(want));
                for (int d = 0; d < dims.size() && v.type().tensor_type().has_shape(); ++d)
                    if (dims[d].has_dim_value() &&
                        dims[d].dim_value() != want[static_cast<std::size_t>(d)])
                        throw ImportError("input '" + v.name() + "' is " +
                                          (declared ? dimsText(*declared) : std::string("fixed")) +
                                          " in the model; --shape gives " + dimsText(want));
                setShape(&v, want);
            } else if (!declared) {
                throw ImportError("input '" + v.name() + "' has a dynamic dimension '" + missing +
                                  "': give its shape, e.g. --shape " + v.name() + "=1x3x224x224");
            }
        }
        for (auto& [name, shape] : options.shapes)
            if (!given.count(name))
                throw ImportError("--shape names '" + name +
                                  "', which is not an input of the model");

        // Operators Loopscope cannot run: all of them, at once.
        std::map<std::string, std::vector<std::string>> unknown;
        for (auto& n : graph->node()) {
            const std::string key =
                isDefaultDomain(n.domain()) ? n.op_type() : n.domain() + "." + n.op_type();
            const OpSpec* spec = findOperator(n.op_type());
            const bool domain = isDefaultDomain(n.domain()) ? spec && !*spec->domain
                                                            : spec && n.domain() == spec->domain;
            if (!spec || !domain || spec->internal) unknown[key].push_back(n.name());
        }
        for (auto& [op, nodes] : unknown) {
            std::string names;
            for (std::size_t i = 0; i < nodes.size() && i < 5; ++i)
                names += (i ? ", " : "") + (nodes[i].empty() ? std::string("(unnamed)") : nodes[i]);
            if (nodes.size() > 5) names += ", ...";
            r.unsupported.push_back(op + " (" + std::to_string(nodes.size()) + " node" +
                                    (nodes.size() == 1 ? "" : "s") + ": " + names + ")");
        }
        if (!r.unsupported.empty() && !options.allowUnsupported) {
            std::string list;
            for (auto& u : r.unsupported)
                list += "\n  " + u;
            throw ImportError("the model uses operators Loopscope cannot run (opset " +
                              std::to_string(g.opset) + "):" + list);
        }

        try {
            onnx::checker::check_model(model);
        } catch (const std::exception& e) {
            throw ImportError(std::string("the model fails ONNX's checker: ") + e.what());
        }
        // ONNX's shape inference divides by strides, dilations and kernel sizes without
        // checking them: a zero or negative one is refused before it runs.
        for (auto& n : graph->node()) {
            for (auto& a : n.attribute()) {
                const std::string& key = a.name();
                const bool counts = key == "strides" || key == "dilations" || key == "kernel_shape";
                if (!counts && key != "group") continue;
                std::vector<std::int64_t> values(a.ints().begin(), a.ints().end());
                if (!counts) values = {a.i()};
                for (std::int64_t v : values)
                    if (v <= 0)
                        throw ImportError("node '" + (n.name().empty() ? n.op_type() : n.name()) +
                                          "' (" + n.op_type() + "): attribute '" + key +
                                          "' holds " + std::to_string(v) + "; it must be positive");
            }
        }
        // ONNX's shape inference reads a constant's raw bytes as its dimensions say, past the
        // end of bytes that are fewer: every tensor the model holds is measured first.
        auto checkTensor = [](const onnx::TensorProto& t, const std::string& where) {
            // (Dimensions beyond what a model may hold are refused, with the bytes they need,
            // where the weights are read.)
            std::int64_t n = 1;
            for (std::int64_t d : t.dims())
                if (d < 0 || __builtin_mul_overflow(n, d, &n)) return;
            if (!t.has_raw_data()) return;
            static const std::map<int, std::int64_t> kBytes = {
                {1, 4},  {2, 1},  {3, 1},  {4, 2},  {5, 2},  {6, 4},   {7, 8}, {9, 1},
                {10, 2}, {11, 8}, {12, 4}, {13, 8}, {14, 8}, {15, 16}, {16, 2}};
            auto size = kBytes.find(t.data_type());
            std::int64_t want = 0;
            if (size == kBytes.end() || __builtin_mul_overflow(n, size->second, &want)) return;
            if (static_cast<std::int64_t>(t.raw_data().size()) != want)
                throw ImportError(where + ": tensor '" + t.name() + "' holds " +
                                  std::to_string(t.raw_data().size()) +
                                  " bytes where its dimensions need " + std::to_string(want));
        };
        for (auto& t : graph->initializer())
            checkTensor(t, "initializer");
        for (auto& n : graph->node())
            for (auto& a : n.attribute()) {
                const std::string where = "node '" + (n.name().empty() ? n.op_type() : n.name()) +
                                          "' (" + n.op_type() + ")";
                if (a.has_t()) checkTensor(a.t(), where);
                for (auto& t : a.tensors())
                    checkTensor(t, where);
            }
        try {
            onnx::shape_inference::InferShapes(model);
        } catch (const std::exception& e) {
            r.notes.push_back(std::string("ONNX's shape inference stopped: ") + e.what());
        }

        // Tensors: weights (initializers), inputs, and what shape inference knows of the rest.
        for (auto& t : graph->initializer()) {
            GraphTensor gt;
            gt.name = t.name();
            gt.constant = std::make_shared<const HostBuffer>(tensorFromProto(t, folder));
            gt.dtype = gt.constant->dtype();
            gt.shape = gt.constant->shape();
            g.add(std::move(gt));
        }
        auto declare = [&](const onnx::ValueInfoProto& v, bool input) {
            if (g.has(v.name())) return;
            GraphTensor gt;
            gt.name = v.name();
            auto dtype = dtypeOf(v.type().tensor_type().elem_type());
            if (!dtype) {
                if (input)
                    throw ImportError("input '" + v.name() +
                                      "' has an element type Loopscope does not read");
                return;
            }
            gt.dtype = *dtype;
            std::string missing;
            if (auto s = shapeOf(v, &missing)) gt.shape = *s;
            g.add(std::move(gt));
            if (input) g.inputs.push_back(v.name());
        };
        for (auto& v : graph->input())
            if (!initializers.count(v.name())) declare(v, true);
        for (auto& v : graph->value_info())
            declare(v, false);
        for (auto& v : graph->output()) {
            declare(v, false);
            g.outputs.push_back(v.name());
        }
        int unnamed = 0;
        for (auto& n : graph->node()) {
            GraphNode gn;
            gn.name = n.name().empty() ? n.op_type() + "_" + std::to_string(++unnamed) : n.name();
            gn.op = n.op_type();
            gn.domain = n.domain();
            gn.inputs.assign(n.input().begin(), n.input().end());
            gn.outputs.assign(n.output().begin(), n.output().end());
            for (auto& a : n.attribute())
                gn.attributes[a.name()] = attributeOf(a, folder);
            g.nodes.push_back(std::move(gn));
        }
        if (!r.unsupported.empty()) {
            r.ok = true; // for `model info`: the graph as read, no shapes past the unknown ops
            return r;
        }
        try {
            inferAndFold(g, r.notes);
        } catch (const GraphError& e) {
            throw ImportError(e.what());
        }
        for (auto& o : g.outputs)
            if (!g.has(o)) throw ImportError("output '" + o + "' is computed by no node");
        r.ok = true;
    } catch (const ImportError& e) {
        r.ok = false;
        r.error = e.what();
    } catch (const std::bad_alloc&) {
        r.ok = false;
        r.error = "out of memory while reading the model";
    } catch (const std::exception& e) {
        r.ok = false;
        r.error = std::string("the model cannot be read: ") + e.what();
    }
    return r;
}

std::vector<std::string> modelInputNames(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    onnx::ModelProto model;
    if (!in || !model.ParseFromIstream(&in)) return {};
    std::set<std::string> initializers;
    for (auto& t : model.graph().initializer())
        initializers.insert(t.name());
    std::vector<std::string> names;
    for (auto& v : model.graph().input())
        if (!initializers.count(v.name())) names.push_back(v.name());
    return names;
}

bool readTensorFile(const std::string& path, std::string* name, HostBuffer* value, std::string* why)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *why = "cannot read '" + path + "'";
        return false;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    onnx::TensorProto t;
    if (!t.ParseFromString(ss.str())) {
        *why = "'" + path + "' is not an ONNX tensor (TensorProto)";
        return false;
    }
    try {
        *value = tensorFromProto(t, fs::path(path).parent_path().string());
        *name = t.name();
    } catch (const ImportError& e) {
        *why = "'" + path + "': " + e.what();
        return false;
    }
    return true;
}

bool writeTensorFile(const std::string& path, const std::string& name, const HostBuffer& value,
                     std::string* why)
{
    onnx::TensorProto t;
    tensorToProto(name, value, &t);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out || !t.SerializeToOstream(&out)) {
        *why = "cannot write '" + path + "'";
        return false;
    }
    return true;
}

namespace {

void valueInfo(const GraphTensor& t, onnx::ValueInfoProto* v)
{
    v->set_name(t.name);
    auto* type = v->mutable_type()->mutable_tensor_type();
    type->set_elem_type(elemTypeOf(t.dtype));
    auto* shape = type->mutable_shape();
    for (auto d : t.shape)
        shape->add_dim()->set_dim_value(d);
}

void attributeToProto(const std::string& name, const Attribute& a, onnx::AttributeProto* p)
{
    using A = onnx::AttributeProto;
    p->set_name(name);
    if (auto* i = std::get_if<std::int64_t>(&a.value)) {
        p->set_type(A::INT);
        p->set_i(*i);
    } else if (auto* f = std::get_if<double>(&a.value)) {
        p->set_type(A::FLOAT);
        p->set_f(static_cast<float>(*f));
    } else if (auto* s = std::get_if<std::string>(&a.value)) {
        p->set_type(A::STRING);
        p->set_s(*s);
    } else if (auto* is = std::get_if<std::vector<std::int64_t>>(&a.value)) {
        p->set_type(A::INTS);
        for (auto v : *is)
            p->add_ints(v);
    } else if (auto* fs = std::get_if<std::vector<double>>(&a.value)) {
        p->set_type(A::FLOATS);
        for (auto v : *fs)
            p->add_floats(static_cast<float>(v));
    } else if (auto* ss = std::get_if<std::vector<std::string>>(&a.value)) {
        p->set_type(A::STRINGS);
        for (auto& v : *ss)
            p->add_strings(v);
    } else if (auto* t = std::get_if<std::shared_ptr<const HostBuffer>>(&a.value)) {
        p->set_type(A::TENSOR);
        tensorToProto("", **t, p->mutable_t());
    }
}

// A constant's values in its tensor's type (folded constants are held as float64).
HostBuffer asType(const HostBuffer& b, DataType t)
{
    if (b.dtype() == t) return b;
    HostBuffer out(t, b.shape());
    for (std::int64_t i = 0; i < b.elementCount(); ++i) {
        if (t.isFloat())
            out.set(i, b.get(i));
        else
            out.setInt(i, b.getInt(i));
    }
    return out;
}

} // namespace

bool writeOnnxModel(const Graph& graph, const std::string& path, std::string* why)
{
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("loopscope");
    auto* opset = model.add_opset_import();
    opset->set_domain("");
    opset->set_version(graph.opset);
    bool microsoft = false;
    auto* g = model.mutable_graph();
    g->set_name(graph.name.empty() ? "loopscope" : graph.name);
    for (auto& name : graph.inputs)
        valueInfo(graph.tensor(name), g->add_input());
    for (auto& name : graph.outputs)
        valueInfo(graph.tensor(name), g->add_output());
    for (auto& [name, t] : graph.tensors())
        if (t.constant) tensorToProto(name, asType(*t.constant, t.dtype), g->add_initializer());
    for (const GraphNode& n : graph.nodes) {
        auto* p = g->add_node();
        p->set_name(n.name);
        p->set_op_type(n.op);
        if (!n.domain.empty()) {
            p->set_domain(n.domain);
            microsoft = microsoft || n.domain == "com.microsoft";
        }
        for (auto& i : n.inputs)
            p->add_input(i);
        for (auto& o : n.outputs)
            p->add_output(o);
        for (auto& [k, a] : n.attributes)
            attributeToProto(k, a, p->add_attribute());
    }
    if (microsoft) {
        auto* ms = model.add_opset_import();
        ms->set_domain("com.microsoft");
        ms->set_version(1);
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out || !model.SerializeToOstream(&out)) {
        *why = "cannot write '" + path + "'";
        return false;
    }
    return true;
}

} // namespace loopscope
