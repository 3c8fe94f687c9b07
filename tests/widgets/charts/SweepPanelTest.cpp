// The sweep panel: its defaults from an analysis, the request it builds, choices kept across
// analyses, Start/Cancel and the progress text (Qt Test, offscreen). The store of measured
// points: kept by variant key, so an edit of one variant leaves the others' points known, and
// across sessions.
#include "charts/SweepPanel.h"
#include "charts/SweepStore.h"

#include "support/QtTestMain.h"

#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using loopscope::Exploration;
using loopscope::ExplorationPtr;
using loopscope::SweepPanel;

namespace {

ExplorationPtr exploration(const QStringList& parameters, const QStringList& variants)
{
    auto x = std::make_shared<Exploration>();
    x->ok = true;
    for (const QString& p : parameters) {
        loopscope::Parameter parameter;
        parameter.name = p.toStdString();
        parameter.value = 64;
        x->parameters.push_back(parameter);
    }
    for (const QString& v : variants) {
        loopscope::VariantView view;
        view.name = v.toStdString();
        x->variants.push_back(view);
    }
    return x;
}

QStringList strings(const std::vector<std::string>& v)
{
    QStringList out;
    for (const std::string& x : v)
        out << QString::fromStdString(x);
    return out;
}

loopscope::protocol::SweepPoint point(const QString& variant, std::int64_t size, int threads)
{
    loopscope::protocol::SweepPoint p;
    p.variant = variant.toStdString();
    p.values = {size, size, size};
    p.threads = threads;
    p.runMs = 1.0;
    p.msMedian = 1.0;
    p.gflops = 5.0;
    return p;
}

// Three variants; "packed" declares a tensor of its own in its block.
const QString kThree = QStringLiteral(R"(import tvm
from tvm import te

M = 64
N = 64
K = 64
bn = 8

k = te.reduce_axis((0, K), "k")
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * B[k, n], axis=k), name="C")

# variant: naive
s = te.create_schedule(C.op)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# variant: tiled
s = te.create_schedule(C.op)
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
print(tvm.lower(s, [A, B, C], simple_mode=True))

# variant: packed
D = te.compute((M, N), lambda m, n: C[m, n] + 1, name="D")
s = te.create_schedule(D.op)
print(tvm.lower(s, [A, B, D], simple_mode=True))
)");

QString edited(QString text, const QString& from, const QString& to)
{
    const qsizetype at = text.indexOf(from);
    if (at < 0) qFatal("no '%s' in the script", qPrintable(from));
    return text.replace(at, from.size(), to);
}

loopscope::protocol::SweepPoint measured(const QString& variant, int size)
{
    return point(variant, size, 2);
}

QStringList knownVariants(const loopscope::SweepStore& store, const QString& script,
                          const QStringList& parameters)
{
    QStringList out;
    for (const loopscope::protocol::SweepPoint& p : store.known(script, parameters)) {
        const QString name = QString::fromStdString(p.variant);
        if (!out.contains(name)) out << name;
    }
    out.sort();
    return out;
}

} // namespace

class SweepPanelTest : public QObject {
    Q_OBJECT

private slots:
    void requestHasTheDefaults()
    {
        SweepPanel panel;
        panel.setExploration(exploration(
            {QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K"), QStringLiteral("T")},
            {QStringLiteral("naive"), QStringLiteral("tiled")}));
        const loopscope::protocol::SweepRequest r =
            panel.sweepRequest(QStringLiteral("script text"));
        QCOMPARE(r.script, std::string("script text"));
        QCOMPARE(strings(r.parameters),
                 (QStringList{QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K")}));
        QCOMPARE(r.values, (std::vector<std::int64_t>{64, 128, 256, 512, 1024, 2048}));
        QCOMPARE(strings(r.variants),
                 (QStringList{QStringLiteral("naive"), QStringLiteral("tiled")}));
        QCOMPARE(r.maxPointSeconds, 10.0);
        QCOMPARE(r.blas, false);
        QCOMPARE(panel.pointTotal(), 12);
        QVERIFY(panel.startButton()->isEnabled());
        QVERIFY(!panel.cancelButton()->isEnabled());
    }

    void requestFollowsTheChoices()
    {
        SweepPanel panel;
        panel.setExploration(
            exploration({QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K")},
                        {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
        panel.setParameterChecked(QStringLiteral("M"), false);
        panel.setParameterChecked(QStringLiteral("K"), false);
        panel.setVariantChecked(QStringLiteral("b"), false);
        panel.findChild<QLineEdit*>(QStringLiteral("SweepValues"))
            ->setText(QStringLiteral("16, 32 ,48"));
        panel.setPointLimitSeconds(3);
        panel.setReference(true);
        const loopscope::protocol::SweepRequest r = panel.sweepRequest(QStringLiteral("s"));
        QCOMPARE(strings(r.parameters), QStringList{QStringLiteral("N")});
        QCOMPARE(r.values, (std::vector<std::int64_t>{16, 32, 48}));
        QCOMPARE(strings(r.variants), (QStringList{QStringLiteral("a"), QStringLiteral("c")}));
        QCOMPARE(r.maxPointSeconds, 3.0);
        QCOMPARE(r.blas, true);

        // A new analysis keeps the choices by name; a new variant comes checked.
        panel.setExploration(exploration(
            {QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K")},
            {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")}));
        QCOMPARE(panel.parameters(), QStringList{QStringLiteral("N")});
        QCOMPARE(panel.variants(),
                 (QStringList{QStringLiteral("a"), QStringLiteral("c"), QStringLiteral("d")}));
    }

    void startNeedsValidChoices()
    {
        SweepPanel panel;
        panel.setExploration(exploration({QStringLiteral("M")}, {QStringLiteral("a")}));
        QSignalSpy start(&panel, &SweepPanel::startRequested);
        panel.setValuesText(QStringLiteral("16,x"));
        QVERIFY(panel.values().isEmpty());
        QVERIFY(!panel.startButton()->isEnabled());
        panel.setValuesText(QStringLiteral("16,0"));
        QVERIFY(!panel.startButton()->isEnabled());
        panel.setValuesText(QStringLiteral("16"));
        panel.setParameterChecked(QStringLiteral("M"), false);
        QVERIFY(!panel.startButton()->isEnabled());
        panel.setParameterChecked(QStringLiteral("M"), true);
        QVERIFY(panel.startButton()->isEnabled());
        QTest::mouseClick(panel.startButton(), Qt::LeftButton);
        QCOMPARE(start.size(), 1);
    }

    void runningShowsProgressAndCancels()
    {
        SweepPanel panel;
        panel.setExploration(exploration({QStringLiteral("N")}, {QStringLiteral("a")}));
        QSignalSpy cancel(&panel, &SweepPanel::cancelRequested);
        panel.setRunning(true);
        QVERIFY(!panel.startButton()->isEnabled());
        QVERIFY(panel.cancelButton()->isEnabled());
        QTest::qWait(30);
        panel.setProgress(2, 6);
        QVERIFY2(panel.progressText().startsWith(QStringLiteral("2 / 6 points · about ")),
                 qPrintable(panel.progressText()));
        QVERIFY(panel.progressText().endsWith(QLatin1String(" left")));
        QTest::mouseClick(panel.cancelButton(), Qt::LeftButton);
        QCOMPARE(cancel.size(), 1);
        panel.setRunning(false);
        QCOMPARE(panel.progressText(), QStringLiteral("2 / 6 points"));
        QVERIFY(panel.startButton()->isEnabled());
        QVERIFY(!panel.cancelButton()->isEnabled());
    }

    void sweepPointsAsTheChartsShowThem()
    {
        loopscope::protocol::SweepPoint o;
        o.variant = "tiled";
        o.values = {32};
        o.msMedian = 1.5;
        o.gflops = 12.0;
        o.intensity = 4.0;
        o.checked = true;
        const loopscope::ChartPoint p = loopscope::chartPointOf(o);
        QCOMPARE(p.variant, QStringLiteral("tiled"));
        QCOMPARE(p.size, 32);
        QCOMPARE(p.msMedian, 1.5);
        QCOMPARE(p.gflops, 12.0);
        QCOMPARE(p.intensity, 4.0);
        QVERIFY(p.checked);
        QVERIFY(!p.skipped && !p.failed && !p.reference && !p.cached);
        loopscope::protocol::SweepPoint cached = o;
        cached.cached = true;
        QVERIFY(loopscope::chartPointOf(cached).cached);
    }

    void aVariantsKeyIsTheTextThatDecidesIt();
    void storedPointsSurviveAnEditOfAnotherVariantAndARestart();

    void storeKeepsPointsByScriptParametersAndThreads()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("points.json"));
        const QString script = QStringLiteral("M = 64\n");
        const QStringList mnk{QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K")};
        auto point = [](const QString& variant, int size, int threads) {
            loopscope::protocol::SweepPoint p = ::point(variant, size, threads);
            p.cached = true;
            return p;
        };
        {
            loopscope::SweepStore store(file);
            store.add(script, mnk, point(QStringLiteral("naive"), 64, 2));
            store.add(script, mnk, point(QStringLiteral("naive"), 64, 1));
            store.add(script, mnk, point(QStringLiteral("tiled"), 64, 2));
            store.add(script, mnk, point(QStringLiteral("naive"), 64, 2)); // the same point again
            // Not kept: skipped without a run, and a point with no thread count.
            loopscope::protocol::SweepPoint predicted = point(QStringLiteral("tiled"), 128, 2);
            predicted.skipped = true;
            predicted.runMs = 0;
            store.add(script, mnk, predicted);
            store.add(script, mnk, point(QStringLiteral("tiled"), 256, 0));
            QCOMPARE(store.size(), 3);
            QCOMPARE(store.known(script, mnk).size(), std::size_t{3});
            QVERIFY(!store.known(script, mnk).front().cached);
            // Another text or other parameters: nothing known.
            QVERIFY(store.known(script + QStringLiteral(" "), mnk).empty());
            QVERIFY(store.known(script, QStringList{QStringLiteral("M")}).empty());
            QVERIFY(store.save());
        }
        loopscope::SweepStore again(file);
        QCOMPARE(again.size(), 3);
        const std::vector<loopscope::protocol::SweepPoint> known = again.known(script, mnk);
        QCOMPARE(known.size(), std::size_t{3});
        QCOMPARE(known.at(0).variant, std::string("naive"));
        QCOMPARE(known.at(0).values, (std::vector<std::int64_t>{64, 64, 64}));
        QCOMPARE(known.at(0).msMedian, 1.0);
        QCOMPARE(known.at(1).threads, 1);
        QVERIFY(!known.at(0).cached);
        again.clear();
        QCOMPARE(loopscope::SweepStore(file).size(), 0);

        // A damaged file is ignored, not fatal.
        QFile damaged(file);
        QVERIFY(damaged.open(QIODevice::WriteOnly));
        damaged.write("{\"version\": 1, \"points\": [3, {\"group\": 7}");
        damaged.close();
        QCOMPARE(loopscope::SweepStore(file).size(), 0);
    }
};

void SweepPanelTest::aVariantsKeyIsTheTextThatDecidesIt()
{
    using loopscope::SweepStore;
    const QStringList mnk{QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K")};
    const auto keys = SweepStore::variantKeys(kThree, mnk);
    QCOMPARE(keys.size(), 4); // the three variants and OpenBLAS
    const QString naive = QStringLiteral("naive"), tiled = QStringLiteral("tiled"),
                  packed = QStringLiteral("packed"), blas = QStringLiteral("OpenBLAS");
    QSet<QString> distinct;
    for (const QString& v : {naive, tiled, packed, blas})
        distinct.insert(keys.value(v));
    QCOMPARE(distinct.size(), 4);

    // Which keys an edit changes.
    auto changed = [&](const QString& text, const QStringList& parameters = {}) {
        const auto after = SweepStore::variantKeys(text, parameters.isEmpty() ? mnk : parameters);
        const auto before =
            SweepStore::variantKeys(kThree, parameters.isEmpty() ? mnk : parameters);
        QStringList out;
        for (const QString& v : {naive, tiled, packed, blas})
            if (after.value(v) != before.value(v)) out << v;
        return out;
    };
    // A schedule statement of one variant: that variant alone.
    QCOMPARE(changed(edited(kThree, QStringLiteral("bn, bn)"), QStringLiteral("16, 4)"))),
             QStringList{tiled});
    QCOMPARE(changed(edited(kThree, QStringLiteral("s = te.create_schedule(C.op)\nprint"),
                            QStringLiteral("s = te.create_schedule(C.op)\ns[C].parallel("
                                           "C.op.axis[0])\nprint"))),
             QStringList{naive});
    // Comments, blank lines and spacing: none.
    QCOMPARE(changed(edited(kThree, QStringLiteral("# variant: tiled\n"),
                            QStringLiteral("# variant: tiled\n# Tiles of bn.\n\n"))),
             QStringList{});
    QCOMPARE(changed(edited(kThree, QStringLiteral("bn, bn)"), QStringLiteral("bn,bn )"))),
             QStringList{});
    // A declaration before every variant: all of them.
    QCOMPARE(changed(edited(kThree, QStringLiteral("bn = 8"), QStringLiteral("bn = 4"))),
             (QStringList{naive, tiled, packed, blas}));
    // A declaration in a variant's block: that variant and those after it, not those before.
    QCOMPARE(changed(edited(kThree, QStringLiteral("C[m, n] + 1"), QStringLiteral("C[m, n] * 2"))),
             QStringList{packed});
    // A swept parameter's value is the point's: no change; an unswept one: every variant.
    QCOMPARE(changed(edited(kThree, QStringLiteral("M = 64"), QStringLiteral("M = 512"))),
             QStringList{});
    QCOMPARE(changed(edited(kThree, QStringLiteral("M = 64"), QStringLiteral("M = 512")),
                     {QStringLiteral("N")}),
             (QStringList{naive, tiled, packed, blas}));
    // A script that does not evaluate has no keys.
    QVERIFY(SweepStore::variantKeys(kThree + QStringLiteral("s[C].nonsense(\n"), mnk).isEmpty());
}

void SweepPanelTest::storedPointsSurviveAnEditOfAnotherVariantAndARestart()
{
    using loopscope::SweepStore;
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("points.json"));
    const QStringList mnk{QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K")};
    const QString edit = edited(kThree, QStringLiteral("bn, bn)"), QStringLiteral("16, 4)"));
    const QStringList all{QStringLiteral("naive"), QStringLiteral("packed"),
                          QStringLiteral("tiled")};
    {
        SweepStore store(file);
        for (const QString& v : all)
            for (int size : {16, 32})
                store.add(kThree, mnk, measured(v, size));
        QCOMPARE(knownVariants(store, kThree, mnk), all);
        QCOMPARE(store.known(kThree, mnk).size(), std::size_t{6});
        // After an edit of tiled's block, its points are not known; the others' are.
        QCOMPARE(knownVariants(store, edit, mnk),
                 (QStringList{QStringLiteral("naive"), QStringLiteral("packed")}));
        QCOMPARE(store.known(edit, mnk).size(), std::size_t{4});
        // Measured again for the new text: known for it, and the old text's still for the old.
        for (int size : {16, 32}) {
            loopscope::protocol::SweepPoint p = measured(QStringLiteral("tiled"), size);
            p.gflops = 9.0;
            store.add(edit, mnk, p);
        }
        QCOMPARE(store.known(edit, mnk).size(), std::size_t{6});
        QCOMPARE(store.known(kThree, mnk).size(), std::size_t{6});
        QVERIFY(store.save());
    }
    // The next session: the same points for either text.
    SweepStore again(file);
    QCOMPARE(again.size(), 8);
    QCOMPARE(knownVariants(again, edit, mnk), all);
    for (const loopscope::protocol::SweepPoint& p : again.known(edit, mnk))
        QCOMPARE(p.gflops, p.variant == "tiled" ? 9.0 : 5.0);
}

LOOPSCOPE_QTEST_MAIN(SweepPanelTest)
#include "SweepPanelTest.moc"
