#include "schedule/Primitives.h"

#include "ir/IRUtil.h"

#include <sstream>

namespace loopscope {

namespace {

using Names = std::vector<std::vector<std::string>>;

std::string first(const Names& args, std::size_t i)
{
    return i < args.size() && !args[i].empty() ? args[i].front() : std::string();
}

Stage& stageOf(Schedule& s, const ScheduleStep& step)
{
    return s.stage(step.stage);
}

const IterVar& axis(const ScheduleStep& step, std::string_view name)
{
    const StepArg& a = step.arg(name);
    LS_ASSERT(a.axes.size() == 1, "argument " << name << " of " << step.primitive->name
                                              << " needs one axis, has " << a.axes.size());
    return a.axes.front();
}

void checkScope(const std::string& scope, int argument)
{
    if (scope != "global" && scope != "local" && scope != "shared") {
        throw ScheduleError("unknown storage scope '" + scope +
                                "'; use \"global\", \"local\" or \"shared\"",
                            argument);
    }
}

// ---- apply functions, one per primitive ----

StepOutput applySplit(Schedule& s, const ScheduleStep& step)
{
    const StepArg& factor = step.arg("factor");
    const StepArg& nparts = step.arg("nparts");
    if (factor.given == nparts.given) {
        throw ScheduleError(factor.given ? "give either factor= or nparts= to split, not both"
                                         : "split needs factor= or nparts=");
    }
    std::optional<Expr> f, n;
    if (factor.given)
        f = makeInt(factor.number);
    else
        n = makeInt(nparts.number);
    auto [outer, inner] = s.split(stageOf(s, step), axis(step, "parent"), f, n);
    return {{outer, inner}, {}};
}

StepOutput applyTile(Schedule& s, const ScheduleStep& step)
{
    return {s.tile(stageOf(s, step), axis(step, "x_parent"), axis(step, "y_parent"),
                   makeInt(step.arg("x_factor").number), makeInt(step.arg("y_factor").number)),
            {}};
}

StepOutput applyFuse(Schedule& s, const ScheduleStep& step)
{
    return {{s.fuse(stageOf(s, step), step.arg("args").axes)}, {}};
}

StepOutput applyReorder(Schedule& s, const ScheduleStep& step)
{
    s.reorder(stageOf(s, step), step.arg("args").axes);
    return {};
}

StepOutput applyVectorize(Schedule& s, const ScheduleStep& step)
{
    s.vectorize(stageOf(s, step), axis(step, "var"), step.loc);
    return {};
}

StepOutput applyParallel(Schedule& s, const ScheduleStep& step)
{
    s.parallel(stageOf(s, step), axis(step, "var"), step.loc);
    return {};
}

StepOutput applyUnroll(Schedule& s, const ScheduleStep& step)
{
    s.unroll(stageOf(s, step), axis(step, "var"), step.loc);
    return {};
}

StepOutput applyTensorize(Schedule& s, const ScheduleStep& step)
{
    const StepArg& intrin = step.arg("tensor_intrin");
    LS_ASSERT(intrin.intrin, "tensorize without its intrinsic");
    s.tensorize(stageOf(s, step), axis(step, "var"), intrin.intrin, step.loc);
    return {};
}

StepOutput applyPragma(Schedule& s, const ScheduleStep& step)
{
    const StepArg& value = step.arg("pragma_value");
    s.pragma(stageOf(s, step), axis(step, "var"), step.arg("pragma_type").text,
             value.given ? value.value : Expr(), step.loc);
    return {};
}

StepOutput applyBind(Schedule& s, const ScheduleStep& step)
{
    const StepArg& thread = step.arg("thread_ivar");
    s.bind(stageOf(s, step), axis(step, "ivar"), thread.text, step.loc,
           static_cast<int>(thread.number));
    return {};
}

StepOutput applyStorageAlign(Schedule& s, const ScheduleStep& step)
{
    s.storageAlign(stageOf(s, step), axis(step, "axis"),
                   static_cast<int>(step.arg("factor").number),
                   static_cast<int>(step.arg("offset").number));
    return {};
}

StepOutput applySetStorePredicate(Schedule& s, const ScheduleStep& step)
{
    s.setStorePredicate(stageOf(s, step), step.arg("predicate").value, step.loc);
    return {};
}

StepOutput applyDoubleBuffer(Schedule& s, const ScheduleStep& step)
{
    Stage& st = stageOf(s, step);
    s.doubleBuffer(st);
    st.doubleBufferLoc = step.loc;
    return {};
}

StepOutput applyComputeAt(Schedule& s, const ScheduleStep& step)
{
    Stage& st = stageOf(s, step);
    s.computeAt(st, s.stage(step.arg("parent").tensors.front()), axis(step, "scope"));
    st.attachLoc = step.loc;
    return {};
}

StepOutput applyComputeInline(Schedule& s, const ScheduleStep& step)
{
    Stage& st = stageOf(s, step);
    s.computeInline(st);
    st.attachLoc = step.loc;
    return {};
}

StepOutput applyComputeRoot(Schedule& s, const ScheduleStep& step)
{
    Stage& st = stageOf(s, step);
    s.computeRoot(st);
    st.attachLoc = step.loc;
    return {};
}

StepOutput applyCacheRead(Schedule& s, const ScheduleStep& step)
{
    const std::string& scope = step.arg("scope").text;
    checkScope(scope, 1);
    return {{},
            s.cacheRead(step.arg("tensor").tensors.front(), scope, step.arg("readers").tensors)};
}

StepOutput applyCacheWrite(Schedule& s, const ScheduleStep& step)
{
    const std::string& scope = step.arg("scope").text;
    checkScope(scope, 1);
    return {{}, s.cacheWrite(step.arg("tensor").tensors.front(), scope)};
}

StepOutput applyRfactor(Schedule& s, const ScheduleStep& step)
{
    const StepArg& factorAxis = step.arg("factor_axis");
    return {{},
            s.rfactor(step.arg("tensor").tensors.front(), axis(step, "axis"),
                      factorAxis.given ? static_cast<int>(factorAxis.number) : 0)};
}

// ---- result names ----

std::vector<std::string> splitNames(const Names& a)
{
    return {first(a, 0) + "_outer", first(a, 0) + "_inner"};
}

std::vector<std::string> tileNames(const Names& a)
{
    return {first(a, 0) + "_outer", first(a, 1) + "_outer", first(a, 0) + "_inner",
            first(a, 1) + "_inner"};
}

std::vector<std::string> fuseNames(const Names& a)
{
    std::string name;
    for (const std::string& axis : a.empty() ? std::vector<std::string>{} : a.front())
        name = name.empty() ? axis : name + "_" + axis + "_fused";
    return {name};
}

std::vector<std::string> cacheNames(const Names& a)
{
    return {first(a, 0) + "_" + first(a, 1)};
}

std::vector<std::string> rfactorNames(const Names& a)
{
    return {first(a, 0) + "_rf"};
}

ArgSpec required(std::string name, ArgKind kind, std::string label = {})
{
    return {std::move(name), kind, true, false, {}, std::move(label)};
}

ArgSpec optionalKeyword(std::string name, ArgKind kind, std::string defaultText = "None",
                        std::string label = {})
{
    return {std::move(name), kind, false, true, std::move(defaultText), std::move(label)};
}

// Setups the examples share (constants, so the catalogue may be made during another file's
// static initialization, as the editor's completion lists are).
constexpr const char* kTile = "xo, yo, xi, yi = s[C].tile(x, y, x_factor=32, y_factor=32)\n";
constexpr const char* kSplitK = "ko, ki = s[C].split(k, factor=4)\n";
// The tensorize tutorial's GEMV intrinsic, its loops made ready for it.
constexpr const char* kGemvIntrinsic = R"(def intrin_gemv(m, l):
    a = te.placeholder((l,), name="a")
    b = te.placeholder((m, l), name="b")
    kk = te.reduce_axis((0, l), name="kk")
    c = te.compute((m,), lambda i: te.sum(a[kk] * b[i, kk], axis=kk), name="c")
    Ab = tvm.tir.decl_buffer(a.shape, a.dtype, name="A", offset_factor=1, strides=[1])
    Bb = tvm.tir.decl_buffer(b.shape, b.dtype, name="B", offset_factor=1, strides=[te.var("s1"), 1])
    Cb = tvm.tir.decl_buffer(c.shape, c.dtype, name="C", offset_factor=1, strides=[1])
    def intrin_func(ins, outs):
        ib = tvm.tir.ir_builder.create()
        aa, bb = ins
        cc = outs[0]
        ib.emit(tvm.tir.call_extern("int32", "gemv_update", cc.access_ptr("w"),
                                    aa.access_ptr("r"), bb.access_ptr("r"), m, l, bb.strides[0]))
        return ib.get()
    return te.decl_tensor_intrin(c.op, intrin_func, binds={a: Ab, b: Bb, c: Cb})
yo, yi = s[C].split(y, factor=16)
s[C].reorder(x, yo, yi, k)
)";

std::vector<PrimitiveSpec> makeCatalogue()
{
    using K = ArgKind;
    const PrimitiveOn onStage = PrimitiveOn::Stage, onSchedule = PrimitiveOn::Schedule;
    std::vector<PrimitiveSpec> c = {
        {"split",
         onStage,
         {required("parent", K::Axis), optionalKeyword("factor", K::Factor),
          optionalKeyword("nparts", K::Factor),
          optionalKeyword("disable_predication", K::Value, "False")},
         "Split a loop into an outer and an inner loop: the inner runs `factor` times (or the "
         "outer runs `nparts` times)",
         "xo, xi = s[C].split(x, factor=32)",
         "",
         {"outer", "inner"},
         applySplit,
         splitNames},
        {"tile",
         onStage,
         {required("x_parent", K::Axis),
          required("y_parent", K::Axis),
          {"x_factor", K::Factor, true, true, {}, {}},
          {"y_factor", K::Factor, true, true, {}, {}}},
         "Split two nested loops and reorder them into a tile: x outer, y outer, x inner, y inner",
         "xo, yo, xi, yi = s[C].tile(x, y, x_factor=32, y_factor=32)",
         "",
         {"x_outer", "y_outer", "x_inner", "y_inner"},
         applyTile,
         tileNames},
        {"fuse",
         onStage,
         {required("args", K::Axes)},
         "Fuse adjacent loops into one loop over their combined extent",
         "xy = s[C].fuse(x, y)",
         "",
         {"fused"},
         applyFuse,
         fuseNames},
        {"reorder",
         onStage,
         {required("args", K::Axes)},
         "Put the named loops in this order (the other loops keep their places)",
         "s[C].reorder(xo, yo, k, xi, yi)",
         kTile,
         {},
         applyReorder,
         nullptr},
        {"vectorize",
         onStage,
         {required("var", K::Axis)},
         "Run a loop as vector instructions (an innermost data-parallel loop of constant extent)",
         "s[C].vectorize(yi)",
         kTile,
         {},
         applyVectorize,
         nullptr},
        {"parallel",
         onStage,
         {required("var", K::Axis)},
         "Run the iterations of a data-parallel loop on all cores",
         "s[C].parallel(xo)",
         kTile,
         {},
         applyParallel,
         nullptr},
        {"unroll",
         onStage,
         {required("var", K::Axis)},
         "Unroll a loop of constant extent completely",
         "s[C].unroll(ki)",
         kSplitK,
         {},
         applyUnroll,
         nullptr},
        {"pragma",
         onStage,
         {required("var", K::Axis),
          required("pragma_type", K::Text, "pragma type"),
          {"pragma_value", K::Value, false, false, "None", {}}},
         "Annotate a loop: unroll, vectorize, auto_unroll_max_step, unroll_explicit, "
         "parallel_launch_point, ...",
         "s[C].pragma(xo, \"auto_unroll_max_step\", 16)",
         kTile,
         {},
         applyPragma,
         nullptr},
        {"bind",
         onStage,
         {required("ivar", K::Axis), required("thread_ivar", K::ThreadAxis)},
         "Bind a loop to a GPU thread axis: blocks, threads or virtual threads (checked on the CPU "
         "where there is no GPU)",
         "s[C].bind(xo, te.thread_axis(\"blockIdx.x\"))",
         kTile,
         {},
         applyBind,
         nullptr},
        {"tensorize",
         onStage,
         {required("var", K::Axis), required("tensor_intrin", K::Intrinsic, "tensor intrinsic")},
         "Replace the loops from this one in by a tensor intrinsic (te.decl_tensor_intrin) "
         "whose computation matches the stage's there",
         "s[C].tensorize(yi, intrin_gemv(16, K))",
         kGemvIntrinsic,
         {},
         applyTensorize,
         nullptr},
        {"storage_align",
         onStage,
         {required("axis", K::Axis), required("factor", K::Int), required("offset", K::Int)},
         "Pad a stage's buffer along one of its dimensions so that the stride is factor*k + "
         "offset",
         "s[AA].storage_align(AA.op.axis[0], 16, 1)",
         "AA = s.cache_read(A, \"local\", [C])\n",
         {},
         applyStorageAlign,
         nullptr},
        {"double_buffer",
         onStage,
         {},
         "Give a stage computed inside a loop two buffers: the next iteration's data is fetched "
         "while this iteration's is used",
         "s[AA].double_buffer()",
         std::string("AA = s.cache_read(A, \"shared\", [C])\n") + kTile + kSplitK +
             "s[C].reorder(xo, yo, ko, xi, yi, ki)\ns[AA].compute_at(s[C], ko)\n",
         {},
         applyDoubleBuffer,
         nullptr},
        {"set_store_predicate",
         onStage,
         {required("predicate", K::Value)},
         "Store the stage's values only where a condition holds (a reduction shared among "
         "threads: tx.var.equal(0), its first thread)",
         "s[C].set_store_predicate(x < 32)",
         {},
         {},
         applySetStorePredicate,
         nullptr},
        {"compute_at",
         onStage,
         {required("parent", K::Stage), required("scope", K::Axis)},
         "Compute a producer inside a loop of one of its consumers",
         "s[CC].compute_at(s[C], yo)",
         std::string("CC = s.cache_write(C, \"local\")\n") + kTile,
         {},
         applyComputeAt,
         nullptr},
        {"compute_inline",
         onStage,
         {},
         "Inline an element-wise stage into the stages that read it",
         "s[BT].compute_inline()",
         "",
         {},
         applyComputeInline,
         nullptr},
        {"compute_root",
         onStage,
         {},
         "Compute a stage at the root, on its own, before its consumers",
         "s[BT].compute_root()",
         "s[BT].compute_at(s[C], x)\n",
         {},
         applyComputeRoot,
         nullptr},
        {"cache_read",
         onSchedule,
         {required("tensor", K::Tensor), required("scope", K::Scope, "scope"),
          required("readers", K::Tensors)},
         "Read a tensor through a copy in the given scope, for the given readers",
         "AA = s.cache_read(A, \"local\", [C])",
         "",
         {"cache"},
         applyCacheRead,
         cacheNames},
        {"cache_write",
         onSchedule,
         {required("tensor", K::Tensor), required("scope", K::Scope, "scope")},
         "Compute a stage into a cache in the given scope, then copy the cache out",
         "CC = s.cache_write(C, \"local\")",
         "",
         {"cache"},
         applyCacheWrite,
         cacheNames},
        {"rfactor",
         onSchedule,
         {required("tensor", K::Tensor), required("axis", K::Axis),
          optionalKeyword("factor_axis", K::Int, "0", "factor_axis")},
         "Factor a reduction over one of its reduction loops into a new stage",
         "CF = s.rfactor(C, ki)",
         kSplitK,
         {"factored"},
         applyRfactor,
         rfactorNames},
    };
    return c;
}

const char* const kExampleDeclarations = R"(from tvm import te
M = N = K = 64
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
BT = te.compute((N, K), lambda j, kk: B[kk, j], name="BT")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * BT[j, k], axis=k), name="C")
s = te.create_schedule(C.op)
x, y = s[C].op.axis
)";

} // namespace

const StepArg& ScheduleStep::arg(std::string_view name) const
{
    LS_ASSERT(primitive, "a schedule step without a primitive");
    int i = primitive->argIndex(name);
    LS_ASSERT(i >= 0 && static_cast<std::size_t>(i) < args.size(),
              primitive->name << " has no argument " << name);
    return args[static_cast<std::size_t>(i)];
}

StepArg& ScheduleStep::arg(std::string_view name)
{
    return const_cast<StepArg&>(static_cast<const ScheduleStep*>(this)->arg(name));
}

int PrimitiveSpec::argIndex(std::string_view argName) const
{
    for (std::size_t i = 0; i < args.size(); ++i)
        if (args[i].name == argName) return static_cast<int>(i);
    return -1;
}

std::string PrimitiveSpec::argLabel(int index) const
{
    const ArgSpec& a = args.at(static_cast<std::size_t>(index));
    return a.label.empty() ? name + " " + a.name : a.label;
}

std::string PrimitiveSpec::signature() const
{
    std::string out = name + "(";
    for (std::size_t i = 0; i < args.size(); ++i) {
        const ArgSpec& a = args[i];
        out += i ? ", " : "";
        if (a.kind == ArgKind::Axes)
            out += "*" + a.name;
        else
            out += a.required ? a.name : a.name + "=" + a.defaultText;
    }
    return out + ")";
}

const std::vector<PrimitiveSpec>& primitiveCatalogue()
{
    static const std::vector<PrimitiveSpec> catalogue = makeCatalogue();
    return catalogue;
}

const PrimitiveSpec* findPrimitive(std::string_view name)
{
    for (const PrimitiveSpec& p : primitiveCatalogue())
        if (p.name == name) return &p;
    return nullptr;
}

std::string exampleScript(const PrimitiveSpec& primitive, bool withExample)
{
    std::string script = kExampleDeclarations + primitive.exampleSetup;
    if (withExample) script += primitive.example + "\n";
    return script;
}

ScheduleStep makeStep(const PrimitiveSpec& primitive, Tensor stage)
{
    ScheduleStep step;
    step.primitive = &primitive;
    step.stage = std::move(stage);
    step.args.resize(primitive.args.size());
    return step;
}

AppliedStep applyToCopy(const Schedule& schedule, const ScheduleStep& step)
{
    LS_ASSERT(step.primitive && step.primitive->apply, "a schedule step without a primitive");
    LS_ASSERT(step.args.size() == step.primitive->args.size(),
              step.primitive->name << " step has " << step.args.size() << " arguments, needs "
                                   << step.primitive->args.size());
    AppliedStep out{schedule, {}, std::nullopt};
    try {
        out.output = step.primitive->apply(out.schedule, step);
    } catch (const ScheduleError& e) {
        out.error = e;
        out.schedule = schedule;
    }
    return out;
}

std::string printStatement(const PrimitiveSpec& primitive, const std::string& scheduleVar,
                           const std::string& stageVar, const std::vector<PrintedArg>& args,
                           const std::vector<std::string>& results)
{
    std::ostringstream out;
    for (std::size_t i = 0; i < results.size(); ++i)
        out << (i ? ", " : "") << results[i];
    if (!results.empty()) out << " = ";
    if (primitive.on == PrimitiveOn::Stage)
        out << scheduleVar << "[" << stageVar << "]." << primitive.name << "(";
    else
        out << scheduleVar << "." << primitive.name << "(";
    bool any = false;
    for (std::size_t i = 0; i < primitive.args.size() && i < args.size(); ++i) {
        if (!args[i]) continue;
        const ArgSpec& spec = primitive.args[i];
        const std::vector<std::string>& items = *args[i];
        out << (any ? ", " : "");
        any = true;
        if (spec.keyword) out << spec.name << "=";
        auto joined = [&](const char* sep) {
            std::string s;
            for (std::size_t k = 0; k < items.size(); ++k)
                s += (k ? sep : "") + items[k];
            return s;
        };
        switch (spec.kind) {
        case ArgKind::Text:
        case ArgKind::Scope: out << "\"" << joined("") << "\""; break;
        case ArgKind::Stage: out << scheduleVar << "[" << joined("") << "]"; break;
        case ArgKind::Tensors: out << "[" << joined(", ") << "]"; break;
        case ArgKind::ThreadAxis: out << "te.thread_axis(\"" << joined("") << "\")"; break;
        default: out << joined(", "); break;
        }
    }
    out << ")";
    return out.str();
}

} // namespace loopscope
