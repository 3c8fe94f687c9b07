#include "charts/SweepPanel.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>

namespace loopscope {

namespace {

const QString kDefaultValues = QStringLiteral("64,128,256,512,1024,2048");

bool checkedByDefault(const QString& parameter)
{
    return parameter == QLatin1String("M") || parameter == QLatin1String("N") ||
           parameter == QLatin1String("K");
}

} // namespace

SweepPanel::SweepPanel(QWidget* parent) : QWidget(parent)
{
    m_parameterBox = new QWidget(this);
    m_parameterLayout = new QHBoxLayout(m_parameterBox);
    m_parameterLayout->setContentsMargins(0, 0, 0, 0);
    m_noParameters = new QLabel(tr("(the script has no size parameters)"), m_parameterBox);
    m_noParameters->setEnabled(false);
    m_parameterLayout->addWidget(m_noParameters);
    m_parameterLayout->addStretch(1);

    m_values = new QLineEdit(kDefaultValues, this);
    m_values->setObjectName(QStringLiteral("SweepValues"));
    m_values->setToolTip(tr("The sizes to sweep, separated by commas; each sets every checked "
                            "parameter."));

    m_variantList = new QListWidget(this);
    m_variantList->setObjectName(QStringLiteral("SweepVariants"));
    m_variantList->setMaximumHeight(m_variantList->fontMetrics().height() * 6);

    m_limit = new QSpinBox(this);
    m_limit->setObjectName(QStringLiteral("SweepPointLimit"));
    m_limit->setRange(1, 3600);
    m_limit->setValue(10);
    m_limit->setSuffix(tr(" s"));
    m_limit->setToolTip(tr("A point whose first run takes longer is skipped, and so are the larger "
                           "sizes of its variant."));

    m_reference = new QCheckBox(tr("Reference library"), this);
    m_reference->setObjectName(QStringLiteral("SweepReference"));
    m_reference->setToolTip(tr("Also time the reference library at every size: OpenBLAS for a "
                               "matrix product, oneDNN for a 2-D convolution."));

    m_start = new QPushButton(tr("Start"), this);
    m_start->setObjectName(QStringLiteral("SweepStart"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("SweepCancel"));
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("SweepProgress"));
    m_progress->setTextVisible(true);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setFormat(tr("not started"));

    auto* form = new QFormLayout;
    form->addRow(tr("Sweep:"), m_parameterBox);
    form->addRow(tr("Values:"), m_values);
    form->addRow(tr("Variants:"), m_variantList);
    auto* limitRow = new QHBoxLayout;
    limitRow->addWidget(m_limit);
    limitRow->addSpacing(12);
    limitRow->addWidget(m_reference);
    limitRow->addStretch(1);
    form->addRow(tr("Per point:"), limitRow);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_start);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_progress, 1);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(form);
    layout->addLayout(buttons);

    connect(m_values, &QLineEdit::textChanged, this, &SweepPanel::updateButtons);
    connect(m_variantList, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        if (item->checkState() == Qt::Checked)
            m_uncheckedVariants.remove(item->text());
        else
            m_uncheckedVariants.insert(item->text());
        updateButtons();
    });
    connect(m_start, &QPushButton::clicked, this, [this] {
        if (canStart()) emit startRequested();
    });
    connect(m_cancel, &QPushButton::clicked, this, &SweepPanel::cancelRequested);
    updateButtons();
}

SweepPanel::~SweepPanel() = default;

void SweepPanel::setExploration(ExplorationPtr exploration)
{
    if (!exploration) return;
    // Parameters: a checkbox each, keeping the user's choices by name.
    qDeleteAll(m_parameterChecks);
    m_parameterChecks.clear();
    int index = 0;
    for (const Parameter& p : exploration->parameters) {
        const QString name = QString::fromStdString(p.name);
        auto* box = new QCheckBox(name, m_parameterBox);
        box->setChecked(m_parameterChoice.contains(name) ? m_parameterOn.contains(name)
                                                         : checkedByDefault(name));
        connect(box, &QCheckBox::toggled, this, [this, name](bool on) {
            m_parameterChoice.insert(name);
            if (on)
                m_parameterOn.insert(name);
            else
                m_parameterOn.remove(name);
            updateButtons();
        });
        m_parameterLayout->insertWidget(index++, box);
        m_parameterChecks.append(box);
    }
    m_noParameters->setVisible(m_parameterChecks.isEmpty());

    // Variants: all checked but those the user unchecked.
    QSignalBlocker block(m_variantList);
    m_variantList->clear();
    for (const VariantView& v : exploration->variants) {
        auto* item = new QListWidgetItem(QString::fromStdString(v.name), m_variantList);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(m_uncheckedVariants.contains(item->text()) ? Qt::Unchecked
                                                                       : Qt::Checked);
    }
    updateButtons();
}

QStringList SweepPanel::parameters() const
{
    QStringList out;
    for (QCheckBox* box : m_parameterChecks)
        if (box->isChecked()) out << box->text();
    return out;
}

QStringList SweepPanel::variants() const
{
    QStringList out;
    for (int i = 0; i < m_variantList->count(); ++i)
        if (m_variantList->item(i)->checkState() == Qt::Checked)
            out << m_variantList->item(i)->text();
    return out;
}

QList<qint64> SweepPanel::values() const
{
    static const QRegularExpression separators(QStringLiteral("[,;\\s]+"));
    QList<qint64> out;
    const QStringList parts = m_values->text().split(separators, Qt::SkipEmptyParts);
    for (const QString& part : parts) {
        bool ok = false;
        const qint64 v = part.toLongLong(&ok);
        if (!ok || v < 1) return {};
        out << v;
    }
    return out;
}

int SweepPanel::pointLimitSeconds() const
{
    return m_limit->value();
}
bool SweepPanel::reference() const
{
    return m_reference->isChecked();
}

void SweepPanel::setParameterChecked(const QString& name, bool checked)
{
    for (QCheckBox* box : m_parameterChecks)
        if (box->text() == name) box->setChecked(checked);
}

void SweepPanel::setVariantChecked(const QString& name, bool checked)
{
    for (int i = 0; i < m_variantList->count(); ++i)
        if (m_variantList->item(i)->text() == name)
            m_variantList->item(i)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
}

void SweepPanel::setValuesText(const QString& text)
{
    m_values->setText(text);
}
QString SweepPanel::valuesText() const
{
    return m_values->text();
}
void SweepPanel::setPointLimitSeconds(int seconds)
{
    m_limit->setValue(seconds);
}
void SweepPanel::setReference(bool on)
{
    m_reference->setChecked(on);
}

protocol::SweepRequest SweepPanel::sweepRequest(const QString& script) const
{
    protocol::SweepRequest r;
    r.script = script.toStdString();
    for (const QString& p : parameters())
        r.parameters.push_back(p.toStdString());
    for (qint64 v : this->values())
        r.values.push_back(v);
    for (const QString& v : this->variants())
        r.variants.push_back(v.toStdString());
    r.maxPointSeconds = pointLimitSeconds();
    r.blas = reference();
    return r;
}

int SweepPanel::pointTotal() const
{
    return static_cast<int>(values().size() * variants().size());
}

bool SweepPanel::canStart() const
{
    return !m_running && !parameters().isEmpty() && !variants().isEmpty() && !values().isEmpty();
}

QString SweepPanel::progressText() const
{
    return m_progress->text();
}

void SweepPanel::setProgress(int done, int total)
{
    m_progress->setRange(0, qMax(1, total));
    m_progress->setValue(qBound(0, done, qMax(1, total)));
    QString text = tr("%1 / %2 points").arg(done).arg(total);
    if (m_running && m_clock.isValid()) {
        // The sweep goes size by size; note when each size's points are all in.
        const int perValue = qMax(1, total / qMax<qsizetype>(1, values().size()));
        while (m_valueEndsMs.size() < done / perValue)
            m_valueEndsMs << m_clock.elapsed();
        if (done > 0 && done < total) {
            const qint64 left = timeLeftMs(done, total, perValue);
            if (left >= 0) text += tr(" · about %1 left").arg(formatDuration(left));
        }
    }
    m_progress->setFormat(text);
}

qint64 SweepPanel::timeLeftMs(int done, int total, int perValue) const
{
    const qint64 now = m_clock.elapsed();
    const qsizetype finished = m_valueEndsMs.size();
    if (finished == 0) return now * (total - done) / done; // nothing better known yet
    // Each size takes longer than the one before (more work per run); the growth is taken from
    // the last two sizes, and a size never takes longer than every point running to its limit.
    auto length = [&](qsizetype i) {
        return m_valueEndsMs[i] - (i > 0 ? m_valueEndsMs[i - 1] : 0);
    };
    const double last = static_cast<double>(qMax<qint64>(1, length(finished - 1)));
    const double growth =
        finished >= 2 ? qBound(1.0, last / qMax<qint64>(1, length(finished - 2)), 8.0) : 2.0;
    const double cap = perValue * (pointLimitSeconds() * 2000.0 + 1000.0);
    const qsizetype valueCount = total / perValue;
    double left = 0, predicted = last;
    for (qsizetype i = finished; i < valueCount; ++i) {
        predicted = qMin(predicted * growth, cap);
        left += i == finished ? qMax(0.0, predicted - (now - m_valueEndsMs.last())) : predicted;
    }
    return static_cast<qint64>(left);
}

void SweepPanel::setRunning(bool running)
{
    m_running = running;
    m_valueEndsMs.clear();
    if (running) {
        m_clock.start();
        setProgress(0, pointTotal() + (reference() ? static_cast<int>(values().size()) : 0));
    } else {
        m_clock.invalidate();
        m_progress->setFormat(m_progress->format().section(QStringLiteral(" · "), 0, 0));
    }
    updateButtons();
}

void SweepPanel::updateButtons()
{
    m_start->setEnabled(canStart());
    m_cancel->setEnabled(m_running);
    m_values->setEnabled(!m_running);
    m_parameterBox->setEnabled(!m_running);
    m_variantList->setEnabled(!m_running);
    m_limit->setEnabled(!m_running);
    m_reference->setEnabled(!m_running);
    const bool valid = !values().isEmpty();
    m_values->setToolTip(valid ? tr("The sizes to sweep, separated by commas; each sets every "
                                    "checked parameter.")
                               : tr("Type positive whole numbers separated by commas."));
}

QString SweepPanel::formatDuration(qint64 ms)
{
    const qint64 s = (ms + 999) / 1000;
    if (s < 60) return tr("%1 s").arg(s);
    if (s < 3600) return tr("%1 min %2 s").arg(s / 60).arg(s % 60);
    return tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

} // namespace loopscope
