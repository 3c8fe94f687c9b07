// The GPU tile rule (Ansor's multi-level tiling "SSSRRSRS" with RuleAddCacheRead,
// RuleAddCacheWrite and InitThreadBind for a GPU; MetaSchedule's MultiLevelTiling for CUDA): a
// stage that reuses data is tiled with each data-parallel axis in five levels (blocks, virtual
// threads, threads, then two levels of one thread's tile) and each reduction axis in three. Its
// host (its element-wise consumer, or the stage itself around a local write cache) holds the three
// outer levels, fused into blockIdx.x, vthread and threadIdx.x; the guest computes one thread's
// tile in registers inside the thread loop, its loops R0 R1 S3 R2 S4. Each input is read through a
// shared-memory copy made at the guest's R0 level by the whole block (cooperative fetching: the
// copy's loops fused, split over the block's threads and, as a knob says, vectorized).
#pragma once

#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"
#include "tune/rules/GpuInlineRule.h"
#include "tune/rules/GpuSimpleRule.h"

#include <algorithm>
#include <cmath>

namespace loopscope {

class GpuTileRule final : public SketchRule {
public:
    // The structures of StagePlan::structure.
    enum Structure { Guest = 0, Host = 1, Fetch = 2 };

    const char* name() const override { return "gpu-tile"; }

    RuleCondition condition(const RuleInput& in) const override
    {
        const StageFacts& f = in.stage;
        if (!f.needsTiling || f.pinned) return RuleCondition::Pass;
        for (const char* p : {"split", "reorder", "fuse", "bind", "compute_at"})
            if (!in.allowed(p)) return RuleCondition::Pass;
        return !hostOf(in).empty() || (f.reduction && in.allowed("cache_write"))
                   ? RuleCondition::ApplyAndSkipRest
                   : RuleCondition::Pass;
    }

    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        const StageFacts& f = in.stage;
        RuleBranch b;
        std::string host = hostOf(in), guest = f.name;
        if (host.empty()) {
            NamedStep cw = NamedStep("cache_write", f.name).text("scope", "local");
            cw.names = {f.name + "_local"};
            b.prologue.push_back(cw);
            host = f.name;
            guest = f.name + ".local";
        }
        b.plans.push_back(structured(plan(guest, host), Guest));
        b.plans.push_back(structured(plan(host, guest), Host));
        b.note = f.name + ": tiled for the GPU (blocks, virtual threads, threads)" +
                 (guest != f.name ? ", summed in registers" : ", inside " + host);
        if (f.reduction && in.allowed("cache_read")) {
            std::string shared;
            for (const StageFacts& p : in.stages) {
                if (std::find(p.consumers.begin(), p.consumers.end(), f.name) == p.consumers.end())
                    continue;
                NamedStep cr = NamedStep("cache_read", p.name)
                                   .text("scope", "shared")
                                   .stages("readers", {guest});
                cr.names = {p.name + "_shared"};
                b.prologue.push_back(cr);
                b.plans.push_back(structured(plan(p.name + ".shared", guest), Fetch));
                shared += (shared.empty() ? "" : ", ") + p.name;
            }
            if (!shared.empty()) b.note += ", " + shared + " through shared memory";
        }
        return {b};
    }

    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts& f,
                  const SpaceOptions& o) const override
    {
        if (pl.structure != Guest) return;
        const GpuLimits g = o.gpu.value_or(GpuLimits{});
        int tiled = 0;
        for (const AxisFacts& a : f.spatial)
            tiled += a.extent > 1;
        // Each axis's share of the block's limits, so that most draws keep to them together.
        auto share = [&](double limit) {
            return std::max<std::int64_t>(
                1, static_cast<std::int64_t>(std::pow(limit, 1.0 / std::max(1, tiled)) + 1e-9));
        };
        const std::int64_t registers = share(g.maxAccumulators);
        const std::vector<std::int64_t> spatialLimits = {
            0, share(g.maxVthreads), share(g.maxThreadsPerBlock),
            std::max<std::int64_t>(1, registers / 4), registers};
        const std::string n = pl.stage + " ";
        for (const AxisFacts& a : f.spatial) {
            int index = -1;
            if (a.extent > 1) {
                index = sk.addTile(n + a.name + " tile", a.extent, 5, false);
                sk.knobs[static_cast<std::size_t>(index)].levelLimits = spatialLimits;
            }
            pl.spatialTiles.push_back(index);
        }
        for (const AxisFacts& a : f.reduce) {
            int index = -1;
            if (a.extent > 1) {
                index = sk.addTile(n + a.name + " tile", a.extent, 3, false);
                sk.knobs[static_cast<std::size_t>(index)].levelLimits = {0, 16, 8};
            }
            pl.reduceTiles.push_back(index);
        }
        if (tunerMayWrite(o, "pragma"))
            pl.unroll = sk.addChoice(n + "unroll", KnobRole::Unroll, gpuUnrollSteps());
        if (f.reduction && tunerMayWrite(o, "cache_read") && tunerMayWrite(o, "vectorize"))
            pl.vectorize = sk.addChoice(n + "shared copy vector", KnobRole::Other, {1, 2, 4});
    }

    // The TVM tutorial's shape where the axes allow: per axis, from the innermost, four elements
    // of a thread's tile, eight threads and two virtual threads, within 64 threads, 64
    // accumulators and 4 virtual threads in all; the reduction in steps of 8 through shared
    // memory; copies of one element per thread.
    void initKnobs(const Sketch& sk, const StagePlan& pl, const SpaceOptions&,
                   Knobs& k) const override
    {
        if (pl.structure != Guest) return;
        auto at = [&](const KnobSpec& spec, int e) -> std::int64_t& {
            return k[static_cast<std::size_t>(spec.offset + e)];
        };
        std::int64_t threads = 64, accumulators = 64, vthreads = 4;
        for (auto it = pl.spatialTiles.rbegin(); it != pl.spatialTiles.rend(); ++it) {
            if (*it < 0) continue;
            const KnobSpec& spec = sk.knobs[static_cast<std::size_t>(*it)];
            std::int64_t rest = spec.extent;
            const std::int64_t s4 =
                largestDivisorAtMost(rest, std::min<std::int64_t>(4, accumulators));
            rest /= s4;
            accumulators /= s4;
            const std::int64_t s2 = largestDivisorAtMost(rest, std::min<std::int64_t>(8, threads));
            rest /= s2;
            threads /= s2;
            const std::int64_t s1 =
                largestDivisorAtMost(rest, std::min({std::int64_t{2}, vthreads, accumulators}));
            vthreads /= s1;
            accumulators /= s1;
            at(spec, 0) = s1;
            at(spec, 1) = s2;
            at(spec, 2) = 1;
            at(spec, 3) = s4;
        }
        for (std::size_t d = 0; d < pl.reduceTiles.size(); ++d) {
            if (pl.reduceTiles[d] < 0) continue;
            const KnobSpec& spec = sk.knobs[static_cast<std::size_t>(pl.reduceTiles[d])];
            at(spec, 0) = d + 1 == pl.reduceTiles.size() ? largestDivisorAtMost(spec.extent, 8) : 1;
            at(spec, 1) = 1;
        }
        if (pl.vectorize >= 0)
            k[static_cast<std::size_t>(sk.knobs[static_cast<std::size_t>(pl.vectorize)].offset)] =
                1;
    }

    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        switch (pl.structure) {
        case Host: return realizeHost(r, pl);
        case Guest: return realizeGuest(r, pl);
        default: return realizeFetch(r, pl);
        }
    }

private:
    static StagePlan structured(StagePlan p, Structure s)
    {
        p.structure = s;
        return p;
    }

    // The element-wise consumer a GPU kernel ends in (looked for through the consumers inlined
    // into their readers), when the simple rule made it a kernel; empty when there is none.
    static std::string hostOf(const RuleInput& in)
    {
        std::string host = in.stage.elementwiseConsumer;
        for (int guard = 0; guard < 16 && !host.empty(); ++guard) {
            const StagePlan* planned = in.planOf(host);
            if (!planned) return {};
            if (planned->rule == &kGpuSimpleRule) return host;
            if (planned->rule != &kGpuInlineRule) return {};
            const StageFacts* next = in.factsOf(host);
            host = next ? next->elementwiseConsumer : std::string();
        }
        return {};
    }

    // Each level's size of each data-parallel axis of the guest, outermost first.
    static std::vector<std::vector<std::int64_t>>
    spatialSizes(const PlanRealizer& r, const StagePlan& guest, const StageFacts& f)
    {
        std::vector<std::vector<std::int64_t>> out;
        for (std::size_t d = 0; d < f.spatial.size(); ++d)
            out.push_back(r.tile(d < guest.spatialTiles.size() ? guest.spatialTiles[d] : -1,
                                 f.spatial[d].extent, 5));
        return out;
    }

    static std::int64_t levelProduct(const std::vector<std::vector<std::int64_t>>& sizes,
                                     std::initializer_list<std::size_t> levels)
    {
        std::int64_t p = 1;
        for (auto& s : sizes)
            for (std::size_t l : levels)
                p *= s[l];
        return p;
    }

    static bool realizeHost(PlanRealizer& r, const StagePlan& pl)
    {
        const StagePlan* gp = r.planOf(pl.partner);
        const StageFacts* gf = r.facts(pl.partner);
        const StageFacts* hf = r.facts(pl.stage);
        if (!gp || !gf || !hf) return r.fail("the GPU tile of " + pl.stage + " lost its stages");
        if (hf->spatial.size() != gf->spatial.size())
            return r.fail(pl.stage + " and " + pl.partner + " differ in their axes");
        const auto sizes = spatialSizes(r, *gp, *gf);
        const GpuLimits g = r.options().gpu.value_or(GpuLimits{});
        const std::int64_t threads = levelProduct(sizes, {2}), vthreads = levelProduct(sizes, {1}),
                           accumulators = levelProduct(sizes, {1, 3, 4});
        if (threads > g.maxThreadsPerBlock)
            return r.fail("a block of " + std::to_string(threads) + " threads (at most " +
                          std::to_string(g.maxThreadsPerBlock) + ")");
        if (vthreads > g.maxVthreads)
            return r.fail(std::to_string(vthreads) + " virtual threads (at most " +
                          std::to_string(g.maxVthreads) + ")");
        if (accumulators > g.maxAccumulators)
            return r.fail(std::to_string(accumulators) + " accumulators a thread (at most " +
                          std::to_string(g.maxAccumulators) + ")");
        std::vector<std::vector<std::string>> levels(4);
        for (std::size_t d = 0; d < hf->spatial.size(); ++d) {
            const auto& s = sizes[d];
            std::vector<std::string> loops;
            if (!r.splitLevels(pl.stage, hf->spatial[d].name, {s[0], s[1], s[2], s[3] * s[4]}, 0,
                               &loops))
                return false;
            for (std::size_t l = 0; l < 4; ++l)
                if (!loops[l].empty()) levels[l].push_back(loops[l]);
        }
        std::vector<std::string> order;
        for (auto& level : levels)
            order.insert(order.end(), level.begin(), level.end());
        if (!r.reorder(pl.stage, order)) return false;
        std::string attach;
        const char* threadAxes[] = {"blockIdx.x", "vthread", "threadIdx.x"};
        for (std::size_t l = 0; l < 3; ++l) {
            std::string fused;
            if (levels[l].empty()) continue;
            if (!r.fuse(pl.stage, levels[l], &fused) || !r.bind(pl.stage, fused, threadAxes[l]))
                return false;
            attach = fused;
        }
        r.attachGuest(pl.partner, attach);
        return true;
    }

    static bool realizeGuest(PlanRealizer& r, const StagePlan& pl)
    {
        const StageFacts* f = r.facts(pl.stage);
        const std::string* at = r.guestAttachment(pl.stage);
        if (!f || !at) return r.fail("the GPU tile of " + pl.stage + " has no host loop");
        if (!r.computeAt(pl.stage, pl.partner, *at)) return false;
        const auto sizes = spatialSizes(r, pl, *f);
        std::vector<std::vector<std::string>> spatial(f->spatial.size()), reduce(f->reduce.size());
        for (std::size_t d = 0; d < f->spatial.size(); ++d)
            if (!r.splitLevels(pl.stage, f->spatial[d].name, sizes[d], 3, &spatial[d]))
                return false;
        for (std::size_t d = 0; d < f->reduce.size(); ++d) {
            const int knob = d < pl.reduceTiles.size() ? pl.reduceTiles[d] : -1;
            if (!r.splitLevels(pl.stage, f->reduce[d].name, r.tile(knob, f->reduce[d].extent, 3), 0,
                               &reduce[d]))
                return false;
        }
        // R0 R1 S3 R2 S4: the shared copies are made at the last R0 loop, which reorder puts
        // first of all (see realizeFetch).
        std::vector<std::string> order;
        auto add = [&](const std::vector<std::vector<std::string>>& all, std::size_t level) {
            for (auto& loops : all)
                if (!loops[level].empty()) order.push_back(loops[level]);
        };
        add(reduce, 0);
        add(reduce, 1);
        add(spatial, 3);
        add(reduce, 2);
        add(spatial, 4);
        if (!r.reorder(pl.stage, order)) return false;
        return r.unroll(pl.stage, pl.unroll);
    }

    static bool realizeFetch(PlanRealizer& r, const StagePlan& pl)
    {
        const StagePlan* gp = r.planOf(pl.partner);
        const StageFacts* gf = r.facts(pl.partner);
        const Stage* guest = r.stage(pl.partner);
        const StageFacts* f = r.facts(pl.stage);
        if (!gp || !gf || !guest || !f || gf->reduce.empty() ||
            guest->leafIterVars.size() < gf->reduce.size())
            return r.fail("the shared copy " + pl.stage + " has no loop to be made in");
        // The guest's loops begin with its R0 level, one loop per reduction axis.
        const std::string r0 = guest->leafIterVars[gf->reduce.size() - 1]->name();
        if (!r.computeAt(pl.stage, pl.partner, r0)) return false;
        std::string fused;
        if (!r.fuse(pl.stage, axisNames(f->spatial), &fused)) return false;
        const std::int64_t vector = r.choice(gp->vectorize, 1);
        if (vector > 1) {
            std::string outer, lanes;
            if (!r.split(pl.stage, fused, vector, {baseName(fused) + "_o", baseName(fused) + "_v"},
                         &outer, &lanes) ||
                !r.simpleStep("vectorize", pl.stage, {lanes}))
                return false;
            fused = outer;
        }
        const std::int64_t threads = levelProduct(spatialSizes(r, *gp, *gf), {2});
        if (threads <= 1) return true;
        std::string outer, thread;
        return r.split(pl.stage, fused, threads, {baseName(fused) + "_o", baseName(fused) + "_t"},
                       &outer, &thread) &&
               r.bind(pl.stage, thread, "threadIdx.x");
    }
};

inline const GpuTileRule kGpuTileRule{};

} // namespace loopscope
