// The run settings (Run > Settings…, and the toolbar's thread count), kept between sessions, and
// the dialog that edits them.
#pragma once

#include <QDialog>
#include <QString>

class QLineEdit;
class QSpinBox;

namespace loopscope {

struct RunSettings {
    int timeLimitMs = 30000; // per request, from the moment the worker gets it
    int repeat = 3;          // measurements of a run
    int minRepeatMs = 50;    // the least time one measurement takes
    int threads = 0;         // for parallel loops; 0: every hardware thread
    // Bounds on the work one request may cause (see core's Limits), in the window's analysis and
    // in the worker.
    int maxUnrollCopies = 1024;      // copies of loop bodies unrolling makes per kernel
    int maxReferenceSteps = 1 << 26; // reference interpreter steps per checked element
    // Runners: the command that starts a worker elsewhere for tuning ("ssh node7
    // loopscope-worker"; empty: the worker here), how many at once, and the command that starts
    // the GPU runner GPU variants run on ("ssh gpu1 loopscope-runner"; empty: the one here).
    QString runnerCommand;
    int runners = 1;
    QString gpuRunnerCommand;

    // From the application's settings (the defaults above when there are none).
    static RunSettings load();
    void save() const;
};

class RunSettingsDialog : public QDialog {
    Q_OBJECT
public:
    explicit RunSettingsDialog(const RunSettings& settings, QWidget* parent = nullptr);

    // The settings as edited (the thread count as it was given).
    RunSettings settings() const;

private:
    RunSettings m_settings;
    QSpinBox* m_limit = nullptr;
    QSpinBox* m_repeat = nullptr;
    QSpinBox* m_minRepeatMs = nullptr;
    QSpinBox* m_maxUnroll = nullptr;
    QSpinBox* m_maxReferenceSteps = nullptr;
    QLineEdit* m_runner = nullptr;
    QSpinBox* m_runners = nullptr;
    QLineEdit* m_gpuRunner = nullptr;
};

} // namespace loopscope
