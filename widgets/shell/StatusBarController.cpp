#include "shell/StatusBarController.h"

#include "lower/Footprint.h"
#include "shell/RunController.h"

#include <QLabel>
#include <QMainWindow>
#include <QProgressBar>
#include <QStatusBar>

namespace loopscope {

StatusBarController::StatusBarController(QMainWindow* window, RunController* runs)
    : QObject(window), m_runs(runs)
{
    QStatusBar* bar = window->statusBar();
    m_error = new QLabel(window);
    m_error->setObjectName(QStringLiteral("scriptErrorLabel"));
    m_error->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold"));
    m_error->setVisible(false);
    bar->addPermanentWidget(m_error, 1);
    m_timing = new QLabel(window);
    m_compile = new QLabel(window);
    m_target = new QLabel(window);
    m_target->setObjectName(QStringLiteral("cpuLabel"));
    m_progress = new QProgressBar(window);
    m_progress->setMaximumWidth(180);
    m_progress->setRange(0, 100);
    m_progress->setTextVisible(true);
    m_progress->setVisible(false);
    bar->addWidget(m_timing);
    bar->addWidget(m_compile);
    bar->addPermanentWidget(m_progress);
    auto* caches = new QLabel(window);
    caches->setObjectName(QStringLiteral("cacheSizesLabel"));
    const HostCaches& host = hostCacheInfo();
    caches->setText(QString::fromStdString(cacheSummary(host.levels)));
    caches->setToolTip(
        host.levels.empty()
            ? tr("This machine lists no cache sizes (neither in /sys nor through CPUID), so the "
                 "loop nest shows no footprint notes")
            : tr("This machine's caches, read from %1, which the loop nest's footprints are "
                 "measured against (a loop whose working set outgrows one is marked)")
                  .arg(host.source == "sysfs" ? tr("/sys/devices/system/cpu")
                                              : QString::fromStdString(host.source)));
    bar->addPermanentWidget(caches);
    bar->addPermanentWidget(m_target);

    connect(runs, &RunController::busyChanged, m_progress, &QProgressBar::setVisible);
    connect(runs, &RunController::progress, this, [this](const QString& phase, double fraction) {
        m_progress->setFormat(phase + QStringLiteral(" %p%"));
        m_progress->setValue(static_cast<int>(fraction * 100));
    });
    connect(runs, &RunController::statusMessage, bar, &QStatusBar::showMessage);
    connect(runs, &RunController::workerDescribed, this, [this](const QString& cpu, int threads) {
        // Both names where LLVM does not know the CPU and code is generated for the nearest.
        const protocol::PingReply& m = m_runs->machine();
        const QString llvmCpu = QString::fromStdString(m.llvmCpu);
        const bool mapped = !llvmCpu.isEmpty() && llvmCpu != cpu;
        const QString count = threads == 1 ? tr("1 thread") : tr("%1 threads").arg(threads);
        m_target->setText(mapped ? tr("CPU %1 (LLVM: %2) · %3").arg(cpu, llvmCpu, count)
                                 : tr("CPU %1 · %2").arg(cpu, count));
        m_target->setToolTip(m.cpuNote.empty()
                                 ? tr("The CPU model code is generated for, as LLVM %1 names it")
                                       .arg(QString::fromStdString(m.machine.llvm))
                                 : QString::fromStdString(m.cpuNote));
    });
    connect(runs, &RunController::workerRefused, this, [this](const QString& message) {
        m_target->setText(tr("Worker of another build"));
        m_target->setToolTip(message);
    });
    connect(runs, &RunController::compiled, this,
            [this](double ms) { m_compile->setText(tr("compile %1 ms").arg(ms, 0, 'f', 0)); });
}

void StatusBarController::showScriptError(const QString& error)
{
    m_error->setText(error.isEmpty() ? QString()
                                     : tr("Error at %1 — showing the last good state").arg(error));
    m_error->setVisible(!error.isEmpty());
}

void StatusBarController::showAnalysisTimes(double evaluateMs, double lowerMs)
{
    m_timing->setText(
        tr("evaluate %1 ms · lower %2 ms").arg(evaluateMs, 0, 'f', 1).arg(lowerMs, 0, 'f', 1));
}

} // namespace loopscope
