// The operators Loopscope runs, each once: its fusion pattern (as Relay's TOpPattern), how its
// outputs' shapes follow from its inputs (and opset), its reference semantics (float64 values, as
// ONNX defines the operator at that opset: the interpreter and constant folding), and its tensor
// expression as TE script lines (a task's compute, in the way TOPI writes it).
#pragma once

#include "graph/Graph.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace loopscope {

// Quantized values' types.
inline constexpr DataType kUInt8{DataType::UInt, 8, 1};
inline constexpr DataType kInt8{DataType::Int, 8, 1};

// What fusion may do with an operator (Relay's TOpPattern).
enum class OpPattern {
    ElemWise,        // each output element from the same element of each input
    Broadcast,       // element-wise, inputs broadcast along axes in order
    Injective,       // each output element from one input element (reshape, transpose, concat)
    CommReduce,      // a commutative reduction
    OutEWiseFusable, // a complex op whose output element-wise consumers may join it (conv, dense)
    Opaque,          // fuses with nothing
};
const char* patternName(OpPattern p); // "elementwise", "broadcast", ...

// The attribute AlterConvLayout gives a convolution whose weights it rearranged into blocks of
// this many output channels (F/B x C x KH x KW x B), and AlterDenseLayout a Gemm or MatMul
// whose constant weights it rearranged into panels of this many output columns (N/B x K x B);
// not an ONNX attribute.
inline constexpr const char* kWeightBlock = "loopscope_weight_block";
// Where filter `f`'s element `k` (of its C x KH x KW, `perFilter` in all) lies in weights in
// blocks of `block` output channels.
inline std::int64_t blockedWeightOffset(std::int64_t f, std::int64_t k, std::int64_t perFilter,
                                        std::int64_t block)
{
    return ((f / block) * perFilter + k) * block + f % block;
}

// Data in blocks of channels (NCHW16c, as Relay's AlterOpLayout and oneDNN keep it between
// layers): an N x C x S... tensor held as N x C/B x S... x B, so a block's B channels of one
// position are adjacent and a kernel loads them as one vector. The layout pass (ConvertLayout)
// gives a Conv, MaxPool or AveragePool these attributes: input 0 in blocks of kInBlock channels,
// the output in blocks of kOutBlock (absent or 0: N x C x S...). Not ONNX attributes.
inline constexpr const char* kInBlock = "loopscope_in_block";
inline constexpr const char* kOutBlock = "loopscope_out_block";
// LayoutTransform's attributes: from blocks of this many channels to blocks of that many (0:
// N x C x S...).
inline constexpr const char* kFromBlock = "from_block";
inline constexpr const char* kToBlock = "to_block";
// A tensor's values moved from blocks of `from` channels to blocks of `to` (0: N x C x S...);
// `shape` is its shape in N x C x S... .
HostBuffer relayout(const HostBuffer& value, const std::vector<std::int64_t>& plain,
                    std::int64_t from, std::int64_t to);

// A mistake in a model (an attribute out of range, shapes that do not fit): said with the node.
class GraphError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A node seen by its operator's functions.
class OpContext {
public:
    OpContext(const Graph& graph, const GraphNode& node) : m_graph(graph), m_node(node) {}
    const GraphNode& node() const { return m_node; }
    const Graph& graph() const { return m_graph; }
    std::int64_t opset() const { return m_graph.opset; }
    int inputCount() const { return static_cast<int>(m_node.inputs.size()); }
    bool hasInput(int i) const;
    const GraphTensor& input(int i) const;
    const std::vector<std::int64_t>& shape(int i) const { return input(i).shape; }
    // The values of a constant input, or null.
    const HostBuffer* constant(int i) const;
    // An input that must be constant (shapes, axes, pads...), as integers.
    std::vector<std::int64_t> constantInts(int i, const char* what) const;
    // "Conv 'conv1': " for messages.
    std::string where() const;
    [[noreturn]] void fail(const std::string& message) const;

private:
    const Graph& m_graph;
    const GraphNode& m_node;
};

struct TensorType {
    DataType dtype = DataType::float32();
    std::vector<std::int64_t> shape;
};

// Writes a task's TE script: tensors as script variables with known shapes, fresh names.
class ScriptWriter {
public:
    // A fresh, valid Python name from `base`.
    std::string fresh(const std::string& base);
    void line(const std::string& text) { m_lines.push_back(text); }
    const std::vector<std::string>& lines() const { return m_lines; }
    // The lambda's index names for a shape: "i0, i1, i2".
    static std::vector<std::string> indices(std::size_t rank, const std::string& prefix = "i");
    // "(1, 64, 56, 56)"; a scalar (rank 0) is a tensor of one element in a script: "(1,)".
    static std::string shapeText(const std::vector<std::int64_t>& shape);
    // The shape a tensor has in a script: a scalar's is {1}.
    static std::vector<std::int64_t> scriptShape(const std::vector<std::int64_t>& shape);
    // "X[i0, i1]"; a scalar is "X[0]".
    static std::string load(const std::string& tensor, const std::vector<std::string>& idx);
    // "Y = te.compute((2, 3), lambda i0, i1: BODY, name=\"Y\")" where `body` is made from the
    // index names (a scalar output gets one dummy index).
    void compute(const std::string& var, const std::vector<std::int64_t>& shape,
                 const std::function<std::string(const std::vector<std::string>&)>& body,
                 const std::string& name);
    // A float constant of the type: tvm.tir.const(0.5, "float32").
    static std::string constant(double v, DataType t);

    // Convolutions that have a Winograd computation (kWinogradTile) write it instead of the
    // direct one: a task script holds both, written one after the other (taskScript).
    bool winograd = false;

private:
    std::vector<std::string> m_lines;
    std::vector<std::string> m_used;
};

// How an operator writes its compute: `in` are the script variables of its inputs ("" for an
// absent optional input), `out` the variables its outputs must be bound to; constant inputs that
// only configure the op (shapes, axes) are read from the context.
struct OpSpec {
    std::string name;
    OpPattern pattern;
    std::vector<TensorType> (*infer)(const OpContext&);
    std::vector<HostBuffer> (*evaluate)(const OpContext&, const std::vector<const HostBuffer*>&);
    void (*emit)(const OpContext&, ScriptWriter&, const std::vector<std::string>& in,
                 const std::vector<std::string>& out);
    // The output is its input under another shape (Reshape, Flatten, Squeeze, Unsqueeze,
    // Identity, Dropout): a model run shares the buffer instead of copying it.
    bool view = false;
    // Made by the graph passes only (LayoutTransform): a model that names it is refused.
    bool internal = false;
    // The operator set it is in: "" for ONNX's own, else "com.microsoft" (ONNX Runtime's
    // QLinearAdd).
    const char* domain = "";
};

const OpSpec* findOperator(const std::string& name);
const std::vector<OpSpec>& operatorCatalogue();

// The registries of the op families, one per file.
void registerElementwiseOps(std::vector<OpSpec>& out);
void registerNetworkOps(std::vector<OpSpec>& out);
void registerShapeOps(std::vector<OpSpec>& out);
void registerQuantizeOps(std::vector<OpSpec>& out);
void registerIntegerOps(std::vector<OpSpec>& out);

// Numpy broadcasting of two shapes (or a GraphError naming both).
std::vector<std::int64_t> broadcastShapes(const std::vector<std::int64_t>& a,
                                          const std::vector<std::int64_t>& b, const OpContext& c);
// The element of `in` (of `inShape`) that broadcasts to output element `outIndex` (of
// `outShape`), as a flat index.
std::int64_t broadcastFlat(const std::vector<std::int64_t>& outIndex,
                           const std::vector<std::int64_t>& inShape);
// The index along `axis` of element `flat` (row-major) of a tensor of `shape`: the slice a
// per-axis scale or zero point of that element is.
std::int64_t sliceAlong(std::int64_t flat, const std::vector<std::int64_t>& shape,
                        std::size_t axis);
// A flat row-major index as a multi-dimensional one.
void unflatten(std::int64_t flat, const std::vector<std::int64_t>& shape,
               std::vector<std::int64_t>& index);
// The output element's index expressions in the broadcast input's dimensions.
std::vector<std::string> broadcastIndices(const std::vector<std::string>& outIndices,
                                          const std::vector<std::int64_t>& outShape,
                                          const std::vector<std::int64_t>& inShape);
// An axis attribute normalized to [0, rank) (negative counts from the end), or a GraphError.
std::int64_t normalizeAxis(std::int64_t axis, std::size_t rank, const OpContext& c);
// A buffer of the interpreter's type for values of `t`: float64 for floats, else `t`.
HostBuffer referenceBuffer(DataType t, const std::vector<std::int64_t>& shape);

} // namespace loopscope
