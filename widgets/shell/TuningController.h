// The Tune panel's runs for the main window: what it asks of the tuning service (the shown
// script and variant, the window's threads, the log beside a model's task or in the app's data
// folder), the progress and result shown in the panel, a tuned variant added to the script as a
// block of statements, and a tuned task recorded in the open models.
#pragma once

#include <QObject>
#include <QStringList>

namespace loopscope {

class MainWindow;
class ModelWindows;
class TunePanel;
class TuneService;

class TuningController : public QObject {
    Q_OBJECT
public:
    TuningController(MainWindow* window, TunePanel* panel, TuneService* service,
                     ModelWindows* models);

    // Where the tuning records of the window's script go: beside it for a model's task
    // (resnet.tasks/conv_relu_3.jsonl), else the app's data folder (the command-line tool's
    // default for the same file).
    QString logPath() const;
    // The panel follows the shown variant and whether the script has an error.
    void updatePanel();

signals:
    void ended(); // the run finished, failed or was cancelled

private:
    void start(bool resume, bool logOnly);
    void addVariant(const QString& start, const QString& name, const QStringList& statements);

    MainWindow* m_window;
    TunePanel* m_panel;
    TuneService* m_service;
    ModelWindows* m_models;
};

} // namespace loopscope
