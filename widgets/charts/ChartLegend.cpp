// The charts' legend: how its entries are drawn and clicked, built from a chart's series and
// placed beside or below the plot so no name is ever cut.
#include "charts/ChartLegend.h"

#include "charts/ChartStyle.h"

#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QXYSeries>

#include <QFontMetricsF>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace loopscope {
namespace charts {

void LegendItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*)
{
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    for (const Entry& e : entries) {
        QColor faded = e.hidden ? QColor(textColor.red(), textColor.green(), textColor.blue(), 110)
                                : textColor;
        const double midY = e.rect.center().y();
        const QRectF symbol(e.rect.left(), e.rect.top(), kSymbolWidth, e.rect.height());
        QPen pen = e.pen;
        if (e.hidden) {
            QColor c = pen.color();
            c.setAlpha(90);
            pen.setColor(c);
        }
        painter->setPen(pen);
        painter->drawLine(QPointF(symbol.left() + 1, midY), QPointF(symbol.right() - 1, midY));
        if (e.marker) {
            QColor fill = e.markerColor;
            if (e.hidden) fill.setAlpha(90);
            paintMarker(painter, e.shape, QPointF(symbol.center().x(), midY), kMarkerSize, fill,
                        fill.darker(140));
        }
        QFont f = font;
        f.setStrikeOut(e.hidden);
        painter->setFont(f);
        painter->setPen(faded);
        painter->drawText(e.textRect, Qt::AlignLeft | Qt::AlignVCenter, e.name);
    }
    painter->restore();
}

void LegendItem::mousePressEvent(QGraphicsSceneMouseEvent* event)
{
    for (const Entry& e : entries) {
        if (e.rect.contains(event->pos()) && !e.variant.isEmpty()) {
            if (clicked) clicked(e.variant);
            event->accept();
            return;
        }
    }
    event->ignore();
}

LegendItem* legendOf(const QChart* chart)
{
    for (QGraphicsItem* child : chart->childItems())
        if (auto* legend = dynamic_cast<LegendItem*>(child)) return legend;
    return nullptr;
}

} // namespace charts

using charts::kMarkerProperty;
using charts::kVariantProperty;
using charts::LegendItem;
using charts::legendOf;

void ChartsView::updateLegend(Tab tab) const
{
    QChart* chart = view(tab)->chart();
    LegendItem* legend = legendOf(chart);
    legend->entries.clear();
    if (tab != BarTab) { // the bar chart names its bars on its axis
        for (QAbstractSeries* s : chart->series()) {
            if (s->name().isEmpty()) continue;
            LegendItem::Entry e;
            e.name = s->name();
            e.variant = s->property(kVariantProperty).toString();
            e.hidden = m_hidden.contains(e.variant) && !e.variant.isEmpty();
            if (auto* scatter = qobject_cast<QScatterSeries*>(s)) {
                e.pen = Qt::NoPen;
                e.markerColor = scatter->color();
            } else if (auto* xy = qobject_cast<QXYSeries*>(s)) {
                e.pen = xy->pen();
                e.markerColor = xy->pen().color();
            }
            e.marker = !e.variant.isEmpty();
            e.shape = static_cast<Marker>(s->property(kMarkerProperty).toInt());
            legend->entries.append(e);
        }
    }
    legend->textColor = palette().color(QPalette::Text);
    layoutLegend(tab);
}

void ChartsView::layoutLegend(Tab tab) const
{
    QChart* chart = view(tab)->chart();
    LegendItem* legend = legendOf(chart);
    if (!legend) return;
    const QSizeF size = chart->size();
    const int pad = 12;                   // inside the chart's rounded background
    constexpr double kMinPlotWidth = 420; // beside a legend on the right
    QMargins margins(pad, pad, pad, pad);
    if (legend->entries.isEmpty() || size.width() < 1 || size.height() < 1) {
        legend->setBounds(QRectF());
        if (chart->margins() != margins) chart->setMargins(margins);
        legend->update();
        return;
    }

    // The entries in a column to the right of the plot when that leaves the plot most of the
    // width, else in rows below it, as many as needed; a smaller font when even that would take
    // more than 30% of the height. No name is ever cut.
    QFont font = chart->font();
    const double symbol = LegendItem::kSymbolWidth + LegendItem::kGap;
    double entryWidth = 0, rowHeight = 0;
    bool right = false;
    int columns = 1, rows = 1;
    for (double points = font.pointSizeF() > 0 ? font.pointSizeF() : 9;; points -= 1) {
        font.setPointSizeF(points);
        QFontMetricsF fm(font);
        double widest = 0;
        for (const auto& e : legend->entries)
            widest = std::max(widest, fm.horizontalAdvance(e.name));
        entryWidth = symbol + widest + 2; // the name's own width, and room for the strike-out
        rowHeight = std::max(fm.height(), LegendItem::kMarkerSize) + 4;
        const int n = static_cast<int>(legend->entries.size());
        const double titleHeight = chart->title().isEmpty() ? 0 : fm.height() * 1.6 + pad;
        const double columnWidth = entryWidth + LegendItem::kSpacing;
        // Beside the plot only when the plot keeps room for its axis labels too.
        right = columnWidth <= size.width() * 0.34 &&
                size.width() - columnWidth - 2 * pad >= kMinPlotWidth &&
                n * rowHeight <= size.height() - titleHeight - 2 * pad;
        if (right) {
            columns = 1;
            rows = n;
            break;
        }
        columns = std::max(
            1, static_cast<int>((size.width() - 2 * pad + LegendItem::kSpacing) / columnWidth));
        columns = std::min(columns, n);
        rows = (n + columns - 1) / columns;
        const bool fits =
            entryWidth <= size.width() - 2 * pad && rows * rowHeight <= size.height() * 0.3;
        if (fits || points <= 6) break;
    }
    legend->font = font;

    const double columnWidth = entryWidth + LegendItem::kSpacing;
    const double width = columns * columnWidth - LegendItem::kSpacing;
    const double height = rows * rowHeight;
    QPointF origin;
    if (right) {
        margins.setRight(static_cast<int>(std::ceil(pad + width + pad)));
        origin = QPointF(size.width() - pad - width,
                         std::max<double>(pad, (size.height() - height) / 2));
    } else {
        margins.setBottom(static_cast<int>(std::ceil(pad + height + pad)));
        origin =
            QPointF(std::max(pad / 2.0, (size.width() - width) / 2), size.height() - pad - height);
    }
    const QFontMetricsF fm(font);
    int i = 0;
    for (auto& e : legend->entries) {
        // Filled column by column on the right, row by row below.
        const int column = right ? 0 : i % columns;
        const int row = right ? i : i / columns;
        const QPointF at = origin + QPointF(column * columnWidth, row * rowHeight);
        e.rect = QRectF(at, QSizeF(entryWidth, rowHeight));
        e.textRect = QRectF(at.x() + symbol, at.y(), fm.horizontalAdvance(e.name) + 2, rowHeight);
        ++i;
    }
    legend->setBounds(QRectF(origin, QSizeF(width, height)).adjusted(-1, -1, 1, 1));
    if (chart->margins() != margins) chart->setMargins(margins);
    legend->update();
}

QList<ChartsView::LegendEntry> ChartsView::legendEntries(Tab tab) const
{
    QList<LegendEntry> out;
    QChart* chart = view(tab)->chart();
    const LegendItem* legend = legendOf(chart);
    if (!legend) return out;
    for (const auto& e : legend->entries)
        out.append({e.name, legend->mapRectToItem(chart, e.rect),
                    legend->mapRectToItem(chart, e.textRect), e.markerColor, e.hidden});
    return out;
}

} // namespace loopscope
