// The charts' legend item. ChartsView builds its entries from a chart's named series and places
// it (updateLegend, layoutLegend, legendEntries: ChartLegend.cpp) to the right of the plot or
// below it.
#pragma once

#include "charts/ChartsView.h"

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QList>
#include <QPen>
#include <QRectF>
#include <QString>

#include <functional>

namespace loopscope::charts {

// The legend drawn by the view itself (QChart's own cuts names it has no room for): one entry
// per named series, a symbol (the line's pen and the marker) and the name. It is a child of the
// chart, so it is drawn, and exported, with it.
class LegendItem : public QGraphicsItem {
public:
    struct Entry {
        QString name;
        QString variant; // toggled by a click; "" for the peak and roof lines
        QPen pen;
        bool marker = false;
        ChartsView::Marker shape = ChartsView::Marker::Circle;
        QColor markerColor;
        bool hidden = false;
        QRectF rect;     // in the item's coordinates
        QRectF textRect; // the name's own rectangle
    };

    explicit LegendItem(QGraphicsItem* parent) : QGraphicsItem(parent)
    {
        setZValue(100);
        setAcceptedMouseButtons(Qt::LeftButton);
    }

    QList<Entry> entries;
    QFont font;
    QColor textColor;
    QRectF bounds;
    std::function<void(const QString&)> clicked;

    QRectF boundingRect() const override { return bounds; }
    void setBounds(const QRectF& rect)
    {
        prepareGeometryChange();
        bounds = rect;
    }

    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override;

    static constexpr double kSymbolWidth = 26;
    static constexpr double kMarkerSize = 9;
    static constexpr double kGap = 5;      // between the symbol and the name
    static constexpr double kSpacing = 14; // between two entries in a row

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override;
};

// The legend item of a chart (nullptr when it has none).
LegendItem* legendOf(const QChart* chart);

} // namespace loopscope::charts
