// Profiles in the main window: Run ▸ Profile Runs (each step the ladder measures is also sampled,
// a choice kept in the settings), Run ▸ Profile Step, and the shown step's profile: heat bars in
// the loop nest and, in the assembly view, the profiled kernel with each instruction's samples.
#pragma once

#include <QObject>

class QAction;

namespace loopscope {

namespace protocol {
struct StepProfile;
}

class CodeViewController;
class LoopNestView;
class MainWindow;
class RunController;

class ProfileController : public QObject {
    Q_OBJECT
public:
    ProfileController(MainWindow* window, RunController* runs, LoopNestView* loopNest,
                      CodeViewController* code);

    // Run ▸ Profile Runs, checked as the settings left it.
    QAction* profileRunsAction() const { return m_profileRuns; }
    void setProfiling(bool on);
    bool profiling() const;
    // Measures and profiles the shown step (Run ▸ Profile Step).
    void profileStep();
    // The shown step's profile, if it has one of the printing it shows.
    const protocol::StepProfile* shownProfile() const;
    // Shows the shown step's profile (heat, the profiled assembly), or none.
    void showProfile();

private:
    MainWindow* m_window;
    RunController* m_runs;
    LoopNestView* m_loopNest;
    CodeViewController* m_code;
    QAction* m_profileRuns = nullptr;
};

} // namespace loopscope
