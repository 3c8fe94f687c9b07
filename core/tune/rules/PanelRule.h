// The panel rule: what every fast matmul does, as a sketch. A matmul-shaped reduction
// (StageFacts::panelInput: C[..., i, j] = sum_k A[..., i, k] * B[..., k, j]) keeps a block of mr x
// nr results in registers (a local write cache computed with k outermost, its rows unrolled and
// its nr columns vectorized, so each step of k loads nr/lanes vectors of B and broadcasts mr
// elements of A for mr * nr/lanes FMAs), and reads B from a copy packed into one panel of nr
// columns (B.global, computed where the panel's loop begins, so each panel is packed once and its
// rows are contiguous). The register block comes from the machine's vector registers (the first
// value of its knob, which the default takes: 8 x 32 with 32 registers of 16 floats, 6 x 16 with
// 16 of 8); the search may try other blocks, the rows per cache block, and whether the panels or
// the panels and row blocks are parallel.
//
// The rule adds this structure as a branch beside the tile rule's; it applies to a stage that
// nothing was pinned on and that no element-wise consumer reads.
#pragma once

#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"

#include <algorithm>

namespace loopscope {

class PanelRule final : public SketchRule {
public:
    // The plans it makes: the stage itself around the block, the block, the packed panel.
    enum Role { Outer = 0, Block = 1, Panel = 2 };

    const char* name() const override { return "panel"; }

    // Register blocks over packed panels: the best default where the rule applies.
    int defaultRank(const Sketch&, const StagePlan&) const override { return 4; }

    RuleCondition condition(const RuleInput& in) const override
    {
        const StageFacts& f = in.stage;
        for (const char* p :
             {"split", "reorder", "compute_at", "cache_write", "cache_read", "unroll", "vectorize"})
            if (!in.allowed(p)) return RuleCondition::Pass;
        return !f.panelInput.empty() && !f.pinned && f.elementwiseConsumer.empty()
                   ? RuleCondition::Apply
                   : RuleCondition::Pass;
    }

    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        const StageFacts& f = in.stage;
        const std::string block = f.name + ".local", panel = f.panelInput + ".global";
        NamedStep cw = NamedStep("cache_write", f.name).text("scope", "local");
        cw.names = {f.name + "_local"};
        NamedStep cr = NamedStep("cache_read", f.panelInput)
                           .text("scope", "global")
                           .stages("readers", {block});
        cr.names = {f.panelInput + "_panel"};
        return {
            {{plan(f.name, block, Outer), plan(block, f.name, Block), plan(panel, f.name, Panel)},
             {cw, cr},
             f.name + ": register blocks over panels of " + f.panelInput}};
    }

    // The register blocks (mr rows, nr columns) that fit the vector registers: mr * nr/lanes
    // accumulators, nr/lanes vectors of B and a broadcast of A. The machine's best first. Widths
    // that leave a tail of columns are left out where another width divides them: the tail's
    // guard sits inside the vectorized loop, which then runs on scalars (a tail of rows costs
    // little, outside it).
    static std::vector<std::int64_t> registerBlocks(const SpaceOptions& o, std::int64_t rows,
                                                    std::int64_t cols)
    {
        const std::int64_t lanes = std::max(4, o.vectorLanes);
        const std::int64_t regs = std::max(16, o.vectorRegisters);
        bool anyDivides = false;
        for (std::int64_t w : {1, 2, 3, 4})
            anyDivides = anyDivides || cols % (w * lanes) == 0;
        std::vector<std::int64_t> out;
        auto add = [&](std::int64_t mr, std::int64_t nr) {
            mr = std::min(mr, rows);
            if (mr < 1 || nr > std::max<std::int64_t>(lanes, cols + lanes - 1)) return;
            if (anyDivides && cols % nr != 0) return;
            const std::int64_t v = encodeBlock(mr, nr);
            if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
        };
        // The machine's block: two vectors wide, as many rows as leave room (8 x 32 with 32
        // registers, 6 x 16 with 16); one vector wide where two leave a tail and one does not.
        add(regs >= 32 ? 8 : 6, 2 * lanes);
        add(8, lanes);
        for (std::int64_t w : {2, 3, 1, 4}) {
            const std::int64_t most = (regs - 1 - w) / w;
            for (std::int64_t mr : {most, most - 2, std::int64_t{4}})
                if (mr >= 2) add(std::min<std::int64_t>(mr, 16), w * lanes);
        }
        return out;
    }
    static std::int64_t encodeBlock(std::int64_t mr, std::int64_t nr) { return mr * 1000 + nr; }
    static std::int64_t blockRows(std::int64_t v) { return v / 1000; }
    static std::int64_t blockColumns(std::int64_t v) { return v % 1000; }

    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts& f,
                  const SpaceOptions& o) const override
    {
        if (pl.level != Outer || f.spatial.size() < 2) return;
        const std::string n = pl.stage + " ";
        const std::int64_t rows = f.spatial[f.spatial.size() - 2].extent;
        pl.tileRows = sk.addChoice(n + "register block", KnobRole::RegisterBlock,
                                   registerBlocks(o, rows, f.spatial.back().extent));
        // Register blocks per cache block of rows.
        pl.tileCols = sk.addChoice(n + "row blocks", KnobRole::RowBlocks, {16, 4, 8, 32, 64});
        if (tunerMayWrite(o, "parallel"))
            pl.parallel = sk.addChoice(n + "parallel", KnobRole::Parallel, {1, 2});
    }

    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        if (pl.level == Outer) return realizeOuter(r, pl);
        const std::string* at = r.guestAttachment(pl.stage);
        if (!at) return r.fail(pl.stage + " has no place in " + pl.partner);
        if (!r.computeAt(pl.stage, pl.partner, *at)) return false;
        const Stage* st = r.stage(pl.stage);
        if (!st) return r.fail("no stage " + pl.stage);
        const auto roots = st->rootIterVars();
        if (pl.level == Panel) {
            // The panel's columns are the innermost loop: whole vectors.
            return roots.empty() || r.simpleStep("vectorize", pl.stage, {roots.back()->name()});
        }
        // The block: k outermost, the rows unrolled, the columns vectorized.
        if (roots.size() < 3) return r.fail("block " + pl.stage + " is not a matmul");
        const std::string k = roots.back()->name();
        const std::string i = roots[roots.size() - 3]->name();
        const std::string j = roots[roots.size() - 2]->name();
        return r.reorder(pl.stage, {k, i, j}) && r.simpleStep("unroll", pl.stage, {i}) &&
               r.simpleStep("vectorize", pl.stage, {j});
    }

private:
    // The stage around the block: ... jo | io, iio | iii, ji, with the block computed at iio and
    // the panel at the parallel loop (or jo).
    bool realizeOuter(PlanRealizer& r, const StagePlan& pl) const
    {
        const StageFacts* f = r.facts(pl.stage);
        if (!f || f->spatial.size() < 2) return r.fail(pl.stage + " is not a matmul");
        const std::int64_t block = r.choice(pl.tileRows, encodeBlock(4, 16));
        const std::int64_t mr = blockRows(block), nr = blockColumns(block);
        const std::int64_t mb = mr * r.choice(pl.tileCols, 16);
        const std::size_t ns = f->spatial.size();
        const std::string& iName = f->spatial[ns - 2].name;
        const std::string& jName = f->spatial[ns - 1].name;
        std::string jo, ji, io, irest, iio, iii;
        if (!r.split(pl.stage, jName, nr, {baseName(jName) + "_o", baseName(jName) + "_i"}, &jo,
                     &ji))
            return false;
        std::vector<std::string> batch;
        for (std::size_t d = 0; d + 2 < ns; ++d)
            batch.push_back(f->spatial[d].name);
        std::string rowsOuter = iName;
        // Blocks of rows only where they are parallel with the panels.
        const bool rowBlocks = pl.parallel >= 0 && r.choice(pl.parallel, 1) == 2;
        if (rowBlocks && mb < f->spatial[ns - 2].extent) {
            if (!r.split(pl.stage, iName, mb, {baseName(iName) + "_o", baseName(iName) + "_b"}, &io,
                         &irest))
                return false;
            rowsOuter = irest;
        }
        if (!r.split(pl.stage, rowsOuter, mr, {baseName(iName) + "_r", baseName(iName) + "_i"},
                     &iio, &iii))
            return false;
        std::vector<std::string> order = batch;
        order.push_back(jo);
        if (!io.empty()) order.push_back(io);
        for (auto& l : {iio, iii, ji})
            order.push_back(l);
        if (!r.reorder(pl.stage, order)) return false;
        if (!r.simpleStep("unroll", pl.stage, {iii}) || !r.simpleStep("vectorize", pl.stage, {ji}))
            return false;
        std::string panelAt = jo;
        if (pl.parallel >= 0) {
            std::vector<std::string> group = batch;
            group.push_back(jo);
            if (!io.empty()) group.push_back(io); // only split where the knob fuses it
            std::string fused;
            if (!r.parallel(pl.stage, group, &fused)) return false;
            panelAt = fused;
        }
        // The block reads the packed copy of B: the panel is that copy.
        const StageFacts* cache = r.facts(pl.partner);
        if (!cache || cache->panelInput.empty()) return r.fail("no panel for " + pl.stage);
        r.attachGuest(pl.partner, iio);
        r.attachGuest(cache->panelInput, panelAt);
        return true;
    }
};

inline const PanelRule kPanelRule{};

} // namespace loopscope
