// Runs the auto-tuner for the window: one tuning run at a time, in a worker process of its own
// (so that the ladder and sweeps keep theirs), its trials reported as they are measured. A cancel
// stops the worker; the trials it measured stay in the tuning log.
#pragma once

#include "protocol/Messages.h"

#include <QObject>

namespace loopscope {

class WorkerClient;

class TuneService : public QObject {
    Q_OBJECT

public:
    explicit TuneService(QObject* parent = nullptr);

    // Starts a run (a running one is cancelled first), with the time its budget allows.
    void start(const protocol::TuneRequest& request);
    void cancel();
    bool running() const { return m_id >= 0; }
    // The worker the runs go to (tests set its path and environment).
    WorkerClient* worker() const { return m_worker; }

signals:
    void runningChanged(bool running);
    void progress(const loopscope::protocol::TuneUpdate& progress);
    void finished(const loopscope::protocol::TuneReply& result);
    // The run could not go on: the script has an error, or the tuning worker itself stopped.
    void failed(const QString& message);
    void cancelled();

private:
    WorkerClient* m_worker = nullptr;
    int m_id = -1;
};

} // namespace loopscope
