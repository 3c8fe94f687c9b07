#include "ir/Stmt.h"

#include "ir/Diagnostic.h"
#include "ir/Tensor.h"

#include <sstream>

namespace loopscope {

const char* forKindName(ForKind k)
{
    switch (k) {
    case ForKind::Serial: return "serial";
    case ForKind::Parallel: return "parallel";
    case ForKind::Vectorized: return "vectorized";
    case ForKind::Unrolled: return "unroll";
    case ForKind::ThreadBinding: return "thread_binding";
    }
    return "?";
}

Stmt makeFor(Var v, Expr min, Expr extent, ForKind k, Stmt body, std::string threadTag)
{
    LS_ASSERT(v.defined() && min.defined() && extent.defined(), "loop without a variable or range");
    LS_ASSERT(min.type().isScalar() && extent.type().isScalar(),
              "loop " << v.as<VarNode>()->name << " over a vector range");
    return std::make_shared<ForNode>(std::move(v), std::move(min), std::move(extent), k,
                                     std::move(body), std::move(threadTag));
}

Stmt remakeFor(const ForNode* like, Expr min, Expr extent, Stmt body)
{
    return remakeFor(like, like->var, std::move(min), std::move(extent), std::move(body));
}

Stmt remakeFor(const ForNode* like, Var v, Expr min, Expr extent, Stmt body)
{
    auto f = std::make_shared<ForNode>(std::move(v), std::move(min), std::move(extent),
                                       like->forKind, std::move(body), like->threadTag);
    f->scalarizedLanes = like->scalarizedLanes;
    f->annotations = like->annotations;
    return f;
}

Stmt makeTensorStore(Tensor t, std::vector<Expr> indices, Expr value)
{
    LS_ASSERT(t && value.defined(), "store without a tensor or value");
    LS_ASSERT(static_cast<int>(indices.size()) == t->ndim(),
              "store to " << t->name << " with " << indices.size() << " indices, it has "
                          << t->ndim() << " dimensions");
    return std::make_shared<TensorStoreNode>(std::move(t), std::move(indices), std::move(value));
}

Stmt makeBufferStore(Buffer b, std::vector<Expr> indices, Expr value)
{
    LS_ASSERT(b && value.defined(), "store without a buffer or value");
    for (auto& i : indices)
        LS_ASSERT(i.defined() && !i.type().isFloat(),
                  "buffer " << b->name << " indexed by a non-integer");
    return std::make_shared<BufferStoreNode>(std::move(b), std::move(indices), std::move(value));
}

Stmt makeBlock(BlockNode block)
{
    return std::make_shared<BlockNode>(std::move(block));
}

Stmt makeRealize(Tensor t, std::vector<Range> bounds, std::string scope, Stmt body)
{
    return std::make_shared<RealizeNode>(std::move(t), std::move(bounds), std::move(scope),
                                         std::move(body));
}

Stmt makeStorageSync(std::string scope)
{
    return makeAttr("tvm_storage_sync", std::move(scope), makeInt(0), makeEvaluate(makeInt(0)));
}

bool isStorageSync(const Stmt& s)
{
    auto* a = s.as<AttrNode>();
    return a && a->key == "tvm_storage_sync";
}

Stmt makeAllocate(Buffer b, Stmt body)
{
    return std::make_shared<AllocateNode>(std::move(b), std::move(body));
}

Stmt makeLetStmt(Var v, Expr value, Stmt body)
{
    LS_ASSERT(v.defined() && value.defined(), "let without a variable or value");
    return std::make_shared<LetStmtNode>(std::move(v), std::move(value), std::move(body));
}

Stmt makeIfThenElse(Expr cond, Stmt thenCase, Stmt elseCase)
{
    LS_ASSERT(cond.defined(), "if without a condition");
    return std::make_shared<IfThenElseNode>(std::move(cond), std::move(thenCase),
                                            std::move(elseCase));
}

Stmt makeAttr(std::string key, std::string target, Expr value, Stmt body, const void* ref)
{
    return std::make_shared<AttrNode>(std::move(key), std::move(target), std::move(value),
                                      std::move(body), ref);
}

Stmt makeEvaluate(Expr v)
{
    LS_ASSERT(v.defined(), "evaluate of nothing");
    return std::make_shared<EvaluateNode>(std::move(v));
}

Stmt makeSeq(std::vector<Stmt> stmts)
{
    std::vector<Stmt> flat;
    for (auto& s : stmts) {
        if (!s.defined()) continue;
        if (auto* seq = s.as<SeqNode>())
            flat.insert(flat.end(), seq->stmts.begin(), seq->stmts.end());
        else
            flat.push_back(s);
    }
    if (flat.empty()) return Stmt();
    if (flat.size() == 1) return flat[0];
    return std::make_shared<SeqNode>(std::move(flat));
}

} // namespace loopscope
