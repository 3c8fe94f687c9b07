// Runs compile, check and benchmark requests in the background worker process (loopscope-worker,
// one JSON line per message over its standard streams): one request at a time, each with a time
// limit, cancellable, and on a fresh worker after a crash, so generated code never touches the app.
// Requests and replies are the protocol's own values (protocol/Messages.h), written and read by its
// one codec (protocol/Codec.h); each reply goes to the continuation of the request it answers
// (worker/WorkerReply.h).
#pragma once

#include "protocol/Messages.h"
#include "worker/WorkerReply.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QProcessEnvironment>
#include <QString>

#include <functional>
#include <optional>

class QProcess;
class QTimer;

namespace loopscope::protocol {
class Incoming;
}

namespace loopscope {

namespace worker {

// Where a request goes in the queue: after every queued one, or ahead of them (not of the one
// running): for quick requests a user waits on, such as the code of the shown step while a
// ladder's rows are queued. An emit request queued first while a sweep runs goes to the worker at
// once, which answers it between two of the sweep's points (one such request at a time; another
// waits its turn).
enum class Order { Last, First };

// How one request is sent: its place in the queue and its own time limit.
struct SubmitOptions {
    Order order = Order::Last;
    int timeLimitMs = 0; // from the moment the worker gets it; 0: the client's
};

} // namespace worker

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
    // Takes effect with the next worker: an idle one is stopped, so that the next request starts
    // one with it.
    void setWorkerEnvironment(const QProcessEnvironment& environment);
    const QProcessEnvironment& workerEnvironment() const { return m_environment; }

    // The longest a request may take from the moment it is sent to the worker (default 30 s).
    // A request with a time limit of its own (SubmitOptions) uses that instead.
    void setTimeLimitMs(int milliseconds);
    int timeLimitMs() const { return m_timeLimitMs; }

    // The bounds every request carries to the worker (core's Limits: unrolled copies per kernel,
    // reference interpreter steps per checked element); 0 leaves the worker's own.
    void setWorkLimits(qint64 maxUnrollCopies, qint64 maxReferenceSteps);

    using Order = worker::Order;
    using Options = worker::SubmitOptions;

    // Told how a request ended, exactly once: the worker's result or error, the client's failure
    // (crash, time limit, no worker) or a cancel.
    template <typename T> using Continuation = std::function<void(const worker::Reply<T>&)>;

    // Queue a request and return its id. The continuation is called only while `context` lives
    // (never with a null context), and never before submit returns; so are a sweep's `point` and
    // a tuning run's `trial` calls, one per progress message.
    // Any request (protocol::MeasureRequest, SweepRequest, ...), answered with its Reply.
    template <typename R>
    int submit(const R& request, QObject* context, Continuation<typename R::Reply> done,
               Options options = {});
    // A request that reports as it goes (a sweep's points, a tuning run's trials), with `each`
    // told every such progress message, as its Update.
    template <typename R>
    int submit(const R& request, QObject* context,
               std::function<void(const typename R::Update&)> each,
               Continuation<typename R::Reply> done, Options options = {});
    // A queued request is dropped; the running one is stopped by killing the worker, which is
    // then restarted. Either way its continuation is told and cancelled(id) is emitted; unknown
    // ids are ignored.
    void cancel(int id);
    void cancelAll();

    bool isBusy() const { return m_busy; }
    int runningRequest() const { return m_running ? m_running->id : -1; } // -1: none
    QList<int> queuedRequests() const;

signals:
    // Observers' signals, for every request (its continuation is told too). `phase`:
    // "lowering", "compiling", "checking", "timing" or "sweep"; `fraction`: the request's overall
    // progress, 0..1.
    void progress(int id, const QString& phase, double fraction);
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
        protocol::Request message;      // what it asks, as sent
        protocol::RequestLimits limits; // the bounds as of its submit
        QString phase;                  // the last progress phase reported
        int timeLimitMs = 0;            // 0: the client's
    };
    // How a request ended, before it is read for its continuation.
    struct Ending {
        enum How { Result, Unreadable, Failed, Cancelled } how = Cancelled;
        const protocol::Incoming* result = nullptr; // Result: the worker's message
        protocol::ErrorReply unreadable; // Unreadable: why the worker's result cannot be read
        QString failure;                 // Failed: the client's message
    };
    // Where a request's messages go: its continuation, while its context lives.
    struct Route {
        QPointer<QObject> context;
        std::function<void(const protocol::Incoming& message)> progress; // may be empty
        std::function<void(const Ending& ending)> end;
    };
    template <typename T> static Route routeTo(QObject* context, Continuation<T> done);

    int enqueue(protocol::Request message, Options options, Route route);
    // Every message of a request, parsed once: progress to its route and the observers...
    void deliverProgress(int id, const protocol::Incoming& message);
    // ... and its end to its route (taken out: it ends once).
    void conclude(int id, const Ending& ending);
    void scheduleDispatch();
    void dispatch();
    void startWorker();
    void stopWorker();
    void readOutput();
    // A line the worker wrote that is no message of the protocol: its request, when it names a
    // live one, ends refused with `error`; else it goes to the log.
    void readUnreadable(const QByteArray& line, const protocol::ErrorReply& error);
    // The worker's result of request `id`: its route is told; the aside request or the running
    // one ends.
    void concludeResult(int id, const Ending& ending);
    void readLog();
    void workerFinished(int exitCode, bool crashed);
    void workerFailedToStart();
    void timedOut();
    // Ends the running request with failed(); the queue continues on a fresh worker.
    void failRunning(const QString& message);
    void updateBusy();
    bool canSendAside(const protocol::Request& message) const;
    void send(const Request& request);
    // After the worker stopped: the request sent aside goes back to the front of the queue.
    void requeueAside();

    QString crashMessage(const Request& request, int exitCode, bool crashed) const;
    QString timeoutMessage(const Request& request) const;
    int limitOf(const Request& request) const;

    QString m_workerPath;
    QProcessEnvironment m_environment;
    int m_timeLimitMs = kDefaultTimeLimitMs;
    qint64 m_maxUnrollCopies = 0, m_maxReferenceSteps = 0;
    int m_nextId = 1;
    QList<Request> m_queue;
    std::optional<Request> m_running;
    std::optional<Request> m_aside; // sent while a sweep runs, answered between its points
    QList<int> m_droppedAside;      // cancelled after they were sent: their answers are dropped
    QHash<int, Route> m_routes;     // every request not yet ended
    QProcess* m_process = nullptr;
    QTimer* m_timer = nullptr;
    QByteArray m_logBuffer;      // the worker's stderr up to an incomplete line
    QString m_lastInternalError; // the worker's last "internal error" log line
    bool m_dispatchScheduled = false;
    bool m_busy = false;
};

} // namespace loopscope
