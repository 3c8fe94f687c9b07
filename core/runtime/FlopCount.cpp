#include "runtime/FlopCount.h"

#include "ir/Analyzer.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"

#include <algorithm>
#include <set>

namespace loopscope {

namespace {

bool readsTensor(const Expr& e)
{
    bool found = false;
    forEachExpr(e, [&](const Expr& sub) { found = found || sub.kind() == ExprKind::TensorLoad; });
    return found;
}

// Arithmetic on values: binary operators and math calls, on floats or on what a tensor holds (an
// int32 matmul's multiply-adds count as a float32 one's do, as in TVM's operation count; the
// `i - 1` of a padding condition does not). Index arithmetic inside tensor reads is not work: the
// walk does not enter their indices.
class OpCounter : public IRVisitor {
public:
    double ops = 0;

protected:
    void visitTensorLoad(const TensorLoadNode*) override {}
    void visitBinary(const BinaryNode* op) override
    {
        bool arithmetic = op->kind >= ExprKind::Add && op->kind <= ExprKind::Max;
        if (arithmetic && (op->a.type().isFloat() || readsTensor(op->a) || readsTensor(op->b)))
            ops += 1;
        IRVisitor::visitBinary(op);
    }
    void visitCall(const CallNode* op) override
    {
        if (op->op != CallOp::IfThenElse && op->op != CallOp::Likely &&
            (op->type.isFloat() || std::any_of(op->args.begin(), op->args.end(), readsTensor)))
            ops += 1;
        IRVisitor::visitCall(op);
    }
};

double valueOps(const Expr& e)
{
    OpCounter counter;
    counter.visit(e);
    return counter.ops;
}

double extentOf(const Expr& e, const SizeValues& sizes)
{
    std::int64_t n;
    return evaluateSize(e, sizes, &n) ? static_cast<double>(n) : 0;
}

void collect(const Tensor& t, std::set<const OperationNode*>& seen, std::vector<Tensor>& out)
{
    if (!seen.insert(t.get()).second) return;
    for (auto& in : inputTensors(t))
        collect(in, seen, out);
    out.push_back(t);
}

} // namespace

bool evaluateSize(const Expr& e, const SizeValues& sizes, std::int64_t* out)
{
    VarMap sub;
    for (auto& [v, value] : sizes)
        sub[v] = makeInt(value, v->type);
    return isConstInt(simplify(substitute(e, sub)), out);
}

double flopCount(const std::vector<Tensor>& outputs, const SizeValues& sizes)
{
    std::set<const OperationNode*> seen;
    std::vector<Tensor> ops;
    for (auto& t : outputs)
        collect(t, seen, ops);
    double total = 0;
    for (auto& op : ops) {
        if (!op->isCompute()) continue;
        double domain = 1;
        for (auto& a : op->axes)
            domain *= extentOf(a->dom.extent, sizes);
        double perPoint;
        if (auto* r = op->body.as<ReduceNode>()) {
            for (auto& a : r->axes)
                domain *= extentOf(a->dom.extent, sizes);
            perPoint = valueOps(r->source) + 1; // the source, then the combine
        } else {
            perPoint = valueOps(op->body);
        }
        total += domain * perPoint;
    }
    return total;
}

} // namespace loopscope
