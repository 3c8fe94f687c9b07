// The main window's settings: its geometry (on the first start, most of the screen) and dock
// layout, the threads box, the printing choice and the run settings (Run ▸ Settings), read as
// the window is built and written as it closes; a settings file that cannot be read as settings
// is set aside for the defaults.
#pragma once

#include <QObject>
#include <QString>

class QAction;
class QSpinBox;

namespace loopscope {

class MainWindow;
class RunController;

class SettingsController : public QObject {
    Q_OBJECT
public:
    // `threads` and `structured` are the toolbar's threads box and View ▸ Structured Printing.
    SettingsController(MainWindow* window, RunController* runs, QSpinBox* threads,
                       QAction* structured);

    // Sets the settings file aside when it cannot be read as settings (the defaults apply then):
    // the message for the user, else empty.
    static QString setAsideDamaged();

    void restore();
    void save() const;
    // Whether restore() found a layout of this window's docks (else the default one applies).
    bool layoutRestored() const { return m_layoutRestored; }
    // Run ▸ Settings: the run settings in a dialog, saved when accepted.
    void showDialog();

private:
    static constexpr int kLayoutVersion = 3; // bumped when the set of docks changes

    MainWindow* m_window;
    RunController* m_runs;
    QSpinBox* m_threads;
    QAction* m_structured;
    bool m_layoutRestored = false;
};

} // namespace loopscope
