#include "charts/ChartsView.h"

#include <QJsonArray>
#include <QJsonObject>

#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>

#include <QComboBox>
#include <QCursor>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTabWidget>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace loopscope {

ChartPoint chartPointFromJson(const QJsonObject& o)
{
    ChartPoint p;
    p.variant = o.value(QLatin1String("variant")).toString();
    const QJsonArray values = o.value(QLatin1String("values")).toArray();
    p.size = values.isEmpty() ? 0 : values.first().toInteger();
    p.msMedian = o.value(QLatin1String("ms_median")).toDouble();
    p.msMin = o.value(QLatin1String("ms_min")).toDouble();
    p.msMax = o.value(QLatin1String("ms_max")).toDouble();
    p.gflops = o.value(QLatin1String("gflops")).toDouble();
    p.intensity = o.value(QLatin1String("intensity")).toDouble();
    p.skipped = o.value(QLatin1String("skipped")).toBool();
    p.failed = o.value(QLatin1String("failed")).toBool();
    p.checked = o.value(QLatin1String("checked")).toBool();
    p.reference = o.value(QLatin1String("reference")).toBool();
    p.cached = o.value(QLatin1String("cached")).toBool();
    p.message = o.value(QLatin1String("message")).toString();
    return p;
}

namespace {

QString formatNumber(double v, int digits)
{
    return QString::number(v, 'f', digits);
}

bool isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

QChartView* makeView(QWidget* parent)
{
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignRight);
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
    m_peak = gflops;
    rebuild();
}

void ChartsView::setBandwidthGbs(double gbs)
{
    m_bandwidth = gbs;
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
    const QString shown = variant == QLatin1String("OpenBLAS") ? m_referenceLabel : variant;
    for (Tab tab : {LineTab, RooflineTab}) {
        if (QAbstractSeries* s = findSeries(tab, shown)) {
            s->setVisible(!m_hidden.contains(variant));
            for (QLegendMarker* m : view(tab)->chart()->legend()->markers(s)) {
                m->setVisible(true);
                QFont f = m->font();
                f.setStrikeOut(m_hidden.contains(variant));
                m->setFont(f);
            }
        }
    }
}

QColor ChartsView::colorFor(const QString& variant) const
{
    const bool dark = isDark(palette());
    if (variant == QLatin1String("OpenBLAS")) return palette().color(QPalette::Text);
    int index = static_cast<int>(m_variants.indexOf(variant));
    int nonReference = 0;
    for (int i = 0; i < index; ++i)
        if (m_variants[i] != QLatin1String("OpenBLAS")) ++nonReference;
    int hue = (nonReference * 360 / 7 + 210) % 360; // spread around the wheel from blue
    return QColor::fromHsv(hue, dark ? 150 : 210, dark ? 245 : 190);
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

void ChartsView::connectLegend(QChart* chart)
{
    for (QLegendMarker* marker : chart->legend()->markers()) {
        QAbstractSeries* s = marker->series();
        if (!s || s->name().isEmpty()) continue;
        const QString name = s->name() == m_referenceLabel ? QStringLiteral("OpenBLAS") : s->name();
        if (!m_variants.contains(name)) continue; // the peak and roof lines stay
        if (m_hidden.contains(name)) {
            s->setVisible(false);
            marker->setVisible(true);
            QFont f = marker->font();
            f.setStrikeOut(true);
            marker->setFont(f);
        }
        connect(marker, &QLegendMarker::clicked, this, [this, name] { toggleSeries(name); });
    }
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
        s->setName(variant == QLatin1String("OpenBLAS") ? m_referenceLabel : variant);
        s->setPointsVisible(true);
        QPen pen(colorFor(variant));
        pen.setWidthF(2);
        if (variant == QLatin1String("OpenBLAS")) pen.setStyle(Qt::DashLine);
        s->setPen(pen);
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
    connectLegend(chart);
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
    for (const QString& variant : m_variants) {
        for (auto& p : m_points) {
            if (p.variant != variant || p.size != shown || p.gflops <= 0) continue;
            categories.append(variant == QLatin1String("OpenBLAS") ? m_referenceLabel : variant);
            set->append(p.gflops);
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
    chart->legend()->setVisible(false);
    connect(series, &QBarSeries::hovered, this, [this, categories, set](bool state, int index) {
        if (!state || index < 0 || index >= categories.size()) {
            QToolTip::hideText();
            return;
        }
        QToolTip::showText(
            QCursor::pos(),
            tr("%1: %2 GFLOPS").arg(categories[index], formatNumber(set->at(index), 2)), this);
    });
    applyPalette(chart);
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
        s->setName(variant == QLatin1String("OpenBLAS") ? m_referenceLabel : variant);
        s->setMarkerSize(9);
        s->setColor(colorFor(variant));
        s->setBorderColor(colorFor(variant));
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
    connectLegend(chart);
}

void ChartsView::showTooltip(const QString& variant, const QPointF& at, bool state, Tab tab)
{
    if (!state) {
        QToolTip::hideText();
        return;
    }
    // The measured point of this variant nearest to where the pointer is.
    const ChartPoint* best = nullptr;
    double bestDistance = 0;
    for (auto& p : m_points) {
        if (p.variant != variant || p.gflops <= 0) continue;
        double px = tab == LineTab ? static_cast<double>(p.size) : p.intensity;
        if (px <= 0 || at.x() <= 0) continue;
        double d = std::abs(std::log(px / at.x()));
        if (!best || d < bestDistance) {
            best = &p;
            bestDistance = d;
        }
    }
    if (!best) return;
    QString name = variant == QLatin1String("OpenBLAS") ? m_referenceLabel : variant;
    QString text = tr("%1\nsize %2\n%3 ms (%4 to %5)\n%6 GFLOPS\n%7 FLOP/byte")
                       .arg(name, QString::number(best->size), formatNumber(best->msMedian, 3),
                            formatNumber(best->msMin, 3), formatNumber(best->msMax, 3),
                            formatNumber(best->gflops, 2), formatNumber(best->intensity, 1));
    if (best->cached) text += tr("\n(measured by an earlier sweep)");
    QToolTip::showText(QCursor::pos(), text, this);
}

void ChartsView::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) rebuild();
}

QString ChartsView::csv() const
{
    auto field = [](const QString& s) -> QString {
        if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) &&
            !s.contains(QLatin1Char('\n')))
            return s;
        QString q = s;
        q.replace(QStringLiteral("\""), QStringLiteral("\"\""));
        return QStringLiteral("\"") + q + QStringLiteral("\"");
    };
    QStringList params =
        m_parameters.isEmpty() ? QStringList{QStringLiteral("size")} : m_parameters;
    QString out = QStringLiteral("variant,") + params.join(QLatin1Char(',')) +
                  QStringLiteral(",ms_median,ms_min,ms_max,gflops,intensity,checked,skipped\n");
    for (auto& p : m_points) {
        out += field(p.variant);
        for (int i = 0; i < params.size(); ++i)
            out += QLatin1Char(',') + QString::number(p.size);
        if (p.gflops > 0)
            out += QLatin1Char(',') + QString::number(p.msMedian, 'g', 6) + QLatin1Char(',') +
                   QString::number(p.msMin, 'g', 6) + QLatin1Char(',') +
                   QString::number(p.msMax, 'g', 6) + QLatin1Char(',') +
                   QString::number(p.gflops, 'g', 6);
        else
            out += QStringLiteral(",,,,");
        out += QLatin1Char(',') + QString::number(p.intensity, 'g', 6);
        out += p.checked ? QStringLiteral(",true") : QStringLiteral(",false");
        out += p.skipped ? QStringLiteral(",true\n") : QStringLiteral(",false\n");
    }
    return out;
}

bool ChartsView::exportPng(const QString& path, Tab tab) const
{
    QChartView* v = view(tab);
    QSize size = v->size().expandedTo(QSize(800, 500));
    QImage image(size * 2, QImage::Format_ARGB32);
    image.setDevicePixelRatio(2);
    image.fill(palette().color(QPalette::Base));
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    v->chart()->resize(size);
    v->render(&painter, QRectF(QPointF(0, 0), size), QRect(QPoint(0, 0), v->size()));
    painter.end();
    return image.save(path, "PNG");
}

bool ChartsView::exportSvg(const QString& path, Tab tab) const
{
    QChartView* v = view(tab);
    QSize size = v->size().expandedTo(QSize(800, 500));
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(v->chart()->title());
    QPainter painter;
    if (!painter.begin(&generator)) return false;
    v->render(&painter, QRectF(QPointF(0, 0), size), QRect(QPoint(0, 0), v->size()));
    painter.end();
    QFile f(path);
    return f.exists() && f.size() > 0;
}

bool ChartsView::exportCsv(const QString& path) const
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
    f.write(csv().toUtf8());
    return f.commit();
}

void ChartsView::showContextMenu(const QPoint& pos)
{
    auto* source = qobject_cast<QWidget*>(sender());
    Tab tab = source == m_barView ? BarTab : source == m_rooflineView ? RooflineTab : LineTab;
    QMenu menu(this);
    QAction* png = menu.addAction(tr("Export chart as PNG…"));
    QAction* svg = menu.addAction(tr("Export chart as SVG…"));
    QAction* csvAction = menu.addAction(tr("Export data as CSV…"));
    QAction* chosen = menu.exec(source ? source->mapToGlobal(pos) : QCursor::pos());
    if (!chosen) return;
    if (chosen == png) {
        QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), QString(),
                                                    tr("PNG image (*.png)"));
        if (!path.isEmpty()) exportPng(path, tab);
    } else if (chosen == svg) {
        QString path = QFileDialog::getSaveFileName(this, tr("Export chart"), QString(),
                                                    tr("SVG image (*.svg)"));
        if (!path.isEmpty()) exportSvg(path, tab);
    } else if (chosen == csvAction) {
        QString path =
            QFileDialog::getSaveFileName(this, tr("Export data"), QString(), tr("CSV (*.csv)"));
        if (!path.isEmpty()) exportCsv(path);
    }
}

} // namespace loopscope
