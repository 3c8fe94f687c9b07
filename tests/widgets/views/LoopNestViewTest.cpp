// The loop-nest view on real steps: what each mode and printing shows, errors instead of TIR,
// rendering offscreen, synchronized panes, and clicks on loop variables reported as axis names.
#include "views/LoopNestView.h"
#include "explore/Explorer.h"
#include "views/TirEditor.h"
#include "views/ViewColors.h"

#include "support/QtTestMain.h"

#include <QFile>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTest>
#include <QTextBlock>
#include <QToolButton>

using namespace loopscope;

namespace {

Exploration exploreSample(const char* name)
{
    QFile f(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/") + QLatin1String(name));
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read sample %s", name);
    return explore(f.readAll().toStdString(), {{"M", 64}, {"N", 64}, {"K", 64}});
}

const VariantView& variantNamed(const Exploration& x, const std::string& name)
{
    for (const VariantView& v : x.variants)
        if (v.name == name) return v;
    qFatal("no variant %s", name.c_str());
}

int stepWithLabel(const VariantView& v, const std::string& label)
{
    for (std::size_t k = 0; k < v.steps.size(); ++k)
        if (v.steps[k].label == label) return int(k);
    qFatal("no step %s", label.c_str());
}

// The block and column where `needle` first occurs in a line that contains `lineContains`.
std::pair<int, int> find(TirEditor* e, const QString& lineContains, const QString& needle)
{
    for (QTextBlock b = e->document()->begin(); b.isValid(); b = b.next()) {
        if (!b.text().contains(lineContains)) continue;
        const int col = int(b.text().indexOf(needle));
        if (col >= 0) return {b.blockNumber(), col};
    }
    return {-1, -1};
}

// Clicks the middle of the character at (block, column), scrolling it into view first.
void clickAt(TirEditor* e, std::pair<int, int> where)
{
    QTextCursor c(e->document()->findBlockByNumber(where.first));
    c.setPosition(c.block().position() + where.second);
    e->setTextCursor(c);
    e->ensureCursorVisible();
    const QRect r = e->cursorRect(c);
    const int half = e->fontMetrics().horizontalAdvance(QLatin1Char('x')) / 2;
    QTest::mouseClick(e->viewport(), Qt::LeftButton, {}, QPoint(r.left() + half, r.center().y()));
}

// Shows step `step` of `v` alone in TVM's printing, on screen.
bool showOnScreen(LoopNestView& view, const VariantView& v, int step)
{
    view.resize(1000, 600);
    view.setVariant(v);
    view.setPrinting(false);
    view.showStep(step);
    view.show();
    return QTest::qWaitForWindowExposed(&view);
}

// The document's lines other than the fillers opposite added or removed lines.
QString textWithoutFillers(TirEditor* e)
{
    QStringList out;
    for (const TirLine& l : e->lines())
        if (l.change != LineChange::Filler) out << l.text;
    return out.join(QLatin1Char('\n'));
}

QString plain(const std::string& s)
{
    QString q = QString::fromStdString(s);
    if (q.endsWith(QLatin1Char('\n'))) q.chop(1);
    return q;
}

QToolButton* button(QWidget* parent, const QString& text)
{
    for (QToolButton* b : parent->findChildren<QToolButton*>())
        if (b->text() == text) return b;
    qFatal("no button %s", qPrintable(text));
}

} // namespace

class LoopNestViewTest : public QObject {
    Q_OBJECT

private:
    Exploration m_ladder;
    VariantView m_unroll;

    struct Panes {
        TirEditor* step;
        TirEditor* before;
        TirEditor* after;
        QLabel* message;
    };
    static Panes panes(LoopNestView& v)
    {
        return {v.findChild<TirEditor*>(QStringLiteral("stepPane")),
                v.findChild<TirEditor*>(QStringLiteral("beforePane")),
                v.findChild<TirEditor*>(QStringLiteral("afterPane")),
                v.findChild<QLabel*>(QStringLiteral("messageText"))};
    }

private slots:
    void initTestCase()
    {
        m_ladder = exploreSample("matmul_ladder.py");
        QVERIFY(m_ladder.ok);
        m_unroll = variantNamed(m_ladder, "unroll");
    }

    void showsTheTirAfterTheStep()
    {
        LoopNestView view;
        view.setVariant(m_unroll);
        QCOMPARE(view.currentStep(), int(m_unroll.steps.size()) - 1); // the last step by default
        const int k = stepWithLabel(m_unroll, "io, ii = s[C].split(i, factor=32)");
        view.showStep(k);
        const Panes p = panes(view);
        QCOMPARE(p.step->toPlainText(), plain(m_unroll.steps[std::size_t(k)].tir));
        QVERIFY(view.findChild<QLabel*>(QStringLiteral("stepTitle"))
                    ->text()
                    .contains(QStringLiteral("split(i, factor=32)")));

        // The step's changes are marked: the header of the split loop, as a changed line and a
        // loop.
        const auto [block, col] =
            find(p.step, QStringLiteral("for i_outer, i_inner, j in"), QStringLiteral("for"));
        QVERIFY(block >= 0);
        QCOMPARE(p.step->lines()[block].change, LineChange::Changed);
        QVERIFY(p.step->lines()[block].changedLoop);
        QVERIFY(!p.step->lines()[block].changedParts.isEmpty());
        int loops = 0;
        for (const TirLine& l : p.step->lines())
            loops += l.changedLoop;
        QCOMPARE(loops, 1);

        view.setPrinting(true);
        QCOMPARE(p.step->toPlainText(), plain(m_unroll.steps[std::size_t(k)].structured));
        view.setPrinting(false);
        QCOMPARE(p.step->toPlainText(), plain(m_unroll.steps[std::size_t(k)].tir));
    }

    void firstStepHasNothingMarked()
    {
        LoopNestView view;
        view.setVariant(m_unroll);
        view.showStep(0);
        const Panes p = panes(view);
        QCOMPARE(p.step->toPlainText(), plain(m_unroll.steps[0].tir));
        for (const TirLine& l : p.step->lines()) {
            QCOMPARE(l.change, LineChange::None);
            QVERIFY(!l.changedLoop);
        }
    }

    // Too narrow for two readable panes: one pane with the removed lines above their
    // replacements; wide enough again: side by side.
    void aNarrowDiffIsOnePane()
    {
        LoopNestView view;
        view.resize(480, 300);
        view.setVariant(m_unroll);
        view.setMode(LoopNestView::Mode::Diff);
        const int k = stepWithLabel(m_unroll, "s[C].parallel(io)");
        view.showStep(k);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        Panes p = panes(view);
        QVERIFY2(p.step->isVisible(), qPrintable(QString::number(view.width())));
        QVERIFY(!p.after->isVisible());
        bool removed = false, added = false;
        for (const TirLine& l : p.step->lines()) {
            removed |= l.change == LineChange::Removed;
            added |= l.change == LineChange::Added || l.change == LineChange::Changed;
        }
        QVERIFY(removed && added);
        view.resize(1800, 300);
        QTRY_VERIFY(p.after->isVisible());
        QVERIFY(p.before->isVisible());
        QVERIFY(!p.step->isVisible());
    }

    void diffModeShowsTwoAlignedPanes()
    {
        LoopNestView view;
        view.resize(1000, 300);
        view.setVariant(m_unroll);
        view.setMode(LoopNestView::Mode::Diff);
        const int k = stepWithLabel(m_unroll, "s[C].parallel(io)");
        view.showStep(k);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const Panes p = panes(view);
        QVERIFY(p.before->isVisible());
        QVERIFY(p.after->isVisible());
        QVERIFY(!p.step->isVisible());
        QCOMPARE(textWithoutFillers(p.before), plain(m_unroll.steps[std::size_t(k - 1)].tir));
        QCOMPARE(textWithoutFillers(p.after), plain(m_unroll.steps[std::size_t(k)].tir));
        QCOMPARE(p.before->blockCount(), p.after->blockCount());
        // The added "for j_outer in range(2):" has a filler opposite it.
        const int added =
            find(p.after, QStringLiteral("for j_outer in range(2):"), QStringLiteral("for")).first;
        QVERIFY(added >= 0);
        QCOMPARE(p.after->lines()[added].change, LineChange::Added);
        QCOMPARE(p.before->lines()[added].change, LineChange::Filler);
        QVERIFY(p.after->lines()[added].changedLoop);

        // Scrolling one pane scrolls the other.
        QScrollBar* left = p.before->verticalScrollBar();
        QVERIFY(left->maximum() > 2);
        left->setValue(2);
        QCOMPARE(p.after->verticalScrollBar()->value(), 2);
        p.after->verticalScrollBar()->setValue(1);
        QCOMPARE(left->value(), 1);

        // Step 0 has no step before it: the TIR alone.
        view.showStep(0);
        QVERIFY(p.step->isVisible());
        QVERIFY(!p.after->isVisible());
    }

    void rendersOffscreen()
    {
        for (const bool dark : {false, true}) {
            LoopNestView view;
            if (dark) {
                QPalette pal;
                pal.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
                pal.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
                pal.setColor(QPalette::Text, QColor(0xdd, 0xdd, 0xdd));
                pal.setColor(QPalette::WindowText, QColor(0xdd, 0xdd, 0xdd));
                view.setPalette(pal);
            }
            view.resize(1100, 500);
            view.setVariant(m_unroll);
            view.setMode(LoopNestView::Mode::Diff);
            view.showStep(stepWithLabel(m_unroll, "jio, jii = s[C].split(ji, factor=8)"));
            const QPixmap pixmap = view.grab();
            QVERIFY(!pixmap.isNull());
            QCOMPARE(pixmap.size(), QSize(1100, 500) * pixmap.devicePixelRatio());
            // Something was drawn: more than a handful of distinct colors (text, tints, gutter).
            const QImage image = pixmap.toImage();
            QSet<QRgb> colors;
            for (int y = 0; y < image.height(); y += 3)
                for (int x = 0; x < image.width(); x += 3)
                    colors.insert(image.pixel(x, y));
            QVERIFY2(colors.size() > 8, qPrintable(QString::number(colors.size())));

            // Line tints follow the palette: dark tints on a dark base, light on a light one.
            const Panes p = panes(view);
            bool sawTint = false;
            for (const QTextEdit::ExtraSelection& s : p.after->extraSelections()) {
                const QColor c = s.format.background().color();
                QCOMPARE(c.lightnessF() < 0.5, dark);
                sawTint = true;
            }
            QVERIFY(sawTint);
        }
    }

    void clickingALoopVariableEmitsItsAxis()
    {
        LoopNestView view;
        view.resize(1000, 600);
        view.setVariant(m_unroll);
        view.showStep(stepWithLabel(m_unroll, "io, ii = s[C].split(i, factor=32)"));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy clicked(&view, &LoopNestView::loopClicked);
        TirEditor* e = panes(view).step;
        const QString header = QStringLiteral("for i_outer, i_inner, j in T.grid(2, 32, 64):");

        clickAt(e, find(e, header, QStringLiteral("i_inner")));
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.takeFirst().at(0).toString(), QStringLiteral("i_inner"));

        clickAt(e, find(e, header, QStringLiteral("i_outer")));
        QCOMPARE(clicked.takeFirst().at(0).toString(), QStringLiteral("i_outer"));

        // The extent in T.grid selects its variable.
        clickAt(e, find(e, header, QStringLiteral("64)")));
        QCOMPARE(clicked.takeFirst().at(0).toString(), QStringLiteral("j"));

        // A line that is not a loop header emits nothing.
        clickAt(e, find(e, QStringLiteral("T.func_attr"), QStringLiteral("func_attr")));
        QCOMPARE(clicked.count(), 0);
    }

    void clickingAnInitLoopSelectsItsAxis()
    {
        LoopNestView view;
        view.resize(1000, 600);
        view.setVariant(m_unroll);
        view.setMode(LoopNestView::Mode::Diff);
        view.setPrinting(true);
        view.showStep(stepWithLabel(m_unroll, "s[C].reorder(io, jo, ko, ii, ji, ki)"));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy clicked(&view, &LoopNestView::loopClicked);
        TirEditor* e = panes(view).after;
        const auto where = find(e, QStringLiteral("for i_inner_init, j_inner_init in"),
                                QStringLiteral("j_inner_init"));
        QVERIFY(where.first >= 0);
        clickAt(e, where);
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.takeFirst().at(0).toString(), QStringLiteral("j_inner"));
    }

    void clickingALoopNamesItsStage()
    {
        // Both stages have axes i and j; B is then computed inside C's loop over i.
        const Exploration x = explore(R"(import tvm
from tvm import te
A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
C = te.compute((64, 64), lambda i, j: B[i, j] + 1.0, name="C")
s = te.create_schedule(C.op)
s[B].compute_at(s[C], C.op.axis[0])
)",
                                      {});
        QVERIFY(x.ok);
        const VariantView& v = x.variants.front();
        LoopNestView view;
        // Separate nests, "for i, j in T.grid(64, 64)": B's, then C's.
        QVERIFY(showOnScreen(view, v, 0));
        QSignalSpy clicked(&view, &LoopNestView::loopClicked);
        TirEditor* e = panes(view).step;
        auto clickLoop = [&](int nth, const QString& var) {
            int seen = 0;
            for (QTextBlock b = e->document()->begin(); b.isValid(); b = b.next()) {
                const QString header = QStringLiteral("for ") + var;
                const int at = int(b.text().indexOf(header));
                if (at < 0 || !QStringLiteral(" ,").contains(b.text().at(at + header.size())))
                    continue;
                if (seen++ == nth) return clickAt(e, {b.blockNumber(), at + 4});
            }
            QFAIL("no such loop");
        };
        clickLoop(0, QStringLiteral("i"));
        QCOMPARE(clicked.count(), 1);
        QList<QVariant> args = clicked.takeFirst();
        QCOMPARE(args.at(0).toString(), QStringLiteral("i"));
        QCOMPARE(args.at(1).toString(), QStringLiteral("B"));
        clickLoop(1, QStringLiteral("i"));
        args = clicked.takeFirst();
        QCOMPARE(args.at(0).toString(), QStringLiteral("i"));
        QCOMPARE(args.at(1).toString(), QStringLiteral("C"));

        // After compute_at, C's loop over i holds B's loop over j and C's own: the outer i is
        // C's, the first j is B's.
        view.showStep(1);
        e = panes(view).step;
        clickLoop(0, QStringLiteral("i"));
        QCOMPARE(clicked.takeFirst().at(1).toString(), QStringLiteral("C"));
        clickLoop(0, QStringLiteral("j"));
        QCOMPARE(clicked.takeFirst().at(1).toString(), QStringLiteral("B"));
        clickLoop(1, QStringLiteral("j"));
        QCOMPARE(clicked.takeFirst().at(1).toString(), QStringLiteral("C"));
    }

    void clickingALoopWhoseNameMisleadsSelectsItsOwnAxis()
    {
        // B is computed inside C's loop over i, where its own loop over i prints as "i_1"; C's
        // reduction starts its init loop "j_init" there too, beside B's and its own loops over j.
        const Exploration x = explore(R"(import tvm
from tvm import te
A = te.placeholder((64, 64), name="A")
B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
k = te.reduce_axis((0, 64), name="k")
C = te.compute((64, 64), lambda i, j: te.sum(B[k, j] * A[i, k], axis=k), name="C")
s = te.create_schedule(C.op)
s[C].reorder(C.op.axis[0], k, C.op.axis[1])
s[B].compute_at(s[C], C.op.axis[0])
)",
                                      {});
        QVERIFY(x.ok);
        const VariantView& v = x.variants.front();
        LoopNestView view;
        QVERIFY(showOnScreen(view, v, int(v.steps.size()) - 1));
        QSignalSpy clicked(&view, &LoopNestView::loopClicked);
        TirEditor* e = panes(view).step;
        const QString tir = e->toPlainText();
        // Clicks `var` in the header that contains `header`: {stage, axis} it reports.
        auto click = [&](const QString& header, const QString& var) {
            const auto where = find(e, header, var);
            if (where.first < 0) return QStringList{QStringLiteral("no loop ") + header};
            clickAt(e, where);
            if (clicked.count() != 1) return QStringList{QStringLiteral("no click")};
            const QList<QVariant> args = clicked.takeFirst();
            return QStringList{args.at(1).toString(), args.at(0).toString()};
        };
        const QStringList cI{QStringLiteral("C"), QStringLiteral("i")};
        const QStringList bI{QStringLiteral("B"), QStringLiteral("i")};
        const QStringList bJ{QStringLiteral("B"), QStringLiteral("j")};
        const QStringList cJ{QStringLiteral("C"), QStringLiteral("j")};
        const QStringList cK{QStringLiteral("C"), QStringLiteral("k")};
        QCOMPARE(click(QStringLiteral("for i in range(64)"), QStringLiteral("i")), cI);
        QCOMPARE(click(QStringLiteral("for i_1, j in"), QStringLiteral("i_1")), bI);
        QCOMPARE(click(QStringLiteral("for i_1, j in"), QStringLiteral("j in")), bJ);
        QCOMPARE(click(QStringLiteral("for j_init in"), QStringLiteral("j_init")), cJ);
        QCOMPARE(click(QStringLiteral("for k, j in"), QStringLiteral("k,")), cK);
        QCOMPARE(click(QStringLiteral("for k, j in"), QStringLiteral("j in")), cJ);
        QVERIFY2(clicked.isEmpty(), qPrintable(tir));
    }

    void aStepThatDoesNotLowerShowsItsDiagnostic()
    {
        VariantView v = m_unroll;
        v.steps.resize(3);
        v.steps[2].tir.clear();
        v.steps[2].structured.clear();
        v.steps[2].error = Diagnostic{{14, 9}, "cannot vectorize a reduction axis"};
        LoopNestView view;
        view.resize(1400, 400); // wide enough for two panes
        view.setVariant(v);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const Panes p = panes(view);
        QCOMPARE(view.currentStep(), 2);
        QVERIFY(p.message->isVisible());
        QVERIFY(!p.step->isVisible());
        QVERIFY(p.message->text().contains(QStringLiteral("cannot vectorize a reduction axis")));
        QVERIFY(p.message->text().contains(QStringLiteral("line 14:9")));
        view.setMode(LoopNestView::Mode::Diff);
        QVERIFY(p.message->isVisible());

        view.showStep(1);
        QVERIFY(!p.message->isVisible());
        QVERIFY(p.after->isVisible());
    }

    void toolbarTogglesEmitAndSwitch()
    {
        LoopNestView view;
        view.resize(1400, 400); // wide enough for two panes
        view.setVariant(m_unroll);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QSignalSpy modes(&view, &LoopNestView::modeChanged);
        QSignalSpy printings(&view, &LoopNestView::printingChanged);
        QTest::mouseClick(button(&view, QStringLiteral("Diff")), Qt::LeftButton);
        QCOMPARE(view.mode(), LoopNestView::Mode::Diff);
        QCOMPARE(modes.count(), 1);
        QVERIFY(panes(view).after->isVisible());
        QTest::mouseClick(button(&view, QStringLiteral("Structured")), Qt::LeftButton);
        QVERIFY(view.structuredPrinting());
        QCOMPARE(printings.count(), 1);
        QCOMPARE(printings.takeFirst().at(0).toBool(), true);
        QCOMPARE(textWithoutFillers(panes(view).after), plain(m_unroll.steps.back().structured));
        // Setting the state from code updates the buttons without emitting.
        view.setMode(LoopNestView::Mode::Step);
        QVERIFY(button(&view, QStringLiteral("Step"))->isChecked());
        QCOMPARE(modes.count(), 1);
    }

    void aNewExplorationOfTheSameStepKeepsTheScrollPosition()
    {
        LoopNestView view;
        view.resize(600, 160);
        view.setVariant(m_unroll);
        view.showStep(0);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        TirEditor* e = panes(view).step;
        QVERIFY(e->verticalScrollBar()->maximum() >= 3);
        e->verticalScrollBar()->setValue(3);
        view.setVariant(m_unroll); // the next keystroke's exploration, same text
        QCOMPARE(view.currentStep(), 0);
        QCOMPARE(e->verticalScrollBar()->value(), 3);
        VariantView changed = m_unroll; // a different text for the same step
        changed.steps[0].tir += "# edited\n";
        view.setVariant(changed);
        QCOMPARE(e->verticalScrollBar()->value(), 3);
        QVERIFY(e->toPlainText().endsWith(QStringLiteral("# edited")));
    }

    // Lanes that TVM runs one by one (a condition depends on the lane) are shown as TVM prints
    // them, and the summary says that the compiled code runs them on vectors.
    void guardedLanesAreSaidToRunOnVectors()
    {
        Exploration x = explore(R"(import tvm
from tvm import te
A = te.placeholder((64, 16), name="A")
B = te.placeholder((16, 64), name="B")
k = te.reduce_axis((0, 16), name="k")
C = te.compute((64, 64), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
s = te.create_schedule(C.op)
i, j = s[C].op.axis
jo, ji = s[C].split(j, factor=24)
s[C].reorder(i, jo, k, ji)
s[C].vectorize(ji)
)");
        QVERIFY(x.ok);
        const VariantView& v = x.variants.front();
        const StepView& last = v.steps.back();
        QCOMPARE(last.lanesOnVectors, 2); // the init's lanes and the update's
        QVERIFY(QString::fromStdString(last.tir).contains(
            QStringLiteral("for j_inner_init_s in range(24):")));

        LoopNestView view;
        view.setVariant(v);
        auto* summary = view.findChild<QLabel*>(QStringLiteral("stepSummary"));
        QVERIFY(summary->text().endsWith(QStringLiteral("2 lane loops run on vectors")));
        QVERIFY(summary->toolTip().contains(QStringLiteral("masked loads and stores")));
        view.setPrinting(true); // the structured loop nest has no loops over lanes
        QVERIFY(!summary->text().contains(QStringLiteral("lane loop")));
        QVERIFY(summary->toolTip().isEmpty());

        view.setVariant(m_unroll); // no guards
        view.setPrinting(false);
        QVERIFY(!summary->text().contains(QStringLiteral("lane loop")));
        QCOMPARE(m_unroll.steps.back().lanesOnVectors, 0);
    }

    void clearShowsAMessage()
    {
        LoopNestView view;
        view.setVariant(m_unroll);
        view.clear(QStringLiteral("The script has an error"));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(panes(view).message->isVisible());
        QVERIFY(panes(view).message->text().contains(QStringLiteral("The script has an error")));
        view.showStep(1); // nothing to show: stays cleared
        QVERIFY(panes(view).message->isVisible());
    }

    // The window lowers at most kMaxExploredStages stages for each edit: of a 1,000-stage
    // chain's 21 steps (21,021 stages), the first and the last three (4,004 stages); the
    // others say why they are not shown, and where to see the loop nest.
    void aVariantTooLargeToLowerOnEveryEditShowsItsFirstAndLastSteps()
    {
        std::string script = "from tvm import te\n"
                             "A = te.placeholder((8,), name=\"A\")\n"
                             "T0 = te.compute((8,), lambda i: A[i] + 1.0, name=\"T0\")\n";
        for (int k = 1; k < 1000; ++k)
            script += "T" + std::to_string(k) + " = te.compute((8,), lambda i: T" +
                      std::to_string(k - 1) + "[i] * 2.0, name=\"T" + std::to_string(k) + "\")\n";
        script += "s = te.create_schedule(T999.op)\n";
        for (int k = 0; k < 20; ++k)
            script += "s[T" + std::to_string(k) + "].compute_inline()\n";
        const Exploration x = explore(script);
        QVERIFY(x.ok);
        const VariantView& v = x.variants.front();
        QCOMPARE(int(v.steps.size()), 21);
        std::vector<int> lowered;
        for (std::size_t k = 0; k < v.steps.size(); ++k) {
            if (!v.steps[k].tir.empty())
                lowered.push_back(int(k));
            else
                QVERIFY(v.steps[k].notLowered.find("not lowered while editing") == 0);
        }
        QCOMPARE(lowered, (std::vector<int>{0, 18, 19, 20}));

        LoopNestView view;
        view.setVariant(v);
        view.showStep(5);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(panes(view).message->isVisible());
        QVERIFY(panes(view).message->text().contains(QStringLiteral("loopscope-cli lower")));

        // A script within the bound is lowered whole.
        for (const StepView& step : m_unroll.steps)
            QVERIFY(step.notLowered.empty() && !step.tir.empty());
    }

    // Footprints: the loop whose working set outgrows a cache carries a note at its line's end
    // (against caches given here, so that the test does not depend on the machine's).
    void footprintNotesMarkTheLoopsThatOutgrowACache()
    {
        QFile f(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples/opt_gemm.py"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const Exploration x =
            explore(f.readAll().toStdString(), {{"M", 256}, {"N", 256}, {"K", 256}});
        QVERIFY(x.ok);
        LoopNestView view;
        view.setCaches({{1, 32 * 1024, "L1d"}, {2, 128 * 1024, "L2"}, {3, 1024 * 1024, "L3"}});
        view.setVariant(variantNamed(x, "baseline"));
        TirEditor* e = view.afterEditor();
        const int grid = find(e, QStringLiteral("T.grid(256, 256)"), QStringLiteral("for")).first;
        QVERIFY(grid >= 0);
        // n: all of B (256 KiB), a row of A, a row of C; one of its iterations: a row of A and a
        // column of B, 2 KiB.
        const CodeEdit::Note note = e->noteOf(grid);
        QVERIFY2(note.text.contains(QStringLiteral("n: 258 KiB outgrows L1d, L2")),
                 qPrintable(note.text));
        QVERIFY(note.warn);
        // The k loop's 2 KiB fit everywhere: no note.
        const int k = find(e, QStringLiteral("for k in range(256)"), QStringLiteral("for")).first;
        QVERIFY(k >= 0);
        QVERIFY(e->noteOf(k).text.isEmpty());
        // The structured printing marks the same loop on its own line.
        view.setPrinting(true);
        e = view.afterEditor();
        bool marked = false;
        for (QTextBlock b = e->document()->begin(); b.isValid(); b = b.next())
            if (e->noteOf(b.blockNumber()).text.contains(QStringLiteral("outgrows L1d, L2")))
                marked = b.text().contains(QStringLiteral("for m, n in T.grid(256, 256)"));
        QVERIFY(marked);
    }

    // A GPU variant: its kernel's threads and occupancy at its first launch, each access's
    // coalescing at its statement; a store whose warp uses an eighth of the sectors it writes is
    // marked as a warning.
    void gpuAccessesAreNotedAtTheirLines()
    {
        QFile f(QStringLiteral(LOOPSCOPE_SOURCE_DIR "/tests/data/gpu/access_patterns.py"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const Exploration x = explore(f.readAll().toStdString());
        QVERIFY(x.ok);
        LoopNestView view;
        view.setCaches({});
        view.setVariant(variantNamed(x, "transpose"));
        TirEditor* e = view.afterEditor();
        const int launch =
            find(e, QStringLiteral("T.launch_thread(\"blockIdx.y\""), QStringLiteral("blockIdx_y"))
                .first;
        QVERIFY(launch >= 0);
        const CodeEdit::Note kernel = e->noteOf(launch);
        QVERIFY2(kernel.text.contains(QStringLiteral("32 threads per block, 0 bytes shared; on "
                                                     "sm_50 32 of 64 warps per SM (50 %)")),
                 qPrintable(kernel.text));
        QVERIFY(!kernel.warn);
        const int store = find(e, QStringLiteral("T_2["), QStringLiteral("T_2")).first;
        QVERIFY(store >= 0);
        const CodeEdit::Note access = e->noteOf(store);
        QVERIFY2(access.text.contains(QStringLiteral(
                     "global store T: 128 of 1024 bytes fetched used (13 %, stride 1024")),
                 qPrintable(access.text));
        QVERIFY2(access.text.contains(QStringLiteral("global load A: 128 of 128 bytes fetched "
                                                     "used (coalesced)")),
                 qPrintable(access.text));
        QVERIFY(access.warn);
        // The copy's accesses are all coalesced: noted, not marked.
        view.setVariant(variantNamed(x, "copy"));
        e = view.afterEditor();
        const int copy = find(e, QStringLiteral("B_1["), QStringLiteral("B_1")).first;
        QVERIFY(copy >= 0);
        QVERIFY2(e->noteOf(copy).text.contains(QStringLiteral("(coalesced)")),
                 qPrintable(e->noteOf(copy).text));
        QVERIFY(!e->noteOf(copy).warn);
    }

    // Tails: the share of a guarded loop's iterations in a partial tile, on the loop, and the
    // variant's in the summary.
    void tailsAreNotedOnTheirLoop()
    {
        const Exploration x = explore(R"(import tvm
from tvm import te
A = te.placeholder((97, 61), name="A")
B = te.compute((97, 61), lambda i, j: A[i, j] * 2.0, name="B")
s = te.create_schedule(B.op)
i, j = s[B].op.axis
io, ii = s[B].split(i, factor=8)
jo, ji = s[B].split(j, factor=16)
s[B].reorder(io, jo, ii, ji)
)");
        QVERIFY(x.ok);
        LoopNestView view;
        view.setCaches({}); // no footprint notes
        view.setVariant(x.variants.front());
        TirEditor* e = view.afterEditor();
        // i_inner's guard reads the grid's loops; j_inner's, its own loop.
        const int grid = find(e, QStringLiteral("T.grid(13, 4, 8)"), QStringLiteral("for")).first;
        const int j =
            find(e, QStringLiteral("for j_inner in range(16)"), QStringLiteral("for")).first;
        QVERIFY(grid >= 0 && j >= 0);
        QCOMPARE(e->noteOf(grid).text, QStringLiteral("\u2190 i_inner: 7.7 % in a partial tile"));
        QCOMPARE(e->noteOf(j).text, QStringLiteral("\u2190 j_inner: 25.0 % in a partial tile"));
        auto* summary = view.findChild<QLabel*>(QStringLiteral("stepSummary"));
        QVERIFY2(summary->text().contains(QStringLiteral("30.8 % of iterations in partial tiles")),
                 qPrintable(summary->text()));
    }

    // Heat: painted for the printing it was measured on, on the after side of a diff too; a
    // profile of another printing is not shown.
    void heatIsShownForItsOwnPrinting()
    {
        LoopNestView view;
        view.setVariant(m_unroll);
        const StepView& last = m_unroll.steps.back();
        const QString tir = QString::fromStdString(last.tir);
        const int lines = int(tir.split(u'\n').size());
        LineHeat heat;
        heat.tir = tir;
        heat.line = QVector<double>(lines, 0.0);
        heat.loop = QVector<double>(lines, -1.0);
        heat.line[lines - 3] = 0.75; // some line near the end
        heat.loop[8] = 0.9;
        view.setHeat(heat);
        TirEditor* e = view.afterEditor();
        QVERIFY(e->hasHeat());
        QCOMPARE(e->heatOf(e->blockOfAfterLine(lines - 2)).own, 0.75);
        QCOMPARE(e->heatOf(e->blockOfAfterLine(9)).loop, 0.9);
        view.setMode(LoopNestView::Mode::Diff);
        e = view.afterEditor();
        QVERIFY(e->hasHeat());
        QCOMPARE(e->heatOf(e->blockOfAfterLine(lines - 2)).own, 0.75);
        view.setMode(LoopNestView::Mode::Step);
        view.showStep(1); // another printing
        QVERIFY(!view.afterEditor()->hasHeat());
    }

    // Links: lines given by the assembly are tinted; the cursor on a line says which line it is.
    void linkedLinesAndTheCursorsLine()
    {
        LoopNestView view;
        view.setVariant(m_unroll);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        TirEditor* e = view.afterEditor();
        view.setLinkedLines({12});
        QCOMPARE(e->linkedBlocks(), QList<int>{e->blockOfAfterLine(12)});
        QSignalSpy spy(&view, &LoopNestView::tirLineSelected);
        e->setFocus();
        QTextCursor c(e->document()->findBlockByNumber(e->blockOfAfterLine(10)));
        e->setTextCursor(c);
        QVERIFY(!spy.isEmpty());
        QCOMPARE(spy.last().at(0).toInt(), 10);
    }
};

LOOPSCOPE_QTEST_MAIN(LoopNestViewTest)
#include "LoopNestViewTest.moc"
