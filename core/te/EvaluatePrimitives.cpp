// Schedule primitives in a script: a stage's or the schedule's method bound to the signature the
// primitive catalogue gives, applied to a copy of the variant's schedule.
#include "te/EvaluatorInternal.h"

#include "ir/Limits.h"

namespace loopscope::te_detail {

Schedule& Evaluator::schedule(int variant)
{
    return m_program.variants[static_cast<std::size_t>(variant)].snapshots.back();
}

void Evaluator::touch(int variant)
{
    if (variant >= 0) m_touched.insert(variant);
}

bool Evaluator::isStagePrimitive(const std::string& name)
{
    const PrimitiveSpec* p = findPrimitive(name);
    return (p && p->on == PrimitiveOn::Stage) || kUnsupportedStageMethods.count(name);
}

bool Evaluator::isSchedulePrimitive(const std::string& name)
{
    const PrimitiveSpec* p = findPrimitive(name);
    return p && p->on == PrimitiveOn::Schedule;
}

IterVar Evaluator::axisArg(const Arg& a, const std::string& fn)
{
    if (a.value.kind != VKind::IterVar)
        throw UserError(a.loc, fn + "() needs an axis here, not " + typeName(a.value));
    return a.value.iv;
}

std::int64_t Evaluator::factorArg(const Arg& a, const std::string& what)
{
    const Value& v = a.value;
    if (v.kind == VKind::Int) {
        if (v.i <= 0)
            throw UserError(a.loc,
                            what + " must be a positive integer, not " + std::to_string(v.i));
        return v.i;
    }
    if (v.kind == VKind::Float) {
        if (v.f == std::floor(v.f) && v.f > 0) return static_cast<std::int64_t>(v.f);
        throw UserError(a.loc, what + " must be a positive integer, not " + formatFloat(v.f));
    }
    throw UserError(a.loc, what + " must be a positive integer, not " + typeName(v));
}

int Evaluator::intArg(const Arg& a, const std::string& what)
{
    if (a.value.kind != VKind::Int)
        throw UserError(a.loc, what + " must be an integer, not " + typeName(a.value));
    return static_cast<int>(a.value.i);
}

void Evaluator::recordStep(int variant, const std::string& primitive, const std::string& stage,
                           Schedule after)
{
    Variant& v = m_program.variants[static_cast<std::size_t>(variant)];
    keepStageCopies(after.stages().size());
    v.steps.push_back({primitive, stage, m_stmt->loc, m_stmt->endLine, m_stmt->text});
    v.snapshots.push_back(std::move(after)); // the step's own copy: no second one
    touch(variant);
}

void Evaluator::keepStageCopies(std::size_t stages)
{
    m_stageCopies += static_cast<std::int64_t>(stages);
    if (m_stageCopies <= kMaxStageCopies) return;
    throw UserError(m_stmt->loc,
                    "the script's schedules would keep more than " +
                        std::to_string(kMaxStageCopies) + " stages: a copy of the schedule (here " +
                        std::to_string(stages) +
                        " stages) is kept after every step; use fewer stages or steps");
}

Value Evaluator::ivList(const std::vector<IterVar>& ivs, VKind kind)
{
    std::vector<Value> items;
    for (auto& iv : ivs)
        items.push_back(Value::ofIterVar(iv));
    return Value::seq(kind, std::move(items));
}

Value Evaluator::callMethod(const Value& self, const std::string& name, const CallArgs& c)
{
    // An index map is the one lambda a method takes (sch.transform_layout).
    if (!(self.kind == VKind::TirSchedule && name == "transform_layout")) rejectLambdas(c);
    if (self.kind == VKind::Stage || self.kind == VKind::Schedule) {
        if (self.kind == VKind::Schedule) {
            touch(self.variant);
            if (name == "normalize") return self;
        }
        const PrimitiveSpec* p = findPrimitive(name);
        bool onStage = self.kind == VKind::Stage;
        if (!p || (p->on == PrimitiveOn::Stage) != onStage) {
            throw UserError(c.loc, std::string(onStage ? "stage" : "schedule") + " method '" +
                                       name + "' is not supported");
        }
        return applyPrimitive(self, *p, c);
    }
    if (self.kind == VKind::TirSchedule || self.kind == VKind::TirModule ||
        self.kind == VKind::TirTrace)
        return tirMethod(self, name, c);
    if (self.kind == VKind::Op && name == "output") {
        Bound b(c, {{"index", true}});
        if (intArg(b["index"], "output index") != 0)
            throw UserError(b["index"].loc, "operations have a single output (index 0)");
        return Value::ofTensor(VKind::Tensor, self.tensor);
    }
    if ((self.kind == VKind::Expr || self.kind == VKind::IterVar) && name == "equal") {
        Bound b(c, {{"other", true}});
        return Value::ofExpr(makeBinary(loopscope::ExprKind::EQ, toExpr(self, c.loc),
                                        toExpr(b["other"].value, b["other"].loc)));
    }
    if ((self.kind == VKind::Expr || self.kind == VKind::IterVar) && name == "astype") {
        Bound b(c, {{"dtype", true}});
        return Value::ofExpr(castTo(vectorDtypeArg(b["dtype"]), toExpr(self, c.loc)));
    }
    if (self.kind == VKind::Buffer || self.kind == VKind::IRBuilder)
        return intrinsicMethod(self, name, c);
    throw UserError(c.loc, typeName(self) + " has no method '" + name + "'");
}

// The script's value for an argument of a primitive, as the catalogue says its kind is.
StepArg Evaluator::stepArg(const PrimitiveSpec& p, int index, const Arg& a, int variant)
{
    const ArgSpec& spec = p.args[static_cast<std::size_t>(index)];
    StepArg out;
    out.given = true;
    switch (spec.kind) {
    case ArgKind::Axis: out.axes.push_back(axisArg(a, p.name)); break;
    case ArgKind::Axes: out.axes.push_back(axisArg(a, p.name)); break;
    case ArgKind::Factor: out.number = factorArg(a, p.argLabel(index)); break;
    case ArgKind::Int: out.number = intArg(a, p.argLabel(index)); break;
    case ArgKind::Text:
    case ArgKind::Scope: out.text = stringArg(a, p.argLabel(index)); break;
    case ArgKind::Stage:
        if (a.value.kind != VKind::Stage)
            throw UserError(a.loc,
                            p.name + " needs a stage such as s[C], not " + typeName(a.value));
        if (a.value.variant != variant)
            throw UserError(a.loc, "that stage belongs to another schedule");
        out.tensors.push_back(a.value.tensor);
        break;
    case ArgKind::Tensor:
        if (a.value.kind != VKind::Tensor)
            throw UserError(a.loc, p.name + " needs a tensor, not " + typeName(a.value));
        out.tensors.push_back(a.value.tensor);
        break;
    case ArgKind::Tensors: {
        std::vector<Value> items = a.value.isSeq() ? a.value.items : std::vector<Value>{a.value};
        for (auto& x : items) {
            if (x.kind != VKind::Tensor && x.kind != VKind::Op)
                throw UserError(a.loc, spec.name + " must be tensors, not " + typeName(x));
            out.tensors.push_back(x.tensor);
        }
        break;
    }
    case ArgKind::ThreadAxis:
        if (a.value.kind != VKind::ThreadAxis)
            throw UserError(a.loc, p.name + " needs a te.thread_axis, not " + typeName(a.value));
        out.text = a.value.s;
        out.number = a.value.i;
        break;
    case ArgKind::Value:
        // A string (pragma import_llvm's IR text) is a string immediate.
        out.value = a.value.kind == VKind::Str ? Expr(std::make_shared<StringImmNode>(a.value.s))
                                               : toExpr(a.value, a.loc);
        break;
    case ArgKind::Intrinsic:
        if (a.value.kind != VKind::TensorIntrin)
            throw UserError(a.loc, p.argLabel(index) +
                                       " must be a tensor intrinsic (te.decl_tensor_intrin), "
                                       "not " +
                                       typeName(a.value));
        out.intrin = a.value.intrin;
        out.text = a.expr ? ast::scriptText(*a.expr) : a.value.intrin->name;
        break;
    }
    return out;
}

// A primitive of the catalogue called on a stage or the schedule: its arguments bound to the
// catalogue's signature, then applied to a copy of the variant's schedule, which becomes the
// newest snapshot when the primitive accepts it.
Value Evaluator::applyPrimitive(const Value& self, const PrimitiveSpec& p, const CallArgs& c)
{
    const int var = self.variant;
    ScheduleStep step = makeStep(p, p.on == PrimitiveOn::Stage ? self.tensor : Tensor());
    step.loc = m_stmt->loc;
    std::vector<SourceLoc> argLocs(p.args.size(), c.loc);
    if (p.args.size() == 1 && p.args.front().kind == ArgKind::Axes) {
        if (!c.keywords.empty())
            throw UserError(c.keywords.front().second.loc, p.name + "() takes axes only");
        StepArg& axes = step.args.front();
        axes.given = true;
        for (auto& a : c.positional) {
            if (a.value.isSeq()) {
                for (auto& x : a.value.items)
                    axes.axes.push_back(axisArg({x, a.loc}, p.name));
            } else {
                axes.axes.push_back(axisArg(a, p.name));
            }
        }
    } else {
        std::vector<Param> params;
        for (auto& a : p.args)
            params.push_back({a.name.c_str(), a.required});
        Bound b(c, params);
        for (std::size_t i = 0; i < p.args.size(); ++i) {
            const std::string& name = p.args[i].name;
            if (!b.has(name)) continue;
            argLocs[i] = b[name].loc;
            step.args[i] = stepArg(p, static_cast<int>(i), b[name], var);
        }
    }
    if (p.on == PrimitiveOn::Schedule) step.stage = step.args.front().tensors.front();
    std::string stageName = step.stage->name;
    if (const Stage* st = schedule(var).find(step.stage)) stageName = st->name();

    AppliedStep applied = applyToCopy(schedule(var), step);
    if (!applied.ok()) {
        int arg = applied.error->argument();
        SourceLoc loc = c.loc;
        if (p.args.size() == 1 && p.args.front().kind == ArgKind::Axes) {
            if (arg >= 0 && static_cast<std::size_t>(arg) < c.positional.size())
                loc = c.positional[static_cast<std::size_t>(arg)].loc;
        } else if (arg >= 0 && static_cast<std::size_t>(arg) < argLocs.size()) {
            loc = argLocs[static_cast<std::size_t>(arg)];
        }
        throw UserError(loc, applied.error->message());
    }
    recordStep(var, p.name, stageName, std::move(applied.schedule));

    const StepOutput& out = applied.output;
    if (out.tensor) {
        m_program.tensors.push_back(out.tensor);
        return Value::ofTensor(VKind::Tensor, out.tensor);
    }
    if (p.results.size() == 1 && out.axes.size() == 1) return Value::ofIterVar(out.axes[0]);
    if (!p.results.empty()) return ivList(out.axes);
    return Value::none();
}

} // namespace loopscope::te_detail
