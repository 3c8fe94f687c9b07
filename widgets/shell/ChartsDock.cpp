#include "shell/ChartsDock.h"

#include "charts/ChartsView.h"
#include "charts/SweepPanel.h"
#include "charts/SweepStore.h"
#include "shell/AnalysisService.h"
#include "shell/RunController.h"

#include <QSettings>
#include <QVBoxLayout>

#include <algorithm>
#include <limits>

namespace loopscope {

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

protocol::SweepRequest ChartsDock::sweepRequest(const QString& script) const
{
    return m_panel->sweepRequest(script);
}

int ChartsDock::sweepTimeLimitMs() const
{
    // The whole sweep: at least 20 minutes, more when every point may take its full limit.
    const qint64 points =
        m_panel->pointTotal() + (m_panel->reference() ? m_panel->values().size() : 0);
    const qint64 worst = points * (m_panel->pointLimitSeconds() * 4 + 10) * 1000;
    return static_cast<int>(
        qBound<qint64>(qint64{20 * 60 * 1000}, worst, qint64{std::numeric_limits<int>::max()}));
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

void ChartsDock::showProgress(const protocol::SweepUpdate& progress)
{
    if (progress.point) m_charts->addPoint(chartPointOf(*progress.point));
    m_panel->setProgress(progress.done, progress.total);
}

void ChartsDock::showResult(const protocol::SweepReply& result)
{
    if (!result.blas.empty()) m_charts->setReferenceLabel(QString::fromStdString(result.blas));
    for (const protocol::SweepPoint& p : result.points)
        m_charts->addPoint(chartPointOf(p));
}

void ChartsDock::endSweep()
{
    m_panel->setRunning(false);
}

void ChartsDock::showKnown(const std::vector<protocol::SweepPoint>& points,
                           const QStringList& parameters)
{
    if (m_panel->isRunning()) return;
    // One point per variant and size: the newest (the store lists the oldest first).
    QList<ChartPoint> shown;
    for (const protocol::SweepPoint& point : points) {
        ChartPoint p = chartPointOf(point);
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

void ChartsDock::setMachine(const protocol::MachineReply& machine)
{
    QSettings s;
    s.setValue(QStringLiteral("machine/peakGflops"), machine.peakGflops);
    s.setValue(QStringLiteral("machine/bandwidthGBs"), machine.bandwidthGbs);
    m_machineKnown = true;
    m_charts->setPeakGflops(machine.peakGflops);
    m_charts->setBandwidthGbs(machine.bandwidthGbs);
}

void ChartsDock::connectRuns(RunController* runs, AnalysisService* analysis,
                             std::function<QString()> script)
{
    connect(m_panel, &SweepPanel::startRequested, this,
            [this, runs, script] { runs->startSweep(sweepRequest(script()), sweepTimeLimitMs()); });
    connect(m_panel, &SweepPanel::cancelRequested, runs, &RunController::cancelSweep);
    connect(this, &ChartsDock::machineWanted, runs, &RunController::measureMachine);
    connect(runs, &RunController::sweepStarted, this, &ChartsDock::beginSweep);
    connect(runs, &RunController::sweepProgressed, this, &ChartsDock::showProgress);
    connect(runs, &RunController::sweepAnswered, this, &ChartsDock::showResult);
    connect(runs, &RunController::sweepFinished, this, &ChartsDock::endSweep);
    connect(runs, &RunController::machineMeasured, this, &ChartsDock::setMachine);
    // The points measured before for the text as it is (after the panel took the analysis).
    connect(analysis, &AnalysisService::analysisReady, this,
            [this, runs, script](ExplorationPtr result) {
                if (!result || !result->ok || runs->sweepRunning() ||
                    runs->sweepStore()->size() == 0)
                    return;
                const QStringList parameters = m_panel->parameters();
                showKnown(runs->sweepStore()->known(script(), parameters), parameters);
            });
}

} // namespace loopscope
