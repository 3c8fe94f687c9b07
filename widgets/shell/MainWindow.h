// The main window: the editor in the middle, the schedule panel, loop-nest view, ladder and code
// views in docks, and the wiring between them and the background services. The script text in the
// editor is the single source of truth; everything else is derived from it.
#pragma once

#include "shell/AnalysisService.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>

#include <functional>
#include <memory>

class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QSpinBox;
class QAction;
class QDockWidget;

namespace loopscope {

class EditorPane;
class SchedulePanel;
class LoopNestView;
class LadderView;
class LadderModel;
class CodeView;
class ChartsView;
class SweepPanel;
class WorkerClient;
class RecoveryStore;
class SweepStore;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a file; returns false (after telling the user) when it cannot be read.
    bool openFile(const QString& path);
    void setScriptText(const QString& text, const QString& path, bool modified);
    // Offers the text a crashed session left behind; `ask` false restores without asking (tests).
    bool offerRecovery(bool ask = true);

    // For tests and scripts.
    EditorPane* editor() const { return m_editor; }
    SchedulePanel* schedulePanel() const { return m_schedule; }
    LoopNestView* loopNestView() const { return m_loopNest; }
    LadderModel* ladderModel() const { return m_ladderModel; }
    WorkerClient* worker() const { return m_worker; }
    AnalysisService* analysis() const { return m_analysis; }
    ChartsView* chartsView() const { return m_charts; }
    SweepPanel* sweepPanel() const { return m_sweepPanel; }
    SweepStore* sweepStore() const { return m_sweepStore.get(); }
    QString currentVariant() const { return m_variant; }
    int currentStep() const { return m_step; }
    void selectVariant(const QString& name);
    void selectStep(int step);
    void runLadder();
    void cancelRuns();
    QString documentPath() const { return m_path; }

signals:
    void analysisApplied(); // the window shows a new analysis (tests wait on it)
    void ladderFinished();
    void sweepFinished(); // the sweep ended: finished, failed or cancelled

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void buildActions();
    void buildDocks();
    void buildStatusBar();
    void restoreSettings();
    void saveSettings() const;

    void onTextEdited();
    void onAnalysis(ExplorationPtr result);
    void onCursorLine(int line);
    void onStatementRequested(const QString& statement);
    void onNewVariantRequested();
    void onWorkerFinished(int id, const QJsonObject& result);
    void onWorkerFailed(int id, const QString& message);
    void onLoopClicked(const QString& axis, const QString& stage);
    void showStepDetails();
    void requestCode();

    bool maybeSave();
    bool save();
    bool saveAs();
    bool writeFile(const QString& path);
    void newDocument();
    void openDialog();
    void openSample(const QString& path);
    void updateRecentFiles(const QString& path);
    void rebuildRecentMenu();
    void updateTitle();
    void exportVariant(const QString& format);
    void showExportDialog(const QString& variant, const QString& text,
                          const QString& suggestedName);
    void showSettings();

    const VariantView* variantView() const;
    QString stepKey(const VariantView& v, int step) const;
    QJsonObject measureRequest(int step) const;
    static QString samplesDirectory();

    // The Charts dock: a sweep panel above the charts (MainWindowCharts part of MainWindow.cpp).
    QDockWidget* buildCharts();
    void startSweep();
    void measureMachine();
    void onWorkerMessage(int id, const QJsonObject& message);
    // Handles the end of a sweep or machine request; false for other requests.
    bool finishChartsRequest(int id, const QJsonObject* result, const QString& failure);

    EditorPane* m_editor = nullptr;
    SchedulePanel* m_schedule = nullptr;
    LoopNestView* m_loopNest = nullptr;
    LadderModel* m_ladderModel = nullptr;
    LadderView* m_ladder = nullptr;
    CodeView* m_llvmView = nullptr;
    CodeView* m_asmView = nullptr;
    AnalysisService* m_analysis = nullptr;
    WorkerClient* m_worker = nullptr;
    RecoveryStore* m_recovery = nullptr;
    ChartsView* m_charts = nullptr;
    SweepPanel* m_sweepPanel = nullptr;
    std::unique_ptr<SweepStore> m_sweepStore; // points measured before, offered to every sweep
    QString m_sweepScript;                    // the running sweep's text and parameters
    QStringList m_sweepParameters;
    int m_sweepRequest = -1;   // the running sweep
    int m_machineRequest = -1; // the pending machine measurement
    bool m_machineKnown = false;
    bool m_layoutRestored = false;
    static constexpr int kLayoutVersion = 2; // bumped when the set of docks changes

    QComboBox* m_variantBox = nullptr;
    QSpinBox* m_threads = nullptr;
    QLabel* m_timing = nullptr;
    QLabel* m_compile = nullptr;
    QLabel* m_target = nullptr;
    QProgressBar* m_progress = nullptr;
    QMenu* m_recentMenu = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_cancelAction = nullptr;
    QAction* m_structuredAction = nullptr;

    QString m_path;
    QString m_variant;
    int m_step = -1;
    ExplorationPtr m_exploration;
    QHash<int, int> m_runRows; // worker request id -> ladder row
    int m_codeRequest = -1;    // the pending LLVM/assembly request of the code views
    int m_exportRequest = -1;  // the pending LLVM/assembly request of the Export menu
    int m_timeLimitMs = 30000;
    int m_repeat = 3;
    int m_minRepeatMs = 50;
    bool m_applyingText = false;
    std::function<void()> m_defaultDockSizes;
};

} // namespace loopscope
