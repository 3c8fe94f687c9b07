#include "explore/TensorIRTranslation.h"

#include "ir/IRMutator.h"
#include "ir/Printer.h"
#include "lower/Lower.h"
#include "schedule/TensorIR.h"
#include "schedule/ThreadScope.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace loopscope {

namespace {

std::string quoted(const std::string& s)
{
    return "\"" + s + "\"";
}

const Stage* stageOf(const Schedule& s, const OperationNode* origin)
{
    for (const Stage& st : s.stages())
        if (st.originOp.get() == origin) return &st;
    return nullptr;
}

class Translator {
public:
    Translator(const Variant& v, TirSpelling spelling, const std::vector<std::string>& taken,
               std::string scheduleVar)
        : m_v(v), m_spelling(spelling), m_taken(taken.begin(), taken.end()),
          m_sch(std::move(scheduleVar))
    {
        m_taken.insert(m_sch);
    }

    TirTranslation run()
    {
        TirTranslation out;
        try {
            translate();
            out.ok = true;
        } catch (const UserError& e) {
            out.error = e.diagnostic();
        }
        out.statements = std::move(m_lines);
        out.stepOf = std::move(m_lineSteps);
        out.func = std::move(m_f);
        if (!out.ok) return out;
        // The proof: the calls' loop nest is the TE schedule's.
        try {
            Schedule teSchedule = m_v.schedule();
            Schedule tir = m_v.snapshots.front();
            tir.setTensorIR(out.func);
            const LoweredFunc te = lowerSchedule(teSchedule, m_v.args, m_v.funcName);
            const LoweredFunc ti = lowerSchedule(tir, m_v.args, m_v.funcName);
            const std::string diff = loopNestDifference(te.func.body, ti.func.body);
            if (!diff.empty()) {
                out.ok = false;
                out.error = {m_v.loc, "the TensorIR calls do not make the TE schedule's loop "
                                      "nest: " +
                                          diff};
            }
        } catch (const UserError& e) {
            out.ok = false;
            out.error = e.diagnostic();
        }
        return out;
    }

private:
    struct Loop {
        Var var;        // the TensorIR loop
        std::string py; // the Python name holding it
    };

    [[noreturn]] void refuse(int step, const std::string& why) const
    {
        const SourceLoc loc = step >= 0 ? m_v.steps[static_cast<std::size_t>(step)].loc : m_v.loc;
        throw UserError(loc, why);
    }

    void emit(int step, const std::string& line)
    {
        m_lines.push_back(line);
        m_lineSteps.push_back(step);
    }

    std::string freshName(const std::string& base)
    {
        std::string name = pythonIdentifier(base);
        if (m_taken.count(name) || name == "_")
            for (int k = 1; m_taken.count(name); ++k)
                name = pythonIdentifier(base) + (k == 1 ? "_loop" : "_loop" + std::to_string(k));
        m_taken.insert(name);
        return name;
    }

    const Schedule& snapshot(int i) const { return m_v.snapshots[static_cast<std::size_t>(i)]; }

    // The step whose snapshot first satisfies `holds` (of the stage of `origin`); -1: none.
    template <class F> int firstStep(const OperationNode* origin, F holds) const
    {
        for (std::size_t i = 1; i < m_v.snapshots.size(); ++i) {
            const Stage* st = stageOf(m_v.snapshots[i], origin);
            if (st && holds(*st)) return static_cast<int>(i) - 1;
        }
        return -1;
    }

    std::string getBlock() const
    {
        return m_sch + (m_spelling == TirSpelling::Tvm026 ? ".get_sblock(" : ".get_block(");
    }

    // The Python name of the block of a stage, looked up when first needed.
    std::string block(const OperationNode* origin, int step)
    {
        auto it = m_blocks.find(origin);
        LS_ASSERT(it != m_blocks.end(), "TensorIR translation: a stage without a block");
        auto py = m_blockVars.find(it->second);
        if (py != m_blockVars.end()) return py->second;
        const std::string name = freshName("b_" + it->second);
        m_blockVars[it->second] = name;
        emit(step, name + " = " + getBlock() + quoted(it->second) + ")");
        return name;
    }

    // The stage's own loops as TE's root axes, looked up when first needed: the block's
    // innermost loops, one per root axis.
    void ensureLoops(const Stage& st, int step)
    {
        if (m_fetched.count(st.originOp.get())) return;
        const std::string b = block(st.originOp.get(), step);
        const std::vector<Var> loops = blockLoops(m_f, m_blocks.at(st.originOp.get()));
        const std::vector<IterVar> roots = st.rootIterVars();
        if (loops.size() < roots.size())
            refuse(step, "the TensorIR block of '" + st.name() + "' has " +
                             std::to_string(loops.size()) + " loops where TE has " +
                             std::to_string(roots.size()) + " axes");
        const std::size_t outer = loops.size() - roots.size();
        std::string names = outer ? "*_, " : "";
        for (std::size_t k = 0; k < roots.size(); ++k) {
            Loop l{loops[outer + k], freshName(roots[k]->name())};
            names += (k ? ", " : "") + l.py;
            m_loops[roots[k].get()] = l;
        }
        if (roots.size() == 1 && !outer) names += ",";
        emit(step, names + " = " + m_sch + ".get_loops(" + b + ")");
        m_fetched.insert(st.originOp.get());
    }

    const Loop& loopOf(const IterVar& iv, int step) const
    {
        auto it = m_loops.find(iv.get());
        if (it == m_loops.end())
            refuse(step, "the loop '" + iv->name() + "' has no TensorIR counterpart here");
        return it->second;
    }

    // One TensorIR primitive, its refusal at the TE step.
    template <class F> void apply(int step, F f)
    {
        try {
            m_f = f();
        } catch (const ScheduleError& e) {
            refuse(step, "TensorIR refuses the translation: " + e.message());
        }
    }

    void translate()
    {
        if (m_v.snapshots.front().tensorIR())
            throw UserError(m_v.loc, "the variant is TensorIR already");
        m_f = createPrimFunc(m_v.args, m_spelling);
        for (const Stage& st : snapshot(0).stages())
            if (!st.isPlaceholder()) m_blocks[st.originOp.get()] = st.op->name;
        // Dataflow first, in the steps' order: the blocks the other calls work on.
        for (std::size_t i = 0; i < m_v.steps.size(); ++i)
            dataflow(static_cast<int>(i));
        // Then each stage, consumers before producers: a producer's compute_at names a loop of
        // its consumer's final nest, and TensorIR makes the loops of a block it moves anew.
        const std::vector<const Stage*> order = consumersFirst();
        for (const Stage* st : order)
            stage(*st);
        // Last, what TE does unasked: a sum's init before its first reduction loop (a sum
        // shared among threads keeps it in its block, which TVM's LowerCrossThreadReduction
        // turns into each thread's own start, as TE does).
        for (const Stage* st : order)
            if (st->attach != AttachType::Inline && st->op->isReduction() && !acrossThreads(*st))
                decompose(*st);
    }

    // The computed stages, each after every stage that reads it and the one it is computed at
    // (TensorIR's compute_at needs all its consumers under the loop); among those ready, the
    // first in TE's order, since TensorIR puts a block it moves before the first that reads it
    // and TE lowers stages in its order.
    std::vector<const Stage*> consumersFirst() const
    {
        const Schedule& s = m_v.schedule();
        const std::vector<Stage>& stages = s.stages();
        std::vector<const Stage*> order;
        std::set<const Stage*> done;
        auto ready = [&](const Stage& st) {
            for (int r : s.readers(st.op))
                if (!stages[static_cast<std::size_t>(r)].isPlaceholder() &&
                    !done.count(&stages[static_cast<std::size_t>(r)]) &&
                    &stages[static_cast<std::size_t>(r)] != &st)
                    return false;
            if (st.attach == AttachType::Scope)
                if (const Stage* at = s.find(st.attachOp); at && !done.count(at)) return false;
            return true;
        };
        std::size_t computed = 0;
        for (const Stage& st : stages)
            computed += st.isPlaceholder() ? 0 : 1;
        while (order.size() < computed) {
            const Stage* next = nullptr;
            for (const Stage& st : stages)
                if (!st.isPlaceholder() && !done.count(&st) && ready(st)) {
                    next = &st;
                    break;
                }
            if (!next) // not expected of a schedule TE lowers; consumers first as they come
                for (auto it = stages.rbegin(); it != stages.rend() && !next; ++it)
                    if (!it->isPlaceholder() && !done.count(&*it)) next = &*it;
            order.push_back(next);
            done.insert(next);
        }
        return order;
    }

    void dataflow(int i)
    {
        const Step& step = m_v.steps[static_cast<std::size_t>(i)];
        const Schedule& before = snapshot(i);
        const Schedule& after = snapshot(i + 1);
        if (step.primitive == "rfactor")
            refuse(i, "rfactor is not translated to sch.rfactor yet: its TE stages and "
                      "TensorIR's blocks split the reduction differently; write the variant with "
                      "tir.Schedule");
        if (step.primitive != "cache_read" && step.primitive != "cache_write") return;
        const Stage* created = nullptr;
        for (const Stage& st : after.stages())
            if (!stageOf(before, st.originOp.get())) created = &st;
        LS_ASSERT(created, "TensorIR translation: a cache step made no stage");
        const std::string scope = created->scope.empty() ? "global" : created->scope;
        if (step.primitive == "cache_read") {
            const std::vector<Tensor> inputs = inputTensors(created->op);
            LS_ASSERT(inputs.size() == 1, "TensorIR translation: a cache reads one tensor");
            const Tensor& source = inputs.front();
            std::vector<const Stage*> readers, all;
            for (const Stage& st : after.stages()) {
                const auto in = inputTensors(st.op);
                if (std::find(in.begin(), in.end(), created->op) != in.end())
                    readers.push_back(&st);
            }
            for (const Stage& st : before.stages()) {
                const auto in = inputTensors(st.op);
                if (std::find(in.begin(), in.end(), source) != in.end()) all.push_back(&st);
            }
            if (readers.size() != all.size())
                refuse(i, "cache_read for some of the readers of '" + source->name +
                              "': sch.cache_read serves every reader unless given "
                              "consumer_blocks, which Loopscope does not write yet");
            const std::string reader = m_blocks.at(readers.front()->originOp.get());
            const BlockNode* rb = findBlock(m_f, reader);
            LS_ASSERT(rb, "TensorIR translation: no block " << reader);
            int index = -1;
            for (std::size_t r = 0; r < rb->reads.size(); ++r)
                if (rb->reads[r].tensor->name == bufferOf(source->name))
                    index = static_cast<int>(r);
            if (index < 0)
                refuse(i,
                       "the TensorIR block '" + reader + "' does not read '" + source->name + "'");
            const std::string b = block(readers.front()->originOp.get(), i);
            std::string cache;
            apply(i, [&] { return tirCacheRead(m_f, reader, index, scope, &cache); });
            m_blocks[created->originOp.get()] = cache;
            m_buffers[created->op->name] = writtenBuffer(cache);
            const std::string name = freshName("b_" + cache);
            m_blockVars[cache] = name;
            emit(i, name + " = " + m_sch + ".cache_read(" + b + ", " + std::to_string(index) +
                        ", " + quoted(scope) + ")");
            return;
        }
        // cache_write: TE's stage of the tensor becomes the copy out of the cache, and the new
        // stage computes; in TensorIR the block keeps computing (into the cache) and the new
        // block copies out.
        const Stage* copy = nullptr;
        for (const Stage& st : after.stages())
            if (&st != created && stageOf(before, st.originOp.get()) &&
                stageOf(before, st.originOp.get())->op != st.op && !st.isPlaceholder() &&
                inputTensors(st.op) == std::vector<Tensor>{created->op})
                copy = &st;
        LS_ASSERT(copy, "TensorIR translation: cache_write without its copy stage");
        const std::string original = m_blocks.at(copy->originOp.get());
        const std::string b = block(copy->originOp.get(), i);
        std::string cache;
        apply(i, [&] { return tirCacheWrite(m_f, original, 0, scope, &cache); });
        m_blocks[created->originOp.get()] = original;
        m_blocks[copy->originOp.get()] = cache;
        m_buffers[created->op->name] = writtenBuffer(original);
        m_blockVars.erase(original);
        const std::string name = freshName("b_" + cache);
        m_blockVars[cache] = name;
        m_blockVars[original] = b;
        emit(i, name + " = " + m_sch + ".cache_write(" + b + ", 0, " + quoted(scope) + ")");
    }

    // The TensorIR buffer of a TE tensor (a cache's is named NAME_SCOPE, not NAME.SCOPE).
    std::string bufferOf(const std::string& teName) const
    {
        auto it = m_buffers.find(teName);
        return it == m_buffers.end() ? teName : it->second;
    }

    std::string writtenBuffer(const std::string& block) const
    {
        const BlockNode* b = findBlock(m_f, block);
        LS_ASSERT(b && !b->writes.empty(), "TensorIR translation: block " << block);
        return b->writes.front().tensor->name;
    }

    void stage(const Stage& st)
    {
        const OperationNode* origin = st.originOp.get();
        if (st.storePredicate.defined())
            refuse(firstStep(origin, [](const Stage& s) { return s.storePredicate.defined(); }),
                   "set_store_predicate has no tir.Schedule counterpart (TensorIR stores a sum "
                   "shared among threads from its first thread by itself)");
        if (st.attach == AttachType::Inline) {
            const int step =
                firstStep(origin, [](const Stage& s) { return s.attach == AttachType::Inline; });
            const std::string b = block(origin, step);
            apply(step, [&] { return tirComputeInline(m_f, m_blocks.at(origin)); });
            emit(step, m_sch + ".compute_inline(" + b + ")");
            return;
        }
        if (st.attach == AttachType::Scope) {
            const int step = firstStep(origin, [&](const Stage& s) {
                return s.attach == AttachType::Scope && s.attachIvar == st.attachIvar;
            });
            const Stage* consumer = m_v.schedule().find(st.attachOp);
            LS_ASSERT(consumer, "TensorIR translation: no stage for " << st.attachOp->name);
            ensureLoops(*consumer, step);
            const Loop& at = loopOf(st.attachIvar, step);
            const std::string b = block(origin, step);
            const Var loop = at.var;
            // TE keeps a stage without a scope that is computed inside a kernel where the
            // threads that share it can read it (shared under blocks, local under threads);
            // TensorIR keeps the declared global buffer, whose region then spans every block.
            const int rank = st.scope.empty() && !st.isOutput ? stageStorageRank(m_v.schedule(), st)
                                                              : storageRank("global");
            if (rank == storageRank("shared") || rank == storageRank("local")) {
                const std::string scope = rank == storageRank("shared") ? "shared" : "local";
                apply(step, [&] { return tirSetScope(m_f, m_blocks.at(origin), 0, scope); });
                emit(step, m_sch + ".set_scope(" + b + ", 0, " + quoted(scope) + ")");
            }
            apply(step, [&] {
                return tirComputeAt(m_f, m_blocks.at(origin), loop, false, /*preserve=*/true);
            });
            emit(step, m_sch + ".compute_at(" + b + ", " + at.py + ", preserve_unit_loops=True)");
        }
        // The stage's own steps in the order they were written.
        for (std::size_t i = 0; i + 1 < m_v.snapshots.size(); ++i) {
            const Stage* before = stageOf(snapshot(static_cast<int>(i)), origin);
            const Stage* after = stageOf(snapshot(static_cast<int>(i) + 1), origin);
            if (after) stepOn(before, *after, static_cast<int>(i));
        }
    }

    void stepOn(const Stage* before, const Stage& after, int step)
    {
        // A stage remade by cache_write starts again from its root axes.
        const bool remade = before && before->op != after.op;
        const std::size_t had = before && !remade ? before->relations.size() : 0;
        for (std::size_t r = had; r < after.relations.size(); ++r)
            relation(after, after.relations[r], step);
        const bool reordered = before && !remade ? before->leafIterVars != after.leafIterVars
                                                 : after.leafIterVars != after.rootIterVars();
        if (reordered) reorder(after, step);
        // storage_align: the stride of one dimension of the stage's buffer.
        const std::size_t aligned = before && !remade ? before->aligns.size() : 0;
        for (std::size_t k = aligned; k < after.aligns.size(); ++k) {
            const StorageAlign& a = after.aligns[k];
            int dim = -1;
            for (std::size_t d = 0; d < after.op->axes.size(); ++d)
                if (after.op->axes[d] == a.axis) dim = static_cast<int>(d);
            if (dim < 0) refuse(step, "storage_align of an axis that is not the stage's own");
            const std::string b = block(after.originOp.get(), step);
            const std::string name = m_blocks.at(after.originOp.get());
            apply(step, [&] { return tirStorageAlign(m_f, name, 0, dim, a.factor, a.offset); });
            emit(step, m_sch + ".storage_align(" + b + ", 0, axis=" + std::to_string(dim) +
                           ", factor=" + std::to_string(a.factor) +
                           ", offset=" + std::to_string(a.offset) + ")");
        }
        for (const IterVar& iv : after.leafIterVars) {
            const IterVarAttr* now = after.attr(iv);
            const IterVarAttr* was = before && !remade ? before->attr(iv) : nullptr;
            if (!now) continue;
            if (was && was->kind == now->kind && was->threadTag == now->threadTag &&
                was->pragmas.size() == now->pragmas.size())
                continue;
            attribute(after, iv, *now, was, step);
        }
    }

    void relation(const Stage& st, const IterRelation& r, int step)
    {
        ensureLoops(st, step);
        switch (r.kind) {
        case IterRelation::Kind::Split: {
            const Loop parent = loopOf(r.parent, step);
            std::int64_t n = 0;
            const bool byFactor = r.factor.defined();
            if (!isConstInt(byFactor ? r.factor : r.nparts, &n))
                refuse(step, "a split by a size that is not a constant has no TensorIR form "
                             "Loopscope writes yet");
            std::vector<std::optional<std::int64_t>> factors;
            if (byFactor)
                factors = {std::nullopt, n};
            else
                factors = {n, std::nullopt};
            std::vector<Var> made;
            apply(step, [&] { return tirSplit(m_f, parent.var, factors, &made); });
            Loop outer{made.at(0), freshName(r.outer->name())};
            Loop inner{made.at(1), freshName(r.inner->name())};
            emit(step, outer.py + ", " + inner.py + " = " + m_sch + ".split(" + parent.py +
                           ", factors=" +
                           (byFactor ? "[None, " + std::to_string(n) + "]"
                                     : "[" + std::to_string(n) + ", None]") +
                           ")");
            m_loops[r.outer.get()] = outer;
            m_loops[r.inner.get()] = inner;
            return;
        }
        case IterRelation::Kind::Fuse: {
            const Loop a = loopOf(r.outer, step), b = loopOf(r.inner, step);
            Var fused;
            apply(step, [&] { return tirFuse(m_f, {a.var, b.var}, &fused); });
            Loop l{fused, freshName(r.fused->name())};
            emit(step, l.py + " = " + m_sch + ".fuse(" + a.py + ", " + b.py + ")");
            m_loops[r.fused.get()] = l;
            return;
        }
        case IterRelation::Kind::Rebase:
            refuse(step, "a rebased loop has no TensorIR counterpart Loopscope writes yet");
        }
    }

    // The stage's own loops in TensorIR, innermost last.
    std::vector<Var> ownLoops(const Stage& st) const
    {
        const std::vector<Var> all = blockLoops(m_f, m_blocks.at(st.originOp.get()));
        return {all.end() -
                    static_cast<std::ptrdiff_t>(std::min(all.size(), st.leafIterVars.size())),
                all.end()};
    }

    void reorder(const Stage& st, int step)
    {
        ensureLoops(st, step);
        std::vector<Var> want;
        for (const IterVar& iv : st.leafIterVars)
            want.push_back(loopOf(iv, step).var);
        const std::vector<Var> have = ownLoops(st);
        if (have.size() != want.size())
            refuse(step, "the TensorIR block of '" + st.name() + "' has " +
                             std::to_string(have.size()) + " loops of its own where TE has " +
                             std::to_string(want.size()));
        std::size_t first = 0, last = want.size();
        while (first < last && have[first].get() == want[first].get())
            ++first;
        while (last > first && have[last - 1].get() == want[last - 1].get())
            --last;
        if (first == last) return;
        std::vector<Var> order(want.begin() + static_cast<std::ptrdiff_t>(first),
                               want.begin() + static_cast<std::ptrdiff_t>(last));
        std::string names;
        for (std::size_t k = first; k < last; ++k)
            names += (k > first ? ", " : "") + loopOf(st.leafIterVars[k], step).py;
        apply(step, [&] { return tirReorder(m_f, order); });
        emit(step, m_sch + ".reorder(" + names + ")");
    }

    void attribute(const Stage& st, const IterVar& iv, const IterVarAttr& now,
                   const IterVarAttr* was, int step)
    {
        ensureLoops(st, step);
        const Loop l = loopOf(iv, step);
        if (!was || was->kind != now.kind || was->threadTag != now.threadTag) {
            std::string call;
            std::string thread = now.threadTag;
            switch (now.kind) {
            case ForKind::Serial: break;
            case ForKind::Parallel: call = "parallel"; break;
            case ForKind::Vectorized: call = "vectorize"; break;
            case ForKind::Unrolled: call = "unroll"; break;
            case ForKind::ThreadBinding:
                call = "bind";
                if (thread == "vthread") thread = vthreadTag(now.threadAxis);
                break;
            }
            if (!call.empty()) {
                apply(step, [&] { return tirSetKind(m_f, l.var, now.kind, thread); });
                emit(step, m_sch + "." + call + "(" + l.py +
                               (call == "bind" ? ", " + quoted(thread) : std::string()) + ")");
            }
        }
        const std::size_t had = was ? was->pragmas.size() : 0;
        for (std::size_t p = had; p < now.pragmas.size(); ++p) {
            // TensorIR's pragmas are annotations of the loop, lowered as TE's are.
            const std::string& key = now.pragmas[p].first;
            const Expr& value = now.pragmas[p].second;
            if (!value.defined())
                refuse(step, "pragma '" + key +
                                 "' has no value, and a TensorIR annotation needs one: give it "
                                 "as s[C].pragma(loop, \"" +
                                 key + "\", 1)");
            const std::string annotation = "pragma_" + key;
            apply(step, [&] { return tirAnnotateLoop(m_f, l.var, annotation, value); });
            emit(step, m_sch + ".annotate(" + l.py + ", " + quoted(annotation) + ", " +
                           printExpr(value) + ")");
        }
    }

    // TE's vthread axes by object; TensorIR names them vthread.x, .y, .z.
    std::string vthreadTag(int axis)
    {
        auto it = m_vthreads.find(axis);
        if (it != m_vthreads.end()) return it->second;
        static const char* const kNames[] = {"vthread.x", "vthread.y", "vthread.z"};
        const std::size_t n = m_vthreads.size();
        return m_vthreads[axis] = n < 3 ? kNames[n] : "vthread";
    }

    static bool acrossThreads(const Stage& st)
    {
        for (const IterVar& iv : st.leafIterVars) {
            const IterVarAttr* a = st.attr(iv);
            if (iv->kind == IterKind::Reduce && a && a->kind == ForKind::ThreadBinding) return true;
        }
        return false;
    }

    void decompose(const Stage& st)
    {
        const IterVar* first = nullptr;
        for (const IterVar& iv : st.leafIterVars)
            if (iv->kind != IterKind::DataPar) {
                first = &iv;
                break;
            }
        if (!first) return;
        ensureLoops(st, -1);
        const Loop l = loopOf(*first, -1);
        const std::string b = block(st.originOp.get(), -1);
        std::string init;
        const std::string name = m_blocks.at(st.originOp.get());
        apply(-1, [&] { return tirDecomposeReduction(m_f, name, l.var, &init); });
        emit(-1, "# " + st.name() + "'s init before its first reduction loop, where TE puts it");
        emit(-1, m_sch + ".decompose_reduction(" + b + ", " + l.py + ")");
    }

    const Variant& m_v;
    TirSpelling m_spelling;
    std::set<std::string> m_taken;
    std::string m_sch; // the schedule's variable
    TirFunc m_f;
    std::vector<std::string> m_lines;
    std::vector<int> m_lineSteps;
    std::map<const OperationNode*, std::string> m_blocks; // TE stage (by origin) -> block name
    std::map<std::string, std::string> m_blockVars;       // block name -> Python name
    std::map<std::string, std::string> m_buffers;         // TE tensor -> TensorIR buffer
    std::map<const IterVarNode*, Loop> m_loops;
    std::set<const OperationNode*> m_fetched;
    std::map<int, std::string> m_vthreads;
};

// The loops and stores of a lowered body, one a line, indented by nesting; loops of one
// iteration left out.
class Skeleton : public IRVisitor {
public:
    std::vector<std::string> lines;

protected:
    void visitFor(const ForNode* op) override
    {
        std::int64_t extent = 0;
        const bool known = isConstInt(op->extent, &extent);
        if (known && extent == 1) {
            IRVisitor::visitFor(op);
            return;
        }
        std::ostringstream line;
        line << std::string(static_cast<std::size_t>(m_depth) * 2, ' ') << "for "
             << (known ? std::to_string(extent) : std::string("(symbolic)")) << " "
             << forKindName(op->forKind);
        if (!op->threadTag.empty()) line << " " << op->threadTag;
        lines.push_back(line.str());
        ++m_depth;
        IRVisitor::visitFor(op);
        --m_depth;
    }
    void visitBufferStore(const BufferStoreNode* op) override
    {
        // A cross-thread reduction's partial sums: TE's normal_reduce_temp0, TensorIR's
        // in_thread_NAME.
        std::string name = pythonIdentifier(op->buffer->name);
        if (name == "normal_reduce_temp0" || name.rfind("in_thread_", 0) == 0)
            name = "(each thread's partial reduction)";
        lines.push_back(std::string(static_cast<std::size_t>(m_depth) * 2, ' ') + "store " + name);
        IRVisitor::visitBufferStore(op);
    }

private:
    int m_depth = 0;
};

} // namespace

TirTranslation translateToTensorIR(const Variant& v, TirSpelling spelling,
                                   const std::vector<std::string>& takenNames,
                                   const std::string& scheduleVar)
{
    return Translator(v, spelling, takenNames, scheduleVar).run();
}

std::string loopNestDifference(const Stmt& te, const Stmt& tensorIR)
{
    Skeleton a, b;
    a.visit(te);
    b.visit(tensorIR);
    const std::size_t n = std::min(a.lines.size(), b.lines.size());
    // A buffer sch.set_scope moved is named after its scope in TensorIR (TVM's WithScope).
    auto same = [](const std::string& te, const std::string& tir) {
        if (te == tir) return true;
        for (const char* scope : {"_shared", "_local", "_global", "_warp"})
            if (tir == te + scope && te.compare(te.find_first_not_of(' '), 6, "store ") == 0)
                return true;
        return false;
    };
    for (std::size_t i = 0; i < n; ++i) {
        if (same(a.lines[i], b.lines[i])) continue;
        auto trim = [](const std::string& s) { return s.substr(s.find_first_not_of(' ')); };
        return "line " + std::to_string(i + 1) + " of the loop nest is '" + trim(a.lines[i]) +
               "' in TE, '" + trim(b.lines[i]) + "' in TensorIR";
    }
    if (a.lines.size() != b.lines.size())
        return "TE has " + std::to_string(a.lines.size()) + " loops and stores, TensorIR " +
               std::to_string(b.lines.size());
    return {};
}

} // namespace loopscope
