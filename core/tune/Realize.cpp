// A sketch with knob values made into schedule steps: the prologue, then each plan realized by
// its rule through the PlanRealizer, applied one at a time to the starting variant's schedule (a
// step the schedule refuses makes the candidate invalid, with the reason).
#include "tune/PlanRealizer.h"
#include "tune/SketchRule.h"

#include <algorithm>
#include <functional>

namespace loopscope {

namespace {

const char* kUnrollPragma = "auto_unroll_max_step";

} // namespace

std::string baseName(const std::string& axis)
{
    std::string out;
    for (char c : axis)
        out += (c == '.') ? '_' : c;
    return out;
}

std::int64_t leafExtent(const Stage& st, const IterVar& iv)
{
    for (auto& root : st.rootIterVars())
        if (root == iv) return constIntOr(iv->dom.extent, 0);
    for (auto& r : st.relations) {
        if (r.kind == IterRelation::Kind::Split && (r.outer == iv || r.inner == iv)) {
            std::int64_t parent = leafExtent(st, r.parent);
            std::int64_t f = r.factor.defined() ? constIntOr(r.factor, 0) : 0;
            std::int64_t n = r.nparts.defined() ? constIntOr(r.nparts, 0) : 0;
            if (parent <= 0) return 0;
            if (f > 0) return r.inner == iv ? f : (parent + f - 1) / f;
            if (n > 0) return r.outer == iv ? n : (parent + n - 1) / n;
            return 0;
        }
        if (r.kind == IterRelation::Kind::Fuse && r.fused == iv)
            return leafExtent(st, r.outer) * leafExtent(st, r.inner);
        if (r.kind == IterRelation::Kind::Rebase && r.rebased == iv)
            return leafExtent(st, r.parent);
    }
    return 0;
}

std::vector<IterVar> pieces(const Stage& st, const IterVar& root)
{
    std::vector<IterVar> out;
    std::function<void(const IterVar&)> expand = [&](const IterVar& iv) {
        for (auto& r : st.relations) {
            if (r.kind == IterRelation::Kind::Split && r.parent == iv) {
                expand(r.outer);
                expand(r.inner);
                return;
            }
        }
        out.push_back(iv);
    };
    expand(root);
    return out;
}

PlanRealizer::PlanRealizer(const Variant& start, const Sketch& sketch, const Knobs& knobs,
                           const SpaceOptions& options, bool write)
    : m_sketch(sketch), m_knobs(knobs), m_options(options), m_replay(start, write)
{
}

Realized PlanRealizer::run()
{
    Realized out;
    bool ok = static_cast<int>(m_knobs.size()) == m_sketch.knobCount;
    if (!ok) m_why = "the knobs do not fit the sketch";
    for (auto& s : m_sketch.prologue)
        ok = ok && step(s);
    for (auto& pl : m_sketch.plans) {
        if (!ok) break;
        ok = !pl.rule || pl.rule->realize(*this, pl);
    }
    out.ok = ok;
    out.why = m_why;
    out.steps = std::move(m_steps);
    out.statements = m_replay.statements();
    out.schedule = m_replay.schedule();
    return out;
}

const Stage* PlanRealizer::stage(const std::string& name) const
{
    return findStage(m_replay.schedule(), name);
}

const StagePlan* PlanRealizer::planOf(const std::string& name) const
{
    for (auto& p : m_sketch.plans)
        if (p.stage == name) return &p;
    return nullptr;
}

std::int64_t PlanRealizer::choice(int knob, std::int64_t otherwise) const
{
    if (knob < 0) return otherwise;
    return m_knobs[static_cast<std::size_t>(m_sketch.knobs[static_cast<std::size_t>(knob)].offset)];
}

std::vector<std::int64_t> PlanRealizer::tile(int knob, std::int64_t extent, int levels) const
{
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(levels), 1);
    sizes[0] = extent;
    if (knob < 0) return sizes;
    const KnobSpec& k = m_sketch.knobs[static_cast<std::size_t>(knob)];
    std::int64_t inner = 1;
    for (int l = 1; l < levels; ++l) {
        sizes[static_cast<std::size_t>(l)] = m_knobs[static_cast<std::size_t>(k.offset + l - 1)];
        inner *= sizes[static_cast<std::size_t>(l)];
    }
    sizes[0] = (extent + inner - 1) / inner;
    return sizes;
}

bool PlanRealizer::step(NamedStep s)
{
    tunerMayWrite({}, s.primitive); // one of tunerPrimitives(), or an InternalError
    if (!m_replay.apply(s)) {
        m_why = describe(s) + ": " + m_replay.why();
        return false;
    }
    m_steps.push_back(std::move(s));
    return true;
}

bool PlanRealizer::simpleStep(const char* primitive, const std::string& st,
                              std::vector<std::string> axes, std::vector<std::string> names)
{
    NamedStep s(primitive, st);
    if (const PrimitiveSpec* p = findPrimitive(primitive)) fillLoops(s, *p, axes);
    s.names = std::move(names);
    return step(s);
}

bool PlanRealizer::computeAt(const std::string& st, const std::string& target,
                             const std::string& axis)
{
    return step(NamedStep("compute_at", st).stages("parent", {target}).loops("scope", {axis}));
}

bool PlanRealizer::split(const std::string& st, const std::string& axis, std::int64_t factor,
                         std::vector<std::string> names, std::string* outer, std::string* inner)
{
    NamedStep s = NamedStep("split", st).loops("parent", {axis}).number("factor", factor);
    s.names = std::move(names);
    if (!step(s)) return false;
    *outer = m_replay.lastOutput().axes.at(0)->name();
    *inner = m_replay.lastOutput().axes.at(1)->name();
    return true;
}

bool PlanRealizer::splitLevels(const std::string& st, const std::string& axis,
                               const std::vector<std::int64_t>& sizes, int first,
                               std::vector<std::string>* loops)
{
    const std::string base = baseName(axis);
    loops->assign(sizes.size(), {});
    std::string current = axis;
    int level = first;
    for (int l = first + 1; l < static_cast<int>(sizes.size()); ++l) {
        if (sizes[static_cast<std::size_t>(l)] == 1) continue;
        std::int64_t product = 1;
        for (int m = l; m < static_cast<int>(sizes.size()); ++m)
            product *= sizes[static_cast<std::size_t>(m)];
        std::string outer, inner;
        if (!split(st, current, product,
                   {base + "_" + std::to_string(level), base + "_" + std::to_string(l)}, &outer,
                   &inner))
            return false;
        (*loops)[static_cast<std::size_t>(level)] = outer;
        current = inner;
        level = l;
    }
    (*loops)[static_cast<std::size_t>(level)] = current;
    return true;
}

bool PlanRealizer::reorder(const std::string& st, const std::vector<std::string>& order)
{
    const Stage* s = stage(st);
    if (!s || order.size() < 2) return true;
    std::vector<std::string> now;
    for (auto& iv : s->leafIterVars)
        if (std::find(order.begin(), order.end(), iv->name()) != order.end())
            now.push_back(iv->name());
    if (now == order) return true;
    return simpleStep("reorder", st, order);
}

bool PlanRealizer::fuse(const std::string& st, const std::vector<std::string>& group,
                        std::string* loop)
{
    if (group.empty()) return true;
    if (group.size() == 1) {
        *loop = group.front();
        return true;
    }
    if (!simpleStep("fuse", st, group)) return false;
    *loop = m_replay.lastOutput().axes.at(0)->name();
    return true;
}

bool PlanRealizer::bind(const std::string& st, const std::string& loop, const std::string& thread)
{
    return step(NamedStep("bind", st).loops("ivar", {loop}).text("thread_ivar", thread));
}

bool PlanRealizer::parallel(const std::string& st, const std::vector<std::string>& group,
                            std::string* loop)
{
    if (group.empty()) return true;
    std::string target = group.front();
    if (group.size() > 1 && tunerMayWrite(m_options, "fuse") && !fuse(st, group, &target))
        return false;
    if (!simpleStep("parallel", st, {target})) return false;
    if (loop) *loop = target;
    return true;
}

bool PlanRealizer::unroll(const std::string& st, int knob)
{
    std::int64_t v = choice(knob, 0);
    const Stage* s = stage(st);
    if (v <= 0 || !s || s->leafIterVars.empty()) return true;
    return step(NamedStep("pragma", st)
                    .loops("var", {s->leafIterVars.front()->name()})
                    .text("pragma_type", kUnrollPragma)
                    .number("pragma_value", v));
}

bool PlanRealizer::fail(const std::string& why)
{
    m_why = why;
    return false;
}

void PlanRealizer::attachGuest(const std::string& guest, const std::string& hostLoop)
{
    m_attach[guest] = hostLoop;
}

const std::string* PlanRealizer::guestAttachment(const std::string& guest) const
{
    auto at = m_attach.find(guest);
    return at == m_attach.end() ? nullptr : &at->second;
}

Realized realize(const Variant& start, const Sketch& sketch, const Knobs& knobs,
                 const SpaceOptions& options, bool write)
{
    return PlanRealizer(start, sketch, knobs, options, write).run();
}

Realized replaySteps(const Variant& start, const std::vector<NamedStep>& steps, bool write)
{
    Realized out;
    StepReplay replay(start, write);
    out.ok = true;
    for (auto& s : steps) {
        if (!replay.apply(s)) {
            out.ok = false;
            out.why = describe(s) + ": " + replay.why();
            break;
        }
        out.steps.push_back(s);
    }
    out.statements = replay.statements();
    out.schedule = replay.schedule();
    return out;
}

} // namespace loopscope
