// The steps the case builder proposes: one primitive of the catalogue at a time, drawn by weight,
// on stages and loops where it is usually legal (and now and then where it is not, for the
// evaluator to refuse).
#include "RandomInternal.h"

#include <algorithm>
#include <stdexcept>

namespace loopscope::random_detail {

namespace {

// A statement as the primitive catalogue prints it, on the schedule `s`.
std::string statement(const std::string& primitive, const std::string& stageVar,
                      const std::vector<PrintedArg>& args,
                      const std::vector<std::string>& results = {})
{
    const PrimitiveSpec* p = findPrimitive(primitive);
    if (!p) throw std::logic_error("no primitive " + primitive + " in the catalogue");
    return printStatement(*p, "s", stageVar, args, results);
}

// How often each primitive of the catalogue is drawn. A primitive the catalogue gains must be
// given a weight here (or a reason to leave it out), else no case can be generated.
const std::vector<std::pair<std::string, int>>& primitiveWeights()
{
    static const std::vector<std::pair<std::string, int>> weights = [] {
        const std::map<std::string, int> weight = {
            {"split", 18},       {"tile", 6},           {"fuse", 8},          {"reorder", 10},
            {"vectorize", 10},   {"unroll", 7},         {"parallel", 7},      {"pragma", 1},
            {"compute_at", 12},  {"compute_inline", 8}, {"compute_root", 2},  {"cache_write", 6},
            {"cache_read", 5},   {"rfactor", 7},        {"storage_align", 3}, {"bind", 4},
            {"double_buffer", 3}};
        // A store predicate is an expression of threads the generator does not draw; tensorize
        // needs an intrinsic whose computation matches the stage's, which random programs have
        // no declaration of (tests/core/codegen/TensorizeTest.cpp covers it).
        const std::set<std::string> leftOut = {"set_store_predicate", "tensorize"};
        std::vector<std::pair<std::string, int>> out;
        for (const PrimitiveSpec& p : primitiveCatalogue()) {
            if (leftOut.count(p.name)) continue;
            auto w = weight.find(p.name);
            if (w == weight.end())
                throw std::logic_error("the random schedule generator has no weight for the "
                                       "primitive " +
                                       p.name);
            out.emplace_back(p.name, w->second);
        }
        return out;
    }();
    return weights;
}

} // namespace

std::vector<Leaf> CaseBuilder::leaves(const Stage& st) const
{
    std::vector<Leaf> out;
    auto it = m_vars.find(st.name());
    if (it == m_vars.end() || !it->second.usable) return out;
    for (auto& iv : st.leafIterVars) {
        auto a = it->second.byAxisName.find(iv->name());
        if (a == it->second.byAxisName.end()) return {};
        const IterVarAttr* attr = st.attr(iv);
        bool attachPoint = false;
        for (auto& other : schedule().stages()) {
            attachPoint |= other.attach == AttachType::Scope && other.attachOp == st.op &&
                           other.attachIvar == iv;
        }
        out.push_back({a->second.var, iv->kind == IterKind::Reduce, a->second.extent,
                       attr ? attr->kind : ForKind::Serial, attachPoint, a->second.symbolic});
    }
    return out;
}

const std::string& CaseBuilder::tensorVar(const std::string& stage) const
{
    return m_vars.at(stage).tensorVar;
}

// Stages with loops that a step can name.
std::vector<const Stage*> CaseBuilder::schedulable(bool includeInlined) const
{
    std::vector<const Stage*> out;
    for (auto& st : schedule().stages()) {
        if (st.isPlaceholder() || (!includeInlined && st.attach == AttachType::Inline)) continue;
        if (leaves(st).empty()) continue;
        out.push_back(&st);
    }
    return out;
}

// Leaves a split or fuse may replace: not a loop another stage is computed at (the attachment
// would dangle and lowering refuses it, as TVM does), except now and then to exercise that.
std::vector<Leaf> CaseBuilder::reshapeable(std::vector<Leaf> ls)
{
    if (m_rng.chance(0.03)) return ls;
    ls.erase(std::remove_if(ls.begin(), ls.end(), [](const Leaf& l) { return l.attachPoint; }),
             ls.end());
    return ls;
}

// Whether a stage is computed inside `st`'s loops.
bool CaseBuilder::hasAttachedStages(const Stage& st) const
{
    for (auto& other : schedule().stages())
        if (other.attach == AttachType::Scope && other.attachOp == st.op) return true;
    return false;
}

std::int64_t CaseBuilder::pickFactor(std::int64_t extent)
{
    std::vector<std::int64_t> nonDivisors;
    for (std::int64_t f = 2; f < extent; ++f)
        if (extent % f) nonDivisors.push_back(f);
    int roll = static_cast<int>(m_rng.range(0, 99));
    if (roll < 45 && !nonDivisors.empty()) return m_rng.pick(nonDivisors);
    if (roll < 75 && extent >= 2) return m_rng.range(2, std::min<std::int64_t>(extent, 16));
    if (roll < 85) return extent + m_rng.range(1, 3);
    if (roll < 90) return 1;
    return m_rng.pick(std::vector<std::int64_t>{2, 3, 4, 5, 7, 8, 16});
}

std::optional<Proposal> CaseBuilder::proposeSplit(const Stage& st)
{
    auto ls = reshapeable(leaves(st));
    if (ls.empty()) return std::nullopt;
    std::vector<Leaf> big;
    for (auto& l : ls)
        if (l.extent >= 2) big.push_back(l);
    const Leaf& l = !big.empty() && !m_rng.chance(0.05) ? m_rng.pick(big) : m_rng.pick(ls);
    Proposal p{"", "split", st.name(), {}, "", "", ""};
    std::string o = freshVar(l.var + "o"), i = freshVar(l.var + "i");
    if (m_rng.chance(0.2)) {
        std::int64_t n = m_rng.range(1, l.extent + 2);
        p.text = statement("split", tensorVar(st.name()), {V{l.var}, {}, V{num(n)}}, {o, i});
        p.newAxes = {{o, n, false}, {i, (l.extent + n - 1) / n, l.symbolic}};
        p.primitive = "split(nparts)";
    } else {
        std::int64_t f = pickFactor(l.extent);
        p.text = statement("split", tensorVar(st.name()), {V{l.var}, V{num(f)}}, {o, i});
        p.newAxes = {{o, (l.extent + f - 1) / f, l.symbolic}, {i, f, false}};
        if (l.extent % f) p.primitive = "split(non-divisible)";
    }
    return p;
}

std::optional<Proposal> CaseBuilder::proposeTile(const Stage& st)
{
    auto ls = reshapeable(leaves(st));
    std::vector<std::size_t> data;
    for (std::size_t i = 0; i < ls.size(); ++i)
        if (!ls[i].reduce) data.push_back(i);
    if (data.size() < 2) return std::nullopt;
    std::size_t a =
        static_cast<std::size_t>(m_rng.range(0, static_cast<std::int64_t>(data.size()) - 2));
    std::size_t b =
        m_rng.chance(0.8)
            ? a + 1
            : static_cast<std::size_t>(m_rng.range(static_cast<std::int64_t>(a) + 1,
                                                   static_cast<std::int64_t>(data.size()) - 1));
    const Leaf& x = ls[data[a]];
    const Leaf& y = ls[data[b]];
    std::int64_t fx = pickFactor(x.extent), fy = pickFactor(y.extent);
    std::string xo = freshVar(x.var + "o"), yo = freshVar(y.var + "o");
    std::string xi = freshVar(x.var + "i"), yi = freshVar(y.var + "i");
    Proposal p{"", "tile", st.name(), {}, "", "", ""};
    // Now and then the factors positionally, as scripts also write them.
    p.text = m_rng.chance(0.5)
                 ? statement("tile", tensorVar(st.name()),
                             {V{x.var}, V{y.var}, V{num(fx)}, V{num(fy)}}, {xo, yo, xi, yi})
                 : join({xo, yo, xi, yi}) + " = s[" + tensorVar(st.name()) + "].tile(" + x.var +
                       ", " + y.var + ", " + num(fx) + ", " + num(fy) + ")";
    p.newAxes = {{xo, (x.extent + fx - 1) / fx, x.symbolic},
                 {yo, (y.extent + fy - 1) / fy, y.symbolic},
                 {xi, fx, false},
                 {yi, fy, false}};
    return p;
}

std::optional<Proposal> CaseBuilder::proposeFuse(const Stage& st)
{
    auto ls = reshapeable(leaves(st));
    if (ls.size() < 2) return std::nullopt;
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i + 1 < ls.size(); ++i)
        if (ls[i].reduce == ls[i + 1].reduce) starts.push_back(i);
    std::vector<Leaf> chosen;
    if (starts.empty() || m_rng.chance(0.05)) {
        // Occasionally an illegal pair: the evaluator must refuse it.
        std::vector<Leaf> shuffled = ls;
        m_rng.shuffle(shuffled);
        chosen = {shuffled[0], shuffled[1]};
    } else {
        std::size_t s = m_rng.pick(starts);
        chosen = {ls[s], ls[s + 1]};
        if (s + 2 < ls.size() && ls[s + 2].reduce == ls[s].reduce && m_rng.chance(0.25))
            chosen.push_back(ls[s + 2]);
        else if (m_rng.chance(0.15))
            std::swap(chosen[0], chosen[1]); // TVM accepts fuse(inner, outer)
    }
    std::int64_t extent = 1;
    bool symbolic = false;
    std::vector<std::string> names;
    for (auto& c : chosen)
        extent *= c.extent, symbolic |= c.symbolic, names.push_back(c.var);
    std::string f = freshVar(chosen[0].var + "f");
    Proposal p{statement("fuse", tensorVar(st.name()), {names}, {f}),
               "fuse",
               st.name(),
               {{f, extent, symbolic}},
               "",
               "",
               ""};
    return p;
}

std::optional<Proposal> CaseBuilder::proposeReorder(const Stage& st)
{
    auto ls = leaves(st);
    if (ls.size() < 2) return std::nullopt;
    std::vector<Leaf> pickFrom = ls;
    m_rng.shuffle(pickFrom);
    std::size_t n = static_cast<std::size_t>(m_rng.range(2, static_cast<std::int64_t>(ls.size())));
    pickFrom.resize(n);
    std::vector<std::string> names;
    for (auto& l : pickFrom)
        names.push_back(l.var);
    bool reduceMoved =
        std::any_of(pickFrom.begin(), pickFrom.end(), [](const Leaf& l) { return l.reduce; });
    return Proposal{statement("reorder", tensorVar(st.name()), {names}),
                    reduceMoved ? "reorder(with reduction)" : "reorder",
                    st.name(),
                    {},
                    "",
                    "",
                    ""};
}

bool CaseBuilder::anyLoopOfKind(ForKind kind) const
{
    for (const Stage& other : schedule().stages())
        for (const auto& [iv, attr] : other.attrs)
            if (attr.kind == kind) return true;
    return false;
}

std::optional<Proposal> CaseBuilder::proposeAnnotation(const Stage& st, const std::string& what)
{
    if (what == "parallel" && anyLoopOfKind(ForKind::ThreadBinding)) return std::nullopt;
    auto ls = leaves(st);
    if ((what == "vectorize" || what == "unroll") && !m_rng.chance(0.05)) {
        // A loop of symbolic extent cannot be vectorized or unrolled (lowering says so).
        ls.erase(std::remove_if(ls.begin(), ls.end(), [](const Leaf& l) { return l.symbolic; }),
                 ls.end());
        if (ls.empty()) return std::nullopt;
    }
    std::vector<Leaf> options;
    if (what == "vectorize") {
        if (!ls.back().reduce && ls.back().extent <= 64 && m_rng.chance(0.8))
            options = {ls.back()};
        else
            for (auto& l : ls)
                if ((!l.reduce || m_rng.chance(0.05)) && l.extent <= 64) options.push_back(l);
    } else if (what == "unroll") {
        for (auto& l : ls)
            if (l.extent <= 16) options.push_back(l);
    } else if (what == "parallel") {
        if (!ls.front().reduce && m_rng.chance(0.6))
            options = {ls.front()};
        else
            for (auto& l : ls)
                if (!l.reduce || m_rng.chance(0.05)) options.push_back(l);
    } else { // pragma
        options = ls;
    }
    if (options.empty()) return std::nullopt;
    const Leaf& l = m_rng.pick(options);
    std::vector<PrintedArg> args = {V{l.var}};
    std::string primitive = what;
    if (what == "pragma") {
        // The CPU pragmas: unroll and vectorize are the primitives of the same name.
        std::string key;
        PrintedArg value;
        switch (m_rng.range(0, 3)) {
        case 0:
            key = "auto_unroll_max_step";
            value = V{num(m_rng.pick(std::vector<std::int64_t>{0, 4, 16, 64}))};
            break;
        case 1:
            key = "unroll_explicit";
            value = V{num(m_rng.range(0, 1))};
            break;
        case 2: key = "unroll"; break;
        default: key = "vectorize"; break;
        }
        args = {V{l.var}, V{key}, value};
        primitive = "pragma " + key;
    }
    return Proposal{
        statement(what, tensorVar(st.name()), args), primitive, st.name(), {}, "", "", ""};
}

// A loop bound to a GPU thread: the case's kernels then run on the CPU as a GPU would run them
// (blocks in turn, a block's threads in turn between barriers), against the same reference. A
// reduction loop only to threadIdx.x (a reduction across threads), and not too many threads.
std::optional<Proposal> CaseBuilder::proposeBind(const Stage& st)
{
    // A kernel inside a host loop run in parallel is refused (TVM cannot place its storage).
    if (anyLoopOfKind(ForKind::Parallel)) return std::nullopt;
    std::vector<Leaf> options;
    for (const Leaf& l : leaves(st))
        if (l.kind == ForKind::Serial && !l.symbolic && l.extent <= 64) options.push_back(l);
    if (options.empty()) return std::nullopt;
    const Leaf& l = m_rng.pick(options);
    const std::string tag =
        l.reduce ? std::string("threadIdx.x")
                 : m_rng.pick(std::vector<std::string>{"blockIdx.x", "blockIdx.y", "threadIdx.x",
                                                       "threadIdx.y", "vthread"});
    // Half the time, a thread axis object the prefix made and other stages may bind too (TVM
    // launches it as one variable in each).
    const auto shared = kSharedThreadAxes.find(tag);
    std::string text = statement("bind", tensorVar(st.name()), {V{l.var}, V{tag}});
    if (shared != kSharedThreadAxes.end() && m_rng.chance(0.5))
        text = "s[" + tensorVar(st.name()) + "].bind(" + l.var + ", " + shared->second + ")";
    return Proposal{text, "bind", st.name(), {}, "", "", ""};
}

// The stages that read `st`, directly or through inlined stages.
std::vector<const Stage*> CaseBuilder::consumers(const Stage& st) const
{
    std::vector<const Stage*> out;
    std::vector<const Stage*> work{&st};
    std::set<const Stage*> seen;
    while (!work.empty()) {
        const Stage* cur = work.back();
        work.pop_back();
        for (int idx : schedule().readers(cur->op)) {
            const Stage* r = &schedule().stages()[static_cast<std::size_t>(idx)];
            if (!seen.insert(r).second) continue;
            if (r->attach == AttachType::Inline)
                work.push_back(r);
            else
                out.push_back(r);
        }
    }
    return out;
}

std::optional<Proposal> CaseBuilder::proposeComputeAt(const std::string& producer,
                                                      const std::string& consumer)
{
    const Stage* p = stageNamed(producer);
    const Stage* c = stageNamed(consumer);
    if (!p || !c) return std::nullopt;
    auto ls = leaves(*c);
    if (ls.empty() || m_vars.at(producer).tensorVar.empty()) return std::nullopt;
    const Leaf& axis = m_rng.pick(ls);
    return Proposal{
        statement("compute_at", tensorVar(producer), {V{tensorVar(consumer)}, V{axis.var}}),
        "compute_at",
        producer,
        {},
        "",
        "",
        ""};
}

std::optional<Proposal> CaseBuilder::proposeAttachment(const std::string& what)
{
    std::vector<const Stage*> producers;
    for (auto& st : schedule().stages()) {
        if (st.isPlaceholder() || st.isOutput || st.attach == AttachType::Inline) continue;
        if (!m_vars.count(st.name())) continue;
        if (what == "compute_root" && st.attach != AttachType::Scope) continue;
        if (what == "compute_inline" && st.op->isReduction() && !m_rng.chance(0.05)) continue;
        // Inlining a stage that has producers computed in its loops leaves them nowhere.
        if (what == "compute_inline" && hasAttachedStages(st) && !m_rng.chance(0.05)) continue;
        producers.push_back(&st);
    }
    if (producers.empty()) return std::nullopt;
    const Stage* p = m_rng.pick(producers);
    if (what == "compute_at") {
        auto cs = consumers(*p);
        if (cs.empty()) return std::nullopt;
        // With several consumers, the others would read it outside the loop it is computed
        // in, which lowering refuses (the evaluator only checks the one named).
        if (cs.size() > 1 && !m_rng.chance(0.1)) return std::nullopt;
        return proposeComputeAt(p->name(), m_rng.pick(cs)->name());
    }
    return Proposal{statement(what, tensorVar(p->name()), {}), what, p->name(), {}, "", "", ""};
}

std::optional<Proposal> CaseBuilder::proposeCacheWrite()
{
    std::vector<const Stage*> options;
    for (auto& st : schedule().stages()) {
        if (st.isPlaceholder() || st.attach == AttachType::Inline || !m_vars.count(st.name()))
            continue;
        bool untouched = st.relations.empty() && st.attrs.empty() && st.attach == AttachType::Root;
        // A cache of a stage that has producers computed inside it moves their reader out of
        // the loops they are computed in: lowering refuses that.
        if (hasAttachedStages(st) && !m_rng.chance(0.05)) continue;
        if (untouched || m_rng.chance(0.05)) options.push_back(&st);
    }
    if (options.empty()) return std::nullopt;
    const Stage* st = m_rng.pick(options);
    std::string scope = m_rng.chance(0.6) ? "local" : "global";
    std::string newStage = st->name() + "." + scope;
    if (stageNamed(newStage)) return std::nullopt;
    std::string var = freshVar(identifier(newStage));
    m_usedVars.erase(var);
    return Proposal{statement("cache_write", "", {V{tensorVar(st->name())}, V{scope}}, {var}),
                    "cache_write(" + scope + ")",
                    st->name(),
                    {},
                    newStage,
                    var,
                    m_rng.chance(0.8) ? st->name() : ""};
}

std::optional<Proposal> CaseBuilder::proposeCacheRead()
{
    std::vector<std::pair<const Stage*, const Stage*>> options; // (read tensor, reader)
    for (auto& st : schedule().stages()) {
        if (st.attach == AttachType::Inline || !m_vars.count(st.name())) continue;
        // The cache would read a stage computed inside its consumer from outside that loop.
        if (st.attach == AttachType::Scope && !m_rng.chance(0.05)) continue;
        for (int idx : schedule().readers(st.op)) {
            const Stage* r = &schedule().stages()[static_cast<std::size_t>(idx)];
            if (m_vars.count(r->name())) options.emplace_back(&st, r);
        }
    }
    if (options.empty()) return std::nullopt;
    auto [src, reader] = m_rng.pick(options);
    std::string scope = m_rng.pick(std::vector<std::string>{"shared", "local", "global"});
    std::string newStage = src->name() + "." + scope;
    if (stageNamed(newStage)) return std::nullopt;
    std::string var = freshVar(identifier(newStage));
    m_usedVars.erase(var);
    // Now and then one reader without the list, as scripts also write it.
    std::string text =
        statement("cache_read", "",
                  {V{tensorVar(src->name())}, V{scope}, V{tensorVar(reader->name())}}, {var});
    if (m_rng.chance(0.5)) text = text.substr(0, text.rfind('[')) + tensorVar(reader->name()) + ")";
    return Proposal{text,
                    "cache_read(" + scope + ")",
                    src->name(),
                    {},
                    newStage,
                    var,
                    m_rng.chance(0.7) ? reader->name() : ""};
}

std::optional<Proposal> CaseBuilder::proposeRfactor()
{
    std::vector<std::pair<const Stage*, Leaf>> options;
    for (auto& st : schedule().stages()) {
        if (st.isPlaceholder() || !st.op->isReduction() || st.attach != AttachType::Root) continue;
        if (stageNamed(st.name() + ".rf")) continue;
        // rfactor rebuilds the stage's loops: stages computed at them would dangle.
        if (hasAttachedStages(st) && !m_rng.chance(0.05)) continue;
        for (auto& l : leaves(st))
            if (l.reduce) options.emplace_back(&st, l);
    }
    if (options.empty()) return std::nullopt;
    auto [st, axis] = m_rng.pick(options);
    std::string newStage = st->name() + ".rf";
    std::string var = freshVar(identifier(newStage));
    m_usedVars.erase(var);
    PrintedArg factorAxis;
    if (m_rng.chance(0.3)) factorAxis = V{num(m_rng.range(0, st->op->ndim()))};
    return Proposal{
        statement("rfactor", "", {V{tensorVar(st->name())}, V{axis.var}, factorAxis}, {var}),
        "rfactor",
        st->name(),
        {},
        newStage,
        var,
        m_rng.chance(0.5) ? st->name() : ""};
}

// Pads the rows of an intermediate buffer: storage_align(axis, factor, offset) makes the stride
// of `axis` a multiple of factor plus offset (outputs keep their layout: they are arguments).
// Two buffers for a stage that is not an output (it only has an effect when the stage ends up
// computed inside a loop: the next iteration's values are fetched while this one's are used).
std::optional<Proposal> CaseBuilder::proposeDoubleBuffer()
{
    std::vector<const Stage*> options;
    for (auto& st : schedule().stages()) {
        if (st.isPlaceholder() || st.isOutput || st.attach == AttachType::Inline || st.doubleBuffer)
            continue;
        auto it = m_vars.find(st.name());
        if (it != m_vars.end() && it->second.usable) options.push_back(&st);
    }
    if (options.empty()) return std::nullopt;
    const Stage* st = m_rng.pick(options);
    return Proposal{statement("double_buffer", tensorVar(st->name()), {}),
                    "double_buffer",
                    st->name(),
                    {},
                    "",
                    "",
                    ""};
}

std::optional<Proposal> CaseBuilder::proposeStorageAlign()
{
    std::vector<std::pair<const Stage*, std::string>> options;
    for (auto& st : schedule().stages()) {
        if (st.isPlaceholder() || st.attach == AttachType::Inline || st.op->axes.size() < 2)
            continue;
        if (st.isOutput && !m_rng.chance(0.2)) continue;
        auto it = m_vars.find(st.name());
        if (it == m_vars.end() || !it->second.usable) continue;
        // The axis must be a root axis that is still a loop, and not the innermost dimension.
        for (std::size_t d = 0; d + 1 < st.op->axes.size(); ++d) {
            const IterVar& axis = st.op->axes[d];
            auto a = it->second.byAxisName.find(axis->name());
            if (st.leafIndex(axis) >= 0 && a != it->second.byAxisName.end())
                options.emplace_back(&st, a->second.var);
        }
    }
    if (options.empty()) return std::nullopt;
    auto [st, var] = m_rng.pick(options);
    std::int64_t factor = m_rng.pick(std::vector<std::int64_t>{2, 4, 8, 16, 32});
    std::int64_t offset = m_rng.range(0, factor - 1);
    return Proposal{
        statement("storage_align", tensorVar(st->name()), {V{var}, V{num(factor)}, V{num(offset)}}),
        "storage_align",
        st->name(),
        {},
        "",
        "",
        ""};
}

std::optional<Proposal> CaseBuilder::propose()
{
    if (!m_pendingAttach.empty() && m_rng.chance(0.5)) {
        auto [producer, consumer] = m_rng.pick(m_pendingAttach);
        const Stage* c = stageNamed(consumer);
        const Stage* p = stageNamed(producer);
        // A later cache_write may have moved the reads to another stage.
        bool reads = false;
        if (p && c)
            for (const Stage* r : consumers(*p))
                reads |= r == c;
        // Usually after a few loop steps on the consumer: then there is a loop to attach to.
        if (reads && m_rng.chance(0.6)) return proposeComputeAt(producer, consumer);
    }
    const std::vector<std::pair<std::string, int>>& choices = primitiveWeights();
    int total = 0;
    for (auto& c : choices)
        total += c.second;
    int roll = static_cast<int>(m_rng.range(0, total - 1));
    std::string what;
    for (auto& c : choices) {
        if (roll < c.second) {
            what = c.first;
            break;
        }
        roll -= c.second;
    }
    if (what == "compute_at" || what == "compute_inline" || what == "compute_root")
        return proposeAttachment(what);
    if (what == "cache_write") return proposeCacheWrite();
    if (what == "cache_read") return proposeCacheRead();
    if (what == "rfactor") return proposeRfactor();
    if (what == "storage_align") return proposeStorageAlign();
    if (what == "double_buffer") return proposeDoubleBuffer();
    auto stages = schedulable();
    if (stages.empty()) return std::nullopt;
    const Stage& st = *m_rng.pick(stages);
    if (what == "split") return proposeSplit(st);
    if (what == "tile") return proposeTile(st);
    if (what == "fuse") return proposeFuse(st);
    if (what == "reorder") return proposeReorder(st);
    if (what == "bind") return proposeBind(st);
    return proposeAnnotation(st, what);
}

} // namespace loopscope::random_detail
