// The LLVM IR / assembly view: the text as given, colors per language, the placeholder while
// empty, and Copy (the selection, else everything).
#include "views/CodeView.h"

#include "support/QtTestMain.h"

#include <QApplication>
#include <QClipboard>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>
#include <QToolButton>

using namespace loopscope;

namespace {

const QString kLlvm = QStringLiteral("; ModuleID = 'main'\n"
                                     "define void @main(ptr noalias %0) {\n"
                                     "entry:\n"
                                     "  %1 = load <8 x float>, ptr %0, align 4\n"
                                     "  ret void\n"
                                     "}");

const QString kAsm = QStringLiteral("\t.text\n"
                                    "main:                # @main\n"
                                    "\tvmovups\t(%rsi), %ymm0\n"
                                    "\tretq");

// The colors the highlighter gave to the characters of one line.
QSet<QRgb> colorsOfLine(QPlainTextEdit* e, int line)
{
    QSet<QRgb> out;
    const QTextBlock b = e->document()->findBlockByNumber(line);
    for (const QTextLayout::FormatRange& r : b.layout()->formats())
        if (r.format.hasProperty(QTextFormat::ForegroundBrush))
            out.insert(r.format.foreground().color().rgb());
    return out;
}

} // namespace

class CodeViewTest : public QObject {
    Q_OBJECT

private slots:
    void showsTheTextWithColorsPerLanguage()
    {
        CodeView v;
        v.setText(kLlvm, CodeView::Language::LlvmIr);
        QCOMPARE(v.text(), kLlvm);
        QCOMPARE(v.language(), CodeView::Language::LlvmIr);
        QVERIFY(v.textEdit()->isReadOnly());
        QVERIFY(colorsOfLine(v.textEdit(), 1).size() >= 3); // keyword, global, type, value
        QVERIFY(!colorsOfLine(v.textEdit(), 0).isEmpty());  // comment

        v.setText(kAsm, CodeView::Language::Assembly);
        QVERIFY(colorsOfLine(v.textEdit(), 2).size() >= 2); // mnemonic, registers

        v.setText(kAsm, CodeView::Language::Plain);
        QVERIFY(colorsOfLine(v.textEdit(), 2).isEmpty());
    }

    void placeholderWhileEmpty()
    {
        CodeView v;
        auto* copy = v.findChild<QToolButton*>(QStringLiteral("copyButton"));
        QVERIFY(copy);
        v.setPlaceholder(QStringLiteral("Compiling…"));
        QCOMPARE(v.placeholder(), QStringLiteral("Compiling…"));
        QVERIFY(!copy->isEnabled());
        v.setText(kLlvm, CodeView::Language::LlvmIr);
        QVERIFY(copy->isEnabled());
        v.setPlaceholder(QStringLiteral("Run the variant to see its IR"));
        QCOMPARE(v.text(), kLlvm); // the placeholder does not replace the text
        v.clear();
        QVERIFY(v.text().isEmpty());
        QVERIFY(!copy->isEnabled());
    }

    void copyTakesTheSelectionOrEverything()
    {
        CodeView v;
        v.setText(kLlvm, CodeView::Language::LlvmIr);
        QSignalSpy copied(&v, &CodeView::copied);
        QTest::mouseClick(v.findChild<QToolButton*>(QStringLiteral("copyButton")), Qt::LeftButton);
        QCOMPARE(copied.count(), 1);
        QCOMPARE(QApplication::clipboard()->text(), kLlvm);

        QTextCursor c = v.textEdit()->textCursor();
        c.setPosition(0);
        c.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
        v.textEdit()->setTextCursor(c);
        v.copy();
        QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("; ModuleID = 'main'"));
    }

    void rendersOffscreen()
    {
        CodeView v;
        v.setCaption(QStringLiteral("LLVM IR · tiled"));
        v.setText(kLlvm, CodeView::Language::LlvmIr);
        v.resize(500, 200);
        QVERIFY(!v.grab().isNull());
    }
};

LOOPSCOPE_QTEST_MAIN(CodeViewTest)
#include "CodeViewTest.moc"
