#include "lower/gpu/GpuAccess.h"

#include "ir/Analyzer.h"
#include "ir/IRMutator.h"
#include "ir/IRUtil.h"
#include "schedule/ThreadScope.h"

#include <algorithm>
#include <map>
#include <set>

namespace loopscope {

namespace {

constexpr int kWarp = 32;
constexpr std::int64_t kSector = 32; // bytes a global access fetches at least
constexpr int kBanks = 32;           // shared memory banks, 4 bytes wide

struct Thread {
    int dim = 0;
    std::int64_t extent = 1;
    const VarNode* var = nullptr;
};

class Analysis : public IRVisitor {
public:
    std::vector<GpuKernelShape> kernels;

protected:
    void visitAttr(const AttrNode* op) override
    {
        if (op->key != "thread_extent") return IRVisitor::visitAttr(op);
        const bool outermost = m_depth == 0;
        if (outermost) {
            kernels.emplace_back();
            kernels.back().launch = op;
            m_threads.clear();
            m_block = {1, 1, 1};
        }
        std::int64_t n = 1;
        const bool constant = isConstInt(op->value, &n);
        if (threadRank(op->target) == 1 && threadDim(op->target) >= 0 && constant) {
            Var v = findVar(op->body, op->ref);
            m_threads.push_back({threadDim(op->target), n, v.defined() ? v.get() : nullptr});
            m_block[static_cast<std::size_t>(threadDim(op->target))] = n;
            kernels.back().threadsPerBlock = m_block[0] * m_block[1] * m_block[2];
        }
        ++m_depth;
        IRVisitor::visitAttr(op);
        --m_depth;
        if (threadRank(op->target) == 1 && constant && !m_threads.empty()) m_threads.pop_back();
    }

    void visitAllocate(const AllocateNode* op) override
    {
        std::int64_t n = 0;
        if (m_depth > 0 && op->buffer->scope == "shared" && isConstInt(op->buffer->shape[0], &n))
            kernels.back().sharedBytes += n * op->buffer->dtype.bytes() * op->buffer->dtype.lanes;
        IRVisitor::visitAllocate(op);
    }

    void visitLetStmt(const LetStmtNode* op) override
    {
        m_lets[op->var.get()] = op->value;
        IRVisitor::visitLetStmt(op);
        m_lets.erase(op->var.get());
    }

    void visitBufferStore(const BufferStoreNode* op) override
    {
        m_stmt = op;
        access(op->buffer, op->indices.back(), true);
        IRVisitor::visitBufferStore(op);
        m_stmt = nullptr;
    }

    void visitBufferLoad(const BufferLoadNode* op) override
    {
        if (m_stmt) access(op->buffer, op->indices.back(), false);
        IRVisitor::visitBufferLoad(op);
    }

private:
    void access(const Buffer& b, const Expr& index, bool store)
    {
        if (m_depth == 0 || kernels.empty()) return;
        const std::string scope = b->scope.empty() ? "global" : b->scope;
        if (scope != "global" && scope != "shared") return;
        GpuAccess a;
        a.stmt = m_stmt;
        a.buffer = b->name;
        a.scope = scope;
        a.store = store;
        a.elementBytes = b->dtype.bytes();
        a.lanes = index.type().lanes;
        const Expr flat = substituteLets(index, m_lets);
        // Lane l of the first warp: its thread indices, x fastest.
        const std::int64_t threads = m_block[0] * m_block[1] * m_block[2];
        const int lanes = static_cast<int>(std::min<std::int64_t>(kWarp, threads));
        std::set<std::int64_t> elements;
        // Shared memory serves a warp's 8- and 16-byte accesses in 2 and 4 phases of 16 and 8
        // threads; banks conflict only within a phase.
        const int accessBytes = a.elementBytes * a.lanes;
        const int phases = accessBytes >= 16 ? 4 : accessBytes >= 8 ? 2 : 1;
        std::map<std::pair<int, std::int64_t>, std::set<std::int64_t>> wordsInBank;
        a.known = true;
        for (int l = 0; l < lanes && a.known; ++l) {
            const std::int64_t x = l % m_block[0], y = (l / m_block[0]) % m_block[1],
                               z = l / (m_block[0] * m_block[1]);
            for (int lane = 0; lane < a.lanes && a.known; ++lane) {
                auto e = evaluate(flat, {x, y, z}, lane);
                if (!e) {
                    a.known = false;
                    break;
                }
                elements.insert(*e);
                if (scope == "shared") {
                    const std::int64_t word = *e * a.elementBytes / 4;
                    const int phase = l / (kWarp / phases);
                    wordsInBank[{phase, ((word % kBanks) + kBanks) % kBanks}].insert(word);
                }
            }
        }
        if (a.known) {
            auto x0 = evaluate(flat, {0, 0, 0}, 0), x1 = evaluate(flat, {1, 0, 0}, 0);
            if (x0 && x1 && m_block[0] > 1) a.strideX = *x1 - *x0;
            a.bytesUsed = static_cast<std::int64_t>(elements.size()) * a.elementBytes;
            std::set<std::int64_t> sectors;
            for (std::int64_t e : elements)
                sectors.insert((e * a.elementBytes) / kSector);
            a.bytesFetched = static_cast<std::int64_t>(sectors.size()) * kSector;
            for (auto& [bank, words] : wordsInBank)
                a.bankWays = std::max(a.bankWays, static_cast<int>(words.size()));
        }
        kernels.back().accesses.push_back(a);
    }

    // The index for the thread at (x, y, z), lane `lane` of a vector access, every other
    // variable at 0; nothing where it cannot be computed (it reads memory).
    std::optional<std::int64_t> evaluate(const Expr& index, std::array<std::int64_t, 3> at,
                                         int lane) const
    {
        VarMap values;
        for (const Thread& t : m_threads)
            if (t.var) values[t.var] = makeInt(at[static_cast<std::size_t>(t.dim)], t.var->type);
        Expr e = index;
        if (auto* r = e.as<RampNode>()) e = r->base + r->stride * makeInt(lane, r->stride.type());
        if (auto* b = e.as<BroadcastNode>()) e = b->value;
        e = substitute(e, values);
        VarSet rest;
        collectVars(e, &rest);
        VarMap zeros;
        for (const VarNode* v : rest)
            zeros[v] = makeInt(0, v->type);
        e = Analyzer().simplify(substitute(e, zeros));
        std::int64_t out = 0;
        if (!isConstInt(e, &out)) return std::nullopt;
        return out;
    }

    int m_depth = 0;
    std::vector<Thread> m_threads;
    std::array<std::int64_t, 3> m_block{1, 1, 1};
    VarMap m_lets;
    const StmtNode* m_stmt = nullptr;
};

struct Arch {
    int maxThreads, maxBlocks;
    std::int64_t sharedPerSm;
    std::int64_t reservedShared; // per block, for the system (sm_80 on)
};

// NVIDIA's occupancy tables (CUDA C++ Programming Guide, "Compute Capabilities").
Arch archOf(int sm)
{
    switch (sm) {
    case 52: return {2048, 32, 96 * 1024, 0};
    case 53: return {2048, 32, 64 * 1024, 0};
    case 60: return {2048, 32, 64 * 1024, 0};
    case 61: return {2048, 32, 96 * 1024, 0};
    case 62: return {2048, 32, 64 * 1024, 0};
    case 70:
    case 72: return {2048, 32, 96 * 1024, 0};
    case 75: return {1024, 16, 64 * 1024, 0};
    case 80: return {2048, 32, 164 * 1024, 1024};
    case 86: return {1536, 16, 100 * 1024, 1024};
    case 87: return {2048, 16, 164 * 1024, 1024};
    case 89: return {1536, 24, 100 * 1024, 1024};
    case 90: return {2048, 32, 228 * 1024, 1024};
    default: return {2048, 32, 64 * 1024, 0};
    }
}

std::int64_t roundUp(std::int64_t v, std::int64_t to)
{
    return (v + to - 1) / to * to;
}

} // namespace

std::vector<GpuKernelShape> analyzeGpuKernels(const Stmt& s)
{
    Analysis a;
    a.visit(s);
    return std::move(a.kernels);
}

std::string describeGpuAccess(const GpuAccess& a)
{
    std::string out = a.scope + (a.store ? " store " : " load ") + a.buffer + ": ";
    if (!a.known) return out + "depends on loaded data or on a size not known here";
    if (a.scope == "shared") {
        return out + (a.bankWays <= 1 ? std::string("no bank conflict")
                                      : std::to_string(a.bankWays) + "-way bank conflict");
    }
    out += std::to_string(a.bytesUsed) + " of " + std::to_string(a.bytesFetched) +
           " bytes fetched used";
    if (a.bytesFetched == 0) return out;
    const double share = static_cast<double>(a.bytesUsed) / static_cast<double>(a.bytesFetched);
    if (a.bytesUsed <= a.elementBytes * a.lanes) return out + " (one address for the warp)";
    if (share >= 0.999) return out + " (coalesced)";
    return out + " (" + std::to_string(static_cast<int>(share * 100 + 0.5)) + " %" +
           (a.strideX ? ", stride " + std::to_string(*a.strideX) + " along threadIdx.x" : "") + ")";
}

bool gpuAccessWastes(const GpuAccess& a)
{
    if (!a.known) return false;
    if (a.scope == "shared") return a.bankWays > 1;
    return a.bytesFetched > 0 && a.bytesUsed > a.elementBytes * a.lanes &&
           a.bytesUsed < a.bytesFetched;
}

GpuOccupancy gpuOccupancy(int sm, std::int64_t threadsPerBlock, std::int64_t sharedBytes,
                          int registersPerThread)
{
    const Arch arch = archOf(sm);
    GpuOccupancy o;
    o.maxWarpsPerSm = arch.maxThreads / kWarp;
    const std::int64_t warpsPerBlock =
        std::max<std::int64_t>(1, (threadsPerBlock + kWarp - 1) / kWarp);
    std::int64_t blocks = arch.maxBlocks;
    o.limitedBy = "blocks";
    auto limit = [&](std::int64_t n, const char* why) {
        if (n < blocks) {
            blocks = n;
            o.limitedBy = why;
        }
    };
    limit(o.maxWarpsPerSm / warpsPerBlock, "threads");
    if (sharedBytes > 0)
        limit(arch.sharedPerSm / roundUp(sharedBytes + arch.reservedShared, 256), "shared memory");
    if (registersPerThread > 0) {
        const std::int64_t perWarp = roundUp(std::min(registersPerThread, 255) * kWarp, 256);
        limit(65536 / perWarp / warpsPerBlock, "registers");
    }
    o.blocksPerSm = static_cast<int>(std::max<std::int64_t>(0, blocks));
    o.warpsPerSm = static_cast<int>(o.blocksPerSm * warpsPerBlock);
    o.occupancy = o.maxWarpsPerSm ? static_cast<double>(o.warpsPerSm) / o.maxWarpsPerSm : 0;
    return o;
}

} // namespace loopscope
