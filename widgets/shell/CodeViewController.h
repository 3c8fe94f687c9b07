// The code views of the main window: the LLVM IR and assembly docks (for a GPU target the
// kernels' CUDA C and PTX), the toolbar's target selector, what the worker is asked for (the
// shown step, in the format of the view that is on screen) and the assembly's links with the
// loop nest's lines.
#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QComboBox;

namespace loopscope {

class CodeView;
class LoopNestView;
class MainWindow;
class RunController;

class CodeViewController : public QObject {
    Q_OBJECT
public:
    CodeViewController(MainWindow* window, RunController* runs, LoopNestView* loopNest);

    CodeView* llvmView() const { return m_llvmView; }
    CodeView* assemblyView() const { return m_asmView; }
    // The toolbar's target selector (empty data: the script's own target).
    QComboBox* targetBox() const { return m_targetBox; }

    // Asks the worker for the shown step's code, in the format of the view on screen (none when
    // neither is, or while the script has an error: the views keep the last good state's).
    void request();
    // The target the views show: the selector's, else the variant's tvm.build target.
    QString target() const;
    // Whether the assembly view shows the profiled kernel instead (not asked of the worker).
    void setAssemblyProfiled(std::function<bool()> profiled) { m_profiled = std::move(profiled); }

private:
    void show(const QString& format, const QString& text);

    MainWindow* m_window;
    RunController* m_runs;
    CodeView* m_llvmView = nullptr;
    CodeView* m_asmView = nullptr;
    QComboBox* m_targetBox = nullptr;
    std::function<bool()> m_profiled;
};

} // namespace loopscope
