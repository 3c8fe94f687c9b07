#include "shell/RunSettingsDialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>

namespace loopscope {

RunSettings RunSettings::load()
{
    QSettings s;
    RunSettings r;
    r.timeLimitMs = s.value(QStringLiteral("run/timeLimitMs"), r.timeLimitMs).toInt();
    r.repeat = s.value(QStringLiteral("run/repeat"), r.repeat).toInt();
    r.minRepeatMs = s.value(QStringLiteral("run/minRepeatMs"), r.minRepeatMs).toInt();
    r.threads = s.value(QStringLiteral("run/threads"), r.threads).toInt();
    r.maxUnrollCopies =
        s.value(QStringLiteral("limits/maxUnrollCopies"), r.maxUnrollCopies).toInt();
    r.maxReferenceSteps =
        s.value(QStringLiteral("limits/maxReferenceSteps"), r.maxReferenceSteps).toInt();
    r.runnerCommand = s.value(QStringLiteral("runners/command")).toString().trimmed();
    r.runners = s.value(QStringLiteral("runners/count"), r.runners).toInt();
    r.gpuRunnerCommand = s.value(QStringLiteral("runners/gpuCommand")).toString().trimmed();
    // A value the settings file should not hold (edited by hand, cut short) counts as unset.
    const RunSettings defaults;
    if (r.timeLimitMs < 1000) r.timeLimitMs = defaults.timeLimitMs;
    if (r.repeat < 1) r.repeat = defaults.repeat;
    if (r.minRepeatMs < 0) r.minRepeatMs = defaults.minRepeatMs;
    if (r.threads < 0) r.threads = defaults.threads;
    if (r.maxUnrollCopies < 1) r.maxUnrollCopies = defaults.maxUnrollCopies;
    if (r.maxReferenceSteps < 1) r.maxReferenceSteps = defaults.maxReferenceSteps;
    if (r.runners < 1 || r.runners > 4096) r.runners = defaults.runners;
    return r;
}

void RunSettings::save() const
{
    QSettings s;
    s.setValue(QStringLiteral("run/timeLimitMs"), timeLimitMs);
    s.setValue(QStringLiteral("run/repeat"), repeat);
    s.setValue(QStringLiteral("run/minRepeatMs"), minRepeatMs);
    s.setValue(QStringLiteral("run/threads"), threads);
    s.setValue(QStringLiteral("limits/maxUnrollCopies"), maxUnrollCopies);
    s.setValue(QStringLiteral("limits/maxReferenceSteps"), maxReferenceSteps);
    s.setValue(QStringLiteral("runners/command"), runnerCommand);
    s.setValue(QStringLiteral("runners/count"), runners);
    s.setValue(QStringLiteral("runners/gpuCommand"), gpuRunnerCommand);
}

RunSettingsDialog::RunSettingsDialog(const RunSettings& settings, QWidget* parent)
    : QDialog(parent), m_settings(settings)
{
    setWindowTitle(tr("Run Settings"));
    auto* form = new QFormLayout(this);
    m_limit = new QSpinBox(this);
    m_limit->setRange(1, 3600);
    m_limit->setSuffix(tr(" s"));
    m_limit->setValue(settings.timeLimitMs / 1000);
    m_repeat = new QSpinBox(this);
    m_repeat->setRange(1, 100);
    m_repeat->setValue(settings.repeat);
    m_minRepeatMs = new QSpinBox(this);
    m_minRepeatMs->setRange(0, 10000);
    m_minRepeatMs->setSuffix(tr(" ms"));
    m_minRepeatMs->setValue(settings.minRepeatMs);
    form->addRow(tr("Time limit per run"), m_limit);
    form->addRow(tr("Measurements (repeat)"), m_repeat);
    form->addRow(tr("Minimum measurement time"), m_minRepeatMs);
    m_maxUnroll = new QSpinBox(this);
    m_maxUnroll->setRange(1, 1000000);
    m_maxUnroll->setGroupSeparatorShown(true);
    m_maxUnroll->setValue(settings.maxUnrollCopies);
    m_maxUnroll->setToolTip(tr("The most copies of loop bodies that unroll and the "
                               "auto_unroll_max_step pragma may make in one kernel. A schedule "
                               "that would make more is refused at its unroll line."));
    m_maxReferenceSteps = new QSpinBox(this);
    m_maxReferenceSteps->setRange(1, 2000000000);
    m_maxReferenceSteps->setGroupSeparatorShown(true);
    m_maxReferenceSteps->setValue(settings.maxReferenceSteps);
    m_maxReferenceSteps->setToolTip(
        tr("The most steps the reference interpreter spends on one output element it checks. "
           "Elements that need more are not compared, and the check says so."));
    form->addRow(tr("Unrolled copies per kernel, at most"), m_maxUnroll);
    form->addRow(tr("Reference steps per checked element, at most"), m_maxReferenceSteps);
    m_runner = new QLineEdit(settings.runnerCommand, this);
    m_runner->setPlaceholderText(tr("this machine's worker"));
    m_runner->setToolTip(
        tr("The command that starts loopscope-worker where the tuner's candidates are measured, "
           "through the shell: ssh node7 /usr/libexec/loopscope/loopscope-worker, or "
           "srun -N1 -n1 --exclusive loopscope-worker inside a Slurm allocation. Its standard "
           "input and output carry the worker's protocol. Empty: the worker on this machine."));
    m_runners = new QSpinBox(this);
    m_runners->setRange(1, 4096);
    m_runners->setValue(settings.runners);
    m_runners->setToolTip(tr("How many runners measure candidates at once. A runner that dies "
                             "with a candidate costs that one measurement, repeated on another."));
    m_gpuRunner = new QLineEdit(settings.gpuRunnerCommand, this);
    m_gpuRunner->setPlaceholderText(tr("this machine's GPU runner"));
    m_gpuRunner->setToolTip(tr("The command that starts loopscope-runner on a machine with a GPU "
                               "(ssh gpu1 loopscope-runner): GPU variants in the ladder and "
                               "sweeps run there, compiled to PTX here. Empty: the one here."));
    form->addRow(tr("Tuning runner command"), m_runner);
    form->addRow(tr("Tuning runners at once"), m_runners);
    form->addRow(tr("GPU runner command"), m_gpuRunner);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

RunSettings RunSettingsDialog::settings() const
{
    RunSettings r = m_settings;
    r.timeLimitMs = m_limit->value() * 1000;
    r.repeat = m_repeat->value();
    r.minRepeatMs = m_minRepeatMs->value();
    r.maxUnrollCopies = m_maxUnroll->value();
    r.maxReferenceSteps = m_maxReferenceSteps->value();
    r.runnerCommand = m_runner->text().trimmed();
    r.runners = m_runners->value();
    r.gpuRunnerCommand = m_gpuRunner->text().trimmed();
    return r;
}

} // namespace loopscope
