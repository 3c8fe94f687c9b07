// The benchmark charts (Qt Charts, in its .cpp only): GFLOPS against problem size, one
// line per variant on a log-2 size axis; a bar chart of every variant at one size; the roofline
// (arithmetic intensity against GFLOPS under the measured peak and bandwidth). Reference lines:
// the machine's peak and OpenBLAS (dashed). Each variant has its own colour from a
// colour-blind-safe palette and its own marker shape, so lines differ by more than colour. The
// legend is the view's own: to the right of the plot when it fits there, else below it in as many
// rows as it needs, so no entry is ever cut, on screen or in an export. Legend entries toggle
// their series, hovering a point tells its variant, size (the swept parameters' values), ms and
// GFLOPS, and the context menu exports the chart as PNG or SVG and the data as CSV.
#pragma once

#include "protocol/Messages.h"

#include <QColor>
#include <QImage>
#include <QList>
#include <QRectF>
#include <QSet>
#include <QSize>
#include <QString>
#include <QWidget>

class QChart;
class QChartView;
class QComboBox;
class QTabWidget;
class QAbstractSeries;

namespace loopscope {

struct ChartPoint {
    QString variant;
    qint64 size = 0; // the swept parameters' common value
    double msMedian = 0, msMin = 0, msMax = 0;
    double gflops = 0;
    double intensity = 0; // flops per unavoidable byte
    bool skipped = false;
    bool failed = false;
    bool checked = false;
    bool reference = false; // OpenBLAS
    bool cached = false;    // measured by an earlier sweep, not this one
    QString message;
};

// A sweep point (of a worker's sweep, kept from an earlier one, or `loopscope-cli sweep --json`'s)
// as the charts show it; the size is the first swept value.
ChartPoint chartPointOf(const protocol::SweepPoint& point);

// The charts' pictures and data as files: charts/ChartExport.h.
class ChartsView : public QWidget {
    Q_OBJECT
public:
    enum Tab { LineTab = 0, BarTab = 1, RooflineTab = 2 };
    enum class Marker { Circle, Square, Triangle, Diamond, InvertedTriangle, Pentagon, Star };

    // How a variant's series is drawn: its colour and the shape of its points.
    struct SeriesStyle {
        QColor color;
        Marker marker = Marker::Circle;
    };
    // The variants' colours in the order they are given: Okabe and Ito's colour-blind-safe
    // palette (its black, which the OpenBLAS line uses, as grey) and four of Paul Tol's.
    static const QList<QColor>& seriesColors();
    // The marker shapes variants cycle through (OpenBLAS has the star).
    static const QList<Marker>& markerCycle();
    // Whether a series is a reference library's line (OpenBLAS for a matmul, oneDNN for a
    // convolution) rather than a variant of the script: dashed, in the text colour, labelled
    // with the library's version.
    static bool isReference(const QString& variant);

    // An entry of the legend as drawn, in the chart's coordinates (the chart fills the view).
    struct LegendEntry {
        QString name;
        QRectF rect;     // the whole entry: symbol and name
        QRectF textRect; // the name, as wide as the text needs
        QColor color;
        bool hidden = false;
    };

    explicit ChartsView(QWidget* parent = nullptr);
    ~ChartsView() override;

    void clear();
    // "M = N = K": the size axis' title and the CSV's size column names.
    void setSizeLabel(const QStringList& parameters);
    // Adds a point, replacing the one of the same variant and size.
    void addPoint(const ChartPoint& point);
    void setPoints(const QList<ChartPoint>& points);
    QList<ChartPoint> points() const { return m_points; }
    int pointCount() const { return static_cast<int>(m_points.size()); }
    // Variants in the order they first appeared.
    QStringList variants() const { return m_variants; }
    // 0 (or anything not a finite positive number): no line.
    void setPeakGflops(double gflops);
    double peakGflops() const { return m_peak; }
    void setBandwidthGbs(double gbs);
    double bandwidthGbs() const { return m_bandwidth; }
    // "OpenBLAS 0.3.21": the reference line's label.
    void setReferenceLabel(const QString& label);
    // The size the bar chart shows (default: the largest with a measured point).
    void setBarSize(qint64 size);
    qint64 barSize() const;

    void setCurrentTab(Tab tab);
    Tab currentTab() const;

    // The colour and marker of a variant's series (by the order variants appeared).
    SeriesStyle styleOf(const QString& variant) const;
    // The legend of a chart as it is laid out now, and the chart's own rectangle and plot area.
    QList<LegendEntry> legendEntries(Tab tab) const;
    QRectF chartRect(Tab tab) const;
    QRectF plotArea(Tab tab) const;
    // What hovering a point shows ("" when nothing is hovered): variant, the swept parameters'
    // values, ms and GFLOPS.
    QString hoverText() const { return m_hoverText; }

    // Introspection for tests: the series of a chart by name, and a series' point count.
    QStringList seriesNames(Tab tab) const;
    int pointCount(Tab tab, const QString& seriesName) const;
    bool isSeriesVisible(Tab tab, const QString& seriesName) const;
    // The swept parameters the size stands for (setSizeLabel's).
    QStringList sizeParameters() const { return m_parameters; }
    // Toggles a series as a click on its legend entry does.
    void toggleSeries(const QString& variant);

protected:
    void changeEvent(QEvent* event) override;

private:
    friend class ChartExport; // draws the charts for a picture: view() and layoutLegend()

    void rebuild();
    void rebuildLine();
    void rebuildBar();
    void rebuildRoofline();
    void applyPalette(QChart* chart) const;
    // Builds the legend's entries from the chart's named series and lays it out.
    void updateLegend(Tab tab) const;
    void layoutLegend(Tab tab) const;
    QColor colorFor(const QString& variant) const;
    void styleSeries(QAbstractSeries* series, const QString& variant) const;
    QString sizeText(qint64 size) const;
    QChartView* view(Tab tab) const;
    QAbstractSeries* findSeries(Tab tab, const QString& name) const;
    void showContextMenu(const QPoint& pos);
    void showTooltip(const QString& variant, const QPointF& at, bool state, Tab tab);
    void showText(const QString& text);

    QTabWidget* m_tabs = nullptr;
    QChartView* m_lineView = nullptr;
    QChartView* m_barView = nullptr;
    QChartView* m_rooflineView = nullptr;
    QComboBox* m_sizeBox = nullptr;
    QList<ChartPoint> m_points;
    QStringList m_variants;
    QSet<QString> m_hidden;
    QStringList m_parameters;
    double m_peak = 0, m_bandwidth = 0;
    QString m_referenceLabel = QStringLiteral("OpenBLAS");
    qint64 m_barSize = 0;
    QString m_hoverText;
};

} // namespace loopscope
