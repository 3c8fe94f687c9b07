#include "worker/WorkerClient.h"

#include "protocol/Codec.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTimer>

#include <csignal>
#include <type_traits>
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

bool isRunCommand(const protocol::Request& message)
{
    return std::holds_alternative<protocol::MeasureRequest>(message) ||
           std::holds_alternative<protocol::EmitRequest>(message);
}

// What a request works on, as the messages name it: "variant 'tiled' step 3".
QString describeTarget(const protocol::Request& message)
{
    std::string variant;
    int step = -1;
    if (const auto* m = std::get_if<protocol::MeasureRequest>(&message)) {
        variant = m->variant;
        step = m->step;
    } else if (const auto* e = std::get_if<protocol::EmitRequest>(&message)) {
        variant = e->variant;
        step = e->step;
    } else {
        return QStringLiteral("the '%1' request")
            .arg(QString::fromLatin1(protocol::commandName(message)));
    }
    QString text = variant.empty()
                       ? QStringLiteral("the first variant")
                       : QStringLiteral("variant '%1'").arg(QString::fromStdString(variant));
    if (step == 0)
        text += QStringLiteral(" before its schedule steps");
    else if (step > 0)
        text += QStringLiteral(" step %1").arg(step);
    return text;
}

// The worker's result as its request's reply: an error result is Refused with the error's kind,
// message and location; wrong numbers are an answer only to a measurement; a result whose fields
// cannot be read is Refused as an internal error.
template <typename T> worker::Reply<T> replyOf(const protocol::Incoming& m)
{
    worker::Reply<T> reply;
    reply.ending = worker::Reply<T>::Ending::Refused;
    try {
        if (m.kind() == protocol::Incoming::Kind::Error) {
            reply.error = m.error();
            return reply;
        }
        if (m.kind() == protocol::Incoming::Kind::Wrong &&
            !std::is_same_v<T, protocol::MeasureReply>) {
            reply.error = {protocol::ErrorReply::Kind::Internal,
                           "the worker answered with wrong numbers, which only a measurement has",
                           0, 0};
            return reply;
        }
        reply.result = m.reply<T>();
        reply.ending = worker::Reply<T>::Ending::Answered;
    } catch (const protocol::ProtocolError& e) {
        reply.error = {e.kind(), e.what(), 0, 0};
    }
    return reply;
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
    if (environment == m_environment) return;
    m_environment = environment;
    if (m_process && !m_running) stopWorker();
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
        case Ending::Result: reply = replyOf<T>(*ending.result); break;
        case Ending::Unreadable:
            reply.ending = worker::Reply<T>::Ending::Refused;
            reply.error = ending.unreadable;
            break;
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

template <typename R>
int WorkerClient::submit(const R& request, QObject* context, Continuation<typename R::Reply> done,
                         Options options)
{
    return enqueue(request, options, routeTo(context, std::move(done)));
}

template <typename R>
int WorkerClient::submit(const R& request, QObject* context,
                         std::function<void(const typename R::Update&)> each,
                         Continuation<typename R::Reply> done, Options options)
{
    Route route = routeTo(context, std::move(done));
    if (each)
        route.progress = [each = std::move(each)](const protocol::Incoming& message) {
            each(message.update<typename R::Update>());
        };
    return enqueue(request, options, std::move(route));
}

// The requests a window sends.
template int WorkerClient::submit(const protocol::PingRequest&, QObject*,
                                  Continuation<protocol::PingReply>, Options);
template int WorkerClient::submit(const protocol::MeasureRequest&, QObject*,
                                  Continuation<protocol::MeasureReply>, Options);
template int WorkerClient::submit(const protocol::EmitRequest&, QObject*,
                                  Continuation<protocol::EmitReply>, Options);
template int WorkerClient::submit(const protocol::SweepRequest&, QObject*,
                                  std::function<void(const protocol::SweepUpdate&)>,
                                  Continuation<protocol::SweepReply>, Options);
template int WorkerClient::submit(const protocol::MachineRequest&, QObject*,
                                  Continuation<protocol::MachineReply>, Options);
template int WorkerClient::submit(const protocol::ModelRequest&, QObject*,
                                  Continuation<protocol::ModelReply>, Options);
template int WorkerClient::submit(const protocol::ModelChoiceRequest&, QObject*,
                                  Continuation<protocol::ModelChoiceReply>, Options);
template int WorkerClient::submit(const protocol::TuneRequest&, QObject*,
                                  std::function<void(const protocol::TuneUpdate&)>,
                                  Continuation<protocol::TuneReply>, Options);

int WorkerClient::enqueue(protocol::Request message, Options options, Route route)
{
    const int id = m_nextId++;
    m_routes.insert(id, std::move(route));
    Request queued{id,
                   std::move(message),
                   {m_maxUnrollCopies, m_maxReferenceSteps},
                   {},
                   qMax(0, options.timeLimitMs)};
    const bool first = options.order == Order::First;
    if (first && canSendAside(queued.message)) {
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

void WorkerClient::deliverProgress(int id, const protocol::Incoming& message)
{
    protocol::Progress p;
    try {
        p = message.progress();
    } catch (const protocol::ProtocolError& e) {
        emit logLine(QStringLiteral("unreadable worker progress: ") + QString::fromUtf8(e.what()));
        return;
    }
    const QString phase = QString::fromStdString(p.phase);
    if (m_running && m_running->id == id) m_running->phase = phase;
    if (m_aside && m_aside->id == id) m_aside->phase = phase;
    auto it = m_routes.constFind(id);
    if (it != m_routes.constEnd() && it->context && it->progress) {
        const auto point = it->progress; // the call may end the request and its route
        try {
            point(message);
        } catch (const protocol::ProtocolError& e) {
            emit logLine(QStringLiteral("unreadable worker progress: ") +
                         QString::fromUtf8(e.what()));
        }
    }
    const bool live = (m_running && m_running->id == id) || (m_aside && m_aside->id == id);
    if (live) emit progress(id, phase, p.fraction); // unless cancelled by the route
}

void WorkerClient::conclude(int id, const Ending& ending)
{
    auto it = m_routes.find(id);
    if (it == m_routes.end()) return;
    Route route = std::move(*it);
    m_routes.erase(it);
    if (route.context && route.end) route.end(ending);
}

bool WorkerClient::canSendAside(const protocol::Request& message) const
{
    return m_running && !m_aside && m_process && m_process->state() == QProcess::Running &&
           std::holds_alternative<protocol::SweepRequest>(m_running->message) &&
           std::holds_alternative<protocol::EmitRequest>(message);
}

void WorkerClient::send(const Request& request)
{
    QByteArray line = QByteArray::fromStdString(
        protocol::encodeRequest(request.message, request.id, request.limits));
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
        conclude(id, Ending{Ending::Cancelled, nullptr, {}, {}});
        emit cancelled(id);
        updateBusy();
        return;
    }
    for (qsizetype i = 0; i < m_queue.size(); ++i) {
        if (m_queue[i].id != id) continue;
        m_queue.removeAt(i);
        conclude(id, Ending{Ending::Cancelled, nullptr, {}, {}});
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
    conclude(id, Ending{Ending::Cancelled, nullptr, {}, {}});
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
        conclude(id, Ending{Ending::Cancelled, nullptr, {}, {}});
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
        std::optional<protocol::Incoming> parsed;
        try {
            parsed = protocol::Incoming::parse(line.toStdString());
        } catch (const protocol::ProtocolError& e) {
            readUnreadable(line, {protocol::ErrorReply::Kind::Internal, e.what(), 0, 0});
            continue;
        }
        const protocol::Incoming& message = *parsed;
        const int id = message.id() ? static_cast<int>(*message.id()) : -1;
        const bool progressMessage = message.isProgress();
        if (m_aside && id == m_aside->id) {
            if (progressMessage)
                deliverProgress(id, message);
            else
                concludeResult(id, Ending{Ending::Result, &message, {}, {}});
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
        concludeResult(id, Ending{Ending::Result, &message, {}, {}});
    }
}

void WorkerClient::readUnreadable(const QByteArray& line, const protocol::ErrorReply& error)
{
    const std::optional<std::int64_t> id = protocol::peekId(line.toStdString());
    const bool live =
        id && ((m_aside && *id == m_aside->id) || (m_running && *id == m_running->id));
    if (!live) {
        emit logLine(QStringLiteral("unreadable worker output: ") + QString::fromUtf8(line));
        return;
    }
    concludeResult(static_cast<int>(*id), Ending{Ending::Unreadable, nullptr, error, {}});
}

void WorkerClient::concludeResult(int id, const Ending& ending)
{
    if (m_aside && id == m_aside->id) {
        m_aside.reset();
        conclude(id, ending);
        updateBusy();
        return;
    }
    m_timer->stop();
    m_running.reset();
    conclude(id, ending);
    dispatch();
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
        conclude(r.id, Ending{Ending::Failed, nullptr, {}, message});
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
    conclude(id, Ending{Ending::Failed, nullptr, {}, message});
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
    const QString target = describeTarget(request.message);
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
                 isRunCommand(request.message) ? doing : QStringLiteral("handling"), target);
    const QString reason = signalDescription(exitCode);
    if (!isRunCommand(request.message))
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
    const QString target = describeTarget(request.message);
    const QString limit = formatSeconds(limitOf(request));
    if (!isRunCommand(request.message))
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
