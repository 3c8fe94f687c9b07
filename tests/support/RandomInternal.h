// The random case generator's own declarations, shared by the files that implement it
// (RandomPrograms.cpp: the programs, matmul, conv, pooling, elementwise chains, reductions;
// RandomSchedule.cpp: the case builder that keeps a step only when the script still evaluates,
// and generateCase; RandomProposals.cpp: the steps it proposes, one primitive at a time). Private
// to tests/support.
#pragma once

#include "RandomSchedule.h"

#include "schedule/Primitives.h"
#include "schedule/Schedule.h"
#include "te/Program.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace loopscope::random_detail {

using V = std::vector<std::string>;

// splitmix64: small, fast and the same on every platform (std distributions are not). Made from
// bytes (a fuzzer's input), it draws from them first, so that the fuzzer steers every choice,
// and from splitmix64 seeded with their hash once they run out.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : m_state(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull)
    {
    }
    Rng(const std::uint8_t* data, std::size_t size) : m_bytes(data), m_left(size)
    {
        std::uint64_t h = 0xCBF29CE484222325ull; // FNV-1a
        for (std::size_t i = 0; i < size; ++i)
            h = (h ^ data[i]) * 0x100000001B3ull;
        m_state = h;
    }

    std::uint64_t next()
    {
        if (m_left > 0) {
            // Two bytes a draw: enough for every choice the generator makes, and a fuzzer's
            // one-byte change moves one choice.
            std::uint64_t v = m_bytes[0];
            if (m_left > 1) v |= std::uint64_t{m_bytes[1]} << 8;
            const std::size_t used = m_left > 1 ? 2 : 1;
            m_bytes += used, m_left -= used;
            return v | (v * 0x9E3779B97F4A7C15ull) << 16; // low bits v's, high bits spread
        }
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [lo, hi].
    std::int64_t range(std::int64_t lo, std::int64_t hi)
    {
        if (hi <= lo) return lo;
        return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
    }
    bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1p-53 < p; }
    template <typename T> const T& pick(const std::vector<T>& v)
    {
        return v[static_cast<std::size_t>(range(0, static_cast<std::int64_t>(v.size()) - 1))];
    }
    template <typename T> void shuffle(std::vector<T>& v)
    {
        for (std::size_t i = v.size(); i > 1; --i)
            std::swap(v[i - 1],
                      v[static_cast<std::size_t>(range(0, static_cast<std::int64_t>(i) - 1))]);
    }

private:
    std::uint64_t m_state = 0;
    const std::uint8_t* m_bytes = nullptr;
    std::size_t m_left = 0;
};

std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");
std::string num(std::int64_t v);

// ---- the program (RandomPrograms.cpp) ----

struct ElemType {
    std::string name = "float32";

    bool isInt() const { return name == "int32" || name == "int64"; }
    // float16 has 11 significant bits: an addition that nearly cancels leaves an error no fair
    // tolerance covers, so float16 programs only scale and map values.
    bool addsSafely() const { return name != "float16"; }
    std::string shifted(const std::string& x, int v) const
    {
        if (!addsSafely()) return x + " * 2";
        return v < 0 ? x + " - " + lit(-v) : x + " + " + lit(v);
    }
    std::string dtypeArg(Rng& rng) const
    {
        if (name == "float32" && !rng.chance(0.2)) return "";
        return ", dtype=\"" + name + "\"";
    }
    std::string lit(int v) const { return isInt() ? num(v) : num(v) + ".0"; }
    std::string konst(int v) const { return "tvm.tir.const(" + lit(v) + ", \"" + name + "\")"; }
};

// A TE program as script text: everything before te.create_schedule.
struct ProgramDraft {
    std::vector<std::string> lines;
    std::string symbols; // "# set: N=13" when a size is a te.var
    std::string output;
    std::string description;

    void add(const std::string& line) { lines.push_back(line); }
};

// A chain of 2-4 elementwise stages, some of which transpose, shift, reverse or subsample.
ProgramDraft elementwiseProgram(Rng& rng, const ElemType& t);

// Any program family, now and then with one size symbolic (te.var, its value on a `# set:` line).
ProgramDraft drawProgram(Rng& rng, const ElemType& t);

// ---- the schedule (RandomSchedule.cpp, RandomProposals.cpp) ----

struct AxisVar {
    std::string var;         // the script variable bound to the axis
    std::int64_t extent = 1; // nominal: what the split/fuse arithmetic says
    bool symbolic = false;   // the extent depends on a te.var
};

struct StageVars {
    std::string tensorVar; // the script variable of the stage's tensor (s[tensorVar])
    std::map<std::string, AxisVar> byAxisName;
    bool usable = true; // false when a leaf could not be given a name
};

// Thread axis objects every case's schedule makes first (tag -> variable), which binds of
// several stages may share.
inline const std::map<std::string, std::string> kSharedThreadAxes = {{"blockIdx.x", "bx_shared"},
                                                                     {"threadIdx.x", "tx_shared"}};

struct Leaf {
    std::string var;
    bool reduce = false;
    std::int64_t extent = 1;
    ForKind kind = ForKind::Serial;
    bool attachPoint = false; // another stage is computed at this loop
    bool symbolic = false;
};

struct Proposal {
    std::string text;
    std::string primitive;
    std::string stage; // receives newAxes, in leaf order
    std::vector<AxisVar> newAxes;
    std::string newStage; // the stage a cache_read/cache_write/rfactor creates
    std::string newTensorVar;
    std::string attachTo; // for the new stage: the consumer to compute it at later
};

// Every character other than a letter or digit becomes '_'.
std::string identifier(const std::string& s);

// Builds a schedule one step at a time on a program: proposes a step, keeps it when the script
// still evaluates, and binds a script variable to every new loop.
class CaseBuilder {
public:
    CaseBuilder(Rng& rng, const ProgramDraft& draft);

    std::string script() const;
    const std::vector<std::string>& primitives() const { return m_primitives; }

    void build(int targetSteps);

private:
    const Schedule& schedule() const { return m_eval.program.variants.back().schedule(); }
    const Stage* stageNamed(const std::string& name) const;
    std::string freshVar(const std::string& base);
    std::string axisVarName(const std::string& tensorVar, const std::string& axisName);
    void bindNewLeaves(const Proposal& p);
    bool tryApply(const Proposal& p);

    // ---- proposals (RandomProposals.cpp) ----

    std::vector<Leaf> leaves(const Stage& st) const;
    const std::string& tensorVar(const std::string& stage) const;
    std::vector<const Stage*> schedulable(bool includeInlined = false) const;
    std::vector<Leaf> reshapeable(std::vector<Leaf> ls);
    bool hasAttachedStages(const Stage& st) const;
    std::int64_t pickFactor(std::int64_t extent);
    std::optional<Proposal> proposeSplit(const Stage& st);
    std::optional<Proposal> proposeTile(const Stage& st);
    std::optional<Proposal> proposeFuse(const Stage& st);
    std::optional<Proposal> proposeReorder(const Stage& st);
    std::optional<Proposal> proposeAnnotation(const Stage& st, const std::string& what);
    std::vector<const Stage*> consumers(const Stage& st) const;
    std::optional<Proposal> proposeComputeAt(const std::string& producer,
                                             const std::string& consumer);
    std::optional<Proposal> proposeAttachment(const std::string& what);
    std::optional<Proposal> proposeCacheWrite();
    std::optional<Proposal> proposeCacheRead();
    std::optional<Proposal> proposeRfactor();
    std::optional<Proposal> proposeStorageAlign();
    std::optional<Proposal> proposeDoubleBuffer();
    std::optional<Proposal> proposeBind(const Stage& st);
    // Whether a loop of any stage is of this kind (parallel, bound to a thread).
    bool anyLoopOfKind(ForKind kind) const;
    std::optional<Proposal> propose();

    Rng& m_rng;
    std::string m_prefix;
    std::vector<std::string> m_lines;
    std::vector<std::string> m_primitives;
    EvalResult m_eval;
    std::map<std::string, StageVars> m_vars; // by stage name
    std::set<std::string> m_usedVars;
    std::vector<std::pair<std::string, std::string>> m_pendingAttach; // (new stage, consumer)
};

} // namespace loopscope::random_detail
