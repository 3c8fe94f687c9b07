#include "views/TirEditor.h"

#include "views/TirDiff.h"
#include "views/ViewColors.h"

#include <QApplication>
#include <QMouseEvent>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSet>
#include <QSyntaxHighlighter>
#include <QTextBlock>
#include <QToolTip>

using namespace Qt::StringLiterals;

namespace loopscope {

namespace {

// UTF-16 offset of a UTF-8 byte offset of the same line.
int utf16Offset(const QByteArray& utf8, const QString& text, int byteOffset)
{
    if (utf8.size() == text.size()) return byteOffset; // ASCII: the same
    return int(QString::fromUtf8(utf8.constData(), byteOffset).size());
}

int utf8Offset(const QString& text, int utf16)
{
    return int(text.left(utf16).toUtf8().size());
}

const QSet<QString>& pythonKeywords()
{
    static const QSet<QString> words = {
        u"for"_s,    u"in"_s,     u"if"_s,     u"else"_s,  u"elif"_s,   u"with"_s,
        u"def"_s,    u"class"_s,  u"return"_s, u"while"_s, u"and"_s,    u"or"_s,
        u"not"_s,    u"True"_s,   u"False"_s,  u"None"_s,  u"assert"_s, u"as"_s,
        u"lambda"_s, u"import"_s, u"from"_s,   u"pass"_s,  u"break"_s,  u"continue"_s};
    return words;
}

} // namespace

// TVMScript colors: keywords, T./I. calls and decorators, numbers, strings, comments, buffer names
// (declared ones everywhere, any name when subscripted) and the variables of loop headers in bold.
class TirHighlighter : public QSyntaxHighlighter {
public:
    explicit TirHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {}

    void setColors(const SyntaxColors& colors)
    {
        m_colors = colors;
        rehighlight();
    }
    void setBufferNames(QSet<QString> names) { m_buffers = std::move(names); }

protected:
    void highlightBlock(const QString& text) override
    {
        static const QRegularExpression identifier(u"[A-Za-z_][A-Za-z0-9_]*"_s);
        static const QRegularExpression call(u"(?<![\\w.])(?:T|I)(?:\\.[A-Za-z_][A-Za-z0-9_]*)+"_s);
        static const QRegularExpression decorator(u"@[A-Za-z_][\\w.]*"_s);
        static const QRegularExpression number(
            u"(?<![\\w.])(?:0x[0-9a-fA-F]+|\\d+(?:\\.\\d*)?(?:[eE][+-]?\\d+)?)(?![\\w])"_s);
        static const QRegularExpression string(u"\"[^\"]*\"|'[^']*'"_s);

        QTextCharFormat keywordFormat;
        keywordFormat.setForeground(m_colors.keyword);
        QTextCharFormat bufferFormat;
        bufferFormat.setForeground(m_colors.buffer);
        for (auto it = identifier.globalMatch(text); it.hasNext();) {
            auto m = it.next();
            const QString word = m.captured();
            if (pythonKeywords().contains(word)) {
                setFormat(int(m.capturedStart()), int(m.capturedLength()), keywordFormat);
            } else {
                const qsizetype end = m.capturedEnd();
                bool subscripted = end < text.size() && text.at(end) == u'[';
                bool member = m.capturedStart() > 0 && text.at(m.capturedStart() - 1) == u'.';
                if (!member && (subscripted || m_buffers.contains(word)))
                    setFormat(int(m.capturedStart()), int(m.capturedLength()), bufferFormat);
            }
        }
        QTextCharFormat callFormat;
        callFormat.setForeground(m_colors.call);
        for (auto it = call.globalMatch(text); it.hasNext();) {
            auto m = it.next();
            setFormat(int(m.capturedStart()), int(m.capturedLength()), callFormat);
        }
        for (auto it = decorator.globalMatch(text); it.hasNext();) {
            auto m = it.next();
            setFormat(int(m.capturedStart()), int(m.capturedLength()), callFormat);
        }
        QTextCharFormat numberFormat;
        numberFormat.setForeground(m_colors.number);
        for (auto it = number.globalMatch(text); it.hasNext();) {
            auto m = it.next();
            setFormat(int(m.capturedStart()), int(m.capturedLength()), numberFormat);
        }

        const QByteArray utf8 = text.toUtf8();
        LoopHeader header = parseLoopHeader(std::string_view(utf8.constData(), utf8.size()));
        if (!header.names.empty()) {
            QTextCharFormat loopFormat;
            loopFormat.setFontWeight(QFont::Bold);
            for (const CharRange& r : header.nameRanges) {
                int start = utf16Offset(utf8, text, r.start);
                int end = utf16Offset(utf8, text, r.start + r.length);
                setFormat(start, end - start, loopFormat);
            }
        }

        QTextCharFormat stringFormat;
        stringFormat.setForeground(m_colors.string);
        qsizetype commentStart = -1;
        for (qsizetype i = 0; i < text.size(); ++i) {
            if (text.at(i) == u'"' || text.at(i) == u'\'') {
                auto m = string.match(text, i, QRegularExpression::NormalMatch,
                                      QRegularExpression::AnchorAtOffsetMatchOption);
                if (!m.hasMatch()) break;
                setFormat(int(m.capturedStart()), int(m.capturedLength()), stringFormat);
                i = m.capturedEnd() - 1;
            } else if (text.at(i) == u'#') {
                commentStart = i;
                break;
            }
        }
        if (commentStart >= 0) {
            QTextCharFormat commentFormat;
            commentFormat.setForeground(m_colors.comment);
            commentFormat.setFontItalic(true);
            setFormat(int(commentStart), int(text.size() - commentStart), commentFormat);
        }
    }

private:
    SyntaxColors m_colors;
    QSet<QString> m_buffers;
};

TirEditor::TirEditor(QWidget* parent) : CodeEdit(parent)
{
    m_highlighter = new TirHighlighter(document());
    m_highlighter->setColors(syntaxColors(palette()));
    viewport()->setMouseTracking(true);
}

TirEditor::~TirEditor() = default;

void TirEditor::setTir(const QString& text)
{
    QList<TirLine> lines;
    const QStringList split = text.split(u'\n');
    int number = 0;
    for (const QString& line : split) {
        TirLine l;
        l.text = line;
        l.number = ++number;
        lines.append(l);
    }
    if (text.isEmpty())
        lines.clear();
    else if (!lines.isEmpty() && lines.last().text.isEmpty())
        lines.removeLast();
    setLines(lines, DiffSide::After);
}

void TirEditor::setLines(const QList<TirLine>& lines, DiffSide side)
{
    m_lines = lines;
    m_side = side;
    m_maxNumber = 0;

    // Declared buffers: parameters "A: T.Buffer(...)" and "A_1 = T.Buffer(...)" / T.allocate.
    static const QRegularExpression declared(
        u"\\b([A-Za-z_]\\w*)\\s*"
        "(?::\\s*T\\.Buffer\\b|=\\s*T\\.(?:Buffer|allocate|decl_buffer|alloc_buffer)\\b)"_s);
    QSet<QString> buffers;
    QStringList texts;
    texts.reserve(lines.size());
    for (const TirLine& line : lines) {
        texts.append(line.text);
        m_maxNumber = std::max(m_maxNumber, line.number);
        if (line.text.contains(u"T."_s))
            for (auto it = declared.globalMatch(line.text); it.hasNext();)
                buffers.insert(it.next().captured(1));
    }
    m_highlighter->setBufferNames(std::move(buffers));
    setPlainText(texts.join(u'\n'));
    updateGutterWidth();
    applyDecorations();
}

int TirEditor::blockOfLine(int number) const
{
    for (int i = 0; i < m_lines.size(); ++i)
        if (m_lines[i].number == number) return i;
    return -1;
}

int TirEditor::blockOfAfterLine(int number) const
{
    if (m_side == DiffSide::Before || number <= 0) return -1;
    for (int i = 0; i < m_lines.size(); ++i)
        if (m_lines[i].number == number && m_lines[i].change != LineChange::Removed) return i;
    return -1;
}

int TirEditor::afterLineOfBlock(int block) const
{
    if (m_side == DiffSide::Before || block < 0 || block >= m_lines.size()) return 0;
    const TirLine& l = m_lines[block];
    return l.change == LineChange::Removed ? 0 : l.number;
}

void TirEditor::setGutterTips(const QHash<int, QString>& byBlock)
{
    m_tips = byBlock;
}

int TirEditor::firstChangedBlock() const
{
    for (int i = 0; i < m_lines.size(); ++i)
        if (m_lines[i].change != LineChange::None && m_lines[i].change != LineChange::Filler)
            return i;
    return -1;
}

void TirEditor::scrollToBlock(int block)
{
    if (block < 0 || block >= blockCount()) return;
    // Plain text edits scroll by blocks: put the block three lines below the top edge.
    verticalScrollBar()->setValue(std::max(0, block - 3));
}

QString TirEditor::gutterLabel(const QTextBlock& block) const
{
    int i = block.blockNumber();
    if (i < 0 || i >= m_lines.size() || m_lines[i].number <= 0) return {};
    return QString::number(m_lines[i].number);
}

int TirEditor::gutterDigits() const
{
    return int(QString::number(std::max(1, m_maxNumber)).size());
}

bool TirEditor::gutterMarked(const QTextBlock& block) const
{
    int i = block.blockNumber();
    return i >= 0 && i < m_lines.size() && m_lines[i].changedLoop;
}

QString TirEditor::gutterToolTip(const QTextBlock& block) const
{
    QString tip = gutterMarked(block) ? tr("A loop this step created or changed") : QString();
    const QString more = m_tips.value(block.blockNumber());
    if (!more.isEmpty()) tip += (tip.isEmpty() ? QString() : QStringLiteral("\n\n")) + more;
    return tip;
}

void TirEditor::paletteChanged()
{
    m_highlighter->setColors(syntaxColors(palette()));
    applyDecorations();
}

void TirEditor::applyDecorations()
{
    const DiffColors colors = diffColors(palette());
    const bool before = m_side == DiffSide::Before;
    QList<QTextEdit::ExtraSelection> selections;
    QTextBlock block = document()->begin();
    for (int i = 0; i < m_lines.size() && block.isValid(); ++i, block = block.next()) {
        const TirLine& line = m_lines[i];
        QColor lineColor, partColor;
        Qt::BrushStyle style = Qt::SolidPattern;
        switch (line.change) {
        case LineChange::None: continue;
        case LineChange::Added: lineColor = colors.addedLine; break;
        case LineChange::Removed: lineColor = colors.removedLine; break;
        case LineChange::Changed:
            lineColor = before ? colors.removedLine : colors.addedLine;
            partColor = before ? colors.removedText : colors.addedText;
            // Only the indentation changed (the line moved into or out of a loop): a fainter tint
            // keeps the eye on the lines whose text changed.
            if (line.changedParts.isEmpty())
                lineColor = mixColors(palette().color(QPalette::Base), lineColor, 0.5);
            break;
        case LineChange::Filler:
            lineColor = colors.filler;
            style = Qt::BDiagPattern;
            break;
        }
        QTextEdit::ExtraSelection sel;
        sel.cursor = QTextCursor(block);
        sel.format.setBackground(QBrush(lineColor, style));
        sel.format.setProperty(QTextFormat::FullWidthSelection, true);
        selections.append(sel);
        if (!partColor.isValid()) continue;
        for (const TextRange& r : line.changedParts) {
            QTextEdit::ExtraSelection part;
            part.cursor = QTextCursor(block);
            int start = std::clamp(r.start, 0, block.length() - 1);
            int end = std::clamp(r.start + r.length, start, block.length() - 1);
            part.cursor.setPosition(block.position() + start);
            part.cursor.setPosition(block.position() + end, QTextCursor::KeepAnchor);
            part.format.setBackground(partColor);
            selections.append(part);
        }
    }
    setExtraSelections(selections);
}

QString TirEditor::loopVariableAt(const QPoint& viewportPos) const
{
    return loopVariableAt(viewportPos, true);
}

QString TirEditor::loopVariableAt(const QPoint& viewportPos, bool fallbackToFirst) const
{
    QTextCursor cursor = cursorForPosition(viewportPos);
    QTextBlock block = cursor.block();
    if (!block.isValid()) return {};
    QRectF r = blockBoundingGeometry(block).translated(contentOffset());
    if (viewportPos.y() < r.top() || viewportPos.y() >= r.bottom()) return {};
    const QString text = block.text();
    const QByteArray utf8 = text.toUtf8();
    LoopHeader header = parseLoopHeader(std::string_view(utf8.constData(), utf8.size()));
    if (header.names.empty()) return {};
    const int at = utf8Offset(text, cursor.positionInBlock());
    auto inside = [at](const CharRange& range) {
        return at >= range.start && at <= range.start + range.length;
    };
    for (std::size_t k = 0; k < header.names.size(); ++k)
        if (inside(header.nameRanges[k])) return QString::fromStdString(header.names[k]);
    for (std::size_t k = 0; k < header.extentRanges.size(); ++k)
        if (inside(header.extentRanges[k])) return QString::fromStdString(header.names[k]);
    if (!fallbackToFirst) return {};
    // Past the end of the line is not on the header.
    QTextCursor end(block);
    end.movePosition(QTextCursor::EndOfBlock);
    if (viewportPos.x() > cursorRect(end).right() + fontMetrics().horizontalAdvance(u'M'))
        return {};
    return QString::fromStdString(header.names.front());
}

void TirEditor::mousePressEvent(QMouseEvent* event)
{
    m_pressPos = event->position().toPoint();
    m_pressed = event->button() == Qt::LeftButton;
    CodeEdit::mousePressEvent(event);
}

void TirEditor::mouseReleaseEvent(QMouseEvent* event)
{
    CodeEdit::mouseReleaseEvent(event);
    const QPoint pos = event->position().toPoint();
    const bool click = m_pressed && event->button() == Qt::LeftButton &&
                       (pos - m_pressPos).manhattanLength() < QApplication::startDragDistance();
    m_pressed = false;
    if (!click || textCursor().hasSelection()) return;
    const QString name = loopVariableAt(pos, true);
    if (!name.isEmpty()) emit loopClicked(name, cursorForPosition(pos).blockNumber());
}

void TirEditor::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() == Qt::NoButton) {
        const bool onLoop = !loopVariableAt(event->position().toPoint(), true).isEmpty();
        viewport()->setCursor(onLoop ? Qt::PointingHandCursor : Qt::IBeamCursor);
    }
    CodeEdit::mouseMoveEvent(event);
}

bool TirEditor::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString name = loopVariableAt(help->pos(), true);
        if (name.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(),
                               tr("Click to select axis %1 in the schedule panel").arg(name),
                               viewport());
        return true;
    }
    return CodeEdit::viewportEvent(event);
}

} // namespace loopscope
