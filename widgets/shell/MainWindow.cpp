#include "shell/MainWindow.h"

#include "charts/ChartsView.h"
#include "charts/SweepPanel.h"
#include "charts/SweepStore.h"
#include "editor/EditorPane.h"
#include "editor/SchedulePanel.h"
#include "editor/StatementWriter.h"
#include "lower/Lower.h"
#include "shell/RecoveryStore.h"
#include "views/CodeView.h"
#include "views/LadderModel.h"
#include "views/LadderView.h"
#include "views/LoopNestView.h"
#include "worker/WorkerClient.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSaveFile>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <limits>

namespace loopscope {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QString fileFilter()
{
    return QObject::tr("TE scripts (*.py);;All files (*)");
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setObjectName(QStringLiteral("MainWindow"));
    m_editor = new EditorPane(this);
    setCentralWidget(m_editor);

    m_analysis = new AnalysisService(this);
    m_worker = new WorkerClient(this);
    QString dataDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    m_recovery = new RecoveryStore(dataDir, this);
    m_sweepStore = std::make_unique<SweepStore>(dataDir + QStringLiteral("/sweep-points.json"));

    buildDocks();
    buildActions();
    buildStatusBar();
    restoreSettings();

    connect(m_editor, &EditorPane::textEdited, this, &MainWindow::onTextEdited);
    connect(m_editor, &EditorPane::cursorLineChanged, this, &MainWindow::onCursorLine);
    connect(m_analysis, &AnalysisService::analysisReady, this, &MainWindow::onAnalysis);
    connect(m_schedule, &SchedulePanel::statementRequested, this,
            &MainWindow::onStatementRequested);
    connect(m_schedule, &SchedulePanel::newVariantRequested, this,
            &MainWindow::onNewVariantRequested);
    connect(m_loopNest, &LoopNestView::loopClicked, this, &MainWindow::onLoopClicked);
    connect(m_ladder, &LadderView::stepActivated, this, [this](int row) {
        selectStep(row);
        if (const VariantView* v = variantView(); v && row < static_cast<int>(v->steps.size()))
            m_editor->gotoLine(v->steps[static_cast<std::size_t>(row)].line);
    });
    connect(m_worker, &WorkerClient::finished, this, &MainWindow::onWorkerFinished);
    connect(m_worker, &WorkerClient::failed, this, &MainWindow::onWorkerFailed);
    connect(m_worker, &WorkerClient::busyChanged, this, [this](bool busy) {
        m_progress->setVisible(busy);
        m_cancelAction->setEnabled(busy);
    });
    connect(m_worker, &WorkerClient::progress, this,
            [this](int id, const QString& phase, double fraction) {
                Q_UNUSED(id);
                m_progress->setFormat(phase + QStringLiteral(" %p%"));
                m_progress->setValue(static_cast<int>(fraction * 100));
            });
    m_worker->setTimeLimitMs(m_timeLimitMs);
    updateTitle();
}

MainWindow::~MainWindow() = default;

// ---- construction ----

void MainWindow::buildDocks()
{
    setDockOptions(AnimatedDocks | AllowNestedDocks | AllowTabbedDocks);
    auto dock = [this](const QString& title, const QString& name, QWidget* w,
                       Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    m_schedule = new SchedulePanel(this);
    m_loopNest = new LoopNestView(this);
    m_ladderModel = new LadderModel(this);
    m_ladder = new LadderView(this);
    m_ladder->setModel(m_ladderModel);
    m_llvmView = new CodeView(this);
    m_asmView = new CodeView(this);
    m_llvmView->setPlaceholder(tr("Select a step to see its LLVM IR."));
    m_asmView->setPlaceholder(tr("Select a step to see its assembly."));

    auto* scheduleDock =
        dock(tr("Schedule"), QStringLiteral("ScheduleDock"), m_schedule, Qt::LeftDockWidgetArea);
    auto* loopDock =
        dock(tr("Loop nest"), QStringLiteral("LoopNestDock"), m_loopNest, Qt::RightDockWidgetArea);
    auto* ladderDock =
        dock(tr("Ladder"), QStringLiteral("LadderDock"), m_ladder, Qt::BottomDockWidgetArea);
    auto* llvmDock =
        dock(tr("LLVM IR"), QStringLiteral("LlvmDock"), m_llvmView, Qt::RightDockWidgetArea);
    auto* asmDock =
        dock(tr("Assembly"), QStringLiteral("AsmDock"), m_asmView, Qt::RightDockWidgetArea);
    // The charts share the tall right-hand area with the loop nest, so a sweep's lines have room.
    QDockWidget* chartsDock = buildCharts();
    addDockWidget(Qt::RightDockWidgetArea, chartsDock);
    tabifyDockWidget(loopDock, llvmDock);
    tabifyDockWidget(llvmDock, asmDock);
    tabifyDockWidget(asmDock, chartsDock);
    loopDock->raise();
    m_defaultDockSizes = [this, scheduleDock, loopDock, ladderDock] {
        resizeDocks({scheduleDock, loopDock}, {360, 640}, Qt::Horizontal);
        resizeDocks({ladderDock}, {240}, Qt::Vertical);
    };
    connect(llvmDock, &QDockWidget::visibilityChanged, this, [this](bool) { requestCode(); });
    connect(asmDock, &QDockWidget::visibilityChanged, this, [this](bool) { requestCode(); });
}

void MainWindow::buildActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, this, &MainWindow::newDocument);
    file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::openDialog);
    QMenu* samples = file->addMenu(tr("Open &Sample"));
    QDir dir(samplesDirectory());
    for (const QFileInfo& fi :
         dir.entryInfoList({QStringLiteral("*.py")}, QDir::Files, QDir::Name)) {
        QString path = fi.absoluteFilePath();
        samples->addAction(fi.fileName(), this, [this, path] { openSample(path); });
    }
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As…"), QKeySequence::SaveAs, this, &MainWindow::saveAs);
    QMenu* exportMenu = file->addMenu(tr("&Export Variant"));
    for (auto [label, format] : {std::pair{tr("TVM script…"), QStringLiteral("tvm")},
                                 std::pair{tr("C source…"), QStringLiteral("c")},
                                 std::pair{tr("LLVM IR…"), QStringLiteral("llvm")},
                                 std::pair{tr("Assembly…"), QStringLiteral("asm")}}) {
        QString f = format;
        exportMenu->addAction(label, this, [this, f] { exportVariant(f); });
    }
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(tr("&Undo"), QKeySequence::Undo, m_editor, &EditorPane::undo);
    edit->addAction(tr("&Redo"), QKeySequence::Redo, m_editor, &EditorPane::redo);
    edit->addSeparator();
    edit->addAction(tr("New Variant From Here"), this, &MainWindow::onNewVariantRequested);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    m_structuredAction = view->addAction(tr("&Structured Printing"));
    m_structuredAction->setCheckable(true);
    m_structuredAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    connect(m_structuredAction, &QAction::toggled, m_loopNest, &LoopNestView::setPrinting);
    view->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>())
        view->addAction(d->toggleViewAction());

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    m_runAction =
        run->addAction(tr("&Run Ladder"), QKeySequence(Qt::Key_F5), this, &MainWindow::runLadder);
    m_cancelAction =
        run->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancelRuns);
    m_cancelAction->setEnabled(false);
    run->addAction(tr("Re-&measure Machine"), this, &MainWindow::measureMachine);
    run->addAction(tr("&Forget Measured Points"), this, [this] {
        m_sweepStore->clear();
        statusBar()->showMessage(tr("The next sweep measures every point again."), 5000);
    });
    run->addSeparator();
    run->addAction(tr("&Settings…"), this, &MainWindow::showSettings);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Loopscope"), this, [this] {
        QMessageBox::about(
            this, tr("About Loopscope"),
            tr("<b>Loopscope</b><br>An explorer for tensor-program schedules: TE scripts, "
               "TVM 0.17 lowering, LLVM code generation and benchmarks."));
    });

    QToolBar* tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("MainToolBar"));
    tb->addWidget(new QLabel(tr(" Variant: "), tb));
    m_variantBox = new QComboBox(tb);
    m_variantBox->setMinimumContentsLength(18);
    m_variantBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    tb->addWidget(m_variantBox);
    connect(m_variantBox, &QComboBox::activated, this,
            [this](int i) { selectVariant(m_variantBox->itemText(i)); });
    tb->addSeparator();
    tb->addAction(m_runAction);
    tb->addAction(m_cancelAction);
    tb->addWidget(new QLabel(tr(" Threads: "), tb));
    m_threads = new QSpinBox(tb);
    m_threads->setRange(0, 256);
    m_threads->setSpecialValueText(tr("all"));
    m_threads->setToolTip(tr("Threads for parallel loops (0: all hardware threads)"));
    tb->addWidget(m_threads);
    tb->addAction(m_structuredAction);
}

void MainWindow::buildStatusBar()
{
    m_timing = new QLabel(this);
    m_compile = new QLabel(this);
    m_target = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(180);
    m_progress->setRange(0, 100);
    m_progress->setTextVisible(true);
    m_progress->setVisible(false);
    statusBar()->addWidget(m_timing);
    statusBar()->addWidget(m_compile);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_target);
    int id = m_worker->submit(QJsonObject{{QStringLiteral("cmd"), QStringLiteral("ping")}});
    m_runRows.insert(id, -2); // -2: the ping
}

void MainWindow::restoreSettings()
{
    QSettings s;
    restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
    // A layout saved by a version with other docks is dropped for the default one.
    m_layoutRestored =
        restoreState(s.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
    m_timeLimitMs = s.value(QStringLiteral("run/timeLimitMs"), 30000).toInt();
    m_repeat = s.value(QStringLiteral("run/repeat"), 3).toInt();
    m_minRepeatMs = s.value(QStringLiteral("run/minRepeatMs"), 50).toInt();
    m_threads->setValue(s.value(QStringLiteral("run/threads"), 0).toInt());
    m_structuredAction->setChecked(s.value(QStringLiteral("view/structured"), false).toBool());
    rebuildRecentMenu();
}

void MainWindow::saveSettings() const
{
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState(kLayoutVersion));
    s.setValue(QStringLiteral("run/timeLimitMs"), m_timeLimitMs);
    s.setValue(QStringLiteral("run/repeat"), m_repeat);
    s.setValue(QStringLiteral("run/minRepeatMs"), m_minRepeatMs);
    s.setValue(QStringLiteral("run/threads"), m_threads->value());
    s.setValue(QStringLiteral("view/structured"), m_structuredAction->isChecked());
}

// ---- analysis ----

void MainWindow::setScriptText(const QString& text, const QString& path, bool modified)
{
    m_applyingText = true;
    if (modified) {
        // Recovered or generated text: an edit of an empty document, so it counts as unsaved.
        m_editor->setText(QString());
        m_editor->replaceText(text);
    } else {
        m_editor->setText(text);
    }
    m_applyingText = false;
    m_path = path;
    m_analysis->scriptChanged(text);
    m_analysis->analyzeNow();
    updateTitle();
}

void MainWindow::onTextEdited()
{
    QString text = m_editor->text();
    m_analysis->scriptChanged(text);
    if (!m_applyingText) m_recovery->textChanged(m_path, text);
    updateTitle();
}

void MainWindow::onAnalysis(ExplorationPtr result)
{
    m_exploration = result;
    const Exploration& x = *result;
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

    QList<EditorPane::Diagnostic> diags;
    if (!x.ok) diags.append({x.error.loc.line, x.error.loc.col, q(x.error.message)});
    const VariantView* v = variantView();
    if (v) {
        for (auto& s : v->steps)
            if (s.error)
                diags.append({s.error->loc.line ? s.error->loc.line : s.line, s.error->loc.col,
                              q(s.error->message)});
    }
    m_editor->setDiagnostics(diags);
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
        m_ladderModel->setSteps(rows);
        int steps = static_cast<int>(v->steps.size());
        if (m_step < 0 || m_step >= steps) m_step = steps - 1;
    }
    showStepDetails();
    emit analysisApplied();
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
    m_analysis->setDetailVariant(name);
    // Bring the variant's block into view unless the cursor is already in it.
    if (const VariantView* v = variantView()) {
        int line = m_editor->cursorLine();
        if (line < v->line || line > v->lastLine) m_editor->gotoLine(v->lastLine);
    }
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
    const StepView& s = v->steps[static_cast<std::size_t>(step)];
    ScheduleContext ctx;
    ctx.scheduleVar = v->scheduleVar;
    for (auto& [var, tensor] : v->tensorVars)
        ctx.tensorVars[tensor] = var;
    for (auto& [var, axis] : v->axisVars)
        ctx.axisVars[axis] = var;
    for (auto& n : m_exploration->allNames)
        ctx.usedNames.insert(n);
    for (auto& st : s.stages)
        ctx.readers[st.name] = st.readers;
    m_schedule->setStages(s.stages, ctx);
    requestCode();
}

QString MainWindow::stepKey(const VariantView& v, int step) const
{
    // Everything up to the step's statement decides what the step computes; later text does not.
    QString text = m_editor->text();
    int line = v.steps[static_cast<std::size_t>(step)].line;
    QStringList lines = text.split(QLatin1Char('\n'));
    QString prefix = lines.mid(0, std::max(0, line)).join(QLatin1Char('\n'));
    QCryptographicHash h(QCryptographicHash::Sha1);
    h.addData(prefix.toUtf8());
    for (auto& a : v.args)
        h.addData(QByteArray::fromStdString(a));
    h.addData(QByteArray::number(m_threads->value()));
    return QString::fromLatin1(h.result().toHex());
}

// ---- running ----

QJsonObject MainWindow::measureRequest(int step) const
{
    return QJsonObject{{QStringLiteral("cmd"), QStringLiteral("measure")},
                       {QStringLiteral("script"), m_editor->text()},
                       {QStringLiteral("variant"), m_variant},
                       {QStringLiteral("step"), step},
                       {QStringLiteral("threads"), m_threads->value()},
                       {QStringLiteral("check"), true},
                       {QStringLiteral("repeat"), m_repeat},
                       {QStringLiteral("min_repeat_ms"), m_minRepeatMs}};
}

void MainWindow::runLadder()
{
    const VariantView* v = variantView();
    if (!v) return;
    m_recovery->flush(); // whatever the generated code does, the text is safe
    for (int row = 0; row < static_cast<int>(v->steps.size()); ++row) {
        if (m_ladderModel->resultOf(row)) continue;
        if (v->steps[static_cast<std::size_t>(row)].error) {
            m_ladderModel->setState(row, LadderModel::State::Failed,
                                    q(v->steps[static_cast<std::size_t>(row)].error->message));
            continue;
        }
        int id = m_worker->submit(measureRequest(row));
        m_runRows.insert(id, row);
        m_ladderModel->setState(row, LadderModel::State::Queued, {});
    }
    if (m_runRows.isEmpty()) emit ladderFinished();
}

void MainWindow::cancelRuns()
{
    m_worker->cancelAll();
    for (auto it = m_runRows.begin(); it != m_runRows.end(); ++it)
        if (it.value() >= 0)
            m_ladderModel->setState(it.value(), LadderModel::State::NotRun, tr("cancelled"));
    m_runRows.clear();
    emit ladderFinished();
}

void MainWindow::onWorkerFinished(int id, const QJsonObject& r)
{
    if (finishChartsRequest(id, &r, {})) return;
    if (id == m_exportRequest) {
        m_exportRequest = -1;
        if (r.value(QStringLiteral("status")).toString() != QStringLiteral("ok")) {
            QMessageBox::warning(this, tr("Export"), r.value(QStringLiteral("message")).toString());
            return;
        }
        showExportDialog(m_variant, r.value(QStringLiteral("text")).toString(),
                         r.value(QStringLiteral("function")).toString() +
                             r.value(QStringLiteral("suffix")).toString());
        return;
    }
    if (id == m_codeRequest) {
        m_codeRequest = -1;
        QString text = r.value(QStringLiteral("text")).toString();
        if (r.value(QStringLiteral("status")).toString() != QStringLiteral("ok"))
            text = r.value(QStringLiteral("message")).toString();
        bool asmFormat = r.value(QStringLiteral("format")).toString() == QStringLiteral("asm");
        (asmFormat ? m_asmView : m_llvmView)
            ->setText(text, asmFormat ? CodeView::Language::Assembly : CodeView::Language::LlvmIr);
        return;
    }
    auto it = m_runRows.find(id);
    if (it == m_runRows.end()) return;
    int row = it.value();
    m_runRows.erase(it);
    if (row == -2) {
        m_target->setText(tr("CPU %1 · %2 threads")
                              .arg(r.value(QStringLiteral("cpu")).toString())
                              .arg(r.value(QStringLiteral("threads")).toInt()));
        return;
    }
    QString status = r.value(QStringLiteral("status")).toString();
    if (status == QStringLiteral("ok")) {
        LadderModel::Result res;
        res.medianMs = r.value(QStringLiteral("ms_median")).toDouble();
        res.minMs = r.value(QStringLiteral("ms_min")).toDouble();
        res.maxMs = r.value(QStringLiteral("ms_max")).toDouble();
        res.gflops = r.value(QStringLiteral("gflops")).toDouble();
        res.checked = r.value(QStringLiteral("checked")).toBool();
        m_ladderModel->setResult(row, res);
        m_compile->setText(
            tr("compile %1 ms").arg(r.value(QStringLiteral("compile_ms")).toDouble(), 0, 'f', 0));
    } else if (status == QStringLiteral("wrong")) {
        m_ladderModel->setState(row, LadderModel::State::Wrong,
                                r.value(QStringLiteral("first_mismatch")).toString());
    } else {
        m_ladderModel->setState(row, LadderModel::State::Failed,
                                r.value(QStringLiteral("message")).toString());
    }
    bool pending = std::any_of(m_runRows.begin(), m_runRows.end(), [](int v) { return v >= 0; });
    if (!pending) emit ladderFinished();
}

void MainWindow::onWorkerFailed(int id, const QString& message)
{
    finishChartsRequest(id, nullptr, message);
    if (id == m_codeRequest) m_codeRequest = -1;
    auto it = m_runRows.find(id);
    if (it != m_runRows.end()) {
        if (it.value() >= 0)
            m_ladderModel->setState(it.value(), LadderModel::State::Failed, message);
        m_runRows.erase(it);
    }
    statusBar()->showMessage(message, 10000);
    bool pending = std::any_of(m_runRows.begin(), m_runRows.end(), [](int v) { return v >= 0; });
    if (!pending) emit ladderFinished();
}

void MainWindow::requestCode()
{
    const VariantView* v = variantView();
    if (!v) return;
    auto* llvmDock = findChild<QDockWidget*>(QStringLiteral("LlvmDock"));
    auto* asmDock = findChild<QDockWidget*>(QStringLiteral("AsmDock"));
    QString format;
    if (asmDock && asmDock->isVisible() && !asmDock->visibleRegion().isEmpty())
        format = QStringLiteral("asm");
    else if (llvmDock && llvmDock->isVisible() && !llvmDock->visibleRegion().isEmpty())
        format = QStringLiteral("llvm");
    if (format.isEmpty()) return;
    if (m_codeRequest >= 0) m_worker->cancel(m_codeRequest);
    // Ahead of queued ladder rows: the code shows after the row being measured, not after all.
    m_codeRequest =
        m_worker->submitFirst(QJsonObject{{QStringLiteral("cmd"), QStringLiteral("emit")},
                                          {QStringLiteral("script"), m_editor->text()},
                                          {QStringLiteral("variant"), m_variant},
                                          {QStringLiteral("step"), m_step},
                                          {QStringLiteral("format"), format}});
}

// ---- editing from the panels ----

void MainWindow::onStatementRequested(const QString& statement)
{
    const VariantView* v = variantView();
    if (!v) return;
    m_editor->appendToVariantBlock(v->lastLine, statement);
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

// ---- files ----

QString MainWindow::samplesDirectory()
{
    QString exe = QCoreApplication::applicationDirPath();
    const QStringList candidates{exe + QStringLiteral("/../../samples"),
                                 exe + QStringLiteral("/../share/loopscope/samples"),
                                 QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples")};
    for (const QString& candidate : candidates) {
        if (QDir(candidate).exists()) return QDir(candidate).canonicalPath();
    }
    return {};
}

bool MainWindow::openFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        QMessageBox::warning(
            this, tr("Open"),
            tr("Cannot read %1: %2").arg(QDir::toNativeSeparators(path), f.errorString()));
        return false;
    }
    setScriptText(QString::fromUtf8(f.readAll()), QFileInfo(path).absoluteFilePath(), false);
    updateRecentFiles(m_path);
    return true;
}

void MainWindow::openDialog()
{
    if (!maybeSave()) return;
    QString path = QFileDialog::getOpenFileName(this, tr("Open TE Script"),
                                                QFileInfo(m_path).absolutePath(), fileFilter());
    if (!path.isEmpty()) openFile(path);
}

void MainWindow::openSample(const QString& path)
{
    if (!maybeSave()) return;
    openFile(path);
}

void MainWindow::newDocument()
{
    if (!maybeSave()) return;
    setScriptText(QStringLiteral("import tvm\nfrom tvm import te\n\n"), QString(), false);
}

bool MainWindow::maybeSave()
{
    if (!m_editor->isModified()) return true;
    auto answer = QMessageBox::question(
        this, tr("Unsaved changes"),
        tr("%1 has changes that are not saved. Save them?")
            .arg(m_path.isEmpty() ? tr("This script") : QFileInfo(m_path).fileName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

bool MainWindow::save()
{
    if (m_path.isEmpty()) return saveAs();
    return writeFile(m_path);
}

bool MainWindow::saveAs()
{
    QString path = QFileDialog::getSaveFileName(this, tr("Save TE Script"), m_path, fileFilter());
    if (path.isEmpty()) return false;
    return writeFile(path);
}

bool MainWindow::writeFile(const QString& path)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(m_editor->text().toUtf8()) < 0 || !f.commit()) {
        QMessageBox::warning(
            this, tr("Save"),
            tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), f.errorString()));
        return false;
    }
    m_path = QFileInfo(path).absoluteFilePath();
    m_editor->setModified(false);
    m_recovery->clear();
    updateRecentFiles(m_path);
    updateTitle();
    return true;
}

void MainWindow::updateRecentFiles(const QString& path)
{
    QSettings s;
    QStringList recent = s.value(QStringLiteral("files/recent")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 10)
        recent.removeLast();
    s.setValue(QStringLiteral("files/recent"), recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    QStringList recent = QSettings().value(QStringLiteral("files/recent")).toStringList();
    for (const QString& p : recent)
        m_recentMenu->addAction(QDir::toNativeSeparators(p), this, [this, p] {
            if (maybeSave()) openFile(p);
        });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::updateTitle()
{
    QString name = m_path.isEmpty() ? tr("untitled") : QFileInfo(m_path).fileName();
    setWindowTitle(name + QStringLiteral("[*] — Loopscope"));
    setWindowModified(m_editor->isModified());
}

bool MainWindow::offerRecovery(bool ask)
{
    RecoveryStore::Recovery r = m_recovery->pending();
    if (!r.available) return false;
    if (ask) {
        auto answer = QMessageBox::question(
            this, tr("Recover unsaved text"),
            tr("Loopscope did not close normally. Recover the text of %1 autosaved at %2?")
                .arg(r.documentPath.isEmpty() ? tr("an untitled script")
                                              : QFileInfo(r.documentPath).fileName(),
                     r.savedAt),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
        if (answer != QMessageBox::Yes) {
            m_recovery->clear();
            return false;
        }
    }
    setScriptText(r.text, r.documentPath, true);
    return true;
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
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    saveSettings();
    m_sweepStore->save();
    m_recovery->clear();
    event->accept();
}

// ---- export and settings ----

void MainWindow::exportVariant(const QString& format)
{
    const VariantView* v = variantView();
    if (!v) return;
    if (m_exploration && !m_exploration->ok) {
        QMessageBox::warning(this, tr("Export"),
                             tr("The script has an error at line %1; fix it before exporting.")
                                 .arg(m_exploration->error.loc.line));
        return;
    }
    // Every format comes from the worker, through the command-line tool's export code (the
    // window links no code generator).
    int id = m_worker->submitFirst(
        QJsonObject{{QStringLiteral("cmd"), QStringLiteral("emit")},
                    {QStringLiteral("script"), m_editor->text()},
                    {QStringLiteral("variant"), m_variant},
                    {QStringLiteral("step"), -1},
                    {QStringLiteral("format"), format},
                    {QStringLiteral("source"), QFileInfo(m_path).fileName()}});
    m_exportRequest = id;
    statusBar()->showMessage(tr("Exporting %1 as %2…").arg(m_variant, format), 5000);
}

void MainWindow::showExportDialog(const QString& variant, const QString& text,
                                  const QString& suggestedName)
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Export %1").arg(variant));
    auto* layout = new QVBoxLayout(&dialog);
    auto* view = new QPlainTextEdit(text, &dialog);
    view->setReadOnly(true);
    view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    view->setMinimumSize(720, 480);
    layout->addWidget(view);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Close, &dialog);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, [&] {
        QString path = QFileDialog::getSaveFileName(&dialog, tr("Save Export"), suggestedName);
        if (path.isEmpty()) return;
        QSaveFile f(path);
        if (f.open(QIODevice::WriteOnly) && f.write(text.toUtf8()) >= 0 && f.commit())
            dialog.accept();
        else
            QMessageBox::warning(&dialog, tr("Save"), f.errorString());
    });
    dialog.exec();
}

void MainWindow::showSettings()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Run Settings"));
    auto* form = new QFormLayout(&dialog);
    auto* limit = new QSpinBox(&dialog);
    limit->setRange(1, 3600);
    limit->setSuffix(tr(" s"));
    limit->setValue(m_timeLimitMs / 1000);
    auto* repeat = new QSpinBox(&dialog);
    repeat->setRange(1, 100);
    repeat->setValue(m_repeat);
    auto* minMs = new QSpinBox(&dialog);
    minMs->setRange(0, 10000);
    minMs->setSuffix(tr(" ms"));
    minMs->setValue(m_minRepeatMs);
    form->addRow(tr("Time limit per run"), limit);
    form->addRow(tr("Measurements (repeat)"), repeat);
    form->addRow(tr("Minimum measurement time"), minMs);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted) return;
    m_timeLimitMs = limit->value() * 1000;
    m_repeat = repeat->value();
    m_minRepeatMs = minMs->value();
    m_worker->setTimeLimitMs(m_timeLimitMs);
    saveSettings();
}

// ---- charts: the sweep panel, the charts and the machine's reference lines ----

QDockWidget* MainWindow::buildCharts()
{
    auto* box = new QWidget(this);
    m_sweepPanel = new SweepPanel(box);
    m_charts = new ChartsView(box);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_sweepPanel);
    layout->addWidget(m_charts, 1);
    auto* d = new QDockWidget(tr("Charts"), this);
    d->setObjectName(QStringLiteral("ChartsDock"));
    d->setWidget(box);

    connect(m_analysis, &AnalysisService::analysisReady, m_sweepPanel, &SweepPanel::setExploration);
    connect(m_sweepPanel, &SweepPanel::startRequested, this, &MainWindow::startSweep);
    connect(m_sweepPanel, &SweepPanel::cancelRequested, this, [this] {
        if (m_sweepRequest >= 0) m_worker->cancel(m_sweepRequest); // the points stay
        m_sweepStore->save();
    });
    connect(m_worker, &WorkerClient::message, this, &MainWindow::onWorkerMessage);
    connect(m_worker, &WorkerClient::cancelled, this, [this](int id) {
        if (id == m_machineRequest) m_machineRequest = -1;
        if (id != m_sweepRequest) return;
        m_sweepRequest = -1;
        m_sweepPanel->setRunning(false);
        emit sweepFinished();
    });
    // The reference lines: remembered from the last measurement, else measured on first show.
    QSettings s;
    const double peak = s.value(QStringLiteral("machine/peakGflops")).toDouble();
    const double bandwidth = s.value(QStringLiteral("machine/bandwidthGBs")).toDouble();
    m_machineKnown = peak > 0 && bandwidth > 0;
    m_charts->setPeakGflops(peak);
    m_charts->setBandwidthGbs(bandwidth);
    connect(d, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && !m_machineKnown && m_machineRequest < 0) measureMachine();
    });
    return d;
}

void MainWindow::startSweep()
{
    if (m_sweepRequest >= 0) m_worker->cancel(m_sweepRequest);
    m_sweepScript = m_editor->text();
    m_sweepParameters = m_sweepPanel->parameters();
    QJsonObject r = m_sweepPanel->sweepRequest(m_sweepScript);
    r.insert(QStringLiteral("known"), m_sweepStore->known(m_sweepScript, m_sweepParameters));
    r.insert(QStringLiteral("threads"), m_threads->value());
    r.insert(QStringLiteral("repeat"), m_repeat);
    r.insert(QStringLiteral("min_repeat_ms"), m_minRepeatMs);
    // The whole sweep: at least 20 minutes, more when every point may take its full limit.
    const qint64 points = m_sweepPanel->pointTotal() +
                          (m_sweepPanel->reference() ? m_sweepPanel->values().size() : 0);
    const qint64 worst = points * (m_sweepPanel->pointLimitSeconds() * 4 + 10) * 1000;
    r.insert(QStringLiteral("time_limit_ms"),
             static_cast<qint64>(qBound<qint64>(qint64{20 * 60 * 1000}, worst,
                                                qint64{std::numeric_limits<int>::max()})));
    m_charts->clear();
    m_charts->setSizeLabel(m_sweepPanel->parameters());
    m_recovery->flush(); // whatever the generated code does, the text is safe
    m_sweepRequest = m_worker->submit(r);
    m_sweepPanel->setRunning(true);
    // The lines grow as points arrive, in view.
    if (auto* dock = findChild<QDockWidget*>(QStringLiteral("ChartsDock"))) {
        dock->show();
        dock->raise();
    }
}

void MainWindow::measureMachine()
{
    if (m_machineRequest >= 0) return;
    m_machineRequest =
        m_worker->submit(QJsonObject{{QStringLiteral("cmd"), QStringLiteral("machine")},
                                     {QStringLiteral("threads"), m_threads->value()},
                                     {QStringLiteral("time_limit_ms"), 5 * 60 * 1000}});
    statusBar()->showMessage(tr("Measuring the machine's peak speed and memory bandwidth…"), 5000);
}

void MainWindow::onWorkerMessage(int id, const QJsonObject& message)
{
    if (id != m_sweepRequest) return;
    const QJsonObject point = message.value(QStringLiteral("point")).toObject();
    if (!point.isEmpty()) {
        m_sweepStore->add(m_sweepScript, m_sweepParameters, point);
        m_charts->addPoint(chartPointFromJson(point));
    }
    m_sweepPanel->setProgress(message.value(QStringLiteral("done")).toInt(),
                              message.value(QStringLiteral("total")).toInt());
}

bool MainWindow::finishChartsRequest(int id, const QJsonObject* result, const QString& failure)
{
    const bool ok =
        result && result->value(QStringLiteral("status")).toString() == QStringLiteral("ok");
    if (id == m_machineRequest) {
        m_machineRequest = -1;
        if (!ok) {
            if (result)
                statusBar()->showMessage(result->value(QStringLiteral("message")).toString(),
                                         10000);
            return true;
        }
        const double peak = result->value(QStringLiteral("peak_gflops")).toDouble();
        const double bandwidth = result->value(QStringLiteral("bandwidth_gbs")).toDouble();
        QSettings s;
        s.setValue(QStringLiteral("machine/peakGflops"), peak);
        s.setValue(QStringLiteral("machine/bandwidthGBs"), bandwidth);
        m_machineKnown = true;
        m_charts->setPeakGflops(peak);
        m_charts->setBandwidthGbs(bandwidth);
        statusBar()->showMessage(tr("Peak %1 GFLOPS, memory bandwidth %2 GB/s")
                                     .arg(peak, 0, 'f', 1)
                                     .arg(bandwidth, 0, 'f', 1),
                                 10000);
        return true;
    }
    if (id != m_sweepRequest) return false;
    m_sweepRequest = -1;
    m_sweepPanel->setRunning(false);
    if (ok) {
        const QString blas = result->value(QStringLiteral("blas")).toString();
        if (!blas.isEmpty()) m_charts->setReferenceLabel(blas);
        for (const QJsonValue& p : result->value(QStringLiteral("points")).toArray())
            m_charts->addPoint(chartPointFromJson(p.toObject()));
        m_sweepStore->save(); // the points were stored as their progress messages came
        if (const QString note = result->value(QStringLiteral("blas_note")).toString();
            !note.isEmpty())
            statusBar()->showMessage(note, 10000);
    } else if (result) {
        statusBar()->showMessage(
            tr("Sweep: %1").arg(result->value(QStringLiteral("message")).toString()), 10000);
    } else {
        Q_UNUSED(failure); // onWorkerFailed shows it
    }
    emit sweepFinished();
    return result != nullptr;
}

} // namespace loopscope
