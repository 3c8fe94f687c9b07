// Random legal schedules: the case builder applies proposed steps one at a time, keeps a step only
// when the script still evaluates, and names every new loop; generateCase draws a program and
// builds its schedule. The steps are proposed in RandomProposals.cpp.
#include "RandomInternal.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace loopscope {

namespace random_detail {

std::string identifier(const std::string& s)
{
    std::string out;
    for (char c : s)
        out += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return out;
}

namespace {

std::string lower(std::string s)
{
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

CaseBuilder::CaseBuilder(Rng& rng, const ProgramDraft& draft) : m_rng(rng)
{
    m_prefix = draft.symbols.empty() ? "" : draft.symbols + "\n";
    m_prefix += "import tvm\nfrom tvm import te\n\n";
    for (auto& l : draft.lines)
        m_prefix += l + "\n";
    m_prefix += "\n# variant: fuzz\ns = te.create_schedule(" + draft.output + ".op)\n";
    for (auto& [tag, var] : kSharedThreadAxes)
        m_prefix += var + " = te.thread_axis(\"" + tag + "\")\n";
    EvalResult r = evaluateScript(m_prefix);
    if (!r.ok) {
        throw std::logic_error("generated program does not evaluate (line " +
                               num(r.error.loc.line) + ": " + r.error.message + "):\n" + m_prefix);
    }
    m_eval = std::move(r);
    for (auto& st : schedule().stages()) {
        m_vars[st.name()].tensorVar = st.name();
    }
    bindNewLeaves({});
    EvalResult check = evaluateScript(script());
    if (!check.ok) {
        throw std::logic_error("axis bindings do not evaluate (line " + num(check.error.loc.line) +
                               ": " + check.error.message + "):\n" + script());
    }
    m_eval = std::move(check);
}

std::string CaseBuilder::script() const
{
    std::string s = m_prefix;
    for (auto& l : m_lines)
        s += l + "\n";
    return s;
}

void CaseBuilder::build(int targetSteps)
{
    int attempts = targetSteps * 10;
    for (int a = 0; a < attempts && static_cast<int>(m_primitives.size()) < targetSteps; ++a) {
        std::optional<Proposal> p = propose();
        if (p) tryApply(*p);
    }
}

const Stage* CaseBuilder::stageNamed(const std::string& name) const
{
    for (auto& st : schedule().stages())
        if (st.name() == name) return &st;
    return nullptr;
}

std::string CaseBuilder::freshVar(const std::string& base)
{
    std::string v = identifier(base);
    if (v.empty() || std::isdigit(static_cast<unsigned char>(v[0]))) v = "v" + v;
    std::string out = v;
    for (int n = 2; m_usedVars.count(out); ++n)
        out = v + num(n);
    m_usedVars.insert(out);
    return out;
}

std::string CaseBuilder::axisVarName(const std::string& tensorVar, const std::string& axisName)
{
    std::string a = axisName;
    auto replaceAll = [&](const std::string& from, const std::string& to) {
        for (std::size_t p; (p = a.find(from)) != std::string::npos;)
            a.replace(p, from.size(), to);
    };
    replaceAll(".outer", "o");
    replaceAll(".inner", "i");
    replaceAll(".fused", "f");
    replaceAll(".", "_");
    return lower(identifier(tensorVar)) + "_" + a;
}

// Gives every leaf without a script variable one: the axes a step returned (in leaf order),
// else a binding to the stage's root axes (new stages, stages rebuilt by cache_write/rfactor).
void CaseBuilder::bindNewLeaves(const Proposal& p)
{
    std::vector<AxisVar> pending = p.newAxes;
    std::size_t next = 0;
    std::vector<std::string> bindings;
    for (auto& st : schedule().stages()) {
        if (st.isPlaceholder()) {
            if (!m_vars.count(st.name())) m_vars[st.name()].tensorVar = st.name();
            continue;
        }
        StageVars& sv = m_vars[st.name()];
        if (sv.tensorVar.empty()) sv.tensorVar = identifier(st.name());
        std::vector<const IterVar*> unknown;
        for (auto& iv : st.leafIterVars)
            if (!sv.byAxisName.count(iv->name())) unknown.push_back(&iv);
        if (st.name() == p.stage) {
            for (auto* iv : unknown) {
                if (next >= pending.size()) break;
                sv.byAxisName[(*iv)->name()] = pending[next++];
            }
            unknown.erase(unknown.begin(),
                          unknown.begin() + static_cast<long>(std::min(unknown.size(), next)));
        }
        if (unknown.empty()) continue;
        // Only root axes can be bound through op.axis / op.reduce_axis.
        for (auto* iv : unknown) {
            auto isRoot = [&](const std::vector<IterVar>& roots) {
                return std::find(roots.begin(), roots.end(), *iv) != roots.end();
            };
            if (!isRoot(st.op->axes) && !isRoot(st.op->reduceAxes)) sv.usable = false;
        }
        if (!sv.usable) continue;
        auto isUnknown = [&](const IterVar& r) {
            return std::any_of(unknown.begin(), unknown.end(),
                               [&](const IterVar* u) { return *u == r; });
        };
        for (int reduce = 0; reduce < 2; ++reduce) {
            const auto& roots = reduce ? st.op->reduceAxes : st.op->axes;
            std::vector<std::string> names;
            bool all = !roots.empty() && std::all_of(roots.begin(), roots.end(), isUnknown);
            std::string access = "s[" + sv.tensorVar + "].op." + (reduce ? "reduce_axis" : "axis");
            for (std::size_t d = 0; d < roots.size(); ++d) {
                const IterVar& r = roots[d];
                if (!isUnknown(r)) continue;
                // Symbolic extents (te.var) get a typical value: extents only guide choices.
                std::int64_t extent = 16;
                bool symbolic = !r->dom.extent.defined() || !isConstInt(r->dom.extent, &extent);
                std::string var = freshVar(axisVarName(sv.tensorVar, r->name()));
                sv.byAxisName[r->name()] = {var, extent, symbolic};
                names.push_back(var);
                if (!all)
                    bindings.push_back(var + " = " + access + "[" + num(static_cast<int>(d)) + "]");
            }
            if (all && names.size() == 1)
                bindings.push_back("(" + names[0] + ",) = " + access);
            else if (all)
                bindings.push_back(join(names) + " = " + access);
        }
    }
    for (auto& b : bindings)
        m_lines.push_back(b);
}

bool CaseBuilder::tryApply(const Proposal& p)
{
    std::string text = script() + p.text + "\n";
    EvalResult r = evaluateScript(text);
    if (!r.ok) return false;
    m_eval = std::move(r);
    m_lines.push_back(p.text);
    m_primitives.push_back(p.primitive);
    if (!p.newStage.empty()) {
        m_vars[p.newStage].tensorVar = p.newTensorVar;
        m_usedVars.insert(p.newTensorVar);
        if (!p.attachTo.empty()) m_pendingAttach.emplace_back(p.newStage, p.attachTo);
    }
    if (p.primitive == "compute_at") {
        m_pendingAttach.erase(std::remove_if(m_pendingAttach.begin(), m_pendingAttach.end(),
                                             [&](auto& pa) { return pa.first == p.stage; }),
                              m_pendingAttach.end());
    }
    std::size_t before = m_lines.size();
    bindNewLeaves(p);
    if (m_lines.size() != before) {
        EvalResult check = evaluateScript(script());
        if (!check.ok) {
            throw std::logic_error("axis bindings do not evaluate (line " +
                                   num(check.error.loc.line) + ": " + check.error.message + "):\n" +
                                   script());
        }
        m_eval = std::move(check);
    }
    return true;
}

} // namespace random_detail

namespace {

FuzzCase generate(random_detail::Rng& rng, const std::string& label)
{
    using namespace random_detail;
    ElemType t;
    int roll = static_cast<int>(rng.range(0, 99));
    t.name = roll < 64   ? "float32"
             : roll < 79 ? "float64"
             : roll < 92 ? "int32"
             : roll < 96 ? "int64"
                         : "float16";
    // float16 only in elementwise chains: a float16 reduction drifts beyond any fair tolerance.
    ProgramDraft draft = t.name == "float16" ? elementwiseProgram(rng, t) : drawProgram(rng, t);
    CaseBuilder builder(rng, draft);
    builder.build(static_cast<int>(rng.range(3, 10)));
    FuzzCase c;
    c.script = builder.script();
    c.description =
        label + ": " + draft.description + " " + t.name + "; steps: " + join(builder.primitives());
    return c;
}

} // namespace

FuzzCase generateCase(std::uint64_t seed)
{
    random_detail::Rng rng(seed);
    return generate(rng, "seed " + std::to_string(seed));
}

FuzzCase generateCase(const std::uint8_t* data, std::size_t size)
{
    random_detail::Rng rng(data, size);
    return generate(rng, "fuzzer input of " + std::to_string(size) + " bytes");
}

} // namespace loopscope
