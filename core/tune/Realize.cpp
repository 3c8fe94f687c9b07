// A sketch with knob values made into schedule steps, applied one at a time to the starting
// variant's schedule (a step the schedule refuses makes the candidate invalid, with the reason).
#include "tune/Space.h"

#include <algorithm>
#include <functional>
#include <map>

namespace loopscope {

namespace {

const char* kUnrollPragma = "auto_unroll_max_step";
constexpr std::int64_t kMaxVectorLoop = 64;

std::string baseName(const std::string& axis)
{
    std::string out;
    for (char c : axis)
        out += (c == '.') ? '_' : c;
    return out;
}

// The extent of a leaf axis, from its root's extent through the splits and fuses (0: unknown).
std::int64_t leafExtent(const Stage& st, const IterVar& iv)
{
    for (auto& root : st.rootIterVars())
        if (root == iv) return constIntOr(iv->dom.extent, 0);
    for (auto& r : st.relations) {
        if (r.kind == IterRelation::Kind::Split && (r.outer == iv || r.inner == iv)) {
            std::int64_t parent = leafExtent(st, r.parent);
            std::int64_t f = r.factor.defined() ? constIntOr(r.factor, 0) : 0;
            std::int64_t n = r.nparts.defined() ? constIntOr(r.nparts, 0) : 0;
            if (parent <= 0) return 0;
            if (f > 0) return r.inner == iv ? f : (parent + f - 1) / f;
            if (n > 0) return r.outer == iv ? n : (parent + n - 1) / n;
            return 0;
        }
        if (r.kind == IterRelation::Kind::Fuse && r.fused == iv)
            return leafExtent(st, r.outer) * leafExtent(st, r.inner);
        if (r.kind == IterRelation::Kind::Rebase && r.rebased == iv)
            return leafExtent(st, r.parent);
    }
    return 0;
}

// The leaves a root axis was split into, outermost first.
std::vector<IterVar> pieces(const Stage& st, const IterVar& root)
{
    std::vector<IterVar> out;
    std::function<void(const IterVar&)> expand = [&](const IterVar& iv) {
        for (auto& r : st.relations) {
            if (r.kind == IterRelation::Kind::Split && r.parent == iv) {
                expand(r.outer);
                expand(r.inner);
                return;
            }
        }
        out.push_back(iv);
    };
    expand(root);
    return out;
}

class Realizer {
public:
    Realizer(const Variant& start, const Sketch& sketch, const Knobs& knobs,
             const SpaceOptions& options, bool write)
        : m_sketch(sketch), m_knobs(knobs), m_options(options), m_replay(start, write)
    {
    }

    Realized run()
    {
        Realized out;
        bool ok = static_cast<int>(m_knobs.size()) == m_sketch.knobCount;
        if (!ok) m_why = "the knobs do not fit the sketch";
        for (auto& s : m_sketch.prologue)
            ok = ok && step(s);
        for (auto& pl : m_sketch.plans) {
            if (!ok) break;
            ok = realizePlan(pl);
        }
        out.ok = ok;
        out.why = m_why;
        out.steps = std::move(m_steps);
        out.statements = m_replay.statements();
        out.schedule = m_replay.schedule();
        return out;
    }

private:
    bool step(TuneStep s)
    {
        tunerMayWrite({}, s.primitive); // one of tunerPrimitives(), or an InternalError
        if (!m_replay.apply(s)) {
            m_why = describe(s) + ": " + m_replay.why();
            return false;
        }
        m_steps.push_back(std::move(s));
        return true;
    }

    const Stage* stage(const std::string& name) const
    {
        return findStage(m_replay.schedule(), name);
    }

    const StageFacts* facts(const std::string& name) const { return m_sketch.factsOf(name); }

    const StagePlan* planOf(const std::string& name) const
    {
        for (auto& p : m_sketch.plans)
            if (p.stage == name) return &p;
        return nullptr;
    }

    std::int64_t choice(int index, std::int64_t otherwise) const
    {
        if (index < 0) return otherwise;
        return m_knobs[static_cast<std::size_t>(
            m_sketch.knobs[static_cast<std::size_t>(index)].offset)];
    }

    // Sizes of every level, outermost first (the outermost derived); an axis without a knob
    // is one loop at level 0.
    std::vector<std::int64_t> tile(int index, std::int64_t extent, int levels) const
    {
        std::vector<std::int64_t> sizes(static_cast<std::size_t>(levels), 1);
        sizes[0] = extent;
        if (index < 0) return sizes;
        const KnobSpec& k = m_sketch.knobs[static_cast<std::size_t>(index)];
        std::int64_t inner = 1;
        for (int l = 1; l < levels; ++l) {
            sizes[static_cast<std::size_t>(l)] =
                m_knobs[static_cast<std::size_t>(k.offset + l - 1)];
            inner *= sizes[static_cast<std::size_t>(l)];
        }
        sizes[0] = (extent + inner - 1) / inner;
        return sizes;
    }

    bool split(const std::string& st, const std::string& axis, std::int64_t factor,
               std::vector<std::string> names, std::string* outer, std::string* inner)
    {
        TuneStep s;
        s.primitive = "split";
        s.stage = st;
        s.axes = {axis};
        s.number = factor;
        s.names = std::move(names);
        if (!step(s)) return false;
        *outer = m_replay.lastOutput().axes.at(0)->name();
        *inner = m_replay.lastOutput().axes.at(1)->name();
        return true;
    }

    // Splits `axis` into the levels first .. sizes.size()-1 (sizes of every level, outermost
    // first); a level of size 1 gets no loop, except the first. `loops` gets each level's loop.
    bool splitLevels(const std::string& st, const std::string& axis,
                     const std::vector<std::int64_t>& sizes, int first,
                     std::vector<std::string>* loops)
    {
        const std::string base = baseName(axis);
        loops->assign(sizes.size(), {});
        std::string current = axis;
        int level = first;
        for (int l = first + 1; l < static_cast<int>(sizes.size()); ++l) {
            if (sizes[static_cast<std::size_t>(l)] == 1) continue;
            std::int64_t product = 1;
            for (int m = l; m < static_cast<int>(sizes.size()); ++m)
                product *= sizes[static_cast<std::size_t>(m)];
            std::string outer, inner;
            if (!split(st, current, product,
                       {base + "_" + std::to_string(level), base + "_" + std::to_string(l)}, &outer,
                       &inner))
                return false;
            (*loops)[static_cast<std::size_t>(level)] = outer;
            current = inner;
            level = l;
        }
        (*loops)[static_cast<std::size_t>(level)] = current;
        return true;
    }

    bool simpleStep(const char* primitive, const std::string& st, std::vector<std::string> axes,
                    std::vector<std::string> names = {})
    {
        TuneStep s;
        s.primitive = primitive;
        s.stage = st;
        s.axes = std::move(axes);
        s.names = std::move(names);
        return step(s);
    }

    bool reorder(const std::string& st, const std::vector<std::string>& order)
    {
        const Stage* s = stage(st);
        if (!s || order.size() < 2) return true;
        // Written only when it changes the order of the loops it names.
        std::vector<std::string> now;
        for (auto& iv : s->leafIterVars)
            if (std::find(order.begin(), order.end(), iv->name()) != order.end())
                now.push_back(iv->name());
        if (now == order) return true;
        return simpleStep("reorder", st, order);
    }

    // Fuses `group` (adjacent loops) and makes the result parallel; the loop that stands for
    // them afterwards.
    bool parallel(const std::string& st, const std::vector<std::string>& group, std::string* loop)
    {
        if (group.empty()) return true;
        std::string target = group.front();
        if (group.size() > 1) {
            if (!tunerMayWrite(m_options, "fuse")) {
                target = group.front();
            } else {
                if (!simpleStep("fuse", st, group)) return false;
                target = m_replay.lastOutput().axes.at(0)->name();
            }
        }
        if (!simpleStep("parallel", st, {target})) return false;
        if (loop) *loop = target;
        return true;
    }

    bool unroll(const std::string& st, int knob)
    {
        std::int64_t v = choice(knob, 0);
        const Stage* s = stage(st);
        if (v <= 0 || !s || s->leafIterVars.empty()) return true;
        TuneStep p;
        p.primitive = "pragma";
        p.stage = st;
        p.axes = {s->leafIterVars.front()->name()};
        p.text = kUnrollPragma;
        p.number = v;
        return step(p);
    }

    bool realizePlan(const StagePlan& pl)
    {
        switch (pl.kind) {
        case PlanKind::Skip: return true;
        case PlanKind::Inline: return simpleStep("compute_inline", pl.stage, {});
        case PlanKind::Tile: return tileStage(pl);
        case PlanKind::Host: return hostStage(pl);
        case PlanKind::Simple: return simpleStage(pl);
        case PlanKind::Flexible: return flexibleStage(pl);
        case PlanKind::Pinned: return pinnedStage(pl);
        case PlanKind::Rfactor: return rfactorStage(pl);
        }
        return true;
    }

    // S S R S R S: each data-parallel axis in four levels, each reduction axis in two, ordered
    // S0 S1 R0 S2 R1 S3. In a host, the host holds the levels above `level`.
    bool tileStage(const StagePlan& pl)
    {
        const StageFacts* f = facts(pl.stage);
        const Stage* st = stage(pl.stage);
        if (!f || !st) return true;
        const bool guest = !pl.partner.empty();
        const int first = guest ? pl.level : 0;
        if (guest) {
            auto at = m_attach.find(pl.stage);
            if (at != m_attach.end()) {
                TuneStep s;
                s.primitive = "compute_at";
                s.stage = pl.stage;
                s.target = pl.partner;
                s.axes = {at->second};
                if (!step(s)) return false;
            }
        }
        const std::size_t ns = f->spatial.size(), nr = f->reduce.size();
        std::vector<std::vector<std::string>> sLoops(ns), rLoops(nr);
        const auto roots = st->rootIterVars();
        for (std::size_t d = 0; d < ns + nr; ++d) {
            const bool spatial = d < ns;
            const AxisFacts& a = spatial ? f->spatial[d] : f->reduce[d - ns];
            auto& loops = spatial ? sLoops[d] : rLoops[d - ns];
            const int levels = spatial ? 4 : 2;
            if (f->pinned) {
                loops.assign(static_cast<std::size_t>(levels), {});
                IterVar root = d < roots.size() ? roots[d] : nullptr;
                if (!root) return fail("stage " + pl.stage + " lost an axis");
                auto ps = pieces(*st, root);
                for (std::size_t k = 0; k < ps.size(); ++k) {
                    int level = k == 0 ? 0
                                : k + 1 == ps.size()
                                    ? levels - 1
                                    : std::min<int>(static_cast<int>(k), levels - 2);
                    if (ps.size() == 1) level = 0;
                    auto& slot = loops[static_cast<std::size_t>(level)];
                    if (!slot.empty()) return fail("too many pieces of " + a.name);
                    slot = ps[k]->name();
                }
                continue;
            }
            int knob = spatial ? pl.spatialTiles[d] : pl.reduceTiles[d - ns];
            auto sizes = tile(knob, a.extent, levels);
            int from = spatial ? first : 0;
            if (knob < 0) {
                loops.assign(static_cast<std::size_t>(levels), {});
                loops[static_cast<std::size_t>(from)] = a.name;
                continue;
            }
            if (!splitLevels(pl.stage, a.name, sizes, from, &loops)) return false;
        }
        std::vector<std::string> order;
        auto addLevel = [&](std::vector<std::vector<std::string>>& all, int level) {
            for (auto& loops : all)
                if (!loops[static_cast<std::size_t>(level)].empty())
                    order.push_back(loops[static_cast<std::size_t>(level)]);
        };
        for (int l = first; l < 2; ++l)
            addLevel(sLoops, l);
        addLevel(rLoops, 0);
        if (first <= 2) addLevel(sLoops, 2);
        addLevel(rLoops, 1);
        addLevel(sLoops, 3);
        if (!reorder(pl.stage, order)) return false;

        if (choice(pl.vectorize, 0) == 1 && ns > 0) {
            const std::string& v = sLoops[ns - 1][3];
            const Stage* now = stage(pl.stage);
            IterVar iv = now && !v.empty() ? findAxis(*now, v) : nullptr;
            std::int64_t ext = iv ? leafExtent(*now, iv) : 0;
            if (!v.empty() && ext <= kMaxVectorLoop && order.back() == v &&
                !simpleStep("vectorize", pl.stage, {v}))
                return false;
        }
        if (!guest && pl.parallel >= 0) {
            std::int64_t p = choice(pl.parallel, 1);
            std::vector<std::string> group;
            for (int l = 0; l < p && l < 2; ++l)
                for (auto& loops : sLoops)
                    if (!loops[static_cast<std::size_t>(l)].empty())
                        group.push_back(loops[static_cast<std::size_t>(l)]);
            if (!parallel(pl.stage, group, nullptr)) return false;
        }
        return unroll(pl.stage, pl.unroll);
    }

    // A host follows its guest's tiling on the levels above the guest: the guest's sizes there,
    // then one loop over the rest of the tile; the guest is computed in the last of them.
    bool hostStage(const StagePlan& pl)
    {
        const StageFacts* f = facts(pl.stage);
        const StagePlan* gp = planOf(pl.partner);
        const StageFacts* gf = facts(pl.partner);
        if (!f || !gp || !gf) return fail("host " + pl.stage + " has no guest");
        const std::size_t ns = f->spatial.size();
        if (gf->spatial.size() != ns) return fail("host and guest differ in axes");
        const int L = pl.level;
        std::vector<std::vector<std::string>> loops(ns);
        std::vector<std::int64_t> lastSizes;
        for (std::size_t d = 0; d < ns; ++d) {
            auto g = tile(d < gp->spatialTiles.size() ? gp->spatialTiles[d] : -1,
                          gf->spatial[d].extent, 4);
            std::vector<std::int64_t> sizes(g.begin(), g.begin() + L);
            std::int64_t rest = 1;
            for (std::size_t l = static_cast<std::size_t>(L); l < g.size(); ++l)
                rest *= g[l];
            sizes.push_back(rest);
            if (!splitLevels(pl.stage, f->spatial[d].name, sizes, 0, &loops[d])) return false;
            if (d + 1 == ns) lastSizes = sizes;
        }
        std::vector<std::string> order;
        for (int l = 0; l <= L; ++l)
            for (auto& ls : loops)
                if (!ls[static_cast<std::size_t>(l)].empty())
                    order.push_back(ls[static_cast<std::size_t>(l)]);
        if (!reorder(pl.stage, order)) return false;

        // The attach point: the last loop above the guest's levels.
        std::string attach;
        for (int l = 0; l < L; ++l)
            for (auto& ls : loops)
                if (!ls[static_cast<std::size_t>(l)].empty())
                    attach = ls[static_cast<std::size_t>(l)];
        if (choice(pl.vectorize, 0) == 1 && ns > 0) {
            const std::string& v = loops[ns - 1][static_cast<std::size_t>(L)];
            if (!v.empty() && lastSizes.back() <= kMaxVectorLoop && order.back() == v &&
                !simpleStep("vectorize", pl.stage, {v}))
                return false;
        }
        if (pl.parallel >= 0) {
            std::int64_t p = choice(pl.parallel, 1);
            std::vector<std::string> group;
            for (int l = 0; l < p && l < L; ++l)
                for (auto& ls : loops)
                    if (!ls[static_cast<std::size_t>(l)].empty())
                        group.push_back(ls[static_cast<std::size_t>(l)]);
            std::string fused;
            if (!parallel(pl.stage, group, &fused)) return false;
            if (std::find(group.begin(), group.end(), attach) != group.end()) attach = fused;
        }
        if (!attach.empty()) m_attach[pl.partner] = attach;
        return true;
    }

    // At the root: the innermost data-parallel axis split by a vector width and vectorized
    // (reduction loops moved outside it), the outer data-parallel loops fused and parallel.
    bool simpleStage(const StagePlan& pl)
    {
        const StageFacts* f = facts(pl.stage);
        if (!f || f->spatial.empty()) return unroll(pl.stage, pl.unroll);
        std::size_t ns = f->spatial.size();
        std::vector<std::string> loops;
        for (auto& a : f->spatial)
            loops.push_back(a.name);
        const std::int64_t w = choice(pl.vectorize, 0);
        std::int64_t ext = f->spatial.back().extent;
        // Data movement such as a transpose: the last two axes in tiles, so that both the reads
        // and the writes of a tile stay in the cache.
        const std::int64_t rows = choice(pl.tileRows, 0), cols = choice(pl.tileCols, 0);
        std::vector<std::string> inner;
        if (rows > 0 && cols > 0 && ns >= 2 && f->reduce.empty()) {
            std::string ro, ri, co, ci;
            const std::string rb = baseName(loops[ns - 2]), cb = baseName(loops[ns - 1]);
            if (!split(pl.stage, loops[ns - 2], rows, {rb + "_o", rb + "_i"}, &ro, &ri) ||
                !split(pl.stage, loops[ns - 1], cols, {cb + "_o", cb + "_i"}, &co, &ci))
                return false;
            loops.resize(ns - 2);
            loops.push_back(ro);
            loops.push_back(co);
            std::vector<std::string> order = loops;
            order.push_back(ri);
            order.push_back(ci);
            if (!reorder(pl.stage, order)) return false;
            loops.push_back(ri);
            loops.push_back(ci);
            ext = cols;
            ns = loops.size() - 2; // the loops that may run in parallel: those outside the tile
        }
        std::string vec;
        if (w > 0 && ext > 1) {
            if (w >= ext) {
                if (ext <= kMaxVectorLoop) vec = loops.back();
            } else if (tunerMayWrite(m_options, "split")) {
                std::string outer, inner;
                const std::string base = baseName(loops.back());
                if (!split(pl.stage, loops.back(), w, {base + "_o", base + "_v"}, &outer, &inner))
                    return false;
                loops.back() = outer;
                vec = inner;
            }
            if (!vec.empty() && !f->reduce.empty()) {
                std::vector<std::string> order = loops;
                if (vec == loops.back()) order.pop_back();
                for (auto& r : f->reduce)
                    order.push_back(r.name);
                order.push_back(vec);
                if (!tunerMayWrite(m_options, "reorder") || !reorder(pl.stage, order)) vec.clear();
            }
            if (!vec.empty() && !simpleStep("vectorize", pl.stage, {vec})) return false;
        }
        if (pl.parallel >= 0) {
            std::int64_t p = choice(pl.parallel, 0);
            std::vector<std::string> group;
            for (std::size_t d = 0; d < static_cast<std::size_t>(p) && d < ns; ++d)
                if (loops[d] != vec) group.push_back(loops[d]);
            if (!parallel(pl.stage, group, nullptr)) return false;
        }
        return unroll(pl.stage, pl.unroll);
    }

    bool flexibleStage(const StagePlan& pl)
    {
        const StageFacts* f = facts(pl.stage);
        const Stage* st = stage(pl.stage);
        if (!f || !st) return true;
        std::vector<std::string> options{"root"};
        if (!f->reduction && tunerMayWrite(m_options, "compute_inline"))
            options.push_back("inline");
        // Every loop of every consumer that is itself materialized; whether the stage can be
        // computed there (all its readers inside) is the schedule's to say.
        std::vector<std::pair<std::string, std::string>> loops; // consumer, loop
        if (tunerMayWrite(m_options, "compute_at")) {
            for (auto& name : f->consumers) {
                const Stage* consumer = stage(name);
                if (!consumer || consumer->attach == AttachType::Inline) continue;
                for (auto& iv : consumer->leafIterVars) {
                    const IterVarAttr* a = consumer->attr(iv);
                    if (a && a->kind == ForKind::Vectorized) continue;
                    options.push_back("at");
                    loops.emplace_back(name, iv->name());
                }
            }
        }
        std::int64_t pick = choice(pl.location, 0);
        std::size_t index = static_cast<std::size_t>(pick) % options.size();
        if (options[index] == "inline") return simpleStep("compute_inline", pl.stage, {});
        if (options[index] == "at") {
            TuneStep s;
            s.primitive = "compute_at";
            s.stage = pl.stage;
            const auto& at = loops[index - (options.size() - loops.size())];
            s.target = at.first;
            s.axes = {at.second};
            return step(s);
        }
        return simpleStage(pl);
    }

    bool pinnedStage(const StagePlan& pl)
    {
        const Stage* st = stage(pl.stage);
        if (!st || st->leafIterVars.empty()) return true;
        const IterVar outer = st->leafIterVars.front();
        const IterVar inner = st->leafIterVars.back();
        auto free = [&](const IterVar& iv) {
            const IterVarAttr* a = st->attr(iv);
            return iv->kind == IterKind::DataPar && (!a || a->kind == ForKind::Serial);
        };
        const std::string outerName = outer->name(), innerName = inner->name();
        const bool vectorizeInner = choice(pl.vectorize, 0) == 1 && free(inner) &&
                                    leafExtent(*st, inner) > 1 &&
                                    leafExtent(*st, inner) <= kMaxVectorLoop;
        const bool parallelOuter = choice(pl.parallel, 0) == 1 && st->attach == AttachType::Root &&
                                   free(outer) && outer != inner;
        if (vectorizeInner && !simpleStep("vectorize", pl.stage, {innerName})) return false;
        if (parallelOuter && !simpleStep("parallel", pl.stage, {outerName})) return false;
        return unroll(pl.stage, pl.unroll);
    }

    // The reduction axes fused into one, split by the factor, one part factored out into a stage
    // of partial results (X.rf) with that part as its first, data-parallel axis: the inner part
    // (moved innermost and vectorized) or the outer one (made parallel). X then sums the partial
    // results.
    bool rfactorStage(const StagePlan& pl)
    {
        const StageFacts* f = facts(pl.stage);
        if (!f || f->reduce.empty()) return true;
        std::string r = f->reduce.front().name;
        if (f->reduce.size() > 1) {
            std::vector<std::string> all;
            for (auto& a : f->reduce)
                all.push_back(a.name);
            if (!simpleStep("fuse", pl.stage, all)) return false;
            r = m_replay.lastOutput().axes.at(0)->name();
        }
        const std::int64_t factor = choice(pl.factor, 2);
        const bool inner = choice(pl.mode, 0) == 0;
        std::string outer, innerPart;
        const std::string base = baseName(r);
        if (!split(pl.stage, r, factor, {base + "_o", base + "_i"}, &outer, &innerPart))
            return false;
        TuneStep rf;
        rf.primitive = "rfactor";
        rf.stage = pl.stage;
        rf.axes = {inner ? innerPart : outer};
        rf.number = 0;
        rf.names = {baseName(pl.stage) + "_rf"};
        if (!step(rf)) return false;
        const std::string partial = m_replay.lastOutput().tensor->name;
        const Stage* ps = stage(partial);
        if (!ps) return fail("rfactor made no stage");
        // The partial stage's loops: the factored axis, the data-parallel axes, the rest.
        std::vector<std::string> spatial;
        for (std::size_t d = 1; d < ps->op->axes.size(); ++d)
            spatial.push_back(ps->op->axes[d]->name());
        const std::string rfAxis = ps->op->axes.front()->name();
        std::vector<std::string> reduce;
        for (auto& a : ps->op->reduceAxes)
            reduce.push_back(a->name());
        const std::int64_t rfExtent = constIntOr(ps->op->axes.front()->dom.extent, 0);
        if (inner) {
            std::vector<std::string> order = spatial;
            order.insert(order.end(), reduce.begin(), reduce.end());
            order.push_back(rfAxis);
            if (!reorder(partial, order)) return false;
            if (choice(pl.vectorize, 0) == 1 && rfExtent > 1 && rfExtent <= kMaxVectorLoop &&
                !simpleStep("vectorize", partial, {rfAxis}))
                return false;
            if (choice(pl.parallel, 0) == 1 && !parallel(partial, spatial, nullptr)) return false;
        } else if (choice(pl.parallel, 0) == 1) {
            std::vector<std::string> group{rfAxis};
            group.insert(group.end(), spatial.begin(), spatial.end());
            if (!parallel(partial, group, nullptr)) return false;
        }
        return unroll(partial, pl.unroll);
    }

    bool fail(const std::string& why)
    {
        m_why = why;
        return false;
    }

    const Sketch& m_sketch;
    const Knobs& m_knobs;
    const SpaceOptions& m_options;
    StepReplay m_replay;
    std::vector<TuneStep> m_steps;
    std::string m_why;
    std::map<std::string, std::string> m_attach; // guest -> the host loop it is computed in
};

} // namespace

Realized realize(const Variant& start, const Sketch& sketch, const Knobs& knobs,
                 const SpaceOptions& options, bool write)
{
    return Realizer(start, sketch, knobs, options, write).run();
}

Realized replaySteps(const Variant& start, const std::vector<TuneStep>& steps, bool write)
{
    Realized out;
    StepReplay replay(start, write);
    out.ok = true;
    for (auto& s : steps) {
        if (!replay.apply(s)) {
            out.ok = false;
            out.why = describe(s) + ": " + replay.why();
            break;
        }
        out.steps.push_back(s);
    }
    out.statements = replay.statements();
    out.schedule = replay.schedule();
    return out;
}

} // namespace loopscope
