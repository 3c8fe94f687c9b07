// Reading ONNX models (through Debian's libonnx: the protobuf messages, onnx::checker and ONNX's
// shape inference) into a Graph, and tensors in ONNX's TensorProto form (the layout of ONNX's test
// data: input_0.pb, output_0.pb, ...). Bad input is an error that says what and where, never a
// crash: a file that is not a model, a model that fails ONNX's checker, operators Loopscope
// cannot run (all of them listed at once, with counts, the opset and the nodes' names), inputs of
// the wrong shape, a dynamic dimension nobody gave, weights whose bytes do not match their shape,
// external data outside the model's folder or past the end of its file.
#pragma once

#include "graph/Graph.h"

#include <map>
#include <string>
#include <vector>

namespace loopscope {

struct ImportOptions {
    // Shapes for the graph's inputs by name (--shape input=1x3x224x224): they replace the
    // model's, which must agree where the model fixes a dimension.
    std::map<std::string, std::vector<std::int64_t>> shapes;
    // Import even with operators Loopscope cannot run (`model info` lists them): the graph has
    // their nodes, without output shapes past them.
    bool allowUnsupported = false;
    // Inputs given as constants (ONNX's test data gives a Reshape's shape or a Slice's starts as
    // inputs; `model run --input NAME=FILE.pb` with integers): they become weights, and what they
    // configure is static, as Relay's freeze_params makes it. A name that is not an input, or a
    // value of another type than the input's, is an error.
    std::map<std::string, HostBuffer> constants;
};

// Whether a value given for an input is bound as a constant at import: integers (shapes, axes,
// starts, split sizes, indices) are; floating-point data stays an input.
bool bindsAsConstant(const HostBuffer& value);

struct ImportResult {
    bool ok = false;
    std::string error; // when !ok, in the user's words
    Graph graph;
    std::vector<std::string> notes;
    // Operators the model uses that Loopscope cannot run: "LSTM (2 nodes: lstm_1, lstm_2)".
    std::vector<std::string> unsupported;
};

// `path`'s folder is where external data may be read from.
ImportResult importOnnx(const std::string& path, const ImportOptions& options = {});
// The same from the file's bytes (`folder`: where its external data would be, or "" for none).
ImportResult importOnnxBytes(const std::string& bytes, const std::string& folder,
                             const ImportOptions& options = {});

// The names of a model's inputs that are not weights, in order (empty when it cannot be read):
// what test data files without names are matched to.
std::vector<std::string> modelInputNames(const std::string& path);

// A TensorProto file: its name and values, or false with why not.
bool readTensorFile(const std::string& path, std::string* name, HostBuffer* value,
                    std::string* why);
bool writeTensorFile(const std::string& path, const std::string& name, const HostBuffer& value,
                     std::string* why);

// A graph as an ONNX model (what `model quantize` writes): its nodes in order, its constants
// as initializers of their tensors' types, its inputs and outputs with their shapes; false with
// why not.
bool writeOnnxModel(const Graph& graph, const std::string& path, std::string* why);

// The ops the importer accepts ("Conv", "Relu", ...), for `model info` and the tests.
const std::vector<std::string>& supportedOperators();

} // namespace loopscope
