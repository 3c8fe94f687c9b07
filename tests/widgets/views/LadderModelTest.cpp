// The ladder model: rows per step, results kept while a step's key is unchanged, speedups over the
// first row, wrong and failed rows without any speed; checked by QAbstractItemModelTester
// throughout.
#include "views/LadderModel.h"
#include "views/LadderStore.h"

#include "explore/Explorer.h"

#include "support/QtTestMain.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace loopscope;
using State = LadderModel::State;
using Result = LadderModel::Result;

namespace {

std::vector<LadderModel::StepRow> steps(std::initializer_list<const char*> keys)
{
    std::vector<LadderModel::StepRow> out;
    int line = 10;
    for (const char* key : keys) {
        LadderModel::StepRow row;
        row.key = QString::fromLatin1(key);
        row.label = QStringLiteral("step ") + row.key;
        row.line = line++;
        out.push_back(row);
    }
    return out;
}

Result result(double median, double gflops, bool checked = true)
{
    return Result{median, median * 0.9, median * 1.2, gflops, checked};
}

QString text(const LadderModel& m, int row, int column)
{
    return m.data(m.index(row, column)).toString();
}

} // namespace

class LadderModelTest : public QObject {
    Q_OBJECT

private slots:
    void rowsAndColumns()
    {
        LadderModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSteps(steps({"a", "b", "c"}));
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.columnCount(), int(LadderModel::ColumnCount));
        QCOMPARE(text(m, 1, LadderModel::StepColumn), QStringLiteral("step b"));
        QCOMPARE(m.data(m.index(1, 0), LadderModel::LineRole).toInt(), 11);
        QCOMPARE(m.stateOf(0), State::NotRun);
        QCOMPARE(text(m, 0, LadderModel::StatusColumn), QStringLiteral("not run"));
        QVERIFY(text(m, 0, LadderModel::MedianColumn).isEmpty());
        QCOMPARE(m.headerData(LadderModel::GflopsColumn, Qt::Horizontal).toString(),
                 QStringLiteral("GFLOPS"));
        const auto align = m.data(m.index(0, LadderModel::MedianColumn), Qt::TextAlignmentRole)
                               .value<Qt::Alignment>();
        QVERIFY(align & Qt::AlignRight);
    }

    void speedupIsOverTheFirstRow()
    {
        LadderModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSteps(steps({"a", "b", "c"}));
        m.setResult(1, result(25.0, 8.0));
        QVERIFY(!m.speedupOf(1)); // the first row has not run yet
        QVERIFY(text(m, 1, LadderModel::SpeedupColumn).isEmpty());

        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.setResult(0, result(100.0, 2.0));
        QVERIFY(!changed.isEmpty());
        QCOMPARE(*m.speedupOf(0), 1.0);
        QCOMPARE(*m.speedupOf(1), 4.0);
        QCOMPARE(text(m, 1, LadderModel::SpeedupColumn), QStringLiteral("4.00×"));
        QCOMPARE(text(m, 1, LadderModel::MedianColumn), QStringLiteral("25.00"));
        QCOMPARE(text(m, 1, LadderModel::RangeColumn), QStringLiteral("22.50 – 30.00"));
        QCOMPARE(text(m, 1, LadderModel::GflopsColumn), QStringLiteral("8.00"));
        QCOMPARE(text(m, 1, LadderModel::StatusColumn), QStringLiteral("✓ checked · fastest"));
        QCOMPARE(text(m, 0, LadderModel::StatusColumn), QStringLiteral("✓ checked"));
        QCOMPARE(m.data(m.index(1, LadderModel::SpeedupColumn), LadderModel::ValueRole).toDouble(),
                 4.0);
        // The bars are relative to the best GFLOPS.
        QCOMPARE(m.data(m.index(1, LadderModel::GflopsColumn), LadderModel::BarRole).toDouble(),
                 1.0);
        QCOMPARE(m.data(m.index(0, LadderModel::GflopsColumn), LadderModel::BarRole).toDouble(),
                 0.25);
        QVERIFY(!m.data(m.index(2, LadderModel::GflopsColumn), LadderModel::BarRole).isValid());
    }

    void wrongRowsShowNoSpeed()
    {
        LadderModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSteps(steps({"a", "b"}));
        m.setResult(0, result(10.0, 1.0));
        m.setResult(1, result(1.0, 10.0));
        const QString mismatch = QStringLiteral("C[3, 17] = 0.5, expected 12.25");
        m.setState(1, State::Wrong, mismatch);
        QCOMPARE(m.stateOf(1), State::Wrong);
        QVERIFY(!m.resultOf(1));
        QVERIFY(!m.speedupOf(1));
        for (int c : {LadderModel::MedianColumn, LadderModel::RangeColumn,
                      LadderModel::GflopsColumn, LadderModel::SpeedupColumn}) {
            QVERIFY2(text(m, 1, c).isEmpty(), qPrintable(text(m, 1, c)));
            QVERIFY(!m.data(m.index(1, c), LadderModel::ValueRole).isValid());
        }
        QCOMPARE(text(m, 1, LadderModel::StatusColumn),
                 QStringLiteral("wrong result: ") + mismatch);
        QCOMPARE(m.data(m.index(1, LadderModel::StepColumn), Qt::ToolTipRole).toString(), mismatch);
        // The wrong row's speed no longer counts as the best.
        QCOMPARE(m.bestGflops(), 1.0);

        // A later result for a row replaces the wrong state (the step was edited and re-run).
        m.setResult(1, result(2.0, 5.0));
        QCOMPARE(m.stateOf(1), State::Done);
        QVERIFY(m.messageOf(1).isEmpty());
    }

    void failedAndSkippedRowsShowTheirMessage()
    {
        LadderModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSteps(steps({"a", "b", "c"}));
        m.setState(1, State::Failed,
                   QStringLiteral("line 12:3: cannot vectorize a reduction axis\nmore"));
        QCOMPARE(text(m, 1, LadderModel::StatusColumn),
                 QStringLiteral("failed: line 12:3: cannot vectorize a reduction axis"));
        QCOMPARE(m.data(m.index(1, LadderModel::MedianColumn), Qt::ToolTipRole).toString(),
                 QStringLiteral("line 12:3: cannot vectorize a reduction axis\nmore"));
        m.setState(0, State::NotRun, QStringLiteral("cancelled"));
        QCOMPARE(text(m, 0, LadderModel::StatusColumn), QStringLiteral("cancelled"));
        m.setState(2, State::Skipped);
        QCOMPARE(text(m, 2, LadderModel::StatusColumn), QStringLiteral("skipped"));
        QCOMPARE(m.data(m.index(2, 0), LadderModel::StateRole).value<State>(), State::Skipped);
    }

    // A run whose check left elements uncompared (the reference's step limit) says so instead of
    // "checked".
    void uncomparedElementsAreShownInTheStatus()
    {
        LadderModel m;
        m.setSteps(steps({"a"}));
        Result r = result(5.0, 1.0, false);
        r.uncompared = QStringLiteral("C: C[0, 0] needs more than 63 steps of the reference "
                                      "interpreter: not compared");
        m.setResult(0, r);
        QCOMPARE(text(m, 0, LadderModel::StatusColumn),
                 QStringLiteral("done · not all compared: C: C[0, 0] needs more than 63 steps of "
                                "the reference interpreter: not compared"));
    }

    // A GPU step timed in turns with its reference says so where its speed is shown.
    void aGpuStepsReferenceIsShownWithItsSpeed()
    {
        LadderModel m;
        m.setSteps(steps({"a"}));
        Result r = result(2.0, 8000);
        r.reference = QStringLiteral("cuBLAS 12.4.5: 1.660 ms; this step 0.83x");
        m.setResult(0, r);
        for (int column : {LadderModel::GflopsColumn, LadderModel::MedianColumn})
            QVERIFY(m.data(m.index(0, column), Qt::ToolTipRole)
                        .toString()
                        .contains(QStringLiteral("cuBLAS 12.4.5: 1.660 ms; this step 0.83x")));
        QVERIFY(!m.data(m.index(0, LadderModel::StatusColumn), Qt::ToolTipRole)
                     .toString()
                     .contains(QStringLiteral("cuBLAS")));
    }

    void queuedAndRunningKeepAStaleResult()
    {
        LadderModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSteps(steps({"a"}));
        m.setResult(0, result(3.0, 1.0));
        m.setState(0, State::Running);
        QVERIFY(m.resultOf(0));
        QVERIFY(m.data(m.index(0, 0), LadderModel::StaleRole).toBool());
        QCOMPARE(text(m, 0, LadderModel::StatusColumn), QStringLiteral("running…"));
        m.setResult(0, result(2.0, 1.5));
        QVERIFY(!m.data(m.index(0, 0), LadderModel::StaleRole).toBool());
    }

    void resultsSurviveWhileTheKeyIsUnchanged()
    {
        LadderModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSteps(steps({"a", "ab", "abc", "abcd"}));
        m.setResult(0, result(8.0, 1.0));
        m.setResult(1, result(4.0, 2.0));
        m.setState(2, State::Wrong, QStringLiteral("C[0, 0] = 1, expected 2"));
        m.setResult(3, result(1.0, 8.0));

        // The third statement was edited: its key and the keys after it change.
        m.setSteps(steps({"a", "ab", "abX", "abXd"}));
        QCOMPARE(m.rowCount(), 4);
        QCOMPARE(m.keyOf(2), QStringLiteral("abX"));
        QCOMPARE(m.resultOf(0)->medianMs, 8.0);
        QCOMPARE(m.resultOf(1)->medianMs, 4.0);
        QCOMPARE(*m.speedupOf(1), 2.0);
        QCOMPARE(m.stateOf(2), State::NotRun);
        QVERIFY(m.messageOf(2).isEmpty());
        QCOMPARE(m.stateOf(3), State::NotRun);
        QVERIFY(!m.resultOf(3));
        QCOMPARE(m.bestGflops(), 2.0);
    }

    void resultsFollowTheirKeyWhenRowsMove()
    {
        LadderModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSteps(steps({"a", "b", "c"}));
        m.setResult(2, result(1.0, 4.0));
        QSignalSpy removed(&m, &QAbstractItemModel::rowsRemoved);
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);

        m.setSteps(steps({"c", "d"})); // fewer rows
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(m.resultOf(0)->gflops, 4.0);
        QVERIFY(!m.resultOf(1));

        m.setSteps(steps({"x", "c", "d", "e"})); // more rows
        QCOMPARE(m.rowCount(), 4);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(m.resultOf(1)->gflops, 4.0);
        QVERIFY(!m.resultOf(0));
        QCOMPARE(reset.count(), 0); // updated in place: the view keeps its selection

        m.setSteps({});
        QCOMPARE(m.rowCount(), 0);
    }

    void outOfRangeRowsAreIgnored()
    {
        LadderModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSteps(steps({"a"}));
        m.setResult(5, result(1.0, 1.0));
        m.setState(-1, State::Failed, QStringLiteral("x"));
        QCOMPARE(m.stateOf(0), State::NotRun);
        QVERIFY(m.keyOf(7).isEmpty());
    }

    // The row with the shortest median is bold and says "fastest" (status and tooltip), and the
    // mark moves as results arrive; one result alone is not marked.
    void theFastestRowIsMarkedAsResultsArrive()
    {
        LadderModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSteps(steps({"a", "b", "c", "d"}));
        const auto bold = [&m](int row) {
            return m.data(m.index(row, LadderModel::MedianColumn), Qt::FontRole)
                .value<QFont>()
                .bold();
        };
        m.setResult(0, result(40.0, 1.0));
        QCOMPARE(m.fastestRow(), -1);
        QVERIFY(!bold(0));
        QCOMPARE(text(m, 0, LadderModel::StatusColumn), QStringLiteral("✓ checked"));

        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.setResult(2, result(10.0, 4.0));
        QCOMPARE(m.fastestRow(), 2);
        // The whole table is told: the mark may leave another row.
        QVERIFY(std::any_of(changed.begin(), changed.end(), [](const QList<QVariant>& args) {
            return args.at(0).toModelIndex().row() == 0 && args.at(1).toModelIndex().row() == 3;
        }));
        for (int c = 0; c < LadderModel::ColumnCount; ++c)
            QVERIFY(m.data(m.index(2, c), LadderModel::FastestRole).toBool());
        QVERIFY(bold(2));
        QVERIFY(!bold(0));
        QVERIFY(text(m, 2, LadderModel::StatusColumn).endsWith(QStringLiteral("fastest")));
        QVERIFY(m.data(m.index(2, LadderModel::GflopsColumn), Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("fastest")));

        m.setState(3, State::Running);
        QCOMPARE(m.fastestRow(), 2);
        m.setResult(3, result(5.0, 8.0));
        QCOMPARE(m.fastestRow(), 3);
        QVERIFY(bold(3));
        QVERIFY(!bold(2));
        QCOMPARE(text(m, 2, LadderModel::StatusColumn), QStringLiteral("✓ checked"));

        // A fastest row that turns out wrong loses the mark.
        m.setState(3, State::Wrong, QStringLiteral("C[0, 0] = 1, expected 2"));
        QCOMPARE(m.fastestRow(), 2);
        // A rerun (stale numbers) is not the fastest until it finishes.
        m.setState(2, State::Queued);
        QCOMPARE(m.fastestRow(), -1);
        QVERIFY(!m.data(m.index(2, 0), LadderModel::FastestRole).toBool());
    }

    // New rows take the measurement the lookup knows of their key: Done, and, when it is from an
    // earlier session, muted (italic), saying on which CPU and when.
    void rowsTakeKnownMeasurements()
    {
        LadderModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        Result earlier = result(20.0, 2.0);
        earlier.cpu = QStringLiteral("testcpu");
        earlier.measuredAt = QDateTime(QDate(2026, 11, 24), QTime(17, 5), Qt::UTC);
        earlier.earlier = true;
        int asked = 0;
        m.setResultLookup([&](const QString& key) -> std::optional<Result> {
            ++asked;
            if (key == QStringLiteral("b")) return earlier;
            if (key == QStringLiteral("c")) return result(5.0, 8.0);
            return std::nullopt;
        });
        m.setSteps(steps({"a", "b", "c"}));
        QVERIFY(asked >= 3);
        QCOMPARE(m.stateOf(0), State::NotRun);
        QCOMPARE(m.stateOf(1), State::Done);
        QCOMPARE(m.resultOf(1)->medianMs, 20.0);
        QVERIFY(m.data(m.index(1, 0), LadderModel::EarlierRole).toBool());
        QVERIFY(!m.data(m.index(2, 0), LadderModel::EarlierRole).toBool());
        const QString tip =
            m.data(m.index(1, LadderModel::MedianColumn), Qt::ToolTipRole).toString();
        QVERIFY2(tip.startsWith(QStringLiteral("Earlier run on testcpu, ")), qPrintable(tip));
        QVERIFY(m.data(m.index(1, LadderModel::StepColumn), Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("Earlier run on testcpu")));
        QVERIFY(text(m, 1, LadderModel::StatusColumn).contains(QStringLiteral("earlier run")));
        QVERIFY(m.data(m.index(1, 0), Qt::FontRole).value<QFont>().italic());
        QCOMPARE(m.fastestRow(), 2);

        // A row that keeps its own entry does not ask again; a measured row stays measured.
        m.setResult(0, result(30.0, 1.5));
        m.setResultLookup({});
        m.setSteps(steps({"a", "b", "c", "d"}));
        QCOMPARE(m.resultOf(0)->medianMs, 30.0);
        QCOMPARE(m.resultOf(1)->medianMs, 20.0);
        QCOMPARE(m.stateOf(3), State::NotRun);
        QCOMPARE(m.rowsOf(QStringLiteral("c")), std::vector<int>{2});
    }

    // A step's key is what it lowers to: every variant's untransformed step has one key, other
    // steps differ, and so does the thread count.
    void stepKeysFollowTheLoweredLoopNest()
    {
        const std::string script = R"(import tvm
from tvm import te
M = N = K = 64
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

# variant: split
s = te.create_schedule(C.op)
io, ii = s[C].split(C.op.axis[0], factor=8)

# variant: parallel
s = te.create_schedule(C.op)
s[C].parallel(C.op.axis[0])
# a comment does not change what a step computes
)";
        const Exploration a = explore(script, {}, "split");
        const Exploration b = explore(script, {}, "parallel");
        QVERIFY(a.ok && b.ok);
        const VariantView& split = a.variants.at(0);
        const VariantView& parallel = b.variants.at(1);
        QCOMPARE(split.steps.size(), std::size_t(2));
        QCOMPARE(parallel.steps.size(), std::size_t(2));
        const QString base = LadderModel::stepKey(split, 0, 0);
        QVERIFY(!base.isEmpty());
        QCOMPARE(LadderModel::stepKey(parallel, 0, 0), base);
        QVERIFY(LadderModel::stepKey(split, 1, 0) != base);
        QVERIFY(LadderModel::stepKey(parallel, 1, 0) != LadderModel::stepKey(split, 1, 0));
        QVERIFY(LadderModel::stepKey(split, 0, 2) != base);
        QVERIFY(LadderModel::stepKey(split, 5, 0).isEmpty());
        // Another size is another measurement.
        const Exploration bigger = explore(script, {{"M", 128}}, "split");
        QVERIFY(LadderModel::stepKey(bigger.variants.at(0), 0, 0) != base);
    }

    // This session's measurements for any script; a saved script's also in a later session (a new
    // store on the same file), marked earlier, and only for that script.
    void theStoreKeepsMeasurementsPerScript()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("ladder.json"));
        const QString script = dir.filePath(QStringLiteral("gemm.py"));
        Result r = result(12.0, 3.0);
        r.cpu = QStringLiteral("testcpu");
        {
            LadderStore store(file);
            store.add(QStringLiteral("unsaved"), result(1.0, 1.0)); // no script yet
            QCOMPARE(store.find(QStringLiteral("unsaved"))->medianMs, 1.0);
            store.setScript(script);
            store.add(QStringLiteral("k1"), r);
            const auto found = store.find(QStringLiteral("k1"));
            QVERIFY(found && !found->earlier);
            QVERIFY(found->measuredAt.isValid());
            QVERIFY(!store.find(QStringLiteral("k2")));
        }
        LadderStore later(file);
        QVERIFY(!later.find(QStringLiteral("k1"))); // no script chosen
        later.setScript(dir.filePath(QStringLiteral("other.py")));
        QVERIFY(!later.find(QStringLiteral("k1")));
        QVERIFY(!later.find(QStringLiteral("unsaved")));
        later.setScript(script);
        const auto found = later.find(QStringLiteral("k1"));
        QVERIFY(found);
        QVERIFY(found->earlier);
        QCOMPARE(found->medianMs, 12.0);
        QCOMPARE(found->gflops, 3.0);
        QCOMPARE(found->cpu, QStringLiteral("testcpu"));
        QVERIFY(found->checked);
        QVERIFY(found->measuredAt.isValid());
    }

    void formatsNumbersForTheirMagnitude()
    {
        QCOMPARE(LadderModel::formatMs(1234.56), QStringLiteral("1234.6"));
        QCOMPARE(LadderModel::formatMs(12.346), QStringLiteral("12.35"));
        QCOMPARE(LadderModel::formatMs(1.5), QStringLiteral("1.500"));
        QCOMPARE(LadderModel::formatMs(0.01234), QStringLiteral("0.0123"));
        QCOMPARE(LadderModel::formatGflops(153.24), QStringLiteral("153.2"));
        QCOMPARE(LadderModel::formatGflops(3.14159), QStringLiteral("3.14"));
        QCOMPARE(LadderModel::formatSpeedup(412.4), QStringLiteral("412×"));
        QCOMPARE(LadderModel::formatSpeedup(12.34), QStringLiteral("12.3×"));
    }
};

LOOPSCOPE_QTEST_MAIN(LadderModelTest)
#include "LadderModelTest.moc"
