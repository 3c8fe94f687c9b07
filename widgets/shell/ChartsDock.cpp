#include "shell/ChartsDock.h"

#include "charts/ChartsView.h"
#include "charts/SweepPanel.h"

#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace loopscope {

namespace {

// A point as the charts show it; the size is the first swept value.
ChartPoint chartPoint(const worker::SweepPoint& point)
{
    ChartPoint p;
    p.variant = point.variant;
    p.size = point.values.isEmpty() ? 0 : point.values.first();
    if (point.timing) {
        p.msMedian = point.timing->msMedian;
        p.msMin = point.timing->msMin;
        p.msMax = point.timing->msMax;
        p.gflops = point.timing->gflops;
    }
    p.intensity = point.intensity;
    p.skipped = point.skipped;
    p.failed = point.failed;
    p.checked = point.checked;
    p.reference = point.reference;
    p.cached = point.cached;
    p.message = point.message;
    return p;
}

} // namespace

ChartsDock::ChartsDock(QWidget* parent) : QDockWidget(tr("Charts"), parent)
{
    setObjectName(QStringLiteral("ChartsDock"));
    auto* box = new QWidget(this);
    m_panel = new SweepPanel(box);
    m_charts = new ChartsView(box);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_panel);
    layout->addWidget(m_charts, 1);
    setWidget(box);

    QSettings s;
    const double peak = s.value(QStringLiteral("machine/peakGflops")).toDouble();
    const double bandwidth = s.value(QStringLiteral("machine/bandwidthGBs")).toDouble();
    m_charts->setPeakGflops(peak);
    m_charts->setBandwidthGbs(bandwidth);
    // Figures the view cannot use (edited by hand, of the wrong kind) are measured again.
    m_machineKnown = m_charts->peakGflops() > 0 && m_charts->bandwidthGbs() > 0;
    connect(this, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && !m_machineKnown) emit machineWanted();
    });
}

ChartsDock::~ChartsDock() = default;

worker::SweepRequest ChartsDock::sweepRequest(const QString& script) const
{
    worker::SweepRequest r;
    r.script = script;
    r.parameters = m_panel->parameters();
    r.values = m_panel->values();
    r.variants = m_panel->variants();
    r.maxPointSeconds = m_panel->pointLimitSeconds();
    r.blas = m_panel->reference();
    // The whole sweep: at least 20 minutes, more when every point may take its full limit.
    const qint64 points = m_panel->pointTotal() + (m_panel->reference() ? r.values.size() : 0);
    const qint64 worst = points * (m_panel->pointLimitSeconds() * 4 + 10) * 1000;
    r.timeLimitMs = static_cast<int>(
        qBound<qint64>(qint64{20 * 60 * 1000}, worst, qint64{std::numeric_limits<int>::max()}));
    return r;
}

void ChartsDock::beginSweep(const QStringList& parameters)
{
    m_charts->clear();
    m_charts->setSizeLabel(parameters);
    m_panel->setRunning(true);
    // The lines grow as points arrive, in view.
    show();
    raise();
}

void ChartsDock::showProgress(const worker::SweepProgress& progress)
{
    if (progress.point) m_charts->addPoint(chartPoint(*progress.point));
    m_panel->setProgress(progress.done, progress.total);
}

void ChartsDock::showResult(const worker::SweepResult& result)
{
    if (!result.blas.isEmpty()) m_charts->setReferenceLabel(result.blas);
    for (const worker::SweepPoint& p : result.points)
        m_charts->addPoint(chartPoint(p));
}

void ChartsDock::endSweep()
{
    m_panel->setRunning(false);
}

void ChartsDock::showKnown(const QJsonArray& points, const QStringList& parameters)
{
    if (m_panel->isRunning()) return;
    // One point per variant and size: the newest (the store lists the oldest first).
    QList<ChartPoint> shown;
    for (const QJsonValue& v : points) {
        ChartPoint p = chartPointFromJson(v.toObject());
        p.cached = true;
        auto same = [&](const ChartPoint& q) { return q.variant == p.variant && q.size == p.size; };
        auto it = std::find_if(shown.begin(), shown.end(), same);
        if (it != shown.end())
            *it = p;
        else
            shown.append(p);
    }
    m_charts->setSizeLabel(parameters);
    m_charts->setPoints(shown);
}

void ChartsDock::setMachine(const worker::MachineResult& machine)
{
    QSettings s;
    s.setValue(QStringLiteral("machine/peakGflops"), machine.peakGflops);
    s.setValue(QStringLiteral("machine/bandwidthGBs"), machine.bandwidthGbs);
    m_machineKnown = true;
    m_charts->setPeakGflops(machine.peakGflops);
    m_charts->setBandwidthGbs(machine.bandwidthGbs);
}

} // namespace loopscope
