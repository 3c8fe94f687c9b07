// The Tune panel in the real window, with the real worker: a run from the variant under the
// cursor fills the chart and shows the best candidate's loop nest and statements; "Add as Variant"
// writes it into the script as a variant that evaluates, after the one it started from; a cancel
// keeps the measured trials in the log, and Resume goes on from them; forbidden primitives are not
// written; a script error blocks tuning.
#include "tune/TunePanel.h"
#include "editor/EditorPane.h"
#include "explore/Explorer.h"
#include "shell/MainWindow.h"
#include "shell/RunController.h"
#include "shell/RunSettingsDialog.h"
#include "tune/Space.h"
#include "tune/TuneChart.h"
#include "tune/TuneLog.h"
#include "tune/TuneService.h"
#include "views/TirEditor.h"
#include "worker/WorkerClient.h"

#include "support/QtTestMain.h"

#include <QAction>
#include <QFile>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <QToolButton>

using namespace loopscope;

namespace {

QString smallGemm()
{
    QFile f(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/opt_gemm.py"));
    f.open(QIODevice::ReadOnly);
    QString text = QString::fromUtf8(f.readAll());
    for (auto p : {QStringLiteral("M"), QStringLiteral("K"), QStringLiteral("N")})
        text.replace(p + QStringLiteral(" = 1024"), p + QStringLiteral(" = 128"));
    return text;
}

bool awaitAnalysis(MainWindow& w, int ms = 10000)
{
    QSignalSpy spy(&w, &MainWindow::analysisApplied);
    return spy.wait(ms);
}

bool awaitTuning(MainWindow& w, int ms = 240000)
{
    QSignalSpy spy(&w, &MainWindow::tuneFinished);
    return spy.wait(ms);
}

// Where the window keeps the tuning records of an unsaved script.
std::string logPath()
{
    QString p = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    p += QStringLiteral("/tuning/");
    p += QString::fromStdString(tuningLogFileName("untitled.py"));
    return p.toStdString();
}

void useBuiltWorker(MainWindow& w)
{
    w.worker()->setWorkerPath(QStringLiteral(LOOPSCOPE_WORKER));
    w.tuneService()->worker()->setWorkerPath(QStringLiteral(LOOPSCOPE_WORKER));
}

} // namespace

class TunePanelTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        // A fresh data folder: no tuning log of an earlier run.
        QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
             QStringLiteral("/tuning"))
            .removeRecursively();
    }

    void tunesTheShownVariantAndAddsTheBestAsAVariant()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallGemm(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        w.selectVariant(QStringLiteral("blocking"));
        QTRY_COMPARE(w.tunePanel()->variant(), QStringLiteral("blocking"));
        TunePanel* panel = w.tunePanel();
        QVERIFY(panel->startButton()->isEnabled());
        panel->setTrials(6);
        panel->startButton()->click();
        QVERIFY(panel->running());
        QVERIFY(awaitTuning(w));
        QVERIFY2(!panel->running(), qPrintable(panel->statusText()));
        QCOMPARE(panel->chart()->trials(), 6);
        QVERIFY2(panel->chart()->best() > 0, qPrintable(panel->chart()->summary()));
        QVERIFY2(panel->bestText().startsWith(QStringLiteral("Best: trial")),
                 qPrintable(panel->bestText()));
        QVERIFY2(panel->bestText().contains(QStringLiteral("OpenBLAS")),
                 qPrintable(panel->bestText()));
        QVERIFY(!panel->bestStatements().isEmpty());
        QVERIFY(panel->loopNest()->firstChangedBlock() >= 0); // what it changed is marked
        QCOMPARE(panel->bestName(), QStringLiteral("tuned from blocking"));

        // The log has every trial.
        LogContents records = readLog(logPath());
        QVERIFY(records.records.size() >= 6);

        // Add as Variant: after 'blocking', its pinned steps first, evaluating.
        QVERIFY(panel->addButton()->isEnabled());
        panel->addButton()->click();
        QVERIFY(awaitAnalysis(w));
        const std::string text = w.editor()->text().toStdString();
        Exploration e = explore(text);
        QVERIFY2(e.ok, e.error.message.c_str());
        int blocking = -1, tuned = -1;
        for (std::size_t i = 0; i < e.variants.size(); ++i) {
            if (e.variants[i].name == "blocking") blocking = static_cast<int>(i);
            if (e.variants[i].name == "tuned from blocking") tuned = static_cast<int>(i);
        }
        QVERIFY(blocking >= 0);
        QCOMPARE(tuned, blocking + 1);
        const VariantView& b = e.variants[static_cast<std::size_t>(blocking)];
        const VariantView& t = e.variants[static_cast<std::size_t>(tuned)];
        QVERIFY(t.steps.size() > b.steps.size());
        for (std::size_t i = 1; i < b.steps.size(); ++i)
            QCOMPARE(t.steps[i].label, b.steps[i].label); // the pinned steps, as written
        QCOMPARE(w.currentVariant(), QStringLiteral("tuned from blocking"));
        // Undo takes it back out.
        w.editor()->undo();
        QVERIFY(!w.editor()->text().contains(QStringLiteral("# variant: tuned from blocking")));
    }

    void aCancelKeepsTheTrialsAndResumeGoesOnFromThem()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallGemm(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        TunePanel* panel = w.tunePanel();
        const std::string path = logPath();
        QFile::remove(QString::fromStdString(path));
        panel->setTrials(200);
        panel->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(panel->chart()->trials() >= 3, 120000);
        QSignalSpy ended(&w, &MainWindow::tuneFinished);
        panel->findChild<QPushButton*>(QStringLiteral("tuneCancel"))->click();
        QVERIFY(ended.count() == 1 || ended.wait(30000));
        QVERIFY2(panel->statusText().startsWith(QStringLiteral("Cancelled")),
                 qPrintable(panel->statusText()));
        const std::size_t kept = readLog(path).records.size();
        QVERIFY(kept >= 3);

        panel->setTrials(2);
        panel->findChild<QPushButton*>(QStringLiteral("tuneResume"))->click();
        QVERIFY(awaitTuning(w));
        QVERIFY2(panel->statusText().contains(QStringLiteral("from the log")),
                 qPrintable(panel->statusText()));
        QVERIFY(readLog(path).records.size() >= kept + 2);
    }

    void forbiddenPrimitivesAreNotWritten()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallGemm(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        TunePanel* panel = w.tunePanel();
        auto* forbid = panel->findChild<QToolButton*>(QStringLiteral("tuneForbid"));
        // The menu offers every primitive the tuner writes (reorder and rfactor among them).
        QStringList offered;
        for (QAction* a : forbid->menu()->actions())
            offered << a->text();
        QStringList written;
        for (const std::string& p : tunerPrimitives())
            written << QString::fromStdString(p);
        QCOMPARE(offered, written);
        QVERIFY(offered.contains(QStringLiteral("reorder")));
        QVERIFY(offered.contains(QStringLiteral("rfactor")));
        for (QAction* a : forbid->menu()->actions())
            if (a->text() == QStringLiteral("parallel") ||
                a->text() == QStringLiteral("cache_write"))
                a->setChecked(true);
        QCOMPARE(panel->forbidden(),
                 (QStringList{QStringLiteral("parallel"), QStringLiteral("cache_write")}));
        QCOMPARE(forbid->text(), QStringLiteral("Forbid (2)"));
        panel->setTrials(4);
        panel->startButton()->click();
        QVERIFY(awaitTuning(w));
        const QString statements = panel->bestStatements().join(QLatin1Char('\n'));
        QVERIFY(!statements.isEmpty());
        QVERIFY2(!statements.contains(QStringLiteral(".parallel(")), qPrintable(statements));
        QVERIFY2(!statements.contains(QStringLiteral("cache_write")), qPrintable(statements));
    }

    // Run > Settings' runners: the tuning's candidates go to two workers, each started by the
    // command given (through the shell, as "ssh node7 loopscope-worker" would be), and the
    // settings are kept.
    void tuningUsesTheRunnersOfTheSettings()
    {
        MainWindow w;
        useBuiltWorker(w);
        RunSettings settings = w.runs()->settings();
        settings.runnerCommand = QStringLiteral("exec '%1'").arg(QStringLiteral(LOOPSCOPE_WORKER));
        settings.runners = 2;
        w.runs()->setSettings(settings);
        settings.save();
        const RunSettings kept = RunSettings::load();
        QCOMPARE(kept.runnerCommand, settings.runnerCommand);
        QCOMPARE(kept.runners, 2);
        w.setScriptText(smallGemm(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        TunePanel* panel = w.tunePanel();
        const std::string path = logPath();
        QFile::remove(QString::fromStdString(path));
        panel->setTrials(6);
        panel->startButton()->click();
        QVERIFY(awaitTuning(w));
        QVERIFY2(panel->bestText().startsWith(QStringLiteral("Best: trial")),
                 qPrintable(panel->statusText() + QLatin1Char('\n') + panel->bestText()));
        const LogContents records = readLog(path);
        QVERIFY(records.records.size() >= 6);
        for (const TuneRecord& r : records.records)
            QVERIFY2(!r.machine.host.empty() && !r.machine.cpu.empty() && r.machine.threads > 0,
                     r.machine.host.c_str());

        // A command that starts nothing: the run says why, and the text is kept.
        settings.runnerCommand = QStringLiteral("echo 'node7: Connection refused' >&2; exit 255");
        w.runs()->setSettings(settings);
        const QString text = w.editor()->text();
        panel->setTrials(2);
        panel->startButton()->click();
        QVERIFY(awaitTuning(w));
        QVERIFY2(panel->statusText().contains(QStringLiteral("Connection refused")),
                 qPrintable(panel->statusText()));
        QCOMPARE(w.editor()->text(), text);
        w.runs()->setSettings(RunSettings());
        RunSettings().save();
    }

    void aScriptErrorBlocksTuning()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallGemm(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        QVERIFY(w.tunePanel()->startButton()->isEnabled());
        w.setScriptText(smallGemm() + QStringLiteral("\nundefined_name.foo()\n"), QString(), true);
        QVERIFY(awaitAnalysis(w));
        QTRY_VERIFY(!w.tunePanel()->startButton()->isEnabled());
        QVERIFY(w.tunePanel()->startButton()->toolTip().contains(QStringLiteral("error")));
    }
};

LOOPSCOPE_QTEST_MAIN(TunePanelTest)
#include "TunePanelTest.moc"
