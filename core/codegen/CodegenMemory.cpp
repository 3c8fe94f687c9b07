// Buffer loads and stores: element addresses (buffers of a vector type are packed), vector
// accesses, masked loads and stores where lanes are computed under a mask, gathers where the
// target's are fast, runs of contiguous elements loaded run by run, lane by lane otherwise.
#include "codegen/CodegenLLVMInternal.h"

#include "ir/Analyzer.h"
#include "ir/Diagnostic.h"
#include "ir/IRUtil.h"
#include "ir/ModularSet.h"

#include <algorithm>

namespace loopscope::codegen {

namespace {

// Loads of a ramp with a constant stride up to this one are one contiguous load and a shuffle;
// wider strides are gathers (their span would mostly be thrown away).
constexpr std::int64_t kMaxShuffledStride = 4;

// The scalar index of lane `lane` of a vector index made of ramps, broadcasts and arithmetic
// on them; null for any other vector node.
Expr laneIndex(const Expr& e, int lane)
{
    if (e.type().lanes == 1) return e;
    if (auto* r = e.as<RampNode>()) return r->base + r->stride * makeInt(lane, r->stride.type());
    if (auto* b = e.as<BroadcastNode>()) return b->value;
    if (auto* bin = e.as<BinaryNode>()) {
        Expr a = laneIndex(bin->a, lane), b = laneIndex(bin->b, lane);
        return a.defined() && b.defined() ? makeBinary(bin->kind, a, b) : Expr();
    }
    return Expr();
}

// The width of the contiguous runs a vector index is made of where it is not one ramp (a
// vector of 32 columns over weights in panels of 16: two runs of 16, one per panel), or 0.
// Runs are of at least 4 lanes.
int contiguousRuns(const Expr& index, int lanes)
{
    if (index.as<RampNode>() || lanes < 8 || (lanes & (lanes - 1)) != 0) return 0;
    std::vector<Expr> lane(static_cast<std::size_t>(lanes));
    for (int l = 0; l < lanes; ++l)
        if (!(lane[static_cast<std::size_t>(l)] = laneIndex(index, l)).defined()) return 0;
    for (int run = lanes / 2; run >= 4; run /= 2) {
        bool ok = true;
        for (int first = 0; first < lanes && ok; first += run)
            for (int t = 1; t < run && ok; ++t) {
                std::int64_t d = 0;
                ok = isConstInt(simplify(lane[static_cast<std::size_t>(first + t)] -
                                         lane[static_cast<std::size_t>(first)]),
                                &d) &&
                     d == t;
            }
        if (ok) return run;
    }
    return 0;
}

} // namespace

llvm::Value* Codegen::bufferPointer(const Buffer& b)
{
    auto it = m_vars.find(b->data.get());
    LS_ASSERT(it != m_vars.end(), "codegen: buffer '" + b->name + "' has no storage here");
    return it->second;
}

// The alignment an element of a buffer of type `t` is known to have: the largest power of two
// dividing its size (elements of a float32x5 buffer start every 20 bytes), at most 64.
unsigned Codegen::elementAlign(DataType t)
{
    int size = t.bytes() * t.lanes;
    return static_cast<unsigned>(std::min(size & -size, 64));
}

llvm::Align Codegen::rampAlign(DataType elem, const Expr& index)
{
    const llvm::Align element(elementAlign(elem));
    auto* r = index.as<RampNode>();
    if (!m_device || !r || !isOne(r->stride) || elem.lanes != 1) return element;
    const std::int64_t bytes = std::int64_t{r->lanes} * elem.bytes();
    if (bytes > 16 || (bytes & (bytes - 1)) != 0) return element;
    // Every buffer of a kernel starts at least 16-byte aligned (parameters, shared, local).
    const Expr base = substituteLets(r->base, m_letValues);
    return modularSet(base).divisibleBy(r->lanes) ? llvm::Align(static_cast<std::uint64_t>(bytes))
                                                  : element;
}

// The address of element `index` of a buffer of type `elem`. Buffers of a vector type
// (StorageRewrite makes them) are packed, as their allocation is: element i starts at scalar
// i * lanes. A GEP over the LLVM vector type would step by its allocation size instead, which
// is larger when the lane count is not a power of two (<5 x float> occupies 32 bytes).
llvm::Value* Codegen::elementPointer(DataType elem, llvm::Value* base, llvm::Value* index,
                                     bool nonNegativeIndex)
{
    if (elem.lanes == 1) return m_b.CreateInBoundsGEP(memType(elem), base, index);
    llvm::Value* lanes = llvm::ConstantInt::get(index->getType(), elem.lanes);
    llvm::Value* scalars = m_b.CreateMul(index, lanes, "", nonNegativeIndex, true);
    return m_b.CreateInBoundsGEP(memType(elem.element()), base, scalars);
}

// The index of the first element an index names: itself, or a ramp's base.
const Expr& Codegen::firstIndex(const Expr& index)
{
    auto* r = index.as<RampNode>();
    return r ? r->base : index;
}

// The address of the first element a scalar index or a stride-one ramp names.
llvm::Value* Codegen::firstElementPointer(DataType elem, llvm::Value* base, const Expr& index)
{
    const Expr& first = firstIndex(index);
    return elementPointer(elem, base, genIndex(first), nonNegative(first));
}

// The same for a masked access, where the first lane may be off and its address outside the
// buffer (padding reads from x - 2): not `inbounds`, which would make every lane's address
// poison then.
llvm::Value* Codegen::maskedFirstPointer(DataType elem, llvm::Value* base, const Expr& index)
{
    return m_b.CreateGEP(memType(elem), base, genIndex(firstIndex(index)));
}

// Whether the elements a ramp of constant base and stride one names all lie in a stack
// buffer of the function being emitted (so reading lanes that are masked off is harmless,
// and writing them back unchanged too).
bool Codegen::inOwnFrame(const Buffer& b, const Expr& index) const
{
    auto it = m_stackBytes.find(b->data.get());
    if (it == m_stackBytes.end() || it->second.second != m_b.GetInsertBlock()->getParent())
        return false;
    auto* r = index.as<RampNode>();
    std::int64_t first = 0;
    if (!r || !isOne(r->stride) || !isConstInt(r->base, &first)) return false;
    // In bytes: the buffer may be a view of another type on the allocation (StorageRewrite).
    return first >= 0 && (first + r->lanes) * b->dtype.bytes() * b->dtype.lanes <= it->second.first;
}

// Masked loads and stores are of a power-of-two number of lanes: LLVM 16 compiles some others
// wrongly for x86 (of 17 floats under a mask whose any-lane test guards them, it loads the
// 17th whatever its mask says).
int Codegen::maskedWidth(int lanes)
{
    return static_cast<int>(llvm::PowerOf2Ceil(static_cast<std::uint64_t>(lanes)));
}

// `v` with `width` lanes: its first ones, then (widened) copies of its first (harmless as
// addresses too).
llvm::Value* Codegen::resizeLanes(llvm::Value* v, int width)
{
    int lanes = lanesOf(v);
    if (lanes == width) return v;
    std::vector<int> order(static_cast<std::size_t>(width), 0);
    for (int i = 0; i < std::min(lanes, width); ++i)
        order[static_cast<std::size_t>(i)] = i;
    return m_b.CreateShuffleVector(v, order);
}

// A mask of `width` lanes: its own, then lanes that are off.
llvm::Value* Codegen::widenMask(llvm::Value* mask, int width)
{
    int lanes = lanesOf(mask);
    if (lanes == width) return mask;
    std::vector<int> order(static_cast<std::size_t>(width),
                           lanes); // lane 0 of the all-off vector
    for (int i = 0; i < lanes; ++i)
        order[static_cast<std::size_t>(i)] = i;
    return m_b.CreateShuffleVector(mask, llvm::Constant::getNullValue(mask->getType()), order);
}

// A vector of the addresses of the elements a vector index names.
llvm::Value* Codegen::lanePointers(DataType elem, llvm::Value* base, const Expr& index)
{
    llvm::Value* idx = genExpr(index);
    llvm::Type* i64 =
        llvm::FixedVectorType::get(m_b.getInt64Ty(), static_cast<unsigned>(lanesOf(idx)));
    idx = m_b.CreateIntCast(idx, i64, !index.type().isUInt());
    return m_b.CreateGEP(memType(elem), base, idx); // lanes that are off may point anywhere
}

void Codegen::visitBufferLoad(const BufferLoadNode* op)
{
    m_value = genLoad(op);
}

llvm::Value* Codegen::genLoad(const BufferLoadNode* op)
{
    LS_ASSERT(op->indices.size() == 1, "codegen: buffer '" + op->buffer->name + "' is not flat");
    DataType elem = op->buffer->dtype;
    const Expr& index = op->indices[0];
    llvm::Value* base = bufferPointer(op->buffer);
    llvm::Type* mty = memType(elem);
    auto fromMemory = [&](llvm::Value* v) {
        return elem.element().isBool()
                   ? m_b.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()))
                   : v;
    };
    if (index.type().lanes == 1) {
        llvm::Value* ptr = firstElementPointer(elem, base, index);
        return fromMemory(m_b.CreateAlignedLoad(mty, ptr, llvm::Align(elementAlign(elem))));
    }
    int lanes = index.type().lanes;
    if (m_laneMask && !inOwnFrame(op->buffer, index)) {
        LS_ASSERT(lanes == lanesOf(m_laneMask) && elem.lanes == 1,
                  "codegen: masked load of other lanes");
        const int width = maskedWidth(lanes);
        llvm::Type* vty = memType(elem.withLanes(width));
        llvm::Value* none = llvm::Constant::getNullValue(vty);
        llvm::Value* mask = widenMask(m_laneMask, width);
        llvm::Align align(elementAlign(elem));
        llvm::Value* v;
        if (auto* r = index.as<RampNode>(); r && isOne(r->stride))
            v = m_b.CreateMaskedLoad(vty, maskedFirstPointer(elem, base, index), align, mask, none);
        else
            v = m_b.CreateMaskedGather(vty, resizeLanes(lanePointers(elem, base, index), width),
                                       align, mask, none);
        return fromMemory(resizeLanes(v, lanes));
    }
    if (auto* r = index.as<RampNode>(); r && isOne(r->stride) && elem.lanes == 1) {
        llvm::Type* vty = memType(elem.withLanes(lanes));
        llvm::Value* ptr = firstElementPointer(elem, base, index);
        return fromMemory(m_b.CreateAlignedLoad(vty, ptr, rampAlign(elem, index)));
    }
    llvm::Align align(elementAlign(elem));
    // One address for all lanes: one load, broadcast.
    auto* ramp = index.as<RampNode>();
    auto* same = index.as<BroadcastNode>();
    if (elem.lanes == 1 && (same || (ramp && isZero(ramp->stride)))) {
        llvm::Value* ptr = elementPointer(elem, base, genExpr(same ? same->value : ramp->base));
        return fromMemory(broadcast(m_b.CreateAlignedLoad(mty, ptr, align), lanes));
    }
    // A small constant stride (a stride-2 convolution's input along x): the elements from the
    // first lane's to the last's in one load, and the lanes picked out of it by a shuffle. The
    // load covers nothing past the last lane's element, so it stays inside the buffer.
    std::int64_t stride = 0;
    if (elem.lanes == 1 && ramp && isConstInt(ramp->stride, &stride) && stride >= 2 &&
        stride <= kMaxShuffledStride) {
        const int span = static_cast<int>((lanes - 1) * stride + 1);
        llvm::Value* ptr = firstElementPointer(elem, base, index);
        llvm::Value* wide = m_b.CreateAlignedLoad(memType(elem.withLanes(span)), ptr, align);
        std::vector<int> pick;
        for (int i = 0; i < lanes; ++i)
            pick.push_back(static_cast<int>(i * stride));
        return fromMemory(m_b.CreateShuffleVector(wide, pick));
    }
    // Runs of contiguous elements (a vector wider than the panels its elements lie in): one
    // vector load per run, joined.
    const Expr spelled = elem.lanes == 1 && !ramp && !same && lanes >= 8
                             ? substituteLets(index, m_letValues)
                             : Expr();
    if (int run = spelled.defined() ? contiguousRuns(spelled, lanes) : 0; run > 0) {
        llvm::Type* rty = memType(elem.withLanes(run));
        std::vector<llvm::Value*> parts;
        for (int first = 0; first < lanes; first += run) {
            const Expr at = laneIndex(spelled, first);
            llvm::Value* ptr = elementPointer(elem, base, genIndex(at), nonNegative(at));
            parts.push_back(m_b.CreateAlignedLoad(rty, ptr, align));
        }
        while (parts.size() > 1) {
            std::vector<llvm::Value*> joined;
            const int width = lanesOf(parts.front());
            std::vector<int> order(static_cast<std::size_t>(2 * width));
            for (int i = 0; i < 2 * width; ++i)
                order[static_cast<std::size_t>(i)] = i;
            for (std::size_t i = 0; i < parts.size(); i += 2)
                joined.push_back(m_b.CreateShuffleVector(parts[i], parts[i + 1], order));
            parts = std::move(joined);
        }
        return fromMemory(parts.front());
    }
    // A gather: one instruction where the target's gathers are fast (AVX-512, and AVX2 on
    // the Intel cores LLVM marks so), as LLVM's vectorizer decides; lane by lane otherwise,
    // as TVM emits it (LLVM would expand the gather the same way, but after its optimizer).
    // Only of a power-of-two width: LLVM 16 miscompiles some others (see maskedWidth).
    llvm::Type* vty = memType(elem.withLanes(lanes));
    if (elem.lanes == 1 && llvm::isPowerOf2_32(static_cast<unsigned>(lanes)) &&
        tti().isLegalMaskedGather(vty, align) &&
        !tti().forceScalarizeMaskedGather(llvm::cast<llvm::VectorType>(vty), align))
        return fromMemory(m_b.CreateMaskedGather(vty, lanePointers(elem, base, index), align));
    llvm::Value* idx = genExpr(index);
    llvm::Value* out = llvm::UndefValue::get(memType(elem.withLanes(lanes * elem.lanes)));
    for (int i = 0; i < lanes; ++i) {
        llvm::Value* lane = m_b.CreateExtractElement(idx, static_cast<std::uint64_t>(i));
        llvm::Value* ptr = elementPointer(elem, base, lane);
        llvm::Value* v = m_b.CreateAlignedLoad(mty, ptr, align);
        out = m_b.CreateInsertElement(out, v, static_cast<std::uint64_t>(i));
    }
    return fromMemory(out);
}

void Codegen::visitBufferStore(const BufferStoreNode* op)
{
    LS_ASSERT(op->indices.size() == 1, "codegen: buffer '" + op->buffer->name + "' is not flat");
    DataType elem = op->buffer->dtype;
    const Expr& index = op->indices[0];
    llvm::Value* base = bufferPointer(op->buffer);
    int lanes = index.type().lanes;
    llvm::Value* value = genExpr(op->value);
    if (elem.element().isBool())
        value = m_b.CreateZExt(value, memType(elem.withLanes(lanesOf(value))));
    if (lanes > 1) value = broadcast(value, lanes);
    auto* r = index.as<RampNode>();
    if (m_laneMask && lanes > 1) {
        LS_ASSERT(lanes == lanesOf(m_laneMask) && elem.lanes == 1,
                  "codegen: masked store of other lanes");
        llvm::Align align(elementAlign(elem));
        if (inOwnFrame(op->buffer, index)) {
            // The other lanes keep their values: a blend, which leaves the buffer to be
            // promoted to registers. (Only in this function's own frame: no other thread
            // writes there.)
            llvm::Value* ptr = firstElementPointer(elem, base, index);
            llvm::Value* old = m_b.CreateAlignedLoad(value->getType(), ptr, align);
            m_b.CreateAlignedStore(m_b.CreateSelect(m_laneMask, value, old), ptr, align);
        } else {
            const int width = maskedWidth(lanes);
            llvm::Value* mask = widenMask(m_laneMask, width);
            llvm::Value* wide = resizeLanes(value, width);
            if (r && isOne(r->stride))
                m_b.CreateMaskedStore(wide, maskedFirstPointer(elem, base, index), align, mask);
            else
                m_b.CreateMaskedScatter(wide, resizeLanes(lanePointers(elem, base, index), width),
                                        align, mask);
        }
        return;
    }
    if (lanes == 1 || (r && isOne(r->stride) && elem.lanes == 1)) {
        llvm::Value* ptr = firstElementPointer(elem, base, index);
        m_b.CreateAlignedStore(value, ptr, rampAlign(elem, index));
        return;
    }
    llvm::Value* idx = genExpr(index);
    for (int i = 0; i < lanes; ++i) {
        llvm::Value* lane = m_b.CreateExtractElement(idx, static_cast<std::uint64_t>(i));
        llvm::Value* ptr = elementPointer(elem, base, lane);
        m_b.CreateAlignedStore(m_b.CreateExtractElement(value, static_cast<std::uint64_t>(i)), ptr,
                               llvm::Align(elementAlign(elem)));
    }
}

} // namespace loopscope::codegen
