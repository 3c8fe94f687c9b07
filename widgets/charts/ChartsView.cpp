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
#include <QFileInfo>
#include <QGraphicsItem>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGraphicsSceneMouseEvent>
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
#include <functional>

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

constexpr double kPi = 3.14159265358979323846;

// The property a series carries with the variant it shows ("" for the peak and roof lines).
const char* const kVariantProperty = "loopscopeVariant";
const char* const kMarkerProperty = "loopscopeMarker";

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

    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override
    {
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        for (const Entry& e : entries) {
            QColor faded = e.hidden
                               ? QColor(textColor.red(), textColor.green(), textColor.blue(), 110)
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

    static constexpr double kSymbolWidth = 26;
    static constexpr double kMarkerSize = 9;
    static constexpr double kGap = 5;      // between the symbol and the name
    static constexpr double kSpacing = 14; // between two entries in a row

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* event) override
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
};

LegendItem* legendOf(const QChart* chart)
{
    for (QGraphicsItem* child : chart->childItems())
        if (auto* legend = dynamic_cast<LegendItem*>(child)) return legend;
    return nullptr;
}

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
    for (Tab tab : {LineTab, RooflineTab}) {
        for (QAbstractSeries* s : view(tab)->chart()->series())
            if (s->property(kVariantProperty).toString() == variant)
                s->setVisible(!m_hidden.contains(variant));
        updateLegend(tab);
    }
}

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

ChartsView::SeriesStyle ChartsView::styleOf(const QString& variant) const
{
    if (variant == QLatin1String("OpenBLAS"))
        return {palette().color(QPalette::Text), Marker::Star};
    const int index = static_cast<int>(m_variants.indexOf(variant));
    int n = 0; // the variant's place among the variants, OpenBLAS not counted
    for (int i = 0; i < index; ++i)
        if (m_variants[i] != QLatin1String("OpenBLAS")) ++n;
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

QString ChartsView::sizeText(qint64 size) const
{
    if (m_parameters.isEmpty()) return tr("size %1").arg(size);
    return m_parameters.join(QStringLiteral(" = ")) + QStringLiteral(" = ") + QString::number(size);
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
            categories.append(variant == QLatin1String("OpenBLAS") ? m_referenceLabel : variant);
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
                     .arg(p.variant == QLatin1String("OpenBLAS") ? m_referenceLabel : p.variant,
                          sizeText(p.size), formatNumber(p.msMedian, 3),
                          formatNumber(p.gflops, 2)));
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
        s->setName(variant == QLatin1String("OpenBLAS") ? m_referenceLabel : variant);
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
    const QString name = variant == QLatin1String("OpenBLAS") ? m_referenceLabel : variant;
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

QString ChartsView::withSuffix(const QString& path, const QString& suffix)
{
    if (path.isEmpty() || !QFileInfo(path).suffix().isEmpty()) return path;
    return path + u'.' + suffix;
}

QImage ChartsView::renderImage(Tab tab, QSize size, QList<LegendEntry>* legend, QRectF* plot) const
{
    QChartView* v = view(tab);
    QChart* chart = v->chart();
    if (size.isEmpty()) size = v->size().expandedTo(QSize(800, 500));
    const QSizeF before = chart->size();
    // Laid out for the picture's size, legend included, then back to the view's.
    chart->resize(size);
    if (chart->layout()) chart->layout()->activate();
    layoutLegend(tab);
    if (chart->layout()) chart->layout()->activate();
    if (legend) *legend = legendEntries(tab);
    if (plot) *plot = chart->plotArea();
    QImage image(size * 2, QImage::Format_ARGB32);
    image.setDevicePixelRatio(2);
    image.fill(palette().color(QPalette::Base));
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    v->scene()->render(&painter, QRectF(QPointF(0, 0), size),
                       QRectF(chart->scenePos(), QSizeF(size)));
    painter.end();
    chart->resize(before);
    if (chart->layout()) chart->layout()->activate();
    layoutLegend(tab);
    return image;
}

bool ChartsView::exportPng(const QString& path, Tab tab) const
{
    return renderImage(tab).save(withSuffix(path, QStringLiteral("png")), "PNG");
}

bool ChartsView::exportSvg(const QString& path, Tab tab) const
{
    const QString file = withSuffix(path, QStringLiteral("svg"));
    QChartView* v = view(tab);
    QChart* chart = v->chart();
    const QSize size = v->size().expandedTo(QSize(800, 500));
    const QSizeF before = chart->size();
    chart->resize(size);
    if (chart->layout()) chart->layout()->activate();
    layoutLegend(tab);
    if (chart->layout()) chart->layout()->activate();
    QSvgGenerator generator;
    generator.setFileName(file);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(chart->title());
    QPainter painter;
    bool ok = painter.begin(&generator);
    if (ok) {
        painter.fillRect(QRect(QPoint(0, 0), size), palette().color(QPalette::Base));
        v->scene()->render(&painter, QRectF(QPointF(0, 0), size),
                           QRectF(chart->scenePos(), QSizeF(size)));
        painter.end();
    }
    chart->resize(before);
    if (chart->layout()) chart->layout()->activate();
    layoutLegend(tab);
    QFile f(file);
    return ok && f.exists() && f.size() > 0;
}

bool ChartsView::exportCsv(const QString& path) const
{
    QSaveFile f(withSuffix(path, QStringLiteral("csv")));
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
    f.write(csv().toUtf8());
    return f.commit();
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

QRectF ChartsView::chartRect(Tab tab) const
{
    return QRectF(QPointF(0, 0), view(tab)->chart()->size());
}

QRectF ChartsView::plotArea(Tab tab) const
{
    return view(tab)->chart()->plotArea();
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
    auto savePath = [this](const QString& title, const QString& filter, const QString& suffix) {
        QFileDialog dialog(this, title, QString(), filter);
        dialog.setAcceptMode(QFileDialog::AcceptSave);
        dialog.setDefaultSuffix(suffix);
        return dialog.exec() == QDialog::Accepted && !dialog.selectedFiles().isEmpty()
                   ? dialog.selectedFiles().constFirst()
                   : QString();
    };
    // A name typed without a suffix gets the format's (the dialog's default, and withSuffix).
    if (chosen == png) {
        const QString path =
            savePath(tr("Export chart"), tr("PNG image (*.png)"), QStringLiteral("png"));
        if (!path.isEmpty()) exportPng(path, tab);
    } else if (chosen == svg) {
        const QString path =
            savePath(tr("Export chart"), tr("SVG image (*.svg)"), QStringLiteral("svg"));
        if (!path.isEmpty()) exportSvg(path, tab);
    } else if (chosen == csvAction) {
        const QString path = savePath(tr("Export data"), tr("CSV (*.csv)"), QStringLiteral("csv"));
        if (!path.isEmpty()) exportCsv(path);
    }
}

} // namespace loopscope
