// The model views the main window has opened (File ▸ Import Model), one per model file: opened
// again, a model's view is shown, not made anew. A task tuned in the window records its log in
// every open model that has the task.
#pragma once

#include <QHash>
#include <QObject>
#include <QStringList>

namespace loopscope {

class ModelWindow;

class ModelWindows : public QObject {
    Q_OBJECT
public:
    // The views are top-level windows owned by `parentWindow`.
    explicit ModelWindows(QWidget* parentWindow);

    // The model's view, made on first use, shown and raised.
    ModelWindow* open(const QString& path);
    // The logged tuning of `scriptPath` becomes its task's schedule in each open model that has
    // that task; the file names of those models.
    QStringList recordTuning(const QString& scriptPath, const QString& logPath);

signals:
    // A model's view asks for a task's script in the main window.
    void openScriptRequested(const QString& path);

private:
    QWidget* m_parentWindow;
    QHash<QString, ModelWindow*> m_views; // by the model's absolute path
};

} // namespace loopscope
