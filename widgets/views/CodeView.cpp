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

// The code text; refreshes the highlighter's colors when the palette changes.
class CodeText : public CodeEdit {
public:
    CodeText(QWidget* parent, CodeHighlighter*& highlighter) : CodeEdit(parent)
    {
        highlighter = m_highlighter = new CodeHighlighter(document());
        m_highlighter->setColors(syntaxColors(palette()));
    }

protected:
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
    m_copyButton->setEnabled(false);
}

CodeView::~CodeView() = default;

void CodeView::setText(const QString& text, Language language)
{
    m_language = language;
    m_highlighter->setLanguage(language);
    m_edit->setPlainText(text); // rehighlights with the new language
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
