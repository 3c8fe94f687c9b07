// The main window's docks, menus, toolbar and status bar: what MainWindow's constructor builds
// (how the docks are arranged is shell/DockLayout.h's). What they do once built is in
// MainWindow.cpp and the controllers.
#include "shell/MainWindow.h"

#include "editor/PrimitiveHelp.h"
#include "shell/HelpDialogs.h"
#include "shell/MigrationController.h"
#include "shell/Theme.h"

#include "charts/SweepPanel.h"
#include "charts/SweepStore.h"
#include "editor/EditorPane.h"
#include "editor/SchedulePanel.h"
#include "shell/ChartsDock.h"
#include "shell/CodeViewController.h"
#include "shell/DockLayout.h"
#include "shell/Document.h"
#include "shell/ProfileController.h"
#include "shell/RunController.h"
#include "shell/SettingsController.h"
#include "tune/TunePanel.h"
#include "tune/TuneService.h"
#include "views/CodeView.h"
#include "views/LadderModel.h"
#include "views/LadderView.h"
#include "views/LoopNestView.h"
#include "views/VariantTreeView.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QStatusBar>
#include <QToolBar>

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
    m_code = new CodeViewController(this, m_runs, m_loopNest);
    m_profile = new ProfileController(this, m_runs, m_loopNest, m_code);

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
    dock(tr("Ladder"), QStringLiteral("LadderDock"), m_ladder, Qt::BottomDockWidgetArea);
    auto* llvmDock = dock(tr("LLVM IR"), QStringLiteral("LlvmDock"), m_code->llvmView(),
                          Qt::RightDockWidgetArea);
    auto* asmDock = dock(tr("Assembly"), QStringLiteral("AsmDock"), m_code->assemblyView(),
                         Qt::RightDockWidgetArea);
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
    m_docks = new DockLayout(this, m_ladder);
    for (QDockWidget* d : {llvmDock, asmDock})
        connect(d, &QDockWidget::visibilityChanged, m_code, [this](bool) { m_code->request(); });
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
    m_migration = new MigrationController(this, m_document, m_editor, [this] { return m_variant; });
    m_migration->addFileAction(file);
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
    addThemeMenu(view);
    view->addAction(tr("&Compare Variants…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D), this,
                    &MainWindow::compareVariants);
    m_migration->addViewAction(view);
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
    run->addAction(m_profile->profileRunsAction());
    run->addAction(tr("Profile &Step"), QKeySequence(Qt::CTRL | Qt::Key_F5), m_profile,
                   &ProfileController::profileStep);
    run->addSeparator();
    run->addAction(tr("Re-&measure Machine"), m_runs, &RunController::measureMachine);
    run->addAction(tr("&Forget Measured Points"), this, [this] {
        m_runs->sweepStore()->clear();
        statusBar()->showMessage(tr("The next sweep measures every point again."), 5000);
    });
    run->addSeparator();
    run->addAction(tr("&Settings…"), this, [this] { m_settings->showDialog(); });

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
    tb->addWidget(m_code->targetBox());
    tb->addWidget(new QLabel(tr(" Threads: "), tb));
    m_threads = new QSpinBox(tb);
    m_threads->setObjectName(QStringLiteral("threadsSpin"));
    m_threads->setRange(0, 256);
    m_threads->setSpecialValueText(tr("all"));
    m_threads->setToolTip(tr("Threads for parallel loops (0: all hardware threads)"));
    tb->addWidget(m_threads);
    tb->addAction(m_structuredAction);
}

void MainWindow::showAssemblyBesideLoopNest()
{
    m_docks->showAssemblyBesideLoopNest();
    m_code->request();
    m_profile->showProfile();
}

} // namespace loopscope
