// The simple rule: an output (or a stage nothing reads) that no earlier rule took, at the root:
// the outer data-parallel loops fused and parallel, the innermost axis split by a vector width and
// vectorized (reduction loops moved outside it), and for data movement such as a transpose the
// last two axes in tiles, so that both the reads and the writes of a tile stay in the cache.
#pragma once

#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"

#include <algorithm>

namespace loopscope {

class SimpleRule : public SketchRule {
public:
    const char* name() const override { return "simple"; }

    RuleCondition condition(const RuleInput& in) const override
    {
        return in.stage.output || in.stage.consumers.empty() ? RuleCondition::ApplyAndSkipRest
                                                             : RuleCondition::Pass;
    }

    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        return {branch(in.stage.name)};
    }

    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts& f,
                  const SpaceOptions& o) const override
    {
        const std::string n = pl.stage + " ";
        std::vector<std::int64_t> fuse{0};
        for (std::size_t k = 1; k <= f.spatial.size(); ++k)
            fuse.push_back(static_cast<std::int64_t>(k));
        if (tunerMayWrite(o, "parallel") && !f.spatial.empty())
            pl.parallel = sk.addChoice(n + "parallel", KnobRole::Parallel, fuse);
        if (tunerMayWrite(o, "vectorize") && !f.spatial.empty())
            pl.vectorize = sk.addChoice(n + "vectorize", KnobRole::VectorWidth,
                                        vectorWidths(f.spatial.back().extent, o));
        if (tunerMayWrite(o, "pragma") && f.reduction)
            pl.unroll = sk.addChoice(n + "unroll", KnobRole::Unroll, unrollSteps());
        // Tiles of the last two axes, for data movement that reads across what it writes.
        const std::size_t ns = f.spatial.size();
        if (ns >= 2 && !f.reduction && tunerMayWrite(o, "split") && tunerMayWrite(o, "reorder") &&
            f.spatial[ns - 2].extent >= 16 && f.spatial[ns - 1].extent >= 16) {
            pl.tileRows = sk.addChoice(n + "tile rows", KnobRole::TileRows, {0, 4, 8, 16, 32, 64});
            pl.tileCols = sk.addChoice(n + "tile columns", KnobRole::TileColumns, {8, 16, 32, 64});
        }
    }

    // As few outer loops fused into the parallel one as give every core several chunks (a batch
    // of 1 alone gives none), and a vector width that divides the innermost axis where one does.
    void initKnobs(const Sketch& sk, const StagePlan& pl, const SpaceOptions& o,
                   Knobs& k) const override
    {
        const StageFacts* f = sk.factsOf(pl.stage);
        if (!f || f->spatial.empty()) return;
        if (pl.parallel >= 0) {
            const std::size_t most = std::max<std::size_t>(1, f->spatial.size() - 1);
            std::int64_t loops = 0, product = 1;
            while (static_cast<std::size_t>(loops) < most && product < 8 * o.cores)
                product *= f->spatial[static_cast<std::size_t>(loops++)].extent;
            k[knobAt(sk, pl.parallel)] = std::max<std::int64_t>(loops, 1);
        }
        if (pl.vectorize >= 0) {
            const std::int64_t extent = f->spatial.back().extent;
            std::int64_t width = 0;
            for (std::int64_t w : sk.knobs[static_cast<std::size_t>(pl.vectorize)].values)
                if (w >= 8 && w <= o.vectorLanes && extent % w == 0) width = std::max(width, w);
            if (width > 0) k[knobAt(sk, pl.vectorize)] = width;
        }
    }

    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        const StageFacts* f = r.facts(pl.stage);
        if (!f || f->spatial.empty()) return r.unroll(pl.stage, pl.unroll);
        std::size_t ns = f->spatial.size();
        std::vector<std::string> loops = axisNames(f->spatial);
        const std::int64_t w = r.choice(pl.vectorize, 0);
        std::int64_t ext = f->spatial.back().extent;
        const std::int64_t rows = r.choice(pl.tileRows, 0), cols = r.choice(pl.tileCols, 0);
        if (rows > 0 && cols > 0 && ns >= 2 && f->reduce.empty()) {
            std::string ro, ri, co, ci;
            const std::string rb = baseName(loops[ns - 2]), cb = baseName(loops[ns - 1]);
            if (!r.split(pl.stage, loops[ns - 2], rows, {rb + "_o", rb + "_i"}, &ro, &ri) ||
                !r.split(pl.stage, loops[ns - 1], cols, {cb + "_o", cb + "_i"}, &co, &ci))
                return false;
            loops.resize(ns - 2);
            loops.push_back(ro);
            loops.push_back(co);
            std::vector<std::string> order = loops;
            order.push_back(ri);
            order.push_back(ci);
            if (!r.reorder(pl.stage, order)) return false;
            loops.push_back(ri);
            loops.push_back(ci);
            ext = cols;
            ns = loops.size() - 2; // the loops that may run in parallel: those outside the tile
        }
        std::string vec;
        if (w > 0 && ext > 1) {
            if (w >= ext) {
                if (ext <= kMaxVectorLoop) vec = loops.back();
            } else if (r.allowed("split")) {
                std::string outer, inner;
                const std::string base = baseName(loops.back());
                if (!r.split(pl.stage, loops.back(), w, {base + "_o", base + "_v"}, &outer, &inner))
                    return false;
                loops.back() = outer;
                vec = inner;
            }
            if (!vec.empty() && !f->reduce.empty()) {
                std::vector<std::string> order = loops;
                if (vec == loops.back()) order.pop_back();
                for (auto& a : f->reduce)
                    order.push_back(a.name);
                order.push_back(vec);
                if (!r.allowed("reorder") || !r.reorder(pl.stage, order)) vec.clear();
            }
            if (!vec.empty() && !r.simpleStep("vectorize", pl.stage, {vec})) return false;
        }
        if (pl.parallel >= 0) {
            std::int64_t p = r.choice(pl.parallel, 0);
            std::vector<std::string> group;
            for (std::size_t d = 0; d < static_cast<std::size_t>(p) && d < ns; ++d)
                if (loops[d] != vec) group.push_back(loops[d]);
            if (!r.parallel(pl.stage, group, nullptr)) return false;
        }
        return r.unroll(pl.stage, pl.unroll);
    }

protected:
    static std::size_t knobAt(const Sketch& sk, int index)
    {
        return static_cast<std::size_t>(sk.knobs[static_cast<std::size_t>(index)].offset);
    }
};

inline const SimpleRule kSimpleRule{};

} // namespace loopscope
