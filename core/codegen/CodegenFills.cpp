// Zero fills and copies of contiguous ranges: a nest of loops that fills or copies one contiguous
// range becomes one memset or straight-line vector code instead of loops for LLVM to unroll.
#include "codegen/CodegenLLVMInternal.h"

#include "ir/Analyzer.h"
#include "ir/IRUtil.h"

#include <algorithm>
#include <cmath>

namespace loopscope::codegen {

bool Codegen::isZero(const Expr& e)
{
    if (auto* b = e.as<BroadcastNode>()) return isZero(b->value);
    if (auto* i = e.as<IntImmNode>()) return i->value == 0;
    if (auto* f = e.as<FloatImmNode>()) return f->value == 0 && !std::signbit(f->value);
    return false;
}

// How many elements an index names, read or written one after another: 1 for a scalar
// index, the lanes of a stride-one ramp; 0 for anything else.
std::int64_t Codegen::contiguousUnits(const Expr& index, const Buffer& b)
{
    if (index.type().lanes == 1) return 1;
    if (auto* r = index.as<RampNode>(); r && isOne(r->stride) && b->dtype.lanes == 1)
        return r->lanes;
    return 0;
}

std::optional<Codegen::ContiguousRun> Codegen::contiguousRun(const Stmt& s) const
{
    if (auto* g = s.as<IfThenElseNode>(); g && m_guardsAssumed.count(g))
        return contiguousRun(g->thenCase);
    if (auto* st = s.as<BufferStoreNode>()) {
        if (st->indices.size() != 1) return std::nullopt;
        ContiguousRun run;
        run.store = st;
        run.units = contiguousUnits(st->indices[0], st->buffer);
        if (run.units == 0) return std::nullopt;
        if (!isZero(st->value)) {
            // A copy from another buffer of the same type, element for element.
            auto* ld = st->value.as<BufferLoadNode>();
            if (!ld || ld->indices.size() != 1 ||
                ld->buffer->data.get() == st->buffer->data.get() ||
                ld->buffer->dtype != st->buffer->dtype ||
                contiguousUnits(ld->indices[0], ld->buffer) != run.units)
                return std::nullopt;
            run.load = ld;
        }
        run.bytes = run.units * st->buffer->dtype.bytes() * st->buffer->dtype.lanes;
        return run;
    }
    auto* loop = s.as<ForNode>();
    if (!loop) return std::nullopt;
    auto inner = contiguousRun(loop->body);
    return inner ? acrossLoop(*inner, loop) : std::nullopt;
}

// How far one step of `loop` moves `e`, when that is a constant.
bool Codegen::constantStep(const Expr& e, const ForNode* loop, std::int64_t* step)
{
    VarMap next{{loop->var.get(), Expr(loop->var) + makeConst(loop->var.type(), 1)}};
    return isConstInt(simplify(substitute(e, next) - e), step);
}

// The run a loop makes of `run`, its body's, when each step moves the store (and the load)
// on by exactly what the body covers.
std::optional<Codegen::ContiguousRun> Codegen::acrossLoop(ContiguousRun run, const ForNode* loop)
{
    std::int64_t extent = 0;
    if (loop->forKind != ForKind::Serial || !isConstInt(loop->extent, &extent) || extent <= 0)
        return std::nullopt;
    auto stepsByRun = [&](const Expr& index) {
        std::int64_t step = 0;
        return constantStep(firstIndex(index), loop, &step) && step == run.units;
    };
    if (!stepsByRun(run.store->indices[0]) || (run.load && !stepsByRun(run.load->indices[0])))
        return std::nullopt;
    run.loops.push_back(loop);
    run.units *= extent;
    run.bytes *= extent;
    return run;
}

bool Codegen::inMemory(const Buffer& b, std::uint64_t registerFileBytes)
{
    auto* slot = llvm::dyn_cast<llvm::AllocaInst>(bufferPointer(b));
    if (!slot) return true;
    auto size = slot->getAllocationSize(m_mod.getDataLayout());
    return size && !size->isScalable() && size->getFixedValue() > registerFileBytes;
}

bool Codegen::straightLine(const ContiguousRun& run)
{
    return run.units > 1 && run.bytes < kMemsetBytes && inMemory(run.store->buffer) &&
           (!run.load || inMemory(run.load->buffer));
}

void Codegen::emitMemset(const ContiguousRun& run)
{
    emitMemset(run.loops, run.store->buffer, run.store->indices[0], run.bytes);
}

// Zeros `bytes` from element `start` of `b` on, with the loops' variables at their minimum (for
// the extent of the memset).
void Codegen::emitMemset(const std::vector<const ForNode*>& loops, const Buffer& b,
                         const Expr& start, std::int64_t bytes)
{
    Bindings first(*this);
    for (auto* loop : loops)
        first.bind(loop->var, loop->min);
    DataType elem = b->dtype;
    llvm::Value* ptr = firstElementPointer(elem, bufferPointer(b), start);
    m_b.CreateMemSet(ptr, m_b.getInt8(0), m_b.getInt64(static_cast<std::uint64_t>(bytes)),
                     llvm::MaybeAlign(elementAlign(elem)));
}

// A zero fill of one contiguous range of a buffer, whatever order its loops walk it in: the
// init of a tiled block cache (columns of tiles outer, rows inner, a few vector stores per
// step) covers the whole cache, but not element after element. LLVM unrolls such a nest into
// one block of thousands of stores, whose scheduling alone takes seconds. The stores must be
// affine in the loops (serial, constant extents); where each one lands is listed, up to
// kMaxListedStores of them, and must together cover the range.
std::optional<Codegen::TiledFill> Codegen::tiledZeroFill(const ForNode* outer) const
{
    TiledFill fill;
    VarMap lets; // the nest's let-bound variables, in terms of the loops
    const Stmt* body = nullptr;
    std::int64_t steps = 1;
    std::vector<std::int64_t> extents;
    for (const ForNode* loop = outer; loop;) {
        std::int64_t extent = 0;
        if (loop->forKind != ForKind::Serial || !isConstInt(loop->extent, &extent) || extent <= 0)
            return std::nullopt;
        extents.push_back(extent);
        steps *= extent;
        if (steps > kMaxListedStores) return std::nullopt;
        fill.loops.push_back(loop);
        body = &loop->body;
        for (;;) {
            if (auto* let = body->as<LetStmtNode>()) {
                lets[let->var.get()] = substitute(let->value, lets);
                body = &let->body;
            } else if (auto* g = body->as<IfThenElseNode>(); g && m_guardsAssumed.count(g)) {
                body = &g->thenCase;
            } else {
                break;
            }
        }
        loop = body->as<ForNode>();
    }
    std::vector<const BufferStoreNode*> stores;
    if (auto* st = body->as<BufferStoreNode>()) stores.push_back(st);
    if (auto* seq = body->as<SeqNode>()) {
        for (auto& st : seq->stmts) {
            if (!st.as<BufferStoreNode>()) return std::nullopt;
            stores.push_back(st.as<BufferStoreNode>());
        }
    }
    if (stores.empty() || steps * static_cast<std::int64_t>(stores.size()) > kMaxListedStores)
        return std::nullopt;
    const Buffer& buffer = stores[0]->buffer;
    std::int64_t units = 0;
    std::vector<Expr> firsts;
    for (auto* st : stores) {
        if (st->buffer->data.get() != buffer->data.get() || st->indices.size() != 1 ||
            !isZero(st->value))
            return std::nullopt;
        std::int64_t u = contiguousUnits(st->indices[0], buffer);
        if (u == 0 || (units != 0 && u != units)) return std::nullopt;
        units = u;
        firsts.push_back(substitute(firstIndex(st->indices[0]), lets));
    }
    // Each store's offset from the first; each loop's step. Both constant: affine stores.
    const Expr& base = firsts[0];
    std::vector<std::int64_t> offsets, loopSteps;
    for (auto& f : firsts) {
        if (!isConstInt(simplify(f - base), &offsets.emplace_back())) return std::nullopt;
    }
    for (auto* loop : fill.loops) {
        if (!constantStep(base, loop, &loopSteps.emplace_back())) return std::nullopt;
    }
    // Where every store lands, relative to the first store's first step.
    std::vector<std::int64_t> landed;
    std::vector<std::int64_t> at(fill.loops.size(), 0);
    for (std::int64_t step = 0; step < steps; ++step) {
        std::int64_t here = 0;
        for (std::size_t i = 0; i < at.size(); ++i)
            here += at[i] * loopSteps[i];
        for (std::int64_t o : offsets)
            landed.push_back(here + o);
        for (std::size_t i = at.size(); i-- > 0;) {
            if (++at[i] < extents[i]) break;
            at[i] = 0;
        }
    }
    std::sort(landed.begin(), landed.end());
    std::int64_t end = landed.front();
    for (std::int64_t l : landed) {
        if (l > end) return std::nullopt; // a gap
        end = std::max(end, l + units);
    }
    fill.store = stores[0];
    fill.start = simplify(base + makeConst(base.type(), static_cast<double>(landed.front())));
    fill.bytes = (end - landed.front()) * buffer->dtype.bytes() * buffer->dtype.lanes;
    return fill;
}

void Codegen::emitStraightLine(const ContiguousRun& run)
{
    Bindings first(*this);
    for (auto* loop : run.loops)
        first.bind(loop->var, loop->min);
    DataType elem = run.store->buffer->dtype;
    llvm::Type* scalar = memType(elem.element());
    const std::int64_t scalarBytes = elem.bytes();
    const llvm::Align align(elementAlign(elem));
    llvm::Value* to =
        firstElementPointer(elem, bufferPointer(run.store->buffer), run.store->indices[0]);
    llvm::Value* from =
        run.load ? firstElementPointer(elem, bufferPointer(run.load->buffer), run.load->indices[0])
                 : nullptr;
    std::int64_t done = 0, left = run.bytes / scalarBytes;
    // Full vectors, then halves down to single elements for what is left.
    for (std::int64_t width = std::max<std::int64_t>(kRunVectorBytes / scalarBytes, 1); left > 0;
         width /= 2) {
        for (; left >= width; left -= width, done += width) {
            llvm::Type* ty = width > 1
                                 ? llvm::FixedVectorType::get(scalar, static_cast<unsigned>(width))
                                 : scalar;
            llvm::Value* offset = m_b.getInt64(static_cast<std::uint64_t>(done));
            llvm::Value* value = llvm::Constant::getNullValue(ty);
            if (from)
                value =
                    m_b.CreateAlignedLoad(ty, m_b.CreateInBoundsGEP(scalar, from, offset), align);
            m_b.CreateAlignedStore(value, m_b.CreateInBoundsGEP(scalar, to, offset), align);
        }
    }
}

} // namespace loopscope::codegen
