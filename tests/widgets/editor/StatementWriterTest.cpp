// The statement writer: every primitive's statement (checked by evaluating the script with it),
// fresh names that do not clash, and the refusals that disable the schedule panel's actions.
#include "EditorTestScripts.h"

#include "editor/StatementWriter.h"
#include "explore/Explorer.h"
#include "schedule/Primitives.h"

#include "support/QtTestMain.h"

#include <QTest>

using namespace loopscope;
using namespace Qt::StringLiterals;
using namespace editortest;

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// The loops as the panel passes the selected ones.
void setLoops(NamedStep& r, const std::vector<std::string>& loops)
{
    const PrimitiveSpec& spec = *findPrimitive(r.primitive);
    for (const ArgSpec& a : spec.args)
        if (a.kind == ArgKind::Axis || a.kind == ArgKind::Axes)
            r.args.erase(a.name);
        else if (a.kind == ArgKind::Stage)
            break;
    fillLoops(r, spec, loops);
}

// A step as the panel's form makes it by default: factors of 8, storage_align's factor 8 and
// offset 0, the unroll pragma without a value, the local scope, threadIdx.x, no consumer chosen
// and no readers.
NamedStep request(const std::string& p, const std::string& stage,
                  std::vector<std::string> loops = {})
{
    NamedStep r(p, stage);
    const PrimitiveSpec& spec = *findPrimitive(p);
    for (const ArgSpec& a : spec.args) {
        switch (a.kind) {
        case ArgKind::Factor:
            if (a.required || a.name == "factor") r.number(a.name, 8);
            break;
        case ArgKind::Int:
            if (a.required) r.number(a.name, a.name == "offset" ? 0 : 8);
            break;
        case ArgKind::Text: r.text(a.name, "unroll"); break;
        case ArgKind::Scope: r.text(a.name, "local"); break;
        case ArgKind::ThreadAxis: r.text(a.name, "threadIdx.x"); break;
        case ArgKind::Stage: r.stages(a.name, {""}); break;
        case ArgKind::Tensors: r.stages(a.name, {}); break;
        default: break;
        }
    }
    setLoops(r, loops);
    return r;
}

// A script whose matmul variant has only its reduction split.
const char* kSplitKOnly = R"(import tvm
from tvm import te

M = 64
K = 64
N = 64
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

# variant: split k
s = te.create_schedule(C.op)
ko, ki = s[C].split(k, factor=4)
)";

} // namespace

class StatementWriterTest : public QObject {
    Q_OBJECT

private:
    // Writes the request for a variant of the sample and checks that the script with the
    // statement appended to the variant's block evaluates and lowers.
    QString writeAndCheck(const VariantFixture& f, const NamedStep& r)
    {
        StatementWriter w(f.stages, f.context);
        WrittenStatement s = w.write(r);
        if (!s.ok()) {
            QTest::qFail(qPrintable(u"refused: "_s + q(s.refusal)), __FILE__, __LINE__);
            return {};
        }
        std::string error;
        std::string script = insertAfter(f.script, f.lastLine, s.text);
        if (!evaluatesCleanly(script, &error)) {
            QTest::qFail(qPrintable(q("the statement does not evaluate: " + error + "\n" + s.text)),
                         __FILE__, __LINE__);
        }
        return q(s.text);
    }

    QString refusal(const VariantFixture& f, const NamedStep& r)
    {
        return q(StatementWriter(f.stages, f.context).whyIllegal(r));
    }

    VariantFixture matmul(const std::string& variant)
    {
        return fixture(readSample("matmul_ladder.py"), variant);
    }

private slots:
    void fixturesLoad()
    {
        VariantFixture f = matmul("split k");
        QCOMPARE(f.stages.size(), 3u);
        QCOMPARE(q(f.context.axisVars["j.inner"]), u"ji"_s);
        QCOMPARE(q(f.context.tensorVars["C"]), u"C"_s);
    }

    void splitBoundAxis()
    {
        NamedStep r = request("split", "C", {"j.inner"});
        r.number("factor", 8);
        QCOMPARE(writeAndCheck(matmul("split k"), r),
                 u"j_inner_outer, j_inner_inner = s[C].split(ji, factor=8)"_s);
    }

    void splitByNparts()
    {
        NamedStep r = request("split", "C", {"i.outer"});
        r.args.erase("factor");
        r.number("nparts", 4);
        QCOMPARE(writeAndCheck(matmul("split k"), r),
                 u"i_outer_outer, i_outer_inner = s[C].split(io, nparts=4)"_s);
    }

    void splitNamesDoNotClash()
    {
        VariantFixture f = matmul("split k");
        f.context.usedNames.insert("j_inner_outer");
        f.context.usedNames.insert("j_inner_outer_1");
        f.context.usedNames.insert("j_inner_inner");
        NamedStep r = request("split", "C", {"j.inner"});
        QCOMPARE(writeAndCheck(f, r),
                 u"j_inner_outer_2, j_inner_inner_1 = s[C].split(ji, factor=8)"_s);
    }

    void splitRootAxisWithoutVariableBindsIt()
    {
        VariantFixture f = matmul("naive");
        QVERIFY(!f.context.axisVars.count("i"));
        QVERIFY(f.context.usedNames.count("i")); // bound by later variants
        f.context.usedNames.erase("i");
        NamedStep r = request("split", "C", {"i"});
        // The stage's root axes are bound together, as TVM scripts do (j is taken elsewhere).
        QCOMPARE(writeAndCheck(f, r),
                 u"i, j_1 = s[C].op.axis\ni_outer, i_inner = s[C].split(i, factor=8)"_s);
        f.context.usedNames.insert("i");
        QCOMPARE(writeAndCheck(f, r),
                 u"i_1, j_1 = s[C].op.axis\ni_outer, i_inner = s[C].split(i_1, factor=8)"_s);
    }

    void reductionRootAxisBindsReduceAxis()
    {
        VariantFixture f = matmul("naive");
        f.context.axisVars.clear(); // as if the script had no variable for k
        NamedStep r = request("split", "C", {"k"});
        r.number("factor", 4);
        QCOMPARE(writeAndCheck(f, r),
                 u"(k_1,) = s[C].op.reduce_axis\nk_outer, k_inner = s[C].split(k_1, factor=4)"_s);
    }

    void derivedAxisWithoutVariableIsBoundByItsPosition()
    {
        VariantFixture f = matmul("split k");
        f.context.axisVars.erase("i.outer");
        QCOMPARE(writeAndCheck(f, request("parallel", "C", {"i.outer"})),
                 u"i_outer = s[C].leaf_iter_vars[0]\ns[C].parallel(i_outer)"_s);
    }

    void stageWithoutVariableIsRefused()
    {
        VariantFixture f = matmul("naive");
        f.context.tensorVars.erase("C");
        QString why = refusal(f, request("split", "C", {"k"}));
        QVERIFY2(why.contains(u"tensor 'C' has no script variable"_s), qPrintable(why));
    }

    void perStageAxisVariablesTakePrecedence()
    {
        VariantFixture f = matmul("split k");
        f.context.stageAxisVars["C"]["j.inner"] = "ji";
        f.context.axisVars["j.inner"] = "other";
        NamedStep r = request("vectorize", "C", {"j.inner"});
        QCOMPARE(writeAndCheck(f, r), u"s[C].vectorize(ji)"_s);
    }

    void tile()
    {
        VariantFixture f = matmul("naive");
        f.context.axisVars["i"] = "i";
        f.context.axisVars["j"] = "j";
        // Bind i, j in the script the way the context says.
        f.script = insertAfter(f.script, f.lastLine, "i, j = s[C].op.axis");
        f.lastLine += 1;
        NamedStep r = request("tile", "C", {"i", "j"});
        r.number("x_factor", 8);
        r.number("y_factor", 4);
        QCOMPARE(writeAndCheck(f, r),
                 u"i_outer, j_outer, i_inner, j_inner = s[C].tile(i, j, x_factor=8, y_factor=4)"_s);
        QCOMPARE(refusal(f, request("tile", "C", {"i", "i"})), u"tile needs two different axes"_s);
        r.number("y_factor", 0);
        QCOMPARE(refusal(f, r), u"tile factor must be a positive integer"_s);
    }

    void fuseAdjacent()
    {
        NamedStep r = request("fuse", "C", {"j.outer", "i.outer"});
        QCOMPARE(writeAndCheck(matmul("tile 32x32"), r),
                 u"i_outer_j_outer_fused = s[C].fuse(io, jo)"_s);
        setLoops(r, {"i.outer", "j.outer", "i.inner"});
        QCOMPARE(writeAndCheck(matmul("tile 32x32"), r),
                 u"i_outer_j_outer_fused_i_inner_fused = s[C].fuse(io, jo, ii)"_s);
    }

    void fuseRefusals()
    {
        VariantFixture f = matmul("tile 32x32"); // io, jo, ii, ji, k
        QCOMPARE(
            refusal(f, request("fuse", "C", {"i.outer", "i.inner"})),
            u"can only fuse adjacent axes: 'i_outer' and 'i_inner' are not next to each other"_s);
        QCOMPARE(refusal(f, request("fuse", "C", {"j.inner", "k"})),
                 u"cannot fuse data-parallel axis with reduction axis: 'j_inner' and 'k'"_s);
        QCOMPARE(refusal(f, request("fuse", "C", {"i.outer"})), u"fuse needs two or more axes"_s);
    }

    void reorderWritesOnlyTheAxesThatMoved()
    {
        // io, jo, ko, ii, ji, ki -> io, jo, ko, ki, ii, ji
        NamedStep r = request("reorder", "C",
                              {"i.outer", "j.outer", "k.outer", "k.inner", "i.inner", "j.inner"});
        QCOMPARE(writeAndCheck(matmul("split k"), r), u"s[C].reorder(ki, ii, ji)"_s);
        setLoops(r, {"j.inner", "i.inner"});
        QCOMPARE(writeAndCheck(matmul("split k"), r), u"s[C].reorder(ji, ii)"_s);
    }

    void reorderRefusals()
    {
        VariantFixture f = matmul("split k");
        QCOMPARE(refusal(f, request("reorder", "C", {"i.outer", "j.outer"})),
                 u"the loop order is unchanged"_s);
        QCOMPARE(refusal(f, request("reorder", "C", {"j.outer", "j.outer"})),
                 u"axis 'j_outer' appears more than once in reorder"_s);
        QCOMPARE(refusal(f, request("reorder", "C", {"i", "j.outer"})),
                 u"axis 'i' is not a loop of 'C'"_s);
    }

    void vectorizeParallelUnroll()
    {
        VariantFixture f = matmul("split k");
        QCOMPARE(writeAndCheck(f, request("vectorize", "C", {"j.inner"})), u"s[C].vectorize(ji)"_s);
        QCOMPARE(writeAndCheck(f, request("parallel", "C", {"i.outer"})), u"s[C].parallel(io)"_s);
        QCOMPARE(writeAndCheck(f, request("unroll", "C", {"k.inner"})), u"s[C].unroll(ki)"_s);
    }

    void annotationRefusals()
    {
        VariantFixture f = matmul("split k");
        QCOMPARE(refusal(f, request("vectorize", "C", {"k.inner"})),
                 u"cannot vectorize reduction axis 'k_inner'; vectorize a data-parallel axis "
                 "(reorder it innermost)"_s);
        QCOMPARE(refusal(f, request("parallel", "C", {"k.outer"})),
                 u"cannot parallelize reduction axis 'k_outer': its iterations update the same "
                 "output element"_s);
        QCOMPARE(refusal(f, request("vectorize", "A", {})),
                 u"'A' is a placeholder; it has no loops to schedule"_s);
        QCOMPARE(refusal(f, request("vectorize", "C", {})), u"select one axis to vectorize"_s);
        VariantFixture v = matmul("vectorize");
        QCOMPARE(refusal(v, request("vectorize", "C", {"j.inner.inner"})),
                 u"'j_inner_inner' is already vectorized"_s);
    }

    void pragma()
    {
        VariantFixture f = matmul("split k");
        NamedStep r = request("pragma", "C", {"i.outer"});
        r.text("pragma_type", "auto_unroll_max_step");
        r.number("pragma_value", 16);
        QCOMPARE(writeAndCheck(f, r), u"s[C].pragma(io, \"auto_unroll_max_step\", 16)"_s);
        r.text("pragma_type", "unroll");
        r.args.erase("pragma_value");
        setLoops(r, {"k.inner"});
        QCOMPARE(writeAndCheck(f, r), u"s[C].pragma(ki, \"unroll\")"_s);
        r.text("pragma_type", "auto_unroll_max_step");
        QCOMPARE(refusal(f, r),
                 u"pragma auto_unroll_max_step needs a non-negative integer value"_s);
        r.text("pragma_type", "fast");
        QVERIFY(refusal(f, r).startsWith(u"unknown pragma 'fast'"_s));
    }

    void bind()
    {
        NamedStep r = request("bind", "C", {"i.outer"});
        r.text("thread_ivar", "blockIdx.x");
        VariantFixture f = matmul("split k");
        QCOMPARE(q(StatementWriter(f.stages, f.context).write(r).text),
                 u"s[C].bind(io, te.thread_axis(\"blockIdx.x\"))"_s);
        // Bound loops lower (the CPU code generator refuses them later).
        QVERIFY2(explore(insertAfter(f.script, f.lastLine,
                                     "s[C].bind(io, te.thread_axis(\"blockIdx.x\"))"))
                     .ok,
                 "bind does not evaluate");
    }

    void storageAlign()
    {
        VariantFixture f = matmul("split k");
        NamedStep r = request("storage_align", "C", {"i.outer"});
        r.number("factor", 16);
        r.number("offset", 1);
        QCOMPARE(refusal(f, r),
                 u"storage_align needs one of the tensor's own dimensions (an axis of "
                 "op.axis), not a split or reduction axis"_s);
        VariantFixture n = matmul("naive");
        setLoops(r, {"i"});
        QCOMPARE(writeAndCheck(n, r), u"i_1, j_1 = s[C].op.axis\ns[C].storage_align(i_1, 16, 1)"_s);
        r.number("offset", 16);
        QCOMPARE(refusal(n, r), u"storage_align offset must be in [0, factor)"_s);
        setLoops(r, {"k"});
        r.number("offset", 0);
        QVERIFY(refusal(n, r).startsWith(u"storage_align needs one of the tensor's own"_s));
    }

    void computeAt()
    {
        VariantFixture f = fixture(readSample("softmax.py"), "stages");
        QVERIFY(!f.stages.empty());
        // maxelem is read by expval only, so it can be computed per row of expval.
        NamedStep r = request("compute_at", "maxelem");
        r.stages("parent", {"expval"});
        r.loops("scope", {"i"});
        QCOMPARE(writeAndCheck(f, r),
                 u"i_1, j_1 = s[expval].op.axis\ns[maxelem].compute_at(s[expval], i_1)"_s);
        // A loop that already has a variable is used as it is.
        f.context.stageAxisVars["expval"]["i"] = "row";
        f.script = insertAfter(f.script, f.lastLine, "row = s[expval].op.axis[0]");
        f.lastLine += 1;
        QCOMPARE(writeAndCheck(f, r), u"s[maxelem].compute_at(s[expval], row)"_s);
    }

    void computeAtRefusals()
    {
        VariantFixture f = fixture(readSample("softmax.py"), "stages");
        f.context.readers = {{"A", {"maxelem", "expval"}},
                             {"maxelem", {"expval"}},
                             {"expval", {"expsum", "softmax"}},
                             {"expsum", {"softmax"}}};
        NamedStep r = request("compute_at", "softmax");
        QCOMPARE(refusal(f, r), u"cannot compute_at 'softmax': it is an output; only producers can "
                                "be computed inside a consumer's loop"_s);
        r.stage = "A";
        QCOMPARE(refusal(f, r), u"'A' is a placeholder; only computed tensors can be attached"_s);
        r.stage = "maxelem";
        QCOMPARE(refusal(f, r), u"choose a loop of a consumer to compute 'maxelem' at"_s);
        r.stages("parent", {"expsum"});
        r.loops("scope", {"i"});
        // As TVM, a producer may go to a loop of any stage that uses it, also through stages
        // attached later (a cache stage's reader); where a reader stays outside the loop,
        // lowering says so at this statement.
        QCOMPARE(refusal(f, r), QString());
        r.stages("parent", {"maxelem"});
        QCOMPARE(refusal(f, r), u"cannot compute 'maxelem' at its own axis 'i'"_s);
        r.stages("parent", {"expval"});
        r.loops("scope", {"nope"});
        QCOMPARE(refusal(f, r), u"axis 'nope' is not a loop of 'expval'"_s);
        QCOMPARE(q(StatementWriter(f.stages, f.context).consumersOf("expval")[1]), u"softmax"_s);
    }

    void computeInlineAndRoot()
    {
        VariantFixture f = fixture(readSample("add_relu.py"), "separate");
        QCOMPARE(writeAndCheck(f, request("compute_inline", "add")), u"s[add].compute_inline()"_s);
        QCOMPARE(refusal(f, request("compute_inline", "relu")),
                 u"cannot inline 'relu': it is an output of the schedule and must be stored"_s);
        QCOMPARE(refusal(f, request("compute_inline", "A")),
                 u"'A' is a placeholder; there is nothing to inline"_s);
        QCOMPARE(refusal(f, request("compute_root", "add")),
                 u"'add' is already computed at root"_s);
        VariantFixture fused = fixture(readSample("add_relu.py"), "fused");
        QCOMPARE(refusal(fused, request("compute_inline", "add")), u"'add' is already inlined"_s);
        QCOMPARE(writeAndCheck(fused, request("compute_root", "add")), u"s[add].compute_root()"_s);
        QCOMPARE(refusal(fused, request("split", "add", {"i"})),
                 u"'add' is inlined; it has no loops (compute_root it first)"_s);
        VariantFixture mm = matmul("naive");
        QCOMPARE(
            refusal(mm, request("compute_inline", "C")),
            u"cannot inline 'C': it is a reduction; compute_at it into its consumer instead"_s);
        // A stage whose loops were scheduled cannot be inlined.
        VariantFixture sx = fixture(
            insertAfter(f.script, f.lastLine, "xo, xi = s[add].split(add.op.axis[0], factor=4)"),
            "separate");
        QCOMPARE(
            refusal(sx, request("compute_inline", "add")),
            u"cannot inline 'add': its loops have been scheduled; an inlined stage has no loops"_s);
    }

    void cacheRead()
    {
        VariantFixture f = matmul("naive");
        NamedStep r = request("cache_read", "A");
        r.text("scope", "shared");
        r.stages("readers", {"C"});
        QCOMPARE(writeAndCheck(f, r), u"A_shared = s.cache_read(A, \"shared\", [C])"_s);
        f.context.usedNames.insert("A_shared");
        QCOMPARE(writeAndCheck(f, r), u"A_shared_1 = s.cache_read(A, \"shared\", [C])"_s);
        r.stages("readers", {});
        QCOMPARE(refusal(f, r), u"cache_read needs at least one reader"_s);
        r.stages("readers", {"B"});
        QCOMPARE(refusal(f, r), u"'B' does not read 'A'"_s);
        r.stages("readers", {"C"});
        r.text("scope", "texture");
        QVERIFY(refusal(f, r).startsWith(u"unknown storage scope 'texture'"_s));
    }

    void cacheWrite()
    {
        VariantFixture f = matmul("naive");
        NamedStep r = request("cache_write", "C");
        r.text("scope", "local");
        QCOMPARE(writeAndCheck(f, r), u"C_local = s.cache_write(C, \"local\")"_s);
        r.text("scope", "global");
        QCOMPARE(writeAndCheck(f, r), u"C_global = s.cache_write(C, \"global\")"_s);
        QCOMPARE(refusal(matmul("tile 32x32"), r),
                 u"cache_write of 'C' must come before any other primitive on it"_s);
        r.stage = "A";
        QCOMPARE(refusal(f, r), u"cannot cache_write 'A': it is a placeholder"_s);
    }

    void rfactor()
    {
        VariantFixture n = matmul("naive");
        QCOMPARE(writeAndCheck(n, request("rfactor", "C", {"k"})), u"C_rf = s.rfactor(C, k)"_s);
        VariantFixture f = fixture(kSplitKOnly, "split k");
        QVERIFY(!f.stages.empty());
        NamedStep r = request("rfactor", "C", {"k.inner"});
        QCOMPARE(writeAndCheck(f, r), u"C_rf = s.rfactor(C, ki)"_s);
        r.number("factor_axis", 1);
        QCOMPARE(writeAndCheck(f, r), u"C_rf = s.rfactor(C, ki, factor_axis=1)"_s);
        r.number("factor_axis", 3);
        QCOMPARE(refusal(f, r), u"factor_axis must be between 0 and 2"_s);
    }

    void rfactorRefusals()
    {
        VariantFixture f = matmul("split k");
        QCOMPARE(refusal(f, request("rfactor", "C", {"i.outer"})),
                 u"rfactor needs a reduction axis; 'i_outer' is data-parallel"_s);
        QCOMPARE(refusal(f, request("rfactor", "C", {"k.inner"})),
                 u"rfactor of 'C' must come before splitting or fusing its other axes"_s);
        QCOMPARE(refusal(matmul("parallel"), request("rfactor", "C", {"k.inner"})),
                 u"rfactor of 'C' must come before compute_at or loop annotations on it"_s);
        VariantFixture a = fixture(readSample("add_relu.py"), "separate");
        QCOMPARE(refusal(a, request("rfactor", "add", {"i"})),
                 u"cannot rfactor 'add': it is not a reduction"_s);
    }

    void newVariantFromHere()
    {
        std::string script = readSample("matmul_ladder.py");
        Exploration x = explore(script);
        const VariantView* v = findVariant(x, "tile 32x32");
        QVERIFY(v);
        std::string block =
            StatementWriter::newVariantFromHere(script, v->line, v->lastLine, "tile 32x32 b");
        QCOMPARE(q(block), u"\n# variant: tile 32x32 b\n"
                           "s = te.create_schedule(C.op)\n"
                           "i, j = s[C].op.axis\n"
                           "io, ii = s[C].split(i, factor=32)\n"
                           "jo, ji = s[C].split(j, factor=32)\n"
                           "s[C].reorder(io, jo, ii, ji)"_s);
        // Inserted after the block, it is a variant of its own with the same steps.
        std::string copied = insertAfter(script, v->lastLine, block);
        Exploration y = explore(copied);
        QVERIFY(y.ok);
        const VariantView* c = findVariant(y, "tile 32x32 b");
        QVERIFY(c);
        QCOMPARE(c->steps.size(), v->steps.size());
        QCOMPARE(q(c->steps.back().tir), q(v->steps.back().tir));
        QCOMPARE(y.variants.size(), x.variants.size() + 1);
    }

    // A TensorIR variant: the same steps written as tir.Schedule calls, in the script's
    // spelling, binding the handles the script does not hold; each evaluates, and the variant
    // gains the step.
    void tensorIRStepsAreSchCalls()
    {
        const std::string script = R"(import tvm
from tvm import te
M = 64
A = te.placeholder((M, M), name="A")
B = te.placeholder((M, M), name="B")
r = te.reduce_axis((0, M), name="r")
Y = te.compute((M, M), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="Y")
C = te.compute((M, M), lambda i, j: te.max(Y[i, j], te.const(0, "float32")), name="C")
func = te.create_prim_func([A, B, C])

# variant: plain
sch = tvm.tir.Schedule(func)
sch.mod.show()

# variant: split
s2 = tvm.s_tir.Schedule(func)
b = s2.get_sblock("Y")
y0, y1, y2 = s2.get_loops(b)
jo, ji = s2.split(y1, factors=[None, 8])
)";
        auto written = [&](const std::string& variant, const NamedStep& r) -> QString {
            VariantFixture f = fixture(script, variant);
            WrittenStatement w = StatementWriter(f.stages, f.context).write(r);
            if (!w.ok()) return u"refused: "_s + q(w.refusal);
            const std::string after = insertAfter(script, f.lastLine, w.text);
            Exploration x = explore(after, {}, variant);
            const VariantView* v = findVariant(x, variant);
            if (!x.ok || !v || v->steps.back().error)
                return u"does not evaluate: "_s + q(x.error.message) + u"\n"_s + q(w.text);
            return q(w.text);
        };
        VariantFixture plain = fixture(script, "plain");
        QCOMPARE(plain.stages.size(), 4u); // A, B, then the blocks Y and C
        QCOMPARE(q(plain.stages[2].name), u"Y"_s);
        QCOMPARE(q(plain.stages[2].kind), u"reduction"_s);
        QCOMPARE(plain.stages[2].axes.size(), 3u);
        QVERIFY(plain.stages[2].axes[2].reduction);
        QCOMPARE(plain.stages[2].axes[2].extent, 64);
        QVERIFY(plain.stages[3].output);

        QCOMPARE(written("plain", request("split", "Y", {"j"})),
                 u"block_Y = sch.get_block(\"Y\")\ni, j, r_1 = sch.get_loops(block_Y)\n"
                 "j_0, j_1 = sch.split(j, factors=[None, 8])"_s);
        QCOMPARE(written("plain", request("tile", "C", {"i", "j"})),
                 u"block_C = sch.get_block(\"C\")\ni, j = sch.get_loops(block_C)\n"
                 "i_0, i_1 = sch.split(i, factors=[None, 8])\n"
                 "j_0, j_1 = sch.split(j, factors=[None, 8])\n"
                 "sch.reorder(i_0, j_0, i_1, j_1)"_s);
        QCOMPARE(written("plain", request("fuse", "C", {"i", "j"})),
                 u"block_C = sch.get_block(\"C\")\ni, j = sch.get_loops(block_C)\n"
                 "i_j_fused = sch.fuse(i, j)"_s);
        QCOMPARE(written("plain", request("reorder", "Y", {"r", "i", "j"})),
                 u"block_Y = sch.get_block(\"Y\")\ni, j, r_1 = sch.get_loops(block_Y)\n"
                 "sch.reorder(r_1, i, j)"_s);
        NamedStep at = request("compute_at", "Y");
        at.stages("parent", {"C"}).loops("scope", {"j"});
        QCOMPARE(written("plain", at),
                 u"block_Y = sch.get_block(\"Y\")\nblock_C = sch.get_block(\"C\")\n"
                 "i, j = sch.get_loops(block_C)\nsch.compute_at(block_Y, j)"_s);
        NamedStep cacheRead = request("cache_read", "A");
        cacheRead.stages("readers", {"Y"}).text("scope", "shared");
        QCOMPARE(written("plain", cacheRead),
                 u"block_Y = sch.get_block(\"Y\")\n"
                 "block_A_shared = sch.cache_read(block_Y, 0, \"shared\")"_s);
        QCOMPARE(written("plain", request("cache_write", "Y")),
                 u"block_Y = sch.get_block(\"Y\")\n"
                 "block_Y_local = sch.cache_write(block_Y, 0, \"local\")"_s);
        QVERIFY(written("plain", request("compute_inline", "Y")).startsWith(u"refused: "_s));

        // Held handles are used (loops are named as TVM names them), in v0.24-v0.26's spelling.
        QCOMPARE(written("split", request("vectorize", "Y", {"j_1"})), u"s2.vectorize(ji)"_s);
        NamedStep decompose("decompose_reduction", "Y");
        decompose.loops("loop", {"r"});
        QCOMPARE(written("split", decompose), u"block_Y_init = s2.decompose_reduction(b, y2)"_s);
        NamedStep reverseAt("reverse_compute_at", "C");
        reverseAt.stages("parent", {"Y"}).loops("scope", {"j_0"});
        QCOMPARE(written("split", reverseAt),
                 u"block_C = s2.get_sblock(\"C\")\ns2.reverse_compute_at(block_C, jo)"_s);
        // As TVM: a consumer of a reduction does not fold into it.
        QVERIFY(written("split", NamedStep("reverse_compute_inline", "C"))
                    .contains(u"single producer that is a complete block"_s));
        NamedStep rf = request("rfactor", "Y");
        rf.loops("axis", {"r"});
        QCOMPARE(written("split", rf), u"block_Y_rf = s2.rfactor(y2, 0)"_s);

        NamedStep blockize("blockize", "Y");
        blockize.loops("loop", {"j_1"});
        QCOMPARE(written("split", blockize), u"block_Y_o = s2.blockize(ji)"_s);

        // A pragma is the loop's annotation (TE's unroll pragma, the loop's kind).
        NamedStep pragma = request("pragma", "Y", {"j_0"});
        QCOMPARE(written("split", pragma), u"s2.unroll(jo)"_s);
        pragma.text("pragma_type", "auto_unroll_max_step").number("pragma_value", 16);
        QCOMPARE(written("split", pragma),
                 u"s2.annotate(jo, \"pragma_auto_unroll_max_step\", 16)"_s);

        // What TensorIR refuses, or lacks, is said.
        // A reduction loop bound to threadIdx is a cross-thread reduction; to blockIdx, refused.
        NamedStep bind = request("bind", "Y", {"r"});
        QCOMPARE(written("split", bind), u"s2.bind(y2, \"threadIdx.x\")"_s);
        bind.text("thread_ivar", "blockIdx.x");
        QVERIFY(written("split", bind).contains(u"threads of one block (threadIdx) only"_s));
        QVERIFY(written("split", request("compute_root", "Y")).contains(u"no compute_root"_s));
        QVERIFY(written("split", request("vectorize", "Y", {"r"})).startsWith(u"refused"_s));
        QVERIFY(written("split", request("split", "Y", {"nope"})).contains(u"not a loop"_s));
    }
};

LOOPSCOPE_QTEST_MAIN(StatementWriterTest)
#include "StatementWriterTest.moc"
