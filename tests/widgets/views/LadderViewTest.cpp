// The ladder table: choosing a row by mouse or keyboard asks for its step, selecting from code does
// not, wrong and failed rows show their message across the number columns, compact rows.
#include "views/LadderView.h"
#include "views/LadderModel.h"

#include "support/QtTestMain.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>

using namespace loopscope;
using State = LadderModel::State;

class LadderViewTest : public QObject {
    Q_OBJECT

private:
    static void fill(LadderModel& m, int rows)
    {
        std::vector<LadderModel::StepRow> steps;
        for (int i = 0; i < rows; ++i)
            steps.push_back(
                {QStringLiteral("s[C].split(i, factor=%1)").arg(i), 10 + i, QString::number(i)});
        m.setSteps(steps);
    }
    static void click(LadderView& v, int row)
    {
        const QRect r = v.visualRect(v.model()->index(row, LadderModel::StepColumn));
        QTest::mouseClick(v.viewport(), Qt::LeftButton, {}, r.center());
    }

private slots:
    void choosingARowEmitsStepActivated()
    {
        LadderModel m;
        fill(m, 4);
        LadderView v;
        v.setModel(&m);
        v.resize(700, 240);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QSignalSpy activated(&v, &LadderView::stepActivated);

        click(v, 2);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.takeFirst().at(0).toInt(), 2);

        QTest::keyClick(v.viewport(), Qt::Key_Down);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.takeFirst().at(0).toInt(), 3);

        // Selecting from code (the editor's cursor moved) does not ask for the step again.
        v.setCurrentStep(1);
        QCOMPARE(v.currentStep(), 1);
        QCOMPARE(activated.count(), 0);

        // Clicking the current row shows its step again, once.
        click(v, 1);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.takeFirst().at(0).toInt(), 1);
    }

    void selectionSurvivesNewSteps()
    {
        LadderModel m;
        fill(m, 4);
        LadderView v;
        v.setModel(&m);
        v.setCurrentStep(2);
        QSignalSpy activated(&v, &LadderView::stepActivated);
        fill(m, 5); // the next exploration: one more step
        QCOMPARE(v.currentStep(), 2);
        QCOMPARE(activated.count(), 0);
    }

    void fewerStepsUnderTheCurrentRowDoNotAskForAStep()
    {
        // While the user types, an exploration with fewer steps (a statement half typed) moves
        // the current row; that is no choice of the user's and must not move the editor's cursor.
        LadderModel m;
        fill(m, 5);
        LadderView v;
        v.setModel(&m);
        v.setCurrentStep(4);
        QSignalSpy activated(&v, &LadderView::stepActivated);
        fill(m, 2);
        fill(m, 5);
        fill(m, 0);
        fill(m, 3);
        QCOMPARE(activated.count(), 0);
    }

    void wrongAndFailedRowsSpanTheNumberColumns()
    {
        LadderModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        fill(m, 3);
        LadderView v;
        v.setModel(&m);
        m.setResult(0, {10, 9, 11, 2.0, true});
        QCOMPARE(v.columnSpan(0, LadderModel::MedianColumn), 1);
        m.setState(1, State::Wrong, QStringLiteral("C[3, 17] = 0.5, expected 12.25"));
        m.setState(2, State::Failed,
                   QStringLiteral("line 70:1: cannot vectorize a reduction axis"));
        const int span = LadderModel::SpeedupColumn - LadderModel::MedianColumn + 1;
        QCOMPARE(v.columnSpan(1, LadderModel::MedianColumn), span);
        QCOMPARE(v.columnSpan(2, LadderModel::MedianColumn), span);
        m.setResult(1, {5, 4, 6, 4.0, true}); // fixed and re-run
        QCOMPARE(v.columnSpan(1, LadderModel::MedianColumn), 1);
        fill(m, 3); // same keys: the failure stays
        QCOMPARE(v.columnSpan(2, LadderModel::MedianColumn), span);
    }

    // heightForRows is the height at which that many rows show without scrolling, and no less.
    void heightForRowsShowsEveryRow()
    {
        LadderModel m;
        fill(m, 18);
        LadderView v;
        v.setModel(&m);
        v.resize(700, v.heightForRows(18));
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QTRY_VERIFY(v.showsEveryRow());
        QVERIFY(!v.verticalScrollBar()->isVisible());
        v.resize(700, v.heightForRows(17));
        QTRY_VERIFY(!v.showsEveryRow());
    }

    // The fastest row (bold) and an earlier session's row (muted) render.
    void rendersFastestAndEarlierRows()
    {
        LadderModel m;
        LadderModel::Result earlier{40, 39, 41, 0.5, true};
        earlier.earlier = true;
        earlier.cpu = QStringLiteral("testcpu");
        m.setResultLookup([&](const QString& key) -> std::optional<LadderModel::Result> {
            if (key == QStringLiteral("0")) return earlier;
            return std::nullopt;
        });
        fill(m, 3);
        m.setResult(1, {10, 9, 12, 2.0, true});
        QCOMPARE(m.fastestRow(), 1);
        LadderView v;
        v.setModel(&m);
        v.resize(700, 200);
        const QImage image = v.grab().toImage();
        QVERIFY(!image.isNull());
    }

    void rendersCompactRowsOffscreen()
    {
        LadderModel m;
        fill(m, 5);
        m.setResult(0, {100, 90, 120, 1.0, true});
        m.setResult(1, {10, 9, 12, 10.0, true});
        m.setState(2, State::Wrong, QStringLiteral("C[0, 0] = 1, expected 2"));
        m.setState(3, State::Running);
        LadderView v;
        v.setModel(&m);
        v.resize(700, 200);
        const QPixmap pixmap = v.grab();
        QVERIFY(!pixmap.isNull());
        QVERIFY(v.rowHeight(0) <= v.fontMetrics().height() + 8);
        QVERIFY(v.verticalHeader()->isHidden());
        QCOMPARE(v.horizontalHeader()->sectionResizeMode(LadderModel::StepColumn),
                 QHeaderView::Stretch);
    }
};

LOOPSCOPE_QTEST_MAIN(LadderViewTest)
#include "LadderViewTest.moc"
