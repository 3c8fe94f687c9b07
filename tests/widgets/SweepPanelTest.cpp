// The sweep panel: its defaults from an analysis, the request it builds, choices kept across
// analyses, Start/Cancel and the progress text (Qt Test, offscreen).
#include "charts/SweepPanel.h"
#include "charts/SweepStore.h"

#include <QFile>
#include <QJsonArray>
#include <QLineEdit>
#include <QPushButton>
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

QStringList strings(const QJsonValue& v)
{
    QStringList out;
    for (const QJsonValue& x : v.toArray())
        out << x.toString();
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
        const QJsonObject r = panel.sweepRequest(QStringLiteral("script text"));
        QCOMPARE(r.value(QLatin1String("cmd")).toString(), QStringLiteral("sweep"));
        QCOMPARE(r.value(QLatin1String("script")).toString(), QStringLiteral("script text"));
        QCOMPARE(strings(r.value(QLatin1String("params"))),
                 (QStringList{QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K")}));
        QCOMPARE(r.value(QLatin1String("values")).toArray(),
                 (QJsonArray{64, 128, 256, 512, 1024, 2048}));
        QCOMPARE(strings(r.value(QLatin1String("variants"))),
                 (QStringList{QStringLiteral("naive"), QStringLiteral("tiled")}));
        QCOMPARE(r.value(QLatin1String("max_point_s")).toDouble(), 10.0);
        QCOMPARE(r.value(QLatin1String("blas")).toBool(), false);
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
        const QJsonObject r = panel.sweepRequest(QStringLiteral("s"));
        QCOMPARE(strings(r.value(QLatin1String("params"))), QStringList{QStringLiteral("N")});
        QCOMPARE(r.value(QLatin1String("values")).toArray(), (QJsonArray{16, 32, 48}));
        QCOMPARE(strings(r.value(QLatin1String("variants"))),
                 (QStringList{QStringLiteral("a"), QStringLiteral("c")}));
        QCOMPARE(r.value(QLatin1String("max_point_s")).toDouble(), 3.0);
        QCOMPARE(r.value(QLatin1String("blas")).toBool(), true);

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

    void pointsFromJson()
    {
        const QJsonObject o{{QStringLiteral("variant"), QStringLiteral("tiled")},
                            {QStringLiteral("N"), 32},
                            {QStringLiteral("values"), QJsonArray{32}},
                            {QStringLiteral("ms_median"), 1.5},
                            {QStringLiteral("gflops"), 12.0},
                            {QStringLiteral("intensity"), 4.0},
                            {QStringLiteral("checked"), true},
                            {QStringLiteral("reference"), false}};
        const loopscope::ChartPoint p = loopscope::chartPointFromJson(o);
        QCOMPARE(p.variant, QStringLiteral("tiled"));
        QCOMPARE(p.size, 32);
        QCOMPARE(p.msMedian, 1.5);
        QCOMPARE(p.gflops, 12.0);
        QCOMPARE(p.intensity, 4.0);
        QVERIFY(p.checked);
        QVERIFY(!p.skipped && !p.failed && !p.reference && !p.cached);
        QJsonObject cached = o;
        cached.insert(QStringLiteral("cached"), true);
        QVERIFY(loopscope::chartPointFromJson(cached).cached);
    }

    void storeKeepsPointsByScriptParametersAndThreads()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("points.json"));
        const QString script = QStringLiteral("M = 64\n");
        const QStringList mnk{QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K")};
        auto point = [](const QString& variant, int size, int threads) {
            return QJsonObject{{QStringLiteral("variant"), variant},
                               {QStringLiteral("values"), QJsonArray{size, size, size}},
                               {QStringLiteral("threads"), threads},
                               {QStringLiteral("run_ms"), 1.0},
                               {QStringLiteral("ms_median"), 1.0},
                               {QStringLiteral("gflops"), 5.0},
                               {QStringLiteral("cached"), true}};
        };
        {
            loopscope::SweepStore store(file);
            store.add(script, mnk, point(QStringLiteral("naive"), 64, 2));
            store.add(script, mnk, point(QStringLiteral("naive"), 64, 1));
            store.add(script, mnk, point(QStringLiteral("tiled"), 64, 2));
            store.add(script, mnk, point(QStringLiteral("naive"), 64, 2)); // the same point again
            // Not kept: skipped without a run, and a point with no thread count.
            QJsonObject predicted = point(QStringLiteral("tiled"), 128, 2);
            predicted.insert(QStringLiteral("skipped"), true);
            predicted.insert(QStringLiteral("run_ms"), 0);
            store.add(script, mnk, predicted);
            store.add(script, mnk, point(QStringLiteral("tiled"), 256, 0));
            QCOMPARE(store.size(), 3);
            QCOMPARE(store.known(script, mnk).size(), 3);
            QVERIFY(
                !store.known(script, mnk).first().toObject().contains(QStringLiteral("cached")));
            // Another text or other parameters: nothing known.
            QCOMPARE(store.known(script + QStringLiteral(" "), mnk).size(), 0);
            QCOMPARE(store.known(script, QStringList{QStringLiteral("M")}).size(), 0);
            QVERIFY(store.save());
        }
        loopscope::SweepStore again(file);
        QCOMPARE(again.size(), 3);
        const QJsonArray known = again.known(script, mnk);
        QCOMPARE(known.size(), 3);
        QCOMPARE(known.at(0).toObject().value(QStringLiteral("variant")).toString(),
                 QStringLiteral("naive"));
        QCOMPARE(known.at(1).toObject().value(QStringLiteral("threads")).toInt(), 1);
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

QTEST_MAIN(SweepPanelTest)
#include "SweepPanelTest.moc"
