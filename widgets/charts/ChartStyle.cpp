// The charts' style: marker shapes, the colour-blind-safe palette, each variant's colour and
// marker, and the chart's colours from the user's palette.
#include "charts/ChartStyle.h"

#include <QtCharts/QAbstractAxis>
#include <QtCharts/QChart>
#include <QtCharts/QLegend>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QXYSeries>

#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

namespace loopscope {
namespace charts {

namespace {

constexpr double kPi = 3.14159265358979323846;

QPainterPath markerPath(ChartsView::Marker marker, double size)
{
    const double r = size / 2;
    QPainterPath path;
    auto polygon = [&](int corners, double startDegrees, double scale) {
        QPolygonF poly;
        for (int i = 0; i < corners; ++i) {
            const double a = (startDegrees + 360.0 * i / corners) * kPi / 180.0;
            poly << QPointF(r * scale * std::cos(a), r * scale * std::sin(a));
        }
        path.addPolygon(poly);
        path.closeSubpath();
    };
    switch (marker) {
    case ChartsView::Marker::Circle: path.addEllipse(QPointF(0, 0), r * 0.85, r * 0.85); break;
    case ChartsView::Marker::Square: path.addRect(-r * 0.75, -r * 0.75, r * 1.5, r * 1.5); break;
    case ChartsView::Marker::Triangle: polygon(3, -90, 1.0); break;
    case ChartsView::Marker::Diamond: polygon(4, -90, 1.0); break;
    case ChartsView::Marker::InvertedTriangle: polygon(3, 90, 1.0); break;
    case ChartsView::Marker::Pentagon: polygon(5, -90, 0.95); break;
    case ChartsView::Marker::Star: {
        QPolygonF poly;
        for (int i = 0; i < 10; ++i) {
            const double a = (-90 + 36.0 * i) * kPi / 180.0;
            const double rr = i % 2 == 0 ? r : r * 0.45;
            poly << QPointF(rr * std::cos(a), rr * std::sin(a));
        }
        path.addPolygon(poly);
        path.closeSubpath();
        break;
    }
    }
    return path;
}

} // namespace

void paintMarker(QPainter* painter, ChartsView::Marker marker, const QPointF& center, double size,
                 const QColor& color, const QColor& outline)
{
    painter->save();
    painter->translate(center);
    painter->setPen(QPen(outline, std::max(1.0, size / 9)));
    painter->setBrush(color);
    painter->drawPath(markerPath(marker, size));
    painter->restore();
}

// A marker as the image a series draws at each of its points.
QImage markerImage(ChartsView::Marker marker, const QColor& color, const QColor& outline,
                   double size)
{
    const int scale = 4; // drawn scaled down, so sharp on a high-density screen too
    const int side = static_cast<int>(std::ceil(size)) * scale;
    QImage image(side, side, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.scale(scale, scale);
    paintMarker(&painter, marker, QPointF(size / 2, size / 2), size - 1, color, outline);
    painter.end();
    return image;
}

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

} // namespace charts

using charts::isDark;
using charts::kMarkerProperty;
using charts::kVariantProperty;
using charts::markerImage;

const QList<QColor>& ChartsView::seriesColors()
{
    static const QList<QColor> colors{
        QColor(0x00, 0x72, 0xB2), // blue (Okabe-Ito)
        QColor(0xE6, 0x9F, 0x00), // orange
        QColor(0x00, 0x9E, 0x73), // bluish green
        QColor(0xD5, 0x5E, 0x00), // vermillion
        QColor(0xCC, 0x79, 0xA7), // reddish purple
        QColor(0x56, 0xB4, 0xE9), // sky blue
        QColor(0xF0, 0xE4, 0x42), // yellow
        QColor(0x88, 0x88, 0x88), // grey (Okabe-Ito's black: that is the OpenBLAS line)
        QColor(0x88, 0x22, 0x55), // wine (Paul Tol)
        QColor(0x44, 0xAA, 0x99), // teal
        QColor(0x99, 0x99, 0x33), // olive
        QColor(0x33, 0x22, 0x88), // indigo
    };
    return colors;
}

const QList<ChartsView::Marker>& ChartsView::markerCycle()
{
    static const QList<Marker> markers{Marker::Circle,  Marker::Square,           Marker::Triangle,
                                       Marker::Diamond, Marker::InvertedTriangle, Marker::Pentagon};
    return markers;
}

bool ChartsView::isReference(const QString& variant)
{
    return variant == QLatin1String("OpenBLAS") || variant == QLatin1String("oneDNN");
}

ChartsView::SeriesStyle ChartsView::styleOf(const QString& variant) const
{
    if (isReference(variant)) return {palette().color(QPalette::Text), Marker::Star};
    const int index = static_cast<int>(m_variants.indexOf(variant));
    int n = 0; // the variant's place among the variants, OpenBLAS not counted
    for (int i = 0; i < index; ++i)
        if (!isReference(m_variants[i])) ++n;
    n = std::max(n, 0);
    const QList<QColor>& colors = seriesColors();
    const QList<Marker>& markers = markerCycle();
    QColor color = colors[n % colors.size()];
    // On a dark background the darkest colours are lightened to stay visible.
    if (isDark(palette()) && color.lightness() < 110) color = color.lighter(170);
    // Past twelve the colours repeat; the marker moves on by one, so no two share both.
    const auto marker = markers[(n + n / colors.size()) % markers.size()];
    return {color, marker};
}

QColor ChartsView::colorFor(const QString& variant) const
{
    return styleOf(variant).color;
}

void ChartsView::styleSeries(QAbstractSeries* series, const QString& variant) const
{
    series->setProperty(kVariantProperty, variant);
    const SeriesStyle style = styleOf(variant);
    series->setProperty(kMarkerProperty, static_cast<int>(style.marker));
    auto* xy = qobject_cast<QXYSeries*>(series);
    if (!xy) return;
    const double size = qobject_cast<QScatterSeries*>(series) ? 11 : 9;
    xy->setMarkerSize(size);
    xy->setLightMarker(markerImage(style.marker, style.color, style.color.darker(150), size));
}

void ChartsView::applyPalette(QChart* chart) const
{
    const QPalette& p = palette();
    chart->setBackgroundBrush(p.color(QPalette::Base));
    chart->setPlotAreaBackgroundVisible(false);
    chart->setTitleBrush(p.color(QPalette::Text));
    chart->legend()->setLabelColor(p.color(QPalette::Text));
    QColor grid = p.color(QPalette::Mid);
    for (QAbstractAxis* axis : chart->axes()) {
        axis->setLabelsColor(p.color(QPalette::Text));
        axis->setTitleBrush(p.color(QPalette::Text));
        axis->setGridLineColor(grid);
        axis->setMinorGridLineColor(grid.lighter(isDark(p) ? 70 : 130));
        axis->setLinePenColor(p.color(QPalette::Text));
    }
}

} // namespace loopscope
