#include "views/CodeEdit.h"

#include "views/ViewColors.h"

#include <QEvent>
#include <QFontDatabase>
#include <QHelpEvent>
#include <QPainter>
#include <QTextBlock>
#include <QToolTip>

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
    return 6 + digits * charWidth + 10; // left padding, numbers, room for the mark and a gap
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
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    while (block.isValid() && top <= event->rect().bottom()) {
        const int height = qRound(blockBoundingRect(block).height());
        const int bottom = top + height;
        if (block.isVisible() && bottom >= event->rect().top()) {
            if (gutterMarked(block)) {
                p.fillRect(QRect(width - 4, top + 1, 3, height - 2), colors.loopMarker);
            }
            QString label = gutterLabel(block);
            if (!label.isEmpty()) {
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
