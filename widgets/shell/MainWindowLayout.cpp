// The main window's docks, menus, toolbar and status bar: what MainWindow's constructor builds,
// and the docks' rearrangement (View ▸ Assembly Beside Loop Nest). What they do once built is in
// MainWindow.cpp and the controllers.
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
    m_variantTree = new VariantTreeView(this);
    m_ladder = new LadderView(this);
    m_ladder->setModel(m_ladderModel);
    m_llvmView = new CodeView(this);
    m_asmView = new CodeView(this);
    m_llvmView->setPlaceholder(tr("Select a step to see its LLVM IR."));
    m_asmView->setPlaceholder(tr("Select a step to see its assembly."));

    // The panel scrolls rather than making the window taller than a laptop's screen.
    auto* scheduleScroll = new QScrollArea(this);
    scheduleScroll->setObjectName(QStringLiteral("ScheduleScroll"));
    scheduleScroll->setWidget(m_schedule);
    scheduleScroll->setWidgetResizable(true);
    scheduleScroll->setFrameShape(QFrame::NoFrame);
    scheduleScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scheduleScroll->setMinimumWidth(m_schedule->minimumSizeHint().width() +
                                    scheduleScroll->verticalScrollBar()->sizeHint().width());
    auto* scheduleDock = dock(tr("Schedule"), QStringLiteral("ScheduleDock"), scheduleScroll,
                              Qt::LeftDockWidgetArea);
    auto* variantsDock = dock(tr("Variants"), QStringLiteral("VariantTreeDock"), m_variantTree,
                              Qt::LeftDockWidgetArea);
    splitDockWidget(scheduleDock, variantsDock, Qt::Vertical);
    auto* loopDock =
        dock(tr("Loop nest"), QStringLiteral("LoopNestDock"), m_loopNest, Qt::RightDockWidgetArea);
    auto* ladderDock =
        dock(tr("Ladder"), QStringLiteral("LadderDock"), m_ladder, Qt::BottomDockWidgetArea);
    auto* llvmDock =
        dock(tr("LLVM IR"), QStringLiteral("LlvmDock"), m_llvmView, Qt::RightDockWidgetArea);
    auto* asmDock =
        dock(tr("Assembly"), QStringLiteral("AsmDock"), m_asmView, Qt::RightDockWidgetArea);
    // The charts share the tall right-hand area with the loop nest, so a sweep's lines have room.
    m_chartsDock = new ChartsDock(this);
    connect(m_analysis, &AnalysisService::analysisReady, m_chartsDock->panel(),
            &SweepPanel::setExploration);
    addDockWidget(Qt::RightDockWidgetArea, m_chartsDock);
    tabifyDockWidget(loopDock, llvmDock);
    tabifyDockWidget(llvmDock, asmDock);
    tabifyDockWidget(asmDock, m_chartsDock);
    // Tuning: the panel beside the charts, its runs in a worker of their own.
    m_tunePanel = new TunePanel(this);
    m_tune = new TuneService(this);
    // It scrolls rather than making the right-hand docks taller than a laptop's screen.
    auto* tuneScroll = new QScrollArea(this);
    tuneScroll->setObjectName(QStringLiteral("TuneScroll"));
    tuneScroll->setWidget(m_tunePanel);
    tuneScroll->setWidgetResizable(true);
    tuneScroll->setFrameShape(QFrame::NoFrame);
    tuneScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    tuneScroll->setMinimumWidth(m_tunePanel->minimumSizeHint().width() +
                                tuneScroll->verticalScrollBar()->sizeHint().width());
    auto* tuneDock =
        dock(tr("Tune"), QStringLiteral("TuneDock"), tuneScroll, Qt::RightDockWidgetArea);
    tabifyDockWidget(m_chartsDock, tuneDock);
    loopDock->raise();
    m_defaultDockSizes = [this, scheduleDock, variantsDock, loopDock, ladderDock] {
        resizeDocks({scheduleDock, loopDock}, {360, 640}, Qt::Horizontal);
        resizeDocks({scheduleDock, variantsDock}, {3 * height() / 4, height() / 4}, Qt::Vertical);
        // Room for the longest ladders of the samples without scrolling.
        resizeDocks({ladderDock},
                    {m_ladder->heightForRows(LadderView::kRowsShown) + ladderDock->height() -
                     m_ladder->height()},
                    Qt::Vertical);
    };
    connect(llvmDock, &QDockWidget::visibilityChanged, this, [this](bool) { requestCode(); });
    connect(asmDock, &QDockWidget::visibilityChanged, this, [this](bool) { requestCode(); });
}

void MainWindow::buildActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New"), QKeySequence::New, m_document, &Document::newDocument);
    file->addAction(tr("&Open…"), QKeySequence::Open, m_document, &Document::openDialog);
    QMenu* samples = file->addMenu(tr("Open &Sample"));
    QDir dir(Document::samplesDirectory());
    for (const QFileInfo& fi :
         dir.entryInfoList({QStringLiteral("*.py")}, QDir::Files, QDir::Name)) {
        QString path = fi.absoluteFilePath();
        samples->addAction(fi.fileName(), m_document,
                           [this, path] { m_document->openSample(path); });
    }
    m_document->setRecentMenu(file->addMenu(tr("Open &Recent")));
    file->addAction(tr("Import &Model…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M), this,
                    [this] {
                        const QString path = QFileDialog::getOpenFileName(
                            this, tr("Import Model"), QString(), tr("ONNX models (*.onnx)"));
                        if (!path.isEmpty()) openModel(path);
                    });
    QMenu* sampleModels = file->addMenu(tr("Open Sample &Model"));
    QDir modelDir(Document::samplesDirectory() + QStringLiteral("/models"));
    for (const QFileInfo& fi :
         modelDir.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QString path = fi.absoluteFilePath() + QStringLiteral("/model.onnx");
        if (QFileInfo::exists(path))
            sampleModels->addAction(fi.fileName(), this, [this, path] { openModel(path); });
    }
    file->addSeparator();
    file->addAction(tr("&Save"), QKeySequence::Save, m_document, &Document::save);
    file->addAction(tr("Save &As…"), QKeySequence::SaveAs, m_document, &Document::saveAs);
    QMenu* exportMenu = file->addMenu(tr("&Export Variant"));
    for (auto [label, format] : {std::pair{tr("TVM script…"), QStringLiteral("tvm")},
                                 std::pair{tr("C source…"), QStringLiteral("c")},
                                 std::pair{tr("LLVM IR…"), QStringLiteral("llvm")},
                                 std::pair{tr("Assembly…"), QStringLiteral("asm")},
                                 std::pair{tr("Object File…"), QStringLiteral("obj")}}) {
        QString f = format;
        exportMenu->addAction(label, this, [this, f] { exportVariant(f); });
    }
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(tr("&Undo"), QKeySequence::Undo, m_editor, &EditorPane::undo);
    edit->addAction(tr("&Redo"), QKeySequence::Redo, m_editor, &EditorPane::redo);
    edit->addSeparator();
    edit->addAction(tr("&Find…"), QKeySequence::Find, this, [this] { m_editor->showFind(false); });
    edit->addAction(tr("&Replace…"), QKeySequence(Qt::CTRL | Qt::Key_H), this,
                    [this] { m_editor->showFind(true); });
    edit->addAction(tr("Find &Next"), QKeySequence::FindNext, this,
                    [this] { m_editor->findNext(); });
    edit->addAction(tr("Find &Previous"), QKeySequence::FindPrevious, this,
                    [this] { m_editor->findNext(true); });
    edit->addSeparator();
    edit->addAction(tr("New Variant From Here"), this, &MainWindow::onNewVariantRequested);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    m_structuredAction = view->addAction(tr("&Structured Printing"));
    m_structuredAction->setCheckable(true);
    m_structuredAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    connect(m_structuredAction, &QAction::toggled, m_loopNest, &LoopNestView::setPrinting);
    // The assembly next to the loop nest, to follow the links between them.
    view->addAction(tr("&Assembly Beside Loop Nest"),
                    QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A), this,
                    &MainWindow::showAssemblyBesideLoopNest);
    view->addSeparator();
    // Zoom: the editor, the loop nest and the code views together.
    view->addAction(tr("Zoom &In"), QKeySequence::ZoomIn, this, [this] { zoomText(1); });
    view->addAction(tr("Zoom &Out"), QKeySequence::ZoomOut, this, [this] { zoomText(-1); });
    view->addAction(tr("&Reset Zoom"), QKeySequence(Qt::CTRL | Qt::Key_0), this,
                    [this] { zoomText(-m_zoom); });
    view->addSeparator();
    QMenu* theme = view->addMenu(tr("&Theme"));
    auto* themes = new QActionGroup(theme);
    for (auto [label, choice] :
         {std::pair{tr("Follow the &Desktop"), ThemeChoice::FollowDesktop},
          std::pair{tr("&Light"), ThemeChoice::Light}, std::pair{tr("&Dark"), ThemeChoice::Dark}}) {
        QAction* a = theme->addAction(label);
        a->setCheckable(true);
        a->setChecked(savedTheme() == choice);
        themes->addAction(a);
        connect(a, &QAction::triggered, this, [choice = choice] {
            saveTheme(choice);
            applyTheme(choice);
        });
    }
    view->addAction(tr("&Compare Variants…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), this,
                    &MainWindow::compareVariants);
    view->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>())
        view->addAction(d->toggleViewAction());

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    QAction* runAction =
        run->addAction(tr("&Run Ladder"), QKeySequence(Qt::Key_F5), this, &MainWindow::runLadder);
    m_runAction = runAction;
    runAction->setToolTip(tr("Measure every step of the variant (F5)"));
    m_cancelAction =
        run->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancelRuns);
    m_cancelAction->setEnabled(false);
    run->addSeparator();
    m_profileAction = run->addAction(tr("&Profile Runs"));
    m_profileAction->setObjectName(QStringLiteral("profileRunsAction"));
    m_profileAction->setCheckable(true);
    m_profileAction->setToolTip(
        tr("Each step the ladder measures is also sampled by the CPU clock for half a second: its "
           "loop nest shows each line's and loop's share of the time, the assembly each "
           "instruction's"));
    connect(m_profileAction, &QAction::toggled, this, [this](bool on) {
        m_runs->setProfiling(on);
        QSettings().setValue(QStringLiteral("run/profile"), on);
    });
    run->addAction(tr("Profile &Step"), QKeySequence(Qt::CTRL | Qt::Key_F5), this,
                   &MainWindow::profileStep);
    run->addSeparator();
    run->addAction(tr("Re-&measure Machine"), m_runs, &RunController::measureMachine);
    run->addAction(tr("&Forget Measured Points"), this, [this] {
        m_runs->sweepStore()->clear();
        statusBar()->showMessage(tr("The next sweep measures every point again."), 5000);
    });
    run->addSeparator();
    run->addAction(tr("&Settings…"), this, &MainWindow::showSettings);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Primitives"), QKeySequence::HelpContents, this, [this] {
        if (!m_primitiveHelp) m_primitiveHelp = new PrimitiveHelpDialog(this);
        m_primitiveHelp->show();
        m_primitiveHelp->raise();
    });
    help->addAction(tr("&Keyboard Shortcuts"), this, [this] { showKeyboardShortcuts(this); });
    help->addAction(tr("&About Loopscope"), this, [this] {
        QMessageBox::about(this, tr("About Loopscope"), aboutText(m_runs->machine()));
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
    tb->addAction(runAction);
    tb->addAction(m_cancelAction);
    tb->addWidget(new QLabel(tr(" Target: "), tb));
    m_targetBox = new QComboBox(tb);
    m_targetBox->setObjectName(QStringLiteral("targetCombo"));
    m_targetBox->addItem(tr("As the script builds"), QString());
    m_targetBox->addItem(tr("Host CPU"), QStringLiteral("llvm"));
    for (int sm : {50, 60, 70, 75, 80, 86, 89, 90})
        m_targetBox->addItem(tr("CUDA sm_%1").arg(sm), QStringLiteral("cuda -arch=sm_%1").arg(sm));
    m_targetBox->setToolTip(
        tr("The code the LLVM IR and Assembly views show: the variant's tvm.build target, this "
           "machine's CPU, or an NVIDIA architecture (the views then show the kernels' CUDA C "
           "and PTX). GPU variants run on this machine's NVIDIA GPU through loopscope-runner "
           "where there is one; without one they are checked on this CPU and not timed."));
    tb->addWidget(m_targetBox);
    connect(m_targetBox, &QComboBox::activated, this, [this](int) { requestCode(); });
    tb->addWidget(new QLabel(tr(" Threads: "), tb));
    m_threads = new QSpinBox(tb);
    m_threads->setObjectName(QStringLiteral("threadsSpin"));
    m_threads->setRange(0, 256);
    m_threads->setSpecialValueText(tr("all"));
    m_threads->setToolTip(tr("Threads for parallel loops (0: all hardware threads)"));
    tb->addWidget(m_threads);
    tb->addAction(m_structuredAction);
}

void MainWindow::buildStatusBar()
{
    m_errorLabel = new QLabel(this);
    m_errorLabel->setObjectName(QStringLiteral("scriptErrorLabel"));
    m_errorLabel->setStyleSheet(QStringLiteral("color: #c0392b; font-weight: bold"));
    m_errorLabel->setVisible(false);
    statusBar()->addPermanentWidget(m_errorLabel, 1);
    m_timing = new QLabel(this);
    m_compile = new QLabel(this);
    m_target = new QLabel(this);
    m_target->setObjectName(QStringLiteral("cpuLabel"));
    m_progress = new QProgressBar(this);
    m_progress->setMaximumWidth(180);
    m_progress->setRange(0, 100);
    m_progress->setTextVisible(true);
    m_progress->setVisible(false);
    statusBar()->addWidget(m_timing);
    statusBar()->addWidget(m_compile);
    statusBar()->addPermanentWidget(m_progress);
    m_caches = new QLabel(this);
    m_caches->setObjectName(QStringLiteral("cacheSizesLabel"));
    const HostCaches& caches = hostCacheInfo();
    m_caches->setText(QString::fromStdString(cacheSummary(caches.levels)));
    m_caches->setToolTip(
        caches.levels.empty()
            ? tr("This machine lists no cache sizes (neither in /sys nor through CPUID), so the "
                 "loop nest shows no footprint notes")
            : tr("This machine's caches, read from %1, which the loop nest's footprints are "
                 "measured against (a loop whose working set outgrows one is marked)")
                  .arg(caches.source == "sysfs" ? tr("/sys/devices/system/cpu")
                                                : QString::fromStdString(caches.source)));
    statusBar()->addPermanentWidget(m_caches);
    statusBar()->addPermanentWidget(m_target);
}

// What the runs report, where the window shows it.
void MainWindow::showAssemblyBesideLoopNest()
{
    auto* loopDock = findChild<QDockWidget*>(QStringLiteral("LoopNestDock"));
    auto* asmDock = findChild<QDockWidget*>(QStringLiteral("AsmDock"));
    if (!loopDock || !asmDock) return;
    const int before = loopDock->width();
    // Out of their tab group (a dock split from a tabbed one would join its tabs): the loop nest,
    // and at its right the assembly with the other right-hand docks as tabs behind it.
    QList<QDockWidget*> others;
    for (QDockWidget* d : findChildren<QDockWidget*>())
        if (d != loopDock && d != asmDock && dockWidgetArea(d) == Qt::RightDockWidgetArea &&
            !d->isFloating())
            others << d;
    for (QDockWidget* d : others)
        removeDockWidget(d);
    removeDockWidget(asmDock);
    removeDockWidget(loopDock);
    addDockWidget(Qt::RightDockWidgetArea, loopDock);
    splitDockWidget(loopDock, asmDock, Qt::Horizontal);
    QDockWidget* last = asmDock;
    for (QDockWidget* d : others) {
        tabifyDockWidget(last, d);
        d->show();
        last = d;
    }
    loopDock->show();
    asmDock->show();
    asmDock->raise();
    // Once the layout has placed them: the two share what the loop nest had, and some more.
    QTimer::singleShot(0, this, [this, loopDock, asmDock, before] {
        const int w = std::max(before, width() / 2);
        resizeDocks({loopDock, asmDock}, {w / 2, w - w / 2}, Qt::Horizontal);
    });
    requestCode();
    showProfile();
}

} // namespace loopscope
