#include "lower/Lower.h"

#include "lower/LowerTensorIR.h"
#include "lower/ScheduleOps.h"
#include "lower/passes/EliminateCommonSubexpressions.h"
#include "lower/passes/FlattenStorage.h"
#include "lower/passes/HoistIfThenElse.h"
#include "lower/passes/InjectDoubleBuffer.h"
#include "lower/passes/InjectVirtualThread.h"
#include "lower/passes/RemoveNoOps.h"
#include "lower/passes/RewriteStorage.h"
#include "lower/passes/SimplifyStmt.h"
#include "lower/passes/UnrollLoops.h"
#include "lower/passes/VectorizeLoops.h"
#include "schedule/Bound.h"

#include <chrono>
#include <map>

namespace loopscope {

namespace {

class PassLog {
public:
    explicit PassLog(std::vector<PassSnapshot>& out) : m_out(out) {}

    template <typename F> Stmt run(const char* name, const Stmt& in, F&& pass)
    {
        auto t0 = std::chrono::steady_clock::now();
        Stmt out = pass(in);
        auto t1 = std::chrono::steady_clock::now();
        m_out.push_back(
            {name, out, !out.same(in), std::chrono::duration<double, std::milli>(t1 - t0).count()});
        return out;
    }

private:
    std::vector<PassSnapshot>& m_out;
};

} // namespace

Stmt lowerStructure(const Schedule& sch)
{
    if (const TirFunc* tir = sch.tensorIR()) return simplifyStmt(lowerTensorIR(*tir));
    EffectiveBodies bodies = inlineBodies(sch);
    BoundInfo bounds = inferBound(sch, bodies);
    return simplifyStmt(scheduleOps(sch, bodies, bounds));
}

LoweredFunc lowerSchedule(const Schedule& sch, const std::vector<Tensor>& args,
                          const std::string& name)
{
    LoweredFunc out;
    for (auto& a : args) {
        const Stage* st = sch.find(a);
        out.args.push_back(st ? st->op : a);
    }
    AlignMap aligns;
    for (auto& st : sch.stages()) {
        for (auto& a : st.aligns) {
            for (std::size_t d = 0; d < st.op->axes.size(); ++d)
                if (st.op->axes[d] == a.axis)
                    aligns[st.op.get()].push_back({static_cast<int>(d), a.factor, a.offset});
        }
    }

    if (const TirFunc* tir = sch.tensorIR()) {
        // sch.storage_align's, on the buffers the blocks write.
        std::vector<const BlockNode*> blocks;
        anyStmt(tir->body, [&](const StmtNode* st) {
            if (st->kind == StmtKind::Block) {
                auto* b = static_cast<const BlockNode*>(st);
                if (!b->dimAligns.empty()) blocks.push_back(b);
            }
            return false;
        });
        for (const BlockNode* b : blocks)
            for (const auto& a : b->dimAligns)
                aligns[b->writes[static_cast<std::size_t>(a.buffer)].tensor.get()].push_back(
                    {a.axis, a.factor, a.offset});
    }
    BindLocs bindLocs; // a tensorized loop's intrinsic buffers, located at the step
    for (auto& st : sch.stages())
        for (auto& [iv, a] : st.attrs)
            if (a.tensorIntrin)
                for (const Buffer& b : a.tensorIntrin->buffers)
                    bindLocs[b.get()] = a.tensorizeLoc;
    PassLog log(out.passes);
    Stmt s;
    if (const TirFunc* tir = sch.tensorIR()) {
        s = log.run("LowerTensorIR", Stmt(), [&](const Stmt&) { return lowerTensorIR(*tir); });
    } else {
        EffectiveBodies bodies = inlineBodies(sch);
        BoundInfo bounds = inferBound(sch, bodies);
        s = log.run("ScheduleOps", Stmt(),
                    [&](const Stmt&) { return scheduleOps(sch, bodies, bounds, &out.warnings); });
    }
    out.structured = simplifyStmt(s);
    // Storage flattening needs the argument buffers; it also produces the function's parameters.
    s = log.run("StorageFlatten", s, [&](const Stmt& in) {
        out.func = flattenStorage(in, out.args, aligns, name, bindLocs);
        out.func.fromTensorIR = sch.tensorIR() != nullptr;
        return out.func.body;
    });
    s = log.run("Simplify", s, simplifyStmt);
    s = log.run("VectorizeLoop", s, vectorizeLoops);
    s = log.run("InjectVirtualThread", s, injectVirtualThreads);
    std::map<std::string, SourceLoc> doubleBuffered;
    for (auto& st : sch.stages())
        if (st.doubleBuffer) doubleBuffered[st.name()] = st.doubleBufferLoc;
    s = log.run("InjectDoubleBuffer", s,
                [&](const Stmt& in) { return injectDoubleBuffer(in, doubleBuffered); });
    s = log.run("StorageRewrite", s, rewriteStorage);
    s = log.run("UnrollLoop", s, unrollLoops);
    s = log.run("Simplify", s, simplifyStmt);
    s = log.run("RemoveNoOp", s, removeNoOps);
    // Guards hoist only after vectorizing, so a guard inside a vectorized loop scalarizes it.
    s = log.run("HoistIfThenElse", s, hoistIfThenElse);
    s = log.run("CommonSubexprElim", s, eliminateCommonSubexpressions);
    out.func.body = s;
    return out;
}

} // namespace loopscope
