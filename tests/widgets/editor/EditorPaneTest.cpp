// The editor pane: text and undo, diagnostics at their line, statements appended to a variant's
// block, completion and call tips.
#include "EditorTestScripts.h"

#include "editor/EditorPane.h"

#include "support/QtTestMain.h"

#include <Qsci/qscilexerpython.h>
#include <Qsci/qsciscintilla.h>

#include <QSignalSpy>
#include <QTest>

using namespace loopscope;
using namespace Qt::StringLiterals;

namespace {

const QString kScript = u"import tvm\n"
                        "from tvm import te\n"
                        "\n"
                        "N = 64\n"
                        "A = te.placeholder((N,), name=\"A\")\n"
                        "B = te.compute((N,),\n"
                        "               lambda i: A[i] * 2, name=\"B\")\n"
                        "\n"
                        "# variant: plain\n"
                        "s = te.create_schedule(B.op)\n"
                        "\n"
                        "# variant: split\n"
                        "s = te.create_schedule(B.op)\n"
                        "xo, xi = s[B].split(B.op.axis[0], factor=4)\n"_s;

QString lineOf(const QString& text, int line)
{
    return text.split(u'\n').value(line - 1);
}

} // namespace

class EditorPaneTest : public QObject {
    Q_OBJECT

private slots:
    void setTextLoadsADocument()
    {
        EditorPane pane;
        pane.setText(kScript);
        QCOMPARE(pane.text(), kScript);
        QVERIFY(!pane.isModified());
        QVERIFY(!pane.isUndoAvailable());
        QCOMPARE(pane.lineCount(), 15);
        QCOMPARE(pane.cursorLine(), 1);
    }

    void textEditedFollowsEveryChange()
    {
        EditorPane pane;
        QSignalSpy edited(&pane, &EditorPane::textEdited);
        pane.setText(kScript);
        QVERIFY(edited.count() >= 1);
        edited.clear();
        pane.insertAfterLine(4, u"M = 8"_s);
        QVERIFY(edited.count() >= 1);
        QVERIFY(pane.isModified());
        pane.setModified(false);
        QVERIFY(!pane.isModified());
    }

    void diagnosticsAnnotateTheirLineAndMarkTheMargin()
    {
        EditorPane pane;
        pane.setText(kScript);
        pane.setDiagnostics({{14, 10, u"split factor must be a positive integer"_s},
                             {5, 1, u"first"_s},
                             {5, 3, u"second"_s}});
        QCOMPARE(pane.annotationText(14), u"split factor must be a positive integer"_s);
        QVERIFY(pane.hasDiagnosticMarker(14));
        QCOMPARE(pane.annotationText(5), u"first\nsecond"_s);
        QVERIFY(pane.hasDiagnosticMarker(5));
        QVERIFY(pane.annotationText(13).isEmpty());
        QVERIFY(!pane.hasDiagnosticMarker(13));
        QVERIFY(!pane.hasDiagnosticMarker(1));

        pane.setDiagnostics({});
        QVERIFY(pane.annotationText(14).isEmpty());
        QVERIFY(!pane.hasDiagnosticMarker(14));
        QVERIFY(!pane.hasDiagnosticMarker(5));
        QCOMPARE(pane.text(), kScript); // annotations are not text
    }

    void diagnosticBeyondTheEndGoesToTheLastLine()
    {
        EditorPane pane;
        pane.setText(u"a = 1\nb = 2"_s);
        pane.setDiagnostics({{9, 0, u"late"_s}});
        QCOMPARE(pane.annotationText(2), u"late"_s);
        QVERIFY(pane.hasDiagnosticMarker(2));
    }

    void appendToVariantBlockIsOneUndoableAction()
    {
        EditorPane pane;
        pane.setText(kScript);
        QSignalSpy cursor(&pane, &EditorPane::cursorLineChanged);
        int line = pane.appendToVariantBlock(10, u"s[B].parallel(B.op.axis[0])"_s);
        QCOMPARE(line, 11);
        QCOMPARE(lineOf(pane.text(), 11), u"s[B].parallel(B.op.axis[0])"_s);
        QCOMPARE(lineOf(pane.text(), 12), QString());
        QCOMPARE(lineOf(pane.text(), 13), u"# variant: split"_s);
        QCOMPARE(pane.cursorLine(), 11);
        QVERIFY(!cursor.isEmpty());
        QCOMPARE(cursor.last().at(0).toInt(), 11);

        pane.undo();
        QCOMPARE(pane.text(), kScript);
        pane.redo();
        QCOMPARE(lineOf(pane.text(), 11), u"s[B].parallel(B.op.axis[0])"_s);
    }

    void appendMultiLineStatementUndoesAtOnce()
    {
        EditorPane pane;
        pane.setText(kScript);
        pane.appendToVariantBlock(14, u"i = s[B].op.axis[0]\ns[B].vectorize(xi)"_s);
        QCOMPARE(lineOf(pane.text(), 15), u"i = s[B].op.axis[0]"_s);
        QCOMPARE(lineOf(pane.text(), 16), u"s[B].vectorize(xi)"_s);
        pane.undo();
        QCOMPARE(pane.text(), kScript);
    }

    void appendAfterALastLineWithoutNewline()
    {
        EditorPane pane;
        const QString text = u"s = te.create_schedule(B.op)"_s;
        pane.setText(text);
        pane.appendToVariantBlock(1, u"s[B].unroll(x)"_s);
        QCOMPARE(pane.text(), u"s = te.create_schedule(B.op)\ns[B].unroll(x)"_s);
        pane.undo();
        QCOMPARE(pane.text(), text);
    }

    void appendIndentsLikeTheStatementEndingThere()
    {
        EditorPane pane;
        // Line 7 continues the statement of line 6: the new statement is not indented like it.
        pane.setText(kScript);
        pane.appendToVariantBlock(7, u"C = B"_s);
        QCOMPARE(lineOf(pane.text(), 8), u"C = B"_s);
        // Inside an indented block, the statement takes the block's indentation.
        pane.setText(u"def f():\n    s = 1\n    t = (1,\n         2)\n"_s);
        pane.appendToVariantBlock(4, u"u = 3\nv = 4"_s);
        QCOMPARE(pane.text(),
                 u"def f():\n    s = 1\n    t = (1,\n         2)\n    u = 3\n    v = 4\n"_s);
    }

    void insertAfterLineKeepsTextAsGiven()
    {
        EditorPane pane;
        pane.setText(u"a\nb\n"_s);
        QCOMPARE(pane.insertAfterLine(0, u"top"_s), 1);
        QCOMPARE(pane.text(), u"top\na\nb\n"_s);
        pane.insertAfterLine(3, u"\n# variant: copy\n  x"_s);
        QCOMPARE(pane.text(), u"top\na\nb\n\n# variant: copy\n  x\n"_s);
    }

    void gotoLineMovesTheCursor()
    {
        EditorPane pane;
        pane.setText(kScript);
        QSignalSpy cursor(&pane, &EditorPane::cursorLineChanged);
        pane.gotoLine(13);
        QCOMPARE(pane.cursorLine(), 13);
        QCOMPARE(cursor.count(), 1);
        QCOMPARE(cursor.at(0).at(0).toInt(), 13);
        pane.gotoLine(13);
        QCOMPARE(cursor.count(), 1); // only changes are signalled
    }

    void readOnly()
    {
        EditorPane pane;
        pane.setText(kScript);
        pane.setReadOnly(true);
        QVERIFY(pane.isReadOnly());
        pane.setReadOnly(false);
        QVERIFY(!pane.isReadOnly());
    }

    void completionOfModuleNames()
    {
        EditorPane pane;
        auto c = pane.completionsAt(u"A = te.pl"_s);
        QCOMPARE(c.candidates, QStringList{u"placeholder"_s});
        QCOMPARE(c.typed, 2);
        c = pane.completionsAt(u"x = te."_s);
        QVERIFY(c.candidates.contains(u"compute"_s));
        QVERIFY(c.candidates.contains(u"create_schedule"_s));
        QVERIFY(!c.candidates.contains(u"floordiv"_s));
        QCOMPARE(c.typed, 0);
        c = pane.completionsAt(u"y = tvm.tir.floor"_s);
        QCOMPARE(c.candidates, (QStringList{u"floor"_s, u"floordiv"_s, u"floormod"_s}));
        c = pane.completionsAt(u"f = tvm."_s);
        QVERIFY(c.candidates.contains(u"build"_s));
        QVERIFY(c.candidates.contains(u"lower"_s));
        QVERIFY(c.candidates.contains(u"tir"_s));
        c = pane.completionsAt(u"t = tvm.target."_s);
        QCOMPARE(c.candidates, QStringList{u"Target"_s});
    }

    void completionOfStagePrimitives()
    {
        EditorPane pane;
        auto c = pane.completionsAt(u"xo, xi = s[C]."_s);
        for (const QString& p : {u"split"_s, u"tile"_s, u"fuse"_s, u"reorder"_s, u"vectorize"_s,
                                 u"parallel"_s, u"unroll"_s, u"compute_at"_s, u"compute_inline"_s,
                                 u"compute_root"_s, u"pragma"_s, u"bind"_s, u"storage_align"_s})
            QVERIFY2(c.candidates.contains(p), qPrintable(p));
        c = pane.completionsAt(u"s[C].comp"_s);
        QCOMPARE(c.candidates,
                 (QStringList{u"compute_at"_s, u"compute_inline"_s, u"compute_root"_s}));
        QCOMPARE(c.typed, 4);
        c = pane.completionsAt(u"i, j = s[C].op."_s);
        QVERIFY(c.candidates.contains(u"axis"_s));
        QVERIFY(c.candidates.contains(u"reduce_axis"_s));
        pane.setScheduleNames({u"s"_s});
        c = pane.completionsAt(u"CC = s.cache_"_s);
        QCOMPARE(c.candidates, (QStringList{u"cache_read"_s, u"cache_write"_s}));
    }

    void completionOfScriptNames()
    {
        EditorPane pane;
        pane.setScriptNames({u"io"_s, u"ii"_s, u"jo"_s, u"C"_s});
        auto c = pane.completionsAt(u"s[C].reorder(i"_s);
        QCOMPARE(c.candidates, (QStringList{u"ii"_s, u"io"_s}));
        QCOMPARE(c.typed, 1);
        c = pane.completionsAt(u"s[C].reorder(io, "_s);
        QVERIFY(c.candidates.contains(u"jo"_s));
        QVERIFY(c.candidates.contains(u"te"_s));
        // Not inside strings or comments.
        QVERIFY(pane.completionsAt(u"A = te.placeholder((N,), name=\"i"_s).candidates.isEmpty());
        QVERIFY(pane.completionsAt(u"# split i"_s).candidates.isEmpty());
    }

    void callTipsShowParameters()
    {
        QCOMPARE(EditorPane::callTipAt(u"xo, xi = s[C].split("_s),
                 u"split(parent, factor=None, nparts=None, disable_predication=False)"_s);
        QCOMPARE(EditorPane::callTipAt(u"s[C].compute_at("_s), u"compute_at(parent, scope)"_s);
        QCOMPARE(EditorPane::callTipAt(u"s[C].tile("_s),
                 u"tile(x_parent, y_parent, x_factor, y_factor)"_s);
        QCOMPARE(EditorPane::callTipAt(u"CC = s.cache_write("_s), u"cache_write(tensor, scope)"_s);
        QCOMPARE(EditorPane::callTipAt(u"C = te.compute("_s),
                 u"compute(shape, fcompute, name=\"compute\", tag=\"\")"_s);
        QCOMPARE(EditorPane::callTipAt(u"x = tvm.tir.floordiv("_s), u"floordiv(a, b)"_s);
        QCOMPARE(EditorPane::callTipAt(u"print(tvm.lower("_s),
                 u"lower(inp, args=None, name=\"main\", simple_mode=False)"_s);
        QVERIFY(EditorPane::callTipAt(u"foo("_s).isEmpty());
        QVERIFY(EditorPane::callTipAt(u"s[C].split"_s).isEmpty());
    }

    void typingDoesNotBreakTheText()
    {
        EditorPane pane;
        pane.setScriptNames({u"io"_s});
        pane.setText(u"s = 1\n"_s);
        pane.show();
        pane.gotoLine(2);
        pane.setFocus();
        QTest::keyClicks(pane.focusProxy(), u"s[C].split(io"_s);
        QVERIFY2(pane.text().startsWith(u"s = 1\ns[C].split(io"_s), qPrintable(pane.text()));
    }

    void callTipAppearsWhenTypingACall()
    {
        EditorPane pane;
        pane.setText(u"x = 1\n"_s);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        pane.gotoLine(2);
        auto* sci = pane.findChild<QsciScintilla*>();
        QTest::keyClicks(sci, u"s[C].split"_s);
        sci->cancelList();
        QTest::keyClicks(sci, u"("_s);
        QVERIFY(sci->SendScintilla(QsciScintillaBase::SCI_CALLTIPACTIVE) != 0);
        QTest::keyClicks(sci, u"io)"_s);
        QVERIFY(sci->SendScintilla(QsciScintillaBase::SCI_CALLTIPACTIVE) == 0);
    }

    void colorsFollowThePalette()
    {
        EditorPane pane;
        auto* sci = pane.findChild<QsciScintilla*>();
        QVERIFY(sci && sci->lexer());
        QPalette dark = pane.palette();
        dark.setColor(QPalette::Base, QColor(30, 30, 30));
        dark.setColor(QPalette::Text, QColor(220, 220, 220));
        pane.setPalette(dark);
        QCOMPARE(sci->lexer()->paper(QsciLexerPython::Default), QColor(30, 30, 30));
        QCOMPARE(sci->lexer()->color(QsciLexerPython::Default), QColor(220, 220, 220));
        QVERIFY(sci->lexer()->color(QsciLexerPython::Keyword).lightness() > 128);
        QPalette light = pane.palette();
        light.setColor(QPalette::Base, QColor(255, 255, 255));
        light.setColor(QPalette::Text, QColor(0, 0, 0));
        pane.setPalette(light);
        QCOMPARE(sci->lexer()->paper(QsciLexerPython::Keyword), QColor(255, 255, 255));
        QVERIFY(sci->lexer()->color(QsciLexerPython::Keyword).lightness() < 128);
        QVERIFY(sci->lexer()->color(QsciLexerPython::HighlightedIdentifier) != QColor(0, 0, 0));
    }

    void teNamesAreTheSecondKeywordClass()
    {
        EditorPane pane;
        auto* sci = pane.findChild<QsciScintilla*>();
        const QString words = QString::fromLatin1(sci->lexer()->keywords(2));
        for (const QString& w :
             {u"te"_s, u"tvm"_s, u"placeholder"_s, u"split"_s, u"cache_write"_s, u"floordiv"_s})
            QVERIFY2(words.split(u' ').contains(w), qPrintable(w));
        QVERIFY(!words.split(u' ').contains(u"def"_s));
    }

    void completionListInsertsTheChosenName()
    {
        EditorPane pane;
        pane.setText(u"x = 1\n"_s);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        pane.gotoLine(2);
        auto* sci = pane.findChild<QsciScintilla*>();
        QVERIFY(sci);
        QTest::keyClicks(sci, u"s[C].comp"_s);
        QVERIFY(sci->isListActive());
        QTest::keyClick(sci, Qt::Key_Down);
        QTest::keyClick(sci, Qt::Key_Return);
        QCOMPARE(pane.text(), u"x = 1\ns[C].compute_inline"_s);
        // Ctrl+Space opens the list on demand.
        QTest::keyClicks(sci, u"(); t = te.re"_s);
        sci->cancelList();
        QVERIFY(!sci->isListActive());
        QTest::keyClick(sci, Qt::Key_Space, Qt::ControlModifier);
        QVERIFY(sci->isListActive());
        QTest::keyClick(sci, Qt::Key_Return);
        QCOMPARE(pane.text(), u"x = 1\ns[C].compute_inline(); t = te.reduce_axis"_s);
    }
};

LOOPSCOPE_QTEST_MAIN(EditorPaneTest)
#include "EditorPaneTest.moc"
