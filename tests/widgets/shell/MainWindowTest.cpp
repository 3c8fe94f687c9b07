// The real main window on the offscreen platform, driven the way a user drives it.
#include "shell/MainWindow.h"
#include "charts/ChartsView.h"
#include "charts/SweepPanel.h"
#include "charts/SweepStore.h"
#include "editor/EditorPane.h"
#include "editor/PrimitiveHelp.h"
#include "editor/SchedulePanel.h"
#include "explore/Explorer.h"
#include "schedule/Primitives.h"
#include "shell/ExportDialog.h"
#include "shell/HelpDialogs.h"
#include "shell/MigrationController.h"
#include "shell/RunController.h"
#include "shell/Theme.h"
#include "support/RunShell.h"
#include "views/CompareView.h"
#include "views/LadderModel.h"
#include "views/LoopNestView.h"
#include "views/MigrationView.h"
#include "worker/WorkerClient.h"

#include "support/QtTestMain.h"

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QGuiApplication>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProcessEnvironment>
#include <QPushButton>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

using namespace loopscope;
using namespace Qt::StringLiterals;
using loopscope::testing::RunResult;
using loopscope::testing::runShell;

namespace {

// The matmul ladder at a size that runs in milliseconds.
QString smallLadder()
{
    QFile f(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/matmul_ladder.py"));
    f.open(QIODevice::ReadOnly);
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

bool awaitLadder(MainWindow& w, int ms = 120000)
{
    QSignalSpy spy(&w, &MainWindow::ladderFinished);
    return spy.wait(ms);
}

QString loopNestText(MainWindow& w)
{
    QString all;
    for (auto* edit : w.loopNestView()->findChildren<QPlainTextEdit*>())
        if (edit->isVisibleTo(w.loopNestView())) all += edit->toPlainText() + QStringLiteral("\n");
    return all;
}

void useBuiltWorker(MainWindow& w)
{
    w.worker()->setWorkerPath(QStringLiteral(LOOPSCOPE_WORKER));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LOOPSCOPE_WORKER_TESTING"), QStringLiteral("1"));
    w.worker()->setWorkerEnvironment(env);
}

} // namespace

class MainWindowTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LoopscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("LoopscopeTest"));
    }

    void opensASampleAndShowsItsTir()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallLadder(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        QCOMPARE(w.currentVariant(), QStringLiteral("naive"));
        QVERIFY(loopNestText(w).contains(QStringLiteral("T.grid(64, 64)")));
    }

    void splitFromThePanelWritesTheScriptAndUndoRestoresIt()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallLadder(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        QString before = w.editor()->text();
        QVERIFY(w.schedulePanel()->selectAxis(QStringLiteral("C"), QStringLiteral("i")));
        w.schedulePanel()->findChild<QSpinBox*>(QStringLiteral("factorSpin"))->setValue(16);
        auto* split = w.schedulePanel()->findChild<QAbstractButton*>(QStringLiteral("splitButton"));
        QVERIFY(split);
        QVERIFY2(split->isEnabled(), qPrintable(split->toolTip()));
        QTest::mouseClick(split, Qt::LeftButton);
        QString after = w.editor()->text();
        QVERIFY(after.contains(QStringLiteral("split(")));
        QVERIFY(after.contains(QStringLiteral("factor=16")));
        QVERIFY(awaitAnalysis(w));
        QVERIFY2(loopNestText(w).contains(QStringLiteral("i_outer")), qPrintable(loopNestText(w)));
        w.editor()->undo();
        QCOMPARE(w.editor()->text(), before);
    }

    // Every primitive the panel offers, on the last variant of every sample, on each of its
    // stages' outermost loop: the statement lands after the variant's last schedule statement
    // (never after its trailing tvm.lower/tvm.build code), the script still evaluates with one
    // more step, and an annotation once written is not offered again on the same loop.
    void everyOfferedPrimitiveLandsAtTheEndOfTheScheduleAndNeverTwice()
    {
        const QStringList samples = QDir(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples"))
                                        .entryList({QStringLiteral("*.py")}, QDir::Files);
        QVERIFY(samples.size() >= 5);
        int written = 0;
        for (const QString& sample : samples) {
            QFile f(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/") + sample);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString script = QString::fromUtf8(f.readAll());
            MainWindow w;
            useBuiltWorker(w);
            w.setScriptText(script, QString(), false);
            QVERIFY(awaitAnalysis(w));
            Exploration x = explore(script.toStdString());
            QVERIFY2(x.ok, qPrintable(sample + u": "_s + QString::number(x.error.loc.line) +
                                      u": "_s + QString::fromStdString(x.error.message)));
            const VariantView& v = x.variants.back();
            w.editor()->gotoLine(v.line);
            QTRY_COMPARE(w.currentVariant(), QString::fromStdString(v.name));
            const int end = v.scheduleEndLine;
            QVERIFY(end >= v.line && end <= v.lastLine);
            const QStringList before = script.split(u'\n');
            for (const StageInfo& stage : v.steps.back().stages) {
                if (stage.axes.empty()) continue;
                for (const PrimitiveSpec& p : primitiveCatalogue()) {
                    const QString name = QString::fromStdString(p.name);
                    // The panel follows the variant once its analysis lands.
                    QTRY_VERIFY2(w.schedulePanel()->selectAxis(
                                     QString::fromStdString(stage.name),
                                     QString::fromStdString(stage.axes.front().var)),
                                 qPrintable(sample + u' ' + QString::fromStdString(stage.name)));
                    QAction* action = w.schedulePanel()->primitiveAction(name);
                    if (!action || !action->isEnabled()) continue;
                    // Unrolling a long loop (pragma unroll too) is legal but slow to lower: not
                    // here.
                    if ((name == u"unroll"_s || name == u"pragma"_s) &&
                        stage.axes.front().extent > 64)
                        continue;
                    const QString where =
                        sample + u' ' + QString::fromStdString(stage.name) + u' ' + name;
                    action->trigger();
                    const QStringList after = w.editor()->text().split(u'\n');
                    const int added = static_cast<int>(after.size() - before.size());
                    QVERIFY2(added >= 1, qPrintable(where));
                    QCOMPARE(after.mid(0, end), before.mid(0, end));
                    QCOMPARE(after.mid(end + added), before.mid(end));
                    QVERIFY2(after[end + added - 1].contains(u'.' + name + u'('),
                             qPrintable(where + u": "_s + after[end + added - 1]));
                    QVERIFY2(awaitAnalysis(w), qPrintable(where + u": no analysis"_s));
                    Exploration y = explore(w.editor()->text().toStdString());
                    QVERIFY2(y.ok,
                             qPrintable(where + u": "_s + QString::fromStdString(y.error.message)));
                    QCOMPARE(y.variants.back().steps.size(), v.steps.size() + 1);
                    if (name == u"parallel"_s || name == u"vectorize"_s || name == u"unroll"_s) {
                        QVERIFY2(w.schedulePanel()->selectAxis(
                                     QString::fromStdString(stage.name),
                                     QString::fromStdString(stage.axes.front().var)),
                                 qPrintable(where + u": the loop is gone"_s));
                        QVERIFY2(!w.schedulePanel()->primitiveAction(name)->isEnabled(),
                                 qPrintable(where + u" is offered twice"_s));
                    }
                    ++written;
                    w.setScriptText(script, QString(), false);
                    QVERIFY(awaitAnalysis(w));
                    w.editor()->gotoLine(v.line);
                    QTRY_COMPARE(w.currentVariant(), QString::fromStdString(v.name));
                }
            }
        }
        QVERIFY(written > 40);
    }

    // A script error keeps the variants, loop nest and ladder of the last good state on screen,
    // marked stale; the panel's buttons and F5 say that the script has an error at line N.
    void anErrorKeepsTheLastGoodState()
    {
        MainWindow w;
        useBuiltWorker(w);
        const QString good = smallLadder();
        w.setScriptText(good, QString(), false);
        QVERIFY(awaitAnalysis(w));
        const int rows = w.ladderModel()->rowCount();
        const QString nest = loopNestText(w);
        QVERIFY(rows > 0 && !nest.isEmpty());
        auto* box = w.findChild<QComboBox*>();
        QVERIFY(box);
        const int variants = box->count();
        QVERIFY(variants > 1);

        QString broken = good;
        broken.replace(QStringLiteral("te.placeholder("), QStringLiteral("te.placeholdr("));
        const int line =
            static_cast<int>(good.left(good.indexOf(u"te.placeholder("_s)).count(u'\n')) + 1;
        w.setScriptText(broken, QString(), true);
        QVERIFY(awaitAnalysis(w));
        QVERIFY(w.scriptError().startsWith(QStringLiteral("line %1:").arg(line)));
        QCOMPARE(box->count(), variants);
        QCOMPARE(w.ladderModel()->rowCount(), rows);
        QCOMPARE(loopNestText(w), nest);
        QVERIFY(w.editor()->hasDiagnosticMarker(line));
        auto* label = w.findChild<QLabel*>(u"scriptErrorLabel"_s);
        QVERIFY(label && label->isVisibleTo(&w));
        QVERIFY(label->text().contains(QStringLiteral("line %1").arg(line)));
        auto* dock = w.findChild<QDockWidget*>(u"LoopNestDock"_s);
        QVERIFY(dock->windowTitle().contains(u"stale"_s));
        QAction* split = w.schedulePanel()->primitiveAction(u"split"_s);
        QVERIFY(!split->isEnabled());
        QVERIFY2(split->toolTip().contains(QStringLiteral("error at line %1").arg(line)),
                 qPrintable(split->toolTip()));
        // F5 says why it does nothing. The worker may still be starting (its first answer, what
        // machine it is, takes a cold start from disk: a third of a second on a fresh machine),
        // so it is let finish that before F5, which must then give it nothing to do.
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QTRY_VERIFY_WITH_TIMEOUT(!w.worker()->isBusy(), 30000);
        QSignalSpy busy(w.worker(), &WorkerClient::busyChanged);
        QTest::keyClick(w.editor(), Qt::Key_F5);
        QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("line %1").arg(line)),
                 qPrintable(w.statusBar()->currentMessage()));
        QTest::qWait(50);
        QVERIFY(!w.worker()->isBusy());
        QCOMPARE(busy.count(), 0);
        QCOMPARE(w.ladderModel()->rowCount(), rows);

        // Fixed: current again.
        w.setScriptText(good, QString(), true);
        QVERIFY(awaitAnalysis(w));
        QVERIFY(w.scriptError().isEmpty());
        QVERIFY(!label->isVisibleTo(&w));
        QVERIFY(!dock->windowTitle().contains(u"stale"_s));
        QVERIFY(w.schedulePanel()->unavailable().isEmpty());
    }

    // A window destroyed while its worker is busy and its docks are on screen (as a test that
    // fails half-way leaves it, or a window closed in the middle of a run): QWidget's destructor
    // hides the docks after the window's own members are gone, and no handler of the window may
    // run then (one did: it read the destroyed variant list and threw std::bad_alloc out of the
    // close event). The freed memory is filled (MALLOC_PERTURB_, set for this test), so reading it
    // fails every time rather than now and then.
    void destroyingAShownWindowWhileItsWorkerIsBusyReachesNoHandler()
    {
        for (int round = 0; round < 10; ++round) {
            auto* w = new MainWindow;
            useBuiltWorker(*w);
            w->setScriptText(smallLadder(), QString(), false);
            QVERIFY(awaitAnalysis(*w));
            w->show();
            QVERIFY(QTest::qWaitForWindowExposed(w));
            for (const char* name : {"LlvmDock", "AsmDock"})
                if (auto* d = w->findChild<QDockWidget*>(QString::fromLatin1(name))) {
                    d->show();
                    d->raise();
                }
            w->runLadder();
            QTRY_VERIFY(w->worker()->isBusy());
            // A mistake typed meanwhile: the last good analysis is then the window's alone.
            QString broken = smallLadder();
            broken.replace(u"te.placeholder("_s, u"te.placeholdr("_s);
            w->setScriptText(broken, QString(), true);
            QVERIFY(awaitAnalysis(*w));
            QVERIFY(!w->scriptError().isEmpty());
            delete w;
        }
    }

    // A CPU that LLVM does not know (a Zen 5: LLVM 16 calls it generic) gets code for the nearest
    // model it knows; the status bar and About name both, the tooltip says why.
    void aCpuLlvmDoesNotKnowShowsBothNames()
    {
        qputenv("LOOPSCOPE_LLVM_HOST_CPU", "generic"); // the worker started below inherits it
        MainWindow w;
        useBuiltWorker(w);
        QSignalSpy described(w.runs(), &RunController::workerDescribed);
        w.runs()->describeWorker();
        const bool answered = described.wait(20000);
        qunsetenv("LOOPSCOPE_LLVM_HOST_CPU");
        QVERIFY(answered);
        const protocol::PingReply& m = w.runs()->machine();
        QCOMPARE(m.llvmCpu, std::string("generic"));
        QVERIFY2(m.machine.cpu != "generic" && !m.machine.cpu.empty(), m.machine.cpu.c_str());
        auto* label = w.findChild<QLabel*>(u"cpuLabel"_s);
        QVERIFY(label);
        QTRY_VERIFY2(label->text().contains(QStringLiteral("CPU %1 (LLVM: generic)")
                                                .arg(QString::fromStdString(m.machine.cpu))),
                     qPrintable(label->text()));
        QVERIFY2(label->toolTip().contains(u"the nearest model it knows"_s),
                 qPrintable(label->toolTip()));
        const QString about = aboutText(m);
        QVERIFY2(about.contains(u"LLVM names this CPU <b>generic</b>"_s), qPrintable(about));
        QVERIFY(
            about.contains(QStringLiteral("<b>%1</b>").arg(QString::fromStdString(m.machine.cpu))));
    }

    // Help: the primitives from the catalogue, the shortcuts the menus really have, and the
    // versions (Qt, LLVM, the CPU the worker generates code for).
    void helpListsPrimitivesShortcutsAndVersions()
    {
        MainWindow w;
        useBuiltWorker(w);
        QSignalSpy described(w.runs(), &RunController::workerDescribed);
        w.runs()->describeWorker();
        QVERIFY(described.wait(20000));
        QString about = aboutText(w.runs()->machine());
        QVERIFY2(about.contains(QStringLiteral("LLVM 16.")), qPrintable(about));
        const QString cpu = QString::fromStdString(w.runs()->machine().machine.cpu);
        QVERIFY(about.contains(cpu) && !cpu.isEmpty());
        QVERIFY(about.contains(QString::fromUtf8(qVersion())));

        const auto keys = keyboardShortcuts(&w);
        auto has = [&](const QString& command, const QString& key) {
            for (auto& [c, k] : keys)
                if (c.endsWith(command) && k == key) return true;
            return false;
        };
        QVERIFY(has(QStringLiteral("Run ▸ Run Ladder"), QStringLiteral("F5")));
        QVERIFY(has(QStringLiteral("Run ▸ Cancel"), QStringLiteral("Esc")));
        QVERIFY(has(QStringLiteral("Complete a name"),
                    QKeySequence(Qt::CTRL | Qt::Key_Space).toString(QKeySequence::NativeText)));

        QAction* primitives = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == QStringLiteral("&Primitives")) primitives = a;
        QVERIFY(primitives);
        primitives->trigger();
        auto* dialog = w.findChild<PrimitiveHelpDialog*>();
        QVERIFY(dialog && dialog->isVisible());
        QVERIFY(dialog->showPrimitive(QStringLiteral("cache_write")));
        QVERIFY(dialog->pageText().contains(QStringLiteral("cache_write(tensor, scope)")));
        dialog->close();
    }

    // At 1366x768 (less a title bar and a panel) every dock fits: the window's minimum size is
    // below it, with a sample open and its panel filled.
    void theWindowFits1366x768()
    {
        MainWindow w;
        useBuiltWorker(w);
        QVERIFY(w.openFile(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/opt_gemm.py")));
        QVERIFY(awaitAnalysis(w));
        w.show();
        const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
        QVERIFY2(min.width() <= 1366 && min.height() <= 700,
                 qPrintable(QStringLiteral("minimum %1x%2").arg(min.width()).arg(min.height())));
        w.resize(1366, 700);
        QTRY_COMPARE(w.size(), QSize(1366, 700));
    }

    // A worker of another build (a script answering as one of protocol 99) is named in the
    // status bar and a notice; the window does not take its word for the machine.
    void aWorkerOfAnotherBuildIsRefused()
    {
        QTemporaryDir dir;
        const QString fake = dir.filePath(QStringLiteral("worker-of-another-build.sh"));
        QFile f(fake);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("#!/bin/sh\nwhile read line; do\n"
                "  echo '{\"id\": 1, \"status\": \"ok\", \"protocol\": 99, "
                "\"version\": \"9.9.9\"}'\n"
                "done\n");
        f.close();
        f.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        MainWindow w;
        w.worker()->setWorkerPath(fake);
        w.runs()->describeWorker();
        auto refused = [&w] {
            for (const QString& n : w.notices())
                if (n.contains(u"the worker (Loopscope 9.9.9) speaks worker protocol 99"_s))
                    return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(refused(), 20000);
        QVERIFY(w.runs()->machine().machine.cpu.empty());
    }

    // The first start (no saved geometry) takes its size from the screen: on a 1366x768 laptop
    // (ctest runs this once on such a screen) the whole window is on it, not 1920x1200 cut off.
    void theFirstSizeComesFromTheScreen()
    {
        QSettings().remove(QStringLiteral("window/geometry"));
        MainWindow w;
        useBuiltWorker(w);
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
        if (min.width() > available.width() || min.height() > available.height())
            QSKIP(qPrintable(QStringLiteral("this screen (%1x%2) is smaller than the window's "
                                            "minimum; MainWindow.FirstSizeOn1366x768 runs on one")
                                 .arg(available.width())
                                 .arg(available.height())));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY2(available.contains(w.geometry()),
                 qPrintable(QStringLiteral("window %1x%2+%3+%4 on a screen of %5x%6")
                                .arg(w.width())
                                .arg(w.height())
                                .arg(w.x())
                                .arg(w.y())
                                .arg(available.width())
                                .arg(available.height())));
        // Most of the screen, up to a full-HD screen's.
        QVERIFY(w.width() >= qMin(1920, available.width() * 3 / 4));
        QVERIFY(w.width() <= 1920 && w.height() <= 1200);
    }

    // On the first start, on a laptop's 1366x768 screen as on a full-HD one (ctest runs this on
    // each), the script and the loop nest both show at least 60 characters of a line, side by
    // side, and the schedule panel is one click away.
    void theScriptAndTheLoopNestAreReadable()
    {
        QSettings().remove(QStringLiteral("window/geometry"));
        QSettings().remove(QStringLiteral("window/state"));
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        if (available.width() < 1366 || available.height() < 768)
            QSKIP(qPrintable(QStringLiteral("this screen (%1x%2) is smaller than a laptop's; "
                                            "MainWindow.FirstSizeOn1366x768 runs on one")
                                 .arg(available.width())
                                 .arg(available.height())));
        MainWindow w;
        useBuiltWorker(w);
        QVERIFY(w.openFile(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/opt_gemm.py")));
        QVERIFY(awaitAnalysis(w));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // The default layout is applied once the window has its size.
        auto* loopDock = w.findChild<QDockWidget*>(QStringLiteral("LoopNestDock"));
        auto* scheduleDock = w.findChild<QDockWidget*>(QStringLiteral("ScheduleDock"));
        QVERIFY(loopDock && scheduleDock);
        [[maybe_unused]] const bool laidOut = QTest::qWaitFor(
            [&w] {
                return w.editor()->visibleColumns() >= 60 &&
                       w.loopNestView()->visibleColumns() >= 60;
            },
            3000);
        QTest::qWait(200);
        const int editor = w.editor()->visibleColumns();
        const int loopNest = w.loopNestView()->visibleColumns();
        qInfo("window %dx%d: the script shows %d columns, the loop nest %d", w.width(), w.height(),
              editor, loopNest);
        QVERIFY2(editor >= 60, qPrintable(QString::number(editor)));
        QVERIFY2(loopNest >= 60, qPrintable(QString::number(loopNest)));
        QVERIFY(w.editor()->isVisible() && w.loopNestView()->isVisible());
        QVERIFY(!w.loopNestView()->visibleRegion().isEmpty());
        QVERIFY(scheduleDock->toggleViewAction()->isChecked());
        QVERIFY(!scheduleDock->isFloating());
    }

    void aMistakeShowsItsMarkerWhileTyping()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallLadder() + QStringLiteral("\nx = undefined_thing\n"), QString(), true);
        QVERIFY(awaitAnalysis(w));
        int line = w.editor()->lineCount() - 1;
        QVERIFY(w.editor()->hasDiagnosticMarker(line));
        QVERIFY(w.editor()->annotationText(line).contains(QStringLiteral("not defined")));
    }

    void theLadderFillsWithNumbers()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallLadder(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        w.selectVariant(QStringLiteral("unroll"));
        QVERIFY(awaitAnalysis(w));
        w.runLadder();
        QVERIFY(awaitLadder(w));
        LadderModel* m = w.ladderModel();
        QVERIFY(m->rowCount() > 3);
        for (int row = 0; row < m->rowCount(); ++row) {
            auto r = m->resultOf(row);
            QVERIFY2(r.has_value(), qPrintable(m->messageOf(row)));
            QVERIFY(r->gflops > 0);
            QVERIFY(r->checked);
        }
    }

    void aSweepFromTheChartsDockFillsTheCharts()
    {
        MainWindow w;
        useBuiltWorker(w);
        auto* loopDock = w.findChild<QDockWidget*>(QStringLiteral("LoopNestDock"));
        auto* chartsDock = w.findChild<QDockWidget*>(QStringLiteral("ChartsDock"));
        QVERIFY(loopDock && chartsDock);
        QVERIFY(w.tabifiedDockWidgets(loopDock).contains(chartsDock));
        w.setScriptText(smallLadder(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        SweepPanel* panel = w.sweepPanel();
        const QStringList variants = panel->variants();
        QVERIFY(variants.size() >= 2);
        QCOMPARE(panel->parameters(),
                 (QStringList{QStringLiteral("M"), QStringLiteral("K"), QStringLiteral("N")}));
        panel->setParameterChecked(QStringLiteral("M"), false);
        panel->setParameterChecked(QStringLiteral("K"), false);
        for (qsizetype i = 2; i < variants.size(); ++i)
            panel->setVariantChecked(variants[i], false);
        panel->setValuesText(QStringLiteral("16,32"));
        panel->setPointLimitSeconds(5);

        QSignalSpy finished(&w, &MainWindow::sweepFinished);
        panel->startButton()->click();
        QVERIFY(panel->isRunning());
        QVERIFY(finished.wait(240000));
        QVERIFY(!panel->isRunning());
        QCOMPARE(w.chartsView()->pointCount(), 4);
        QCOMPARE(w.chartsView()->variants(), variants.mid(0, 2));
        QCOMPARE(panel->progressText(), QStringLiteral("4 / 4 points"));
        for (const ChartPoint& p : w.chartsView()->points()) {
            QVERIFY(p.size == 16 || p.size == 32);
            QVERIFY2(p.gflops > 0 || p.failed || p.skipped, qPrintable(p.message));
        }
    }

    void aCancelledSweepKeepsItsPointsForTheNextOne()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.sweepStore()->clear();
        w.setScriptText(smallLadder(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        SweepPanel* panel = w.sweepPanel();
        const QStringList variants = panel->variants();
        QVERIFY(variants.size() >= 2);
        for (qsizetype i = 1; i < variants.size(); ++i)
            panel->setVariantChecked(variants[i], false);
        panel->setValuesText(QStringLiteral("16,32"));
        QSignalSpy finished(&w, &MainWindow::sweepFinished);
        panel->startButton()->click();
        QVERIFY(finished.wait(240000));
        QCOMPARE(w.sweepStore()->size(), 2);

        // A second variant and a large size: cancelled once three points are in. The first
        // variant's points come from the app, not from a measurement.
        panel->setVariantChecked(variants[1], true);
        panel->setValuesText(QStringLiteral("16,32,1536"));
        panel->startButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(w.chartsView()->pointCount() >= 3, 240000);
        panel->cancelButton()->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 10000);
        const int kept = w.chartsView()->pointCount();
        QVERIFY(kept >= 3);
        for (const ChartPoint& p : w.chartsView()->points())
            QCOMPARE(p.cached, p.variant == variants[0]);
        QVERIFY(w.sweepStore()->size() >= 3);

        // Again at the small sizes, in a worker that was restarted by the cancel: only what was
        // not measured before is measured.
        panel->setValuesText(QStringLiteral("16,32"));
        finished.clear();
        panel->startButton()->click();
        QVERIFY(finished.wait(240000));
        QCOMPARE(w.chartsView()->pointCount(), 4);
        int cached = 0;
        for (const ChartPoint& p : w.chartsView()->points())
            cached += p.cached ? 1 : 0;
        QVERIFY2(cached >= kept, qPrintable(QString::number(cached)));
        QCOMPARE(w.sweepStore()->size(), 4);

        // Run > Forget Measured Points: the next sweep measures everything again.
        QAction* forget = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text().remove(u'&') == QStringLiteral("Forget Measured Points")) forget = a;
        QVERIFY(forget);
        forget->trigger();
        QCOMPARE(w.sweepStore()->size(), 0);
    }

    void reMeasureMachineUpdatesThePeakLine()
    {
        MainWindow w;
        useBuiltWorker(w);
        QAction* action = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text().remove(u'&') == QStringLiteral("Re-measure Machine")) action = a;
        QVERIFY(action);
        QSettings().remove(QStringLiteral("machine"));
        action->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(
            QSettings().value(QStringLiteral("machine/peakGflops")).toDouble() > 0, 120000);
        const double peak = QSettings().value(QStringLiteral("machine/peakGflops")).toDouble();
        const double bandwidth =
            QSettings().value(QStringLiteral("machine/bandwidthGBs")).toDouble();
        QVERIFY(bandwidth > 0);
        QCOMPARE(w.chartsView()->peakGflops(), peak);
        QCOMPARE(
            w.chartsView()->seriesNames(ChartsView::LineTab).filter(QStringLiteral("peak")).size(),
            1);
    }

    void cancellingStopsTheRunAndKeepsTheText()
    {
        MainWindow w;
        useBuiltWorker(w);
        QString text = smallLadder();
        text.replace(QStringLiteral("M = 64"), QStringLiteral("M = 1536"));
        text.replace(QStringLiteral("N = 64"), QStringLiteral("N = 1536"));
        text.replace(QStringLiteral("K = 64"), QStringLiteral("K = 1536"));
        w.setScriptText(text, QString(), false);
        QVERIFY(awaitAnalysis(w));
        w.runLadder();
        QTest::qWait(500);
        QVERIFY(w.worker()->isBusy());
        w.cancelRuns();
        QVERIFY(!w.ladderModel()->resultOf(0).has_value());
        QCOMPARE(w.editor()->text(), text);
    }

    // Esc cancels from the editor too (the editor would otherwise take the key for itself).
    void escapeInTheEditorCancelsTheRun()
    {
        MainWindow w;
        useBuiltWorker(w);
        QString text = smallLadder();
        for (auto p : {QStringLiteral("M"), QStringLiteral("N"), QStringLiteral("K")})
            text.replace(p + QStringLiteral(" = 64"), p + QStringLiteral(" = 1536"));
        w.setScriptText(text, QString(), false);
        QVERIFY(awaitAnalysis(w));
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.editor()->setFocus();
        QWidget* focus = QApplication::focusWidget();
        QVERIFY(focus && w.editor()->isAncestorOf(focus));
        w.runLadder();
        QTest::qWait(300);
        QVERIFY(w.worker()->isBusy());
        QTest::keyClick(focus, Qt::Key_Escape);
        QTRY_VERIFY_WITH_TIMEOUT(!w.worker()->isBusy(), 5000);
        QVERIFY(!w.ladderModel()->resultOf(0).has_value());
        QCOMPARE(w.editor()->text(), text);
    }

    // Ctrl+F, Ctrl+H and zoom keys pressed in the editor: they act, and type nothing.
    void findReplaceAndZoomFromTheKeyboard()
    {
        MainWindow w;
        useBuiltWorker(w);
        const QString text = smallLadder();
        w.setScriptText(text, QString(), false);
        QVERIFY(awaitAnalysis(w));
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.editor()->setFocus();
        QWidget* editor = QApplication::focusWidget();
        QVERIFY(editor && w.editor()->isAncestorOf(editor));

        QTest::keyClick(editor, Qt::Key_Plus, Qt::ControlModifier);
        QTest::keyClick(editor, Qt::Key_Plus, Qt::ControlModifier);
        QCOMPARE(w.zoomSteps(), 2);
        QVERIFY(w.editor()->zoom() > 0);
        QTest::keyClick(editor, Qt::Key_0, Qt::ControlModifier);
        QCOMPARE(w.zoomSteps(), 0);
        QCOMPARE(w.editor()->zoom(), 0);
        QCOMPARE(w.editor()->text(), text);

        QTest::keyClick(editor, Qt::Key_H, Qt::ControlModifier);
        QVERIFY(w.editor()->isFindVisible());
        w.editor()->setFindText(QStringLiteral("te.placeholder("));
        w.editor()->setReplaceText(QStringLiteral("te.placeholder( "));
        const int n = static_cast<int>(text.count(QStringLiteral("te.placeholder(")));
        QVERIFY(n >= 2);
        QCOMPARE(w.editor()->replaceAll(), n);
        QCOMPARE(w.editor()->text().count(QStringLiteral("te.placeholder( ")), n);
        w.editor()->undo();
        QCOMPARE(w.editor()->text(), text);
        QVERIFY(w.editor()->findNext());
        QVERIFY(!w.editor()->text().isEmpty());
    }

    // Two variants side by side: their loop nests, the diff, the statements only one has.
    void compareTwoVariants()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallLadder(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        w.compareVariants();
        CompareView* c = w.compareView();
        QVERIFY(c && c->isVisible());
        Exploration x = explore(smallLadder().toStdString());
        QVERIFY(x.variants.size() >= 3);
        const QString first = QString::fromStdString(x.variants.front().name);
        const QString last = QString::fromStdString(x.variants.back().name);
        QVERIFY(c->choose(0, first));
        QVERIFY(c->choose(1, last));
        QCOMPARE(c->leftText(), QString::fromStdString(x.variants.front().steps.back().tir));
        QCOMPARE(c->rightText(), QString::fromStdString(x.variants.back().steps.back().tir));
        QVERIFY(c->summary().contains(u"changed"_s));
        // The last variant's statements are all its own.
        const std::string statement = x.variants.back().steps.back().label;
        QVERIFY2(c->statementsText().contains(QString::fromStdString(statement).toHtmlEscaped()),
                 qPrintable(c->statementsText()));
        // One variant's first and last step; nothing measured yet.
        QVERIFY(c->choose(0, last, 0));
        QVERIFY(c->choose(1, last));
        QVERIFY(c->statementsText().startsWith(u"Only left: none"_s));
        QVERIFY(c->gflopsText().contains(u"not measured"_s));
        QVERIFY(!c->choose(0, u"no such variant"_s));
    }

    // View > TensorIR Form: each TE step beside its tir.Schedule calls, the scheduled TensorIR
    // as TVM prints it; File > Convert to TensorIR writes the whole script, which opens with
    // every variant scheduled by tir.Schedule, and the user's text was never touched.
    void tensorIRFormAndConversion()
    {
        MainWindow w;
        useBuiltWorker(w);
        QVERIFY(w.openFile(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/opt_gemm.py")));
        QVERIFY(awaitAnalysis(w));
        const QString before = w.editor()->text();
        w.preferVariant(u"write cache"_s);
        w.migration()->show();
        MigrationView* m = w.migration()->view();
        QVERIFY(m && m->isVisible());
        QVERIFY(m->chooseVariant(u"write cache"_s));
        // Steps: cache_write, tile, compute_at, then the axis lines and CC's own steps.
        QVERIFY(m->rowCount() >= 5);
        QVERIFY2(m->teStatement(0).contains(u"cache_write"_s), qPrintable(m->teStatement(0)));
        QVERIFY2(m->calls(0).contains(u"sch.cache_write(b_C, 0, \"global\")"_s),
                 qPrintable(m->calls(0)));
        QVERIFY(m->teStatement(1).contains(u"tile"_s));
        QVERIFY(m->calls(1).contains(u"sch.split(m, factors=[None, 32])"_s));
        QVERIFY(m->calls(m->rowCount() - 1).contains(u"decompose_reduction"_s));
        QVERIFY2(m->status().contains(u"same loop nest"_s), qPrintable(m->status()));
        QVERIFY(m->tensorIRText().contains(u"T.sblock(\"C_update\")"_s));
        m->setSpelling(TirSpelling::Tvm020);
        QVERIFY(m->tensorIRText().contains(u"T.block(\"C_update\")"_s));
        QVERIFY(m->calls(0).contains(u"sch.get_block(\"C\")"_s));

        QTemporaryDir dir;
        const QString path = dir.filePath(u"opt_gemm_tensorir.py"_s);
        QString message;
        QVERIFY2(m->writeConverted(path, &message), qPrintable(message));
        QVERIFY2(message.startsWith(u"Every variant"_s), qPrintable(message));
        QCOMPARE(w.editor()->text(), before);
        QVERIFY(w.openFile(path));
        QVERIFY(awaitAnalysis(w));
        QVERIFY(w.editor()->text().contains(u"sch = tvm.tir.Schedule(te.create_prim_func("_s));
        QVERIFY(!w.editor()->text().contains(u"create_schedule"_s));
        QVERIFY(!m->writeConverted(dir.filePath(u"no/such/folder/x.py"_s), &message));
        QVERIFY2(message.contains(u"cannot write"_s), qPrintable(message));
    }

    // Dark and light: the editor's paper follows, and every syntax colour stays readable on it
    // (WCAG contrast of at least 4.5 between text and paper).
    void bothThemesKeepTheEditorReadable()
    {
        MainWindow w;
        w.setScriptText(smallLadder(), QString(), false);
        auto contrast = [](const QColor& a, const QColor& b) {
            auto lum = [](const QColor& c) {
                auto ch = [](double v) {
                    return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
                };
                return 0.2126 * ch(c.redF()) + 0.7152 * ch(c.greenF()) + 0.0722 * ch(c.blueF());
            };
            const double la = lum(a), lb = lum(b);
            return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
        };
        for (ThemeChoice choice : {ThemeChoice::Dark, ThemeChoice::Light}) {
            const bool dark = applyTheme(choice);
            QCOMPARE(dark, choice == ThemeChoice::Dark);
            QCoreApplication::processEvents();
            const QColor paper = w.editor()->paperColor();
            QCOMPARE(paper.lightnessF() < 0.5, dark);
            const QList<QColor> colors = w.editor()->syntaxColors();
            QVERIFY(colors.size() >= 5);
            for (const QColor& c : colors)
                QVERIFY2(contrast(c, paper) >= 4.5,
                         qPrintable(c.name() + u" on "_s + paper.name() + u": "_s +
                                    QString::number(contrast(c, paper))));
        }
    }

    void aCrashingWorkerIsRestartedAndTheWindowSurvives()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallLadder(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        QString text = w.editor()->text();
        // The generated code crashes the worker mid-run (a testing hook of the worker).
        QSignalSpy failed(w.worker(), &WorkerClient::failed);
        protocol::MeasureRequest crashing;
        crashing.script = text.toStdString();
        crashing.variant = "naive";
        crashing.step = 0;
        crashing.testing.crash = true;
        QString failure;
        w.worker()->submit(
            crashing, &w,
            [&failure](const worker::Reply<protocol::MeasureReply>& r) { failure = r.failure; });
        QVERIFY(failed.wait(30000));
        QVERIFY(failed.first().at(1).toString().contains(QStringLiteral("crash")));
        QCOMPARE(failure, failed.first().at(1).toString());
        // The status bar tells the user.
        QTRY_COMPARE(w.statusBar()->currentMessage(), failure);
        QCOMPARE(w.editor()->text(), text);
        w.runLadder();
        QVERIFY(awaitLadder(w));
        QVERIFY(w.ladderModel()->resultOf(0).has_value());
    }

    void theWindowsExportsAreTheCommandLineToolsOwn()
    {
        // opt_gemm at a small size, saved where the command-line tool can read it.
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("opt_gemm.py"));
        {
            QFile in(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/opt_gemm.py"));
            QVERIFY(in.open(QIODevice::ReadOnly));
            QString text = QString::fromUtf8(in.readAll());
            for (auto p : {QStringLiteral("M"), QStringLiteral("K"), QStringLiteral("N")})
                text.replace(p + QStringLiteral(" = 1024"), p + QStringLiteral(" = 64"));
            QFile out(path);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(text.toUtf8());
        }
        MainWindow w;
        useBuiltWorker(w);
        QVERIFY(w.openFile(path));
        QVERIFY(awaitAnalysis(w));
        w.selectVariant(QStringLiteral("parallel"));
        QVERIFY(awaitAnalysis(w));
        QMenu* exportMenu = nullptr;
        for (QMenu* m : w.findChildren<QMenu*>())
            if (m->title().contains(QStringLiteral("Export"))) exportMenu = m;
        QVERIFY(exportMenu);
        const QStringList formats{QStringLiteral("tvm"), QStringLiteral("c"),
                                  QStringLiteral("llvm"), QStringLiteral("asm"),
                                  QStringLiteral("obj")};
        QByteArray object;
        connect(w.runs(), &RunController::objectReady, this,
                [&](const QString&, const QByteArray& bytes, const QString&, const QString&) {
                    object = bytes;
                });
        QCOMPARE(exportMenu->actions().size(), formats.size());
        for (int k = 0; k < formats.size(); ++k) {
            // The export dialog is modal: read its text and close it when it shows.
            QString shown, title;
            QTimer poll;
            poll.setInterval(20);
            connect(&poll, &QTimer::timeout, [&] {
                QWidget* modal = QApplication::activeModalWidget();
                if (!modal) return;
                if (auto* view = modal->findChild<QPlainTextEdit*>()) shown = view->toPlainText();
                title = modal->windowTitle();
                modal->close();
            });
            poll.start();
            exportMenu->actions()[k]->trigger();
            QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty(), 30000);
            poll.stop();
            if (formats[k] == QStringLiteral("obj")) {
                // The object and its header, as the command-line tool writes them; a C program
                // links them with the system compiler and gets the product.
                const std::string d = "'" + dir.path().toStdString() + "/";
                RunResult cli =
                    runShell(std::string(LOOPSCOPE_CLI) + " export '" + path.toStdString() +
                             "' --variant parallel --format obj -o " + d + "cli.o'");
                QCOMPARE(cli.exitCode, 0);
                QFile cliObject(dir.filePath(QStringLiteral("cli.o"))),
                    cliHeader(dir.filePath(QStringLiteral("cli.h")));
                QVERIFY(cliObject.open(QIODevice::ReadOnly) && cliHeader.open(QIODevice::ReadOnly));
                QTRY_VERIFY(!object.isEmpty());
                QCOMPARE(object, cliObject.readAll());
                QCOMPARE(shown, QString::fromUtf8(cliHeader.readAll()));
                ExportDialog save(QStringLiteral("parallel"), shown, QStringLiteral("mmult.o"), &w,
                                  object);
                QCOMPARE(save.saveTo(dir.filePath(QStringLiteral("window.o"))), QString());
                QFile main(dir.filePath(QStringLiteral("main.c")));
                QVERIFY(main.open(QIODevice::WriteOnly));
                main.write("#define LOOPSCOPE_RUNTIME_IMPLEMENTATION\n#include \"window.h\"\n"
                           "static float A[64 * 64], B[64 * 64], C[64 * 64];\n"
                           "int main(void)\n{\n    for (int i = 0; i < 64 * 64; ++i) {\n"
                           "        A[i] = 1.0f;\n        B[i] = 2.0f;\n    }\n"
                           "    mmult(A, B, C);\n    return C[0] == 128.0f ? 0 : 1;\n}\n");
                main.close();
                RunResult cc = runShell("gcc -std=c11 -O2 -fopenmp -Wall -Werror -o " + d +
                                        "main' " + d + "main.c' " + d + "window.o' -lm 2>&1");
                QVERIFY2(cc.exitCode == 0, cc.output.c_str());
                QCOMPARE(runShell(d + "main'").exitCode, 0);
                continue;
            }
            RunResult cli = runShell(std::string(LOOPSCOPE_CLI) + " export '" + path.toStdString() +
                                     "' --variant parallel --format " + formats[k].toStdString());
            QCOMPARE(cli.exitCode, 0);
            QCOMPARE(shown, QString::fromStdString(cli.output));
            if (formats[k] == QStringLiteral("c")) {
                // Named after the script's function (tvm.build(..., name="mmult")), not "main"; and
                // it compiles.
                QVERIFY2(shown.contains(QStringLiteral("void mmult(float*")),
                         qPrintable(shown.left(2000)));
                const QString c = dir.filePath(QStringLiteral("parallel.c"));
                QFile f(c);
                QVERIFY(f.open(QIODevice::WriteOnly));
                f.write(shown.toUtf8());
                f.close();
                RunResult cc = runShell("gcc -std=c11 -O2 -fopenmp -Wall -Werror -c -o '" +
                                        dir.filePath(QStringLiteral("parallel.o")).toStdString() +
                                        "' '" + c.toStdString() + "' 2>&1");
                QVERIFY2(cc.exitCode == 0, cc.output.c_str());
            }
        }
    }

    void anUnsavedTextIsOfferedAfterACrash()
    {
        QString text;
        {
            auto* w = new MainWindow;
            useBuiltWorker(*w);
            w->setScriptText(smallLadder(), QString(), false);
            QVERIFY(awaitAnalysis(*w));
            w->editor()->appendToVariantBlock(3, QStringLiteral("# a note the user typed"));
            text = w->editor()->text();
            w->runLadder(); // running generated code saves the text first
            w->cancelRuns();
            delete w; // no close event: as if the process had died
        }
        MainWindow again;
        useBuiltWorker(again);
        QVERIFY(again.offerRecovery(false));
        QCOMPARE(again.editor()->text(), text);
        QVERIFY(again.editor()->isModified());
    }
};

LOOPSCOPE_QTEST_MAIN(MainWindowTest)
#include "MainWindowTest.moc"
