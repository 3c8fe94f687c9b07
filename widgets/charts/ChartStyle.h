// How the charts tell their variants apart: the marker shapes drawn at a series' points and in
// the legend, and the properties a series carries with its variant and marker. The palette and
// the choice of colour and marker per variant are ChartsView's (seriesColors, markerCycle,
// styleOf), defined in ChartStyle.cpp.
#pragma once

#include "charts/ChartsView.h"

#include <QColor>
#include <QImage>
#include <QPointF>

class QPainter;
class QPalette;

namespace loopscope::charts {

// The property a series carries with the variant it shows ("" for the peak and roof lines), and
// the one with its marker shape (a ChartsView::Marker), read back by the legend.
inline constexpr char kVariantProperty[] = "loopscopeVariant";
inline constexpr char kMarkerProperty[] = "loopscopeMarker";

// A marker of this size (its width) centred on `center`, filled with `color`.
void paintMarker(QPainter* painter, ChartsView::Marker marker, const QPointF& center, double size,
                 const QColor& color, const QColor& outline);
// A marker as the image a series draws at each of its points.
QImage markerImage(ChartsView::Marker marker, const QColor& color, const QColor& outline,
                   double size);
// Whether the user's palette is a dark one (light text on a dark background).
bool isDark(const QPalette& palette);

} // namespace loopscope::charts
