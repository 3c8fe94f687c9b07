#include "lower/Tensorize.h"

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/IntervalSet.h"
#include "ir/Printer.h"

#include <algorithm>

namespace loopscope {

namespace {

std::string shapeText(const std::vector<Expr>& dims)
{
    std::string out;
    for (const Expr& d : dims)
        out += (out.empty() ? "" : ", ") + printExpr(d);
    return "(" + out + ")";
}

// Reads of the stage's inputs become reads of the intrinsic's, at indices relative to the
// region each input has under the tensorized loop (its leading dimensions of extent 1 dropped).
class RedirectLoads : public IRMutator {
public:
    RedirectLoads(const std::vector<TensorRegionOf>& regions, const std::vector<Tensor>& to,
                  const Analyzer& an)
        : m_regions(regions), m_to(to), m_an(an)
    {
    }

protected:
    Expr visitTensorLoad(const TensorLoadNode* op, const Expr& self) override
    {
        (void)self;
        for (std::size_t i = 0; i < m_regions.size(); ++i) {
            if (m_regions[i].tensor.get() != op->tensor.get()) continue;
            const Tensor& to = m_to[i];
            const std::size_t start = op->indices.size() - to->shape.size();
            std::vector<Expr> idx;
            for (std::size_t d = start; d < op->indices.size(); ++d)
                idx.push_back(m_an.simplify(mutate(op->indices[d]) - m_regions[i].mins[d]));
            return makeTensorLoad(to, idx);
        }
        bool changed = false;
        auto idx = IRMutator::mutate(op->indices, &changed);
        return makeTensorLoad(op->tensor, idx);
    }

private:
    const std::vector<TensorRegionOf>& m_regions;
    const std::vector<Tensor>& m_to;
    const Analyzer& m_an;
};

// The first place where two expressions differ, outermost first: the pair of subexpressions.
std::pair<Expr, Expr> firstDifference(const Expr& a, const Expr& b)
{
    if (exprEqual(a, b)) return {};
    if (a.kind() != b.kind() || a.type() != b.type()) return {a, b};
    std::vector<Expr> ca, cb;
    if (auto* x = a.as<BinaryNode>()) {
        auto* y = b.as<BinaryNode>();
        ca = {x->a, x->b};
        cb = {y->a, y->b};
    } else if (auto* x = a.as<CastNode>()) {
        ca = {x->value};
        cb = {b.as<CastNode>()->value};
    } else if (auto* x = a.as<TensorLoadNode>()) {
        auto* y = b.as<TensorLoadNode>();
        if (x->tensor.get() != y->tensor.get() || x->indices.size() != y->indices.size())
            return {a, b};
        ca = x->indices;
        cb = y->indices;
    } else if (auto* x = a.as<CallNode>()) {
        auto* y = b.as<CallNode>();
        if (x->op != y->op || x->args.size() != y->args.size()) return {a, b};
        ca = x->args;
        cb = y->args;
    } else {
        return {a, b};
    }
    for (std::size_t i = 0; i < ca.size(); ++i)
        if (!exprEqual(ca[i], cb[i])) return firstDifference(ca[i], cb[i]);
    return {a, b};
}

void loadsOf(const Expr& e, const Tensor& t, std::vector<const TensorLoadNode*>* out)
{
    forEachExpr(e, [&](const Expr& n) {
        if (auto* load = n.as<TensorLoadNode>(); load && load->tensor.get() == t.get())
            out->push_back(load);
    });
}

} // namespace

TensorizeMatch matchTensorIntrin(const Stage& s, const Expr& body,
                                 const std::unordered_map<const IterVarNode*, Range>& rootRegion,
                                 const TensorIntrinNode& intrin, const Analyzer& outer,
                                 SourceLoc loc)
{
    const std::string what = "tensorize with '" + intrin.name + "'";
    const Tensor& iop = intrin.op;
    Analyzer an = outer;
    IntervalMap relax;
    VarMap toIntrin;
    // Each axis of the stage (data-parallel, then reduction) against the intrinsic's: the extra
    // outer ones must be single points there; the others map to the intrinsic's, offset by where
    // the region starts, and must be as long.
    auto mapAxes = [&](const std::vector<IterVar>& mine, const std::vector<IterVar>& theirs,
                       const char* kind) {
        if (mine.size() < theirs.size())
            throw UserError(loc, what + ": '" + s.name() + "' has " + std::to_string(mine.size()) +
                                     " " + kind + " axes under the loop, the intrinsic " +
                                     std::to_string(theirs.size()) +
                                     " (TVM: \"Tensorize: Output mismatch with tensor intrin\")");
        const std::size_t start = mine.size() - theirs.size();
        for (std::size_t d = 0; d < mine.size(); ++d) {
            const Range& r = rootRegion.at(mine[d].get());
            if (d < start) {
                if (!isOne(an.simplify(r.extent)))
                    throw UserError(loc, what + ": under the tensorized loop '" + s.name() +
                                             "' runs over " + printExpr(r.extent) +
                                             " values of its " + kind + " axis '" +
                                             axisDisplayName(mine[d]->name()) +
                                             "', which the intrinsic does not have: that axis's "
                                             "loops must be outside the tensorized one");
                toIntrin[mine[d]->var.get()] = r.min;
                continue;
            }
            const IterVar& it = theirs[d - start];
            if (!an.canProve(makeBinary(ExprKind::EQ, r.extent, it->dom.extent)))
                throw UserError(loc, what + ": under the tensorized loop '" + s.name() + "' runs " +
                                         printExpr(r.extent) + " iterations of its " + kind +
                                         " axis '" + axisDisplayName(mine[d]->name()) +
                                         "', the intrinsic's axis '" + it->name() + "' " +
                                         printExpr(it->dom.extent));
            toIntrin[mine[d]->var.get()] = it->var + r.min;
            an.bind(it->var, it->dom.min, it->dom.extent);
            relax[it->var.get()] = {it->dom.min, an.simplify(it->dom.min + it->dom.extent - 1)};
        }
    };
    mapAxes(s.op->axes, iop->axes, "data-parallel");
    mapAxes(s.op->reduceAxes, iop->reduceAxes, "reduction");

    TensorizeMatch m;
    m.output.tensor = s.op;
    for (const IterVar& iv : s.op->axes) {
        m.output.mins.push_back(rootRegion.at(iv.get()).min);
        m.output.extents.push_back(rootRegion.at(iv.get()).extent);
    }

    // The inputs, in order of first reading, paired with the intrinsic's.
    const Expr mine = substitute(body, toIntrin);
    std::vector<Tensor> inputs = inputTensors(s.op);
    std::vector<Tensor> theirs(intrin.tensors.begin(), intrin.tensors.end() - 1);
    if (inputs.size() != theirs.size())
        throw UserError(loc, what + ": '" + s.name() + "' reads " + std::to_string(inputs.size()) +
                                 " tensors, the intrinsic's computation " +
                                 std::to_string(theirs.size()) +
                                 " (TVM: \"Tensorize failed: input size mismatch\")");
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const Tensor& t = inputs[i];
        TensorRegionOf r;
        r.tensor = t;
        std::vector<IntervalSet> dims(t->shape.size());
        std::vector<const TensorLoadNode*> loads;
        loadsOf(mine, t, &loads);
        bool first = true;
        for (const TensorLoadNode* load : loads) {
            for (std::size_t d = 0; d < dims.size(); ++d) {
                IntervalSet v = evalInterval(load->indices[d], relax, an);
                dims[d] = first ? v : unionInterval(dims[d], v, an);
            }
            first = false;
        }
        for (std::size_t d = 0; d < dims.size(); ++d) {
            if (!dims[d].known())
                throw UserError(loc, what + ": cannot tell which part of '" + t->name +
                                         "' the tensorized loops read (TVM: \"cannot deduce "
                                         "region of tensorized scope for input\")");
            r.mins.push_back(an.simplify(dims[d].min));
            r.extents.push_back(an.simplify(dims[d].max - dims[d].min + 1));
        }
        const Tensor& to = theirs[i];
        if (t->shape.size() < to->shape.size())
            throw UserError(loc, what + ": '" + t->name +
                                     "' has fewer dimensions than the "
                                     "intrinsic's input '" +
                                     to->name + "'");
        const std::size_t start = t->shape.size() - to->shape.size();
        bool fits = true;
        for (std::size_t d = 0; d < r.extents.size(); ++d)
            fits = fits && (d < start ? isOne(r.extents[d])
                                      : an.canProve(makeBinary(ExprKind::EQ, r.extents[d],
                                                               to->shape[d - start])));
        if (!fits)
            throw UserError(loc, what + ": the tensorized loops read a " + shapeText(r.extents) +
                                     " region of '" + t->name + "', the intrinsic's input '" +
                                     to->name + "' is " + shapeText(to->shape) +
                                     " (TVM: \"Input dimension mismatch with tensor intrin\")");
        if (t->dtype != to->dtype)
            throw UserError(loc, what + ": '" + t->name + "' holds " + t->dtype.str() +
                                     ", the intrinsic's input '" + to->name + "' " +
                                     to->dtype.str());
        m.inputs.push_back(std::move(r));
    }

    // The computations, both simplified where the intrinsic's axes range over their domains.
    RedirectLoads redirect(m.inputs, theirs, an);
    auto* myReduce = mine.as<ReduceNode>();
    auto* itsReduce = iop->body.as<ReduceNode>();
    if ((myReduce == nullptr) != (itsReduce == nullptr))
        throw UserError(loc, what + ": '" + s.name() + "' is " +
                                 (myReduce ? "a reduction" : "not a reduction") +
                                 ", the intrinsic's computation " + (itsReduce ? "is" : "is not"));
    if (myReduce && myReduce->op != itsReduce->op)
        throw UserError(loc, what + ": '" + s.name() +
                                 "' and the intrinsic reduce with different operations");
    const Expr lhs = an.simplify(redirect.mutate(myReduce ? myReduce->source : mine));
    const Expr rhs = an.simplify(itsReduce ? itsReduce->source : iop->body);
    if (lhs.type() != rhs.type())
        throw UserError(loc, "Failed to match the data type with TensorIntrin " + intrin.name +
                                 "'s declaration: provided=" + lhs.type().str() +
                                 ", intrin=" + rhs.type().str());
    if (!exprEqual(lhs, rhs)) {
        auto [a, b] = firstDifference(lhs, rhs);
        throw UserError(loc, "Failed to match the compute with TensorIntrin " + intrin.name +
                                 "'s declaration: the stage computes " + printExpr(lhs) +
                                 " under the loop, the intrinsic " + printExpr(rhs) +
                                 "; they differ at " + printExpr(a) + " (stage) against " +
                                 printExpr(b) + " (intrinsic)");
    }
    const bool myCond = myReduce && myReduce->condition.defined();
    const bool itsCond = itsReduce && itsReduce->condition.defined();
    if (myCond != itsCond ||
        (myCond && !exprEqual(an.simplify(redirect.mutate(myReduce->condition)),
                              an.simplify(itsReduce->condition))))
        throw UserError(loc, "Failed to match the compute with TensorIntrin " + intrin.name +
                                 "'s declaration: the reductions' conditions (where=) differ");
    return m;
}

Stmt bindTensorIntrin(Stmt stmt, const TensorIntrinNode& intrin, const TensorizeMatch& match,
                      bool inputs)
{
    auto bind = [&](Stmt body, const Buffer& buf, const TensorRegionOf& r) {
        std::vector<Expr> tuple = {makeTensorLoad(r.tensor, r.mins)};
        tuple.insert(tuple.end(), r.extents.begin(), r.extents.end());
        return makeAttr(kBufferBindScope, buf->name,
                        makeCall(DataType::handle(), CallOp::TvmTuple, std::move(tuple)),
                        std::move(body), buf.get());
    };
    stmt = bind(std::move(stmt), intrin.buffers.back(), match.output);
    if (!inputs) return stmt;
    for (std::size_t i = match.inputs.size(); i-- > 0;)
        stmt = bind(std::move(stmt), intrin.buffers[i], match.inputs[i]);
    return stmt;
}

} // namespace loopscope
