// Knob values: drawn at random (biased towards vector-width inner tiles and register-sized
// blocks, with a share of uniform draws so nothing is out of reach), mutated one knob at a time,
// and crossed stage by stage between two parents.
#include "tune/SketchRule.h"
#include "tune/Space.h"

#include <algorithm>
#include <functional>

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

// The most level `l` of the tile may hold (no limit: the extent).
std::int64_t levelLimit(const KnobSpec& k, std::size_t l)
{
    return l < k.levelLimits.size() && k.levelLimits[l] > 0 ? k.levelLimits[l] : k.extent;
}

// A tile whose levels have limits (a GPU's: virtual threads, threads, a thread's registers):
// exact factors, each inner level drawn from the divisors of what is left within its limit.
std::vector<std::int64_t> sampleLimitedTile(const KnobSpec& k, std::mt19937_64& rng)
{
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(k.levels), 1);
    std::int64_t rem = k.extent;
    for (std::size_t l = sizes.size() - 1; l >= 1; --l) {
        sizes[l] = pick(
            filtered(divisors(rem), [&](std::int64_t d) { return d <= levelLimit(k, l); }), rng);
        rem /= sizes[l];
    }
    sizes[0] = rem;
    return sizes;
}

std::vector<std::int64_t> sampleTile(const KnobSpec& k, const SpaceOptions& o, std::mt19937_64& rng)
{
    if (!k.levelLimits.empty()) return sampleLimitedTile(k, rng);
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
        if (moved[dst] > levelLimit(k, dst)) continue;
        storeTile(k, moved, knobs);
        return;
    }
}

std::int64_t sampleChoice(const KnobSpec& k, const SpaceOptions& o, std::mt19937_64& rng)
{
    if (k.role == KnobRole::Vectorize) return chance(0.9, rng) ? 1 : 0;
    if (k.role == KnobRole::VectorWidth) { // widths: prefer whole vectors
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

std::int64_t knobDefault(const KnobSpec& spec, const SpaceOptions& o)
{
    const auto& values = spec.values;
    switch (spec.role) {
    case KnobRole::Tile: return 1;
    case KnobRole::RegisterBlock: // the machine's block comes first
    case KnobRole::RowBlocks: return values.front();
    case KnobRole::Unroll:
        return std::find(values.begin(), values.end(), 64) != values.end() ? 64 : values.front();
    case KnobRole::Vectorize: return 1;
    case KnobRole::VectorWidth: { // whole vectors where the axis allows
        std::int64_t v = 0;
        for (auto w : values)
            if (w > 0 && w <= o.vectorLanes) v = std::max(v, w);
        return v;
    }
    case KnobRole::Parallel:
        return values.size() > 1 && values[0] == 0 ? values[1] : values.front();
    case KnobRole::Location: // the root
    case KnobRole::TileRows:
    case KnobRole::TileColumns: return 0;
    case KnobRole::RfactorPart: return 1;
    case KnobRole::RfactorSplit:
    case KnobRole::Other: break;
    }
    return values[values.size() / 2];
}

Knobs defaultKnobs(const Sketch& sk, const SpaceOptions& o)
{
    Knobs k(static_cast<std::size_t>(sk.knobCount), 0);
    for (const KnobSpec& spec : sk.knobs) {
        const int entries = spec.kind == KnobSpec::Kind::Tile ? spec.levels - 1 : 1;
        std::fill_n(k.begin() + spec.offset, entries, knobDefault(spec, o));
    }
    for (const StagePlan& pl : sk.plans)
        if (pl.rule) pl.rule->initKnobs(sk, pl, o, k);
    return k;
}

int defaultSketch(const std::vector<Sketch>& sketches)
{
    int best = 0, bestRank = -1;
    for (std::size_t i = 0; i < sketches.size(); ++i) {
        int rank = 0;
        for (const StagePlan& pl : sketches[i].plans) {
            if (!pl.rule) continue;
            const int r = pl.rule->defaultRank(sketches[i], pl);
            if (r < 0) {
                rank = -1;
                break;
            }
            rank = std::max(rank, r);
        }
        if (rank > bestRank) {
            bestRank = rank;
            best = static_cast<int>(i);
        }
    }
    return best;
}

} // namespace loopscope
