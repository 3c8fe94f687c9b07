#include "te/NamedStep.h"

#include "te/StepWriter.h"

#include <sstream>

namespace loopscope {

namespace {

std::string quoted(const std::string& s)
{
    return "'" + s + "'";
}

bool namesLoops(ArgKind kind)
{
    return kind == ArgKind::Axis || kind == ArgKind::Axes;
}

} // namespace

NamedStep& NamedStep::loops(const std::string& arg, std::vector<std::string> loopNames)
{
    args[arg].names = std::move(loopNames);
    return *this;
}

NamedStep& NamedStep::stages(const std::string& arg, std::vector<std::string> stageNames)
{
    args[arg].names = std::move(stageNames);
    return *this;
}

NamedStep& NamedStep::number(const std::string& arg, std::int64_t value)
{
    args[arg].number = value;
    return *this;
}

NamedStep& NamedStep::text(const std::string& arg, std::string value)
{
    args[arg].text = std::move(value);
    return *this;
}

const NamedArg* NamedStep::arg(const std::string& name) const
{
    auto it = args.find(name);
    return it == args.end() ? nullptr : &it->second;
}

std::vector<std::string> NamedStep::allLoops() const
{
    std::vector<std::string> out;
    if (const PrimitiveSpec* p = findPrimitive(primitive))
        for (const ArgSpec& a : p->args)
            if (const NamedArg* v = arg(a.name); v && namesLoops(a.kind))
                out.insert(out.end(), v->names.begin(), v->names.end());
    return out;
}

bool NamedStep::operator==(const NamedStep& o) const
{
    return primitive == o.primitive && stage == o.stage && args == o.args;
}

std::string describe(const NamedStep& step)
{
    std::ostringstream out;
    out << step.primitive << " " << step.stage;
    const PrimitiveSpec* p = findPrimitive(step.primitive);
    if (!p) return out.str();
    for (const ArgSpec& a : p->args) {
        const NamedArg* v = step.arg(a.name);
        if (!v) continue;
        switch (a.kind) {
        case ArgKind::Axis:
        case ArgKind::Axes:
            for (auto& n : v->names)
                out << " " << n;
            break;
        case ArgKind::Factor:
        case ArgKind::Int:
        case ArgKind::Value: out << " " << a.name << "=" << v->number; break;
        case ArgKind::Text:
        case ArgKind::Scope:
        case ArgKind::ThreadAxis:
        case ArgKind::Intrinsic: out << " " << v->text; break;
        case ArgKind::Stage:
        case ArgKind::Tensors:
            for (auto& n : v->names)
                out << " @" << n;
            break;
        case ArgKind::Tensor: break; // the step's stage
        }
    }
    return out.str();
}

void fillLoops(NamedStep& step, const PrimitiveSpec& primitive,
               const std::vector<std::string>& loopNames)
{
    std::size_t next = 0;
    for (const ArgSpec& a : primitive.args) {
        if (a.kind == ArgKind::Stage) break; // the loops after it are that stage's
        if (a.kind == ArgKind::Axes) {
            step.loops(a.name, loopNames);
        } else if (a.kind == ArgKind::Axis && next < loopNames.size()) {
            step.loops(a.name, {loopNames[next++]});
        }
    }
}

std::string resolveStep(const Schedule& sch, const NamedStep& step, ScheduleStep* out,
                        const ResolveProbe* probe)
{
    const PrimitiveSpec* p = findPrimitive(step.primitive);
    if (!p) return "there is no primitive " + quoted(step.primitive);
    const Stage* st = findStage(sch, step.stage);
    if (!st) return "there is no stage " + quoted(step.stage);
    *out = makeStep(*p, st->op);
    std::string missing;
    auto note = [&](std::string why) {
        if (missing.empty()) missing = std::move(why);
    };
    // Every primitive takes current loops: a name that is an axis split or fused since (a step of
    // a damaged log) is refused here, not left to the primitive.
    auto loop = [&](const Stage& s, const std::string& name) -> IterVar {
        IterVar iv = findAxis(s, name);
        if (!iv) {
            note("axis " + quoted(axisDisplayName(name)) + " is not a loop of " + quoted(s.name()));
        } else if (s.leafIndex(iv) < 0) {
            note("axis " + quoted(axisDisplayName(name)) + " of " + quoted(s.name()) +
                 " has been split or fused; it is no longer a loop");
            return nullptr;
        }
        return iv;
    };
    // Probing an incomplete step: a stand-in for a loop not chosen.
    const IterVar standIn = makeIterVar("?", Range{makeInt(0), makeInt(1)}, IterKind::DataPar);
    const Stage* target = nullptr; // the stage argument's, once read
    for (std::size_t i = 0; i < p->args.size(); ++i) {
        const ArgSpec& a = p->args[i];
        const NamedArg* q = step.arg(a.name);
        StepArg& v = out->args[i];
        v.given = q != nullptr;
        if (q) {
            v.number = q->number;
            v.text = q->text;
        }
        switch (a.kind) {
        case ArgKind::Intrinsic: {
            // An expression that makes the intrinsic on its own (TOPI's); one that needs the
            // script's own names is applied where the script defines them.
            std::string why;
            if (q) v.intrin = evaluateTensorIntrin(q->text, &why);
            if (!v.intrin)
                note(quoted(a.name) + (q ? " '" + q->text + "': " + why
                                         : std::string(" is a value of the script: write the "
                                                       "tensorize step there")));
            break;
        }
        case ArgKind::Axis: {
            // A loop of the stage, or, after a stage argument, of that stage.
            const Stage& of = target ? *target : *st;
            if (q && !q->names.empty()) {
                if (IterVar iv = loop(of, q->names.front())) v.axes = {iv};
            } else if (probe) {
                v.given = true;
                v.axes = {target && !target->leafIterVars.empty() ? target->leafIterVars[0]
                                                                  : standIn};
            }
            if (v.axes.empty()) note("choose an axis for " + quoted(a.name));
            break;
        }
        case ArgKind::Axes:
            if (q)
                for (auto& name : q->names)
                    if (IterVar iv = loop(*st, name)) v.axes.push_back(iv);
            if (probe && v.axes.empty()) {
                v.given = true;
                v.axes = {standIn};
            }
            break;
        case ArgKind::Stage: {
            const std::string name = q && !q->names.empty() ? q->names.front() : std::string();
            target = findStage(sch, name);
            if (!target && probe) {
                v.given = true;
                target = findStage(sch, probe->stage);
                if (!target) target = st;
            }
            if (!target) note("there is no stage " + quoted(name));
            if (target) v.tensors = {target->op};
            break;
        }
        case ArgKind::Tensor:
            v.given = true;
            v.tensors = {st->op};
            break;
        case ArgKind::Tensors:
            if (q)
                for (auto& name : q->names) {
                    if (const Stage* s = findStage(sch, name))
                        v.tensors.push_back(s->op);
                    else
                        note("there is no stage " + quoted(name));
                }
            break;
        case ArgKind::Value:
            if (q) v.value = makeInt(q->number);
            break;
        case ArgKind::Factor:
        case ArgKind::Int:
        case ArgKind::Text:
        case ArgKind::Scope:
        case ArgKind::ThreadAxis: break;
        }
    }
    return missing;
}

} // namespace loopscope
