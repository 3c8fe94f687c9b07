// A model as a dataflow graph: named tensors (their element type, static shape and, for weights
// and folded constants, their values) and the operator nodes that compute them, in an order where
// every node comes after the nodes it reads. What ONNX import produces, the graph passes rewrite,
// fusion groups into tasks, and the interpreter and the compiled run execute.
#pragma once

#include "ir/DataType.h"
#include "runtime/Buffer.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace loopscope {

// An operator's attribute: an integer, a float, a string, lists of them, or a tensor.
struct Attribute {
    std::variant<std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>,
                 std::vector<std::string>, std::shared_ptr<const HostBuffer>>
        value;
};

struct GraphNode {
    std::string name; // the model's name for the node (may be empty in the file; then made up)
    std::string op;   // "Conv", "Relu", ...
    std::string domain;
    std::vector<std::string> inputs; // tensor names; "" for an optional input left out
    std::vector<std::string> outputs;
    std::map<std::string, Attribute> attributes;

    bool has(const std::string& attr) const { return attributes.count(attr) > 0; }
    std::int64_t intAttr(const std::string& attr, std::int64_t fallback) const;
    double floatAttr(const std::string& attr, double fallback) const;
    std::string stringAttr(const std::string& attr, const std::string& fallback) const;
    std::vector<std::int64_t> intsAttr(const std::string& attr,
                                       std::vector<std::int64_t> fallback = {}) const;
    const HostBuffer* tensorAttr(const std::string& attr) const;
};

struct GraphTensor {
    std::string name;
    DataType dtype = DataType::float32();
    std::vector<std::int64_t> shape; // static: every dimension known
    // Weights and folded constants: the values. Graph inputs and computed tensors: none.
    std::shared_ptr<const HostBuffer> constant;
    // Data in blocks of this many channels (ConvertLayout): the shape is N x C/B x H x W x B.
    std::int64_t channelBlock = 0;
    bool isConstant() const { return constant != nullptr; }
    std::int64_t elementCount() const;
};

class Graph {
public:
    std::string name;
    std::int64_t opset = 0;           // of the default ("ai.onnx") domain
    std::vector<GraphNode> nodes;     // every node after the nodes it reads
    std::vector<std::string> inputs;  // the graph's inputs that are not weights, in order
    std::vector<std::string> outputs; // in order

    GraphTensor& tensor(const std::string& name);
    const GraphTensor& tensor(const std::string& name) const;
    const GraphTensor* find(const std::string& name) const;
    bool has(const std::string& name) const { return m_tensors.count(name) > 0; }
    GraphTensor& add(GraphTensor t);
    void remove(const std::string& name) { m_tensors.erase(name); }
    const std::map<std::string, GraphTensor>& tensors() const { return m_tensors; }

    // The node that computes a tensor (index into nodes), or -1 (an input or a constant).
    int producer(const std::string& tensor) const;
    // The nodes that read a tensor.
    std::vector<int> consumers(const std::string& tensor) const;
    // Drops tensors no node or output refers to.
    void removeUnusedTensors();
    // A tensor name not yet used, from `base`.
    std::string freshName(const std::string& base) const;
    // A new constant (weights rearranged by a pass) under a fresh name from `base`; its name.
    std::string addConstant(const std::string& base, std::shared_ptr<const HostBuffer> value);

private:
    std::map<std::string, GraphTensor> m_tensors;
};

// "1x3x224x224"
std::string dimsText(const std::vector<std::int64_t>& shape);
// N x C x S... as N x C/B x S... x B (B divides C), and back.
std::vector<std::int64_t> blockedShape(const std::vector<std::int64_t>& plain, std::int64_t block);
std::vector<std::int64_t> plainShape(const std::vector<std::int64_t>& blocked);
// A tensor's shape as a reader thinks of it: "1x64x56x56", or "1x64x56x56 NCHW16c" for data in
// blocks of channels.
std::string tensorShapeText(const GraphTensor& t);

} // namespace loopscope
