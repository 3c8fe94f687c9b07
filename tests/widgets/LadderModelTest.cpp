// The ladder model: rows per step, results kept while a step's key is unchanged, speedups over the
// first row, wrong and failed rows without any speed; checked by QAbstractItemModelTester
// throughout.
#include "views/LadderModel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
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
        QCOMPARE(text(m, 1, LadderModel::StatusColumn), QStringLiteral("✓ checked"));
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

QTEST_MAIN(LadderModelTest)
#include "LadderModelTest.moc"
