// Tensors and the operations that define them: placeholders (inputs) and computes (a body over an
// iteration domain, possibly a reduction). One output per operation, so a tensor is its operation.
#pragma once

#include "ir/Diagnostic.h"
#include "ir/Expr.h"

#include <string>
#include <vector>

namespace loopscope {

struct OperationNode {
    enum class Kind { Placeholder, Compute };

    Kind kind = Kind::Placeholder;
    std::string name;
    std::string tag;
    std::vector<Expr> shape;
    DataType dtype = DataType::float32();
    std::vector<IterVar> axes;       // compute: one per output dimension
    std::vector<IterVar> reduceAxes; // compute: the axes its Reduce body reduces over
    Expr body;                       // compute: the value at (axes...), a ReduceNode for reductions
    SourceLoc loc;                   // where the user declared it

    bool isPlaceholder() const { return kind == Kind::Placeholder; }
    bool isCompute() const { return kind == Kind::Compute; }
    bool isReduction() const { return body.defined() && body.kind() == ExprKind::Reduce; }
    int ndim() const { return static_cast<int>(shape.size()); }
};

Tensor makePlaceholder(std::string name, std::vector<Expr> shape, DataType dtype, SourceLoc loc);
Tensor makeCompute(std::string name, std::string tag, std::vector<IterVar> axes, Expr body,
                   SourceLoc loc);

// The tensors `op` reads, in order of first appearance in its body.
std::vector<Tensor> inputTensors(const Tensor& op);

// The same operation with every read of a tensor in `replace` redirected to its replacement.
Tensor replaceInputs(const Tensor& op, const std::vector<std::pair<Tensor, Tensor>>& replace);

} // namespace loopscope
