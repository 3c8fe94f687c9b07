// The search space: sketches made by rules in the manner of Ansor's CPU policy (tune/SketchRule.h:
// multi-level tiling, a local write cache, consumers fused by compute_at, element-wise producers
// inlined, other producers placed where the knobs say), each with its knobs (tile sizes, unroll
// steps, parallel granularity, vector widths, compute locations). A candidate is a sketch and a
// value for each knob; it realizes as a list of ordinary schedule steps after the starting
// variant's own (pinned) steps.
#pragma once

#include "tune/StageAnalysis.h"
#include "tune/StepReplay.h"

#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace loopscope {

// What a GPU allows one kernel's block (Ansor's HardwareParams for CUDA): a candidate past one
// of these is never measured.
struct GpuLimits {
    int maxThreadsPerBlock = 1024;
    std::int64_t maxSharedBytes = 48 * 1024; // static shared memory of one block
    int maxVthreads = 8; // virtual threads per block (Ansor's max_vthread_extent)
    // Accumulators one thread holds (its share of the block's tile, virtual threads included):
    // about half of the 255 registers a thread may have, the rest for operands and addresses.
    int maxAccumulators = 128;
    int warp = 32;
};

// What the search may do, and the machine it is for.
struct SpaceOptions {
    std::set<std::string> forbidden; // primitive names the tuner must not write
    int vectorLanes = 8;             // float32 lanes of the widest useful vector
    int vectorRegisters = 16;        // vector registers (32 with AVX-512, 16 with AVX2)
    int cores = 2;                   // threads a parallel loop runs on
    // Set: the candidates are GPU kernels within these limits (gpuSketchRules()), else CPU code.
    std::optional<GpuLimits> gpu;
};

// The primitives the tuner writes, by the names the script uses: what SpaceOptions::forbidden
// may name, the Tune panel's forbid menu offers and `tune --forbid` takes. Every step the tuner
// makes is one of them (writing another is an internal error, so the list cannot drift).
const std::vector<std::string>& tunerPrimitives();
// The vector registers of a machine whose widest vectors have `vectorBits` (x86: 32 with
// AVX-512, 16 below it).
inline int vectorRegistersFor(int vectorBits)
{
    return vectorBits >= 512 ? 32 : 16;
}
// Whether the options let the tuner write `primitive`, one of tunerPrimitives() (an
// InternalError for any other name).
bool tunerMayWrite(const SpaceOptions& options, const std::string& primitive);

class SketchRule; // tune/SketchRule.h

// What a knob decides. Drawing, mutating and the defaults read this, never the knob's name (which
// is display text: the Tune panel and the log show it).
enum class KnobRole {
    Tile,          // the sizes of a multi-level split (a Tile knob)
    Unroll,        // the auto-unroll step (0: none)
    Vectorize,     // 1: the innermost loop vectorized, 0: not
    VectorWidth,   // the innermost axis split by this width and vectorized (0: not)
    Parallel,      // the loops made parallel: tile levels, loops fused, or 1 / 0
    Location,      // where the stage is computed: the root, inlined, or a consumer's loop
    TileRows,      // 2-D tiles of the last two axes: rows (0: no tiles)
    TileColumns,   // ... and columns
    RegisterBlock, // a register block of rows x columns (PanelRule's encoding)
    RowBlocks,     // register blocks per cache block of rows
    RfactorSplit,  // the factor the fused reduction is split by
    RfactorPart,   // factoring the split's inner (0) or outer (1) part
    Other,         // anything else: its middle value by default
};

struct KnobSpec {
    enum class Kind { Tile, Choice };
    Kind kind = Kind::Choice;
    KnobRole role = KnobRole::Other;
    std::string name;        // "C.local i.c tile", "C unroll" (display text only)
    std::int64_t extent = 0; // Tile: the axis's extent
    int levels = 0;          // Tile: loops it is split into (the knob holds levels - 1 factors)
    bool vectorAxis = false; // Tile: its innermost level is vectorized
    // Tile: the most each level may hold, outermost first (0: no limit; empty: none at all), as
    // a GPU's threads and registers bound a tile's levels; drawing and mutating keep to them.
    std::vector<std::int64_t> levelLimits;
    std::vector<std::int64_t> values; // Choice: the values it may take
    int offset = 0;                   // its first entry in the knob vector
};

// What a rule made of one stage: the rule (its knobs and their realization are the rule's), the
// stage, and the indices of its knobs.
struct StagePlan {
    const SketchRule* rule = nullptr; // null: the stage is left as it is
    std::string stage;
    std::string partner; // tile: its host (empty: standalone); host: its guest
    int level = 0;       // tile in a host, host: the host holds tile levels 0 .. level-1
    // Knob indices into Sketch::knobs (-1: none). Tile: one per root axis (-1 for an axis of
    // extent 1 or a pinned one).
    std::vector<int> spatialTiles, reduceTiles;
    int unroll = -1, parallel = -1, vectorize = -1, location = -1;
    int factor = -1,
        mode = -1; // rfactor: the split's factor; factoring its inner (0) or outer part
    int tileRows = -1, tileCols = -1; // simple: the last two axes in tiles of this size (0: none)
    int structure = 0; // which of its rule's structures the plan is (the rule's own numbering)

    // The name of its rule ("tile", "inline", ...; "none" without one).
    std::string ruleName() const;
};

struct Sketch {
    std::string name;                // "C: tiled; C.local in C at level 2" ... (display text only)
    std::vector<NamedStep> prologue; // cache_write steps, before everything else
    std::vector<StagePlan> plans;    // consumers before producers: the order steps are made in
    std::vector<KnobSpec> knobs;
    int knobCount = 0;             // entries of a knob vector
    std::vector<StageFacts> facts; // of the schedule after the prologue

    // The facts of the stage of this name, or null.
    const StageFacts* factsOf(const std::string& stage) const;
    // A knob added: one value from `values`, or a tile of `levels` loops (the knob holds the
    // sizes of levels 1 .. levels-1, the outermost is what is left). Its index in `knobs`.
    int addChoice(const std::string& name, KnobRole role, std::vector<std::int64_t> values);
    int addTile(const std::string& name, std::int64_t extent, int levels, bool vectorAxis);
};

using Knobs = std::vector<std::int64_t>;

// The sketches for a variant (whose steps stay as they are). Empty with `why` set when the
// variant cannot be tuned (e.g. a size is symbolic).
std::vector<Sketch> generateSketches(const Variant& start, const SpaceOptions& options,
                                     std::string* why);

// A random value for every knob, biased towards what runs well (vector-width inner tiles,
// register-sized blocks) with a share of uniform draws.
Knobs sampleKnobs(const Sketch& sketch, const SpaceOptions& options, std::mt19937_64& rng);
// Deterministic values that run well without tuning (a task's default schedule, and the first
// candidate a tuning measures): each knob's role gives it a value (knobDefault), then each plan's
// rule sets those it knows better (SketchRule::initKnobs): whole vectors on the contiguous axis,
// a register tile of several rows on the axes outside it, the reduction in chunks of up to 16,
// the outer tiles parallel, producers at the root, moderate unrolling.
Knobs defaultKnobs(const Sketch& sketch, const SpaceOptions& options);
// The value a knob of this role takes by default, whatever its rule.
std::int64_t knobDefault(const KnobSpec& knob, const SpaceOptions& options);
// The sketch such a default uses: the one its plans' rules rank highest (SketchRule::defaultRank;
// the first of equals), never one a rule rules out (rfactor).
int defaultSketch(const std::vector<Sketch>& sketches);

// One knob changed: a factor of a tile moved between two levels, or a choice drawn again.
Knobs mutateKnobs(const Sketch& sketch, const Knobs& knobs, const SpaceOptions& options,
                  std::mt19937_64& rng);
// A child taking each stage's knobs from one parent or the other.
Knobs crossKnobs(const Sketch& sketch, const Knobs& a, const Knobs& b, std::mt19937_64& rng);

struct Realized {
    bool ok = false;
    std::string why;                     // when not ok
    std::vector<NamedStep> steps;        // the prologue, then every step made
    std::vector<std::string> statements; // when written: the steps as TVM statements
    Schedule schedule;                   // the start's schedule after the steps
};

// The sketch with these knob values as schedule steps, applied to the start's schedule.
Realized realize(const Variant& start, const Sketch& sketch, const Knobs& knobs,
                 const SpaceOptions& options, bool write);

// Replays recorded steps (from a tuning log) onto the start's schedule.
Realized replaySteps(const Variant& start, const std::vector<NamedStep>& steps, bool write);

// The divisors of n, ascending.
std::vector<std::int64_t> divisors(std::int64_t n);

} // namespace loopscope
