// The Charts dock: the sweep panel above the charts. It shows a sweep's points as they come and
// the machine's reference lines (remembered from the last measurement; when there is none, it
// asks for one the first time it is shown). Running the sweep is the run controller's.
#pragma once

#include "protocol/Messages.h"

#include <QDockWidget>
#include <QStringList>

#include <functional>
#include <vector>

namespace loopscope {

class AnalysisService;
class ChartsView;
class RunController;
class SweepPanel;

class ChartsDock : public QDockWidget {
    Q_OBJECT
public:
    explicit ChartsDock(QWidget* parent = nullptr);
    ~ChartsDock() override;

    SweepPanel* panel() const { return m_panel; }
    ChartsView* charts() const { return m_charts; }

    // The panel's sweeps run by `runs` on the text `script` gives, shown as they come; with each
    // new analysis, the points measured before for the text as it is.
    void connectRuns(RunController* runs, AnalysisService* analysis,
                     std::function<QString()> script);

    // The sweep the panel's choices make for this script, and the time limit of the whole.
    protocol::SweepRequest sweepRequest(const QString& script) const;
    int sweepTimeLimitMs() const;
    bool machineKnown() const { return m_machineKnown; }

    // A sweep of these parameters started: empty charts, in view, the panel running.
    void beginSweep(const QStringList& parameters);
    void showProgress(const protocol::SweepUpdate& progress);
    // Every point, the cached ones included, and the reference line's label.
    void showResult(const protocol::SweepReply& result);
    // The sweep ended, however it did.
    void endSweep();
    // The points measured before for the script as it is now (SweepStore::known), shown as
    // cached when no sweep runs: a script opened again shows its charts at once, and an edit
    // shows which variants keep theirs.
    void showKnown(const std::vector<protocol::SweepPoint>& points, const QStringList& parameters);
    // The reference lines, remembered for the next session.
    void setMachine(const protocol::MachineReply& machine);

signals:
    // Shown without the machine's figures.
    void machineWanted();

private:
    SweepPanel* m_panel = nullptr;
    ChartsView* m_charts = nullptr;
    bool m_machineKnown = false;
};

} // namespace loopscope
