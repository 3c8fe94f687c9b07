#include "lower/passes/FlattenStorage.h"

#include <optional>

#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "ir/Printer.h"
#include "ir/Tensor.h"
#include "lower/Tensorize.h"

namespace loopscope {

namespace {

// Whether a comparison simplifies to true.
bool provedEqual(const Expr& a, const Expr& b)
{
    std::int64_t v = 0;
    return isConstInt(simplify(makeBinary(ExprKind::EQ, a, b)), &v) && v != 0;
}

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
    Flattener(const std::vector<Tensor>& args, const AlignMap& aligns, const BindLocs& bindLocs)
        : m_aligns(aligns), m_bindLocs(bindLocs)
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
        if (op->key == kBufferBindScope) return bindBuffer(op);
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

    Expr visitBufferLoad(const BufferLoadNode* op, const Expr& self) override
    {
        auto it = m_views.find(op->buffer.get());
        if (it == m_views.end()) return IRMutator::visitBufferLoad(op, self);
        bool changed = false;
        auto idx = IRMutator::mutate(op->indices, &changed);
        return makeBufferLoad(it->second.flat, {viewIndex(it->second, idx)});
    }

    Stmt visitBufferStore(const BufferStoreNode* op, const Stmt& self) override
    {
        auto it = m_views.find(op->buffer.get());
        if (it == m_views.end()) return IRMutator::visitBufferStore(op, self);
        bool changed = false;
        auto idx = IRMutator::mutate(op->indices, &changed);
        return makeBufferStore(it->second.flat, {viewIndex(it->second, idx)}, mutate(op->value));
    }

    Expr visitLeaf(const Expr& self) override
    {
        if (auto* v = self.as<VarNode>())
            if (auto it = m_viewVars.find(v); it != m_viewVars.end()) return it->second;
        return self;
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

    // An intrinsic buffer seen through the region it is bound to.
    struct View {
        Buffer flat;
        Expr offset;               // the region's first element in the flat buffer
        std::vector<Expr> strides; // one per dimension of the intrinsic's buffer
    };

    // offset + sum(index * stride): a vector index (vload's, one dimension's Ramp) stays a Ramp.
    static Expr viewIndex(const View& v, const std::vector<Expr>& idx)
    {
        Expr scalar = v.offset;
        const RampNode* ramp = nullptr;
        Expr rampStride;
        for (std::size_t d = 0; d < idx.size(); ++d) {
            Expr i = idx[d];
            if (auto* r = i.as<RampNode>()) {
                LS_ASSERT(!ramp, "an intrinsic buffer indexed by two vectors");
                ramp = r;
                rampStride = r->stride * v.strides[d];
                i = r->base;
            }
            scalar = scalar + i * v.strides[d];
        }
        scalar = simplify(scalar);
        if (!ramp) return scalar;
        return makeRamp(scalar, simplify(rampStride), ramp->lanes);
    }

    Stmt bindBuffer(const AttrNode* op)
    {
        auto* ibuf = static_cast<const BufferNode*>(op->ref);
        auto* tuple = op->value.as<CallNode>();
        auto* load = tuple ? tuple->args[0].as<TensorLoadNode>() : nullptr;
        LS_ASSERT(ibuf && load, "a buffer_bind_scope without its buffer or region");
        auto locIt = m_bindLocs.find(ibuf);
        const SourceLoc loc = locIt == m_bindLocs.end() ? SourceLoc{} : locIt->second;
        const FlatTensor& f = lookup(load->tensor);
        bool changed = false;
        const std::vector<Expr> begins = IRMutator::mutate(load->indices, &changed);
        const std::size_t rank = ibuf->shape.size();
        LS_ASSERT(begins.size() >= rank, "an intrinsic buffer of more dimensions than its tensor");
        const std::size_t start = begins.size() - rank;
        View view;
        view.flat = f.flat;
        view.offset = simplify(flatIndex(f, begins));
        view.strides.assign(f.strides.begin() + static_cast<std::ptrdiff_t>(start),
                            f.strides.end());
        const std::string binding =
            "the intrinsic's buffer '" + ibuf->name + "', bound to '" + load->tensor->name + "',";
        std::vector<const VarNode*> defined;
        auto define = [&](const Expr& var, const Expr& value) {
            if (auto* v = var.as<VarNode>()) {
                m_viewVars[v] = value;
                defined.push_back(v);
                return true;
            }
            return false;
        };
        define(ibuf->data, f.flat->data);
        // Strides: a declared one is bound (a variable) or must agree; none declared means
        // compact, so the region must be contiguous.
        Expr compact = makeInt(1);
        for (std::size_t d = rank; d-- > 0;) {
            const Expr& actual = view.strides[d];
            if (!ibuf->strides.empty()) {
                const Expr& declared = ibuf->strides[d];
                if (!define(declared, actual) && !provedEqual(declared, actual))
                    throw UserError(loc, binding + " declares stride " + printExpr(declared) +
                                             " for its dimension " + std::to_string(d) +
                                             "; the tensor's is " + printExpr(actual));
            } else if (!isOne(ibuf->shape[d]) && !provedEqual(compact, actual)) {
                throw UserError(loc,
                                "Cannot bind a compact buffer to a strided region: " + binding +
                                    " declares no strides, and the region's "
                                    "dimension " +
                                    std::to_string(d) + " has stride " + printExpr(actual) +
                                    " where a compact one has " + printExpr(compact) +
                                    "; give it strides (decl_buffer(..., strides=[te.var("
                                    "\"s\"), 1]))");
            }
            compact = simplify(compact * ibuf->shape[d]);
        }
        // Where the region starts: a variable takes it (and must be a multiple of the offset
        // factor), a constant must be it.
        if (!define(ibuf->elemOffset, view.offset)) {
            if (!provedEqual(ibuf->elemOffset, view.offset))
                throw UserError(
                    loc, "Trying to bind a Buffer with offset into one without offset: " + binding +
                             " starts at " + printExpr(view.offset) +
                             " but is declared to start at " + printExpr(ibuf->elemOffset) +
                             "; give it an offset_factor (decl_buffer(..., "
                             "offset_factor=1))");
        } else if (ibuf->offsetFactor > 1) {
            Expr rem = simplify(floormod(view.offset, makeInt(ibuf->offsetFactor)));
            if (std::int64_t r; isConstInt(rem, &r) && r != 0)
                throw UserError(loc, binding + " starts at " + printExpr(view.offset) +
                                         ", not a multiple of its offset_factor " +
                                         std::to_string(ibuf->offsetFactor));
        }
        auto saved = m_views.find(ibuf) == m_views.end() ? std::optional<View>()
                                                         : std::optional<View>(m_views[ibuf]);
        m_views[ibuf] = view;
        Stmt body = mutate(op->body);
        if (saved)
            m_views[ibuf] = *saved;
        else
            m_views.erase(ibuf);
        for (const VarNode* v : defined)
            m_viewVars.erase(v);
        return body;
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
    const BindLocs& m_bindLocs;
    std::unordered_map<const OperationNode*, FlatTensor> m_tensors;
    std::unordered_map<const BufferNode*, View> m_views;
    std::unordered_map<const VarNode*, Expr> m_viewVars;
};

} // namespace

PrimFunc flattenStorage(const Stmt& body, const std::vector<Tensor>& args, const AlignMap& aligns,
                        const std::string& name, const BindLocs& bindLocs)
{
    Flattener f(args, aligns, bindLocs);
    PrimFunc func;
    func.name = name;
    func.body = f.mutate(body);
    func.params = f.params;
    return func;
}

} // namespace loopscope
