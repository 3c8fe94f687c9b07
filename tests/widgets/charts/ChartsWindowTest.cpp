// The charts in the real window with the built worker (offscreen): a sweep's points are kept by
// variant, so after an edit of one variant's block the next sweep measures that variant alone,
// the others' points come from the store; and a new window on the same script shows the stored
// points without a sweep.
#include "charts/ChartsView.h"
#include "charts/SweepPanel.h"
#include "charts/SweepStore.h"
#include "shell/MainWindow.h"
#include "worker/WorkerClient.h"

#include "support/QtTestMain.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QFile>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>

using namespace loopscope;

namespace {

// The matmul ladder at a size that runs in milliseconds.
QString smallLadder()
{
    QFile f(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/matmul_ladder.py"));
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read the sample");
    QString text = QString::fromUtf8(f.readAll());
    for (auto p : {QStringLiteral("M"), QStringLiteral("K"), QStringLiteral("N")})
        text.replace(p + QStringLiteral(" = 1024"), p + QStringLiteral(" = 64"));
    return text;
}

bool awaitAnalysis(MainWindow& w, int ms = 10000)
{
    QSignalSpy spy(&w, &MainWindow::analysisApplied);
    return spy.wait(ms);
}

void useBuiltWorker(MainWindow& w)
{
    w.worker()->setWorkerPath(QStringLiteral(LOOPSCOPE_WORKER));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LOOPSCOPE_WORKER_TESTING"), QStringLiteral("1"));
    w.worker()->setWorkerEnvironment(env);
}

// Sweeps M = N = K (the default) over 16 and 32 for the first three variants.
void chooseSweep(SweepPanel* panel)
{
    const QStringList variants = panel->variants();
    QVERIFY(variants.size() >= 3);
    QCOMPARE(panel->parameters(),
             (QStringList{QStringLiteral("M"), QStringLiteral("K"), QStringLiteral("N")}));
    for (qsizetype i = 0; i < variants.size(); ++i)
        panel->setVariantChecked(variants[i], i < 3);
    panel->setValuesText(QStringLiteral("16,32"));
    panel->setPointLimitSeconds(5);
}

// variant -> the sizes the charts show as measured by an earlier sweep / by this one.
QMap<QString, QList<qint64>> points(const ChartsView* charts, bool cached)
{
    QMap<QString, QList<qint64>> out;
    for (const ChartPoint& p : charts->points())
        if (p.cached == cached) out[p.variant] << p.size;
    for (auto& sizes : out)
        std::sort(sizes.begin(), sizes.end());
    return out;
}

} // namespace

class ChartsWindowTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LoopscopeChartsTest"));
        QCoreApplication::setApplicationName(QStringLiteral("LoopscopeChartsTest"));
    }

    void anEditMeasuresOnlyTheVariantItChangedAndTheNextSessionShowsThePoints()
    {
        const QString text = smallLadder();
        // The third variant's block is the first with a split of k: its factor changes.
        const QString split = QStringLiteral("ko, ki = s[C].split(k, factor=4)");
        const qsizetype at = text.indexOf(split);
        QVERIFY(at > 0);
        QString edited = text;
        edited.replace(at, split.size(), QStringLiteral("ko, ki = s[C].split(k, factor=2)"));
        QStringList variants;
        {
            MainWindow w;
            useBuiltWorker(w);
            w.sweepStore()->clear();
            w.setScriptText(text, QString(), false);
            QVERIFY(awaitAnalysis(w));
            SweepPanel* panel = w.sweepPanel();
            chooseSweep(panel);
            variants = panel->variants();
            QCOMPARE(variants.size(), 3);
            const QList<qint64> both{16, 32};

            // The first sweep measures every point.
            QSignalSpy finished(&w, &MainWindow::sweepFinished);
            panel->startButton()->click();
            QVERIFY(finished.wait(240000));
            QCOMPARE(w.chartsView()->pointCount(), 6);
            QCOMPARE(points(w.chartsView(), true).size(), 0);
            QCOMPARE(w.sweepStore()->size(), 6);
            // The edit is in the third variant's block: it shows the first two's points only.
            w.setScriptText(edited, QString(), false);
            QVERIFY(awaitAnalysis(w));
            QCOMPARE(w.chartsView()->variants(), variants.mid(0, 2));
            QCOMPARE(points(w.chartsView(), true).size(), 2);

            // The next sweep measures the changed variant alone; the others come from the store.
            finished.clear();
            panel->startButton()->click();
            QVERIFY(finished.wait(240000));
            QCOMPARE(w.chartsView()->pointCount(), 6);
            const auto cached = points(w.chartsView(), true);
            const auto measured = points(w.chartsView(), false);
            QCOMPARE(cached.keys(), variants.mid(0, 2));
            QCOMPARE(cached.value(variants[0]), both);
            QCOMPARE(cached.value(variants[1]), both);
            QCOMPARE(measured.keys(), QStringList{variants[2]});
            QCOMPARE(measured.value(variants[2]), both);
            for (const ChartPoint& p : w.chartsView()->points())
                QVERIFY2(p.gflops > 0, qPrintable(p.variant + QStringLiteral(": ") + p.message));
        }
        // A new window (a new store read from the file) on the same script: the points at once.
        MainWindow again;
        useBuiltWorker(again);
        QCOMPARE(again.sweepStore()->size(), 8);
        again.setScriptText(edited, QString(), false);
        QVERIFY(awaitAnalysis(again));
        QCOMPARE(again.chartsView()->pointCount(), 6);
        QCOMPARE(again.chartsView()->variants(), variants);
        for (const ChartPoint& p : again.chartsView()->points())
            QVERIFY(p.cached && p.gflops > 0);
        // The original text: its third variant's own points, measured by the first sweep.
        again.setScriptText(text, QString(), false);
        QVERIFY(awaitAnalysis(again));
        QCOMPARE(again.chartsView()->pointCount(), 6);

        // In the window, small and large, the legend is whole inside the chart.
        const QString shots = qEnvironmentVariable("LOOPSCOPE_CHART_SHOTS"); // to look at them
        auto* dock = again.findChild<QDockWidget*>(QStringLiteral("ChartsDock"));
        QVERIFY(dock);
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        for (QSize size : {QSize(600, 400), QSize(1024, 700), QSize(1920, 1200)}) {
            again.resize(size);
            dock->show();
            dock->raise();
            QTest::qWait(50);
            ChartsView* charts = again.chartsView();
            const QRectF chart = charts->chartRect(ChartsView::LineTab);
            QVERIFY(chart.width() > 0 && chart.height() > 0);
            const auto legend = charts->legendEntries(ChartsView::LineTab);
            QCOMPARE(legend.size(), 3);
            for (const auto& e : legend) {
                QVERIFY2(chart.contains(e.rect), qPrintable(QStringLiteral("%1 in %2x%3")
                                                                .arg(e.name)
                                                                .arg(again.width())
                                                                .arg(again.height())));
                QVERIFY(!e.rect.intersects(charts->plotArea(ChartsView::LineTab)));
            }
            if (!shots.isEmpty())
                again.grab().save(QStringLiteral("%1/window-%2x%3.png")
                                      .arg(shots)
                                      .arg(again.width())
                                      .arg(again.height()));
        }
    }
};

LOOPSCOPE_QTEST_MAIN(ChartsWindowTest)
#include "ChartsWindowTest.moc"
