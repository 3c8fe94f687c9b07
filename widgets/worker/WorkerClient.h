// Runs compile, check and benchmark requests in the background worker process (loopscope-worker,
// one JSON object per line over its standard streams): one request at a time, each with a time
// limit, cancellable, and on a fresh worker after a crash, so generated code never touches the app.
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QProcessEnvironment>
#include <QString>

#include <optional>

class QProcess;
class QTimer;

namespace loopscope {

class WorkerClient : public QObject {
    Q_OBJECT

public:
    static constexpr int kDefaultTimeLimitMs = 30000;

    explicit WorkerClient(QObject* parent = nullptr);
    ~WorkerClient() override;

    // The first that exists of: $LOOPSCOPE_WORKER, loopscope-worker next to the application,
    // ../worker/, ../libexec/loopscope/ (relative to the application's directory); else the first
    // candidate next to the application.
    static QString defaultWorkerPath();

    // Takes effect when the worker next starts.
    void setWorkerPath(const QString& path);
    QString workerPath() const { return m_workerPath; }
    void setWorkerEnvironment(const QProcessEnvironment& environment);

    // The longest a request may take from the moment it is sent to the worker (default 30 s).
    // A request with a "time_limit_ms" field uses that instead (the field is not sent on).
    void setTimeLimitMs(int milliseconds);
    int timeLimitMs() const { return m_timeLimitMs; }

    // Queues a request ({"cmd": ..., arguments}; see app/worker/RequestHandler.h) and returns
    // its id, which the client writes into it. Nothing about it is signalled before this returns.
    int submit(QJsonObject request);
    // Queues a request ahead of every queued one (not of the one running): for quick requests a
    // user waits on, such as the code of the shown step while a ladder's rows are queued. An
    // "emit" request submitted while a sweep runs goes to the worker at once, which answers it
    // between two of the sweep's points (one such request at a time; another waits its turn).
    int submitFirst(QJsonObject request);
    // A queued request is dropped; the running one is stopped by killing the worker, which is
    // then restarted. Either way cancelled(id) is emitted; unknown ids are ignored.
    void cancel(int id);
    void cancelAll();

    bool isBusy() const { return m_busy; }
    int runningRequest() const { return m_running ? m_running->id : -1; } // -1: none
    QList<int> queuedRequests() const;

signals:
    // `phase`: "lowering", "compiling", "checking" or "timing"; `fraction`: the request's overall
    // progress, 0..1.
    void progress(int id, const QString& phase, double fraction);
    // Every progress message as the worker wrote it (emitted just before progress()): a sweep's
    // carry {phase: "sweep", done, total, point}.
    void message(int id, const QJsonObject& msg);
    // The worker's result: "status" is "ok", "wrong" (a check found wrong numbers: an error, no
    // speed) or "error" (message, line, column).
    void finished(int id, const QJsonObject& result);
    // The worker crashed, ran past the time limit or could not be started; `message` says so
    // in plain words. The queue goes on with the next request on a fresh worker.
    void failed(int id, const QString& message);
    void cancelled(int id);
    // True from the first submitted request until nothing is queued or running.
    void busyChanged(bool busy);
    // A line the worker wrote to stderr (its log).
    void logLine(const QString& line);

private:
    struct Request {
        int id = 0;
        QJsonObject body;
        QString phase;       // the last progress phase reported
        int timeLimitMs = 0; // 0: the client's
    };

    int enqueue(QJsonObject request, bool first);
    void scheduleDispatch();
    void dispatch();
    void startWorker();
    void stopWorker();
    void readOutput();
    void readLog();
    void workerFinished(int exitCode, bool crashed);
    void workerFailedToStart();
    void timedOut();
    // Ends the running request with failed(); the queue continues on a fresh worker.
    void failRunning(const QString& message);
    void updateBusy();
    bool canSendAside(const QJsonObject& body) const;
    void send(const Request& request);
    // After the worker stopped: the request sent aside goes back to the front of the queue.
    void requeueAside();

    QString crashMessage(const Request& request, int exitCode, bool crashed) const;
    QString timeoutMessage(const Request& request) const;
    int limitOf(const Request& request) const;

    QString m_workerPath;
    QProcessEnvironment m_environment;
    int m_timeLimitMs = kDefaultTimeLimitMs;
    int m_nextId = 1;
    QList<Request> m_queue;
    std::optional<Request> m_running;
    std::optional<Request> m_aside; // sent while a sweep runs, answered between its points
    QList<int> m_droppedAside;      // cancelled after they were sent: their answers are dropped
    QProcess* m_process = nullptr;
    QTimer* m_timer = nullptr;
    QByteArray m_logBuffer;      // the worker's stderr up to an incomplete line
    QString m_lastInternalError; // the worker's last "internal error" log line
    bool m_dispatchScheduled = false;
    bool m_busy = false;
};

} // namespace loopscope
