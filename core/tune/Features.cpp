#include "tune/Features.h"

#include "ir/Diagnostic.h"
#include "ir/IRMutator.h"
#include "ir/Tensor.h"
#include "lower/Tensorize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <unordered_map>

namespace loopscope {

namespace {

constexpr int kBuffers = 5;    // accesses described per store, the largest first
constexpr int kCurve = 10;     // working-set and intensity samples, innermost loop outwards
constexpr int kPerBuffer = 15; // features per access

std::vector<std::string> makeNames(bool gpu)
{
    std::vector<std::string> n = {
        // arithmetic on values, times the trip count
        "float_mad", "float_addsub", "float_mul", "float_divmod", "float_cmp", "float_math",
        "float_select", "int_addsub", "int_mul", "int_divmod", "int_cmp", "bool_op", "cast",
        // loop annotations around the store
        "vec_len", "vec_prod", "vec_num", "vec_innermost", "unroll_len", "unroll_prod",
        "unroll_num", "auto_unroll_max_step", "par_len", "par_prod", "par_num", "par_outermost",
        // the nest
        "outer_prod", "num_loops", "innermost_extent",
        // where it stores
        "store_local", "alloc_size"};
    // A GPU kernel's launch around it (Ansor's is_gpu and thread extents), and whether it stores
    // to shared memory.
    if (gpu)
        for (const char* name :
             {"is_gpu", "blockIdx_x_len", "blockIdx_y_len", "blockIdx_z_len", "threadIdx_x_len",
              "threadIdx_y_len", "threadIdx_z_len", "vthread_len", "store_shared"})
            n.push_back(name);
    const char* perBuffer[kPerBuffer] = {
        "is_read",      "is_write",   "bytes",          "unique_bytes",    "lines",
        "unique_lines", "reuse_loop", "reuse_dis_iter", "reuse_dis_bytes", "reuse_ct",
        "stride",       "contiguous", "vector_access",  "inner_footprint", "thread_stride"};
    // thread_stride (GPU only): neighbouring threads' elements are this far apart.
    for (int b = 0; b < kBuffers; ++b)
        for (int f = 0; f < kPerBuffer - (gpu ? 0 : 1); ++f)
            n.push_back("buf" + std::to_string(b) + "_" + perBuffer[f]);
    for (int c = 0; c < kCurve; ++c)
        n.push_back("working_set_" + std::to_string(c));
    for (int c = 0; c < kCurve; ++c)
        n.push_back("intensity_" + std::to_string(c));
    return n;
}

float lg(double x)
{
    return static_cast<float>(std::log2(1.0 + std::max(0.0, x)));
}

struct Loop {
    const VarNode* var;
    std::int64_t extent;
    ForKind kind;
    std::string thread; // the GPU axis it is bound to ("threadIdx.x", "vthread"), or empty
};

struct Interval {
    double lo = 0, hi = 0;
    bool ok = true;
};

// The values an index takes when the loops from `first` inward run over their ranges and the
// outer ones stay at 0.
class Ranger {
public:
    Ranger(const std::vector<Loop>& loops, std::size_t first)
    {
        for (std::size_t l = 0; l < loops.size(); ++l)
            m_hi[loops[l].var] = l >= first ? static_cast<double>(loops[l].extent - 1) : 0.0;
    }

    Interval eval(const Expr& e) const
    {
        switch (e.kind()) {
        case ExprKind::IntImm: {
            double v = static_cast<double>(e.as<IntImmNode>()->value);
            return {v, v, true};
        }
        case ExprKind::Var: {
            auto it = m_hi.find(e.as<VarNode>());
            if (it == m_hi.end()) return {0, 0, true}; // a size or an outer variable
            return {0, it->second, true};
        }
        case ExprKind::Add:
        case ExprKind::Sub:
        case ExprKind::Mul:
        case ExprKind::FloorDiv:
        case ExprKind::Div:
        case ExprKind::FloorMod:
        case ExprKind::Mod:
        case ExprKind::Min:
        case ExprKind::Max: {
            auto* b = e.as<BinaryNode>();
            Interval x = eval(b->a), y = eval(b->b);
            if (!x.ok || !y.ok) return {0, 0, false};
            switch (e.kind()) {
            case ExprKind::Add: return {x.lo + y.lo, x.hi + y.hi, true};
            case ExprKind::Sub: return {x.lo - y.hi, x.hi - y.lo, true};
            case ExprKind::Mul: {
                double c[4] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi};
                return {*std::min_element(c, c + 4), *std::max_element(c, c + 4), true};
            }
            case ExprKind::FloorDiv:
            case ExprKind::Div:
                if (y.lo <= 0 || y.lo != y.hi) return {0, 0, false};
                return {std::floor(x.lo / y.lo), std::floor(x.hi / y.lo), true};
            case ExprKind::FloorMod:
            case ExprKind::Mod:
                if (y.lo <= 0 || y.lo != y.hi) return {0, 0, false};
                if (x.hi - x.lo + 1 >= y.lo) return {0, y.lo - 1, true};
                return {std::fmod(x.lo, y.lo), std::fmod(x.lo, y.lo) + (x.hi - x.lo), true};
            case ExprKind::Min: return {std::min(x.lo, y.lo), std::min(x.hi, y.hi), true};
            case ExprKind::Max: return {std::max(x.lo, y.lo), std::max(x.hi, y.hi), true};
            default: break;
            }
            return {0, 0, false};
        }
        case ExprKind::Cast: return eval(e.as<CastNode>()->value);
        case ExprKind::Ramp: {
            auto* r = e.as<RampNode>();
            Interval b = eval(r->base), s = eval(r->stride);
            if (!b.ok || !s.ok) return {0, 0, false};
            return {b.lo, b.hi + s.hi * (r->lanes - 1), true};
        }
        case ExprKind::Broadcast: return eval(e.as<BroadcastNode>()->value);
        default: return {0, 0, false};
        }
    }

private:
    std::unordered_map<const VarNode*, double> m_hi;
};

struct Access {
    const OperationNode* tensor = nullptr;
    const std::vector<Expr>* indices = nullptr;
    bool read = false, write = false;
};

struct Counts {
    double fmad = 0, faddsub = 0, fmul = 0, fdivmod = 0, fcmp = 0, fmath = 0, fselect = 0;
    double iaddsub = 0, imul = 0, idivmod = 0, icmp = 0, boolop = 0, cast = 0;
};

// A tensorized loop's intrinsic buffers, each the region of a tensor it is bound to
// (buffer_bind_scope): read through it is reading the tensor where the region starts.
struct BoundRegion {
    Tensor tensor;
    std::vector<Expr> begins;
};
using BoundRegions = std::unordered_map<const BufferNode*, BoundRegion>;
thread_local const BoundRegions* t_bound = nullptr;

void count(const Expr& e, Counts& c, std::vector<Access>& reads, bool underAdd)
{
    if (!e.defined()) return;
    const bool isFloat = e.type().isFloat();
    switch (e.kind()) {
    case ExprKind::Add:
    case ExprKind::Sub: {
        auto* b = e.as<BinaryNode>();
        if (isFloat)
            c.faddsub += 1;
        else
            c.iaddsub += 1;
        count(b->a, c, reads, isFloat);
        count(b->b, c, reads, isFloat);
        return;
    }
    case ExprKind::Mul: {
        auto* b = e.as<BinaryNode>();
        if (isFloat && underAdd) {
            c.fmad += 1;
            c.faddsub -= 1; // the add it fuses with
        } else if (isFloat) {
            c.fmul += 1;
        } else {
            c.imul += 1;
        }
        count(b->a, c, reads, false);
        count(b->b, c, reads, false);
        return;
    }
    default: break;
    }
    if (auto* b = e.as<BinaryNode>()) {
        const ExprKind k = e.kind();
        const bool cmp = k >= ExprKind::EQ && k <= ExprKind::GE;
        const bool logic = k == ExprKind::And || k == ExprKind::Or;
        const bool operandFloat = b->a.type().isFloat();
        if (logic)
            c.boolop += 1;
        else if (cmp)
            (operandFloat ? c.fcmp : c.icmp) += 1;
        else if (k == ExprKind::Min || k == ExprKind::Max)
            (isFloat ? c.fcmp : c.icmp) += 1;
        else
            (isFloat ? c.fdivmod : c.idivmod) += 1;
        count(b->a, c, reads, false);
        count(b->b, c, reads, false);
        return;
    }
    switch (e.kind()) {
    case ExprKind::TensorLoad: {
        auto* l = e.as<TensorLoadNode>();
        reads.push_back({l->tensor.get(), &l->indices, true, false});
        for (auto& i : l->indices)
            count(i, c, reads, false);
        return;
    }
    case ExprKind::BufferLoad: {
        auto* l = e.as<BufferLoadNode>();
        if (!t_bound) return;
        auto it = t_bound->find(l->buffer.get());
        if (it != t_bound->end())
            reads.push_back({it->second.tensor.get(), &it->second.begins, true, false});
        return;
    }
    case ExprKind::Call: {
        auto* call = e.as<CallNode>();
        if (call->op == CallOp::IfThenElse)
            c.fselect += 1;
        else if (call->op != CallOp::Likely)
            c.fmath += 1;
        for (auto& a : call->args)
            count(a, c, reads, false);
        return;
    }
    case ExprKind::Select: {
        auto* s = e.as<SelectNode>();
        c.fselect += 1;
        count(s->cond, c, reads, false);
        count(s->t, c, reads, false);
        count(s->f, c, reads, false);
        return;
    }
    case ExprKind::Cast:
        c.cast += 1;
        count(e.as<CastNode>()->value, c, reads, false);
        return;
    case ExprKind::Not:
        c.boolop += 1;
        count(e.as<NotNode>()->a, c, reads, false);
        return;
    case ExprKind::Let: {
        auto* l = e.as<LetNode>();
        count(l->value, c, reads, false);
        count(l->body, c, reads, underAdd);
        return;
    }
    case ExprKind::Ramp: count(e.as<RampNode>()->base, c, reads, false); return;
    case ExprKind::Broadcast: count(e.as<BroadcastNode>()->value, c, reads, underAdd); return;
    default: return;
    }
}

class Extractor : public IRVisitor {
public:
    FeatureRows rows;

    explicit Extractor(bool gpu) : m_gpu(gpu)
    {
        rows.width = static_cast<int>(featureNames(gpu).size());
    }

protected:
    void visitFor(const ForNode* op) override
    {
        std::int64_t ext = constIntOr(op->extent, 1);
        m_loops.push_back({op->var.get(), std::max<std::int64_t>(ext, 1), op->forKind, {}});
        visit(op->body);
        m_loops.pop_back();
    }

    void visitAttr(const AttrNode* op) override
    {
        if (op->key == kBufferBindScope) {
            auto* tuple = op->value.as<CallNode>();
            auto* region = tuple ? tuple->args[0].as<TensorLoadNode>() : nullptr;
            auto* buffer = static_cast<const BufferNode*>(op->ref);
            if (region) m_bound[buffer] = {region->tensor, region->indices};
            visit(op->body);
            m_bound.erase(buffer);
            return;
        }
        // A GPU thread's variable is a loop over the launch's extent here, tagged with its axis.
        if ((op->key == "thread_extent" || op->key == "virtual_thread") && op->ref) {
            m_loops.push_back({static_cast<const VarNode*>(op->ref),
                               std::max<std::int64_t>(constIntOr(op->value, 1), 1),
                               ForKind::ThreadBinding, op->target});
            visit(op->body);
            m_loops.pop_back();
            return;
        }
        const bool unroll = op->key == "pragma_auto_unroll_max_step";
        if (unroll) m_unroll.push_back(constIntOr(op->value, 0));
        visit(op->body);
        if (unroll) m_unroll.pop_back();
    }

    void visitRealize(const RealizeNode* op) override
    {
        double size = 1;
        for (auto& r : op->bounds)
            size *= static_cast<double>(std::max<std::int64_t>(constIntOr(r.extent, 1), 1));
        m_realized[op->tensor.get()] = {op->scope, size};
        visit(op->body);
    }

    void visitTensorStore(const TensorStoreNode* op) override { addRow(op); }

    // A tensorized loop's statement stores to the output's region: a row as a store there.
    void visitBufferStore(const BufferStoreNode* op) override
    {
        auto it = m_bound.find(op->buffer.get());
        if (it == m_bound.end()) return IRVisitor::visitBufferStore(op);
        const TensorStoreNode store(it->second.tensor, it->second.begins, op->value);
        t_bound = &m_bound;
        addRow(&store);
        t_bound = nullptr;
    }

private:
    void addRow(const TensorStoreNode* store)
    {
        std::vector<float> f(static_cast<std::size_t>(rows.width), 0.0f);
        std::size_t at = 0;
        auto put = [&](double v) { f[at++] = lg(v); };
        auto putRaw = [&](double v) { f[at++] = static_cast<float>(v); };

        double trip = 1;
        for (auto& l : m_loops)
            trip *= static_cast<double>(l.extent);
        Counts c;
        std::vector<Access> accesses;
        count(store->value, c, accesses, false);
        for (auto& i : store->indices)
            count(i, c, accesses, false);
        accesses.push_back({store->tensor.get(), &store->indices, false, true});

        for (double v : {c.fmad, c.faddsub, c.fmul, c.fdivmod, c.fcmp, c.fmath, c.fselect,
                         c.iaddsub, c.imul, c.idivmod, c.icmp, c.boolop, c.cast})
            put(std::max(0.0, v) * trip);

        // Annotations: the innermost loop of each kind, their product and count.
        for (ForKind kind : {ForKind::Vectorized, ForKind::Unrolled, ForKind::Parallel}) {
            double len = 0, prod = 1, num = 0;
            for (auto& l : m_loops) {
                if (l.kind != kind) continue;
                len = static_cast<double>(l.extent);
                prod *= static_cast<double>(l.extent);
                num += 1;
            }
            put(len);
            put(num > 0 ? prod : 0);
            put(num);
            if (kind == ForKind::Vectorized)
                putRaw(!m_loops.empty() && m_loops.back().kind == kind ? 1 : 0);
            if (kind == ForKind::Unrolled)
                put(m_unroll.empty()
                        ? 0
                        : static_cast<double>(*std::max_element(m_unroll.begin(), m_unroll.end())));
            if (kind == ForKind::Parallel)
                putRaw(!m_loops.empty() && m_loops.front().kind == kind ? 1 : 0);
        }
        put(trip);
        put(static_cast<double>(m_loops.size()));
        put(m_loops.empty() ? 1 : static_cast<double>(m_loops.back().extent));
        auto realized = m_realized.find(store->tensor.get());
        const bool local = realized != m_realized.end() && realized->second.first == "local";
        putRaw(local ? 1 : 0);
        put(realized != m_realized.end() ? realized->second.second : 0);
        // The launch: each thread axis's extent (virtual threads multiplied).
        if (m_gpu) {
            bool launched = false;
            for (auto& l : m_loops)
                launched = launched || !l.thread.empty();
            putRaw(launched ? 1 : 0);
            for (const char* axis : {"blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x",
                                     "threadIdx.y", "threadIdx.z", "vthread"}) {
                double len = 0;
                for (auto& l : m_loops)
                    if (l.thread == axis ||
                        (std::string(axis) == "vthread" && l.thread.rfind("vthread", 0) == 0))
                        len = std::max(len, 1.0) * static_cast<double>(l.extent);
                put(len);
            }
            putRaw(realized != m_realized.end() && realized->second.first == "shared" ? 1 : 0);
        }
        // The loop bound to threadIdx.x: neighbouring threads' elements are this far apart
        // (1: a warp's accesses coalesce, and fall in distinct banks of shared memory).
        std::size_t threadX = m_loops.size();
        for (std::size_t l = 0; l < m_loops.size(); ++l)
            if (m_loops[l].thread == "threadIdx.x") threadX = l;

        // Accesses of one tensor merge (a reduction reads and writes its output).
        std::vector<Access> merged;
        for (auto& a : accesses) {
            auto same = std::find_if(merged.begin(), merged.end(),
                                     [&](const Access& m) { return m.tensor == a.tensor; });
            if (same == merged.end()) {
                merged.push_back(a);
            } else {
                same->read = same->read || a.read;
                same->write = same->write || a.write;
            }
        }
        const std::size_t n = m_loops.size();
        // footprint[k]: elements an access touches while the innermost k loops run.
        auto footprint = [&](const Access& a, std::size_t inner) {
            Ranger r(m_loops, n - std::min(inner, n));
            double elements = 1;
            for (std::size_t d = 0; d < a.indices->size(); ++d) {
                Interval iv = r.eval((*a.indices)[d]);
                double span = iv.ok ? iv.hi - iv.lo + 1 : 1e9;
                if (d < a.tensor->shape.size()) {
                    std::int64_t dim = constIntOr(a.tensor->shape[d], 0);
                    if (dim > 0) span = std::min(span, static_cast<double>(dim));
                }
                elements *= std::max(1.0, span);
            }
            return elements;
        };
        struct Described {
            double bytes, uniqueBytes, lines, uniqueLines, reuseLoop, reuseIter, reuseBytes,
                reuseCt, stride, contiguous, vector, innerFootprint, threadStride;
            bool read, write;
        };
        std::vector<Described> described;
        std::vector<double> workingSet(kCurve, 0.0);
        for (auto& a : merged) {
            const double elem = std::max(1, a.tensor->dtype.bytes());
            Described d{};
            d.read = a.read;
            d.write = a.write;
            d.bytes = trip * elem;
            d.uniqueBytes = footprint(a, n) * elem;
            // Stride along the innermost loop that moves it.
            double stride = 0;
            for (std::size_t l = n; l-- > 0 && stride == 0;) {
                if (m_loops[l].extent <= 1) continue;
                double before = flatIndex(a, l, 0), after = flatIndex(a, l, 1);
                stride = std::fabs(after - before);
                if (l + 1 != n && stride == 0) continue;
                break;
            }
            d.stride = stride;
            d.contiguous = stride == 1 ? 1 : 0;
            d.vector = !m_loops.empty() && m_loops.back().kind == ForKind::Vectorized && stride <= 1
                           ? 1
                           : 0;
            const double lineElems = 64.0 / elem;
            d.lines = trip / std::max(1.0, std::min(lineElems,
                                                    stride == 0 ? lineElems : lineElems / stride));
            d.uniqueLines = std::ceil(d.uniqueBytes / 64.0);
            // Reuse: the innermost loop that does not move the access.
            d.reuseLoop = 0;
            for (std::size_t l = n; l-- > 0;) {
                if (m_loops[l].extent <= 1) continue;
                if (flatIndex(a, l, 0) == flatIndex(a, l, 1) && !usesLoop(a, l)) {
                    d.reuseLoop = 1;
                    d.reuseCt = static_cast<double>(m_loops[l].extent);
                    double iters = 1;
                    for (std::size_t m = l + 1; m < n; ++m)
                        iters *= static_cast<double>(m_loops[m].extent);
                    d.reuseIter = iters;
                    d.reuseBytes = footprint(a, n - l - 1) * elem;
                    break;
                }
            }
            d.innerFootprint = footprint(a, std::min<std::size_t>(n, 3)) * elem;
            d.threadStride =
                threadX < n ? std::fabs(flatIndex(a, threadX, 1) - flatIndex(a, threadX, 0)) : 0;
            for (int k = 0; k < kCurve; ++k)
                workingSet[static_cast<std::size_t>(k)] +=
                    footprint(a, std::min<std::size_t>(n, static_cast<std::size_t>(k + 1))) * elem;
            described.push_back(d);
        }
        std::sort(described.begin(), described.end(), [](const Described& x, const Described& y) {
            return x.uniqueBytes > y.uniqueBytes;
        });
        for (int b = 0; b < kBuffers; ++b) {
            if (b >= static_cast<int>(described.size())) {
                at += kPerBuffer - (m_gpu ? 0 : 1);
                continue;
            }
            const Described& d = described[static_cast<std::size_t>(b)];
            putRaw(d.read ? 1 : 0);
            putRaw(d.write ? 1 : 0);
            put(d.bytes);
            put(d.uniqueBytes);
            put(d.lines);
            put(d.uniqueLines);
            putRaw(d.reuseLoop);
            put(d.reuseIter);
            put(d.reuseBytes);
            put(d.reuseCt);
            put(d.stride);
            putRaw(d.contiguous);
            putRaw(d.vector);
            put(d.innerFootprint);
            if (m_gpu) put(d.threadStride);
        }
        // Working set and arithmetic intensity, innermost loop outwards.
        const double flopsPerIter =
            std::max(0.0, 2 * c.fmad + c.faddsub + c.fmul + c.fdivmod + c.fmath);
        double inner = 1;
        for (int k = 0; k < kCurve; ++k) {
            if (static_cast<std::size_t>(k) < n)
                inner *= static_cast<double>(m_loops[n - 1 - static_cast<std::size_t>(k)].extent);
            put(workingSet[static_cast<std::size_t>(k)]);
        }
        inner = 1;
        for (int k = 0; k < kCurve; ++k) {
            if (static_cast<std::size_t>(k) < n)
                inner *= static_cast<double>(m_loops[n - 1 - static_cast<std::size_t>(k)].extent);
            double bytes = std::max(1.0, workingSet[static_cast<std::size_t>(k)]);
            put(flopsPerIter * inner / bytes);
        }
        LS_ASSERT(at == f.size(), "feature row has " << at << " of " << f.size() << " values");
        rows.values.insert(rows.values.end(), f.begin(), f.end());
        rows.rows += 1;
    }

    // The flat (row-major) element index of an access with loop `l` at `value` and every other
    // loop at 0.
    double flatIndex(const Access& a, std::size_t l, double value) const
    {
        double flat = 0;
        for (std::size_t d = 0; d < a.indices->size(); ++d) {
            double idx = pointValue((*a.indices)[d], m_loops[l].var, value);
            double dim = 1;
            if (d < a.tensor->shape.size())
                dim = static_cast<double>(
                    std::max<std::int64_t>(constIntOr(a.tensor->shape[d], 1), 1));
            flat = flat * dim + idx;
        }
        return flat;
    }

    bool usesLoop(const Access& a, std::size_t l) const
    {
        for (auto& i : *a.indices)
            if (usesVarNode(i, m_loops[l].var)) return true;
        return false;
    }

    static bool usesVarNode(const Expr& e, const VarNode* v)
    {
        bool found = false;
        forEachExprShallow(e, [&](const Expr& x) {
            if (x.get() == v) found = true;
        });
        return found;
    }

    static void forEachExprShallow(const Expr& e, const std::function<void(const Expr&)>& f)
    {
        f(e);
        if (auto* b = e.as<BinaryNode>()) {
            forEachExprShallow(b->a, f);
            forEachExprShallow(b->b, f);
        } else if (auto* c = e.as<CastNode>()) {
            forEachExprShallow(c->value, f);
        } else if (auto* r = e.as<RampNode>()) {
            forEachExprShallow(r->base, f);
        } else if (auto* bc = e.as<BroadcastNode>()) {
            forEachExprShallow(bc->value, f);
        }
    }

    // The value of an index expression with `v` = value and every other variable 0.
    static double pointValue(const Expr& e, const VarNode* v, double value)
    {
        switch (e.kind()) {
        case ExprKind::IntImm: return static_cast<double>(e.as<IntImmNode>()->value);
        case ExprKind::Var: return e.get() == v ? value : 0.0;
        case ExprKind::Cast: return pointValue(e.as<CastNode>()->value, v, value);
        case ExprKind::Ramp: return pointValue(e.as<RampNode>()->base, v, value);
        case ExprKind::Broadcast: return pointValue(e.as<BroadcastNode>()->value, v, value);
        default: break;
        }
        auto* b = e.as<BinaryNode>();
        if (!b) return 0.0;
        double x = pointValue(b->a, v, value), y = pointValue(b->b, v, value);
        switch (e.kind()) {
        case ExprKind::Add: return x + y;
        case ExprKind::Sub: return x - y;
        case ExprKind::Mul: return x * y;
        case ExprKind::Div:
        case ExprKind::FloorDiv: return y != 0 ? std::floor(x / y) : 0.0;
        case ExprKind::Mod:
        case ExprKind::FloorMod: return y != 0 ? x - y * std::floor(x / y) : 0.0;
        case ExprKind::Min: return std::min(x, y);
        case ExprKind::Max: return std::max(x, y);
        default: return 0.0;
        }
    }

    std::vector<Loop> m_loops;
    bool m_gpu = false;
    std::vector<std::int64_t> m_unroll;
    std::unordered_map<const OperationNode*, std::pair<std::string, double>> m_realized;
    BoundRegions m_bound;
};

} // namespace

const std::vector<std::string>& featureNames(bool gpu)
{
    static const std::vector<std::string> cpu = makeNames(false), kernels = makeNames(true);
    return gpu ? kernels : cpu;
}

std::int64_t gpuSharedBytes(const Stmt& structured)
{
    struct Shared : IRVisitor {
        std::int64_t bytes = 0;
        void visitRealize(const RealizeNode* op) override
        {
            if (op->scope == "shared") {
                std::int64_t size = op->tensor->dtype.bytes();
                for (auto& r : op->bounds)
                    size *= std::max<std::int64_t>(constIntOr(r.extent, 1), 1);
                bytes += size;
            }
            visit(op->body);
        }
    } s;
    if (structured.defined()) s.visit(structured);
    return s.bytes;
}

FeatureRows extractFeatures(const Stmt& structured, bool gpu)
{
    Extractor e(gpu);
    if (structured.defined()) e.visit(structured);
    return std::move(e.rows);
}

} // namespace loopscope
