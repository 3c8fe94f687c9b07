#include "shell/TuningController.h"

#include "editor/EditorPane.h"
#include "shell/MainWindow.h"
#include "shell/ModelWindows.h"
#include "shell/RunController.h"
#include "te/VariantBlock.h"
#include "tune/TuneLog.h"
#include "tune/TunePanel.h"
#include "tune/TuneService.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace loopscope {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

TuningController::TuningController(MainWindow* window, TunePanel* panel, TuneService* service,
                                   ModelWindows* models)
    : QObject(window), m_window(window), m_panel(panel), m_service(service), m_models(models)
{
    connect(window, &MainWindow::analysisApplied, this, &TuningController::updatePanel);
    connect(window, &MainWindow::detailApplied, this, &TuningController::updatePanel);
    panel->setPeak(QSettings().value(QStringLiteral("machine/peakGflops"), 0.0).toDouble());
    connect(window->runs(), &RunController::machineMeasured, panel,
            [panel](const protocol::MachineReply& m) { panel->setPeak(m.peakGflops); });
    connect(panel, &TunePanel::startRequested, this, &TuningController::start);
    connect(panel, &TunePanel::cancelRequested, service, &TuneService::cancel);
    connect(panel, &TunePanel::addVariantRequested, this, &TuningController::addVariant);
    connect(service, &TuneService::progress, panel, &TunePanel::showProgress);
    connect(service, &TuneService::finished, panel, &TunePanel::showResult);
    connect(service, &TuneService::failed, panel, &TunePanel::showFailure);
    connect(service, &TuneService::cancelled, panel, &TunePanel::showCancelled);
    // A model's task tuned here: its log becomes the task's schedule in the model.
    connect(service, &TuneService::finished, this, [this](const protocol::TuneReply& r) {
        if (r.bestTrial <= 0) return;
        const QStringList models =
            m_models->recordTuning(m_window->documentPath(), r.log.empty() ? logPath() : q(r.log));
        for (const QString& model : models)
            m_window->showNotice(
                tr("The tuned schedule is now the task's in %1; run the model to measure it")
                    .arg(model));
    });
    connect(service, &TuneService::finished, this, &TuningController::ended);
    connect(service, &TuneService::failed, this, &TuningController::ended);
    connect(service, &TuneService::cancelled, this, &TuningController::ended);
}

void TuningController::updatePanel()
{
    m_panel->setVariant(m_window->currentVariant());
    const QString error = m_window->scriptError();
    m_panel->setBlocked(error.isEmpty() ? QString()
                                        : tr("the script has an error at %1").arg(error));
}

QString TuningController::logPath() const
{
    // A task of a model (resnet.tasks/conv_relu_3.py) keeps its records beside it
    // (resnet.tasks/conv_relu_3.jsonl), where the model's project file finds them.
    const QString path = m_window->documentPath();
    const QFileInfo script(path);
    if (!path.isEmpty() && script.absolutePath().endsWith(QStringLiteral(".tasks")))
        return script.absolutePath() + QLatin1Char('/') + script.completeBaseName() +
               QStringLiteral(".jsonl");
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                           QStringLiteral("/tuning");
    QDir().mkpath(folder);
    const std::string name =
        tuningLogFileName(path.isEmpty() ? std::string("untitled.py") : path.toStdString());
    return folder + QLatin1Char('/') + QString::fromStdString(name);
}

void TuningController::start(bool resume, bool logOnly)
{
    const QString variant = m_panel->variant();
    if (variant.isEmpty() || !m_window->scriptError().isEmpty()) return;
    protocol::TuneRequest r;
    r.script = m_window->editor()->text().toStdString();
    r.variant = variant.toStdString();
    r.trials = logOnly ? 0 : m_panel->trials();
    r.seconds = logOnly ? 0 : m_panel->seconds();
    if (r.seconds > 0 && !logOnly) r.trials = 0;
    r.threads = m_window->threads();
    for (const QString& primitive : m_panel->forbidden())
        r.forbid.push_back(primitive.toStdString());
    r.log = logPath().toStdString();
    r.resume = resume;
    r.peak = m_panel->peak() <= 0; // the chart's peak line, measured once
    r.hand = !logOnly;             // the line of the fastest variant the script has
    const RunSettings& settings = m_window->runs()->settings();
    r.runner = settings.runnerCommand.toStdString();
    r.runners = settings.runnerCommand.isEmpty() && settings.runners <= 1 ? 0 : settings.runners;
    m_panel->begin(variant, r.trials);
    m_service->start(r);
}

void TuningController::addVariant(const QString& start, const QString& name,
                                  const QStringList& statements)
{
    const ExplorationPtr exploration = m_window->exploration();
    const VariantView* v = nullptr;
    if (exploration)
        for (auto& cv : exploration->variants)
            if (q(cv.name) == start) v = &cv;
    if (!v || statements.isEmpty()) {
        m_window->showNotice(
            tr("Cannot add the tuned variant: the script no longer has variant '%1'").arg(start));
        return;
    }
    auto taken = [&](const QString& candidate) {
        for (auto& cv : exploration->variants)
            if (q(cv.name) == candidate) return true;
        return false;
    };
    const QString base = name.isEmpty() ? tr("tuned from %1").arg(start) : name;
    QString unique = base;
    for (int k = 2; taken(unique); ++k)
        unique = base + QStringLiteral(" %1").arg(k);
    std::vector<std::string> lines;
    for (const QString& s : statements)
        lines.push_back(s.toStdString());
    EditorPane* editor = m_window->editor();
    const std::string block = variantBlockText(
        editor->text().toStdString(), v->line, v->tensorIR ? v->line : v->scheduleEndLine,
        v->tensorIR ? v->line : v->lastLine, unique.toStdString(), lines);
    editor->insertAfterLine(v->lastLine, q(block));
    m_window->preferVariant(unique);
}

} // namespace loopscope
