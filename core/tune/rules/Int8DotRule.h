// The int8 dot-product rule (MetaSchedule's for x86's VNNI, as TOPI's dense_int8 schedules it): a
// stage TOPI's x86 intrinsic computes (StageFacts::int8DotLanes: uint8 x int8 into int32, the
// weights packed in blocks of lanes x 4) keeps a block of rows x vectors of sums in registers
// across its whole reduction, each step of k one tensorized dot product of four bytes per lane:
// the columns split by the lanes (the tensorized loop), k by 4, the rows and vectors of the block
// unrolled, the blocks fused and parallel. The intrinsic is TOPI's own, as the script names it
// (tvm.topi.x86.tensor_intrin): VNNI's vpdpbusd where the machine has AVX512-VNNI, else
// pmaddubsw + pmaddwd in the lanes the weights are packed in.
#pragma once

#include "ir/LlvmIntrinsics.h"
#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"

#include <algorithm>

namespace loopscope {

class Int8DotRule final : public SketchRule {
public:
    const char* name() const override { return "int8-dot"; }

    // A dot product of the machine's own: the best default where the rule applies.
    int defaultRank(const Sketch&, const StagePlan&) const override { return 5; }

    // TOPI's intrinsic for int8 dot products of `lanes` int32 lanes on this machine, as a script
    // calls it; empty where none of its forms runs here in those lanes.
    static std::string intrinsicFor(int lanes)
    {
        const auto& f = hostCpuFeatureNames();
        const std::string module = "tvm.topi.x86.tensor_intrin.";
        if (lanes == 16 && f.count("avx512vnni"))
            return module + "dot_16x1x16_uint8_int8_int32_cascadelake()";
        // The skylake form takes its lanes from the machine's widest vectors.
        const int simd = f.count("avx512f") ? 16 : f.count("avx2") ? 8 : 4;
        const bool bw = lanes == 16 ? f.count("avx512bw") != 0 : f.count("avx2") != 0;
        if (lanes == simd && bw) return module + "dot_16x1x16_uint8_int8_int32_skylake()";
        return {};
    }

    RuleCondition condition(const RuleInput& in) const override
    {
        const StageFacts& f = in.stage;
        for (const char* p : {"split", "reorder", "unroll", "tensorize", "parallel", "fuse"})
            if (!in.allowed(p)) return RuleCondition::Pass;
        return f.int8DotLanes > 0 && !f.pinned && f.elementwiseConsumer.empty() &&
                       !intrinsicFor(f.int8DotLanes).empty()
                   ? RuleCondition::Apply
                   : RuleCondition::Pass;
    }

    std::vector<RuleBranch> apply(const RuleInput& in) const override
    {
        return {branch(in.stage.name, in.stage.name + ": int8 dot products (tensorize)")};
    }

    void addKnobs(Sketch& sk, StagePlan& pl, const StageFacts& f,
                  const SpaceOptions&) const override
    {
        // Rows (of the next-to-last data-parallel axis: a matmul's rows, a convolution's pixels)
        // and vectors of sums in registers: 4 x 4 (16 accumulators) first, whole blocks only.
        const std::size_t ns = f.spatial.size();
        std::vector<std::int64_t> rows;
        if (ns >= 2)
            for (std::int64_t r : {4, 2, 6, 8, 7, 1})
                if (f.spatial[ns - 2].extent % r == 0) rows.push_back(r);
        if (!rows.empty()) pl.tileRows = sk.addChoice(pl.stage + " rows", KnobRole::Other, rows);
        if (!f.int8DotSplitJ) return;
        const std::int64_t vectors = f.spatial.back().extent / std::max(1, f.int8DotLanes);
        std::vector<std::int64_t> widths;
        for (std::int64_t w : {4, 2, 1, 3})
            if (vectors % w == 0) widths.push_back(w);
        pl.tileCols = sk.addChoice(pl.stage + " vectors", KnobRole::Other, widths);
    }

    // The default block: the first width of vectors (4 where the columns split), and the most
    // rows that keep rows x vectors within 16 accumulators and 8 rows (a 7 x 7 layer's 7, a
    // 56 x 56 one's 8), so that a step of k loads each weight vector once for several rows.
    void initKnobs(const Sketch& sk, const StagePlan& pl, const SpaceOptions&,
                   Knobs& k) const override
    {
        std::int64_t vectors = 1;
        if (pl.tileCols >= 0) {
            const KnobSpec& spec = sk.knobs[static_cast<std::size_t>(pl.tileCols)];
            vectors = spec.values.front();
            k[static_cast<std::size_t>(spec.offset)] = vectors;
        }
        if (pl.tileRows >= 0) {
            const KnobSpec& spec = sk.knobs[static_cast<std::size_t>(pl.tileRows)];
            std::int64_t rows = 1;
            for (std::int64_t r : spec.values)
                if (r <= 8 && r * vectors <= 16) rows = std::max(rows, r);
            k[static_cast<std::size_t>(spec.offset)] = rows;
        }
    }

    bool realize(PlanRealizer& r, const StagePlan& pl) const override
    {
        const StageFacts* f = r.facts(pl.stage);
        if (!f || f->int8DotLanes <= 0 || f->reduce.empty())
            return r.fail(pl.stage + " is not an int8 dot product");
        const std::string intrinsic = intrinsicFor(f->int8DotLanes);
        if (intrinsic.empty()) return r.fail("no int8 intrinsic of " + pl.stage + "'s lanes here");
        const std::size_t ns = f->spatial.size();
        const std::string& jName = f->spatial.back().name;
        const std::string& kName = f->reduce.back().name;
        std::string jo, ji = jName, joo, joi, ko, ki = kName, io, ii;
        if (f->int8DotSplitJ &&
            !r.split(pl.stage, jName, f->int8DotLanes,
                     {baseName(jName) + "_o", baseName(jName) + "_i"}, &jo, &ji))
            return false;
        if (f->int8DotSplitK &&
            !r.split(pl.stage, kName, 4, {baseName(kName) + "_o", baseName(kName) + "_i"}, &ko,
                     &ki))
            return false;
        joo = jo;
        const std::int64_t vectors = r.choice(pl.tileCols, 1);
        if (!jo.empty() && vectors > 1 &&
            !r.split(pl.stage, jo, vectors, {baseName(jName) + "_oo", baseName(jName) + "_oi"},
                     &joo, &joi))
            return false;
        std::vector<std::string> batch;
        for (std::size_t d = 0; d + 2 < ns; ++d)
            batch.push_back(f->spatial[d].name);
        if (ns >= 2) {
            const std::string& iName = f->spatial[ns - 2].name;
            io = iName;
            const std::int64_t rows = r.choice(pl.tileRows, 1);
            if (rows > 1 && !r.split(pl.stage, iName, rows,
                                     {baseName(iName) + "_o", baseName(iName) + "_i"}, &io, &ii))
                return false;
        }
        // batch..., column blocks, row blocks | the other reductions, k by 4 | the register
        // block | lanes, 4 bytes.
        std::vector<std::string> order = batch, outer = batch;
        for (const std::string& l : {joo, io})
            if (!l.empty()) order.push_back(l);
        outer = order;
        for (std::size_t d = 0; d + 1 < f->reduce.size(); ++d)
            order.push_back(f->reduce[d].name);
        for (const std::string& l : {ko, ii, joi})
            if (!l.empty()) order.push_back(l);
        order.push_back(ji);
        order.push_back(ki);
        if (!r.reorder(pl.stage, order)) return false;
        for (const std::string& l : {ii, joi})
            if (!l.empty() && !r.simpleStep("unroll", pl.stage, {l})) return false;
        NamedStep tensorize("tensorize", pl.stage);
        tensorize.loops("var", {ji}).text("tensor_intrin", intrinsic);
        if (!r.step(tensorize)) return false;
        std::string fused;
        return r.parallel(pl.stage, outer, &fused);
    }
};

inline const Int8DotRule kInt8DotRule{};

} // namespace loopscope
