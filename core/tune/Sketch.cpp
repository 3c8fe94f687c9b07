// Sketch generation: the rules, stage by stage from the outputs back (Ansor's CPU order: inline,
// cache write, tiling with fusion into a consumer, plain tiling, skip), branching where a rule
// offers more than one structure; then the knobs each sketch's plans need.
#include "tune/Space.h"

#include "ir/Diagnostic.h"

#include <algorithm>
#include <map>

namespace loopscope {

const std::vector<std::string>& tunerPrimitives()
{
    static const std::vector<std::string> names = {
        "split",  "reorder",    "fuse",           "parallel",    "vectorize",
        "pragma", "compute_at", "compute_inline", "cache_write", "rfactor"};
    return names;
}

bool tunerMayWrite(const SpaceOptions& options, const std::string& primitive)
{
    const auto& names = tunerPrimitives();
    if (std::find(names.begin(), names.end(), primitive) == names.end())
        throw InternalError("the tuner writes '" + primitive +
                            "', which is not in tunerPrimitives()");
    return !options.forbidden.count(primitive);
}

namespace {

constexpr std::size_t kMaxSketches = 64;
const std::vector<std::int64_t> kUnrollSteps = {0, 16, 64, 512};

struct Partial {
    std::vector<TuneStep> prologue;
    std::map<std::string, StagePlan> plans;
    std::vector<std::string> notes;
};

bool allowed(const SpaceOptions& o, const char* primitive)
{
    return tunerMayWrite(o, primitive);
}

StagePlan plan(PlanKind kind, const std::string& stage, const std::string& partner = {},
               int level = 0)
{
    StagePlan p;
    p.kind = kind;
    p.stage = stage;
    p.partner = partner;
    p.level = level;
    return p;
}

// The structures one stage may take, each a copy of `p` with the stage planned.
std::vector<Partial> stageOptions(const StageFacts& f, const Partial& p, const SpaceOptions& o,
                                  const std::vector<StageFacts>& all)
{
    auto with = [&](std::vector<StagePlan> plans, std::vector<TuneStep> prologue,
                    std::string note) {
        Partial q = p;
        for (auto& pl : plans)
            q.plans[pl.stage] = pl;
        for (auto& s : prologue)
            q.prologue.push_back(s);
        if (!note.empty()) q.notes.push_back(std::move(note));
        return q;
    };
    if (f.placeholder) return {with({plan(PlanKind::Skip, f.name)}, {}, {})};
    const bool canSplit = allowed(o, "split") && allowed(o, "reorder");
    if (f.pinned && !(f.onlySplit && f.needsTiling && canSplit))
        return {with({plan(PlanKind::Pinned, f.name)}, {}, f.name + ": as given")};
    if (!f.output && f.strictlyInlineable && allowed(o, "compute_inline"))
        return {with({plan(PlanKind::Inline, f.name)}, {}, f.name + ": inlined")};

    // A reduction whose data-parallel extent cannot keep the cores busy (Ansor's NeedsRfactor)
    // may be factored: its reduction split, one part computed as a parallel stage of partial
    // results. A branch: the other structures stay open.
    std::vector<Partial> factored;
    const std::int64_t space = f.spatialProduct(), reduce = f.reduceProduct();
    if (f.reduction && !f.pinned && canSplit && allowed(o, "rfactor") && allowed(o, "fuse") &&
        reduce >= 8 && space <= std::int64_t{o.cores} * 16 && (!f.needsTiling || space <= reduce))
        factored.push_back(with({plan(PlanKind::Rfactor, f.name)}, {}, f.name + ": rfactor"));

    if (f.needsTiling && canSplit) {
        std::vector<Partial> out = factored;
        out.push_back(with({plan(PlanKind::Tile, f.name)}, {}, f.name + ": tiled"));
        if (f.pinned) return out;
        const bool attach = allowed(o, "compute_at");
        // The element-wise consumer, looked through the stages inlined into their readers (a
        // bias add inlined into a relu: the relu is the host), as Ansor's consumers are.
        std::string hostName = f.elementwiseConsumer;
        for (int guard = 0; guard < 16 && !hostName.empty(); ++guard) {
            auto planned = p.plans.find(hostName);
            if (planned == p.plans.end() || planned->second.kind != PlanKind::Inline) break;
            auto next = std::find_if(all.begin(), all.end(),
                                     [&](const StageFacts& s) { return s.name == hostName; });
            hostName = next == all.end() ? std::string() : next->elementwiseConsumer;
        }
        auto host = p.plans.find(hostName);
        if (!f.elementwiseConsumer.empty()) {
            bool hostFree = host != p.plans.end() && host->second.kind == PlanKind::Simple;
            if (attach && hostFree) {
                for (int level : {1, 2}) {
                    out.push_back(with({plan(PlanKind::Tile, f.name, hostName, level),
                                        plan(PlanKind::Host, hostName, f.name, level)},
                                       {},
                                       f.name + ": tiled inside " + hostName + " at level " +
                                           std::to_string(level)));
                }
            }
        } else if (attach && allowed(o, "cache_write") && f.reduction) {
            const std::string cache = f.name + ".local";
            TuneStep cw;
            cw.primitive = "cache_write";
            cw.stage = f.name;
            cw.text = "local";
            cw.names = {f.name + "_local"};
            for (int level : {1, 2}) {
                out.push_back(with({plan(PlanKind::Tile, cache, f.name, level),
                                    plan(PlanKind::Host, f.name, cache, level)},
                                   {cw},
                                   f.name + ": computed in a local cache, tiled at level " +
                                       std::to_string(level)));
            }
        }
        return out;
    }
    if (f.pinned) return {with({plan(PlanKind::Pinned, f.name)}, {}, f.name + ": as given")};
    if (f.output || f.consumers.empty())
        factored.push_back(with({plan(PlanKind::Simple, f.name)}, {}, {}));
    else
        factored.push_back(with({plan(PlanKind::Flexible, f.name)}, {}, {}));
    return factored;
}

int addChoice(Sketch& sk, const std::string& name, std::vector<std::int64_t> values)
{
    KnobSpec k;
    k.kind = KnobSpec::Kind::Choice;
    k.name = name;
    k.values = std::move(values);
    k.offset = sk.knobCount;
    sk.knobCount += 1;
    sk.knobs.push_back(std::move(k));
    return static_cast<int>(sk.knobs.size()) - 1;
}

int addTile(Sketch& sk, const std::string& name, std::int64_t extent, int levels, bool vectorAxis)
{
    KnobSpec k;
    k.kind = KnobSpec::Kind::Tile;
    k.name = name;
    k.extent = extent;
    k.levels = levels;
    k.vectorAxis = vectorAxis;
    k.offset = sk.knobCount;
    sk.knobCount += levels - 1;
    sk.knobs.push_back(std::move(k));
    return static_cast<int>(sk.knobs.size()) - 1;
}

// The float32 vector widths worth trying on an axis of this extent (0: no vectorizing).
std::vector<std::int64_t> vectorWidths(std::int64_t extent, const SpaceOptions& o)
{
    std::vector<std::int64_t> w{0};
    for (std::int64_t v : {4, 8, 16, 32, 64})
        if (v <= extent && v <= 4 * o.vectorLanes) w.push_back(v);
    if (extent > 1 && extent < 64 && std::find(w.begin(), w.end(), extent) == w.end())
        w.push_back(extent);
    return w;
}

void addKnobs(Sketch& sk, StagePlan& pl, const SpaceOptions& o)
{
    const StageFacts* f = sk.factsOf(pl.stage);
    if (!f) return;
    const bool parallel = allowed(o, "parallel");
    const bool vectorize = allowed(o, "vectorize");
    const bool unroll = allowed(o, "pragma");
    const std::string n = pl.stage + " ";
    switch (pl.kind) {
    case PlanKind::Tile:
        for (std::size_t d = 0; d < f->spatial.size(); ++d) {
            const AxisFacts& a = f->spatial[d];
            bool pinnedAxis = f->pinned; // the pinned pieces are arranged, not re-split
            pl.spatialTiles.push_back(
                a.extent > 1 && !pinnedAxis
                    ? addTile(sk, n + a.name + " tile", a.extent, 4, d + 1 == f->spatial.size())
                    : -1);
        }
        for (auto& a : f->reduce) {
            pl.reduceTiles.push_back(a.extent > 1 && !f->pinned
                                         ? addTile(sk, n + a.name + " tile", a.extent, 2, false)
                                         : -1);
        }
        if (unroll) pl.unroll = addChoice(sk, n + "unroll", kUnrollSteps);
        if (parallel && pl.partner.empty()) pl.parallel = addChoice(sk, n + "parallel", {1, 2});
        if (vectorize) pl.vectorize = addChoice(sk, n + "vectorize", {1, 0});
        break;
    case PlanKind::Host: {
        std::vector<std::int64_t> levels;
        for (int l = 1; l <= pl.level; ++l)
            levels.push_back(l);
        if (parallel) pl.parallel = addChoice(sk, n + "parallel", levels);
        if (vectorize) pl.vectorize = addChoice(sk, n + "vectorize", {1, 0});
        break;
    }
    case PlanKind::Flexible:
        pl.location = addChoice(sk, n + "location",
                                {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31});
        [[fallthrough]];
    case PlanKind::Simple: {
        std::vector<std::int64_t> fuse{0};
        for (std::size_t k = 1; k <= f->spatial.size(); ++k)
            fuse.push_back(static_cast<std::int64_t>(k));
        if (parallel && !f->spatial.empty()) pl.parallel = addChoice(sk, n + "parallel", fuse);
        if (vectorize && !f->spatial.empty())
            pl.vectorize =
                addChoice(sk, n + "vectorize", vectorWidths(f->spatial.back().extent, o));
        if (unroll && f->reduction) pl.unroll = addChoice(sk, n + "unroll", kUnrollSteps);
        // Tiles of the last two axes, for data movement that reads across what it writes.
        const std::size_t ns = f->spatial.size();
        if (ns >= 2 && !f->reduction && allowed(o, "split") && allowed(o, "reorder") &&
            f->spatial[ns - 2].extent >= 16 && f->spatial[ns - 1].extent >= 16) {
            pl.tileRows = addChoice(sk, n + "tile rows", {0, 4, 8, 16, 32, 64});
            pl.tileCols = addChoice(sk, n + "tile columns", {8, 16, 32, 64});
        }
        break;
    }
    case PlanKind::Pinned:
        if (parallel && !f->hasParallel) pl.parallel = addChoice(sk, n + "parallel", {1, 0});
        if (vectorize && !f->hasVectorize) pl.vectorize = addChoice(sk, n + "vectorize", {1, 0});
        if (unroll && !f->hasUnroll) pl.unroll = addChoice(sk, n + "unroll", kUnrollSteps);
        break;
    case PlanKind::Rfactor: {
        std::vector<std::int64_t> factors;
        for (std::int64_t d : divisors(f->reduceProduct()))
            if (d >= 2 && d <= f->reduceProduct() / 2 && d <= 4096) factors.push_back(d);
        if (factors.empty()) factors.push_back(1);
        pl.factor = addChoice(sk, n + "rfactor split", factors);
        pl.mode = addChoice(sk, n + "rfactor part", {0, 1});
        if (parallel) pl.parallel = addChoice(sk, n + "parallel", {1, 0});
        if (vectorize) pl.vectorize = addChoice(sk, n + "vectorize", {1, 0});
        if (unroll) pl.unroll = addChoice(sk, n + "unroll", kUnrollSteps);
        break;
    }
    case PlanKind::Skip:
    case PlanKind::Inline: break;
    }
}

} // namespace

std::vector<Sketch> generateSketches(const Variant& start, const SpaceOptions& options,
                                     std::string* why)
{
    const std::vector<StageFacts> facts = analyzeStages(start.schedule());
    for (auto& f : facts) {
        if (f.placeholder) continue;
        for (auto* axes : {&f.spatial, &f.reduce}) {
            for (auto& a : *axes) {
                if (a.extent <= 0) {
                    if (why)
                        *why = "tuning needs constant sizes: axis '" + a.name + "' of '" + f.name +
                               "' has a symbolic extent (give it a value with --set)";
                    return {};
                }
            }
        }
    }

    std::vector<Partial> partials{Partial{}};
    for (auto it = facts.rbegin(); it != facts.rend(); ++it) {
        std::vector<Partial> next;
        for (auto& p : partials) {
            for (auto& q : stageOptions(*it, p, options, facts)) {
                if (next.size() < kMaxSketches) next.push_back(std::move(q));
            }
        }
        partials = std::move(next);
    }

    std::vector<Sketch> sketches;
    for (auto& p : partials) {
        Sketch sk;
        StepReplay replay(start, false);
        bool ok = true;
        for (auto& s : p.prologue)
            ok = ok && replay.apply(s);
        if (!ok) continue;
        sk.prologue = p.prologue;
        sk.facts = analyzeStages(replay.schedule());
        for (auto& note : p.notes)
            sk.name += (sk.name.empty() ? "" : "; ") + note;
        if (sk.name.empty()) sk.name = "annotations only";
        // Consumers before producers: the schedule's stages in reverse.
        const auto& stages = replay.schedule().stages();
        for (auto st = stages.rbegin(); st != stages.rend(); ++st) {
            auto found = p.plans.find(st->name());
            StagePlan pl =
                found != p.plans.end() ? found->second : plan(PlanKind::Skip, st->name());
            addKnobs(sk, pl, options);
            sk.plans.push_back(std::move(pl));
        }
        sketches.push_back(std::move(sk));
    }
    if (sketches.empty() && why) *why = "no sketch applies to this variant";
    return sketches;
}

std::vector<std::int64_t> divisors(std::int64_t n)
{
    std::vector<std::int64_t> small, large;
    for (std::int64_t d = 1; d * d <= n; ++d) {
        if (n % d) continue;
        small.push_back(d);
        if (d * d != n) large.push_back(n / d);
    }
    small.insert(small.end(), large.rbegin(), large.rend());
    return small;
}

const StageFacts* Sketch::factsOf(const std::string& stage) const
{
    for (auto& f : facts)
        if (f.name == stage) return &f;
    return nullptr;
}

} // namespace loopscope
