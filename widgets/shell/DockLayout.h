// How the main window's docks are arranged. The default layout, applied once the window has its
// size: the script and the loop nest, where the user reads and writes, side by side with room
// for 60 characters each; the schedule panel and the variants in a column of their own where
// that leaves room for it, else as tabs right after the loop nest's (a laptop's 1366 pixels hold
// two readable panes, not three); the ladder tall enough for the samples' longest ladders. And
// View ▸ Assembly Beside Loop Nest.
#pragma once

#include <QList>
#include <QObject>

class QDockWidget;
class QMainWindow;

namespace loopscope {

class LadderView;

class DockLayout : public QObject {
    Q_OBJECT
public:
    // The characters of a line the default layout makes room for in the script and the loop
    // nest each, with their gutters, margins and scroll bars: 60 of text.
    static constexpr int kPaneColumns = 68;

    // The docks are the window's, found by their object names.
    DockLayout(QMainWindow* window, LadderView* ladder);

    void applyDefault();
    // The loop nest, and at its right the assembly with the other right-hand docks as tabs
    // behind it.
    void showAssemblyBesideLoopNest();

private:
    QDockWidget* dock(const char* name) const;
    // The right-hand docks not floating, but `except`.
    QList<QDockWidget*> rightHandDocks(const QList<QDockWidget*>& except) const;
    // `docks` as tabs behind `first`, in order.
    void tabBehind(QDockWidget* first, const QList<QDockWidget*>& docks);

    QMainWindow* m_window;
    LadderView* m_ladder;
};

} // namespace loopscope
