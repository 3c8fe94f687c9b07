#include "tune/TunePanel.h"

#include "tune/Space.h"
#include "tune/TuneChart.h"
#include "views/LoopNestView.h"
#include "views/TirEditor.h"
#include "worker/WorkerReply.h"

#include <QAction>
#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace loopscope {

using worker::qs;

namespace {

QString duration(double s)
{
    if (s < 90) return QObject::tr("%1 s").arg(qRound(s));
    return QObject::tr("%1 min").arg(QString::number(s / 60, 'f', 1));
}

} // namespace

TunePanel::TunePanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("TunePanel"));
    m_variantLabel = new QLabel(this);
    m_variantLabel->setObjectName(QStringLiteral("tuneVariant"));

    m_trials = new QSpinBox(this);
    m_trials->setObjectName(QStringLiteral("tuneTrials"));
    m_trials->setRange(1, 100000);
    m_trials->setValue(64);
    m_trials->setSuffix(tr(" trials"));
    m_trials->setToolTip(tr("Candidates to measure"));
    m_useTime = new QCheckBox(tr("at most"), this);
    m_useTime->setObjectName(QStringLiteral("tuneUseTime"));
    m_seconds = new QSpinBox(this);
    m_seconds->setObjectName(QStringLiteral("tuneSeconds"));
    m_seconds->setRange(5, 24 * 3600);
    m_seconds->setValue(120);
    m_seconds->setSuffix(tr(" s"));
    m_seconds->setEnabled(false);
    connect(m_useTime, &QCheckBox::toggled, m_seconds, &QWidget::setEnabled);

    m_forbid = new QToolButton(this);
    m_forbid->setObjectName(QStringLiteral("tuneForbid"));
    m_forbid->setText(tr("Forbid"));
    m_forbid->setToolTip(tr("Primitives the tuner must not write"));
    m_forbid->setPopupMode(QToolButton::InstantPopup);
    m_forbidMenu = new QMenu(m_forbid);
    // The primitives the tuner writes, by the names the script uses.
    for (const std::string& p : tunerPrimitives()) {
        QAction* a = m_forbidMenu->addAction(QString::fromStdString(p));
        a->setCheckable(true);
        connect(a, &QAction::toggled, this, [this] {
            const int n = forbidden().size();
            m_forbid->setText(n ? tr("Forbid (%1)").arg(n) : tr("Forbid"));
        });
    }
    m_forbid->setMenu(m_forbidMenu);

    m_start = new QPushButton(tr("Tune"), this);
    m_start->setObjectName(QStringLiteral("tuneStart"));
    m_start->setToolTip(tr("Search schedules for this variant; its steps stay as they are"));
    m_resume = new QPushButton(tr("Resume"), this);
    m_resume->setObjectName(QStringLiteral("tuneResume"));
    m_resume->setToolTip(tr("Go on from the script's tuning log: what it measured counts"));
    m_fromLog = new QPushButton(tr("Best from Log"), this);
    m_fromLog->setObjectName(QStringLiteral("tuneFromLog"));
    m_fromLog->setToolTip(tr("The fastest schedule the tuning log has for this variant, "
                             "without tuning"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("tuneCancel"));
    m_cancel->setToolTip(tr("Stop; everything measured stays in the tuning log"));
    connect(m_start, &QPushButton::clicked, this, [this] { emit startRequested(false, false); });
    connect(m_resume, &QPushButton::clicked, this, [this] { emit startRequested(true, false); });
    connect(m_fromLog, &QPushButton::clicked, this, [this] { emit startRequested(true, true); });
    connect(m_cancel, &QPushButton::clicked, this, &TunePanel::cancelRequested);

    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("tuneProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(8);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("tuneStatus"));
    m_status->setWordWrap(true);

    m_chart = new TuneChart(this);
    m_chart->setMinimumHeight(220);
    m_chart->setMinimumWidth(420);
    m_best = new QLabel(this);
    m_best->setObjectName(QStringLiteral("tuneBest"));
    m_best->setWordWrap(true);
    m_best->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_add = new QPushButton(tr("Add as Variant"), this);
    m_add->setObjectName(QStringLiteral("tuneAdd"));
    m_add->setToolTip(tr("Write the best candidate into the script as a new variant after the "
                         "one it started from"));
    connect(m_add, &QPushButton::clicked, this,
            [this] { emit addVariantRequested(m_startVariant, m_name, m_statements); });

    m_loopNest = new TirEditor(this);
    m_loopNest->setObjectName(QStringLiteral("tuneLoopNest"));
    m_statementsView = new QPlainTextEdit(this);
    m_statementsView->setObjectName(QStringLiteral("tuneStatements"));
    m_statementsView->setReadOnly(true);
    m_statementsView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_tabs = new QTabWidget(this);
    m_tabs->addTab(m_loopNest, tr("Best Loop Nest"));
    m_tabs->addTab(m_statementsView, tr("Statements"));

    auto* budget = new QHBoxLayout;
    budget->addWidget(m_variantLabel, 1);
    budget->addWidget(m_trials);
    budget->addWidget(m_useTime);
    budget->addWidget(m_seconds);
    budget->addWidget(m_forbid);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_start);
    buttons->addWidget(m_resume);
    buttons->addWidget(m_fromLog);
    buttons->addStretch();
    buttons->addWidget(m_cancel);
    auto* bestRow = new QHBoxLayout;
    bestRow->addWidget(m_best, 1);
    bestRow->addWidget(m_add);

    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addLayout(budget);
    topLayout->addLayout(buttons);
    topLayout->addWidget(m_progress);
    topLayout->addWidget(m_status);
    topLayout->addWidget(m_chart, 1);
    topLayout->addLayout(bestRow);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split);

    m_status->setText(tr("Tune searches schedules for the variant under the cursor with a "
                         "learned cost model; each candidate is measured in the worker and "
                         "checked against the reference."));
    showBest();
    updateButtons();
}

void TunePanel::setVariant(const QString& name)
{
    m_variant = name;
    m_variantLabel->setText(name.isEmpty() ? tr("No variant")
                                           : tr("From <b>%1</b>").arg(name.toHtmlEscaped()));
    updateButtons();
}

void TunePanel::setBlocked(const QString& why)
{
    m_blocked = why;
    updateButtons();
}

void TunePanel::setPeak(double gflops)
{
    m_peak = gflops;
    m_chart->setPeak(gflops);
}

int TunePanel::trials() const
{
    return m_trials->value();
}

double TunePanel::seconds() const
{
    return m_useTime->isChecked() ? m_seconds->value() : 0.0;
}

QStringList TunePanel::forbidden() const
{
    QStringList out;
    for (QAction* a : m_forbidMenu->actions())
        if (a->isChecked()) out << a->text();
    return out;
}

void TunePanel::setTrials(int trials)
{
    m_trials->setValue(trials);
}

void TunePanel::begin(const QString& variant, int planned)
{
    m_startVariant = variant;
    m_name.clear();
    m_statements.clear();
    m_startTir.clear();
    m_bestTir.clear();
    m_referenceName.clear();
    m_referenceGflops = 0;
    m_handName.clear();
    m_handGflops = m_handMs = 0;
    m_chart->setHand({}, 0);
    m_bestGflops = m_bestMs = 0;
    m_bestTrial = 0;
    m_gflops = true;
    m_chart->begin(planned);
    m_chart->setReference({}, 0);
    m_progress->setValue(0);
    m_status->setText(
        tr("Tuning %1: measuring the reference and the first candidates…").arg(variant));
    m_loopNest->setTir({});
    m_statementsView->clear();
    setRunning(true);
    showBest();
}

void TunePanel::showProgress(const protocol::TuneUpdate& p)
{
    m_progress->setValue(qRound(p.fraction * 1000));
    if (!p.startTir.empty()) m_startTir = qs(p.startTir);
    if (!p.machine.cpu.empty())
        m_status->setToolTip(tr("Measured on %1").arg(qs(protocol::describeMachine(p.machine))));
    if (p.peakGflops > 0) setPeak(p.peakGflops);
    if (!p.handName.empty()) {
        m_handName = qs(p.handName);
        m_handGflops = p.handGflops;
        m_handMs = p.handMs;
        m_chart->setHand(m_handName, m_gflops ? p.handGflops : 1000.0 / p.handMs);
    }
    if (!p.referenceName.empty()) {
        m_referenceName = qs(p.referenceName);
        m_referenceGflops = p.referenceGflops;
        m_chart->setReference(m_referenceName, p.referenceGflops);
    }
    if (p.trial) {
        const protocol::TuneTrial& t = *p.trial;
        // A program without arithmetic has no GFLOPS: its speed is runs per second.
        if (t.status == "ok" && t.gflops <= 0 && m_gflops) {
            m_gflops = false;
            m_chart->begin(p.planned, false);
        }
        const double speed = m_gflops ? t.gflops : (t.ms > 0 ? 1000.0 / t.ms : 0.0);
        m_chart->addTrial(t.trial, speed, t.status == "ok");
    }
    if (p.bestTrial > 0) {
        m_bestTrial = p.bestTrial;
        m_bestGflops = p.bestGflops;
        m_bestMs = p.bestMs;
    }
    if (!p.bestStatements.empty()) m_statements = worker::qsList(p.bestStatements);
    if (!p.bestTir.empty()) m_bestTir = qs(p.bestTir);
    QString text = p.planned > 0 ? tr("Trial %1 of %2").arg(p.done).arg(p.planned)
                                 : tr("Trial %1").arg(p.done);
    if (m_bestTrial > 0)
        text += tr(" · best %1 (trial %2)")
                    .arg(m_gflops ? tr("%1 GFLOPS").arg(m_bestGflops, 0, 'f', 1)
                                  : tr("%1 ms").arg(m_bestMs, 0, 'f', 3))
                    .arg(m_bestTrial);
    if (p.remainingS >= 0 && p.done > 0) text += tr(" · about %1 left").arg(duration(p.remainingS));
    if (p.trial && p.trial->status != "ok")
        text += tr(" · trial %1 %2: %3")
                    .arg(p.trial->trial)
                    .arg(qs(p.trial->status), qs(p.trial->error).left(160));
    m_status->setText(text);
    showBest();
}

void TunePanel::showResult(const protocol::TuneReply& r)
{
    setRunning(false);
    m_progress->setValue(1000);
    m_name = qs(r.name);
    if (r.bestTrial > 0) {
        m_bestTrial = r.bestTrial;
        m_bestGflops = r.bestGflops;
        m_bestMs = r.bestMs;
        m_statements = worker::qsList(r.statements);
        if (!r.bestTir.empty()) m_bestTir = qs(r.bestTir);
    }
    QString text = tr("Done: %1 trials").arg(r.trials);
    if (r.reused > 0) text += tr(", %1 from the log").arg(r.reused);
    if (r.failed > 0) text += tr(", %1 failed").arg(r.failed);
    if (r.bestTrial == 0) text += tr(" · no candidate ran correctly");
    m_status->setText(text);
    m_status->setToolTip(worker::qsList(r.notes).join(QLatin1Char('\n')));
    showBest();
}

void TunePanel::showFailure(const QString& message)
{
    setRunning(false);
    m_status->setText(tr("Tuning stopped: %1").arg(message));
    showBest();
}

void TunePanel::showCancelled()
{
    setRunning(false);
    m_status->setText(tr("Cancelled after %1 trials; they are in the tuning log (Resume goes on "
                         "from there)")
                          .arg(m_chart->trials()));
    showBest();
}

QString TunePanel::statusText() const
{
    return m_status->text();
}

QString TunePanel::bestText() const
{
    return m_best->text();
}

void TunePanel::setRunning(bool running)
{
    m_running = running;
    updateButtons();
}

void TunePanel::updateButtons()
{
    const bool can = !m_running && !m_variant.isEmpty() && m_blocked.isEmpty();
    for (QPushButton* b : {m_start, m_resume, m_fromLog}) {
        b->setEnabled(can);
        b->setToolTip(m_blocked.isEmpty() ? b->toolTip().section(QLatin1Char('\n'), 0, 0)
                                          : b->toolTip().section(QLatin1Char('\n'), 0, 0) +
                                                QLatin1Char('\n') + m_blocked);
    }
    m_cancel->setEnabled(m_running);
    m_add->setEnabled(!m_statements.isEmpty() && !m_startVariant.isEmpty());
}

void TunePanel::showBest()
{
    if (m_bestTrial <= 0) {
        m_best->setText(m_running ? tr("No checked candidate yet") : QString());
    } else {
        QString speed = m_gflops ? tr("%1 GFLOPS").arg(m_bestGflops, 0, 'f', 1)
                                 : tr("%1 ms").arg(m_bestMs, 0, 'f', 3);
        QString text = tr("Best: trial %1 · %2").arg(m_bestTrial).arg(speed);
        if (m_gflops && m_referenceGflops > 0)
            text += tr(" · %1× %2")
                        .arg(m_bestGflops / m_referenceGflops, 0, 'f', 2)
                        .arg(m_referenceName);
        if (m_handMs > 0 && m_bestMs > 0)
            text += tr(" · %1× %2").arg(m_handMs / m_bestMs, 0, 'f', 2).arg(m_handName);
        m_best->setText(text);
    }
    m_statementsView->setPlainText(m_statements.join(QLatin1Char('\n')));
    if (!m_bestTir.isEmpty()) {
        // What the best candidate changed against the variant it started from.
        m_loopNest->setLines(diffLines(m_startTir, m_bestTir).after, DiffSide::After);
        const int changed = m_loopNest->firstChangedBlock();
        if (changed >= 0) m_loopNest->scrollToBlock(changed);
    }
    updateButtons();
}

} // namespace loopscope
