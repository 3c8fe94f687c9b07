// The main window's status bar: the script's error while it has one, the analysis's and the last
// compile's times, the runs' progress and messages, this machine's caches and the CPU the worker
// generates code for (or that the worker is of another build).
#pragma once

#include <QObject>
#include <QString>

class QLabel;
class QMainWindow;
class QProgressBar;

namespace loopscope {

class RunController;

class StatusBarController : public QObject {
    Q_OBJECT
public:
    StatusBarController(QMainWindow* window, RunController* runs);

    // "line N: message" while the script has an error (the views show the last good state); empty
    // when it has none.
    void showScriptError(const QString& error);
    void showAnalysisTimes(double evaluateMs, double lowerMs);

private:
    RunController* m_runs;
    QLabel* m_error = nullptr;
    QLabel* m_timing = nullptr;
    QLabel* m_compile = nullptr;
    QLabel* m_target = nullptr;
    QProgressBar* m_progress = nullptr;
};

} // namespace loopscope
