#include "editor/EditorPane.h"

#include "editor/FindBar.h"

#include "schedule/Primitives.h"
#include "te/Builtins.h"

#include <Qsci/qscicommand.h>
#include <Qsci/qscicommandset.h>
#include <Qsci/qscilexerpython.h>
#include <Qsci/qsciscintilla.h>
#include <Qsci/qscistyle.h>
#include <Qsci/qscistyledtext.h>

#include <QEvent>
#include <QFontDatabase>
#include <QHash>
#include <QKeyEvent>
#include <QRegularExpression>
#include <QShortcut>
#include <QVBoxLayout>

#include <algorithm>
#include <cctype>
#include <cstdint>

using namespace Qt::StringLiterals;

namespace loopscope {

namespace {

// Names the evaluator supports (te/Builtins.h; the primitives come from core's catalogue,
// schedule/Primitives.h).
QStringList builtinNames(std::string_view module)
{
    QStringList out;
    for (const Builtin& b : teBuiltins())
        if (b.module == module) out << QString::fromStdString(b.name);
    return out;
}
QHash<QString, QString> builtinSignatures(std::string_view module)
{
    QHash<QString, QString> out;
    for (const Builtin& b : teBuiltins())
        if (b.module == module)
            out[QString::fromStdString(b.name)] = QString::fromStdString(b.signature);
    return out;
}
QStringList tvmNames()
{
    QStringList out = builtinNames("tvm");
    for (const std::string& m : tvmSubmodules())
        out << QString::fromStdString(m);
    return out;
}
const QStringList kTvmNames = tvmNames();
const QStringList kTeNames = builtinNames("te");
const QStringList kTirNames = builtinNames("tvm.tir");
const QStringList kTargetNames = builtinNames("tvm.target");
const QStringList kStageAttributes = {u"op"_s, u"leaf_iter_vars"_s, u"all_iter_vars"_s};
// The primitives of core's catalogue, called on a stage or on the schedule, with their call
// tips; plus normalize(), which the schedule has but which is no step.
QStringList primitiveNames(PrimitiveOn on)
{
    QStringList out;
    for (const PrimitiveSpec& p : primitiveCatalogue())
        if (p.on == on) out << QString::fromStdString(p.name);
    if (on == PrimitiveOn::Schedule) out << u"normalize"_s;
    return out;
}
QHash<QString, QString> primitiveSignatures(PrimitiveOn on)
{
    QHash<QString, QString> out;
    for (const PrimitiveSpec& p : primitiveCatalogue())
        if (p.on == on) out[QString::fromStdString(p.name)] = QString::fromStdString(p.signature());
    if (on == PrimitiveOn::Schedule) out[u"normalize"_s] = u"normalize()"_s;
    return out;
}
const QStringList kStagePrimitives = primitiveNames(PrimitiveOn::Stage);
const QStringList kScheduleMethods = primitiveNames(PrimitiveOn::Schedule);
const QStringList kOpAttributes = {u"axis"_s, u"reduce_axis"_s, u"input_tensors"_s, u"name"_s,
                                   u"output"_s};
const QStringList kValueAttributes = {u"op"_s,   u"shape"_s, u"dtype"_s, u"name"_s,
                                      u"ndim"_s, u"var"_s,   u"dom"_s,   u"astype"_s};

// Call tips: "qualifier kind" -> name -> parameters.
const QHash<QString, QString> kStageSignatures = primitiveSignatures(PrimitiveOn::Stage);
const QHash<QString, QString> kScheduleSignatures = primitiveSignatures(PrimitiveOn::Schedule);
const QHash<QString, QString> kTeSignatures = builtinSignatures("te");
const QHash<QString, QString> kTirSignatures = builtinSignatures("tvm.tir");
const QHash<QString, QString> kTvmSignatures = builtinSignatures("tvm");
const QHash<QString, QString> kTargetSignatures = builtinSignatures("tvm.target");

constexpr int kDiagnosticMarker = 1;
constexpr int kDiagnosticIndicator = 8; // the first indicator left to containers

// Python lexing with the TE/TVM names as the second keyword class.
class TeLexer : public QsciLexerPython {
public:
    explicit TeLexer(QObject* parent) : QsciLexerPython(parent)
    {
        QStringList words = kTeNames + kTirNames + kStagePrimitives + kScheduleMethods + kTvmNames;
        words << u"tvm"_s << u"te"_s << u"op"_s << u"axis"_s << u"reduce_axis"_s;
        words.sort();
        words.removeDuplicates();
        m_teWords = words.join(u' ').toLatin1();
    }
    const char* keywords(int set) const override
    {
        if (set == 2) return m_teWords.constData();
        return QsciLexerPython::keywords(set);
    }

private:
    QByteArray m_teWords;
};

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                            static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                            static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

bool isWordChar(QChar c)
{
    return c.isLetterOrNumber() || c == u'_';
}

// Whether the end of `line` is inside a string literal or a comment.
bool endsInStringOrComment(const QString& line)
{
    QChar quote;
    for (int i = 0; i < line.size(); ++i) {
        QChar c = line[i];
        if (!quote.isNull()) {
            if (c == u'\\')
                ++i;
            else if (c == quote)
                quote = QChar();
        } else if (c == u'"' || c == u'\'') {
            quote = c;
        } else if (c == u'#') {
            return true;
        }
    }
    return !quote.isNull();
}

// For each line, whether a statement starts there (not inside brackets, not after a backslash).
QList<bool> statementStarts(const QStringList& lines)
{
    QList<bool> starts;
    int depth = 0;
    bool continued = false;
    for (const QString& line : lines) {
        starts.append(depth == 0 && !continued);
        QChar quote;
        continued = false;
        for (int i = 0; i < line.size(); ++i) {
            QChar c = line[i];
            if (!quote.isNull()) {
                if (c == u'\\')
                    ++i;
                else if (c == quote)
                    quote = QChar();
                continue;
            }
            if (c == u'#') break;
            if (c == u'"' || c == u'\'')
                quote = c;
            else if (c == u'(' || c == u'[' || c == u'{')
                ++depth;
            else if ((c == u')' || c == u']' || c == u'}') && depth > 0)
                --depth;
        }
        continued = line.trimmed().endsWith(u'\\');
    }
    return starts;
}

QString leadingWhitespace(const QString& line)
{
    int n = 0;
    while (n < line.size() && (line[n] == u' ' || line[n] == u'\t'))
        ++n;
    return line.left(n).replace(u'\t', u"    "_s);
}

} // namespace

struct EditorPane::Private {
    QsciScintilla* sci = nullptr;
    FindBar* findBar = nullptr;
    TeLexer* lexer = nullptr;
    QsciStyle errorStyle;
    QStringList scriptNames;
    QStringList scheduleNames;
    QList<Diagnostic> diagnostics;
    int lastCursorLine = 1;

    void applyPalette(const QPalette& pal);
    void showDiagnostics();
    void updateLineNumberWidth();
    void charAdded(int ch, EditorPane* pane);
    // Emits cursorLineChanged when the cursor's line differs from the last one reported
    // (QScintilla reports cursor moves only when it repaints).
    void checkCursorLine(EditorPane* pane);
    QString lineBeforeCursor() const;
    int lineCount() const { return sci->lines(); }
};

void EditorPane::Private::applyPalette(const QPalette& pal)
{
    const QColor base = pal.color(QPalette::Base);
    const QColor text = pal.color(QPalette::Text);
    const bool dark = base.lightness() < 128;
    // Syntax colors: fixed hues, lightness chosen for contrast against the palette's base.
    auto tone = [&](int hue, int saturation) {
        return QColor::fromHsl(hue, saturation, dark ? 175 : 85);
    };

    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    lexer->setDefaultFont(font);
    lexer->setFont(font, -1);
    lexer->setDefaultPaper(base);
    lexer->setPaper(base, -1);
    lexer->setDefaultColor(text);
    lexer->setColor(text, -1);

    QFont bold = font;
    bold.setBold(true);
    QFont italic = font;
    italic.setItalic(true);
    const QColor comment = mix(text, base, 0.45);
    lexer->setColor(comment, QsciLexerPython::Comment);
    lexer->setFont(italic, QsciLexerPython::Comment);
    lexer->setColor(comment, QsciLexerPython::CommentBlock);
    lexer->setColor(tone(28, 160), QsciLexerPython::Number);
    for (int style :
         {QsciLexerPython::DoubleQuotedString, QsciLexerPython::SingleQuotedString,
          QsciLexerPython::TripleSingleQuotedString, QsciLexerPython::TripleDoubleQuotedString,
          QsciLexerPython::DoubleQuotedFString, QsciLexerPython::SingleQuotedFString,
          QsciLexerPython::TripleSingleQuotedFString, QsciLexerPython::TripleDoubleQuotedFString})
        lexer->setColor(tone(120, 110), style);
    lexer->setColor(tone(220, 170), QsciLexerPython::Keyword);
    lexer->setFont(bold, QsciLexerPython::Keyword);
    lexer->setColor(tone(285, 130), QsciLexerPython::HighlightedIdentifier);
    lexer->setColor(tone(195, 150), QsciLexerPython::FunctionMethodName);
    lexer->setColor(tone(195, 150), QsciLexerPython::ClassName);
    lexer->setColor(tone(28, 160), QsciLexerPython::Decorator);
    lexer->setPaper(mix(base, QColor(Qt::red), 0.15), QsciLexerPython::UnclosedString);

    sci->setLexer(lexer); // re-applies the lexer's styles

    const QColor window = pal.color(QPalette::Window);
    sci->setPaper(base);
    sci->setColor(text);
    sci->setCaretForegroundColor(text);
    sci->setCaretLineBackgroundColor(mix(base, text, 0.06));
    sci->setSelectionBackgroundColor(pal.color(QPalette::Highlight));
    sci->setSelectionForegroundColor(pal.color(QPalette::HighlightedText));
    sci->setMarginsBackgroundColor(window);
    sci->setMarginsForegroundColor(mix(pal.color(QPalette::WindowText), window, 0.4));
    sci->setMarginsFont(font);
    sci->setFoldMarginColors(window, window);
    sci->setIndentationGuidesBackgroundColor(base);
    sci->setIndentationGuidesForegroundColor(mix(text, base, 0.8));
    sci->setMatchedBraceBackgroundColor(mix(base, pal.color(QPalette::Highlight), 0.3));
    sci->setMatchedBraceForegroundColor(text);
    sci->setUnmatchedBraceForegroundColor(tone(0, 200));

    const QColor error = QColor::fromHsl(0, 190, dark ? 170 : 110);
    sci->setMarkerBackgroundColor(error, kDiagnosticMarker);
    sci->setMarkerForegroundColor(error, kDiagnosticMarker);
    sci->setIndicatorForegroundColor(error, kDiagnosticIndicator);
    errorStyle.setColor(dark ? mix(error, text, 0.3) : mix(error, text, 0.2));
    errorStyle.setPaper(mix(base, error, 0.15));
    errorStyle.setFont(font);
    showDiagnostics();
    updateLineNumberWidth();
}

void EditorPane::Private::updateLineNumberWidth()
{
    sci->setMarginWidth(0, QString(QString::number(std::max(lineCount(), 99)).size() + 1, u'9'));
}

void EditorPane::Private::showDiagnostics()
{
    sci->clearAnnotations();
    sci->markerDeleteAll(kDiagnosticMarker);
    sci->clearIndicatorRange(0, 0, std::max(0, lineCount() - 1),
                             sci->text(std::max(0, lineCount() - 1)).size(), kDiagnosticIndicator);
    QMap<int, QStringList> messages;
    for (const Diagnostic& d : diagnostics) {
        int line = std::clamp(d.line, 1, std::max(1, lineCount())) - 1;
        messages[line].append(d.message);
        QString lineText = sci->text(line);
        int start = std::clamp(d.column - 1, 0, static_cast<int>(lineText.size()));
        int end = start;
        while (end < lineText.size() && isWordChar(lineText[end]))
            ++end;
        if (end == start) end = std::min(start + 1, static_cast<int>(lineText.size()));
        if (d.column > 0 && end > start)
            sci->fillIndicatorRange(line, start, line, end, kDiagnosticIndicator);
    }
    for (auto it = messages.begin(); it != messages.end(); ++it) {
        sci->annotate(it.key(), it.value().join(u'\n'), errorStyle);
        sci->markerAdd(it.key(), kDiagnosticMarker);
    }
}

QString EditorPane::Private::lineBeforeCursor() const
{
    int line = 0, index = 0;
    sci->getCursorPosition(&line, &index);
    return sci->text(line).left(index);
}

void EditorPane::Private::checkCursorLine(EditorPane* pane)
{
    int line = pane->cursorLine();
    if (line == lastCursorLine) return;
    lastCursorLine = line;
    emit pane->cursorLineChanged(line);
}

void EditorPane::Private::charAdded(int ch, EditorPane* pane)
{
    if (ch == '(') {
        QString tip = callTipAt(lineBeforeCursor());
        if (!tip.isEmpty()) {
            long pos = sci->SendScintilla(QsciScintillaBase::SCI_GETCURRENTPOS);
            QByteArray utf8 = tip.toUtf8();
            sci->SendScintilla(QsciScintillaBase::SCI_CALLTIPSHOW, static_cast<uintptr_t>(pos),
                               utf8.constData());
        }
        return;
    }
    if (ch == ')') {
        sci->SendScintilla(QsciScintillaBase::SCI_CALLTIPCANCEL);
        return;
    }
    if (ch != '.' && !(ch < 128 && (std::isalnum(ch) || ch == '_'))) return;
    QString before = lineBeforeCursor();
    Completion c = pane->completionsAt(before);
    bool afterDot = before.size() > c.typed && before[before.size() - c.typed - 1] == u'.';
    if (c.candidates.isEmpty() || (!afterDot && c.typed < 2)) return;
    if (c.candidates.size() == 1 && c.candidates.front().size() == c.typed) return;
    pane->complete();
}

EditorPane::EditorPane(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>())
{
    d->sci = new QsciScintilla(this);
    d->lexer = new TeLexer(d->sci);
    d->errorStyle = QsciStyle(-1, u"Diagnostic"_s, Qt::red, Qt::white, font());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(d->sci);
    setFocusProxy(d->sci);
    d->sci->installEventFilter(this);

    // The find bar: find (and replace) text, hidden until Ctrl+F or Ctrl+H.
    d->findBar = new FindBar(d->sci, this);
    layout->addWidget(d->findBar);

    QsciScintilla* sci = d->sci;
    sci->setUtf8(true);
    sci->setEolMode(QsciScintilla::EolUnix);
    sci->setIndentationsUseTabs(false);
    sci->setIndentationWidth(4);
    sci->setTabWidth(4);
    sci->setAutoIndent(true);
    sci->setBackspaceUnindents(true);
    sci->setTabIndents(true);
    sci->setIndentationGuides(true);
    sci->setCaretLineVisible(true);
    sci->setBraceMatching(QsciScintilla::SloppyBraceMatch);
    sci->setMarginType(0, QsciScintilla::NumberMargin);
    sci->setMarginLineNumbers(0, true);
    sci->setMarginType(1, QsciScintilla::SymbolMargin);
    sci->setMarginWidth(1, 14);
    sci->setMarginMarkerMask(1, 1 << kDiagnosticMarker);
    sci->setFolding(QsciScintilla::BoxedTreeFoldStyle, 2);
    sci->markerDefine(QsciScintilla::Circle, kDiagnosticMarker);
    sci->indicatorDefine(QsciScintilla::SquiggleIndicator, kDiagnosticIndicator);
    sci->setAnnotationDisplay(QsciScintilla::AnnotationBoxed);
    sci->setAutoCompletionSource(QsciScintilla::AcsNone);
    sci->setCallTipsStyle(QsciScintilla::CallTipsNone);
    sci->SendScintilla(QsciScintillaBase::SCI_AUTOCSETIGNORECASE, 0L);
    sci->SendScintilla(QsciScintillaBase::SCI_AUTOCSETAUTOHIDE, 1L);
    sci->SendScintilla(QsciScintillaBase::SCI_AUTOCSETMAXHEIGHT, 10L);
    sci->SendScintilla(QsciScintillaBase::SCI_SETSCROLLWIDTH, 1L);
    sci->SendScintilla(QsciScintillaBase::SCI_SETSCROLLWIDTHTRACKING, 1L);
    // Ctrl+Space is ours (completion), whatever QScintilla binds to it.
    if (QsciCommand* cmd =
            sci->standardCommands()->boundTo((Qt::CTRL | Qt::Key_Space).toCombined()))
        cmd->setKey(0);
    auto* shortcut = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Space), sci);
    shortcut->setContext(Qt::WidgetShortcut);
    connect(shortcut, &QShortcut::activated, this, &EditorPane::complete);

    d->applyPalette(palette());

    connect(sci, &QsciScintilla::textChanged, this, &EditorPane::textEdited);
    connect(sci, &QsciScintilla::modificationChanged, this, &EditorPane::modificationChanged);
    connect(sci, &QsciScintilla::linesChanged, this, [this] { d->updateLineNumberWidth(); });
    connect(sci, &QsciScintilla::cursorPositionChanged, this, [this] { d->checkCursorLine(this); });
    connect(sci, &QsciScintillaBase::SCN_CHARADDED, this,
            [this](int ch) { d->charAdded(ch, this); });
}

EditorPane::~EditorPane() = default;

QString EditorPane::text() const
{
    return d->sci->text();
}

void EditorPane::setText(const QString& text)
{
    d->sci->setText(text);
    d->sci->SendScintilla(QsciScintillaBase::SCI_EMPTYUNDOBUFFER);
    d->sci->setModified(false);
    d->sci->setCursorPosition(0, 0);
    d->checkCursorLine(this);
}

void EditorPane::replaceText(const QString& text)
{
    int line = 0, index = 0;
    d->sci->getCursorPosition(&line, &index);
    d->sci->beginUndoAction();
    d->sci->selectAll(true);
    d->sci->replaceSelectedText(text);
    d->sci->endUndoAction();
    line = std::min(line, d->lineCount() - 1);
    d->sci->setCursorPosition(line, std::min(index, static_cast<int>(d->sci->text(line).size())));
    d->checkCursorLine(this);
}

int EditorPane::insertAfterLine(int line, const QString& text)
{
    QsciScintilla* sci = d->sci;
    const int n = d->lineCount();
    line = std::clamp(line, 0, n);
    bool wasReadOnly = sci->isReadOnly();
    sci->setReadOnly(false);
    sci->beginUndoAction();
    if (line < n) {
        sci->insertAt(text + u'\n', line, 0);
    } else {
        // After the last line, which has no newline of its own.
        QString last = sci->text(n - 1);
        sci->insertAt(u'\n' + text, n - 1, static_cast<int>(last.size()));
    }
    sci->endUndoAction();
    sci->setReadOnly(wasReadOnly);
    return line + 1;
}

int EditorPane::appendToVariantBlock(int lastLine, const QString& statement)
{
    QStringList lines = text().split(u'\n');
    const int n = static_cast<int>(lines.size());
    lastLine = std::clamp(lastLine, 0, n);
    // Indent like the statement that ends at lastLine.
    QString indent;
    QList<bool> starts = statementStarts(lines);
    for (int l = lastLine - 1; l >= 0; --l) {
        if (starts[l] && !lines[l].trimmed().isEmpty() && !lines[l].trimmed().startsWith(u'#')) {
            indent = leadingWhitespace(lines[l]);
            break;
        }
    }
    QStringList out;
    for (const QString& s : statement.split(u'\n'))
        out << (s.isEmpty() ? s : indent + s);
    int first = insertAfterLine(lastLine, out.join(u'\n'));
    d->sci->setCursorPosition(first - 1, static_cast<int>(indent.size()));
    d->sci->ensureLineVisible(first - 1);
    d->checkCursorLine(this);
    return first;
}

int EditorPane::cursorLine() const
{
    int line = 0, index = 0;
    d->sci->getCursorPosition(&line, &index);
    return line + 1;
}

int EditorPane::lineCount() const
{
    return d->lineCount();
}

void EditorPane::gotoLine(int line)
{
    line = std::clamp(line, 1, std::max(1, d->lineCount())) - 1;
    d->sci->setCursorPosition(line, 0);
    d->sci->ensureLineVisible(line);
    d->checkCursorLine(this);
}

bool EditorPane::isModified() const
{
    return d->sci->isModified();
}
void EditorPane::setModified(bool modified)
{
    d->sci->setModified(modified);
}
bool EditorPane::isUndoAvailable() const
{
    return d->sci->isUndoAvailable();
}
bool EditorPane::isRedoAvailable() const
{
    return d->sci->isRedoAvailable();
}
void EditorPane::setReadOnly(bool readOnly)
{
    d->sci->setReadOnly(readOnly);
}
bool EditorPane::isReadOnly() const
{
    return d->sci->isReadOnly();
}
void EditorPane::undo()
{
    d->sci->undo();
}
void EditorPane::redo()
{
    d->sci->redo();
}

void EditorPane::setScriptNames(const QStringList& names)
{
    d->scriptNames = names;
}
void EditorPane::setScheduleNames(const QStringList& names)
{
    d->scheduleNames = names;
}

void EditorPane::setDiagnostics(const QList<Diagnostic>& diagnostics)
{
    d->diagnostics = diagnostics;
    d->showDiagnostics();
}

QString EditorPane::annotationText(int line) const
{
    return d->sci->annotation(line - 1);
}

bool EditorPane::hasDiagnosticMarker(int line) const
{
    return (d->sci->markersAtLine(line - 1) & (1u << kDiagnosticMarker)) != 0;
}

EditorPane::Completion EditorPane::completionsAt(const QString& before) const
{
    Completion c;
    if (endsInStringOrComment(before)) return c;
    int start = static_cast<int>(before.size());
    while (start > 0 && isWordChar(before[start - 1]))
        --start;
    const QString word = before.mid(start);
    if (!word.isEmpty() && word[0].isDigit()) return c;
    c.typed = static_cast<int>(word.size());
    const QString head = before.left(start);

    QStringList pool;
    if (head.endsWith(u'.')) {
        static const QRegularExpression tir(u"(?<![\\w.])tvm\\.tir\\.$"_s);
        static const QRegularExpression target(u"(?<![\\w.])tvm\\.target\\.$"_s);
        static const QRegularExpression tvm(u"(?<![\\w.])tvm\\.$"_s);
        static const QRegularExpression te(u"(?<![\\w.])(tvm\\.)?te\\.$"_s);
        static const QRegularExpression stage(u"\\w\\s*\\[[^\\[\\]]*\\]\\.$"_s);
        static const QRegularExpression op(u"\\.op\\.$"_s);
        static const QRegularExpression name(u"(?<![\\w.])(\\w+)\\.$"_s);
        if (tir.match(head).hasMatch())
            pool = kTirNames;
        else if (target.match(head).hasMatch())
            pool = kTargetNames;
        else if (tvm.match(head).hasMatch())
            pool = kTvmNames;
        else if (te.match(head).hasMatch())
            pool = kTeNames;
        else if (stage.match(head).hasMatch())
            pool = kStagePrimitives + kStageAttributes;
        else if (op.match(head).hasMatch())
            pool = kOpAttributes;
        else if (auto m = name.match(head); m.hasMatch()) {
            pool = d->scheduleNames.contains(m.captured(1)) ? kScheduleMethods : kValueAttributes;
        }
    } else {
        pool = d->scriptNames;
        pool << u"te"_s << u"tvm"_s << u"print"_s;
    }
    for (const QString& p : pool)
        if (p.startsWith(word)) c.candidates.append(p);
    c.candidates.sort();
    c.candidates.removeDuplicates();
    return c;
}

QString EditorPane::callTipAt(const QString& before)
{
    static const QRegularExpression call(u"((?:[\\w.]|\\[[^\\[\\]]*\\])*?)\\.?(\\w+)\\s*\\($"_s);
    auto m = call.match(before);
    if (!m.hasMatch()) return {};
    QString qualifier = m.captured(1);
    const QString name = m.captured(2);
    if (qualifier == u"tvm.te"_s) qualifier = u"te"_s;
    if (qualifier.endsWith(u']') && kStageSignatures.contains(name)) return kStageSignatures[name];
    if (qualifier == u"te"_s) return kTeSignatures.value(name);
    if (qualifier == u"tvm.tir"_s) return kTirSignatures.value(name);
    if (qualifier == u"tvm"_s) return kTvmSignatures.value(name);
    if (qualifier == u"tvm.target"_s) return kTargetSignatures.value(name);
    if (qualifier == u"tvm.target"_s && name == u"Target"_s) return u"Target(target, host=None)"_s;
    if (!qualifier.isEmpty() && kScheduleSignatures.contains(name))
        return kScheduleSignatures[name];
    if (!qualifier.isEmpty() && name == u"astype"_s) return u"astype(dtype)"_s;
    return {};
}

void EditorPane::complete()
{
    Completion c = completionsAt(d->lineBeforeCursor());
    if (c.candidates.isEmpty()) return;
    QByteArray list = c.candidates.join(u' ').toUtf8();
    d->sci->SendScintilla(QsciScintillaBase::SCI_AUTOCSETSEPARATOR, static_cast<long>(' '));
    d->sci->SendScintilla(QsciScintillaBase::SCI_AUTOCSHOW, static_cast<uintptr_t>(c.typed),
                          list.constData());
}

void EditorPane::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::PaletteChange) d->applyPalette(palette());
    QWidget::changeEvent(event);
}

bool EditorPane::eventFilter(QObject* watched, QEvent* event)
{
    // Keys the window binds pass the editor by: Esc (cancel a run) unless a completion list or a
    // call tip is open, and zooming, which the editor would otherwise take or type.
    if (watched == d->sci && event->type() == QEvent::ShortcutOverride) {
        auto* key = static_cast<QKeyEvent*>(event);
        const QKeyCombination combo = key->keyCombination();
        const bool escape = combo == QKeyCombination(Qt::Key_Escape) && !d->sci->isListActive() &&
                            !d->sci->isCallTipActive();
        const QKeySequence seq(combo);
        const bool zoom = seq.matches(QKeySequence::ZoomIn) == QKeySequence::ExactMatch ||
                          seq.matches(QKeySequence::ZoomOut) == QKeySequence::ExactMatch ||
                          combo == QKeyCombination(Qt::CTRL | Qt::Key_0) ||
                          combo == QKeyCombination(Qt::CTRL | Qt::Key_Equal);
        if (escape || zoom) {
            event->ignore();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

void EditorPane::showFind(bool withReplace)
{
    d->findBar->open(withReplace);
}

bool EditorPane::isFindVisible() const
{
    return d->findBar->isVisible();
}

void EditorPane::setFindText(const QString& text)
{
    d->findBar->setFindText(text);
}

void EditorPane::setReplaceText(const QString& text)
{
    d->findBar->setReplaceText(text);
}

bool EditorPane::findNext(bool backwards)
{
    return d->findBar->findNext(backwards);
}

bool EditorPane::replaceOne()
{
    return d->findBar->replaceOne();
}

int EditorPane::replaceAll()
{
    return d->findBar->replaceAll();
}

void EditorPane::setZoom(int steps)
{
    d->sci->zoomTo(steps);
}

int EditorPane::zoom() const
{
    return static_cast<int>(d->sci->SendScintilla(QsciScintillaBase::SCI_GETZOOM));
}

int EditorPane::visibleColumns() const
{
    QsciScintilla* sci = d->sci;
    int text = sci->viewport()->width() -
               static_cast<int>(sci->SendScintilla(QsciScintillaBase::SCI_GETMARGINLEFT)) -
               static_cast<int>(sci->SendScintilla(QsciScintillaBase::SCI_GETMARGINRIGHT));
    for (int margin = 0; margin < sci->margins(); ++margin)
        text -= sci->marginWidth(margin);
    const int x = static_cast<int>(
        sci->SendScintilla(QsciScintillaBase::SCI_TEXTWIDTH,
                           static_cast<std::uintptr_t>(QsciLexerPython::Default), "x"));
    return x > 0 ? std::max(0, text) / x : 0;
}

QColor EditorPane::paperColor() const
{
    return d->lexer->paper(QsciLexerPython::Default);
}

QList<QColor> EditorPane::syntaxColors() const
{
    QList<QColor> out;
    for (int style :
         {QsciLexerPython::Default, QsciLexerPython::Comment, QsciLexerPython::Number,
          QsciLexerPython::DoubleQuotedString, QsciLexerPython::Keyword,
          QsciLexerPython::HighlightedIdentifier, QsciLexerPython::FunctionMethodName,
          QsciLexerPython::Decorator, QsciLexerPython::Operator, QsciLexerPython::Identifier})
        out << d->lexer->color(style);
    return out;
}

} // namespace loopscope
