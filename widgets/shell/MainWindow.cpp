#include "shell/MainWindow.h"

#include "shell/ModelWindows.h"
#include "shell/TuningController.h"
#include "views/CompareView.h"

#include "charts/ChartsView.h"
#include "charts/SweepPanel.h"
#include "charts/SweepStore.h"
#include "editor/EditorPane.h"
#include "editor/SchedulePanel.h"
#include "editor/StatementWriter.h"
#include "model/ModelWindow.h"
#include "shell/ChartsDock.h"
#include "shell/CodeViewController.h"
#include "shell/DockLayout.h"
#include "shell/Document.h"
#include "shell/ExportDialog.h"
#include "shell/ProfileController.h"
#include "shell/RunController.h"
#include "shell/SettingsController.h"
#include "shell/StatusBarController.h"
#include "te/VariantBlock.h"
#include "views/CodeView.h"
#include "views/LadderModel.h"
#include "views/LadderStore.h"
#include "views/LadderView.h"
#include "views/LoopNestView.h"
#include "views/VariantTreeView.h"
#include "worker/WorkerClient.h"

#include <QAction>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSet>
#include <QSpinBox>
#include <QStatusBar>
#include <QTimer>

#include <cstdio>

namespace loopscope {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setObjectName(QStringLiteral("MainWindow"));
    const QString settingsNotice = SettingsController::setAsideDamaged();
    m_editor = new EditorPane(this);
    setCentralWidget(m_editor);

    m_analysis = new AnalysisService(this);
    m_worker = new WorkerClient(this);
    m_document = new Document(m_editor, m_analysis, this);
    m_ladderModel = new LadderModel(this);
    m_runs = new RunController(m_worker, m_ladderModel, this);

    buildDocks();
    buildActions();
    m_status = new StatusBarController(this, m_runs);
    connectRuns();
    m_models = new ModelWindows(this);
    connect(m_models, &ModelWindows::openScriptRequested, this, [this](const QString& script) {
        if (QFileInfo(documentPath()).absoluteFilePath() == QFileInfo(script).absoluteFilePath())
            return;
        if (openFile(script)) {
            raise();
            activateWindow();
        }
    });
    m_tuning = new TuningController(this, m_tunePanel, m_tune, m_models);
    connect(m_tuning, &TuningController::ended, this, &MainWindow::tuneFinished);
    connect(m_variantBox, &QComboBox::currentTextChanged, m_tuning, &TuningController::updatePanel);
    m_settings = new SettingsController(this, m_runs, m_threads, m_structuredAction);
    m_settings->restore();
    if (!settingsNotice.isEmpty()) showNotice(settingsNotice);
    showStoreNotices();
    connect(m_document, &Document::notice, this, &MainWindow::showNotice);

    connect(m_editor, &EditorPane::cursorLineChanged, this, &MainWindow::onCursorLine);
    connect(m_analysis, &AnalysisService::analysisReady, this, &MainWindow::onAnalysis);
    // The variant under the cursor first, the others when they are lowered.
    connect(m_analysis, &AnalysisService::detailReady, this, &MainWindow::onAnalysis);
    connect(m_schedule, &SchedulePanel::statementRequested, this,
            &MainWindow::onStatementRequested);
    connect(m_schedule, &SchedulePanel::newVariantRequested, this,
            &MainWindow::onNewVariantRequested);
    connect(m_loopNest, &LoopNestView::loopClicked, this, &MainWindow::onLoopClicked);
    connect(m_variantTree, &VariantTreeView::variantChosen, this, &MainWindow::selectVariant);
    connect(m_ladder, &LadderView::stepActivated, this, [this](int row) {
        selectStep(row);
        if (const VariantView* v = shownVariant(); v && row < static_cast<int>(v->steps.size()))
            m_editor->gotoLine(v->steps[static_cast<std::size_t>(row)].line);
    });
}

MainWindow::~MainWindow()
{
    // QWidget's destructor, which runs after this one has destroyed the members below, hides the
    // window and with it the docks, whose visibility signals reach handlers here that read those
    // members (the variant list, the analysis): a window destroyed with its docks on screen read
    // freed memory and threw from the close event. From here on nothing the window holds may
    // call back into it or into the controllers that read it.
    const QList<QObject*> receivers{this, m_code, m_profile, m_docks};
    for (QObject* o : findChildren<QObject*>())
        for (QObject* receiver : receivers)
            QObject::disconnect(o, nullptr, receiver, nullptr);
    if (QCoreApplication* app = QCoreApplication::instance())
        QObject::disconnect(app, nullptr, this, nullptr);
}

ChartsView* MainWindow::chartsView() const
{
    return m_chartsDock->charts();
}

SweepPanel* MainWindow::sweepPanel() const
{
    return m_chartsDock->panel();
}

SweepStore* MainWindow::sweepStore() const
{
    return m_runs->sweepStore();
}

QString MainWindow::documentPath() const
{
    return m_document->path();
}

int MainWindow::threads() const
{
    return m_threads->value();
}

bool MainWindow::openFile(const QString& path)
{
    return m_document->openFile(path);
}

void MainWindow::setScriptText(const QString& text, const QString& path, bool modified)
{
    m_document->setText(text, path, modified);
}

bool MainWindow::offerRecovery(bool ask)
{
    return m_document->offerRecovery(ask);
}

// ---- construction ----

void MainWindow::connectRuns()
{
    RunController* runs = m_runs;
    connect(runs, &RunController::aboutToRunCode, m_document, &Document::secureText);
    connect(runs, &RunController::busyChanged, m_cancelAction, &QAction::setEnabled);
    connect(runs, &RunController::workerRefused, this,
            [this](const QString& message) { showNotice(tr("Cannot run code: %1").arg(message)); });
    connect(runs, &RunController::ladderFinished, this, &MainWindow::showStoreNotices);
    connect(runs, &RunController::ladderFinished, this, &MainWindow::ladderFinished);
    connect(runs, &RunController::ladderFinished, this, &MainWindow::refreshVariantTree);
    connect(runs, &RunController::exportReady, this,
            [this](const QString& variant, const QString& text, const QString& suggestedName) {
                ExportDialog(variant, text, suggestedName, this).exec();
            });
    connect(runs, &RunController::objectReady, this,
            [this](const QString& variant, const QByteArray& object, const QString& header,
                   const QString& suggestedName) {
                ExportDialog(variant, header, suggestedName, this, object).exec();
            });
    connect(runs, &RunController::exportRefused, this,
            [this](const QString& message) { QMessageBox::warning(this, tr("Export"), message); });

    m_chartsDock->connectRuns(runs, m_analysis, [this] { return m_editor->text(); });
    connect(runs, &RunController::sweepFinished, this, &MainWindow::showStoreNotices);
    connect(runs, &RunController::sweepFinished, this, &MainWindow::sweepFinished);
    runs->describeWorker();
}

void MainWindow::showNotice(const QString& message)
{
    m_notices << message;
    statusBar()->showMessage(message, 30000);
    std::fprintf(stderr, "loopscope: %s\n", qPrintable(message));
}

void MainWindow::showStoreNotices()
{
    for (const QString& notice :
         {m_runs->ladderStore()->takeNotice(), m_runs->sweepStore()->takeNotice()})
        if (!notice.isEmpty()) showNotice(notice);
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // The default layout, once the window has its size; a saved layout wins.
    if (!m_shownOnce && !m_settings->layoutRestored())
        QTimer::singleShot(0, m_docks, &DockLayout::applyDefault);
    m_shownOnce = true;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    // Nothing may leave an event handler: whatever fails here (the disk, memory), the window
    // closes, and the text the user typed is still in the recovery store.
    try {
        if (!m_document->maybeSave()) {
            event->ignore();
            return;
        }
        m_settings->save();
        m_runs->sweepStore()->save();
        m_document->closed();
    } catch (const std::exception& e) {
        qWarning("loopscope: closing the window: %s", e.what());
    }
    event->accept();
}

// ---- analysis ----

void MainWindow::onAnalysis(ExplorationPtr result)
{
    // A script with an error keeps the last good analysis on screen, marked stale.
    if (result->ok && result->complete) m_lastGood = result;
    m_scriptError =
        result->ok ? QString()
                   : tr("line %1: %2").arg(result->error.loc.line).arg(q(result->error.message));
    m_exploration = !result->ok && m_lastGood ? m_lastGood : result;
    const Exploration& x = *m_exploration;
    // Variant selector: keep the selection by name.
    QStringList names;
    for (auto& v : x.variants)
        names << q(v.name);
    QString keep = m_variant;
    m_variantBox->blockSignals(true);
    m_variantBox->clear();
    m_variantBox->addItems(names);
    m_variantBox->blockSignals(false);
    if (!names.contains(keep)) keep = names.isEmpty() ? QString() : names.front();
    m_variant = keep;
    m_variantBox->setCurrentText(keep);
    if (!keep.isEmpty()) m_analysis->setDetailVariant(keep);
    refreshVariantTree();

    // The markers are the current text's, whatever the views show.
    QList<EditorPane::Diagnostic> diags;
    if (!result->ok)
        diags.append({result->error.loc.line, result->error.loc.col, q(result->error.message)});
    for (auto& cv : result->variants) {
        if (q(cv.name) != m_variant) continue;
        // A mistake at one line that several later steps run into is said once.
        QSet<QPair<int, QString>> said;
        for (auto& s : cv.steps) {
            if (!s.error) continue;
            const int line = s.error->loc.line ? s.error->loc.line : s.line;
            const QString message = q(s.error->message);
            if (said.contains({line, message})) continue;
            said.insert({line, message});
            diags.append({line, s.error->loc.col, message});
        }
    }
    m_editor->setDiagnostics(diags);
    const VariantView* v = shownVariant();
    m_status->showAnalysisTimes(x.evaluateMs, x.lowerMs);

    if (v) {
        QStringList scriptNames;
        for (auto& n : v->names)
            scriptNames << q(n);
        m_editor->setScriptNames(scriptNames);
        m_loopNest->setVariant(*v);
        std::vector<LadderModel::StepRow> rows;
        for (std::size_t k = 0; k < v->steps.size(); ++k)
            rows.push_back(
                {q(v->steps[k].label), v->steps[k].line, stepKey(*v, static_cast<int>(k))});
        m_runs->setScriptPath(m_document->path()); // its earlier measurements
        m_ladderModel->setSteps(rows);
        int steps = static_cast<int>(v->steps.size());
        if (m_step < 0 || m_step >= steps) m_step = steps - 1;
    }
    showStepDetails();
    applyErrorState();
    if (result->complete)
        emit analysisApplied();
    else
        emit detailApplied();
}

void MainWindow::compareVariants()
{
    if (!m_compare) {
        m_compare = new CompareView(this);
        // Measured GFLOPS are the ladder's, of the variant it shows.
        m_compare->setGflopsLookup([this](const QString& variant, int step) {
            if (variant != m_variant) return -1.0;
            auto r = m_ladderModel->resultOf(step);
            return r ? r->gflops : -1.0;
        });
    }
    m_compare->setScript(m_editor->text());
    if (shownVariant()) {
        QStringList variants;
        for (const VariantView& v : m_exploration->variants)
            variants << q(v.name);
        m_compare->chooseWithNext(m_variant, variants);
    }
    m_compare->show();
    m_compare->raise();
}

void MainWindow::zoomText(int steps)
{
    m_zoom += steps;
    m_editor->setZoom(m_zoom);
    // QPlainTextEdit::zoomIn takes negative steps as zooming out.
    for (QWidget* view :
         {static_cast<QWidget*>(m_loopNest), static_cast<QWidget*>(m_code->llvmView()),
          static_cast<QWidget*>(m_code->assemblyView())})
        for (auto* text : view->findChildren<QPlainTextEdit*>())
            text->zoomIn(steps);
}

void MainWindow::applyErrorState()
{
    const bool stale = !m_scriptError.isEmpty();
    const QString reason =
        stale ? tr("the script has an error at %1").arg(m_scriptError) : QString();
    m_schedule->setUnavailable(reason);
    m_status->showScriptError(m_scriptError);
    m_runAction->setToolTip(stale ? tr("Cannot run: %1").arg(reason)
                                  : tr("Measure every step of the variant (F5)"));
    for (auto [name, title] : {std::pair{QStringLiteral("LoopNestDock"), tr("Loop nest")},
                               std::pair{QStringLiteral("LadderDock"), tr("Ladder")},
                               std::pair{QStringLiteral("ScheduleDock"), tr("Schedule")}}) {
        if (auto* d = findChild<QDockWidget*>(name))
            d->setWindowTitle(stale ? tr("%1 — stale: script error").arg(title) : title);
    }
    m_variantBox->setToolTip(stale ? tr("Variants of the last good state: %1").arg(reason)
                                   : QString());
}

const VariantView* MainWindow::shownVariant() const
{
    if (!m_exploration) return nullptr;
    for (auto& v : m_exploration->variants)
        if (q(v.name) == m_variant) return &v;
    return nullptr;
}

void MainWindow::selectVariant(const QString& name)
{
    if (name == m_variant) return;
    m_variant = name;
    m_step = -1;
    m_variantBox->setCurrentText(name);
    m_variantTree->setCurrent(name);
    m_analysis->setDetailVariant(name);
    // Bring the variant's block into view unless the cursor is already in it.
    if (const VariantView* v = shownVariant()) {
        int line = m_editor->cursorLine();
        if (line < v->line || line > v->lastLine) m_editor->gotoLine(v->lastLine);
    }
}

void MainWindow::refreshVariantTree()
{
    if (!m_exploration) return;
    // Each variant's GFLOPS: the measurement of its last step, if there is one.
    std::vector<double> gflops;
    for (const VariantView& v : m_exploration->variants) {
        const int last = static_cast<int>(v.steps.size()) - 1;
        std::optional<LadderModel::Result> r;
        if (last >= 0 && !v.steps.back().tir.empty()) r = m_runs->resultOf(stepKey(v, last));
        gflops.push_back(r && r->gflops > 0 ? r->gflops : -1.0);
    }
    m_variantTree->setVariants(m_exploration->variants, gflops);
    m_variantTree->setCurrent(m_variant);
}

void MainWindow::selectStep(int step)
{
    m_step = step;
    showStepDetails();
}

void MainWindow::onCursorLine(int line)
{
    if (!m_exploration) return;
    // The cursor on a step's statement shows that step; inside another variant's block, that
    // variant.
    for (auto& v : m_exploration->variants) {
        if (line < v.line || line > v.lastLine) continue;
        if (q(v.name) != m_variant) {
            selectVariant(q(v.name));
            return;
        }
        int step = 0;
        for (std::size_t k = 0; k < v.steps.size(); ++k)
            if (v.steps[k].line <= line) step = static_cast<int>(k);
        if (step != m_step) selectStep(step);
        return;
    }
}

void MainWindow::showStepDetails()
{
    const VariantView* v = shownVariant();
    if (!v || v->steps.empty()) return;
    int step = std::clamp(m_step, 0, static_cast<int>(v->steps.size()) - 1);
    m_loopNest->showStep(step);
    m_ladder->setCurrentStep(step);
    // The panel shows the state where a clicked statement is written: after the variant's last
    // step, whichever step the views show.
    const StepView& s = v->steps.back();
    m_schedule->setStages(s.stages, scheduleContextFor(*v, s, m_exploration->allNames));
    m_profile->showProfile();
    m_code->request();
}

QString MainWindow::stepKey(const VariantView& v, int step) const
{
    // What the step lowers to decides what it measures; steps that lower alike share results.
    return LadderModel::stepKey(v, step, m_threads->value());
}

// ---- running ----

void MainWindow::runLadder()
{
    if (!m_scriptError.isEmpty()) {
        statusBar()->showMessage(tr("Cannot run: the script has an error at %1").arg(m_scriptError),
                                 8000);
        return;
    }
    if (const VariantView* v = shownVariant()) m_runs->runLadder(m_editor->text(), *v);
}

void MainWindow::cancelRuns()
{
    m_runs->cancelAll();
}

void MainWindow::exportVariant(const QString& format)
{
    const VariantView* v = shownVariant();
    if (!v) return;
    if (!m_scriptError.isEmpty()) {
        QMessageBox::warning(
            this, tr("Export"),
            tr("The script has an error at %1; fix it before exporting.").arg(m_scriptError));
        return;
    }
    // Every format comes from the worker, through the command-line tool's export code (the
    // window links no code generator).
    m_runs->exportVariant(m_editor->text(), m_variant, format,
                          QFileInfo(m_document->path()).fileName());
    statusBar()->showMessage(tr("Exporting %1 as %2…").arg(m_variant, format), 5000);
}

// ---- editing from the panels ----

void MainWindow::onStatementRequested(const QString& statement)
{
    const VariantView* v = shownVariant();
    if (!v) return;
    const int after = v->scheduleEndLine > 0 ? v->scheduleEndLine : v->lastLine;
    const int line = m_editor->appendToVariantBlock(after, statement);
    statusBar()->showMessage(
        tr("Wrote %1 at line %2, the end of the schedule of variant %3")
            .arg(statement.section(u'\n', -1),
                 QString::number(line + static_cast<int>(statement.count(u'\n'))), m_variant),
        8000);
    m_step = -1; // show the new step once analyzed
}

void MainWindow::onNewVariantRequested()
{
    const VariantView* v = shownVariant();
    if (!v) return;
    QString base = m_variant + tr(" copy");
    QString name = base;
    for (int k = 2; m_variantBox->findText(name) >= 0; ++k)
        name = base + QStringLiteral(" %1").arg(k);
    std::string block = StatementWriter::newVariantFromHere(m_editor->text().toStdString(), v->line,
                                                            v->lastLine, name.toStdString());
    m_editor->insertAfterLine(v->lastLine, q(block));
    m_variant = name;
}

ModelWindow* MainWindow::openModel(const QString& path)
{
    return m_models->open(path);
}

void MainWindow::onLoopClicked(const QString& axis, const QString& stage)
{
    const VariantView* v = shownVariant();
    if (!v || m_step < 0) return;
    // The loop view names the stage when the loop's body tells; else the first stage with the axis.
    for (auto& st : v->steps[static_cast<std::size_t>(m_step)].stages)
        for (auto& a : st.axes)
            if (q(a.name) == axis && (stage.isEmpty() || q(st.name) == stage)) {
                m_schedule->selectAxis(q(st.name), axis);
                return;
            }
}

} // namespace loopscope
