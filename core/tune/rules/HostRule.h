// The host rule: the element-wise consumer (or the stage itself, around its local cache) that a
// tiled stage is computed inside. It follows its guest's tiling on the levels above the guest,
// with a loop over the rest of the tile below them. Never tried on its own: the tile rule plans a
// host beside its guest.
#pragma once

#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"

#include <algorithm>

namespace loopscope {

class HostRule final : public SketchRule {
public:
    const char* name() const override { return "host"; }

    RuleCondition condition(const RuleInput&) const override { return RuleCondition::Pass; }

    std::vector<RuleBranch> apply(const RuleInput&) const override { return {}; }

    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts&,
                  const SpaceOptions& o) const override
    {
        const std::string n = pl.stage + " ";
        std::vector<std::int64_t> levels;
        for (int l = 1; l <= pl.level; ++l)
            levels.push_back(l);
        if (tunerMayWrite(o, "parallel"))
            pl.parallel = sk.addChoice(n + "parallel", KnobRole::Parallel, levels);
        if (tunerMayWrite(o, "vectorize"))
            pl.vectorize = sk.addChoice(n + "vectorize", KnobRole::Vectorize, {1, 0});
    }

    // The guest's sizes on the levels above it, then one loop over the rest of the tile; the
    // guest is computed in the last loop above its levels.
    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        const StageFacts* f = r.facts(pl.stage);
        const StagePlan* gp = r.planOf(pl.partner);
        const StageFacts* gf = r.facts(pl.partner);
        if (!f || !gp || !gf) return r.fail("host " + pl.stage + " has no guest");
        const std::size_t ns = f->spatial.size();
        if (gf->spatial.size() != ns) return r.fail("host and guest differ in axes");
        const int L = pl.level;
        std::vector<std::vector<std::string>> loops(ns);
        std::vector<std::int64_t> lastSizes;
        for (std::size_t d = 0; d < ns; ++d) {
            auto g = r.tile(d < gp->spatialTiles.size() ? gp->spatialTiles[d] : -1,
                            gf->spatial[d].extent, 4);
            std::vector<std::int64_t> sizes(g.begin(), g.begin() + L);
            std::int64_t rest = 1;
            for (std::size_t l = static_cast<std::size_t>(L); l < g.size(); ++l)
                rest *= g[l];
            sizes.push_back(rest);
            if (!r.splitLevels(pl.stage, f->spatial[d].name, sizes, 0, &loops[d])) return false;
            if (d + 1 == ns) lastSizes = sizes;
        }
        std::vector<std::string> order;
        for (int l = 0; l <= L; ++l)
            for (auto& ls : loops)
                if (!ls[static_cast<std::size_t>(l)].empty())
                    order.push_back(ls[static_cast<std::size_t>(l)]);
        if (!r.reorder(pl.stage, order)) return false;

        std::string attach;
        for (int l = 0; l < L; ++l)
            for (auto& ls : loops)
                if (!ls[static_cast<std::size_t>(l)].empty())
                    attach = ls[static_cast<std::size_t>(l)];
        if (r.choice(pl.vectorize, 0) == 1 && ns > 0) {
            const std::string& v = loops[ns - 1][static_cast<std::size_t>(L)];
            if (!v.empty() && lastSizes.back() <= kMaxVectorLoop && order.back() == v &&
                !r.simpleStep("vectorize", pl.stage, {v}))
                return false;
        }
        if (pl.parallel >= 0) {
            std::int64_t p = r.choice(pl.parallel, 1);
            std::vector<std::string> group;
            for (int l = 0; l < p && l < L; ++l)
                for (auto& ls : loops)
                    if (!ls[static_cast<std::size_t>(l)].empty())
                        group.push_back(ls[static_cast<std::size_t>(l)]);
            std::string fused;
            if (!r.parallel(pl.stage, group, &fused)) return false;
            if (std::find(group.begin(), group.end(), attach) != group.end()) attach = fused;
        }
        if (!attach.empty()) r.attachGuest(pl.partner, attach);
        return true;
    }
};

inline const HostRule kHostRule{};

} // namespace loopscope
