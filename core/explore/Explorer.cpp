#include "explore/Explorer.h"

#include "ir/GpuTarget.h"
#include "ir/Printer.h"
#include "lower/LanesAtOnce.h"
#include "lower/Lower.h"
#include "lower/gpu/GpuAccess.h"
#include "lower/gpu/ThreadSync.h"
#include "schedule/Bound.h"
#include "schedule/TensorIR.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace loopscope {

namespace {

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// A loop's kind as the schedule panel shows it.
std::string kindName(ForKind kind, const std::string& threadTag)
{
    switch (kind) {
    case ForKind::Serial: return "serial";
    case ForKind::Parallel: return "parallel";
    case ForKind::Vectorized: return "vectorized";
    case ForKind::Unrolled: return "unrolled";
    case ForKind::ThreadBinding: return "bound to " + threadTag;
    }
    return "serial";
}

std::string kindName(const IterVarAttr* a)
{
    return a ? kindName(a->kind, a->threadTag) : "serial";
}

// A GPU program's kernels and accesses at their lines of `printed` (TVM's printing), for the
// occupancy on the variant's target architecture (sm_50 where it names none, as `lower --access`).
std::vector<StepView::AccessNote> accessNotes(const LoweredFunc& f, const PrintedFunction& printed,
                                              const std::string& target)
{
    std::string why;
    const std::optional<GpuTarget> gpu =
        isGpuTarget(target) ? parseGpuTarget(target, &why) : std::nullopt;
    const int sm = gpu && gpu->sm ? gpu->sm : 50;
    std::unordered_map<const StmtNode*, int> lines;
    for (std::size_t l = 0; l < printed.lineStatements.size(); ++l)
        for (const StmtNode* s : printed.lineStatements[l])
            lines.emplace(s, static_cast<int>(l) + 1);
    auto lineOf = [&](const StmtNode* s) {
        auto it = lines.find(s);
        return it == lines.end() ? 0 : it->second;
    };
    std::map<int, StepView::AccessNote> byLine;
    auto add = [&](int line, const std::string& text, bool warn) {
        if (line <= 0) return;
        StepView::AccessNote& n = byLine[line];
        n.line = line;
        n.text += (n.text.empty() ? "" : "; ") + text;
        n.warn = n.warn || warn;
    };
    const std::vector<GpuKernelShape> kernels = analyzeGpuKernels(f.func.body);
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        const GpuKernelShape& shape = kernels[k];
        const GpuOccupancy occ = gpuOccupancy(sm, shape.threadsPerBlock, shape.sharedBytes, 0);
        add(lineOf(shape.launch),
            (kernels.size() > 1 ? "kernel " + std::to_string(k + 1) + ": " : std::string()) +
                std::to_string(shape.threadsPerBlock) + " threads per block, " +
                std::to_string(shape.sharedBytes) + " bytes shared; on sm_" + std::to_string(sm) +
                " " + std::to_string(occ.warpsPerSm) + " of " + std::to_string(occ.maxWarpsPerSm) +
                " warps per SM (" + std::to_string(static_cast<int>(occ.occupancy * 100 + 0.5)) +
                " %), limited by " + occ.limitedBy,
            false);
        for (const GpuAccess& a : shape.accesses)
            add(lineOf(a.stmt), describeGpuAccess(a), gpuAccessWastes(a));
    }
    std::vector<StepView::AccessNote> out;
    for (auto& [line, note] : byLine)
        out.push_back(std::move(note));
    return out;
}

// The loop variables each line of a TensorIR printing binds, in order ("for i, j in
// T.grid(...)": i, then j, on one line).
std::vector<std::pair<int, std::string>> printedLoopTargets(const std::string& text)
{
    std::vector<std::pair<int, std::string>> out;
    std::istringstream in(text);
    int n = 0;
    for (std::string line; std::getline(in, line);) {
        ++n;
        const std::size_t start = line.find_first_not_of(' ');
        if (start == std::string::npos || line.compare(start, 4, "for ") != 0) continue;
        const std::size_t end = line.find(" in ", start);
        if (end == std::string::npos) continue;
        std::istringstream targets(line.substr(start + 4, end - start - 4));
        for (std::string t; std::getline(targets, t, ',');) {
            t.erase(0, t.find_first_not_of(' '));
            t.erase(t.find_last_not_of(' ') + 1);
            if (!t.empty()) out.emplace_back(n, t);
        }
    }
    return out;
}

} // namespace

std::map<int, int> loopLinesOnBlocks(const std::vector<LoopFootprint>& loops,
                                     const std::string& blocks)
{
    const std::vector<std::pair<int, std::string>> targets = printedLoopTargets(blocks);
    std::map<int, int> out;
    std::size_t next = 0;
    for (const LoopFootprint& l : loops) {
        if (l.line <= 0) continue;
        for (std::size_t k = next; k < targets.size(); ++k)
            if (targets[k].second == l.var) {
                out[l.line] = targets[k].first;
                next = k + 1;
                break;
            }
    }
    return out;
}

namespace {

StepView lowerStep(const Schedule& sch, const Variant& v)
{
    StepView step;
    step.stages = describeStages(sch);
    step.schedule = std::make_shared<const Schedule>(sch);
    try {
        LoweredFunc f = lowerSchedule(sch, v.args, v.funcName);
        if (const TirFunc* tir = sch.tensorIR()) {
            // A TensorIR variant: its blocks as sch.mod.show() prints them, and the compiled
            // form beside them, where its footprints are; they and the tails are also placed on
            // the blocks' loops.
            step.tir = printTensorIR(*tir, tir->spelling);
            PrintedFunction compiled = printTVMScriptWithLines(f.func);
            step.lanesOnVectors = countLanesAtOnce(f.func.body);
            try {
                step.footprints = loopFootprints(f, compiled, compiled);
                const std::map<int, int> onBlocks = loopLinesOnBlocks(step.footprints, step.tir);
                auto blockLine = [&](int line) {
                    auto it = onBlocks.find(line);
                    return it == onBlocks.end() ? 0 : it->second;
                };
                for (LoopFootprint& fp : step.footprints) {
                    fp.structuredLine = fp.line;
                    fp.line = blockLine(fp.line);
                }
                step.tails = guardedTails(f, compiled, kMaxTailEnumeration);
                for (GuardedTail& t : step.tails.tails) {
                    t.loopLine = blockLine(t.loopLine);
                    t.lines.clear(); // the guards are the blocks' T.where, not lines of their own
                }
            } catch (const UserError&) {
                // Footprints and tails are extras: the step stands without them.
            }
            step.structured = std::move(compiled.text);
            return step;
        }
        // Printed once each, with the lines the footprints and tails are placed on.
        PrintedFunction tvm = printTVMScriptWithLines(f.func);
        PrintedFunction structured = printStructuredWithLines(f.structured, f.args);
        step.lanesOnVectors = countLanesAtOnce(f.func.body);
        step.tirLoops = printedLoops(sch, f.structured, f.func.body, tvm);
        step.structuredLoops = printedLoops(sch, f.structured, f.structured, structured);
        try {
            step.footprints = loopFootprints(f, tvm, structured);
            step.tails = guardedTails(f, tvm, kMaxTailEnumeration);
            if (launchesThreads(f.func.body)) step.gpuAccesses = accessNotes(f, tvm, v.target);
        } catch (const UserError&) {
            // Footprints and tails are extras: the step stands without them.
        }
        step.tir = std::move(tvm.text);
        step.structured = std::move(structured.text);
    } catch (const UserError& e) {
        step.error = e.diagnostic();
    }
    return step;
}

} // namespace

namespace {

// A TensorIR variant's blocks as the schedule panel lists them: the function's inputs first (as
// placeholders, for cache_read), then each block (root aside) with the loops above it, outermost
// first, named by their variables; a loop's `attached` are the other blocks under it.
std::vector<StageInfo> describeBlocks(const TirFunc& f)
{
    std::vector<StageInfo> out;
    // Every block but the root, by name, found once.
    std::vector<std::pair<std::string, const BlockNode*>> blocks;
    for (const std::string& n : blockNames(f))
        if (n != "root") blocks.emplace_back(n, findBlock(f, n));
    auto touches = [](const std::vector<TensorRegion>& regions, const Tensor& t) {
        return std::any_of(regions.begin(), regions.end(),
                           [&](const TensorRegion& r) { return r.tensor == t; });
    };
    auto readers = [&](const BlockNode* b) {
        std::vector<std::string> r;
        for (const auto& [n, o] : blocks)
            if (o != b &&
                std::any_of(o->reads.begin(), o->reads.end(), [&](const TensorRegion& read) {
                    return touches(b->writes, read.tensor);
                }))
                r.push_back(n);
        return r;
    };
    for (const Tensor& p : f.params) {
        if (std::any_of(blocks.begin(), blocks.end(),
                        [&](const auto& nb) { return touches(nb.second->writes, p); }))
            continue;
        StageInfo info;
        info.name = p->name;
        info.kind = "placeholder";
        for (const auto& [n, o] : blocks)
            if (touches(o->reads, p)) info.readers.push_back(n);
        out.push_back(info);
    }
    // The loops above each block, to say which other blocks a loop holds.
    std::map<const VarNode*, std::vector<std::string>> blocksUnder;
    std::map<std::string, std::vector<Var>> loopsOf;
    for (const auto& nb : blocks) {
        const std::string& n = nb.first;
        loopsOf[n] = blockLoops(f, n);
        for (const Var& l : loopsOf[n])
            blocksUnder[l.get()].push_back(n);
    }
    for (const auto& [n, block] : blocks) {
        const BlockNode* b = block; // a lambda below captures it (not a structured binding)
        StageInfo info;
        info.name = n;
        const bool reduction =
            std::any_of(b->iters.begin(), b->iters.end(),
                        [](const BlockIter& it) { return it.kind == BlockIterKind::Reduce; });
        info.kind = reduction ? "reduction" : "compute";
        info.output = std::any_of(f.params.begin(), f.params.end(),
                                  [&](const Tensor& p) { return touches(b->writes, p); });
        info.readers = readers(b);
        for (const BlockIter& it : b->iters)
            info.rootAxes.push_back(it.var->name);
        for (const Var& l : loopsOf[n]) {
            const ForNode* loop = findLoop(f, l.get());
            AxisInfo a;
            a.name = l->name;
            a.var = l->name;
            a.extent = loop ? constIntOr(loop->extent, -1) : -1;
            a.kind = loop ? kindName(loop->forKind, loop->threadTag) : "serial";
            a.reduction = loopOfReduction(f, l);
            for (const std::string& other : blocksUnder[l.get()])
                if (other != n) a.attached.push_back(other);
            info.axes.push_back(a);
        }
        out.push_back(info);
    }
    return out;
}

} // namespace

std::vector<StageInfo> describeStages(const Schedule& sch)
{
    if (const TirFunc* f = sch.tensorIR()) return describeBlocks(*f);
    std::vector<StageInfo> out;
    RangeMap ranges;
    try {
        EffectiveBodies bodies = inlineBodies(sch);
        ranges = inferBound(sch, bodies).ranges;
    } catch (const UserError&) {
        // Extents stay unknown; the step's own error says why.
    }
    for (auto& st : sch.stages()) {
        StageInfo info;
        info.name = st.name();
        info.output = st.isOutput;
        for (int r : sch.readers(st.op))
            info.readers.push_back(sch.stages()[static_cast<std::size_t>(r)].name());
        if (st.isPlaceholder()) {
            info.kind = "placeholder";
            out.push_back(info);
            continue;
        }
        info.kind = st.op->isReduction() ? "reduction" : "compute";
        if (st.attach == AttachType::Inline)
            info.attach.kind = Attachment::Kind::Inline;
        else if (st.attach == AttachType::Scope && sch.find(st.attachOp))
            info.attach = {Attachment::Kind::At, sch.find(st.attachOp)->name(),
                           axisDisplayName(st.attachIvar->name())};
        for (auto& iv : st.rootIterVars())
            info.rootAxes.push_back(iv->name());
        for (auto& iv : st.leafIterVars) {
            AxisInfo a;
            a.name = axisDisplayName(iv->name());
            a.var = iv->name();
            a.reduction = iv->kind == IterKind::Reduce;
            a.kind = kindName(st.attr(iv));
            if (auto it = ranges.find(iv.get()); it != ranges.end())
                a.extent = constIntOr(it->second.extent, -1);
            for (auto& other : sch.stages())
                if (other.attach == AttachType::Scope && other.attachIvar == iv &&
                    other.attachOp == st.op)
                    a.attached.push_back(other.name());
            info.axes.push_back(a);
        }
        out.push_back(info);
    }
    return out;
}

Exploration explore(const std::string& script, const std::map<std::string, std::int64_t>& overrides,
                    const std::string& detailVariant, bool detailOnly)
{
    Exploration x;
    auto t0 = std::chrono::steady_clock::now();
    EvalResult r = evaluateScript(script, overrides);
    x.evaluateMs = msSince(t0);
    x.ok = r.ok;
    x.error = r.error;
    x.parameters = r.program.parameters;
    t0 = std::chrono::steady_clock::now();
    std::int64_t othersBudget = kMaxExploredStages;
    for (auto& v : r.program.variants) {
        VariantView vv;
        vv.name = v.name;
        vv.target = v.target;
        vv.tensorIR = v.snapshots.front().tensorIR() != nullptr;
        vv.line = v.loc.line;
        vv.lastLine = v.lastLine;
        vv.scheduleEndLine = v.scheduleEndLine;
        vv.scheduleVar = v.scheduleVar;
        vv.tensorVars = v.tensorVars;
        vv.axisVars = v.axisVars;
        vv.stageAxisVars = v.stageAxisVars;
        vv.names = v.names;
        vv.blockVars = v.blockVars;
        vv.blockLoopVars = v.blockLoopVars;
        for (auto& a : v.args)
            vv.args.push_back(a->name);
        bool detailed = detailVariant.empty() || detailVariant == v.name;
        const std::size_t n = v.snapshots.size();
        // Which steps to lower: all of a detailed variant's that fit the bound (its first, then
        // from the last back), the last one of the others while their own bound lasts.
        std::vector<bool> lower(n, false);
        auto cost = [&](std::size_t k) {
            std::int64_t c = 0;
            for (const Stage& st : v.snapshots[k].stages())
                c += 1 + static_cast<std::int64_t>(st.relations.size());
            return c;
        };
        std::int64_t total = 0;
        for (std::size_t k = 0; k < n; ++k)
            total += cost(k);
        if (detailed && total <= kMaxExploredStages) {
            lower.assign(n, true);
        } else if (detailed && n > 0) {
            std::int64_t budget = kMaxExploredStages;
            auto take = [&](std::size_t k) {
                lower[k] = true;
                budget -= cost(k);
            };
            take(0);
            if (n > 1) take(n - 1);
            for (std::size_t k = n - 1; k-- > 1 && cost(k) <= budget;)
                take(k);
        } else if (!detailOnly && n > 0 && cost(n - 1) <= othersBudget) {
            lower[n - 1] = true;
            othersBudget -= cost(n - 1);
        }
        std::size_t lowered = 0;
        for (bool b : lower)
            lowered += b;
        for (std::size_t k = 0; k < n; ++k) {
            bool last = k + 1 == n;
            StepView step;
            if (lower[k]) {
                step = lowerStep(v.snapshots[k], v);
            } else if (detailed || (last && !detailOnly)) {
                step.notLowered =
                    "not lowered while editing: the steps of variant '" + v.name + "' have " +
                    std::to_string(total) + " stages and splits in all, more than the " +
                    std::to_string(kMaxExploredStages) + " the window lowers for each edit (" +
                    std::to_string(lowered) + " of its " + std::to_string(n) +
                    " steps are shown: the first and the last ones). `loopscope-cli lower FILE "
                    "--variant " +
                    v.name + "` prints its final loop nest";
            }
            if (k == 0) {
                step.label = "untransformed";
                step.line = v.loc.line;
            } else {
                step.label = v.steps[k - 1].text;
                step.primitive = v.steps[k - 1].primitive;
                step.line = v.steps[k - 1].loc.line;
            }
            vv.steps.push_back(std::move(step));
        }
        x.variants.push_back(std::move(vv));
    }
    x.lowerMs = msSince(t0);
    x.complete = !detailOnly || detailVariant.empty();
    std::set<std::string> names;
    for (auto& v : r.program.variants)
        names.insert(v.names.begin(), v.names.end());
    for (auto& p : r.program.parameters)
        names.insert(p.name);
    x.allNames.assign(names.begin(), names.end());
    return x;
}

} // namespace loopscope
