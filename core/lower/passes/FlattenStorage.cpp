#include "lower/passes/FlattenStorage.h"

#include "ir/IRMutator.h"
#include "ir/Tensor.h"

namespace loopscope {

namespace {

struct FlatTensor {
    Buffer flat;
    std::vector<Expr> mins;
    std::vector<Expr> strides;
};

// Row-major strides over `extents`, padded where storage_align asks.
std::vector<Expr> stridesFor(const std::vector<Expr>& extents, const std::vector<DimAlign>& aligns,
                             Expr* total)
{
    std::size_t n = extents.size();
    std::vector<Expr> strides(n);
    Expr stride = makeInt(1);
    for (std::size_t d = n; d-- > 0;) {
        for (auto& a : aligns) {
            std::int64_t s;
            if (a.dim == static_cast<int>(d) && isConstInt(stride, &s)) {
                std::int64_t r = ((s % a.factor) + a.factor) % a.factor;
                std::int64_t pad = (a.offset - r + a.factor) % a.factor;
                stride = makeInt(s + pad);
            }
        }
        strides[d] = stride;
        stride = stride * extents[d];
    }
    *total = stride;
    return strides;
}

class Flattener : public IRMutator {
public:
    Flattener(const std::vector<Tensor>& args, const AlignMap& aligns) : m_aligns(aligns)
    {
        for (auto& t : args) {
            auto param = std::make_shared<BufferNode>();
            param->name = t->name;
            param->dtype = t->dtype;
            param->shape = t->shape;
            param->data = Var(t->name, DataType::handle());
            params.push_back(param);
            FlatTensor f;
            std::vector<DimAlign> none;
            Expr total;
            f.strides = stridesFor(t->shape, none, &total);
            f.mins.assign(t->shape.size(), makeInt(0));
            if (t->shape.size() == 1) {
                f.flat = param;
            } else {
                auto flat = std::make_shared<BufferNode>(*param);
                flat->shape = {total};
                f.flat = flat;
            }
            m_tensors[t.get()] = f;
        }
    }

    std::vector<Buffer> params;

protected:
    Stmt visitRealize(const RealizeNode* op, const Stmt& self) override
    {
        (void)self;
        if (m_tensors.count(op->tensor.get())) return mutate(op->body); // an argument
        std::vector<Expr> extents, mins;
        for (auto& r : op->bounds) {
            extents.push_back(r.extent);
            mins.push_back(r.min);
        }
        auto it = m_aligns.find(op->tensor.get());
        Expr total;
        FlatTensor f;
        f.strides = stridesFor(extents, it == m_aligns.end() ? std::vector<DimAlign>{} : it->second,
                               &total);
        f.mins = mins;
        Buffer buf = makeFlatBuffer(op->tensor->name, op->tensor->dtype, total, op->scope);
        f.flat = buf;
        m_tensors[op->tensor.get()] = f;
        Stmt body = mutate(op->body);
        m_tensors.erase(op->tensor.get());
        return makeAllocate(buf, body);
    }

    // The double-buffer mark on a stage's producer names its storage from here on.
    Stmt visitAttr(const AttrNode* op, const Stmt& self) override
    {
        if (op->key != "double_buffer_scope") return IRMutator::visitAttr(op, self);
        auto it = m_tensors.find(static_cast<const OperationNode*>(op->ref));
        Stmt body = mutate(op->body);
        if (it == m_tensors.end()) return body;
        return makeAttr(op->key, op->target, op->value, body, it->second.flat->data.get());
    }

    Stmt visitTensorStore(const TensorStoreNode* op, const Stmt& self) override
    {
        (void)self;
        const FlatTensor& f = lookup(op->tensor);
        bool changed = false;
        auto idx = IRMutator::mutate(op->indices, &changed);
        return makeBufferStore(f.flat, {flatIndex(f, idx)}, mutate(op->value));
    }

    Expr visitTensorLoad(const TensorLoadNode* op, const Expr& self) override
    {
        (void)self;
        const FlatTensor& f = lookup(op->tensor);
        bool changed = false;
        auto idx = IRMutator::mutate(op->indices, &changed);
        return makeBufferLoad(f.flat, {flatIndex(f, idx)});
    }

private:
    const FlatTensor& lookup(const Tensor& t)
    {
        auto it = m_tensors.find(t.get());
        LS_ASSERT(it != m_tensors.end(), "tensor '" + t->name + "' used outside its realize");
        return it->second;
    }

    static Expr flatIndex(const FlatTensor& f, const std::vector<Expr>& idx)
    {
        Expr out;
        for (std::size_t d = 0; d < idx.size(); ++d) {
            Expr i = isZero(f.mins[d]) ? idx[d] : idx[d] - f.mins[d];
            Expr term = isOne(f.strides[d]) ? i : i * f.strides[d];
            out = out.defined() ? out + term : term;
        }
        return out.defined() ? out : makeInt(0);
    }

    const AlignMap& m_aligns;
    std::unordered_map<const OperationNode*, FlatTensor> m_tensors;
};

} // namespace

PrimFunc flattenStorage(const Stmt& body, const std::vector<Tensor>& args, const AlignMap& aligns,
                        const std::string& name)
{
    Flattener f(args, aligns);
    PrimFunc func;
    func.name = name;
    func.body = f.mutate(body);
    func.params = f.params;
    return func;
}

} // namespace loopscope
