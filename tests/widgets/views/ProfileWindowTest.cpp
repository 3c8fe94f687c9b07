// Where the time goes, in the window with the real worker, as the GEMM tutorial's reader sees it:
// the ladder of "write cache" run with profiling; the untransformed loop nest spends its time in
// the k loop, the last step in the register-blocked k_outer/m_c loop; the Assembly tab shows the
// profiled kernel's instructions with their shares; TIR and assembly are linked both ways; the
// ladder shows counters only where the machine has them; the status bar gives the caches.
#include "shell/CodeViewController.h"
#include "shell/MainWindow.h"
#include "shell/ProfileController.h"
#include "shell/RunController.h"
#include "views/CodeView.h"
#include "views/LadderModel.h"
#include "views/LoopNestView.h"
#include "views/TirEditor.h"
#include "worker/WorkerClient.h"
#include "worker/WorkerReply.h"

#include "support/QtTestMain.h"

#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcessEnvironment>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTest>
#include <QTextBlock>

using namespace loopscope;

namespace {

QString tutorialAt256()
{
    QFile f(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/opt_gemm.py"));
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read the sample");
    QString text = QString::fromUtf8(f.readAll());
    for (auto p : {QStringLiteral("M"), QStringLiteral("K"), QStringLiteral("N")})
        text.replace(p + QStringLiteral(" = 1024"), p + QStringLiteral(" = 256"));
    return text;
}

bool awaitAnalysis(MainWindow& w, int ms = 20000)
{
    QSignalSpy spy(&w, &MainWindow::analysisApplied);
    return spy.wait(ms);
}

// The block of the shown step's printing whose text contains `needle`, and the loop nest's editor.
int blockWith(TirEditor* e, const QString& needle)
{
    for (QTextBlock b = e->document()->begin(); b.isValid(); b = b.next())
        if (b.text().contains(needle)) return b.blockNumber();
    return -1;
}

} // namespace

class ProfileWindowTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LoopscopeProfileTest"));
        QCoreApplication::setApplicationName(QStringLiteral("LoopscopeProfileTest"));
        QSettings().clear();
        QFile::remove(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                      QStringLiteral("/ladder-results.json"));
    }

    void theTutorialsLadderProfiled()
    {
        MainWindow w;
        w.worker()->setWorkerPath(QStringLiteral(LOOPSCOPE_WORKER));
        w.profile()->setProfiling(true);
        w.setScriptText(tutorialAt256(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        w.selectVariant(QStringLiteral("write cache"));
        QVERIFY(awaitAnalysis(w));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy finished(&w, &MainWindow::ladderFinished);
        w.runLadder();
        QVERIFY(finished.wait(240000));

        // The caches the footprints are measured against.
        bool cachesShown = false;
        for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
            if (l->objectName() == QStringLiteral("cacheSizesLabel"))
                cachesShown = l->text().contains(QStringLiteral("L1d")) ||
                              l->text().contains(QStringLiteral("unknown"));
        QVERIFY(cachesShown);

        LoopNestView* nest = w.loopNestView();
        const auto loopShare = [&](const QString& needle) {
            TirEditor* e = nest->afterEditor();
            const int b = blockWith(e, needle);
            return b < 0 || !e->hasHeat() ? -1.0 : e->heatOf(b).loop;
        };
        // The untransformed loop nest: nearly all of the time in the k loop.
        w.selectStep(0);
        QVERIFY(nest->afterEditor()->hasHeat());
        const double k = loopShare(QStringLiteral("for k in range(256)"));
        QVERIFY2(k >= 0.8, qPrintable(QString::number(k)));

        // After "write cache": in the register-blocked loop over k_outer and m_c.
        const int last = w.ladderModel()->rowCount() - 1;
        w.selectStep(last);
        QVERIFY(nest->afterEditor()->hasHeat());
        const double blocked = loopShare(QStringLiteral("for k_outer, m_c in T.grid"));
        QVERIFY2(blocked >= 0.6, qPrintable(QString::number(blocked)));

        // The assembly is the profiled kernel's: the instructions with the most samples are on
        // the accumulator's update lines, and they are vector instructions.
        CodeView* assembly = w.code()->assemblyView();
        QVERIFY(assembly->showsProfile());
        QPlainTextEdit* text = assembly->textEdit();
        int hottest = -1;
        double most = 0, sum = 0;
        for (int row = 0; row < text->document()->blockCount(); ++row) {
            const double share = static_cast<CodeEdit*>(text)->heatOf(row).own;
            sum += share;
            if (share > most) most = share, hottest = row;
        }
        QVERIFY(hottest >= 0);
        QVERIFY2(sum > 0.9 && sum < 1.0001, qPrintable(QString::number(sum)));
        const int hotLine = assembly->tirLineOfRow(hottest);
        TirEditor* e = nest->afterEditor();
        const int hotBlock = e->blockOfAfterLine(hotLine);
        QVERIFY(hotBlock >= 0);
        QVERIFY2(e->document()->findBlockByNumber(hotBlock).text().contains(
                     QStringLiteral("C_global_1[")),
                 qPrintable(e->document()->findBlockByNumber(hotBlock).text()));

        // TIR -> assembly: the cursor on that line tints its instructions (the two side by side,
        // as View > Assembly Beside Loop Nest puts them).
        w.showAssemblyBesideLoopNest();
        QTRY_VERIFY(assembly->isVisible() && nest->isVisible());
        QVERIFY(assembly->showsProfile());
        e = nest->afterEditor();
        e->setFocus();
        QTextCursor c(e->document()->findBlockByNumber(hotBlock));
        e->setTextCursor(c);
        QCOMPARE(assembly->linkedTirLine(), hotLine);
        const QList<int> rows = assembly->rowsOfTirLine(hotLine);
        QVERIFY(!rows.isEmpty());
        QVERIFY(rows.contains(hottest));
        QCOMPARE(static_cast<CodeEdit*>(text)->linkedBlocks(), rows);
        int vector = 0;
        for (int row : rows)
            vector += CodeView::vectorBits(text->document()->findBlockByNumber(row).text()) > 1;
        QVERIFY(vector > 0);

        // Assembly -> TIR: the cursor on an instruction of another line tints that line (the
        // last such instruction: the cursor is not there yet).
        int otherRow = -1;
        for (int row = text->document()->blockCount() - 1; row > 0 && otherRow < 0; --row)
            if (assembly->tirLineOfRow(row) > 0 && assembly->tirLineOfRow(row) != hotLine)
                otherRow = row;
        QVERIFY(otherRow >= 0);
        text->setFocus();
        text->setTextCursor(QTextCursor(text->document()->findBlockByNumber(otherRow)));
        QCOMPARE(e->linkedBlocks(),
                 QList<int>{e->blockOfAfterLine(assembly->tirLineOfRow(otherRow))});

        // Counters: shown in the ladder where the machine has them, never as zeros.
        const QString status =
            w.ladderModel()->index(last, LadderModel::StatusColumn).data().toString();
        const protocol::StepProfile* p = w.runs()->profileOf(w.ladderModel()->keyOf(last));
        QVERIFY(p);
        QCOMPARE(status.contains(QStringLiteral("IPC")), p->counters);
        QVERIFY(!status.contains(QStringLiteral("IPC 0.00")));
        if (!p->counters) QVERIFY(!p->countersUnavailable.empty());
    }
};

LOOPSCOPE_QTEST_MAIN(ProfileWindowTest)
#include "ProfileWindowTest.moc"
