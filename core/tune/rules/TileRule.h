// The tile rule (Ansor's RuleMultiLevelTiling, ...WithFusion and RuleAddCacheWrite): a stage that
// reuses data is tiled S S R S R S, each data-parallel axis in four levels and each reduction axis
// in two. Three structures: standalone; inside its element-wise consumer (looked for through the
// consumers inlined into their readers), which holds tile levels 0 .. 1, 0 .. 2 or 0 .. 3 (then
// the stage computes one register tile, its reduction whole, R0 R1 S3); or, without
// such a consumer, computed in a local write cache that the stage itself hosts likewise. A stage
// pinned only by splits is tiled standalone, its split pieces arranged as levels.
#pragma once

#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"
#include "tune/rules/HostRule.h"
#include "tune/rules/InlineRule.h"
#include "tune/rules/SimpleRule.h"

#include <algorithm>
#include <map>

namespace loopscope {

class TileRule final : public SketchRule {
public:
    // The structures of StagePlan::structure.
    enum Structure { Standalone = 0, InsideConsumer = 1, InLocalCache = 2 };

    const char* name() const override { return "tile"; }

    RuleCondition condition(const RuleInput& in) const override
    {
        return in.stage.needsTiling && in.allowed("split") && in.allowed("reorder")
                   ? RuleCondition::ApplyAndSkipRest
                   : RuleCondition::Pass;
    }

    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        const StageFacts& f = in.stage;
        std::vector<RuleBranch> out{branch(f.name, f.name + ": tiled")};
        if (f.pinned) return out;
        const bool attach = in.allowed("compute_at");
        if (!f.elementwiseConsumer.empty()) {
            const std::string host = hostOf(in);
            const StagePlan* hostPlan = in.planOf(host);
            if (attach && hostPlan && hostPlan->rule == &kSimpleRule) {
                // At level 3 the consumer holds every level above the register tile, and the
                // stage's sums are a register tile of its own: they stay in registers through
                // the whole reduction instead of being loaded and stored at every step.
                for (int level : {1, 2, 3})
                    out.push_back(
                        {{structured(plan(f.name, host, level), InsideConsumer),
                          kHostRule.plan(host, f.name, level)},
                         {},
                         f.name + ": tiled inside " + host + " at level " + std::to_string(level)});
            }
        } else if (attach && in.allowed("cache_write") && f.reduction) {
            const std::string cache = f.name + ".local";
            NamedStep cw = NamedStep("cache_write", f.name).text("scope", "local");
            cw.names = {f.name + "_local"};
            for (int level : {1, 2, 3})
                out.push_back({{structured(plan(cache, f.name, level), InLocalCache),
                                kHostRule.plan(f.name, cache, level)},
                               {cw},
                               f.name + ": computed in a local cache, tiled at level " +
                                   std::to_string(level)});
        }
        return out;
    }

    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts& f,
                  const SpaceOptions& o) const override
    {
        const std::string n = pl.stage + " ";
        for (std::size_t d = 0; d < f.spatial.size(); ++d) {
            const AxisFacts& a = f.spatial[d];
            // The pinned pieces are arranged, not split again; an axis the body compares with
            // constants stays whole (innermost, unrolled: see realize).
            pl.spatialTiles.push_back(
                a.extent > 1 && !f.pinned && !wholeInside(pl, a)
                    ? sk.addTile(n + a.name + " tile", a.extent, 4, d + 1 == f.spatial.size())
                    : -1);
        }
        for (auto& a : f.reduce)
            pl.reduceTiles.push_back(a.extent > 1 && !f.pinned
                                         ? sk.addTile(n + a.name + " tile", a.extent, 2, false)
                                         : -1);
        if (tunerMayWrite(o, "pragma"))
            pl.unroll = sk.addChoice(n + "unroll", KnobRole::Unroll, unrollSteps());
        if (tunerMayWrite(o, "parallel") && pl.partner.empty())
            pl.parallel = sk.addChoice(n + "parallel", KnobRole::Parallel, {1, 2});
        if (tunerMayWrite(o, "vectorize"))
            pl.vectorize = sk.addChoice(n + "vectorize", KnobRole::Vectorize, {1, 0});
    }

    // The register tile (whole or half vectors on the contiguous axis, a few rows on the axes
    // outside it, the axis next to the vector one the most), a middle level for the caches, the
    // outermost for the cores; each reduction in one inner chunk of up to 16.
    void initKnobs(const Sketch& sk, const StagePlan& pl, const SpaceOptions& o,
                   Knobs& k) const override
    {
        const std::map<int, std::int64_t> rowLimit = registerRows(sk, pl, o);
        auto at = [&](const KnobSpec& spec, int e) -> std::int64_t& {
            return k[static_cast<std::size_t>(spec.offset + e)];
        };
        for (int index : pl.reduceTiles) {
            if (index < 0) continue;
            const KnobSpec& spec = sk.knobs[static_cast<std::size_t>(index)];
            at(spec, 0) = largestDivisorAtMost(spec.extent, 16);
        }
        for (int index : pl.spatialTiles) {
            if (index < 0) continue;
            const KnobSpec& spec = sk.knobs[static_cast<std::size_t>(index)];
            std::int64_t rest = spec.extent;
            std::int64_t inner = 1;
            if (spec.vectorAxis) {
                for (std::int64_t d : divisors(rest))
                    if (d <= o.vectorLanes && (d % 8 == 0 || (inner % 8 != 0 && d > inner)))
                        inner = d;
            } else {
                const auto limit = rowLimit.find(index);
                const std::int64_t rows = limit != rowLimit.end() ? limit->second : 1;
                inner = largestDivisorAtMost(rest, rows);
                // Rows that no size near the limit divides (197 tokens, a prime) take the limit
                // with a guarded tail: one row a tile would leave a single accumulator, bound by
                // the multiply-add's latency.
                if (inner * 2 <= rows && rest > rows) inner = rows;
            }
            const bool exact = rest % inner == 0;
            rest = (rest + inner - 1) / inner;
            at(spec, 0) = 1;
            at(spec, 1) = exact ? largestDivisorAtMost(rest, spec.vectorAxis ? 4 : 2) : 1;
            at(spec, 2) = inner;
        }
    }

    // Inside an element-wise consumer at level 2, or at level 3 where the sums then stay in
    // registers through the whole reduction, above a local cache at level 2 (3 with the same
    // proviso), above a stage tiled on its own. A stage whose padding goes inside its tiles (a
    // depthwise convolution) stays at level 2, where the padding is made once per tile of the
    // consumer and not once per register tile.
    int defaultRank(const Sketch& sk, const StagePlan& pl) const override
    {
        if (pl.structure == Standalone) return 0;
        const bool inside = pl.structure == InsideConsumer;
        if (pl.level == 2) return inside ? 3 : 2;
        if (pl.level == 3) return noTiledProducer(sk, pl.stage) ? (inside ? 4 : 3) : 1;
        return 0;
    }

    // The levels ordered S0 S1 R0 S2 R1 S3; in a host, the host holds the levels above
    // `level`.
    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        const StageFacts* f = r.facts(pl.stage);
        const Stage* st = r.stage(pl.stage);
        if (!f || !st) return true;
        const bool guest = !pl.partner.empty();
        const int first = guest ? pl.level : 0;
        if (guest) {
            const std::string* at = r.guestAttachment(pl.stage);
            if (at && !r.computeAt(pl.stage, pl.partner, *at)) return false;
        }
        const std::size_t ns = f->spatial.size(), nr = f->reduce.size();
        std::vector<std::vector<std::string>> sLoops(ns), rLoops(nr);
        // The extent of the innermost data-parallel loop once bounds are inferred: its tile's
        // last size. In a host, the loop is the stage's own axis until then, of the whole
        // extent, though each of its computations covers only that size.
        std::int64_t innerExtent = 0;
        std::vector<std::string> unrolled; // axes kept whole inside the register tile
        const auto roots = st->rootIterVars();
        for (std::size_t d = 0; d < ns + nr; ++d) {
            const bool spatial = d < ns;
            const AxisFacts& a = spatial ? f->spatial[d] : f->reduce[d - ns];
            auto& loops = spatial ? sLoops[d] : rLoops[d - ns];
            const int levels = spatial ? 4 : 2;
            if (f->pinned) {
                if (!pinnedLevels(r, *st, d < roots.size() ? roots[d] : nullptr, pl.stage, a,
                                  levels, &loops))
                    return false;
                continue;
            }
            int knob = spatial ? pl.spatialTiles[d] : pl.reduceTiles[d - ns];
            auto sizes = r.tile(knob, a.extent, levels);
            if (spatial && d + 1 == ns && knob >= 0) innerExtent = sizes.back();
            int from = spatial ? first : 0;
            if (knob < 0) {
                loops.assign(static_cast<std::size_t>(levels), {});
                const bool whole = spatial && wholeInside(pl, a) && a.extent > 1;
                loops[static_cast<std::size_t>(whole ? levels - 1 : from)] = a.name;
                if (whole) unrolled.push_back(a.name);
                continue;
            }
            if (!r.splitLevels(pl.stage, a.name, sizes, from, &loops)) return false;
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
        if (!r.reorder(pl.stage, order)) return false;
        for (auto& axis : unrolled)
            if (r.allowed("unroll") && !r.simpleStep("unroll", pl.stage, {axis})) return false;

        if (r.choice(pl.vectorize, 0) == 1 && ns > 0) {
            const std::string& v = sLoops[ns - 1][3];
            const Stage* now = r.stage(pl.stage);
            IterVar iv = now && !v.empty() ? findAxis(*now, v) : nullptr;
            std::int64_t ext = innerExtent > 0 ? innerExtent : iv ? leafExtent(*now, iv) : 0;
            if (!v.empty() && ext <= kMaxVectorLoop && order.back() == v &&
                !r.simpleStep("vectorize", pl.stage, {v}))
                return false;
        }
        if (!guest && pl.parallel >= 0) {
            std::int64_t p = r.choice(pl.parallel, 1);
            std::vector<std::string> group;
            for (int l = 0; l < p && l < 2; ++l)
                for (auto& loops : sLoops)
                    if (!loops[static_cast<std::size_t>(l)].empty())
                        group.push_back(loops[static_cast<std::size_t>(l)]);
            if (!r.parallel(pl.stage, group, nullptr)) return false;
        }
        return r.unroll(pl.stage, pl.unroll);
    }

private:
    static StagePlan structured(StagePlan p, Structure s)
    {
        p.structure = s;
        return p;
    }

    // Whether no producer of the stage goes inside its own tiles by default (a depthwise
    // convolution's padding): that one would be made again for every register tile, halo and all.
    static bool noTiledProducer(const Sketch& sk, const std::string& stage)
    {
        for (const StageFacts& f : sk.facts)
            if (f.tiledByConsumer &&
                std::find(f.consumers.begin(), f.consumers.end(), stage) != f.consumers.end())
                return false;
        return true;
    }

    // The rows each of the plan's non-vector data-parallel axes may have in the register tile,
    // by knob index: about half the vector registers as accumulators (32 with AVX-512, 16 with
    // AVX2).
    static std::map<int, std::int64_t> registerRows(const Sketch& sk, const StagePlan& pl,
                                                    const SpaceOptions& o)
    {
        std::map<int, std::int64_t> rowLimit;
        std::vector<int> rows;
        bool vector = false;
        for (int t : pl.spatialTiles) {
            if (t < 0) continue;
            if (sk.knobs[static_cast<std::size_t>(t)].vectorAxis)
                vector = true;
            else
                rows.push_back(t);
        }
        // Axes kept whole inside the register tile (compared with constants) multiply it.
        std::int64_t inside = 1;
        if (const StageFacts* f = sk.factsOf(pl.stage))
            for (std::size_t d = 0; d < f->spatial.size() && d < pl.spatialTiles.size(); ++d)
                if (pl.spatialTiles[d] < 0 && f->spatial[d].selected)
                    inside *= std::max<std::int64_t>(f->spatial[d].extent, 1);
        const std::int64_t first = std::max<std::int64_t>(1, (!vector               ? 4
                                                              : o.vectorLanes >= 16 ? 8
                                                                                    : 4) /
                                                                 inside);
        std::int64_t limit = first;
        // An innermost row axis that the usual rows do not divide well (7 or 14 pixels of a
        // late convolution layer: 1 or 2 rows under a limit of 4) takes a larger divisor up to
        // three quarters of the vector registers instead, the axes above it none: a loaded
        // weight vector is then used by a whole row of 7 pixels, not by 1.
        if (vector && !rows.empty()) {
            const std::int64_t extent = sk.knobs[static_cast<std::size_t>(rows.back())].extent;
            const std::int64_t budget = std::max<std::int64_t>(first, o.vectorRegisters * 3 / 4);
            const std::int64_t wide = largestDivisorAtMost(extent, budget);
            if (largestDivisorAtMost(extent, first) * 2 <= first && wide > first) {
                rowLimit[rows.back()] = wide;
                rows.pop_back();
                limit = 1;
            }
        }
        for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
            rowLimit[*it] = limit;
            limit = limit == first ? 2 : 1;
        }
        return rowLimit;
    }

    // An axis the body compares with constants, of a stage tiled on its own: kept whole in the
    // innermost tile and unrolled, so that each comparison is decided where it is compiled and
    // one branch is left (in a host, the host's loops would hold it).
    static bool wholeInside(const StagePlan& pl, const AxisFacts& a)
    {
        return a.selected && pl.partner.empty() && a.extent <= 8;
    }

    // The element-wise consumer, looked through the stages inlined into their readers (a bias
    // add inlined into a relu: the relu is the host), as Ansor's consumers are.
    static std::string hostOf(const RuleInput& in)
    {
        std::string host = in.stage.elementwiseConsumer;
        for (int guard = 0; guard < 16 && !host.empty(); ++guard) {
            const StagePlan* planned = in.planOf(host);
            if (!planned || planned->rule != &kInlineRule) break;
            const StageFacts* next = in.factsOf(host);
            host = next ? next->elementwiseConsumer : std::string();
        }
        return host;
    }

    // A pinned axis's split pieces as tile levels: the first outermost, the last innermost, those
    // between at the levels between.
    static bool pinnedLevels(PlanRealizer& r, const Stage& st, const IterVar& root,
                             const std::string& stage, const AxisFacts& a, int levels,
                             std::vector<std::string>* loops)
    {
        loops->assign(static_cast<std::size_t>(levels), {});
        if (!root) return r.fail("stage " + stage + " lost an axis");
        auto ps = pieces(st, root);
        for (std::size_t k = 0; k < ps.size(); ++k) {
            int level = k == 0               ? 0
                        : k + 1 == ps.size() ? levels - 1
                                             : std::min<int>(static_cast<int>(k), levels - 2);
            if (ps.size() == 1) level = 0;
            auto& slot = (*loops)[static_cast<std::size_t>(level)];
            if (!slot.empty()) return r.fail("too many pieces of " + a.name);
            slot = ps[k]->name();
        }
        return true;
    }
};

inline const TileRule kTileRule{};

} // namespace loopscope
