// Knob values: drawn at random (biased towards vector-width inner tiles and register-sized
// blocks, with a share of uniform draws so nothing is out of reach), mutated one knob at a time,
// and crossed stage by stage between two parents.
#include "tune/Space.h"
#include "tune/rules/FlexibleRule.h"
#include "tune/rules/SimpleRule.h"
#include "tune/rules/TileRule.h"

#include <algorithm>
#include <functional>
#include <map>

namespace loopscope {

namespace {

constexpr std::int64_t kMaxInnermost = 64;

std::int64_t pick(const std::vector<std::int64_t>& v, std::mt19937_64& rng)
{
    return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}

bool chance(double p, std::mt19937_64& rng)
{
    return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

std::vector<std::int64_t> filtered(const std::vector<std::int64_t>& v,
                                   const std::function<bool(std::int64_t)>& keep)
{
    std::vector<std::int64_t> out;
    for (auto x : v)
        if (keep(x)) out.push_back(x);
    return out;
}

// The sizes of every level of a tile, outermost first (the outermost derived from the others).
std::vector<std::int64_t> tileSizes(const KnobSpec& k, const Knobs& knobs)
{
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(k.levels), 1);
    std::int64_t inner = 1;
    for (int l = 1; l < k.levels; ++l) {
        sizes[static_cast<std::size_t>(l)] = knobs[static_cast<std::size_t>(k.offset + l - 1)];
        inner *= sizes[static_cast<std::size_t>(l)];
    }
    sizes[0] = (k.extent + inner - 1) / inner;
    return sizes;
}

void storeTile(const KnobSpec& k, const std::vector<std::int64_t>& sizes, Knobs& knobs)
{
    for (int l = 1; l < k.levels; ++l)
        knobs[static_cast<std::size_t>(k.offset + l - 1)] = sizes[static_cast<std::size_t>(l)];
}

std::vector<std::int64_t> sampleTile(const KnobSpec& k, const SpaceOptions& o, std::mt19937_64& rng)
{
    const std::int64_t e = k.extent;
    const auto divs = divisors(e);
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(k.levels), 1);
    const std::size_t last = sizes.size() - 1;
    // Extents with few divisors (primes, 2 x prime) tile badly with exact factors: there, and
    // now and then elsewhere, the inner sizes need not divide the extent (a guarded tail).
    const bool exact = divs.size() > 3 ? !chance(0.1, rng) : chance(0.3, rng);
    if (!exact) {
        std::vector<std::int64_t> menu = {2, 4, 8, 16};
        if (k.vectorAxis)
            menu = {static_cast<std::int64_t>(o.vectorLanes),
                    2 * static_cast<std::int64_t>(o.vectorLanes)};
        sizes[last] = std::min(pick(menu, rng), e);
        for (std::size_t l = 1; l < last; ++l)
            sizes[l] = chance(0.5, rng) ? 1 : pick({2, 4, 8}, rng);
        std::int64_t inner = 1;
        for (std::size_t l = 1; l < sizes.size(); ++l)
            inner *= sizes[l];
        if (inner > e) std::fill(sizes.begin() + 1, sizes.end() - 1, 1);
        return sizes;
    }
    std::int64_t rem = e;
    auto small = [&](std::int64_t limit) {
        return filtered(divisors(rem), [&](std::int64_t d) { return d <= limit; });
    };
    std::vector<std::int64_t> innermost;
    const auto lanes = static_cast<std::int64_t>(o.vectorLanes);
    if (k.vectorAxis && chance(0.85, rng)) {
        innermost =
            filtered(divs, [&](std::int64_t d) { return d % lanes == 0 && d <= 4 * lanes; });
        if (innermost.empty())
            innermost = filtered(divs, [&](std::int64_t d) { return d % 4 == 0 && d <= 64; });
    } else if (k.levels == 4 && !k.vectorAxis && chance(0.7, rng)) {
        innermost = filtered(divs, [](std::int64_t d) { return d <= 8; });
    }
    if (innermost.empty()) innermost = small(kMaxInnermost);
    sizes[last] = pick(innermost, rng);
    rem /= sizes[last];
    for (std::size_t l = last - 1; l >= 1; --l) {
        sizes[l] = pick(divisors(rem), rng);
        rem /= sizes[l];
    }
    sizes[0] = rem;
    return sizes;
}

std::vector<std::int64_t> primeFactors(std::int64_t n)
{
    std::vector<std::int64_t> out;
    for (std::int64_t p = 2; p * p <= n; ++p)
        while (n % p == 0) {
            out.push_back(p);
            n /= p;
        }
    if (n > 1) out.push_back(n);
    return out;
}

void mutateTile(const KnobSpec& k, Knobs& knobs, const SpaceOptions& o, std::mt19937_64& rng)
{
    std::vector<std::int64_t> sizes = tileSizes(k, knobs);
    std::int64_t product = 1;
    for (auto s : sizes)
        product *= s;
    if (product != k.extent) { // a guarded tail: draw the tile again
        storeTile(k, sampleTile(k, o, rng), knobs);
        return;
    }
    for (int attempt = 0; attempt < 8; ++attempt) {
        std::vector<std::size_t> from;
        for (std::size_t l = 0; l < sizes.size(); ++l)
            if (sizes[l] > 1) from.push_back(l);
        if (from.empty()) return;
        std::size_t src = from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
        std::size_t dst = std::uniform_int_distribution<std::size_t>(0, sizes.size() - 2)(rng);
        if (dst >= src) ++dst;
        auto factors = primeFactors(sizes[src]);
        std::int64_t p = pick(factors, rng);
        auto moved = sizes;
        moved[src] /= p;
        moved[dst] *= p;
        if (moved.back() > kMaxInnermost) continue;
        storeTile(k, moved, knobs);
        return;
    }
}

std::int64_t sampleChoice(const KnobSpec& k, const SpaceOptions& o, std::mt19937_64& rng)
{
    const bool isVectorize =
        k.name.size() > 9 && k.name.compare(k.name.size() - 9, 9, "vectorize") == 0;
    if (isVectorize && k.values.size() == 2 && k.values[0] == 1) return chance(0.9, rng) ? 1 : 0;
    if (isVectorize) { // widths: prefer whole vectors
        auto whole =
            filtered(k.values, [&](std::int64_t w) { return w > 0 && w % o.vectorLanes == 0; });
        if (!whole.empty() && chance(0.7, rng)) return pick(whole, rng);
    }
    return pick(k.values, rng);
}

} // namespace

Knobs sampleKnobs(const Sketch& sketch, const SpaceOptions& options, std::mt19937_64& rng)
{
    Knobs knobs(static_cast<std::size_t>(sketch.knobCount), 0);
    for (auto& k : sketch.knobs) {
        if (k.kind == KnobSpec::Kind::Tile)
            storeTile(k, sampleTile(k, options, rng), knobs);
        else
            knobs[static_cast<std::size_t>(k.offset)] = sampleChoice(k, options, rng);
    }
    return knobs;
}

Knobs mutateKnobs(const Sketch& sketch, const Knobs& knobs, const SpaceOptions& options,
                  std::mt19937_64& rng)
{
    Knobs out = knobs;
    if (sketch.knobs.empty()) return out;
    // Tiles matter most (Ansor mutates tile sizes nine times in ten).
    std::vector<std::size_t> tiles, choices;
    for (std::size_t i = 0; i < sketch.knobs.size(); ++i)
        (sketch.knobs[i].kind == KnobSpec::Kind::Tile ? tiles : choices).push_back(i);
    const bool tile = !tiles.empty() && (choices.empty() || chance(0.8, rng));
    const auto& from = tile ? tiles : choices;
    const KnobSpec& k =
        sketch.knobs[from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)]];
    if (k.kind == KnobSpec::Kind::Tile) {
        mutateTile(k, out, options, rng);
    } else {
        auto& v = out[static_cast<std::size_t>(k.offset)];
        if (k.values.size() > 1) {
            std::int64_t old = v;
            for (int attempt = 0; attempt < 8 && v == old; ++attempt)
                v = pick(k.values, rng);
        }
    }
    return out;
}

Knobs crossKnobs(const Sketch& sketch, const Knobs& a, const Knobs& b, std::mt19937_64& rng)
{
    Knobs out = a;
    for (auto& pl : sketch.plans) {
        if (!chance(0.5, rng)) continue;
        std::vector<int> own = pl.spatialTiles;
        own.insert(own.end(), pl.reduceTiles.begin(), pl.reduceTiles.end());
        for (int k : {pl.unroll, pl.parallel, pl.vectorize, pl.location, pl.factor, pl.mode,
                      pl.tileRows, pl.tileCols})
            own.push_back(k);
        for (int index : own) {
            if (index < 0) continue;
            const KnobSpec& k = sketch.knobs[static_cast<std::size_t>(index)];
            int width = k.kind == KnobSpec::Kind::Tile ? k.levels - 1 : 1;
            for (int e = 0; e < width; ++e)
                out[static_cast<std::size_t>(k.offset + e)] =
                    b[static_cast<std::size_t>(k.offset + e)];
        }
    }
    return out;
}

Knobs defaultKnobs(const Sketch& sk, const SpaceOptions& o)
{
    Knobs k(static_cast<std::size_t>(sk.knobCount), 0);
    auto largestDivisorAtMost = [](std::int64_t n, std::int64_t limit) {
        std::int64_t best = 1;
        for (std::int64_t d : divisors(n))
            if (d <= limit) best = d;
        return best;
    };
    // The rows each stage's non-vector data-parallel axes may have in the register tile: about
    // half the vector registers as accumulators (32 with AVX-512, 16 with AVX2).
    std::map<int, std::int64_t> rowLimit; // knob index -> rows
    for (const StagePlan& pl : sk.plans) {
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
        if (const StageFacts* f = sk.factsOf(pl.stage); f && pl.rule == &kTileRule)
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
    }
    // Stages at the root that fuse their outer loops into one parallel loop: as few loops as
    // give every core several chunks (a batch of 1 alone gives none), and a vector width that
    // divides the innermost axis where one does.
    std::map<int, std::int64_t> fused, width; // knob index -> loops fused, vector width
    for (const StagePlan& pl : sk.plans) {
        if (pl.rule != &kSimpleRule && pl.rule != &kFlexibleRule) continue;
        const StageFacts* f = sk.factsOf(pl.stage);
        if (!f || f->spatial.empty()) continue;
        if (pl.parallel >= 0) {
            const std::size_t most = std::max<std::size_t>(1, f->spatial.size() - 1);
            std::int64_t loops = 0, product = 1;
            while (static_cast<std::size_t>(loops) < most && product < 8 * o.cores)
                product *= f->spatial[static_cast<std::size_t>(loops++)].extent;
            fused[pl.parallel] = std::max<std::int64_t>(loops, 1);
        }
        if (pl.vectorize >= 0) {
            const std::int64_t extent = f->spatial.back().extent;
            for (std::int64_t w : sk.knobs[static_cast<std::size_t>(pl.vectorize)].values)
                if (w >= 8 && w <= o.vectorLanes && extent % w == 0)
                    width[pl.vectorize] = std::max(width[pl.vectorize], w);
        }
    }
    // A stage its (only) consumer tiles (padding before a depthwise convolution) goes inside the
    // consumer's outermost loop, one tile at a time, instead of a whole copy at the root.
    std::map<int, std::int64_t> atConsumer; // knob index -> location
    for (const StagePlan& pl : sk.plans) {
        const StageFacts* f = sk.factsOf(pl.stage);
        if (pl.location >= 0 && f && f->tiledByConsumer)
            atConsumer[pl.location] = FlexibleRule::firstConsumerLoop(*f, o);
    }
    for (std::size_t ki = 0; ki < sk.knobs.size(); ++ki) {
        const KnobSpec& spec = sk.knobs[ki];
        auto at = [&](int e) -> std::int64_t& {
            return k[static_cast<std::size_t>(spec.offset + e)];
        };
        if (spec.kind == KnobSpec::Kind::Tile) {
            std::int64_t rest = spec.extent;
            if (spec.levels == 2) { // a reduction: one inner chunk
                at(0) = largestDivisorAtMost(rest, 16);
                continue;
            }
            // S S R S R S: the register tile (whole or half vectors on the contiguous axis, the
            // rows above on the others), a middle level for the caches, the outermost for the
            // cores.
            std::int64_t inner = 1;
            if (spec.vectorAxis) {
                for (std::int64_t d : divisors(rest))
                    if (d <= o.vectorLanes && (d % 8 == 0 || (inner % 8 != 0 && d > inner)))
                        inner = d;
            } else {
                const auto limit = rowLimit.find(static_cast<int>(ki));
                const std::int64_t rows = limit != rowLimit.end() ? limit->second : 1;
                inner = largestDivisorAtMost(rest, rows);
                // Rows that no size near the limit divides (197 tokens, a prime) take the limit
                // with a guarded tail: one row a tile would leave a single accumulator, bound by
                // the multiply-add's latency.
                if (inner * 2 <= rows && rest > rows) inner = rows;
            }
            const bool exact = rest % inner == 0;
            rest = (rest + inner - 1) / inner;
            const std::int64_t middle =
                exact ? largestDivisorAtMost(rest, spec.vectorAxis ? 4 : 2) : 1;
            at(0) = 1;
            at(1) = middle;
            at(2) = inner;
            continue;
        }
        std::int64_t& v = at(0);
        const std::string& n = spec.name;
        auto ends = [&](const char* suffix) {
            const std::string s(suffix);
            return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0;
        };
        if (ends("register block") || ends("row blocks")) // the machine's block comes first
            v = spec.values.front();
        else if (ends("unroll"))
            v = std::find(spec.values.begin(), spec.values.end(), 64) != spec.values.end()
                    ? 64
                    : spec.values.front();
        else if (ends("vectorize") && spec.values.size() == 2 && spec.values[0] == 1)
            v = 1;
        else if (ends("vectorize")) { // a width: whole vectors if the axis allows
            v = 0;
            for (auto w : spec.values)
                if (w > 0 && w <= o.vectorLanes) v = std::max(v, w);
            if (auto d = width.find(static_cast<int>(ki)); d != width.end()) v = d->second;
        } else if (auto loops = fused.find(static_cast<int>(ki)); loops != fused.end())
            v = loops->second;
        else if (ends("parallel"))
            v = spec.values.size() > 1 && spec.values[0] == 0 ? spec.values[1]
                                                              : spec.values.front();
        else if (auto at = atConsumer.find(static_cast<int>(ki)); at != atConsumer.end())
            v = at->second;
        else if (ends("location"))
            v = 0; // root
        else if (ends("tile rows") || ends("tile columns"))
            v = 0;
        else if (ends("rfactor part"))
            v = 1;
        else
            v = spec.values[spec.values.size() / 2];
    }
    return k;
}

namespace {

// Whether the stage a sketch computes inside its consumer at level 3 has no producer that goes
// inside its own tiles by default (a depthwise convolution's padding): that one would be made
// again for every register tile, halo and all.
bool noTiledProducer(const Sketch& sk)
{
    for (const StagePlan& pl : sk.plans) {
        if (pl.rule != &kTileRule || pl.partner.empty() || pl.level != 3) continue;
        for (const StageFacts& f : sk.facts)
            if (f.tiledByConsumer &&
                std::find(f.consumers.begin(), f.consumers.end(), pl.stage) != f.consumers.end())
                return false;
        return true;
    }
    return false;
}

} // namespace

int defaultSketch(const std::vector<Sketch>& sketches)
{
    int best = 0, bestRank = -1;
    for (std::size_t i = 0; i < sketches.size(); ++i) {
        const std::string& n = sketches[i].name;
        if (n.find("rfactor") != std::string::npos) continue;
        int rank = 0;
        if (n.find("register blocks over panels") != std::string::npos) rank = 4;
        if (n.find("at level 2") != std::string::npos) rank = 2;
        if (n.find("local cache, tiled at level 3") != std::string::npos)
            rank = noTiledProducer(sketches[i]) ? 3 : 1;
        if (n.find("inside") != std::string::npos && n.find("level 2") != std::string::npos)
            rank = 3;
        // Sums kept in registers through the whole reduction; a stage whose padding goes inside
        // its tiles (a depthwise convolution) stays at level 2, where the padding is made once
        // per tile of the consumer and not once per register tile.
        if (n.find("inside") != std::string::npos && n.find("level 3") != std::string::npos)
            rank = noTiledProducer(sketches[i]) ? 4 : 1;
        if (rank > bestRank) {
            bestRank = rank;
            best = static_cast<int>(i);
        }
    }
    return best;
}

} // namespace loopscope
