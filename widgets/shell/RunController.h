// Everything the window asks of the background worker: the ladder's runs, the code of the shown
// step, exports, sweeps and the machine's figures. It completes each request with the run
// settings, sends it through the worker client, and turns the typed reply into the ladder's rows
// and signals the window's parts show; the worker's progress and failures go out as signals too.
#pragma once

#include "protocol/Messages.h"
#include "shell/RunSettingsDialog.h"
#include "views/LadderModel.h"
#include "worker/WorkerReply.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace loopscope {

class LadderModel;
class LadderStore;
class SweepStore;
class WorkerClient;
struct VariantView;

class RunController : public QObject {
    Q_OBJECT
public:
    // Results of the ladder's runs go to `ladder`, which finds the measurements of this session
    // and of earlier ones (kept in the app's data folder) in ladderStore(). The run settings are
    // loaded from the application's settings.
    RunController(WorkerClient* worker, LadderModel* ladder, QObject* parent = nullptr);
    ~RunController() override;

    WorkerClient* worker() const { return m_worker; }
    // The sweep points measured before, offered to every sweep (kept in the app's data folder).
    SweepStore* sweepStore() const { return m_sweepStore.get(); }
    // The ladder's measurements by step key: this session's, and earlier sessions' by script.
    LadderStore* ladderStore() const { return m_ladderStore.get(); }
    // The script's file, under which its ladder's measurements are kept (empty: not saved).
    void setScriptPath(const QString& path);
    // The ladder's measurement of a step (LadderModel::stepKey), this session's or the script's
    // from an earlier one.
    std::optional<LadderModel::Result> resultOf(const QString& key) const;

    const RunSettings& settings() const { return m_settings; }
    // The time limit applies from the next request on.
    void setSettings(const RunSettings& settings);
    void setThreads(int threads);

    // Asks the worker what it runs on: workerDescribed.
    void describeWorker();
    // What the worker last said about itself and its machine (empty cpu: not yet asked).
    const protocol::PingReply& machine() const { return m_machine; }

    // Measures each step of the variant whose ladder row has no result (a step that does not
    // lower fails at once); ladderFinished once none is pending. A step whose key was measured
    // before (in this session, in another variant, or in an earlier session of this script) is
    // not run again, nor is one whose key is already queued: rows with one key share a request.
    // A row says it is running from the request's first progress message.
    void runLadder(const QString& script, const VariantView& variant);
    // Measures one step of the variant's ladder, and profiles it (again, when it was measured
    // without a profile).
    void profileStep(const QString& script, const VariantView& variant, int step);
    // Ladder runs profile each step too (the CPU clock samples the kernel after its first run
    // for `seconds`); steps measured without a profile are measured again.
    void setProfiling(bool on, double seconds = 0.5);
    bool profiling() const { return m_profiling; }
    // The profile of a step (by LadderModel::stepKey), of this session; nullptr when none.
    const protocol::StepProfile* profileOf(const QString& key) const;
    bool ladderRunning() const { return m_ladderRuns > 0; }
    // Cancels every request: the ladder's rows become "cancelled"; then ladderFinished.
    void cancelAll();

    // The code of one step ("llvm", "asm", "ptx" or "cuda") ahead of queued runs; it replaces the
    // one pending.
    // `target`: instead of the variant's tvm.build target ("" keeps it).
    void requestCode(const QString& script, const QString& variant, int step, const QString& format,
                     const QString& target = {});
    // A variant's last step in any export format: exportReady or exportRefused.
    void exportVariant(const QString& script, const QString& variant, const QString& format,
                       const QString& sourceName);

    // A sweep as the charts' panel asks for it, with the run settings and the points measured
    // before, under its own time limit; a running sweep is cancelled first.
    void startSweep(protocol::SweepRequest request, int timeLimitMs);
    // The points measured so far stay (and are saved).
    void cancelSweep();
    bool sweepRunning() const { return m_sweepRequest >= 0; }
    // The machine's peak speed and memory bandwidth (unless already being measured).
    void measureMachine();

signals:
    // Before generated code runs.
    void aboutToRunCode();
    void busyChanged(bool busy);
    void progress(const QString& phase, double fraction);
    // For the status bar: failures, notes and what is being done.
    void statusMessage(const QString& message, int timeoutMs);
    void workerDescribed(const QString& cpu, int threads);
    // The worker is of another build (another protocol): nothing can run; `message` says why.
    void workerRefused(const QString& message);
    // A ladder run compiled in this time.
    void compiled(double compileMs);
    void ladderFinished();
    // A step's profile arrived (its key; profileOf gives it).
    void profileReady(const QString& key);
    // The code of a step, or why there is none.
    void codeReady(const QString& format, const QString& text);
    void exportReady(const QString& variant, const QString& text, const QString& suggestedName);
    void exportRefused(const QString& message);
    // An object file: its bytes and the C header with the function's prototype.
    void objectReady(const QString& variant, const QByteArray& object, const QString& header,
                     const QString& suggestedName);
    void sweepStarted(const QStringList& parameters);
    void sweepProgressed(const protocol::SweepUpdate& progress);
    void sweepAnswered(const protocol::SweepReply& result);
    // The sweep ended: finished, failed or cancelled.
    void sweepFinished();
    void machineMeasured(const protocol::MachineReply& machine);

private:
    // The time limit and work bounds of the settings, for the worker and the window's analysis.
    void applyLimits();
    void runLadderRows(const QString& script, const VariantView& variant, int onlyRow,
                       bool profile);
    void finishLadderRun(int id, const worker::Reply<protocol::MeasureReply>& reply);
    void ladderProgress(int id);
    void sweepPoint(const protocol::SweepUpdate& progress);
    void finishSweep(const worker::Reply<protocol::SweepReply>& reply);

    WorkerClient* m_worker;
    LadderModel* m_ladder;
    std::unique_ptr<SweepStore> m_sweepStore;
    std::unique_ptr<LadderStore> m_ladderStore;
    struct LadderRequest {
        QString key; // the step's: its result goes to every row with this key
        int row = 0; // the row it was asked for, for rows without a key
    };
    QHash<int, LadderRequest> m_ladderRequests; // ladder request id -> what it measures
    QHash<QString, int> m_pendingKeys;          // step key -> its request
    QSet<int> m_startedRequests;                // ladder requests the worker has begun
    RunSettings m_settings;
    int m_ladderRuns = 0; // ladder runs not ended yet
    bool m_profiling = false;
    double m_profileSeconds = 0.5;
    QHash<QString, protocol::StepProfile> m_profiles; // by step key, this session's
    bool m_countersNoted = false; // the machine's lack of counters has been said
    int m_codeRequest = -1;       // the pending code of the code views
    int m_sweepRequest = -1;      // the running sweep
    int m_machineRequest = -1;    // the pending machine measurement
    QString m_sweepScript;        // the running sweep's text and parameters
    QStringList m_sweepParameters;
    protocol::PingReply m_machine;
};

} // namespace loopscope
