#include "runtime/FlopCount.h"

#include "tir/Analyzer.h"
#include "tir/IRUtil.h"

#include <set>

namespace loopscope {

namespace {

bool readsTensor(const Expr& e)
{
    bool found = false;
    forEachExpr(e, [&](const Expr& sub) { found = found || sub.kind() == ExprKind::TensorLoad; });
    return found;
}

// Arithmetic on values (not on indices): binary operators and math calls, on floats or on what
// a tensor holds (an int32 matmul's multiply-adds count as a float32 one's do, as in TVM's
// operation count; the `i - 1` of a padding condition does not), plus the combine step of a
// reduction.
double opsIn(const Expr& body)
{
    double ops = 0;
    forEachExpr(body, [&](const Expr& e) {
        if (e.kind() == ExprKind::TensorLoad) return;
        if (auto* b = e.as<BinaryNode>()) {
            bool arithmetic = b->kind >= ExprKind::Add && b->kind <= ExprKind::Max;
            if (arithmetic && (b->a.type().isFloat() || readsTensor(e))) ops += 1;
        } else if (auto* c = e.as<CallNode>()) {
            if (c->op != CallOp::IfThenElse && c->op != CallOp::Likely && (c->type.isFloat() || readsTensor(e)))
                ops += 1;
        }
    });
    return ops;
}

// Index arithmetic inside tensor reads is not work; walk the loads' indices out of the count.
double valueOps(const Expr& e)
{
    double total = opsIn(e);
    forEachExpr(e, [&](const Expr& sub) {
        if (auto* load = sub.as<TensorLoadNode>())
            for (auto& i : load->indices) total -= opsIn(i);
    });
    return total;
}

double extentOf(const Expr& e, const SizeValues& sizes)
{
    std::int64_t n;
    return evaluateSize(e, sizes, &n) ? static_cast<double>(n) : 0;
}

void collect(const Tensor& t, std::set<const OperationNode*>& seen, std::vector<Tensor>& out)
{
    if (!seen.insert(t.get()).second) return;
    for (auto& in : inputTensors(t)) collect(in, seen, out);
    out.push_back(t);
}

}  // namespace

bool evaluateSize(const Expr& e, const SizeValues& sizes, std::int64_t* out)
{
    VarMap sub;
    for (auto& [v, value] : sizes) sub[v] = makeInt(value, v->type);
    return isConstInt(simplify(substitute(e, sub)), out);
}

double flopCount(const std::vector<Tensor>& outputs, const SizeValues& sizes)
{
    std::set<const OperationNode*> seen;
    std::vector<Tensor> ops;
    for (auto& t : outputs) collect(t, seen, ops);
    double total = 0;
    for (auto& op : ops) {
        if (!op->isCompute()) continue;
        double domain = 1;
        for (auto& a : op->axes) domain *= extentOf(a->dom.extent, sizes);
        double perPoint;
        if (auto* r = op->body.as<ReduceNode>()) {
            for (auto& a : r->axes) domain *= extentOf(a->dom.extent, sizes);
            perPoint = valueOps(r->source) + 1;  // the source, then the combine
        } else {
            perPoint = valueOps(op->body);
        }
        total += domain * perPoint;
    }
    return total;
}

}  // namespace loopscope
