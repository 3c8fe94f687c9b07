#include "views/LadderView.h"

#include "views/LadderModel.h"
#include "views/ViewColors.h"

#include <QApplication>
#include <QHeaderView>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QStyledItemDelegate>

namespace loopscope {

namespace {

using State = LadderModel::State;

bool showsMessage(const QModelIndex& index)
{
    const auto state = index.data(LadderModel::StateRole).value<State>();
    // Done with a message: checked, not timed (a GPU step without a GPU).
    return (state == State::Wrong || state == State::Failed || state == State::Done) &&
           !index.data(LadderModel::MessageRole).toString().isEmpty();
}

QString firstLine(const QString& s)
{
    const qsizetype nl = s.indexOf(u'\n');
    return nl < 0 ? s : s.left(nl);
}

// Paints the step column as "line  label", the GFLOPS bar, and the row colors of the row's state.
class LadderDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override
    {
        QStyleOptionViewItem opt(option);
        initStyleOption(&opt, index);
        const bool selected = opt.state & QStyle::State_Selected;
        const auto state = index.data(LadderModel::StateRole).value<State>();
        const bool stale = index.data(LadderModel::StaleRole).toBool();
        // Numbers of an earlier session are muted, as the numbers of a pending rerun are.
        const bool earlier = index.data(LadderModel::EarlierRole).toBool();
        QColor textColor = opt.palette.color(QPalette::Text);
        if (state == State::Wrong || state == State::Failed)
            textColor = errorColor(opt.palette);
        else if (stale || earlier || state == State::NotRun || state == State::Skipped)
            textColor = dimTextColor(opt.palette);
        if (!selected) opt.palette.setColor(QPalette::Text, textColor);

        const QWidget* widget = opt.widget;
        QStyle* style = widget ? widget->style() : QApplication::style();
        const int column = index.column();

        if (column == LadderModel::GflopsColumn) {
            const QVariant bar = index.data(LadderModel::BarRole);
            if (bar.isValid()) {
                // Background first, then the bar, then the text on top of both.
                QString text = opt.text;
                opt.text.clear();
                style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
                QRect r = opt.rect.adjusted(3, 3, -3, -3);
                r.setWidth(std::max(1, int(r.width() * bar.toDouble())));
                const QColor accent = opt.palette.color(QPalette::Highlight);
                const QColor base = opt.palette.color(QPalette::Base);
                QColor fill =
                    selected ? mixColors(accent, opt.palette.color(QPalette::HighlightedText), 0.35)
                             : mixColors(base, accent,
                                         stale || earlier             ? 0.15
                                         : isDarkPalette(opt.palette) ? 0.45
                                                                      : 0.30);
                painter->save();
                painter->setFont(opt.font); // bold on the fastest row
                painter->fillRect(r, fill);
                painter->setPen(selected ? opt.palette.color(QPalette::HighlightedText)
                                         : textColor);
                painter->drawText(opt.rect.adjusted(4, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter,
                                  text);
                painter->restore();
                return;
            }
        }
        if (column == LadderModel::MedianColumn && showsMessage(index)) {
            opt.text.clear();
            style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
            const QRect r = opt.rect.adjusted(6, 0, -4, 0);
            painter->setPen(selected ? opt.palette.color(QPalette::HighlightedText) : textColor);
            const QString message = firstLine(index.data(LadderModel::MessageRole).toString());
            painter->drawText(r, Qt::AlignLeft | Qt::AlignVCenter,
                              opt.fontMetrics.elidedText(message, Qt::ElideRight, r.width()));
            return;
        }
        if (column == LadderModel::StatusColumn && showsMessage(index) && state != State::Done) {
            // The message is in the spanned number columns; the status says what kind it is.
            opt.text = state == State::Wrong ? LadderView::tr("✗ wrong result")
                                             : LadderView::tr("✗ failed");
        }
        if (column == LadderModel::StepColumn) {
            const QString label = opt.text;
            opt.text.clear();
            style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
            painter->save();
            painter->setFont(opt.font); // bold on the fastest row
            const QFontMetrics fm(opt.font);
            const int numberWidth = fm.horizontalAdvance(QStringLiteral("0000"));
            QRect numberRect = opt.rect.adjusted(2, 0, 0, 0);
            numberRect.setWidth(numberWidth);
            QRect labelRect = opt.rect.adjusted(numberWidth + 10, 0, -4, 0);
            const QColor hi = opt.palette.color(QPalette::HighlightedText);
            painter->setPen(selected ? hi : dimTextColor(opt.palette));
            painter->drawText(numberRect, Qt::AlignRight | Qt::AlignVCenter,
                              QString::number(index.data(LadderModel::LineRole).toInt()));
            painter->setPen(selected ? hi : textColor);
            painter->drawText(labelRect, Qt::AlignLeft | Qt::AlignVCenter,
                              fm.elidedText(label, Qt::ElideRight, labelRect.width()));
            painter->restore();
            return;
        }
        style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
    }

    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QSize s = QStyledItemDelegate::sizeHint(option, index);
        if (index.column() == LadderModel::StepColumn)
            s.rwidth() += option.fontMetrics.horizontalAdvance(QStringLiteral("0000")) + 10;
        if (index.column() == LadderModel::GflopsColumn)
            s.rwidth() = std::max(
                s.width(), option.fontMetrics.horizontalAdvance(QStringLiteral("0000.0")) + 40);
        if (index.column() == LadderModel::MedianColumn && showsMessage(index))
            s.rwidth() = option.fontMetrics.horizontalAdvance(QStringLiteral("0000.00")); // spans
        return s;
    }
};

} // namespace

LadderView::LadderView(QWidget* parent) : QTableView(parent)
{
    setItemDelegate(new LadderDelegate(this));
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setShowGrid(false);
    setAlternatingRowColors(true);
    setWordWrap(false);
    setCornerButtonEnabled(false);
    setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    verticalHeader()->hide();
    horizontalHeader()->setHighlightSections(false);
    horizontalHeader()->setSectionsClickable(false);
    horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    horizontalHeader()->setStretchLastSection(false);
    horizontalHeader()->setMinimumSectionSize(24);
    m_placeholder = tr("Select a variant to see its steps");
    applyMetrics();
}

void LadderView::applyMetrics()
{
    // Compact rows, so that a ladder of 14 steps shows whole in the default layout at 1366x768.
    const int rowHeight = fontMetrics().height() + 4;
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    verticalHeader()->setDefaultSectionSize(rowHeight);
    verticalHeader()->setMinimumSectionSize(rowHeight);
}

void LadderView::setModel(QAbstractItemModel* model)
{
    QTableView::setModel(model);
    if (!model) return;
    QHeaderView* h = horizontalHeader();
    for (int c = 0; c < model->columnCount(); ++c)
        h->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    if (model->columnCount() > LadderModel::StepColumn)
        h->setSectionResizeMode(LadderModel::StepColumn, QHeaderView::Stretch);
    if (model->columnCount() > LadderModel::StatusColumn) {
        h->setSectionResizeMode(LadderModel::StatusColumn, QHeaderView::Interactive);
        h->resizeSection(LadderModel::StatusColumn,
                         fontMetrics().horizontalAdvance(QStringLiteral("✗ wrong result")) + 24);
    }
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(model, signal, this, &LadderView::updateSpans);
    connect(model, &QAbstractItemModel::dataChanged, this, &LadderView::updateSpans);
    connect(model, &QAbstractItemModel::modelReset, this, &LadderView::updateSpans);
    connect(model, &QAbstractItemModel::layoutChanged, this, &LadderView::updateSpans);
    updateSpans();
    // Only the user's own choice asks for a step: the current row also moves when the model's
    // rows change under it (a new exploration with fewer steps), and that must never move the
    // editor's cursor while the user types.
    connect(selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (m_userInput > 0 && current.isValid()) emit stepActivated(current.row());
            });
}

void LadderView::updateSpans()
{
    QAbstractItemModel* m = model();
    if (!m || m->columnCount() <= LadderModel::SpeedupColumn) return;
    const int span = LadderModel::SpeedupColumn - LadderModel::MedianColumn + 1;
    for (int row = 0; row < m->rowCount(); ++row) {
        const bool message = showsMessage(m->index(row, LadderModel::MedianColumn));
        const int current = columnSpan(row, LadderModel::MedianColumn);
        if (message && current != span)
            setSpan(row, LadderModel::MedianColumn, 1, span);
        else if (!message && current != 1)
            setSpan(row, LadderModel::MedianColumn, 1, 1);
    }
}

void LadderView::setCurrentStep(int row)
{
    if (!model() || row < 0 || row >= model()->rowCount()) return;
    const QModelIndex index = model()->index(row, 0);
    selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                 QItemSelectionModel::Rows);
    scrollTo(index);
}

int LadderView::heightForRows(int rows) const
{
    return horizontalHeader()->sizeHint().height() +
           std::max(0, rows) * verticalHeader()->defaultSectionSize() + 2 * frameWidth();
}

bool LadderView::showsEveryRow() const
{
    return model() && verticalScrollBar()->maximum() == 0 &&
           viewport()->height() >= model()->rowCount() * verticalHeader()->defaultSectionSize();
}

int LadderView::currentStep() const
{
    return selectionModel() && currentIndex().isValid() ? currentIndex().row() : -1;
}

void LadderView::setPlaceholder(const QString& text)
{
    m_placeholder = text;
    viewport()->update();
}

void LadderView::keyPressEvent(QKeyEvent* event)
{
    ++m_userInput;
    QTableView::keyPressEvent(event);
    --m_userInput;
}

void LadderView::mousePressEvent(QMouseEvent* event)
{
    const int before = currentStep();
    ++m_userInput;
    QTableView::mousePressEvent(event);
    --m_userInput;
    // A click on the row that is already current shows its step again (the currentRowChanged
    // connection covers clicks that move the selection).
    const QModelIndex hit = indexAt(event->position().toPoint());
    if (event->button() == Qt::LeftButton && hit.isValid() && hit.row() == before &&
        currentStep() == before)
        emit stepActivated(before);
}

void LadderView::paintEvent(QPaintEvent* event)
{
    QTableView::paintEvent(event);
    if (model() && model()->rowCount() > 0) return;
    QPainter p(viewport());
    p.setPen(dimTextColor(palette()));
    p.drawText(viewport()->rect().adjusted(8, 8, -8, -8),
               Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, m_placeholder);
}

void LadderView::changeEvent(QEvent* event)
{
    QTableView::changeEvent(event);
    if (event->type() == QEvent::FontChange) applyMetrics();
}

} // namespace loopscope
