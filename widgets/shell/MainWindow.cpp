#include "shell/MainWindow.h"

#include "editor/PrimitiveHelp.h"
#include "shell/HelpDialogs.h"
#include "shell/ModelWindows.h"
#include "shell/Theme.h"
#include "shell/TuningController.h"
#include "views/CompareView.h"

#include "charts/ChartsView.h"
#include "charts/SweepPanel.h"
#include "charts/SweepStore.h"
#include "editor/EditorPane.h"
#include "editor/SchedulePanel.h"
#include "editor/StatementWriter.h"
#include "ir/GpuTarget.h"
#include "lower/Footprint.h"
#include "model/ModelWindow.h"
#include "shell/ChartsDock.h"
#include "shell/Document.h"
#include "shell/ExportDialog.h"
#include "shell/RunController.h"
#include "shell/RunSettingsDialog.h"
#include "te/VariantBlock.h"
#include "tune/TuneLog.h"
#include "tune/TunePanel.h"
#include "tune/TuneService.h"
#include "views/CodeView.h"
#include "views/LadderModel.h"
#include "views/LadderStore.h"
#include "views/LadderView.h"
#include "views/LoopNestView.h"
#include "views/SafeFile.h"
#include "views/VariantTreeView.h"
#include "worker/WorkerClient.h"

#include <QAction>
#include <QActionGroup>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStringDecoder>
#include <QStyle>
#include <QTemporaryFile>
#include <QTimer>
#include <QToolBar>

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
    const QString settingsNotice = setAsideDamagedSettings();
    m_editor = new EditorPane(this);
    setCentralWidget(m_editor);

    m_analysis = new AnalysisService(this);
    m_worker = new WorkerClient(this);
    m_document = new Document(m_editor, m_analysis, this);
    m_ladderModel = new LadderModel(this);
    m_runs = new RunController(m_worker, m_ladderModel, this);

    buildDocks();
    buildActions();
    buildStatusBar();
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
    restoreSettings();
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
        if (const VariantView* v = variantView(); v && row < static_cast<int>(v->steps.size()))
            m_editor->gotoLine(v->steps[static_cast<std::size_t>(row)].line);
    });
}

MainWindow::~MainWindow()
{
    // QWidget's destructor, which runs after this one has destroyed the members below, hides the
    // window and with it the docks, whose visibility signals reach handlers here that read those
    // members (the variant list, the analysis): a window destroyed with its docks on screen read
    // freed memory and threw from the close event. From here on nothing the window holds may
    // call back into it.
    for (QObject* o : findChildren<QObject*>())
        QObject::disconnect(o, nullptr, this, nullptr);
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
    connect(runs, &RunController::busyChanged, this, [this](bool busy) {
        m_progress->setVisible(busy);
        m_cancelAction->setEnabled(busy);
    });
    connect(runs, &RunController::progress, this, [this](const QString& phase, double fraction) {
        m_progress->setFormat(phase + QStringLiteral(" %p%"));
        m_progress->setValue(static_cast<int>(fraction * 100));
    });
    connect(runs, &RunController::statusMessage, statusBar(), &QStatusBar::showMessage);
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
                                       .arg(QString::fromStdString(m.llvmVersion))
                                 : QString::fromStdString(m.cpuNote));
    });
    connect(runs, &RunController::workerRefused, this, [this](const QString& message) {
        m_target->setText(tr("Worker of another build"));
        m_target->setToolTip(message);
        showNotice(tr("Cannot run code: %1").arg(message));
    });
    connect(runs, &RunController::compiled, this,
            [this](double ms) { m_compile->setText(tr("compile %1 ms").arg(ms, 0, 'f', 0)); });
    connect(runs, &RunController::ladderFinished, this, &MainWindow::showStoreNotices);
    connect(runs, &RunController::ladderFinished, this, &MainWindow::ladderFinished);
    connect(runs, &RunController::ladderFinished, this, &MainWindow::refreshVariantTree);
    connect(runs, &RunController::codeReady, this, &MainWindow::showCode);
    connect(runs, &RunController::profileReady, this, [this](const QString&) { showProfile(); });
    // TIR and assembly, linked both ways.
    connect(m_loopNest, &LoopNestView::tirLineSelected, m_asmView, &CodeView::setLinkedTirLine);
    connect(m_asmView, &CodeView::tirLineSelected, this, [this](int line) {
        m_loopNest->setLinkedLines(line > 0 ? QList<int>{line} : QList<int>{});
    });
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

    ChartsDock* charts = m_chartsDock;
    connect(charts->panel(), &SweepPanel::startRequested, this, [this] {
        m_runs->startSweep(m_chartsDock->sweepRequest(m_editor->text()),
                           m_chartsDock->sweepTimeLimitMs());
    });
    connect(charts->panel(), &SweepPanel::cancelRequested, runs, &RunController::cancelSweep);
    connect(charts, &ChartsDock::machineWanted, runs, &RunController::measureMachine);
    connect(runs, &RunController::sweepStarted, charts, &ChartsDock::beginSweep);
    connect(runs, &RunController::sweepProgressed, charts, &ChartsDock::showProgress);
    connect(runs, &RunController::sweepAnswered, charts, &ChartsDock::showResult);
    connect(runs, &RunController::sweepFinished, charts, &ChartsDock::endSweep);
    connect(runs, &RunController::sweepFinished, this, &MainWindow::showStoreNotices);
    connect(runs, &RunController::sweepFinished, this, &MainWindow::sweepFinished);
    connect(runs, &RunController::machineMeasured, charts, &ChartsDock::setMachine);
    // The points measured before for the text as it is (after the panel took the analysis).
    connect(m_analysis, &AnalysisService::analysisReady, charts, [this](ExplorationPtr result) {
        if (!result || !result->ok || m_runs->sweepRunning() || m_runs->sweepStore()->size() == 0)
            return;
        const QStringList parameters = m_chartsDock->panel()->parameters();
        m_chartsDock->showKnown(m_runs->sweepStore()->known(m_editor->text(), parameters),
                                parameters);
    });

    runs->describeWorker();
}

QString MainWindow::setAsideDamagedSettings()
{
    const QString file = QSettings().fileName();
    QFile settings(file);
    if (!settings.open(QIODevice::ReadOnly)) return {};
    const QByteArray bytes = settings.readAll();
    settings.close();
    // Settings files are UTF-8 text: zeros (what a crash can leave in a file) or other binary
    // bytes mean something else wrote there, even where QSettings would read keys out of them.
    QStringDecoder utf8(QStringDecoder::Utf8);
    [[maybe_unused]] const QString text = utf8.decode(bytes);
    bool damaged = bytes.contains('\0') || utf8.hasError();
    if (!damaged) {
        // Read afresh from a copy: QSettings reads a file once per process, and only the first
        // reader hears that it is damaged.
        QTemporaryFile copy;
        if (!copy.open() || copy.write(bytes) < 0 || !copy.flush()) return {};
        copy.close();
        damaged =
            QSettings(copy.fileName(), QSettings::IniFormat).status() == QSettings::FormatError;
    }
    if (!damaged) return {};
    return setAsideDamagedFile(file, tr("the settings"),
                               tr("Loopscope starts with the default settings"));
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

void MainWindow::restoreSettings()
{
    QSettings s;
    m_profileAction->setChecked(s.value(QStringLiteral("run/profile"), false).toBool());
    const QByteArray savedGeometry = s.value(QStringLiteral("window/geometry")).toByteArray();
    if (savedGeometry.isEmpty() || !restoreGeometry(savedGeometry)) {
        // The first start: most of the screen, up to the size the views are laid out for, with
        // room for the window's frame and the desktop's panels.
        const QScreen* primary = QGuiApplication::primaryScreen();
        const QRect available = primary ? primary->availableGeometry() : QRect();
        const QSize preferred(1500, 950);
        if (available.isValid())
            setGeometry(QStyle::alignedRect(Qt::LeftToRight, Qt::AlignCenter,
                                            preferred.boundedTo(QSize(available.width() * 19 / 20,
                                                                      available.height() * 9 / 10)),
                                            available));
        else
            resize(preferred);
    }
    // A geometry off every screen or larger than this one (saved on another screen, or damaged)
    // is brought onto the screen, at most its size: a window far too large cannot be drawn.
    const QScreen* screen = QGuiApplication::screenAt(geometry().center());
    if (!screen) screen = QGuiApplication::primaryScreen();
    if (const QRect available = screen ? screen->availableGeometry() : QRect();
        available.isValid() && (!available.intersects(geometry()) || width() > available.width() ||
                                height() > available.height())) {
        const QSize size = geometry().size().boundedTo(available.size());
        setGeometry(QStyle::alignedRect(Qt::LeftToRight, Qt::AlignCenter, size, available));
    }
    // A layout saved by a version with other docks is dropped for the default one.
    m_layoutRestored =
        restoreState(s.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
    m_threads->setValue(m_runs->settings().threads);
    m_runs->setThreads(m_threads->value()); // within the box's range, whatever the file says
    connect(m_threads, &QSpinBox::valueChanged, m_runs, &RunController::setThreads);
    m_structuredAction->setChecked(s.value(QStringLiteral("view/structured"), false).toBool());
}

void MainWindow::saveSettings() const
{
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState(kLayoutVersion));
    m_runs->settings().save();
    s.setValue(QStringLiteral("view/structured"), m_structuredAction->isChecked());
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    // The default layout, once the window has its size; a saved layout wins.
    if (m_defaultDockSizes && !m_layoutRestored) QTimer::singleShot(0, this, m_defaultDockSizes);
    m_defaultDockSizes = nullptr;
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
        saveSettings();
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
    const VariantView* v = variantView();
    m_timing->setText(
        tr("evaluate %1 ms · lower %2 ms").arg(x.evaluateMs, 0, 'f', 1).arg(x.lowerMs, 0, 'f', 1));

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
    // The shown variant against the next one, or its last step against its first.
    const VariantView* v = variantView();
    if (v && m_exploration) {
        const auto& all = m_exploration->variants;
        m_compare->choose(0, m_variant);
        if (all.size() > 1) {
            for (std::size_t k = 0; k < all.size(); ++k)
                if (all[k].name == v->name) m_compare->choose(1, q(all[(k + 1) % all.size()].name));
        } else {
            m_compare->choose(1, m_variant, 0);
        }
    }
    m_compare->show();
    m_compare->raise();
}

void MainWindow::zoomText(int steps)
{
    m_zoom += steps;
    m_editor->setZoom(m_zoom);
    // QPlainTextEdit::zoomIn takes negative steps as zooming out.
    for (QWidget* view : {static_cast<QWidget*>(m_loopNest), static_cast<QWidget*>(m_llvmView),
                          static_cast<QWidget*>(m_asmView)})
        for (auto* text : view->findChildren<QPlainTextEdit*>())
            text->zoomIn(steps);
}

void MainWindow::applyErrorState()
{
    const bool stale = !m_scriptError.isEmpty();
    const QString reason =
        stale ? tr("the script has an error at %1").arg(m_scriptError) : QString();
    m_schedule->setUnavailable(reason);
    m_errorLabel->setText(stale ? tr("Error at %1 — showing the last good state").arg(m_scriptError)
                                : QString());
    m_errorLabel->setVisible(stale);
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

const VariantView* MainWindow::variantView() const
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
    if (const VariantView* v = variantView()) {
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
    const VariantView* v = variantView();
    if (!v || v->steps.empty()) return;
    int step = std::clamp(m_step, 0, static_cast<int>(v->steps.size()) - 1);
    m_loopNest->showStep(step);
    m_ladder->setCurrentStep(step);
    // The panel shows the state where a clicked statement is written: after the variant's last
    // step, whichever step the views show.
    const StepView& s = v->steps.back();
    ScheduleContext ctx;
    ctx.scheduleVar = v->scheduleVar;
    for (auto& [var, tensor] : v->tensorVars)
        ctx.tensorVars[tensor] = var;
    for (auto& [var, axis] : v->axisVars)
        ctx.axisVars[axis] = var;
    ctx.stageAxisVars = v->stageAxisVars;
    for (auto& n : m_exploration->allNames)
        ctx.usedNames.insert(n);
    for (auto& st : s.stages)
        ctx.readers[st.name] = st.readers;
    ctx.schedule = s.schedule;
    m_schedule->setStages(s.stages, ctx);
    showProfile();
    requestCode();
}

const protocol::StepProfile* MainWindow::shownProfile() const
{
    const VariantView* v = variantView();
    if (!v || v->steps.empty()) return nullptr;
    const int step = std::clamp(m_step, 0, static_cast<int>(v->steps.size()) - 1);
    const protocol::StepProfile* p = m_runs->profileOf(stepKey(*v, step));
    // A profile is of the printing it numbers: the step's, as shown.
    if (!p || p->tir != v->steps[std::size_t(step)].tir) return nullptr;
    return p;
}

void MainWindow::showProfile()
{
    const protocol::StepProfile* p = shownProfile();
    if (!p) {
        m_loopNest->setHeat({});
        if (m_asmView->showsProfile()) {
            m_asmView->clear();
            requestCode();
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
    m_asmView->setAssemblyRows(rows);
    m_asmView->setCaption(
        tr("Profiled kernel · %1 samples on %2, %3 % in the kernel · %4")
            .arg(p->samples)
            .arg(p->threads == 1 ? tr("1 thread") : tr("%1 threads").arg(p->threads))
            .arg(p->samples > 0 ? 100.0 * double(p->inKernel) / double(p->samples) : 0.0, 0, 'f', 0)
            .arg(p->counters ? tr("IPC %1").arg(p->ipc, 0, 'f', 2) : tr("no hardware counters")));
}

void MainWindow::setProfiling(bool on)
{
    m_profileAction->setChecked(on);
}

bool MainWindow::profiling() const
{
    return m_profileAction->isChecked();
}

void MainWindow::profileStep()
{
    if (!m_scriptError.isEmpty()) {
        statusBar()->showMessage(
            tr("Cannot profile: the script has an error at %1").arg(m_scriptError), 8000);
        return;
    }
    const VariantView* v = variantView();
    if (!v || v->steps.empty()) return;
    const int step = std::clamp(m_step, 0, static_cast<int>(v->steps.size()) - 1);
    m_runs->profileStep(m_editor->text(), *v, step);
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
    if (const VariantView* v = variantView()) m_runs->runLadder(m_editor->text(), *v);
}

void MainWindow::cancelRuns()
{
    m_runs->cancelAll();
}

void MainWindow::requestCode()
{
    const VariantView* v = variantView();
    // The code shown stays the last good state's while the script has an error.
    if (!v || !m_scriptError.isEmpty()) return;
    auto* llvmDock = findChild<QDockWidget*>(QStringLiteral("LlvmDock"));
    auto* asmDock = findChild<QDockWidget*>(QStringLiteral("AsmDock"));
    QString format;
    if (asmDock && asmDock->isVisible() && !asmDock->visibleRegion().isEmpty())
        format = QStringLiteral("asm");
    else if (llvmDock && llvmDock->isVisible() && !llvmDock->visibleRegion().isEmpty())
        format = QStringLiteral("llvm");
    if (format.isEmpty()) return;
    if (format == QStringLiteral("asm") && shownProfile()) return; // shown from the profile
    // A GPU target's kernels: CUDA C where the CPU's LLVM IR is, PTX where its assembly is.
    const QString target = codeTarget();
    if (isGpuTarget(target.toStdString()))
        format = format == QStringLiteral("asm") ? QStringLiteral("ptx") : QStringLiteral("cuda");
    const QString chosen = m_targetBox ? m_targetBox->currentData().toString() : QString();
    m_runs->requestCode(m_editor->text(), m_variant, m_step, format, chosen);
}

QString MainWindow::codeTarget() const
{
    const QString chosen = m_targetBox ? m_targetBox->currentData().toString() : QString();
    if (!chosen.isEmpty()) return chosen;
    const VariantView* v = variantView();
    return v ? QString::fromStdString(v->target) : QString();
}

void MainWindow::showCode(const QString& format, const QString& text)
{
    if (format == QStringLiteral("ptx")) {
        m_asmView->setCaption(tr("PTX of the kernels for %1 · compiled through LLVM's NVPTX; the "
                                 "driver compiles it for the GPU it runs on")
                                  .arg(codeTarget()));
        m_asmView->setText(text, CodeView::Language::Assembly);
        return;
    }
    if (format == QStringLiteral("cuda")) {
        m_llvmView->setText(text, CodeView::Language::Plain);
        return;
    }
    const bool asmFormat = format == QStringLiteral("asm");
    // A profiled step's assembly is the profiled kernel's, with its samples.
    if (asmFormat && shownProfile()) return;
    if (asmFormat)
        m_asmView->setCaption(tr("Assembly · the gutter gives each instruction's TIR line"));
    (asmFormat ? m_asmView : m_llvmView)
        ->setText(text, asmFormat ? CodeView::Language::Assembly : CodeView::Language::LlvmIr);
}

void MainWindow::exportVariant(const QString& format)
{
    const VariantView* v = variantView();
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

void MainWindow::showSettings()
{
    RunSettingsDialog dialog(m_runs->settings(), this);
    if (dialog.exec() != QDialog::Accepted) return;
    m_runs->setSettings(dialog.settings());
    saveSettings();
}

// ---- editing from the panels ----

void MainWindow::onStatementRequested(const QString& statement)
{
    const VariantView* v = variantView();
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
    const VariantView* v = variantView();
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
    const VariantView* v = variantView();
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
