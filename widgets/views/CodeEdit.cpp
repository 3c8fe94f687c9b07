#include "views/CodeEdit.h"

#include "views/ViewColors.h"

#include <QEvent>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextLayout>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace loopscope {

class CodeEditGutter : public QWidget {
public:
    explicit CodeEditGutter(CodeEdit* edit) : QWidget(edit), m_edit(edit) {}
    QSize sizeHint() const override { return {m_edit->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_edit->paintGutter(event); }
    bool event(QEvent* event) override
    {
        if (event->type() == QEvent::ToolTip) {
            auto* help = static_cast<QHelpEvent*>(event);
            QTextBlock block = m_edit->blockAtGutterY(help->pos().y());
            QString tip = block.isValid() ? m_edit->gutterToolTip(block) : QString();
            if (tip.isEmpty())
                QToolTip::hideText();
            else
                QToolTip::showText(help->globalPos(), tip, this);
            return true;
        }
        return QWidget::event(event);
    }

private:
    CodeEdit* m_edit;
};

CodeEdit::CodeEdit(QWidget* parent) : QPlainTextEdit(parent)
{
    setReadOnly(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setUndoRedoEnabled(false);
    m_gutter = new CodeEditGutter(this);
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    setFont(font);
    setTabStopDistance(4 * QFontMetricsF(font).horizontalAdvance(QLatin1Char(' ')));
    connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { updateGutterWidth(); });
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
        if (dy)
            m_gutter->scroll(0, dy);
        else
            m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
    });
    updateGutterWidth();
}

int CodeEdit::gutterWidth() const
{
    const int digits = std::max(2, gutterDigits());
    const int charWidth = fontMetrics().horizontalAdvance(QLatin1Char('9'));
    // Left padding, numbers, room for the mark and a gap; the heat column before them.
    return heatWidth() + 6 + digits * charWidth + 10;
}

int CodeEdit::heatWidth() const
{
    return m_heat.isEmpty() ? 0 : 6 * fontMetrics().horizontalAdvance(QLatin1Char('9')) + 6;
}

void CodeEdit::setHeat(const QHash<int, Heat>& byBlock)
{
    m_heat = byBlock;
    updateGutterWidth();
}

void CodeEdit::setNotes(const QHash<int, Note>& byBlock)
{
    m_notes = byBlock;
    viewport()->update();
}

void CodeEdit::setLinkedBlocks(const QList<int>& blocks, bool scroll)
{
    m_linked = blocks;
    viewport()->update();
    if (!scroll || blocks.isEmpty()) return;
    const int first = *std::min_element(blocks.begin(), blocks.end());
    const QTextBlock b = document()->findBlockByNumber(first);
    if (!b.isValid()) return;
    // Into view without moving the user's own cursor when it is already visible.
    const QRectF r = blockBoundingGeometry(b).translated(contentOffset());
    if (r.top() < 0 || r.bottom() > viewport()->height()) {
        const int line = std::max(0, first - 3);
        verticalScrollBar()->setValue(line);
    }
}

void CodeEdit::paintEvent(QPaintEvent* event)
{
    QPlainTextEdit::paintEvent(event);
    if (m_notes.isEmpty() && m_linked.isEmpty()) return;
    QPainter p(viewport());
    const HeatColors colors = heatColors(palette());
    for (int b : m_linked) {
        const QTextBlock block = document()->findBlockByNumber(b);
        if (!block.isValid() || !block.isVisible()) continue;
        QRectF r = blockBoundingGeometry(block).translated(contentOffset());
        if (r.bottom() < event->rect().top() || r.top() > event->rect().bottom()) continue;
        r.setLeft(0);
        r.setWidth(viewport()->width());
        p.fillRect(r, colors.linked);
    }
    if (m_notes.isEmpty()) return;
    QFont small = font();
    small.setItalic(true);
    p.setFont(small);
    const int gap = 3 * fontMetrics().horizontalAdvance(QLatin1Char(' '));
    for (auto it = m_notes.cbegin(); it != m_notes.cend(); ++it) {
        const QTextBlock block = document()->findBlockByNumber(it.key());
        if (!block.isValid() || !block.isVisible() || !block.layout()) continue;
        const QRectF r = blockBoundingGeometry(block).translated(contentOffset());
        if (r.bottom() < event->rect().top() || r.top() > event->rect().bottom()) continue;
        const QTextLine line = block.layout()->lineAt(0);
        const qreal x = r.left() + (line.isValid() ? line.naturalTextWidth() : 0) + gap;
        p.setPen(it->warn ? colors.warnNote : colors.note);
        p.drawText(QRectF(x, r.top(), viewport()->width() + 2000,
                          line.isValid() ? line.height() : r.height()),
                   Qt::AlignLeft | Qt::AlignVCenter, it->text);
    }
}

QString CodeEdit::gutterLabel(const QTextBlock& block) const
{
    return QString::number(block.blockNumber() + 1);
}

int CodeEdit::gutterDigits() const
{
    return int(QString::number(std::max(1, blockCount())).size());
}

bool CodeEdit::gutterMarked(const QTextBlock&) const
{
    return false;
}

QString CodeEdit::gutterToolTip(const QTextBlock&) const
{
    return {};
}

void CodeEdit::paletteChanged() {}

void CodeEdit::updateGutterWidth()
{
    setViewportMargins(gutterWidth(), 0, 0, 0);
    QRect cr = contentsRect();
    m_gutter->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
    m_gutter->update();
}

void CodeEdit::resizeEvent(QResizeEvent* event)
{
    QPlainTextEdit::resizeEvent(event);
    QRect cr = contentsRect();
    m_gutter->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
}

void CodeEdit::changeEvent(QEvent* event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::StyleChange) {
        paletteChanged();
        m_gutter->update();
    } else if (event->type() == QEvent::FontChange) {
        setTabStopDistance(4 * QFontMetricsF(font()).horizontalAdvance(QLatin1Char(' ')));
        updateGutterWidth();
    }
}

QTextBlock CodeEdit::blockAtGutterY(int y) const
{
    QTextBlock block = firstVisibleBlock();
    while (block.isValid()) {
        QRectF r = blockBoundingGeometry(block).translated(contentOffset());
        if (r.top() > y) break;
        if (block.isVisible() && y < r.bottom()) return block;
        block = block.next();
    }
    return {};
}

void CodeEdit::paintGutter(QPaintEvent* event)
{
    const DiffColors colors = diffColors(palette());
    QPainter p(m_gutter);
    p.fillRect(event->rect(), colors.gutterBackground);
    p.setFont(font());
    const int width = m_gutter->width();
    const int numberRight = width - 8;
    const int heat = heatWidth();
    const HeatColors heatColor = heatColors(palette());
    QFont heatFont = font();
    heatFont.setPointSizeF(std::max(6.0, font().pointSizeF() * 0.8));
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    while (block.isValid() && top <= event->rect().bottom()) {
        const int height = qRound(blockBoundingRect(block).height());
        const int bottom = top + height;
        if (block.isVisible() && bottom >= event->rect().top()) {
            if (heat > 0) {
                const Heat h = m_heat.value(block.blockNumber(), Heat{0, -1});
                const int barLeft = 2, barWidth = heat - 6;
                const QRect track(barLeft, top + 2, barWidth, height - 4);
                if (h.loop >= 0 || h.own > 0) p.fillRect(track, heatColor.track);
                if (h.loop > 0)
                    p.fillRect(QRect(barLeft, top + 2,
                                     std::max(1, int(std::lround(barWidth * h.loop))), height - 4),
                               heatColor.loop);
                if (h.own > 0)
                    p.fillRect(QRect(barLeft, top + height / 2,
                                     std::max(1, int(std::lround(barWidth * h.own))),
                                     height / 2 - 2),
                               heatColor.line);
                const double shown = h.loop >= 0 ? h.loop : h.own;
                if (shown >= 0.005) {
                    p.setFont(heatFont);
                    p.setPen(palette().color(QPalette::Text));
                    p.drawText(QRect(barLeft, top, barWidth - 2, height),
                               Qt::AlignRight | Qt::AlignVCenter,
                               QString::number(shown * 100, 'f', shown < 0.1 ? 1 : 0) +
                                   QLatin1Char('%'));
                    p.setFont(font());
                }
            }
            if (gutterMarked(block)) {
                p.fillRect(QRect(width - 4, top + 1, 3, height - 2), colors.loopMarker);
            }
            QString label = gutterLabel(block);
            if (!label.isEmpty()) {
                p.setFont(font());
                p.setPen(colors.gutterText);
                p.drawText(QRect(0, top, numberRight, fontMetrics().height()),
                           Qt::AlignRight | Qt::AlignVCenter, label);
            }
        }
        block = block.next();
        top = bottom;
    }
}

} // namespace loopscope
