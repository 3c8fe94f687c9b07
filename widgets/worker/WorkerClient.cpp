#include "worker/WorkerClient.h"

#include "protocol/Protocol.h"

#include "worker/WorkerProtocol.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QTimer>

#include <csignal>
#include <utility>

namespace loopscope {

namespace {

QString signalDescription(int signal)
{
    switch (signal) {
    case SIGSEGV: return QStringLiteral("segmentation fault");
    case SIGBUS: return QStringLiteral("bus error");
    case SIGFPE: return QStringLiteral("arithmetic error, such as an integer division by zero");
    case SIGILL: return QStringLiteral("illegal instruction");
    case SIGABRT: return QStringLiteral("aborted");
    case SIGKILL: return QStringLiteral("killed, possibly for lack of memory");
    case SIGTERM: return QStringLiteral("terminated");
    default: return QStringLiteral("signal %1").arg(signal);
    }
}

// "30 s", "0.3 s", "1.25 s".
QString formatSeconds(int milliseconds)
{
    return QString::number(milliseconds / 1000.0, 'g', 6) + QStringLiteral(" s");
}

QString capitalized(QString s)
{
    if (!s.isEmpty()) s[0] = s[0].toUpper();
    return s;
}

bool isRunCommand(const QJsonObject& body)
{
    QString cmd = body.value(QLatin1String("cmd")).toString();
    return cmd == QLatin1String("measure") || cmd == QLatin1String("emit");
}

// What a request works on, as the messages name it: "variant 'tiled' step 3".
QString describeTarget(const QJsonObject& body)
{
    if (!isRunCommand(body))
        return QStringLiteral("the '%1' request").arg(body.value(QLatin1String("cmd")).toString());
    QString variant = body.value(QLatin1String("variant")).toString();
    QString text = variant.isEmpty() ? QStringLiteral("the first variant")
                                     : QStringLiteral("variant '%1'").arg(variant);
    int step = body.value(QLatin1String("step")).toInt(-1);
    if (step == 0)
        text += QStringLiteral(" before its schedule steps");
    else if (step > 0)
        text += QStringLiteral(" step %1").arg(step);
    return text;
}

bool isRunningPhase(const QString& phase)
{
    return phase == QLatin1String("checking") || phase == QLatin1String("timing");
}

} // namespace

WorkerClient::WorkerClient(QObject* parent)
    : QObject(parent), m_workerPath(defaultWorkerPath()),
      m_environment(QProcessEnvironment::systemEnvironment()), m_timer(new QTimer(this))
{
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, &WorkerClient::timedOut);
}

WorkerClient::~WorkerClient()
{
    m_routes.clear(); // no continuation is told after this
    m_queue.clear();
    m_running.reset();
    m_aside.reset();
    m_process = nullptr;
    // The current worker and any stopped one not yet reaped: reaping a killed process takes a
    // moment at most, and happens only when the client goes away.
    for (QProcess* p : findChildren<QProcess*>(Qt::FindDirectChildrenOnly)) {
        disconnect(p, nullptr, this, nullptr);
        if (p->state() == QProcess::NotRunning) continue;
        p->kill();
        p->waitForFinished(1000);
    }
}

QString WorkerClient::defaultWorkerPath()
{
    const QString name = QStringLiteral("loopscope-worker");
    QString fromEnvironment = qEnvironmentVariable("LOOPSCOPE_WORKER");
    if (!fromEnvironment.isEmpty()) return fromEnvironment;
    const QDir dir(QCoreApplication::applicationDirPath());
    const QStringList candidates = {
        dir.filePath(name),
        dir.filePath(QStringLiteral("../worker/") + name),
        dir.filePath(QStringLiteral("../libexec/loopscope/") + name),
    };
    for (const QString& c : candidates)
        if (QFileInfo(c).isExecutable()) return QDir::cleanPath(c);
    return QDir::cleanPath(candidates.front());
}

void WorkerClient::setWorkerPath(const QString& path)
{
    m_workerPath = path;
}

void WorkerClient::setWorkerEnvironment(const QProcessEnvironment& environment)
{
    m_environment = environment;
}

void WorkerClient::setTimeLimitMs(int milliseconds)
{
    m_timeLimitMs = qMax(1, milliseconds);
}

void WorkerClient::setWorkLimits(qint64 maxUnrollCopies, qint64 maxReferenceSteps)
{
    m_maxUnrollCopies = qMax<qint64>(0, maxUnrollCopies);
    m_maxReferenceSteps = qMax<qint64>(0, maxReferenceSteps);
}

template <typename T>
WorkerClient::Route WorkerClient::routeTo(QObject* context, Continuation<T> done)
{
    Q_ASSERT(context);
    Route route;
    route.context = context;
    route.end = [done = std::move(done)](const Ending& ending) {
        worker::Reply<T> reply;
        switch (ending.how) {
        case Ending::Result: reply = worker::decode<T>(ending.result); break;
        case Ending::Failed:
            reply.ending = worker::Reply<T>::Ending::Failed;
            reply.failure = ending.failure;
            break;
        case Ending::Cancelled: reply.ending = worker::Reply<T>::Ending::Cancelled; break;
        }
        done(reply);
    };
    return route;
}

int WorkerClient::submit(const worker::PingRequest& request, QObject* context,
                         Continuation<worker::PingResult> done, Order order)
{
    return enqueue(worker::encode(request), request.timeLimitMs, order,
                   routeTo(context, std::move(done)));
}

int WorkerClient::submit(const worker::MeasureRequest& request, QObject* context,
                         Continuation<worker::MeasureResult> done, Order order)
{
    return enqueue(worker::encode(request), request.timeLimitMs, order,
                   routeTo(context, std::move(done)));
}

int WorkerClient::submit(const worker::EmitRequest& request, QObject* context,
                         Continuation<worker::EmitResult> done, Order order)
{
    return enqueue(worker::encode(request), request.timeLimitMs, order,
                   routeTo(context, std::move(done)));
}

int WorkerClient::submit(const worker::SweepRequest& request, QObject* context,
                         std::function<void(const worker::SweepProgress&)> point,
                         Continuation<worker::SweepResult> done, Order order)
{
    Route route = routeTo(context, std::move(done));
    if (point)
        route.progress = [point = std::move(point)](const QJsonObject& message) {
            point(worker::decodeSweepProgress(message));
        };
    return enqueue(worker::encode(request), request.timeLimitMs, order, std::move(route));
}

int WorkerClient::submit(const worker::MachineRequest& request, QObject* context,
                         Continuation<worker::MachineResult> done, Order order)
{
    return enqueue(worker::encode(request), request.timeLimitMs, order,
                   routeTo(context, std::move(done)));
}

int WorkerClient::submit(const worker::ModelRequest& request, QObject* context,
                         Continuation<worker::ModelResult> done, Order order)
{
    return enqueue(worker::encode(request), request.timeLimitMs, order,
                   routeTo(context, std::move(done)));
}

int WorkerClient::submit(const worker::ModelChoiceRequest& request, QObject* context,
                         Continuation<worker::ModelChoiceResult> done, Order order)
{
    return enqueue(worker::encode(request), request.timeLimitMs, order,
                   routeTo(context, std::move(done)));
}

int WorkerClient::submit(const worker::TuneRequest& request, QObject* context,
                         std::function<void(const worker::TuneProgress&)> trial,
                         Continuation<worker::TuneResult> done, Order order)
{
    Route route = routeTo(context, std::move(done));
    if (trial)
        route.progress = [trial = std::move(trial)](const QJsonObject& message) {
            trial(worker::decodeTuneProgress(message));
        };
    return enqueue(worker::encode(request), request.timeLimitMs, order, std::move(route));
}

int WorkerClient::enqueue(QJsonObject body, int timeLimitMs, Order order, Route route)
{
    const int id = m_nextId++;
    body.insert(QStringLiteral("id"), id);
    body.insert(QStringLiteral("protocol"), kWorkerProtocol);
    if (m_maxUnrollCopies > 0) body.insert(QStringLiteral("max_unroll"), m_maxUnrollCopies);
    if (m_maxReferenceSteps > 0)
        body.insert(QStringLiteral("max_reference_steps"), m_maxReferenceSteps);
    m_routes.insert(id, std::move(route));
    Request queued{id, std::move(body), {}, qMax(0, timeLimitMs)};
    const bool first = order == Order::First;
    if (first && canSendAside(queued.body)) {
        m_aside = std::move(queued);
        send(*m_aside);
    } else if (first)
        m_queue.prepend(std::move(queued));
    else
        m_queue.append(std::move(queued));
    updateBusy();
    scheduleDispatch();
    return id;
}

void WorkerClient::deliverProgress(int id, const QJsonObject& message)
{
    const worker::Progress p = worker::decodeProgress(message);
    if (m_running && m_running->id == id) m_running->phase = p.phase;
    if (m_aside && m_aside->id == id) m_aside->phase = p.phase;
    auto it = m_routes.constFind(id);
    if (it != m_routes.constEnd() && it->context && it->progress) {
        const auto point = it->progress; // the call may end the request and its route
        point(message);
    }
    const bool live = (m_running && m_running->id == id) || (m_aside && m_aside->id == id);
    if (live) emit progress(id, p.phase, p.fraction); // unless cancelled by the route
}

void WorkerClient::conclude(int id, const Ending& ending)
{
    auto it = m_routes.find(id);
    if (it == m_routes.end()) return;
    Route route = std::move(*it);
    m_routes.erase(it);
    if (route.context && route.end) route.end(ending);
}

bool WorkerClient::canSendAside(const QJsonObject& body) const
{
    return m_running && !m_aside && m_process && m_process->state() == QProcess::Running &&
           m_running->body.value(QLatin1String("cmd")).toString() == QLatin1String("sweep") &&
           body.value(QLatin1String("cmd")).toString() == QLatin1String("emit");
}

void WorkerClient::send(const Request& request)
{
    QByteArray line = QJsonDocument(request.body).toJson(QJsonDocument::Compact);
    line.append('\n');
    m_process->write(line);
}

void WorkerClient::requeueAside()
{
    if (m_aside) m_queue.prepend(*std::exchange(m_aside, std::nullopt));
}

void WorkerClient::cancel(int id)
{
    if (m_aside && m_aside->id == id) {
        m_aside.reset();
        m_droppedAside.append(id); // its answer, when it comes, is dropped
        conclude(id, Ending{Ending::Cancelled, {}, {}});
        emit cancelled(id);
        updateBusy();
        return;
    }
    for (qsizetype i = 0; i < m_queue.size(); ++i) {
        if (m_queue[i].id != id) continue;
        m_queue.removeAt(i);
        conclude(id, Ending{Ending::Cancelled, {}, {}});
        emit cancelled(id);
        updateBusy();
        return;
    }
    if (!m_running || m_running->id != id) return;
    m_running.reset();
    m_timer->stop();
    stopWorker();
    requeueAside();
    startWorker(); // ready for the next request
    conclude(id, Ending{Ending::Cancelled, {}, {}});
    emit cancelled(id);
    scheduleDispatch();
    updateBusy();
}

void WorkerClient::cancelAll()
{
    QList<int> ids;
    if (m_aside) {
        ids.append(m_aside->id);
        m_droppedAside.append(std::exchange(m_aside, std::nullopt)->id); // answered, then dropped
    }
    if (m_running) {
        ids.append(m_running->id);
        m_running.reset();
        m_timer->stop();
        stopWorker();
        startWorker();
    }
    for (const Request& r : std::as_const(m_queue))
        ids.append(r.id);
    m_queue.clear();
    for (int id : std::as_const(ids)) {
        conclude(id, Ending{Ending::Cancelled, {}, {}});
        emit cancelled(id);
    }
    updateBusy();
}

QList<int> WorkerClient::queuedRequests() const
{
    QList<int> ids;
    for (const Request& r : m_queue)
        ids.append(r.id);
    return ids;
}

void WorkerClient::scheduleDispatch()
{
    if (m_dispatchScheduled) return;
    m_dispatchScheduled = true;
    QTimer::singleShot(0, this, &WorkerClient::dispatch);
}

void WorkerClient::dispatch()
{
    m_dispatchScheduled = false;
    if (m_running || m_queue.isEmpty()) {
        updateBusy();
        return;
    }
    if (!m_process) {
        startWorker(); // started() dispatches
        return;
    }
    if (m_process->state() != QProcess::Running) return; // still starting
    m_running = m_queue.takeFirst();
    send(*m_running);
    m_timer->start(limitOf(*m_running));
    updateBusy();
}

void WorkerClient::startWorker()
{
    if (m_process) return;
    auto* p = new QProcess(this);
    m_process = p;
    m_lastInternalError.clear();
    m_logBuffer.clear();
    p->setProgram(m_workerPath);
    p->setProcessEnvironment(m_environment);
    p->setProcessChannelMode(QProcess::SeparateChannels);
    connect(p, &QProcess::started, this, &WorkerClient::dispatch);
    connect(p, &QProcess::readyReadStandardOutput, this, &WorkerClient::readOutput);
    connect(p, &QProcess::readyReadStandardError, this, &WorkerClient::readLog);
    connect(p, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        workerFinished(exitCode, status == QProcess::CrashExit);
    });
    connect(p, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) workerFailedToStart();
    });
    p->start();
}

void WorkerClient::stopWorker()
{
    m_droppedAside.clear(); // a new worker owes no answers
    if (!m_process) return;
    QProcess* p = std::exchange(m_process, nullptr);
    disconnect(p, nullptr, this, nullptr);
    if (p->state() == QProcess::NotRunning) {
        p->deleteLater();
        return;
    }
    // Reaped without waiting: the object goes once the process is gone.
    connect(p, &QProcess::finished, p, &QObject::deleteLater);
    connect(p, &QProcess::errorOccurred, p, &QObject::deleteLater);
    p->kill();
}

void WorkerClient::readOutput()
{
    while (m_process && m_process->canReadLine()) {
        const QByteArray line = m_process->readLine().trimmed();
        if (line.isEmpty()) continue;
        const QJsonDocument doc = QJsonDocument::fromJson(line);
        if (!doc.isObject()) {
            emit logLine(QStringLiteral("unreadable worker output: ") + QString::fromUtf8(line));
            continue;
        }
        const QJsonObject message = doc.object();
        const int id = message.value(QLatin1String("id")).toInt(-1);
        const bool progressMessage = worker::isProgress(message);
        if (m_aside && id == m_aside->id) {
            if (progressMessage) {
                deliverProgress(id, message);
                continue;
            }
            m_aside.reset();
            conclude(id, Ending{Ending::Result, message, {}});
            updateBusy();
            continue;
        }
        if (m_droppedAside.contains(id)) {
            if (!progressMessage) m_droppedAside.removeOne(id);
            continue;
        }
        if (!m_running || id != m_running->id) {
            emit logLine(QStringLiteral("worker output for no running request: ") +
                         QString::fromUtf8(line.left(500)));
            continue;
        }
        if (progressMessage) {
            deliverProgress(id, message);
            if (!m_running || m_running->id != id) return; // cancelled by a receiver
            continue;
        }
        m_timer->stop();
        m_running.reset();
        conclude(id, Ending{Ending::Result, message, {}});
        dispatch();
    }
}

void WorkerClient::readLog()
{
    if (!m_process) return;
    m_logBuffer += m_process->readAllStandardError();
    qsizetype end;
    while ((end = m_logBuffer.indexOf('\n')) >= 0) {
        const QString line = QString::fromUtf8(m_logBuffer.left(end));
        m_logBuffer.remove(0, end + 1);
        if (line.contains(QLatin1String("internal error"))) m_lastInternalError = line;
        emit logLine(line);
    }
}

void WorkerClient::workerFinished(int exitCode, bool crashed)
{
    readOutput(); // a result written just before the end still counts
    readLog();
    if (!m_logBuffer.isEmpty()) {
        m_logBuffer.append('\n');
        readLog();
    }
    if (m_process) {
        disconnect(m_process, nullptr, this, nullptr);
        std::exchange(m_process, nullptr)->deleteLater();
    }
    requeueAside();
    if (m_running) {
        failRunning(crashMessage(*m_running, exitCode, crashed));
        return;
    }
    scheduleDispatch(); // died while idle: a new worker starts when a request needs one
}

void WorkerClient::workerFailedToStart()
{
    QString reason = m_process ? m_process->errorString() : QString();
    if (m_process) {
        disconnect(m_process, nullptr, this, nullptr);
        std::exchange(m_process, nullptr)->deleteLater();
    }
    const QString message =
        QStringLiteral("The background worker (%1) could not be started: %2. Nothing can be "
                       "compiled or benchmarked until it can.")
            .arg(QDir::toNativeSeparators(m_workerPath), reason);
    QList<Request> failing;
    if (m_running) failing.append(*std::exchange(m_running, std::nullopt));
    if (m_aside) failing.append(*std::exchange(m_aside, std::nullopt));
    failing.append(std::exchange(m_queue, {}));
    m_timer->stop();
    for (const Request& r : std::as_const(failing)) {
        conclude(r.id, Ending{Ending::Failed, {}, message});
        emit failed(r.id, message);
    }
    updateBusy();
}

void WorkerClient::timedOut()
{
    if (m_running) failRunning(timeoutMessage(*m_running));
}

void WorkerClient::failRunning(const QString& message)
{
    const int id = m_running->id;
    m_running.reset();
    m_timer->stop();
    stopWorker();
    requeueAside();
    startWorker(); // a fresh worker, ready for what comes next
    conclude(id, Ending{Ending::Failed, {}, message});
    emit failed(id, message);
    dispatch();
}

void WorkerClient::updateBusy()
{
    const bool busy = m_running.has_value() || m_aside.has_value() || !m_queue.isEmpty();
    if (busy == m_busy) return;
    m_busy = busy;
    emit busyChanged(busy);
}

QString WorkerClient::crashMessage(const Request& request, int exitCode, bool crashed) const
{
    const QString target = describeTarget(request.body);
    const bool running = isRunningPhase(request.phase);
    const QString doing = running ? QStringLiteral("running") : QStringLiteral("compiling");
    if (crashed && exitCode == SIGABRT && !m_lastInternalError.isEmpty())
        return QStringLiteral("Loopscope hit an internal error while %1 %2 (%3); the worker was "
                              "restarted.")
            .arg(doing, target, m_lastInternalError.trimmed());
    if (!crashed)
        return QStringLiteral("The worker stopped unexpectedly (exit code %1) while %2 %3; it "
                              "was restarted.")
            .arg(QString::number(exitCode),
                 isRunCommand(request.body) ? doing : QStringLiteral("handling"), target);
    const QString reason = signalDescription(exitCode);
    if (!isRunCommand(request.body))
        return QStringLiteral("The worker crashed (%1) while handling %2; it was restarted.")
            .arg(reason, target);
    if (running)
        return QStringLiteral("The generated code crashed (%1) while running %2; the worker "
                              "was restarted.")
            .arg(reason, target);
    return QStringLiteral("The compiler crashed (%1) while compiling %2; the worker was "
                          "restarted.")
        .arg(reason, target);
}

int WorkerClient::limitOf(const Request& request) const
{
    return request.timeLimitMs > 0 ? request.timeLimitMs : m_timeLimitMs;
}

QString WorkerClient::timeoutMessage(const Request& request) const
{
    const QString target = describeTarget(request.body);
    const QString limit = formatSeconds(limitOf(request));
    if (!isRunCommand(request.body))
        return QStringLiteral("%1 took longer than %2 and was stopped; the worker was restarted.")
            .arg(capitalized(target), limit);
    if (!isRunningPhase(request.phase))
        return QStringLiteral("Compiling %1 took longer than %2 and was stopped; the worker was "
                              "restarted.")
            .arg(target, limit);
    return QStringLiteral("%1 ran longer than %2 and was stopped; the worker was restarted.")
        .arg(capitalized(target), limit);
}

} // namespace loopscope
