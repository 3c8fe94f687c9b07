#include "shell/ProfileController.h"

#include "editor/EditorPane.h"
#include "shell/CodeViewController.h"
#include "shell/MainWindow.h"
#include "shell/RunController.h"
#include "views/CodeView.h"
#include "views/LoopNestView.h"

#include <QAction>
#include <QSettings>
#include <QStatusBar>

#include <algorithm>

namespace loopscope {

ProfileController::ProfileController(MainWindow* window, RunController* runs,
                                     LoopNestView* loopNest, CodeViewController* code)
    : QObject(window), m_window(window), m_runs(runs), m_loopNest(loopNest), m_code(code)
{
    m_profileRuns = new QAction(tr("&Profile Runs"), window);
    m_profileRuns->setObjectName(QStringLiteral("profileRunsAction"));
    m_profileRuns->setCheckable(true);
    m_profileRuns->setToolTip(
        tr("Each step the ladder measures is also sampled by the CPU clock for half a second: its "
           "loop nest shows each line's and loop's share of the time, the assembly each "
           "instruction's"));
    connect(m_profileRuns, &QAction::toggled, this, [this](bool on) {
        m_runs->setProfiling(on);
        QSettings().setValue(QStringLiteral("run/profile"), on);
    });
    m_profileRuns->setChecked(QSettings().value(QStringLiteral("run/profile"), false).toBool());
    code->setAssemblyProfiled([this] { return shownProfile() != nullptr; });
    connect(runs, &RunController::profileReady, this, [this](const QString&) { showProfile(); });
}

void ProfileController::setProfiling(bool on)
{
    m_profileRuns->setChecked(on);
}

bool ProfileController::profiling() const
{
    return m_profileRuns->isChecked();
}

void ProfileController::profileStep()
{
    if (!m_window->scriptError().isEmpty()) {
        m_window->statusBar()->showMessage(
            tr("Cannot profile: the script has an error at %1").arg(m_window->scriptError()), 8000);
        return;
    }
    const VariantView* v = m_window->shownVariant();
    if (!v || v->steps.empty()) return;
    const int step = std::clamp(m_window->currentStep(), 0, static_cast<int>(v->steps.size()) - 1);
    m_runs->profileStep(m_window->editor()->text(), *v, step);
}

const protocol::StepProfile* ProfileController::shownProfile() const
{
    const VariantView* v = m_window->shownVariant();
    if (!v || v->steps.empty()) return nullptr;
    const int step = std::clamp(m_window->currentStep(), 0, static_cast<int>(v->steps.size()) - 1);
    const protocol::StepProfile* p = m_runs->profileOf(m_window->stepKey(*v, step));
    // A profile is of the printing it numbers: the step's, as shown (a TensorIR variant's
    // compiled form, its other printing).
    const StepView& s = v->steps[std::size_t(step)];
    if (!p || (p->tir != s.tir && !(v->tensorIR && p->tir == s.structured))) return nullptr;
    return p;
}

void ProfileController::showProfile()
{
    const protocol::StepProfile* p = shownProfile();
    CodeView* assembly = m_code->assemblyView();
    if (!p) {
        m_loopNest->setHeat({});
        if (assembly->showsProfile()) {
            assembly->clear();
            m_code->request();
        }
        return;
    }
    LineHeat heat;
    heat.tir = QString::fromStdString(p->tir);
    heat.line = QVector<double>(p->lineShare.begin(), p->lineShare.end());
    heat.loop = QVector<double>(p->loopShare.begin(), p->loopShare.end());
    m_loopNest->setHeat(heat);
    QList<CodeView::AsmRow> rows;
    const double inKernel = std::max<qint64>(1, p->inKernel);
    for (const protocol::StepProfile::Instruction& i : p->instructions)
        rows.append({QStringLiteral("%1:\t%2")
                         .arg(i.offset, 6, 16, QLatin1Char('0'))
                         .arg(QString::fromStdString(i.text).trimmed()),
                     i.line, double(i.samples) / inKernel});
    assembly->setAssemblyRows(rows);
    assembly->setCaption(
        tr("Profiled kernel · %1 samples on %2, %3 % in the kernel · %4")
            .arg(p->samples)
            .arg(p->threads == 1 ? tr("1 thread") : tr("%1 threads").arg(p->threads))
            .arg(p->samples > 0 ? 100.0 * double(p->inKernel) / double(p->samples) : 0.0, 0, 'f', 0)
            .arg(p->counters ? tr("IPC %1").arg(p->ipc, 0, 'f', 2) : tr("no hardware counters")));
}

} // namespace loopscope
