// The ladder run by the real worker, as a user compares its rows: a row says it is running while
// its request runs, the fastest row is marked, a step several variants share is measured once,
// the measurements come back with the script in a new window (marked as an earlier run on the
// worker's CPU), and the ladder dock keeps the size the user gave it, so every step of every
// sample shows without scrolling at 1366x768.
#include "explore/Explorer.h"
#include "shell/MainWindow.h"
#include "shell/RunController.h"
#include "views/CodeView.h"
#include "views/LadderModel.h"
#include "views/LadderView.h"
#include "views/VariantTreeView.h"
#include "worker/WorkerClient.h"

#include "support/QtTestMain.h"

#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFont>
#include <QProcessEnvironment>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <algorithm>

using namespace loopscope;
using State = LadderModel::State;

namespace {

QString readFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(f.readAll());
}

// matmul_ladder.py at 64x64x64: quick to measure.
QString smallLadder()
{
    QString text = readFile(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/matmul_ladder.py"));
    for (auto p : {QStringLiteral("M"), QStringLiteral("K"), QStringLiteral("N")})
        text.replace(p + QStringLiteral(" = 1024"), p + QStringLiteral(" = 64"));
    return text;
}

void useBuiltWorker(MainWindow& w)
{
    w.worker()->setWorkerPath(QStringLiteral(LOOPSCOPE_WORKER));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("LOOPSCOPE_WORKER_TESTING"), QStringLiteral("1"));
    w.worker()->setWorkerEnvironment(env);
}

bool awaitAnalysis(MainWindow& w, int ms = 20000)
{
    QSignalSpy spy(&w, &MainWindow::analysisApplied);
    return spy.wait(ms);
}

bool awaitLadder(MainWindow& w, int ms = 120000)
{
    QSignalSpy spy(&w, &MainWindow::ladderFinished);
    return spy.wait(ms);
}

bool choose(MainWindow& w, const QString& variant)
{
    if (w.currentVariant() == variant) return true;
    w.selectVariant(variant);
    return awaitAnalysis(w);
}

// Requests the worker has been given and not finished.
int pendingRequests(MainWindow& w)
{
    return int(w.worker()->queuedRequests().size()) + (w.worker()->runningRequest() >= 0 ? 1 : 0);
}

// The worker has answered what the window asked of it on opening (what it runs on).
bool awaitIdle(MainWindow& w)
{
    return QTest::qWaitFor([&w] { return !w.worker()->isBusy(); }, 30000);
}

bool writeFile(const QString& path, const QString& text)
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return false;
    return f.write(text.toUtf8()) > 0;
}

} // namespace

class LadderRunTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("LoopscopeLadderTest"));
        QCoreApplication::setApplicationName(QStringLiteral("LoopscopeLadderTest"));
        QSettings().clear();
        QFile::remove(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                      QStringLiteral("/ladder-results.json"));
    }

    // Each row goes queued, running (while the worker runs a request), done; then the fastest
    // row is bold and says so.
    void rowsSayRunningWhileTheyRunAndTheFastestIsMarked()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallLadder(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        QVERIFY(choose(w, QStringLiteral("unroll")));
        LadderModel* m = w.ladderModel();
        const int rows = m->rowCount();
        QVERIFY(rows > 3);

        std::vector<std::vector<State>> seen(std::size_t(rows), std::vector<State>{});
        bool runningWithoutARequest = false;
        connect(m, &QAbstractItemModel::dataChanged, this, [&] {
            for (int row = 0; row < std::min(rows, m->rowCount()); ++row) {
                auto& states = seen[std::size_t(row)];
                const State s = m->stateOf(row);
                if (states.empty() || states.back() != s) states.push_back(s);
                if (s == State::Running && w.worker()->runningRequest() < 0)
                    runningWithoutARequest = true;
            }
        });
        w.runLadder();
        QVERIFY(awaitLadder(w));
        QVERIFY(!runningWithoutARequest);
        for (int row = 0; row < rows; ++row) {
            const auto& states = seen[std::size_t(row)];
            QString trace;
            for (State s : states)
                trace += QString::number(int(s)) + u' ';
            const auto running = std::find(states.begin(), states.end(), State::Running);
            QVERIFY2(running != states.end(),
                     qPrintable(QStringLiteral("row %1 never ran: %2").arg(row).arg(trace)));
            QVERIFY2(std::find(running, states.end(), State::Done) != states.end(),
                     qPrintable(trace));
            QCOMPARE(m->stateOf(row), State::Done);
        }

        int fastest = 0;
        for (int row = 1; row < rows; ++row)
            if (m->resultOf(row)->medianMs < m->resultOf(fastest)->medianMs) fastest = row;
        QCOMPARE(m->fastestRow(), fastest);
        for (int row = 0; row < rows; ++row) {
            const QModelIndex status = m->index(row, LadderModel::StatusColumn);
            const bool bold = m->data(status, Qt::FontRole).value<QFont>().bold();
            const bool says = status.data().toString().contains(QStringLiteral("fastest"));
            QCOMPARE(bold, row == fastest);
            QCOMPARE(says, row == fastest);
        }
    }

    // A GPU schedule's ladder on a machine without a GPU (every CI machine): each step is checked
    // on the CPU and says it was not timed, with the reason in its tooltip; with a CUDA target,
    // the code views show the kernels' PTX and CUDA C.
    void aGpuLadderIsCheckedAndNotTimedWithoutAGpu()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(
            readFile(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/tests/data/gpu/matmul_shared.py")),
            QString(), false);
        QVERIFY(awaitAnalysis(w));
        QVERIFY(choose(w, QStringLiteral("shared")));
        LadderModel* m = w.ladderModel();
        QVERIFY(m->rowCount() > 3);
        w.runLadder();
        QVERIFY(awaitLadder(w));
        // A step half-way (a shared stage bound but not yet computed in the kernel) is refused
        // as TVM refuses it; the last is the whole schedule.
        QCOMPARE(m->stateOf(m->rowCount() - 1), State::Done);
        for (int row = 0; row < m->rowCount(); ++row) {
            const QString status = m->index(row, LadderModel::StatusColumn).data().toString();
            if (m->stateOf(row) == State::Failed) continue;
            QVERIFY2(m->stateOf(row) == State::Done,
                     qPrintable(QStringLiteral("row %1: %2").arg(row).arg(status)));
            // The untransformed step is a CPU loop nest: timed as any.
            if (row == 0) {
                QVERIFY2(m->resultOf(row)->medianMs > 0, qPrintable(status));
                continue;
            }
            const QString tip =
                m->index(row, LadderModel::StatusColumn).data(Qt::ToolTipRole).toString();
            if (tip.contains(QStringLiteral("ran on"), Qt::CaseInsensitive)) continue; // a GPU
            // Checked; the numbers' place says why there are none.
            QVERIFY2(status.startsWith(QStringLiteral("✓ checked")), qPrintable(status));
            const QString why =
                m->index(row, LadderModel::MedianColumn).data(LadderModel::MessageRole).toString();
            QVERIFY2(why.startsWith(QStringLiteral("no GPU here: checked on the CPU, not timed")),
                     qPrintable(why));
            QVERIFY2(tip.contains(QStringLiteral("libcuda.so.1")), qPrintable(tip));
            QVERIFY(!m->index(row, LadderModel::MedianColumn).data().isValid());
        }

        auto* box = w.findChild<QComboBox*>(QStringLiteral("targetCombo"));
        QVERIFY(box);
        const int sm80 = box->findData(QStringLiteral("cuda -arch=sm_80"));
        QVERIFY(sm80 >= 0);
        box->setCurrentIndex(sm80);
        emit box->activated(sm80);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* asmDock = w.findChild<QDockWidget*>(QStringLiteral("AsmDock"));
        QVERIFY(asmDock);
        asmDock->show();
        asmDock->raise();
        auto* ptx = qobject_cast<CodeView*>(asmDock->widget());
        QVERIFY(ptx);
        QTRY_VERIFY2_WITH_TIMEOUT(ptx->text().contains(QStringLiteral(".target sm_80")),
                                  qPrintable(ptx->text().left(400)), 20000);
        QVERIFY(ptx->text().contains(QStringLiteral("bar.sync")));
        auto* llvmDock = w.findChild<QDockWidget*>(QStringLiteral("LlvmDock"));
        llvmDock->show();
        llvmDock->raise();
        auto* cuda = qobject_cast<CodeView*>(llvmDock->widget());
        QTRY_VERIFY2_WITH_TIMEOUT(cuda->text().contains(QStringLiteral("__syncthreads()")),
                                  qPrintable(cuda->text().left(400)), 20000);
    }

    // The Variants panel: each variant under the one it came from; a ladder's measurements show
    // on every variant whose last step it measured (the ladder of `unroll` climbs through the
    // last steps of naive, split k, vectorize and parallel, not tile 32x32's); clicking a
    // variant selects it.
    void theVariantTreeShowsWhereEachCameFromAndItsGflops()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallLadder(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        VariantTreeView* tree = w.variantTreeView();
        const auto parentOf = [&](const QString& name) {
            QTreeWidgetItem* item = tree->itemOf(name);
            return item && item->parent() ? item->parent()->text(0) : QString();
        };
        QCOMPARE(tree->tree()->topLevelItemCount(), 1);
        QCOMPARE(parentOf(QStringLiteral("tile 32x32")), QStringLiteral("naive"));
        QCOMPARE(parentOf(QStringLiteral("split k")), QStringLiteral("tile 32x32"));
        QCOMPARE(parentOf(QStringLiteral("vectorize")), QStringLiteral("split k"));
        QCOMPARE(parentOf(QStringLiteral("unroll")), QStringLiteral("parallel"));
        QVERIFY(tree->itemOf(QStringLiteral("split k"))
                    ->text(2)
                    .contains(QStringLiteral("step 2 of tile 32x32")));
        for (const char* name : {"naive", "tile 32x32", "unroll"})
            QCOMPARE(tree->itemOf(QString::fromLatin1(name))->text(1), QStringLiteral("–"));

        QVERIFY(choose(w, QStringLiteral("unroll")));
        QCOMPARE(tree->current(), QStringLiteral("unroll"));
        w.runLadder();
        QVERIFY(awaitLadder(w));
        for (const char* name : {"naive", "split k", "vectorize", "parallel", "unroll"}) {
            const QString text = tree->itemOf(QString::fromLatin1(name))->text(1);
            bool number = false;
            QVERIFY2(text.toDouble(&number) > 0 && number, name);
        }
        QCOMPARE(tree->itemOf(QStringLiteral("tile 32x32"))->text(1), QStringLiteral("–"));

        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTreeWidgetItem* parallel = tree->itemOf(QStringLiteral("parallel"));
        tree->tree()->scrollToItem(parallel);
        const QRect r = tree->tree()->visualItemRect(parallel);
        QTest::mouseClick(tree->tree()->viewport(), Qt::LeftButton, {}, r.center());
        QTRY_COMPARE(w.currentVariant(), QStringLiteral("parallel"));
    }

    // The untransformed step is the same in every variant: measured by the first ladder, the next
    // variant's shows it at once and asks the worker for its other steps only.
    void theUntransformedStepIsMeasuredOnceAcrossVariants()
    {
        MainWindow w;
        useBuiltWorker(w);
        w.setScriptText(smallLadder(), QString(), false);
        QVERIFY(awaitAnalysis(w));
        QVERIFY(choose(w, QStringLiteral("tile 32x32")));
        QVERIFY(awaitIdle(w));
        LadderModel* m = w.ladderModel();
        const int tileRows = m->rowCount();
        QVERIFY(tileRows >= 2);
        w.runLadder();
        QCOMPARE(pendingRequests(w), tileRows);
        QVERIFY(awaitLadder(w));
        QVERIFY(m->resultOf(0));
        const double baseline = m->resultOf(0)->medianMs;

        QVERIFY(choose(w, QStringLiteral("split k")));
        const int splitRows = m->rowCount();
        QVERIFY(splitRows > tileRows);
        QCOMPARE(m->stateOf(0), State::Done);
        QCOMPARE(m->resultOf(0)->medianMs, baseline); // the same measurement, not a new one
        QVERIFY(!m->data(m->index(0, 0), LadderModel::EarlierRole).toBool()); // this session's
        // The tile steps are steps of split k too only where they lower alike: count the rows
        // still to measure.
        int unknown = 0;
        for (int row = 0; row < splitRows; ++row)
            if (!m->resultOf(row)) ++unknown;
        QVERIFY(unknown < splitRows);
        w.runLadder();
        QCOMPARE(pendingRequests(w), unknown);
        QVERIFY(awaitLadder(w));
        for (int row = 0; row < splitRows; ++row)
            QVERIFY2(m->resultOf(row), qPrintable(m->messageOf(row)));
        QCOMPARE(m->resultOf(0)->medianMs, baseline);
    }

    // A saved script's measurements come back in a new window: the same numbers, muted, saying
    // they are from an earlier run on the worker's CPU; F5 measures nothing again. Another script
    // does not see them.
    void measurementsPersistWithTheScript()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("gemm.py"));
        QVERIFY(writeFile(path, smallLadder()));
        std::vector<double> medians;
        QString cpu;
        {
            MainWindow w;
            useBuiltWorker(w);
            QVERIFY(w.openFile(path));
            QVERIFY(awaitAnalysis(w));
            QVERIFY(choose(w, QStringLiteral("vectorize")));
            w.runLadder();
            QVERIFY(awaitLadder(w));
            for (int row = 0; row < w.ladderModel()->rowCount(); ++row) {
                QVERIFY(w.ladderModel()->resultOf(row));
                medians.push_back(w.ladderModel()->resultOf(row)->medianMs);
            }
            cpu = QString::fromStdString(w.runs()->machine().machine.cpu);
            QVERIFY(!cpu.isEmpty());
        }
        {
            MainWindow w;
            useBuiltWorker(w);
            QVERIFY(w.openFile(path));
            QVERIFY(awaitAnalysis(w));
            QVERIFY(choose(w, QStringLiteral("vectorize")));
            QVERIFY(awaitIdle(w));
            LadderModel* m = w.ladderModel();
            QCOMPARE(m->rowCount(), int(medians.size()));
            for (int row = 0; row < m->rowCount(); ++row) {
                QCOMPARE(m->stateOf(row), State::Done);
                QCOMPARE(m->resultOf(row)->medianMs, medians[std::size_t(row)]);
                QVERIFY(m->data(m->index(row, 0), LadderModel::EarlierRole).toBool());
                const QString tip =
                    m->data(m->index(row, LadderModel::MedianColumn), Qt::ToolTipRole).toString();
                QVERIFY2(tip.contains(QStringLiteral("Earlier run on %1, ").arg(cpu)),
                         qPrintable(tip));
            }
            QSignalSpy finished(&w, &MainWindow::ladderFinished);
            w.runLadder();
            QCOMPARE(finished.count(), 1); // nothing to measure
            QCOMPARE(pendingRequests(w), 0);
        }
        {
            const QString other = dir.filePath(QStringLiteral("other.py"));
            QVERIFY(writeFile(other, smallLadder()));
            MainWindow w;
            useBuiltWorker(w);
            QVERIFY(w.openFile(other));
            QVERIFY(awaitAnalysis(w));
            QVERIFY(choose(w, QStringLiteral("vectorize")));
            for (int row = 0; row < w.ladderModel()->rowCount(); ++row)
                QVERIFY(!w.ladderModel()->resultOf(row));
        }
    }

    // The user makes the ladder dock tall enough for the longest ladder of the samples; the next
    // window, at 1366x768, has it so, and every step of every variant of every sample shows.
    void theLadderDockKeepsItsSizeAndEveryStepShows()
    {
        QSettings().remove(QStringLiteral("window"));
        const QStringList samples = QDir(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples"))
                                        .entryList({QStringLiteral("*.py")}, QDir::Files);
        QVERIFY(!samples.isEmpty());
        std::map<QString, std::vector<std::pair<QString, int>>> steps; // sample -> variants
        int longest = 0;
        QString longestSample, longestVariant;
        for (const QString& sample : samples) {
            const Exploration x = explore(
                readFile(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/") + sample).toStdString());
            QVERIFY2(x.ok,
                     qPrintable(sample + QStringLiteral(": ") + QString::number(x.error.loc.line) +
                                QStringLiteral(": ") + QString::fromStdString(x.error.message)));
            for (const VariantView& v : x.variants) {
                const QString name = QString::fromStdString(v.name);
                steps[sample].emplace_back(name, int(v.steps.size()));
                if (int(v.steps.size()) > longest) {
                    longest = int(v.steps.size());
                    longestSample = sample;
                    longestVariant = name;
                }
            }
        }
        const QSize screen(1366, 768);
        int ladderHeight = 0;
        {
            // The default layout has room for the longest ladder; the user gives it a little more.
            MainWindow w;
            useBuiltWorker(w);
            w.resize(screen);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(w.openFile(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/") + longestSample));
            QVERIFY(awaitAnalysis(w));
            QVERIFY(choose(w, longestVariant));
            QCOMPARE(w.ladderModel()->rowCount(), longest);
            auto* dock = w.findChild<QDockWidget*>(QStringLiteral("LadderDock"));
            auto* view = w.findChild<LadderView*>();
            QVERIFY(dock && view);
            QTRY_VERIFY2(view->showsEveryRow(),
                         qPrintable(QStringLiteral("%1 rows in %2 px, %3 needed")
                                        .arg(longest)
                                        .arg(view->height())
                                        .arg(view->heightForRows(longest))));
            const int defaultHeight = dock->height();
            w.resizeDocks({dock}, {defaultHeight + 12}, Qt::Vertical);
            QTRY_VERIFY(dock->height() > defaultHeight);
            ladderHeight = dock->height();
            QVERIFY(w.centralWidget()->height() > 100); // the editor keeps room
            QVERIFY(w.close());                         // saves the layout
        }
        MainWindow w;
        useBuiltWorker(w);
        w.resize(screen);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("LadderDock"));
        auto* view = w.findChild<LadderView*>();
        QTRY_COMPARE(dock->height(), ladderHeight);
        for (const auto& [sample, variants] : steps) {
            QVERIFY(w.openFile(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/") + sample));
            QVERIFY(awaitAnalysis(w));
            for (const auto& [variant, count] : variants) {
                QVERIFY(choose(w, variant));
                QCOMPARE(w.ladderModel()->rowCount(), count);
                QTRY_VERIFY2(view->showsEveryRow(),
                             qPrintable(QStringLiteral("%1, %2: %3 rows in %4 px (viewport %5, "
                                                       "needs %6, scroll %7, hscroll %8)")
                                            .arg(sample, variant)
                                            .arg(count)
                                            .arg(view->height())
                                            .arg(view->viewport()->height())
                                            .arg(view->heightForRows(count))
                                            .arg(view->verticalScrollBar()->maximum())
                                            .arg(view->horizontalScrollBar()->isVisible())));
            }
        }
    }
};

LOOPSCOPE_QTEST_MAIN(LadderRunTest)
#include "LadderRunTest.moc"
