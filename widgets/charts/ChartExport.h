// The charts of a ChartsView as files: each chart as PNG or SVG, laid out (legend included) for
// the picture's size, and the points as CSV.
#pragma once

#include "charts/ChartsView.h"

#include <QImage>
#include <QList>
#include <QRectF>
#include <QSize>
#include <QString>

namespace loopscope {

class ChartExport {
public:
    explicit ChartExport(const ChartsView& view) : m_view(view) {}

    // One row a point: variant, the size under each swept parameter's name, the times, GFLOPS,
    // intensity, checked, skipped.
    QString csv() const;
    // A chart drawn at this size (at least 800x500 when empty), laid out for that size: the
    // legend is placed for it, as on screen. `legend` and `plot`, when given, receive the legend
    // drawn and the plot area.
    QImage image(ChartsView::Tab tab, QSize size = {},
                 QList<ChartsView::LegendEntry>* legend = nullptr, QRectF* plot = nullptr) const;
    // A path without a suffix gets this one ("png", "svg", "csv").
    static QString withSuffix(const QString& path, const QString& suffix);
    // The files are withSuffix(path, "png" / "svg" / "csv"); the chart is drawn at the view's
    // size, at least 800x500.
    bool png(const QString& path, ChartsView::Tab tab) const;
    bool svg(const QString& path, ChartsView::Tab tab) const;
    bool csvFile(const QString& path) const;

private:
    const ChartsView& m_view;
};

} // namespace loopscope
