#include "tune/TuneChart.h"

#include <QLabel>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>

namespace loopscope {

namespace {

// Okabe–Ito: blue for the measured candidates, vermillion for failures, bluish green for the
// best; the flat lines in the text colour.
const QColor kMeasured(0x00, 0x72, 0xB2);
const QColor kFailed(0xD5, 0x5E, 0x00);
const QColor kBest(0x00, 0x9E, 0x73);

} // namespace

TuneChart::TuneChart(QWidget* parent) : QWidget(parent)
{
    auto* chart = new QChart;
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setVisible(false); // the label below names every line in full
    m_view = new QChartView(chart, this);
    m_view->setObjectName(QStringLiteral("tuneChart"));
    m_view->setRenderHint(QPainter::Antialiasing);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("tuneLegend"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    layout->addWidget(m_legend);

    m_measured = new QScatterSeries;
    m_measured->setName(tr("measured"));
    m_measured->setMarkerSize(7);
    m_measured->setColor(kMeasured);
    m_measured->setBorderColor(kMeasured.darker(130));
    m_failed = new QScatterSeries;
    m_failed->setName(tr("failed"));
    m_failed->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_failed->setMarkerSize(7);
    m_failed->setColor(kFailed);
    m_failed->setBorderColor(kFailed.darker(130));
    m_bestLine = new QLineSeries;
    m_bestLine->setName(tr("best so far"));
    QPen bestPen(kBest);
    bestPen.setWidthF(2.5);
    m_bestLine->setPen(bestPen);
    m_referenceLine = new QLineSeries;
    m_peakLine = new QLineSeries;
    m_handLine = new QLineSeries;
    for (QLineSeries* s : {m_referenceLine, m_peakLine, m_handLine}) {
        QPen pen(s == m_handLine ? QColor(0xCC, 0x79, 0xA7) : palette().color(QPalette::Text));
        pen.setStyle(s == m_peakLine   ? Qt::DotLine
                     : s == m_handLine ? Qt::DashDotLine
                                       : Qt::DashLine);
        pen.setWidthF(1.5);
        s->setPen(pen);
    }
    m_x = new QValueAxis;
    m_x->setTitleText(tr("trial"));
    m_x->setLabelFormat(QStringLiteral("%d"));
    m_y = new QValueAxis;
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*>{
             m_peakLine, m_referenceLine, m_handLine, m_bestLine, m_measured, m_failed}) {
        chart->addSeries(s);
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    begin(0);
}

void TuneChart::begin(int planned, bool gflops)
{
    m_planned = planned;
    m_gflops = gflops;
    m_trials = m_failedCount = m_bestTrial = 0;
    m_best = m_top = 0;
    m_measured->clear();
    m_failed->clear();
    m_bestLine->clear();
    m_y->setTitleText(gflops ? tr("GFLOPS") : tr("runs per second"));
    updateFlatLines();
    updateAxes();
}

void TuneChart::addTrial(int trial, double speed, bool ok)
{
    m_trials = std::max(m_trials, trial);
    if (!ok || speed <= 0) {
        ++m_failedCount;
        m_failed->append(trial, 0);
    } else {
        m_measured->append(trial, speed);
        m_top = std::max(m_top, speed);
        if (speed > m_best) {
            m_best = speed;
            m_bestTrial = trial;
        }
    }
    // The best so far as steps: flat until the next improvement.
    if (m_best > 0) {
        if (m_bestLine->count() == 0) {
            m_bestLine->append(trial, m_best);
        } else {
            const QPointF last = m_bestLine->at(m_bestLine->count() - 1);
            if (m_best > last.y()) m_bestLine->append(trial, last.y());
            m_bestLine->append(trial, m_best);
        }
    }
    updateFlatLines();
    updateAxes();
}

void TuneChart::setReference(const QString& name, double speed)
{
    m_reference = name.isEmpty() ? 0 : speed;
    m_referenceLine->setName(name);
    m_referenceName = name;
    updateFlatLines();
    updateAxes();
}

void TuneChart::setHand(const QString& name, double speed)
{
    m_hand = name.isEmpty() ? 0 : speed;
    m_handLine->setName(tr("fastest variant: %1").arg(name));
    m_handName = name;
    updateFlatLines();
    updateAxes();
}

void TuneChart::setPeak(double gflops)
{
    m_peak = gflops;
    updateFlatLines();
    updateAxes();
}

QString TuneChart::summary() const
{
    QString s = tr("%1 measured, %2 failed").arg(m_trials - m_failedCount).arg(m_failedCount);
    if (m_best > 0)
        s += tr(", best %1 at trial %2").arg(QString::number(m_best, 'f', 1)).arg(m_bestTrial);
    return s;
}

QString TuneChart::legendText() const
{
    return m_legend->text();
}

void TuneChart::updateLegend()
{
    auto swatch = [](const QColor& c, const QString& glyph, const QString& name) {
        return QStringLiteral("<span style=\"color:%1\">%2</span>&nbsp;%3")
            .arg(c.name(), glyph, name.toHtmlEscaped());
    };
    const QColor text = palette().color(QPalette::Text);
    QStringList items{swatch(kMeasured, QStringLiteral("●"), tr("measured")),
                      swatch(kFailed, QStringLiteral("■"), tr("failed")),
                      swatch(kBest, QStringLiteral("━"), tr("best so far"))};
    const int digits = m_gflops ? 0 : 2;
    if (m_reference > 0)
        items << swatch(
            text, QStringLiteral("╌"),
            QStringLiteral("%1 (%2)").arg(m_referenceName).arg(m_reference, 0, 'f', digits));
    if (m_hand > 0)
        items << swatch(QColor(0xCC, 0x79, 0xA7), QStringLiteral("─·"),
                        tr("fastest variant: %1 (%2)").arg(m_handName).arg(m_hand, 0, 'f', digits));
    if (m_gflops && m_peak > 0)
        items << swatch(text, QStringLiteral("┈"), tr("peak (%1)").arg(m_peak, 0, 'f', 0));
    m_legend->setText(items.join(QStringLiteral(" &nbsp; ")));
}

void TuneChart::updateFlatLines()
{
    const double right = std::max<double>({1.0, double(m_planned), double(m_trials)});
    auto flat = [&](QLineSeries* s, double y, bool shown) {
        s->clear();
        if (shown) {
            s->append(0, y);
            s->append(right, y);
        }
    };
    flat(m_referenceLine, m_reference, m_reference > 0);
    flat(m_handLine, m_hand, m_hand > 0);
    updateLegend();
    m_peakLine->setName(tr("peak %1").arg(QString::number(m_peak, 'f', 0)));
    flat(m_peakLine, m_peak, m_gflops && m_peak > 0);
}

void TuneChart::updateAxes()
{
    const double right = std::max<double>({1.0, double(m_planned), double(m_trials)});
    m_x->setRange(0, right);
    double top = std::max({m_top, m_reference, m_hand, m_gflops ? m_peak : 0.0, 1.0});
    // A round upper bound a little above the highest line.
    const double magnitude = std::pow(10.0, std::floor(std::log10(top)));
    top = std::ceil(top * 1.08 / magnitude * 2) / 2 * magnitude;
    m_y->setRange(0, top);
}

} // namespace loopscope
