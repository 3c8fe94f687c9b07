// The schedule panel on the stages the explorer reports for the samples: stages and axes shown,
// actions writing statements, illegal actions disabled with the reason, reorder by dragging rows,
// and the done-criterion click path on the matmul sample.
#include "EditorTestScripts.h"

#include "editor/ScheduleModels.h"
#include "editor/SchedulePanel.h"

#include "support/QtTestMain.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QMimeData>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

using namespace loopscope;
using namespace editortest;
using namespace Qt::StringLiterals;

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

// Waits for the next statement the panel writes (reorders by drag arrive queued).
QString awaitStatement(QSignalSpy& spy)
{
    if (spy.isEmpty() && !spy.wait(2000)) return u"<no statement>"_s;
    return spy.takeFirst().at(0).toString();
}

struct Panel {
    SchedulePanel panel;
    QTreeView* stageView = nullptr;
    QTreeView* axesView = nullptr;
    std::unique_ptr<QAbstractItemModelTester> stageTester, axesTester;

    Panel()
    {
        stageView = panel.findChild<QTreeView*>(u"stageView"_s);
        axesView = panel.findChild<QTreeView*>(u"axesView"_s);
        stageTester = std::make_unique<QAbstractItemModelTester>(
            stageView->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        axesTester = std::make_unique<QAbstractItemModelTester>(
            axesView->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    }
    void show(const VariantFixture& f) { panel.setStages(f.stages, f.context); }
    AxesModel* axes() const { return static_cast<AxesModel*>(axesView->model()); }
    QStringList axisNames() const
    {
        QStringList out;
        for (int r = 0; r < axesView->model()->rowCount(); ++r)
            out << axesView->model()->index(r, AxesModel::NameColumn).data().toString();
        return out;
    }
    QString cell(int row, int column) const
    {
        return axesView->model()->index(row, column).data().toString();
    }
    void click(const QString& action)
    {
        auto* button = panel.findChild<QToolButton*>(action + u"Button"_s);
        QVERIFY2(button, qPrintable(action));
        QVERIFY2(button->isEnabled(), qPrintable(button->toolTip()));
        QTest::mouseClick(button, Qt::LeftButton);
    }
    QAction* action(const QString& name) const { return panel.primitiveAction(name); }
};

VariantFixture matmul(const std::string& variant)
{
    return fixture(readSample("matmul_ladder.py"), variant);
}

} // namespace

class SchedulePanelTest : public QObject {
    Q_OBJECT

private slots:
    void showsStagesAndTheOutputByDefault()
    {
        Panel p;
        p.show(matmul("naive"));
        QCOMPARE(p.stageView->model()->rowCount(), 3);
        QCOMPARE(p.stageView->model()->index(2, StagesModel::NameColumn).data().toString(), u"C"_s);
        QCOMPARE(p.stageView->model()->index(2, StagesModel::KindColumn).data().toString(),
                 u"reduction, output"_s);
        QCOMPARE(p.stageView->model()->index(0, StagesModel::KindColumn).data().toString(),
                 u"placeholder"_s);
        QVERIFY(p.stageView->model()->index(2, 0).data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(
            !p.stageView->model()->index(2, 0).data(Qt::DecorationRole).value<QIcon>().isNull());
        QCOMPARE(p.panel.selectedStage(), u"C"_s);
    }

    void selectingTheCStageShowsItsAxes()
    {
        Panel p;
        p.show(matmul("split k"));
        QVERIFY(p.panel.selectStage(u"A"_s));
        QCOMPARE(p.axesView->model()->rowCount(), 0);
        QVERIFY(p.panel.selectStage(u"C"_s));
        QCOMPARE(p.axisNames(), (QStringList{u"i_outer"_s, u"j_outer"_s, u"k_outer"_s, u"i_inner"_s,
                                             u"j_inner"_s, u"k_inner"_s}));
        QCOMPARE(p.cell(0, AxesModel::ExtentColumn), u"32"_s);
        QCOMPARE(p.cell(5, AxesModel::ExtentColumn), u"4"_s);
        QCOMPARE(p.cell(0, AxesModel::KindColumn), u"serial"_s);
        QVERIFY(p.axesView->model()->index(2, 0).data(AxesModel::ReductionRole).toBool());
        QVERIFY(p.axesView->model()->index(2, 0).data(Qt::FontRole).value<QFont>().italic());
        QVERIFY(!p.axesView->model()->index(1, 0).data(AxesModel::ReductionRole).toBool());

        p.show(matmul("parallel"));
        QCOMPARE(p.cell(0, AxesModel::KindColumn), u"parallel"_s);
        QCOMPARE(p.cell(5, AxesModel::KindColumn), u"vectorized"_s);
    }

    void splitWithFactor8EmitsTheStatement()
    {
        Panel p;
        VariantFixture f = matmul("naive");
        f.context.usedNames.erase("i"); // as in a script with the naive variant alone
        p.show(f);
        QSignalSpy spy(&p.panel, &SchedulePanel::statementRequested);
        QVERIFY(p.panel.selectAxis(u"C"_s, u"i"_s));
        p.panel.findChild<QSpinBox*>(u"factorSpin"_s)->setValue(8);
        p.click(u"split"_s);
        QCOMPARE(awaitStatement(spy),
                 u"i, j_1 = s[C].op.axis\ni_outer, i_inner = s[C].split(i, factor=8)"_s);

        p.show(matmul("split k"));
        QVERIFY(p.panel.selectAxis(u"C"_s, u"j_inner"_s));
        p.panel.findChild<QCheckBox*>(u"npartsCheck"_s)->setChecked(true);
        p.click(u"split"_s);
        QCOMPARE(awaitStatement(spy), u"j_inner_outer, j_inner_inner = s[C].split(ji, nparts=8)"_s);
    }

    void vectorizeOnKIsDisabledWithTheReason()
    {
        Panel p;
        p.show(matmul("naive"));
        QVERIFY(p.panel.selectAxis(u"C"_s, u"k"_s));
        QVERIFY(!p.action(u"vectorize"_s)->isEnabled());
        QVERIFY2(
            p.action(u"vectorize"_s)->toolTip().contains(u"cannot vectorize reduction axis 'k'"_s),
            qPrintable(p.action(u"vectorize"_s)->toolTip()));
        QVERIFY(!p.action(u"parallel"_s)->isEnabled());
        QVERIFY(p.action(u"parallel"_s)
                    ->toolTip()
                    .contains(u"cannot parallelize reduction axis 'k'"_s));
        QVERIFY(p.action(u"split"_s)->isEnabled());
        QVERIFY(p.action(u"unroll"_s)->isEnabled());
        QVERIFY(!p.action(u"storage_align"_s)->isEnabled());
        // The button shows the action's state and reason.
        auto* button = p.panel.findChild<QToolButton*>(u"vectorizeButton"_s);
        QVERIFY(!button->isEnabled());
        QCOMPARE(button->toolTip(), p.action(u"vectorize"_s)->toolTip());
        // A data-parallel axis can be vectorized; the tool tip previews the statement.
        QVERIFY(p.panel.selectAxis(u"C"_s, u"j"_s));
        QVERIFY(p.action(u"vectorize"_s)->isEnabled());
        QVERIFY(p.action(u"vectorize"_s)->toolTip().contains(u"s[C].vectorize("_s));
    }

    // A variant scheduled with tir.Schedule: its blocks are the stages, the panel writes
    // sch.* calls in the script's names, offers TensorIR's own primitives, and refuses what
    // TensorIR lacks with the reason.
    void aTensorIRVariantGetsTirCalls()
    {
        Panel p;
        const std::string script = R"(import tvm
from tvm import te
A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
C = te.compute((64, 64), lambda i, j: B[i, j] + 1.0, name="C")

# variant: tir
sch = tvm.tir.Schedule(te.create_prim_func([A, C]))
b = sch.get_block("B")
i, j = sch.get_loops(b)
sch.parallel(i)
sch.mod.show()
)";
        VariantFixture f = fixture(script, "tir");
        QCOMPARE(f.lastLine, 11); // before sch.mod.show()
        p.show(f);
        QCOMPARE(p.stageView->model()->rowCount(), 3); // A, B, C
        QVERIFY(p.panel.selectAxis(u"B"_s, u"j"_s));
        QCOMPARE(p.axisNames(), (QStringList{u"i"_s, u"j"_s}));
        QCOMPARE(p.cell(0, AxesModel::KindColumn), u"parallel"_s);
        QSignalSpy spy(&p.panel, &SchedulePanel::statementRequested);
        p.panel.findChild<QSpinBox*>(u"factorSpin"_s)->setValue(16);
        p.click(u"split"_s);
        QCOMPARE(awaitStatement(spy), u"j_0, j_1 = sch.split(j, factors=[None, 16])"_s);
        p.click(u"vectorize"_s);
        QCOMPARE(awaitStatement(spy), u"sch.vectorize(j)"_s);
        QVERIFY(p.panel.selectAxis(u"B"_s, u"i"_s));
        QVERIFY(!p.action(u"parallel"_s)->isEnabled());
        QVERIFY2(p.action(u"parallel"_s)->toolTip().contains(u"already parallel"_s),
                 qPrintable(p.action(u"parallel"_s)->toolTip()));
        QVERIFY(!p.action(u"compute_root"_s)->isEnabled());
        QVERIFY(p.action(u"compute_root"_s)->toolTip().contains(u"no compute_root"_s));
        // TensorIR's own primitives are shown for it alone.
        auto* reverse = p.panel.findChild<QToolButton*>(u"reverse_compute_inlineButton"_s);
        QVERIFY(!reverse->isHidden());
        QVERIFY(p.panel.selectStage(u"C"_s));
        p.click(u"reverse_compute_inline"_s);
        QCOMPARE(awaitStatement(spy),
                 u"block_C = sch.get_block(\"C\")\nsch.reverse_compute_inline(block_C)"_s);
        // The consumer's loops and, for reverse_compute_at, the producer's are offered.
        auto* target = p.panel.findChild<QComboBox*>(u"computeAtTargetCombo"_s);
        QVERIFY(target->findText(u"B.i (producer)"_s) >= 0);
        target->setCurrentIndex(target->findText(u"B.i (producer)"_s));
        p.click(u"reverse_compute_at"_s);
        QCOMPARE(awaitStatement(spy),
                 u"block_C = sch.get_block(\"C\")\nsch.reverse_compute_at(block_C, i)"_s);
        QVERIFY(p.action(u"new_variant"_s)->isEnabled());

        p.show(matmul("naive"));
        QVERIFY(reverse->isHidden());
    }

    void placeholderStagesHaveNoLoopActions()
    {
        Panel p;
        p.show(matmul("naive"));
        QVERIFY(p.panel.selectStage(u"A"_s));
        for (const QString& a : {u"split"_s, u"vectorize"_s, u"compute_at"_s, u"cache_write"_s})
            QVERIFY2(!p.action(a)->isEnabled(), qPrintable(a));
        QVERIFY(p.action(u"split"_s)->toolTip().contains(u"'A' is a placeholder"_s));
        QVERIFY(p.action(u"cache_read"_s)->isEnabled());
        QVERIFY(p.action(u"new_variant"_s)->isEnabled());
    }

    void dragReorderEmitsAReorderStatement()
    {
        Panel p;
        p.show(matmul("split k"));
        QSignalSpy spy(&p.panel, &SchedulePanel::statementRequested);
        QVERIFY(p.panel.selectStage(u"C"_s));
        // Drag k_inner (row 5) above i_inner (row 3).
        AxesModel* model = p.axes();
        QVERIFY(model->moveRows({}, 5, 1, {}, 3));
        QCOMPARE(p.axisNames().at(3), u"k_inner"_s);
        QCOMPARE(awaitStatement(spy), u"s[C].reorder(ki, ii, ji)"_s);
        // Before the next analysis arrives, actions act on the rows as shown.
        QVERIFY(p.panel.selectAxis(u"C"_s, u"k_inner"_s));
        QCOMPARE(p.panel.selectedAxes(), QStringList{u"k.inner"_s});
        p.click(u"reorder_outer"_s);
        QCOMPARE(awaitStatement(spy), u"s[C].reorder(ki, ko, ii, ji)"_s);

        // The same through the drop of the rows' mime data.
        p.show(matmul("split k"));
        std::unique_ptr<QMimeData> data(model->mimeData({model->index(2, 0), model->index(2, 1)}));
        QVERIFY(!model->dropMimeData(data.get(), Qt::MoveAction, 6, 0, {})); // ko to the inside
        QCOMPARE(p.axisNames().back(), u"k_outer"_s);
        QCOMPARE(awaitStatement(spy), u"s[C].reorder(ii, ji, ki, ko)"_s);
    }

    void moveOutAndInButtonsReorder()
    {
        Panel p;
        VariantFixture f = matmul("naive");
        f.context.usedNames.erase("j");
        p.show(f);
        QSignalSpy spy(&p.panel, &SchedulePanel::statementRequested);
        QVERIFY(p.panel.selectAxis(u"C"_s, u"k"_s));
        QVERIFY(!p.action(u"reorder_inner"_s)->isEnabled());
        QVERIFY(p.action(u"reorder_inner"_s)->toolTip().contains(u"already the innermost loop"_s));
        p.click(u"reorder_outer"_s);
        QCOMPARE(awaitStatement(spy), u"i_1, j = s[C].op.axis\ns[C].reorder(k, j)"_s);
        QVERIFY(p.panel.selectAxis(u"C"_s, u"i"_s));
        QVERIFY(!p.action(u"reorder_outer"_s)->isEnabled());
    }

    void fuseAndTileUseTheNextLoop()
    {
        Panel p;
        p.show(matmul("tile 32x32"));
        QSignalSpy spy(&p.panel, &SchedulePanel::statementRequested);
        QVERIFY(p.panel.selectAxis(u"C"_s, u"i_outer"_s));
        p.click(u"fuse"_s);
        QCOMPARE(awaitStatement(spy), u"i_outer_j_outer_fused = s[C].fuse(io, jo)"_s);
        QVERIFY(p.panel.selectAxis(u"C"_s, u"j_inner"_s)); // next is k: a reduction
        QVERIFY(!p.action(u"fuse"_s)->isEnabled());
        QVERIFY(p.action(u"fuse"_s)->toolTip().contains(
            u"cannot fuse data-parallel axis with reduction axis"_s));
        QVERIFY(p.panel.selectAxis(u"C"_s, u"i_inner"_s));
        p.panel.findChild<QSpinBox*>(u"factorSpin"_s)->setValue(4);
        p.panel.findChild<QSpinBox*>(u"yFactorSpin"_s)->setValue(2);
        p.click(u"tile"_s);
        QCOMPARE(awaitStatement(spy),
                 u"i_inner_outer, j_inner_outer, i_inner_inner, j_inner_inner = "
                 "s[C].tile(ii, ji, x_factor=4, y_factor=2)"_s);
    }

    void computeAtListsTheConsumersLoops()
    {
        Panel p;
        VariantFixture f = fixture(readSample("softmax.py"), "stages");
        f.context.readers = {{"A", {"maxelem", "expval"}},
                             {"maxelem", {"expval"}},
                             {"expval", {"expsum", "softmax"}},
                             {"expsum", {"softmax"}}};
        p.show(f);
        QSignalSpy spy(&p.panel, &SchedulePanel::statementRequested);
        QVERIFY(p.panel.selectStage(u"maxelem"_s));
        auto* target = p.panel.findChild<QComboBox*>(u"computeAtTargetCombo"_s);
        QStringList items;
        for (int i = 0; i < target->count(); ++i)
            items << target->itemText(i);
        QCOMPARE(items, (QStringList{u"expval.i"_s, u"expval.j"_s}));
        target->setCurrentIndex(0);
        p.click(u"compute_at"_s);
        QCOMPARE(awaitStatement(spy),
                 u"i_1, j_1 = s[expval].op.axis\ns[maxelem].compute_at(s[expval], i_1)"_s);
        QVERIFY(!p.action(u"compute_inline"_s)->isEnabled());
        QVERIFY(p.action(u"compute_inline"_s)->toolTip().contains(u"it is a reduction"_s));

        QVERIFY(p.panel.selectStage(u"softmax"_s));
        QVERIFY(!p.action(u"compute_at"_s)->isEnabled());
        QVERIFY(p.action(u"compute_at"_s)->toolTip().contains(u"it is an output"_s));
    }

    void cachesUseTheChosenScope()
    {
        Panel p;
        p.show(matmul("naive"));
        QSignalSpy spy(&p.panel, &SchedulePanel::statementRequested);
        auto* scope = p.panel.findChild<QComboBox*>(u"scopeCombo"_s);
        QVERIFY(p.panel.selectStage(u"A"_s));
        scope->setCurrentText(u"shared"_s);
        p.click(u"cache_read"_s);
        QCOMPARE(awaitStatement(spy), u"A_shared = s.cache_read(A, \"shared\", [C])"_s);
        QVERIFY(p.panel.selectStage(u"C"_s));
        scope->setCurrentText(u"global"_s);
        p.click(u"cache_write"_s);
        QCOMPARE(awaitStatement(spy), u"C_global = s.cache_write(C, \"global\")"_s);
        p.show(matmul("tile 32x32"));
        QVERIFY(!p.action(u"cache_write"_s)->isEnabled());
        QVERIFY(p.action(u"cache_write"_s)
                    ->toolTip()
                    .contains(u"must come before any other primitive"_s));
    }

    void pragmaTakesItsValue()
    {
        Panel p;
        p.show(matmul("split k"));
        QSignalSpy spy(&p.panel, &SchedulePanel::statementRequested);
        QVERIFY(p.panel.selectAxis(u"C"_s, u"i_outer"_s));
        p.panel.findChild<QComboBox*>(u"pragmaKeyCombo"_s)
            ->setCurrentText(u"auto_unroll_max_step"_s);
        p.panel.findChild<QSpinBox*>(u"pragmaValueSpin"_s)->setValue(32);
        p.click(u"pragma"_s);
        QCOMPARE(awaitStatement(spy), u"s[C].pragma(io, \"auto_unroll_max_step\", 32)"_s);
        p.panel.findChild<QComboBox*>(u"pragmaKeyCombo"_s)->setCurrentText(u"unroll"_s);
        p.click(u"pragma"_s);
        QCOMPARE(awaitStatement(spy), u"s[C].pragma(io, \"unroll\")"_s);
    }

    void rfactorAndBind()
    {
        Panel p;
        p.show(matmul("naive"));
        QSignalSpy spy(&p.panel, &SchedulePanel::statementRequested);
        QVERIFY(p.panel.selectAxis(u"C"_s, u"k"_s));
        p.click(u"rfactor"_s);
        QCOMPARE(awaitStatement(spy), u"C_rf = s.rfactor(C, k)"_s);
        p.panel.findChild<QComboBox*>(u"threadCombo"_s)->setCurrentText(u"threadIdx.x"_s);
        p.click(u"bind"_s);
        QCOMPARE(awaitStatement(spy), u"s[C].bind(k, te.thread_axis(\"threadIdx.x\"))"_s);
        QVERIFY(p.panel.selectAxis(u"C"_s, u"j"_s));
        QVERIFY(!p.action(u"rfactor"_s)->isEnabled());
    }

    void newVariantRequested()
    {
        Panel p;
        QVERIFY(!p.action(u"new_variant"_s)->isEnabled());
        p.show(matmul("naive"));
        QSignalSpy spy(&p.panel, &SchedulePanel::newVariantRequested);
        p.click(u"new_variant"_s);
        QCOMPARE(spy.count(), 1);
    }

    void selectAxisByVarOrNameAndSignals()
    {
        Panel p;
        p.show(matmul("split k"));
        QSignalSpy axisSpy(&p.panel, &SchedulePanel::axisSelected);
        QVERIFY(p.panel.selectAxis(u"C"_s, u"j.inner"_s));
        QCOMPARE(p.panel.selectedAxes(), QStringList{u"j.inner"_s});
        QVERIFY(p.panel.selectAxis(u"C"_s, u"k_outer"_s));
        QCOMPARE(p.panel.selectedAxes(), QStringList{u"k.outer"_s});
        QVERIFY(!p.panel.selectAxis(u"C"_s, u"nope"_s));
        QVERIFY(!p.panel.selectAxis(u"D"_s, u"i"_s));
        QCOMPARE(axisSpy.count(), 0); // programmatic selections are not echoed
        // A user click is.
        p.panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&p.panel));
        p.axesView->scrollToTop();
        QRect r = p.axesView->visualRect(p.axesView->model()->index(0, 0));
        QTest::mouseClick(p.axesView->viewport(), Qt::LeftButton, {}, r.center());
        QCOMPARE(axisSpy.count(), 1);
        QCOMPARE(axisSpy.at(0).at(1).toString(), u"i.outer"_s);
    }

    void selectionSurvivesANewAnalysis()
    {
        Panel p;
        p.show(matmul("tile 32x32"));
        QVERIFY(p.panel.selectAxis(u"C"_s, u"j_inner"_s));
        p.show(matmul("split k")); // j.inner still exists
        QCOMPARE(p.panel.selectedAxes(), QStringList{u"j.inner"_s});
        p.show(matmul("vectorize")); // j.inner was split: its outer part is selected
        QCOMPARE(p.panel.selectedAxes(), QStringList{u"j.inner.outer"_s});
        p.panel.clear();
        QCOMPARE(p.stageView->model()->rowCount(), 0);
        QVERIFY(!p.action(u"split"_s)->isEnabled());
    }

    // Done criterion: split, reorder, vectorize and parallel on the matmul sample with clicks only,
    // each statement appended to the variant's block and the script analysed again.
    void clickThroughTheMatmulSample()
    {
        std::string script = readSample("matmul_ladder.py");
        const std::string variant = "naive";
        Panel p;
        QSignalSpy spy(&p.panel, &SchedulePanel::statementRequested);
        auto analyse = [&] {
            VariantFixture f = fixture(script, variant);
            p.show(f);
            return f;
        };
        auto apply = [&](const VariantFixture& f) {
            QString statement = awaitStatement(spy);
            QVERIFY2(!statement.startsWith(u'<'), "no statement");
            script = insertAfter(script, f.lastLine, statement.toStdString());
        };

        VariantFixture f = analyse();
        QVERIFY(p.panel.selectAxis(u"C"_s, u"j"_s));
        p.click(u"split"_s); // factor 8 by default
        apply(f);
        f = analyse();
        QVERIFY(!f.stages.empty());
        QCOMPARE(p.axisNames(), (QStringList{u"i"_s, u"j_outer"_s, u"j_inner"_s, u"k"_s}));
        QVERIFY(p.panel.selectAxis(u"C"_s, u"k"_s));
        p.click(u"reorder_outer"_s);
        apply(f);
        f = analyse();
        QVERIFY(!f.stages.empty());
        QCOMPARE(p.axisNames(), (QStringList{u"i"_s, u"j_outer"_s, u"k"_s, u"j_inner"_s}));
        QVERIFY(p.panel.selectAxis(u"C"_s, u"j_inner"_s));
        p.click(u"vectorize"_s);
        apply(f);
        f = analyse();
        QVERIFY(!f.stages.empty());
        QVERIFY(p.panel.selectAxis(u"C"_s, u"i"_s));
        p.click(u"parallel"_s);
        apply(f);
        f = analyse();
        QVERIFY(!f.stages.empty());
        QCOMPARE(p.cell(0, AxesModel::KindColumn), u"parallel"_s);
        QCOMPARE(p.cell(3, AxesModel::KindColumn), u"vectorized"_s);
        std::string error;
        QVERIFY2(evaluatesCleanly(script, &error), error.c_str());
        Exploration x = explore(script);
        const VariantView* v = findVariant(x, variant);
        QVERIFY(v);
        QCOMPARE(v->steps.size(), 5u); // untransformed, then one step per click
        QCOMPARE(q(v->steps[1].primitive), u"split"_s);
        QCOMPARE(q(v->steps[2].primitive), u"reorder"_s);
        QCOMPARE(q(v->steps[3].primitive), u"vectorize"_s);
        QCOMPARE(q(v->steps[4].primitive), u"parallel"_s);
    }
};

LOOPSCOPE_QTEST_MAIN(SchedulePanelTest)
#include "SchedulePanelTest.moc"
