// The benchmark charts (the only class that includes Qt Charts): GFLOPS against problem size, one
// line per variant on a log-2 size axis; a bar chart of every variant at one size; the roofline
// (arithmetic intensity against GFLOPS under the measured peak and bandwidth). Reference lines:
// the machine's peak and OpenBLAS (dashed). Legend entries toggle their series, hovering a point
// tells its variant, size, ms and GFLOPS, colors follow the palette, and the context menu
// exports the chart as PNG or SVG and the data as CSV.
#pragma once

#include <QList>
#include <QSet>
#include <QString>
#include <QWidget>

class QChart;
class QChartView;
class QComboBox;
class QTabWidget;
class QAbstractSeries;
class QJsonObject;

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

// A sweep point in its JSON form (a worker "sweep" message or result, or `loopscope-cli sweep
// --json`: {variant, values, ms_median, gflops, ...}) as the charts show it; the size is the
// first swept value.
ChartPoint chartPointFromJson(const QJsonObject& point);

class ChartsView : public QWidget {
    Q_OBJECT
public:
    enum Tab { LineTab = 0, BarTab = 1, RooflineTab = 2 };

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
    // 0: no line.
    void setPeakGflops(double gflops);
    double peakGflops() const { return m_peak; }
    void setBandwidthGbs(double gbs);
    // "OpenBLAS 0.3.21": the reference line's label.
    void setReferenceLabel(const QString& label);
    // The size the bar chart shows (default: the largest with a measured point).
    void setBarSize(qint64 size);
    qint64 barSize() const;

    void setCurrentTab(Tab tab);
    Tab currentTab() const;

    // Introspection for tests: the series of a chart by name, and a series' point count.
    QStringList seriesNames(Tab tab) const;
    int pointCount(Tab tab, const QString& seriesName) const;
    bool isSeriesVisible(Tab tab, const QString& seriesName) const;
    // Toggles a series as a click on its legend entry does.
    void toggleSeries(const QString& variant);

    QString csv() const;
    bool exportPng(const QString& path, Tab tab) const;
    bool exportSvg(const QString& path, Tab tab) const;
    bool exportCsv(const QString& path) const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void rebuild();
    void rebuildLine();
    void rebuildBar();
    void rebuildRoofline();
    void applyPalette(QChart* chart) const;
    void connectLegend(QChart* chart);
    QColor colorFor(const QString& variant) const;
    QChartView* view(Tab tab) const;
    QAbstractSeries* findSeries(Tab tab, const QString& name) const;
    void showContextMenu(const QPoint& pos);
    void showTooltip(const QString& variant, const QPointF& at, bool state, Tab tab);

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
};

} // namespace loopscope
