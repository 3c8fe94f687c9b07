#include "views/CodeView.h"

#include "views/CodeEdit.h"
#include "views/ViewColors.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextDocumentFragment>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace loopscope {

// Light colors for LLVM IR (instructions, types, %values, @globals, comments) and AT&T or Intel
// assembly (mnemonics, registers, immediates, directives, labels, comments).
class CodeHighlighter : public QSyntaxHighlighter {
public:
    explicit CodeHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {}

    void setLanguage(CodeView::Language language) { m_language = language; }
    void setColors(const SyntaxColors& colors) { m_colors = colors; }

protected:
    void highlightBlock(const QString& text) override
    {
        if (m_language == CodeView::Language::LlvmIr)
            highlightLlvm(text);
        else if (m_language == CodeView::Language::Assembly)
            highlightAssembly(text);
    }

private:
    QTextCharFormat format(const QColor& color, bool bold = false, bool italic = false) const
    {
        QTextCharFormat f;
        f.setForeground(color);
        if (bold) f.setFontWeight(QFont::Bold);
        if (italic) f.setFontItalic(true);
        return f;
    }

    void apply(const QRegularExpression& re, const QString& text, const QTextCharFormat& f,
               int group = 0)
    {
        for (auto it = re.globalMatch(text); it.hasNext();) {
            auto m = it.next();
            if (m.capturedStart(group) >= 0)
                setFormat(int(m.capturedStart(group)), int(m.capturedLength(group)), f);
        }
    }

    // Strings and a trailing comment starting with `marker` outside strings.
    void stringsAndComment(const QString& text, QStringView markers)
    {
        const QTextCharFormat str = format(m_colors.string);
        const QTextCharFormat comment = format(m_colors.comment, false, true);
        bool inString = false;
        qsizetype stringStart = 0;
        for (qsizetype i = 0; i < text.size(); ++i) {
            const QChar c = text.at(i);
            if (c == u'"') {
                if (inString)
                    setFormat(int(stringStart), int(i - stringStart + 1), str);
                else
                    stringStart = i;
                inString = !inString;
            } else if (!inString) {
                for (QChar m : markers) {
                    const bool slashes = m == u'/' && i + 1 < text.size() && text.at(i + 1) == u'/';
                    if (c == m && (m != u'/' || slashes)) {
                        setFormat(int(i), int(text.size() - i), comment);
                        return;
                    }
                }
            }
        }
    }

    void highlightLlvm(const QString& text)
    {
        static const QRegularExpression keywords(
            u"\\b(?:define|declare|ret|br|switch|call|tail|musttail|load|store|getelementptr|"
            u"inbounds|"
            "alloca|phi|select|icmp|fcmp|f?add|f?sub|f?mul|[suf]div|[suf]rem|shl|lshr|ashr|and|or|"
            "xor|"
            "zext|sext|trunc|fpext|fptrunc|[su]itofp|fpto[su]i|bitcast|ptrtoint|inttoptr|"
            "extractelement|insertelement|shufflevector|extractvalue|insertvalue|align|nsw|nuw|"
            "fast|"
            "contract|reassoc|nnan|ninf|nsz|arcp|afn|exact|to|unreachable|private|internal|"
            "external|"
            "dso_local|local_unnamed_addr|unnamed_addr|noalias|nocapture|readonly|writeonly|"
            "attributes|global|constant|target|datalayout|triple|source_filename|atomicrmw|"
            "cmpxchg|fence|volatile|zeroinitializer|undef|poison|null|true|false|eq|ne|[su]lt|"
            "[su]le|[su]gt|[su]ge|o(?:eq|ne|lt|le|gt|ge)|u(?:eq|ne)|ord|uno|x)\\b"_s);
        static const QRegularExpression types(
            u"\\b(?:i\\d+|half|bfloat|float|double|fp128|x86_fp80|void|ptr|label|metadata)\\b"_s);
        static const QRegularExpression locals(u"%[-\\w.$]+"_s);
        static const QRegularExpression globals(u"@[-\\w.$]+"_s);
        static const QRegularExpression numbers(
            u"(?<![\\w.%@])-?(?:0x[0-9A-Fa-f]+|\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)\\b"_s);
        static const QRegularExpression metadata(u"![\\w.]+|#\\d+"_s);
        static const QRegularExpression label(u"^[-\\w.$]+:"_s);
        apply(keywords, text, format(m_colors.keyword));
        apply(types, text, format(m_colors.type));
        apply(numbers, text, format(m_colors.number));
        apply(locals, text, format(m_colors.buffer));
        apply(globals, text, format(m_colors.call));
        apply(metadata, text, format(m_colors.comment));
        apply(label, text, format(m_colors.type, true));
        stringsAndComment(text, u";");
    }

    void highlightAssembly(const QString& text)
    {
        static const QRegularExpression directive(u"^\\s*(\\.[\\w.]+)"_s);
        static const QRegularExpression label(u"^\\s*([\\w.$@]+):"_s);
        static const QRegularExpression mnemonic(u"^\\s+([a-z][a-z0-9.]*)\\b"_s);
        static const QRegularExpression registers(
            u"%[a-z][a-z0-9]*|"
            "\\b(?:[re]?[abcd]x|[re]?[sd]i|[re]?[sb]p|r\\d+[dwb]?|[xyz]mm\\d+|k[0-7])\\b"_s);
        static const QRegularExpression numbers(u"\\$?-?\\b(?:0x[0-9A-Fa-f]+|\\d+)\\b"_s);
        apply(numbers, text, format(m_colors.number));
        apply(registers, text, format(m_colors.buffer));
        apply(mnemonic, text, format(m_colors.keyword), 1);
        apply(directive, text, format(m_colors.type), 1);
        apply(label, text, format(m_colors.type, true), 1);
        stringsAndComment(text, u"#;/");
    }

    CodeView::Language m_language = CodeView::Language::Plain;
    SyntaxColors m_colors;
};

namespace {

// The code text; refreshes the highlighter's colors when the palette changes. With line info,
// the gutter gives each instruction's TIR line instead of the row's number.
class CodeText : public CodeEdit {
public:
    CodeText(QWidget* parent, CodeHighlighter*& highlighter) : CodeEdit(parent)
    {
        highlighter = m_highlighter = new CodeHighlighter(document());
        m_highlighter->setColors(syntaxColors(palette()));
    }

    QVector<int> rowLine; // empty: plain row numbers
    QVector<int> rowBits;

    void refreshGutter() { updateGutterWidth(); }

protected:
    QString gutterLabel(const QTextBlock& block) const override
    {
        if (rowLine.isEmpty()) return CodeEdit::gutterLabel(block);
        const int row = block.blockNumber();
        return row < rowLine.size() && rowLine[row] > 0 ? QString::number(rowLine[row]) : QString();
    }
    int gutterDigits() const override
    {
        if (rowLine.isEmpty()) return CodeEdit::gutterDigits();
        int most = 1;
        for (int l : rowLine)
            most = std::max(most, l);
        return int(QString::number(most).size());
    }
    QString gutterToolTip(const QTextBlock& block) const override
    {
        const int row = block.blockNumber();
        if (rowLine.isEmpty() || row >= rowLine.size() || rowLine[row] <= 0) return {};
        QString tip = CodeView::tr("TIR line %1").arg(rowLine[row]);
        const Heat h = heatOf(row);
        if (hasHeat()) tip += CodeView::tr(" · %1 % of the samples").arg(h.own * 100, 0, 'f', 2);
        return tip;
    }

    void paletteChanged() override
    {
        m_highlighter->setColors(syntaxColors(palette()));
        m_highlighter->rehighlight();
    }

private:
    CodeHighlighter* m_highlighter;
};

} // namespace

CodeView::CodeView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(6, 2, 4, 2);
    m_caption = new QLabel(this);
    m_caption->setForegroundRole(QPalette::PlaceholderText);
    m_copyButton = new QToolButton(this);
    m_copyButton->setObjectName(u"copyButton"_s);
    m_copyButton->setAutoRaise(true);
    m_copyButton->setText(tr("Copy"));
    m_copyButton->setIcon(QIcon::fromTheme(u"edit-copy"_s));
    m_copyButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_copyButton->setToolTip(tr("Copy the selection, or all the code if nothing is selected"));
    bar->addWidget(m_caption, 1);
    bar->addWidget(m_copyButton);
    layout->addLayout(bar);

    m_edit = new CodeText(this, m_highlighter);
    m_edit->setObjectName(u"codeText"_s);
    layout->addWidget(m_edit, 1);

    auto* copyAll = new QAction(tr("Copy All"), this);
    copyAll->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    copyAll->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copyAll, &QAction::triggered, this, [this] {
        QApplication::clipboard()->setText(m_edit->toPlainText());
        emit copied();
    });
    addAction(copyAll);
    connect(m_copyButton, &QToolButton::clicked, this, &CodeView::copy);
    connect(m_edit, &QPlainTextEdit::textChanged, this,
            [this] { m_copyButton->setEnabled(!m_edit->document()->isEmpty()); });
    connect(m_edit, &QPlainTextEdit::cursorPositionChanged, this, [this] {
        if (m_rowLine.isEmpty() || !m_edit->hasFocus()) return;
        emit tirLineSelected(tirLineOfRow(m_edit->textCursor().blockNumber()));
    });
    m_copyButton->setEnabled(false);
}

CodeView::~CodeView() = default;

void CodeView::setText(const QString& text, Language language)
{
    m_language = language;
    m_highlighter->setLanguage(language);
    m_rowLine.clear();
    m_rowShare.clear();
    m_profiled = false;
    QString shown = text;
    if (language == Language::Assembly && text.contains(u"\t.loc\t"_s)) {
        // Keep the instructions, drop the line info's directives, remember each row's line.
        static const QRegularExpression loc(u"^\\s*\\.loc\\s+\\d+\\s+(\\d+)"_s);
        static const QRegularExpression fileDirective(u"^\\s*\\.file\\s+\\d+\\s"_s);
        QStringList kept;
        int line = 0;
        for (const QString& row : text.split(u'\n')) {
            if (auto m = loc.match(row); m.hasMatch()) {
                line = m.captured(1).toInt();
                continue;
            }
            if (fileDirective.match(row).hasMatch()) continue;
            const QString trimmed = row.trimmed();
            const bool instruction = row.startsWith(u'\t') && !trimmed.isEmpty() &&
                                     !trimmed.startsWith(u'.') && !trimmed.startsWith(u'#');
            kept << row;
            m_rowLine << (instruction ? line : 0);
        }
        shown = kept.join(u'\n');
    }
    m_linkedLine = 0;
    m_edit->setPlainText(shown); // rehighlights with the new language
    annotate();
}

void CodeView::setAssemblyRows(const QList<AsmRow>& rows)
{
    m_language = Language::Assembly;
    m_highlighter->setLanguage(m_language);
    m_rowLine.clear();
    m_rowShare.clear();
    QStringList text;
    for (const AsmRow& r : rows) {
        text << r.text;
        m_rowLine << r.line;
        m_rowShare << r.share;
    }
    m_profiled = true;
    m_linkedLine = 0;
    m_edit->setPlainText(text.join(u'\n'));
    annotate();
}

int CodeView::vectorBits(const QString& instruction)
{
    // After the offset a profiled listing puts first ("00003d:").
    static const QRegularExpression mnemonicRe(u"^\\s*(?:[0-9a-f]+:\\s*)?([a-z][a-z0-9]*)"_s);
    const QString mnemonic = mnemonicRe.match(instruction).captured(1);
    int bits = 0;
    if (instruction.contains(u"%zmm"_s))
        bits = 512;
    else if (instruction.contains(u"%ymm"_s))
        bits = 256;
    else if (instruction.contains(u"%xmm"_s))
        bits = 128;
    if (bits == 128 && !mnemonic.contains(u"broadcast"_s) &&
        (mnemonic.endsWith(u"ss"_s) || mnemonic.endsWith(u"sd"_s)))
        return 1; // a scalar operation in a vector register
    return bits;
}

void CodeView::annotate()
{
    auto* text = static_cast<CodeText*>(m_edit);
    text->rowLine = m_rowLine;
    QHash<int, CodeEdit::Note> notes;
    QHash<int, CodeEdit::Heat> heat;
    int counted = 0, byWidth[3] = {0, 0, 0};
    for (int row = 0; row < m_rowLine.size(); ++row) {
        const QTextBlock block = m_edit->document()->findBlockByNumber(row);
        if (!block.isValid()) break;
        if (m_profiled && row < m_rowShare.size() && m_rowShare[row] > 0)
            heat[row] = CodeEdit::Heat{m_rowShare[row], -1};
        const int bits = vectorBits(block.text());
        if (bits > 1) {
            notes[row] = {bits == 512   ? u"zmm · 16 lanes"_s
                          : bits == 256 ? u"ymm · 8 lanes"_s
                                        : u"xmm · 4 lanes"_s,
                          false};
            ++byWidth[bits == 512 ? 0 : bits == 256 ? 1 : 2];
        } else if (bits == 1) {
            notes[row] = {tr("scalar"), false};
        }
        counted += m_rowLine[row] > 0 ? 1 : 0;
    }
    if (m_profiled && heat.isEmpty() && !m_rowLine.isEmpty()) heat[0] = CodeEdit::Heat{0, -1};
    m_edit->setHeat(m_profiled ? heat : QHash<int, CodeEdit::Heat>{});
    m_edit->setNotes(notes);
    m_edit->setLinkedBlocks({}, false);
    text->refreshGutter();
}

int CodeView::tirLineOfRow(int row) const
{
    return row >= 0 && row < m_rowLine.size() ? m_rowLine[row] : 0;
}

QList<int> CodeView::rowsOfTirLine(int line) const
{
    QList<int> rows;
    if (line <= 0) return rows;
    for (int row = 0; row < m_rowLine.size(); ++row)
        if (m_rowLine[row] == line) rows << row;
    return rows;
}

void CodeView::setLinkedTirLine(int line)
{
    m_linkedLine = line;
    m_edit->setLinkedBlocks(rowsOfTirLine(line));
}

QString CodeView::text() const
{
    return m_edit->toPlainText();
}

void CodeView::clear()
{
    m_edit->clear();
}

void CodeView::setPlaceholder(const QString& message)
{
    m_edit->setPlaceholderText(message);
}

QString CodeView::placeholder() const
{
    return m_edit->placeholderText();
}

void CodeView::setCaption(const QString& caption)
{
    m_caption->setText(caption);
}

QPlainTextEdit* CodeView::textEdit() const
{
    return m_edit;
}

void CodeView::copy()
{
    const QTextCursor cursor = m_edit->textCursor();
    const QString text =
        cursor.hasSelection() ? cursor.selection().toPlainText() : m_edit->toPlainText();
    if (text.isEmpty()) return;
    QApplication::clipboard()->setText(text);
    emit copied();
}

} // namespace loopscope
