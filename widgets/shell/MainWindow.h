// The main window: the editor in the middle, the schedule panel, loop-nest view, ladder, code
// views and charts in docks (arranged by shell/DockLayout.h), and the wiring between them and the
// services behind them: the analysis, the document (shell/Document.h) and the runs in the
// background worker (shell/RunController.h). The code views, the profiles, the settings and the
// status bar have controllers of their own. The script text in the editor is the single source of
// truth; everything else is derived from it.
#pragma once

#include "shell/AnalysisService.h"

#include <QHash>
#include <QMainWindow>

class QComboBox;
class QSpinBox;
class QAction;

namespace loopscope {

class EditorPane;
class SchedulePanel;
class PrimitiveHelpDialog;
class CompareView;
class LoopNestView;
class VariantTreeView;
class LadderView;
class LadderModel;
class ChartsView;
class ChartsDock;
class Document;
class RunController;
class SweepPanel;
class WorkerClient;
class SweepStore;
class TunePanel;
class TuneService;
class ModelWindow;
class ModelWindows;
class TuningController;
class MigrationController;
class CodeViewController;
class ProfileController;
class SettingsController;
class StatusBarController;
class DockLayout;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a file; returns false (after telling the user) when it cannot be read.
    bool openFile(const QString& path);
    // File ▸ Import Model: the model's view (one per model, shown again when it is open).
    ModelWindow* openModel(const QString& path);
    void setScriptText(const QString& text, const QString& path, bool modified);
    // Offers the text a crashed session left behind; `ask` false restores without asking (tests).
    bool offerRecovery(bool ask = true);

    // For tests and scripts.
    EditorPane* editor() const { return m_editor; }
    SchedulePanel* schedulePanel() const { return m_schedule; }
    LoopNestView* loopNestView() const { return m_loopNest; }
    VariantTreeView* variantTreeView() const { return m_variantTree; }
    LadderModel* ladderModel() const { return m_ladderModel; }
    WorkerClient* worker() const { return m_worker; }
    AnalysisService* analysis() const { return m_analysis; }
    Document* document() const { return m_document; }
    RunController* runs() const { return m_runs; }
    CodeViewController* code() const { return m_code; }
    ProfileController* profile() const { return m_profile; }
    ChartsView* chartsView() const;
    SweepPanel* sweepPanel() const;
    SweepStore* sweepStore() const;
    TunePanel* tunePanel() const { return m_tunePanel; }
    TuneService* tuneService() const { return m_tune; }
    QString currentVariant() const { return m_variant; }
    // "line N: message" while the script has an error (the views show the last good state).
    QString scriptError() const { return m_scriptError; }
    int currentStep() const { return m_step; }
    // The worker threads runs use (the toolbar's Threads box; 0: every core).
    int threads() const;
    // What the views show: the last good analysis while the script has an error.
    ExplorationPtr exploration() const { return m_exploration; }
    // The shown variant of what the views show, if there is one.
    const VariantView* shownVariant() const;
    // What a step's measurements and profile are kept by (its printing and the threads).
    QString stepKey(const VariantView& v, int step) const;
    // The variant to show once the next analysis has it (a variant just added to the text).
    void preferVariant(const QString& name) { m_variant = name; }
    int zoomSteps() const { return m_zoom; }
    // View ▸ Compare Variants: the shown variant against the next one (or its first step).
    void compareVariants();
    CompareView* compareView() const { return m_compare; }
    MigrationController* migration() const { return m_migration; }
    void selectVariant(const QString& name);
    void selectStep(int step);
    void runLadder();
    // View > Assembly Beside Loop Nest: the two docks side by side instead of tabbed.
    void showAssemblyBesideLoopNest();
    void cancelRuns();
    QString documentPath() const;

    // Tells the user something that needs no answer (a damaged file set aside): in the status bar
    // and on stderr. Every message shown this session, oldest first, for tests.
    void showNotice(const QString& message);
    QStringList notices() const { return m_notices; }

signals:
    void analysisApplied(); // the window shows a new analysis (tests wait on it)
    // The window shows the variant under the cursor of a new text; the others follow.
    void detailApplied();
    void ladderFinished();
    void sweepFinished(); // the sweep ended: finished, failed or cancelled
    void tuneFinished();  // the tuning run ended: finished, failed or cancelled

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void buildDocks();
    void buildActions();
    void connectRuns();
    // The messages of the caches that found their files damaged, once.
    void showStoreNotices();

    void onAnalysis(ExplorationPtr result);
    void refreshVariantTree();
    void onCursorLine(int line);
    void onStatementRequested(const QString& statement);
    void onNewVariantRequested();
    void onLoopClicked(const QString& axis, const QString& stage);
    void showStepDetails();
    // Marks the views stale (or current) and says on the controls why nothing can run.
    void applyErrorState();
    // Text size of the editor, loop nest and code views, by `steps` (0: where it was).
    void zoomText(int steps);
    void exportVariant(const QString& format);

    EditorPane* m_editor = nullptr;
    SchedulePanel* m_schedule = nullptr;
    LoopNestView* m_loopNest = nullptr;
    VariantTreeView* m_variantTree = nullptr;
    LadderModel* m_ladderModel = nullptr;
    LadderView* m_ladder = nullptr;
    ChartsDock* m_chartsDock = nullptr;
    TunePanel* m_tunePanel = nullptr;
    TuneService* m_tune = nullptr;
    AnalysisService* m_analysis = nullptr;
    WorkerClient* m_worker = nullptr;
    Document* m_document = nullptr;
    RunController* m_runs = nullptr;

    QComboBox* m_variantBox = nullptr;
    QSpinBox* m_threads = nullptr;
    StatusBarController* m_status = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_structuredAction = nullptr;

    QString m_variant;
    int m_step = -1;
    ExplorationPtr m_exploration; // what the views show: the last good analysis on an error
    ExplorationPtr m_lastGood;
    QString m_scriptError; // "line N: message" while the script has an error, else empty
    QAction* m_runAction = nullptr;
    int m_zoom = 0; // steps of zoom from the default text size
    CompareView* m_compare = nullptr;
    PrimitiveHelpDialog* m_primitiveHelp = nullptr;
    ModelWindows* m_models = nullptr;
    TuningController* m_tuning = nullptr;
    MigrationController* m_migration = nullptr;
    CodeViewController* m_code = nullptr;
    ProfileController* m_profile = nullptr;
    SettingsController* m_settings = nullptr;
    DockLayout* m_docks = nullptr;
    bool m_shownOnce = false; // the default layout applies as the window is first shown
    QStringList m_notices;
};

} // namespace loopscope
