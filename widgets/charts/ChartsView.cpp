#include "charts/ChartsView.h"

#include "charts/ChartLegend.h"
#include "charts/ChartStyle.h"

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>

#include <QComboBox>
#include <QCursor>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QTabWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace loopscope {

ChartPoint chartPointOf(const protocol::SweepPoint& point)
{
    ChartPoint p;
    p.variant = QString::fromStdString(point.variant);
    p.size = point.values.empty() ? 0 : point.values.front();
    p.msMedian = point.msMedian;
    p.msMin = point.msMin;
    p.msMax = point.msMax;
    p.gflops = point.gflops;
    p.intensity = point.intensity;
    p.skipped = point.skipped;
    p.failed = point.failed;
    p.checked = point.checked;
    p.reference = point.reference;
    p.cached = point.cached;
    p.message = QString::fromStdString(point.message);
    return p;
}

using charts::kVariantProperty;
using charts::LegendItem;
using charts::legendOf;

namespace {

QString formatNumber(double v, int digits)
{
    return QString::number(v, 'f', digits);
}

QChartView* makeView(QWidget* parent)
{
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setVisible(false); // the view draws its own (LegendItem)
    new LegendItem(chart);
    auto* v = new QChartView(chart, parent);
    v->setRenderHint(QPainter::Antialiasing);
    v->setContextMenuPolicy(Qt::CustomContextMenu);
    return v;
}

void clearChart(QChart* chart)
{
    chart->removeAllSeries();
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

} // namespace

ChartsView::ChartsView(QWidget* parent) : QWidget(parent)
{
    m_tabs = new QTabWidget(this);
    m_lineView = makeView(this);
    m_barView = makeView(this);
    m_rooflineView = makeView(this);
    m_lineView->setObjectName(QStringLiteral("lineChart"));
    m_barView->setObjectName(QStringLiteral("barChart"));
    m_rooflineView->setObjectName(QStringLiteral("rooflineChart"));

    auto* barPage = new QWidget(this);
    auto* barLayout = new QVBoxLayout(barPage);
    barLayout->setContentsMargins(0, 0, 0, 0);
    auto* sizeRow = new QHBoxLayout;
    m_sizeBox = new QComboBox(barPage);
    m_sizeBox->setObjectName(QStringLiteral("barSize"));
    sizeRow->addWidget(new QLabel(tr("Size:"), barPage));
    sizeRow->addWidget(m_sizeBox);
    sizeRow->addStretch();
    barLayout->addLayout(sizeRow);
    barLayout->addWidget(m_barView);
    connect(m_sizeBox, &QComboBox::activated, this, [this](int index) {
        m_barSize = m_sizeBox->itemData(index).toLongLong();
        rebuildBar();
    });

    m_tabs->addTab(m_lineView, tr("By size"));
    m_tabs->addTab(barPage, tr("At one size"));
    m_tabs->addTab(m_rooflineView, tr("Roofline"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);

    for (QChartView* v : {m_lineView, m_barView, m_rooflineView})
        connect(v, &QWidget::customContextMenuRequested, this, &ChartsView::showContextMenu);
    for (Tab tab : {LineTab, BarTab, RooflineTab}) {
        QChart* chart = view(tab)->chart();
        legendOf(chart)->clicked = [this](const QString& variant) { toggleSeries(variant); };
        // The legend is placed anew for every size of the chart.
        connect(chart, &QGraphicsWidget::geometryChanged, this, [this, tab] { layoutLegend(tab); });
    }
    rebuild();
}

ChartsView::~ChartsView() = default;

void ChartsView::clear()
{
    m_points.clear();
    m_variants.clear();
    m_barSize = 0;
    rebuild();
}

void ChartsView::setSizeLabel(const QStringList& parameters)
{
    m_parameters = parameters;
    rebuild();
}

void ChartsView::addPoint(const ChartPoint& point)
{
    auto same = [&](const ChartPoint& p) {
        return p.variant == point.variant && p.size == point.size;
    };
    auto it = std::find_if(m_points.begin(), m_points.end(), same);
    if (it != m_points.end())
        *it = point;
    else
        m_points.append(point);
    if (!m_variants.contains(point.variant)) m_variants.append(point.variant);
    rebuild();
}

void ChartsView::setPoints(const QList<ChartPoint>& points)
{
    m_points.clear();
    m_variants.clear();
    for (auto& p : points) {
        m_points.append(p);
        if (!m_variants.contains(p.variant)) m_variants.append(p.variant);
    }
    rebuild();
}

void ChartsView::setPeakGflops(double gflops)
{
    // Not a speed (infinite, not a number, negative): no line, rather than an endless axis.
    m_peak = std::isfinite(gflops) && gflops > 0 ? gflops : 0;
    rebuild();
}

void ChartsView::setBandwidthGbs(double gbs)
{
    m_bandwidth = std::isfinite(gbs) && gbs > 0 ? gbs : 0;
    rebuild();
}

void ChartsView::setReferenceLabel(const QString& label)
{
    m_referenceLabel = label.isEmpty() ? QStringLiteral("OpenBLAS") : label;
    rebuild();
}

void ChartsView::setBarSize(qint64 size)
{
    m_barSize = size;
    rebuildBar();
}

qint64 ChartsView::barSize() const
{
    if (m_barSize > 0) return m_barSize;
    qint64 best = 0;
    for (auto& p : m_points)
        if (p.gflops > 0) best = std::max(best, p.size);
    return best;
}

void ChartsView::setCurrentTab(Tab tab)
{
    m_tabs->setCurrentIndex(tab);
}

ChartsView::Tab ChartsView::currentTab() const
{
    return static_cast<Tab>(m_tabs->currentIndex());
}

QChartView* ChartsView::view(Tab tab) const
{
    switch (tab) {
    case LineTab: return m_lineView;
    case BarTab: return m_barView;
    case RooflineTab: return m_rooflineView;
    }
    return m_lineView;
}

QAbstractSeries* ChartsView::findSeries(Tab tab, const QString& name) const
{
    for (QAbstractSeries* s : view(tab)->chart()->series())
        if (s->name() == name) return s;
    return nullptr;
}

QStringList ChartsView::seriesNames(Tab tab) const
{
    QStringList names;
    for (QAbstractSeries* s : view(tab)->chart()->series())
        names.append(s->name());
    return names;
}

int ChartsView::pointCount(Tab tab, const QString& seriesName) const
{
    QAbstractSeries* s = findSeries(tab, seriesName);
    if (auto* xy = qobject_cast<QXYSeries*>(s)) return static_cast<int>(xy->count());
    if (auto* bars = qobject_cast<QBarSeries*>(s)) {
        int n = 0;
        for (QBarSet* set : bars->barSets())
            n += static_cast<int>(set->count());
        return n;
    }
    return -1;
}

bool ChartsView::isSeriesVisible(Tab tab, const QString& seriesName) const
{
    QAbstractSeries* s = findSeries(tab, seriesName);
    return s && s->isVisible();
}

void ChartsView::toggleSeries(const QString& variant)
{
    if (m_hidden.contains(variant))
        m_hidden.remove(variant);
    else
        m_hidden.insert(variant);
    for (Tab tab : {LineTab, RooflineTab}) {
        for (QAbstractSeries* s : view(tab)->chart()->series())
            if (s->property(kVariantProperty).toString() == variant)
                s->setVisible(!m_hidden.contains(variant));
        updateLegend(tab);
    }
}

QString ChartsView::sizeText(qint64 size) const
{
    if (m_parameters.isEmpty()) return tr("size %1").arg(size);
    return m_parameters.join(QStringLiteral(" = ")) + QStringLiteral(" = ") + QString::number(size);
}

void ChartsView::rebuild()
{
    rebuildLine();
    rebuildBar();
    rebuildRoofline();
}

void ChartsView::rebuildLine()
{
    QChart* chart = m_lineView->chart();
    clearChart(chart);
    chart->setTitle(tr("GFLOPS by problem size"));
    auto* x = new QLogValueAxis;
    x->setBase(2);
    x->setLabelFormat(QStringLiteral("%g"));
    x->setTitleText(m_parameters.isEmpty() ? tr("size") : m_parameters.join(QStringLiteral(" = ")));
    auto* y = new QValueAxis;
    y->setTitleText(tr("GFLOPS"));
    y->setLabelFormat(QStringLiteral("%g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);

    qint64 lo = 0, hi = 0;
    double top = m_peak;
    for (auto& p : m_points) {
        if (p.size <= 0) continue;
        lo = lo == 0 ? p.size : std::min(lo, p.size);
        hi = std::max(hi, p.size);
        top = std::max(top, p.gflops);
    }
    if (lo == 0) {
        lo = 64;
        hi = 2048;
    }
    if (lo == hi) {
        lo = std::max<qint64>(1, lo / 2);
        hi *= 2;
    }
    x->setRange(static_cast<double>(lo) / 1.2, static_cast<double>(hi) * 1.2);
    y->setRange(0, top > 0 ? top * 1.05 : 1.0);
    y->applyNiceNumbers(); // ticks at round GFLOPS

    for (const QString& variant : m_variants) {
        auto* s = new QLineSeries;
        s->setName(isReference(variant) ? m_referenceLabel : variant);
        s->setPointsVisible(true);
        QPen pen(colorFor(variant));
        pen.setWidthF(2);
        if (isReference(variant)) pen.setStyle(Qt::DashLine);
        s->setPen(pen);
        styleSeries(s, variant);
        s->setVisible(!m_hidden.contains(variant));
        QList<ChartPoint> mine;
        for (auto& p : m_points)
            if (p.variant == variant && p.gflops > 0) mine.append(p);
        std::sort(mine.begin(), mine.end(),
                  [](const ChartPoint& a, const ChartPoint& b) { return a.size < b.size; });
        for (auto& p : mine)
            s->append(static_cast<double>(p.size), p.gflops);
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        connect(s, &QXYSeries::hovered, this, [this, variant](const QPointF& at, bool state) {
            showTooltip(variant, at, state, LineTab);
        });
    }
    // The OpenBLAS series is named by its label; its toggle key is "OpenBLAS".
    if (m_peak > 0) {
        auto* peak = new QLineSeries;
        peak->setName(tr("peak %1 GFLOPS").arg(formatNumber(m_peak, 1)));
        QPen pen(palette().color(QPalette::Text));
        pen.setStyle(Qt::DotLine);
        peak->setPen(pen);
        peak->append(x->min(), m_peak);
        peak->append(x->max(), m_peak);
        chart->addSeries(peak);
        peak->attachAxis(x);
        peak->attachAxis(y);
    }
    applyPalette(chart);
    updateLegend(LineTab);
}

void ChartsView::rebuildBar()
{
    // The size selector lists every size with a measured point.
    QList<qint64> sizes;
    for (auto& p : m_points)
        if (p.gflops > 0 && !sizes.contains(p.size)) sizes.append(p.size);
    std::sort(sizes.begin(), sizes.end());
    const qint64 shown = barSize();
    m_sizeBox->clear();
    for (qint64 s : sizes)
        m_sizeBox->addItem(QString::number(s), s);
    m_sizeBox->setCurrentIndex(static_cast<int>(sizes.indexOf(shown)));

    QChart* chart = m_barView->chart();
    clearChart(chart);
    chart->setTitle(shown > 0 ? tr("GFLOPS at %1 = %2")
                                    .arg(m_parameters.isEmpty()
                                             ? tr("size")
                                             : m_parameters.join(QStringLiteral(" = ")))
                                    .arg(shown)
                              : tr("GFLOPS at one size"));
    auto* set = new QBarSet(tr("GFLOPS"));
    set->setColor(colorFor(m_variants.value(0)));
    QStringList categories;
    QList<ChartPoint> bars;
    for (const QString& variant : m_variants) {
        for (auto& p : m_points) {
            if (p.variant != variant || p.size != shown || p.gflops <= 0) continue;
            categories.append(isReference(variant) ? m_referenceLabel : variant);
            set->append(p.gflops);
            bars.append(p);
        }
    }
    auto* series = new QBarSeries;
    series->setName(tr("GFLOPS"));
    series->append(set);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    auto* y = new QValueAxis;
    y->setTitleText(tr("GFLOPS"));
    y->setLabelFormat(QStringLiteral("%g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
    double top = m_peak;
    for (int i = 0; i < set->count(); ++i)
        top = std::max(top, set->at(i));
    y->setRange(0, top > 0 ? top * 1.05 : 1.0);
    y->applyNiceNumbers(); // ticks at round GFLOPS
    connect(series, &QBarSeries::hovered, this, [this, bars](bool state, int index) {
        if (!state || index < 0 || index >= bars.size()) {
            showText(QString());
            return;
        }
        const ChartPoint& p = bars[index];
        showText(tr("%1\n%2\n%3 ms\n%4 GFLOPS")
                     .arg(isReference(p.variant) ? m_referenceLabel : p.variant, sizeText(p.size),
                          formatNumber(p.msMedian, 3), formatNumber(p.gflops, 2)));
    });
    applyPalette(chart);
    updateLegend(BarTab);
}

void ChartsView::rebuildRoofline()
{
    QChart* chart = m_rooflineView->chart();
    clearChart(chart);
    chart->setTitle(tr("Roofline"));
    auto* x = new QLogValueAxis;
    x->setBase(10);
    x->setLabelFormat(QStringLiteral("%g"));
    x->setTitleText(tr("arithmetic intensity (FLOP/byte)"));
    auto* y = new QLogValueAxis;
    y->setBase(10);
    y->setLabelFormat(QStringLiteral("%g"));
    y->setTitleText(tr("GFLOPS"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);

    double iLo = 0, iHi = 0, gLo = 0, gHi = m_peak;
    for (auto& p : m_points) {
        if (p.gflops <= 0 || p.intensity <= 0) continue;
        iLo = iLo == 0 ? p.intensity : std::min(iLo, p.intensity);
        iHi = std::max(iHi, p.intensity);
        gLo = gLo == 0 ? p.gflops : std::min(gLo, p.gflops);
        gHi = std::max(gHi, p.gflops);
    }
    if (iLo == 0) {
        iLo = 1;
        iHi = 1000;
    }
    if (m_peak > 0 && m_bandwidth > 0) {
        double ridge = m_peak / m_bandwidth;
        iLo = std::min(iLo, ridge / 4);
        iHi = std::max(iHi, ridge * 4);
    }
    iLo /= 2;
    iHi *= 2;
    if (gLo == 0) gLo = 0.1;
    if (gHi == 0) gHi = 100;
    if (m_bandwidth > 0) gLo = std::min(gLo, m_bandwidth * iLo);
    x->setRange(iLo, iHi);
    y->setRange(gLo / 2, gHi * 2);

    if (m_peak > 0 || m_bandwidth > 0) {
        auto* roof = new QLineSeries;
        roof->setName(m_bandwidth > 0 && m_peak > 0
                          ? tr("roof: %1 GB/s, %2 GFLOPS")
                                .arg(formatNumber(m_bandwidth, 1), formatNumber(m_peak, 1))
                          : tr("roof"));
        QPen pen(palette().color(QPalette::Text));
        pen.setWidthF(1.5);
        roof->setPen(pen);
        const int steps = 64;
        for (int i = 0; i <= steps; ++i) {
            double in = iLo * std::pow(iHi / iLo, static_cast<double>(i) / steps);
            double g = m_peak > 0 ? m_peak : 1e300;
            if (m_bandwidth > 0) g = std::min(g, m_bandwidth * in);
            roof->append(in, g);
        }
        chart->addSeries(roof);
        roof->attachAxis(x);
        roof->attachAxis(y);
    }
    for (const QString& variant : m_variants) {
        auto* s = new QScatterSeries;
        s->setName(isReference(variant) ? m_referenceLabel : variant);
        s->setColor(colorFor(variant));
        s->setBorderColor(colorFor(variant).darker(150));
        styleSeries(s, variant);
        s->setVisible(!m_hidden.contains(variant));
        for (auto& p : m_points)
            if (p.variant == variant && p.gflops > 0 && p.intensity > 0)
                s->append(p.intensity, p.gflops);
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        connect(s, &QXYSeries::hovered, this, [this, variant](const QPointF& at, bool state) {
            showTooltip(variant, at, state, RooflineTab);
        });
    }
    applyPalette(chart);
    updateLegend(RooflineTab);
}

void ChartsView::showTooltip(const QString& variant, const QPointF& at, bool state, Tab tab)
{
    if (!state) {
        showText(QString());
        return;
    }
    // The measured point of this variant nearest to where the pointer is.
    const ChartPoint* best = nullptr;
    double bestDistance = 0;
    for (auto& p : m_points) {
        if (p.variant != variant || p.gflops <= 0) continue;
        const double px = tab == LineTab ? static_cast<double>(p.size) : p.intensity;
        const double py = p.gflops;
        if (px <= 0 || at.x() <= 0 || at.y() <= 0) continue;
        // Both axes are logarithmic on the roofline; by size, only x is.
        const double dx = std::log(px / at.x());
        const double dy = tab == RooflineTab ? std::log(py / at.y()) : 0;
        const double d = dx * dx + dy * dy;
        if (!best || d < bestDistance) {
            best = &p;
            bestDistance = d;
        }
    }
    if (!best) return;
    const QString name = isReference(variant) ? m_referenceLabel : variant;
    QString text = tr("%1\n%2\n%3 ms (%4 to %5)\n%6 GFLOPS")
                       .arg(name, sizeText(best->size), formatNumber(best->msMedian, 3),
                            formatNumber(best->msMin, 3), formatNumber(best->msMax, 3),
                            formatNumber(best->gflops, 2));
    if (tab == RooflineTab) text += tr("\n%1 FLOP/byte").arg(formatNumber(best->intensity, 1));
    if (best->cached) text += tr("\n(measured by an earlier sweep)");
    showText(text);
}

void ChartsView::showText(const QString& text)
{
    m_hoverText = text;
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(QCursor::pos(), text, this);
}

void ChartsView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) rebuild();
}

QRectF ChartsView::chartRect(Tab tab) const
{
    return QRectF(QPointF(0, 0), view(tab)->chart()->size());
}

QRectF ChartsView::plotArea(Tab tab) const
{
    return view(tab)->chart()->plotArea();
}

} // namespace loopscope
