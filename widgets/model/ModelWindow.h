// The model view (File ▸ Import Model): an ONNX model's graph with its fused tasks, the task table
// (weight, GFLOP, schedule, time, weight × time, GFLOPS, check) sortable by the time a task costs
// the model, and the model run end to end and checked against the reference. A task opens as a
// TE script in the main window ("Open as Script"), where the user schedules it by hand or tunes
// it; the choice (a variant, a tuning log) goes to the model's project file, and the next run
// uses it. Everything about the model (reading the file, compiling, running) happens in a worker
// process of the view's own: a model that crashes costs a restart, never the window.
#pragma once

#include "protocol/Messages.h"

#include <QMainWindow>

class QAction;
class QCheckBox;
class QLabel;
class QProgressBar;
class QSpinBox;
class QSortFilterProxyModel;
class QTableView;

namespace loopscope {

class ModelGraphView;
class TaskTableModel;
class WorkerClient;

class ModelWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit ModelWindow(QWidget* parent = nullptr);

    // Reads the model (its graph and tasks, no run); modelLoaded() or failed() tells.
    void openModel(const QString& path);
    // Compiles, checks (when Check is on) and times the model; modelRan() or failed() tells.
    void runModel();
    QString modelPath() const { return m_path; }
    const protocol::ModelReply& result() const { return m_result; }

    // The task's script in the model's task folder (written from the default one the first
    // time, and named in the project file), for the main window to open: openScriptRequested.
    void openTaskAsScript(int task);
    // Runs `variant` of the task's script in the model (its tuning log, if any, set aside).
    void useVariant(int task, const QString& variant);
    // After a tuning run on a task's script in the main window: its log becomes the task's
    // schedule. False when `scriptPath` is none of this model's task scripts.
    bool recordTuning(const QString& scriptPath, const QString& logPath);
    // The absolute path of a task's script file (the project's, else where it would be written).
    QString taskScriptPath(int task) const;

    ModelGraphView* graphView() const { return m_graph; }
    QTableView* taskTable() const { return m_table; }
    QAction* runAction() const { return m_runAction; }
    WorkerClient* worker() const { return m_worker; }
    int selectedTask() const;
    void selectTask(int task);
    QString statusText() const;

signals:
    void modelLoaded();
    void modelRan();
    void failed(const QString& message);
    void openScriptRequested(const QString& path);
    void choiceRecorded();

private:
    void request(bool run);
    void showResult(const protocol::ModelReply& r);
    void fillTable();
    void setBusy(bool busy, const QString& what = {});
    void writeChoice(const protocol::ModelChoiceRequest& r, bool reload);
    QString projectFolder() const;
    int taskCount() const { return static_cast<int>(m_result.tasks.size()); }
    QString taskFolder() const;

    QString m_path;
    protocol::ModelReply m_result;
    WorkerClient* m_worker = nullptr;
    ModelGraphView* m_graph = nullptr;
    QTableView* m_table = nullptr;
    TaskTableModel* m_tasks = nullptr;
    QSortFilterProxyModel* m_sorted = nullptr; // m_tasks as the table sorts it
    QLabel* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QAction* m_runAction = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_variantAction = nullptr;
    QCheckBox* m_check = nullptr;
    QSpinBox* m_threads = nullptr;
    int m_pending = -1;
};

} // namespace loopscope
