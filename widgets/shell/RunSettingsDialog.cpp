#include "shell/RunSettingsDialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
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
    return r;
}

void RunSettings::save() const
{
    QSettings s;
    s.setValue(QStringLiteral("run/timeLimitMs"), timeLimitMs);
    s.setValue(QStringLiteral("run/repeat"), repeat);
    s.setValue(QStringLiteral("run/minRepeatMs"), minRepeatMs);
    s.setValue(QStringLiteral("run/threads"), threads);
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
    return r;
}

} // namespace loopscope
