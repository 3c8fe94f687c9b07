// The worker client against the built worker process: typed results at each request's
// continuation, progress, wrong numbers, crashes, time limits and cancelling, with the queue going
// on afterwards on a fresh worker.
#include "worker/WorkerClient.h"
#include "protocol/Codec.h"

#include "support/QtTestMain.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>

#include <memory>
#include <optional>

using loopscope::WorkerClient;
namespace worker = loopscope::worker;
namespace protocol = loopscope::protocol;

namespace {

const char* kMatmul = R"(import tvm
from tvm import te

M = 64
K = 64
N = 64
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
k = te.reduce_axis((0, K), name="k")
C = te.compute((M, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")

# variant: naive
s = te.create_schedule(C.op)

# variant: tiled
s = te.create_schedule(C.op)
io, jo, ii, ji = s[C].tile(C.op.axis[0], C.op.axis[1], x_factor=8, y_factor=8)
s[C].vectorize(ji)
s[C].parallel(io)
)";

protocol::MeasureRequest measureRequest(const std::string& variant)
{
    protocol::MeasureRequest r;
    r.script = kMatmul;
    r.variant = variant;
    r.sets = {{"M", 32}};
    r.threads = 2;
    r.check = true;
    r.repeat = 3;
    r.minRepeatMs = 2;
    return r;
}

// A measurement whose run takes this much longer (a testing hook of the worker).
protocol::MeasureRequest sleepingRequest(const std::string& variant, int sleepMs)
{
    protocol::MeasureRequest r = measureRequest(variant);
    r.testing.sleepMs = sleepMs;
    return r;
}

protocol::SweepRequest sweepRequest(const std::vector<std::int64_t>& values)
{
    protocol::SweepRequest r;
    r.script = kMatmul;
    r.parameters = {"N"};
    r.values = values;
    r.variants = {"naive"};
    r.threads = 1;
    r.repeat = 3;
    r.minRepeatMs = 20;
    return r;
}

protocol::EmitRequest emitRequest()
{
    protocol::EmitRequest r;
    r.script = kMatmul;
    r.variant = "tiled";
    r.format = "llvm";
    return r;
}

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

class WorkerClientTest : public QObject {
    Q_OBJECT

private:
    template <typename T> using Replies = QHash<int, worker::Reply<T>>;

    // How one request ended, as its continuation was told.
    enum class Ending { Answered, Refused, Failed, Cancelled };
    struct Outcome {
        Ending ending;
        QString message; // the error's or the failure's
    };

    template <typename T> void record(Replies<T>& into, int id, const worker::Reply<T>& reply)
    {
        QVERIFY2(!m_outcomes.contains(id), "a continuation was told twice");
        into.insert(id, reply);
        m_outcomes.insert(id, Outcome{static_cast<Ending>(reply.ending), reply.message()});
        static const char* names[] = {"finished", "finished", "failed", "cancelled"};
        m_events << QStringLiteral("%1 %2").arg(QLatin1String(names[int(reply.ending)])).arg(id);
    }

    // Submits a request whose continuation records its reply; returns its id.
    template <typename T, typename Request>
    int submit(Replies<T>& into, const Request& request, WorkerClient::Options options = {})
    {
        auto id = std::make_shared<int>(-1); // the continuation is never told before it is set
        *id = m_client->submit(
            request, this, [this, &into, id](const worker::Reply<T>& r) { record(into, *id, r); },
            options);
        return *id;
    }
    int ping(WorkerClient::Order order = WorkerClient::Order::Last)
    {
        return submit(m_pings, protocol::PingRequest{}, {.order = order});
    }
    int measure(const protocol::MeasureRequest& request, int timeLimitMs = 0)
    {
        return submit(m_measures, request, {.timeLimitMs = timeLimitMs});
    }
    int emitCode(const protocol::EmitRequest& request = emitRequest())
    {
        return submit(m_emits, request, {.order = WorkerClient::Order::First});
    }
    int sweep(const protocol::SweepRequest& request)
    {
        auto id = std::make_shared<int>(-1);
        *id = m_client->submit(
            request, this,
            [this, id](const protocol::SweepUpdate& p) { m_sweepProgress[*id] << p; },
            [this, id](const worker::Reply<protocol::SweepReply>& r) { record(m_sweeps, *id, r); });
        return *id;
    }

    std::optional<Outcome> outcomeOf(int id) const
    {
        auto it = m_outcomes.find(id);
        return it == m_outcomes.end() ? std::nullopt : std::optional<Outcome>(*it);
    }

    // Waits until the client has said how request `id` ended.
    std::optional<Outcome> awaitOutcome(int id, int timeoutMs = 120000)
    {
        QElapsedTimer t;
        t.start();
        while (!outcomeOf(id) && t.elapsed() < timeoutMs)
            QTest::qWait(20);
        return outcomeOf(id);
    }

    // The worker's result (answered or refused) of request `id`.
    template <typename T> worker::Reply<T> awaitReply(const Replies<T>& from, int id)
    {
        std::optional<Outcome> o = awaitOutcome(id);
        if (!o)
            qWarning("request %d did not end", id);
        else if (o->ending == Ending::Failed || o->ending == Ending::Cancelled)
            qWarning("request %d: %s", id, qPrintable(o->message));
        return from.value(id);
    }
    // The result of a request the worker answered (default-constructed, with a warning, else).
    template <typename T> T awaitResult(const Replies<T>& from, int id)
    {
        worker::Reply<T> r = awaitReply(from, id);
        if (!r.answered()) qWarning("request %d was not answered: %s", id, qPrintable(r.message()));
        return r.result;
    }

    QString awaitFailure(int id)
    {
        std::optional<Outcome> o = awaitOutcome(id);
        if (o && o->ending != Ending::Failed)
            qWarning("request %d ended otherwise: %s", id, qPrintable(o->message));
        return o && o->ending == Ending::Failed ? o->message : QString();
    }

    // Waits until request `id` reports `phase` (it is then running in the worker).
    bool awaitPhase(int id, const QString& phase, int timeoutMs = 60000)
    {
        QElapsedTimer t;
        t.start();
        auto seen = [&] {
            for (const QList<QVariant>& s : *m_progress)
                if (s.at(0).toInt() == id && s.at(1).toString() == phase) return true;
            return false;
        };
        while (!seen() && t.elapsed() < timeoutMs)
            m_progress->wait(50);
        return seen();
    }

    std::unique_ptr<WorkerClient> m_client;
    std::unique_ptr<QSignalSpy> m_failed, m_cancelled, m_progress, m_busy;
    Replies<protocol::PingReply> m_pings;
    Replies<protocol::MeasureReply> m_measures;
    Replies<protocol::EmitReply> m_emits;
    Replies<protocol::SweepReply> m_sweeps;
    QHash<int, QList<protocol::SweepUpdate>> m_sweepProgress;
    QHash<int, Outcome> m_outcomes;

    // Every signal and continuation in the order it came: "progress 3 compiling", "finished 3",
    // ...
    QStringList m_events;

private slots:
    void init()
    {
        m_client = std::make_unique<WorkerClient>();
        m_client->setWorkerPath(QStringLiteral(LOOPSCOPE_WORKER));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("LOOPSCOPE_WORKER_TESTING"), QStringLiteral("1"));
        m_client->setWorkerEnvironment(env);
        WorkerClient* c = m_client.get();
        m_failed = std::make_unique<QSignalSpy>(c, &WorkerClient::failed);
        m_cancelled = std::make_unique<QSignalSpy>(c, &WorkerClient::cancelled);
        m_progress = std::make_unique<QSignalSpy>(c, &WorkerClient::progress);
        m_busy = std::make_unique<QSignalSpy>(c, &WorkerClient::busyChanged);
        m_events.clear();
        m_outcomes.clear();
        m_pings.clear();
        m_measures.clear();
        m_emits.clear();
        m_sweeps.clear();
        m_sweepProgress.clear();
        connect(c, &WorkerClient::progress, this, [this](int id, const QString& phase, double) {
            m_events << QStringLiteral("progress %1 %2").arg(id).arg(phase);
        });
    }

    void cleanup()
    {
        m_failed.reset();
        m_cancelled.reset();
        m_progress.reset();
        m_busy.reset();
        m_client.reset();
    }

    void pingDescribesTheHost()
    {
        int id = ping();
        QCOMPARE(m_client->queuedRequests(), QList<int>{id});
        worker::Reply<protocol::PingReply> reply = awaitReply(m_pings, id);
        QVERIFY(reply.answered());
        const protocol::PingReply& r = reply.result;
        QVERIFY(!r.version.empty());
        QCOMPARE(r.protocol, 1);
        QVERIFY(!r.machine.cpu.empty());
        QVERIFY(!r.machine.features.empty());
        QVERIFY(r.machine.threads >= 1);
        QVERIFY(std::find(r.commands.begin(), r.commands.end(), "measure") != r.commands.end());
        QVERIFY(r.testing);
    }

    void measureReportsSpeedAndBusy()
    {
        int id = measure(measureRequest("tiled"));
        QVERIFY(m_client->isBusy());
        QCOMPARE(m_busy->size(), 1);
        QCOMPARE(m_busy->at(0).at(0).toBool(), true);
        protocol::MeasureReply r = awaitResult(m_measures, id);
        QVERIFY(!r.wrong());
        QCOMPARE(r.variant, "tiled");
        QCOMPARE(r.steps, 3);
        QCOMPARE(r.step, 3); // -1: after the last step
        QCOMPARE(r.parameters.at("M"), std::int64_t{32});
        QVERIFY(r.timing.has_value());
        QVERIFY(r.timing->gflops > 0);
        QVERIFY(r.timing->msMedian > 0);
        QVERIFY(r.timing->msMin <= r.timing->msMedian);
        QVERIFY(r.timing->msMedian <= r.timing->msMax);
        QVERIFY(r.timing->number >= 1);
        QCOMPARE(r.timing->repeat, 3);
        QCOMPARE(r.flops, 2.0 * 32 * 64 * 64);
        QVERIFY(r.checked);
        QCOMPARE(r.checks.size(), 1);
        QVERIFY(r.checks[0].ok);
        QVERIFY(r.compileMs > 0);
        QVERIFY(r.lowerMs >= 0);
        QTRY_VERIFY(!m_client->isBusy());
        QCOMPARE(m_busy->last().at(0).toBool(), false);
    }

    void progressComesBeforeTheResult()
    {
        int id = measure(measureRequest("naive"));
        QVERIFY(!awaitResult(m_measures, id).wrong());
        QStringList expected;
        for (const QString& e : std::as_const(m_events)) {
            QString phase = e.section(QLatin1Char(' '), 2);
            if (!phase.isEmpty() && (expected.isEmpty() || expected.last() != phase))
                expected << phase;
        }
        QCOMPARE(expected, (QStringList{QStringLiteral("compiling"), QStringLiteral("checking"),
                                        QStringLiteral("timing")}));
        QCOMPARE(m_events.last(), QStringLiteral("finished %1").arg(id));
        double last = -1;
        for (const QList<QVariant>& s : std::as_const(*m_progress)) {
            QVERIFY(s.at(2).toDouble() >= last);
            QVERIFY(s.at(2).toDouble() <= 1.0);
            last = s.at(2).toDouble();
        }
    }

    void wrongNumbersAreAnErrorNotASpeed()
    {
        protocol::MeasureRequest request = measureRequest("tiled");
        request.testing.corruptOutput = true;
        worker::Reply<protocol::MeasureReply> reply = awaitReply(m_measures, measure(request));
        QVERIFY(reply.answered());
        const protocol::MeasureReply& r = reply.result;
        QVERIFY(r.wrong());
        QVERIFY(!r.timing.has_value());
        QVERIFY(!r.checked);
        QVERIFY2(qs(r.firstMismatch).startsWith(QLatin1String("C[0, 0] = ")),
                 r.firstMismatch.c_str());
        QVERIFY(qs(r.message).contains(QLatin1String("computes wrong numbers")));
    }

    void documentErrorsHaveALocation()
    {
        protocol::MeasureRequest request = measureRequest("tiled");
        request.script = "import tvm\nx = (\n";
        worker::Reply<protocol::MeasureReply> r = awaitReply(m_measures, measure(request));
        QCOMPARE(r.ending, worker::Reply<protocol::MeasureReply>::Ending::Refused);
        QCOMPARE(r.error.kind, protocol::ErrorReply::Kind::Document);
        QCOMPARE(r.error.line, 2);
        QVERIFY(r.error.column > 0);
        QVERIFY(!r.error.message.empty());
    }

    // The bounds of Run ▸ Settings travel with every request: the worker refuses an unroll past
    // the client's bound, and leaves uncompared the elements past its reference step bound.
    void theClientsWorkLimitsBindTheWorker()
    {
        protocol::MeasureRequest request = measureRequest("tiled");
        request.script += "s[C].unroll(ii)\n"; // 8 copies
        m_client->setWorkLimits(4, 0);
        worker::Reply<protocol::MeasureReply> refused = awaitReply(m_measures, measure(request));
        QCOMPARE(refused.ending, worker::Reply<protocol::MeasureReply>::Ending::Refused);
        QVERIFY2(
            qs(refused.error.message).contains(QStringLiteral("at most 4 are made in one kernel")),
            refused.error.message.c_str());
        m_client->setWorkLimits(8, 0);
        worker::Reply<protocol::MeasureReply> allowed = awaitReply(m_measures, measure(request));
        QCOMPARE(allowed.ending, worker::Reply<protocol::MeasureReply>::Ending::Answered);
        QVERIFY(allowed.result.checked);

        m_client->setWorkLimits(0, 63); // an element of C needs K = 64 steps
        worker::Reply<protocol::MeasureReply> uncompared =
            awaitReply(m_measures, measure(measureRequest("naive")));
        QCOMPARE(uncompared.ending, worker::Reply<protocol::MeasureReply>::Ending::Answered);
        QVERIFY(!uncompared.result.checked);
        QCOMPARE(uncompared.result.checks.size(), 1);
        QCOMPARE(uncompared.result.checks[0].elements, 0);
        QVERIFY2(
            qs(uncompared.result.checks[0].skipped).contains(QStringLiteral("more than 63 steps")),
            uncompared.result.checks[0].skipped.c_str());
        m_client->setWorkLimits(0, 0);
    }

    void crashIsReportedAndTheNextRequestRunsOnAFreshWorker()
    {
        protocol::MeasureRequest crashing = measureRequest("tiled");
        crashing.step = 2;
        crashing.testing.crash = true;
        int crash = measure(crashing);
        int next = measure(measureRequest("naive"));
        QString message = awaitFailure(crash);
        QCOMPARE(message,
                 QStringLiteral("The generated code crashed (segmentation fault) while "
                                "running variant 'tiled' step 2; the worker was restarted."));
        // Observers hear of it too.
        QCOMPARE(m_failed->size(), 1);
        QCOMPARE(m_failed->at(0).at(0).toInt(), crash);
        QCOMPARE(m_failed->at(0).at(1).toString(), message);
        QVERIFY(!awaitResult(m_measures, next).wrong());
    }

    void timeLimitStopsTheRunAndTheNextRequestRuns()
    {
        m_client->setTimeLimitMs(300);
        QElapsedTimer t;
        t.start();
        int slow = measure(sleepingRequest("naive", 20000));
        int next = ping();
        QString message = awaitFailure(slow);
        QVERIFY2(t.elapsed() < 15000, "the time limit did not stop the run");
        QVERIFY2(message.contains(QLatin1String("longer than 0.3 s and was stopped; the worker was "
                                                "restarted.")),
                 qPrintable(message));
        QVERIFY2(message.startsWith(QLatin1String("Variant 'naive' ran longer")) ||
                     message.startsWith(QLatin1String("Compiling variant 'naive' took longer")),
                 qPrintable(message));
        QVERIFY(awaitReply(m_pings, next).answered());
    }

    void defaultTimeLimitIsThirtySeconds() { QCOMPARE(WorkerClient().timeLimitMs(), 30000); }

    void cancelAllStopsTheRunAndTheNextRequestRuns()
    {
        int slow = measure(sleepingRequest("naive", 20000));
        int queued = ping();
        QVERIFY(awaitPhase(slow, QStringLiteral("checking")));
        QCOMPARE(m_client->runningRequest(), slow);
        m_client->cancelAll();
        QCOMPARE(m_client->runningRequest(), -1);
        QVERIFY(m_client->queuedRequests().isEmpty());
        QVERIFY(!m_client->isBusy());
        QCOMPARE(outcomeOf(slow)->ending, Ending::Cancelled);
        QCOMPARE(outcomeOf(queued)->ending, Ending::Cancelled);
        QCOMPARE(m_cancelled->size(), 2);

        int next = measure(measureRequest("tiled"));
        QVERIFY(!awaitResult(m_measures, next).wrong());
        QTest::qWait(100);
        QCOMPARE(outcomeOf(slow)->ending, Ending::Cancelled); // never finished afterwards
        QCOMPARE(m_failed->size(), 0);
    }

    void cancelDropsAQueuedRequestOnly()
    {
        int first = measure(sleepingRequest("naive", 300));
        int dropped = ping();
        int last = ping();
        m_client->cancel(dropped);
        QCOMPARE(outcomeOf(dropped)->ending, Ending::Cancelled);
        QCOMPARE(m_client->queuedRequests(), (QList<int>{first, last}));
        QVERIFY(!awaitResult(m_measures, first).wrong());
        QVERIFY(awaitReply(m_pings, last).answered());
        // One at a time, in order.
        QCOMPARE(m_events.indexOf(QStringLiteral("finished %1").arg(first)) <
                     m_events.indexOf(QStringLiteral("finished %1").arg(last)),
                 true);
        QCOMPARE(outcomeOf(dropped)->ending, Ending::Cancelled);
    }

    void submitFirstGoesAheadOfQueuedRequests()
    {
        int running = measure(sleepingRequest("naive", 300));
        QTRY_COMPARE(m_client->runningRequest(), running);
        int queued = ping();
        int urgent = ping(WorkerClient::Order::First);
        QCOMPARE(m_client->queuedRequests(), (QList<int>{urgent, queued}));
        QVERIFY(awaitReply(m_pings, queued).answered());
        auto at = [&](int id) { return m_events.indexOf(QStringLiteral("finished %1").arg(id)); };
        QVERIFY(at(running) >= 0);
        QVERIFY(at(running) < at(urgent)); // the running request is not interrupted
        QVERIFY(at(urgent) < at(queued));
    }

    // The code of a step does not wait for a whole sweep: an "emit" submitted first while a
    // sweep runs is answered between two of its points; anything else waits for the sweep.
    void emitGoesBetweenTheRunningSweepsPoints()
    {
        int sweepId = sweep(sweepRequest({8, 16, 24, 32, 40, 48}));
        QVERIFY(awaitPhase(sweepId, QStringLiteral("sweep")));
        int code = emitCode();
        int pingId = ping(WorkerClient::Order::First);
        QCOMPARE(m_client->queuedRequests(), (QList<int>{pingId})); // the emit went to the worker
        QVERIFY(qs(awaitResult(m_emits, code).text).contains(QLatin1String("define")));
        QVERIFY(awaitReply(m_sweeps, sweepId).answered());
        QVERIFY(awaitReply(m_pings, pingId).answered());
        auto at = [&](int id) { return m_events.indexOf(QStringLiteral("finished %1").arg(id)); };
        QVERIFY(at(code) < at(sweepId));
        QVERIFY(at(sweepId) < at(pingId));
        QCOMPARE(m_failed->size(), 0);
    }

    // When the worker is restarted under it (here: the sweep is cancelled), the emit sent aside is
    // queued again and answered by the new worker.
    void anEmitSentAsideSurvivesTheSweepsCancel()
    {
        int sweepId = sweep(sweepRequest({8, 16, 24, 32, 40, 48}));
        QVERIFY(awaitPhase(sweepId, QStringLiteral("sweep")));
        int code = emitCode();
        QVERIFY(m_client->queuedRequests().isEmpty());
        m_client->cancel(sweepId); // before any answer is read
        QCOMPARE(m_client->queuedRequests(), (QList<int>{code}));
        QVERIFY(qs(awaitResult(m_emits, code).text).contains(QLatin1String("define")));
        QCOMPARE(outcomeOf(sweepId)->ending, Ending::Cancelled);
        QTRY_VERIFY(!m_client->isBusy());
    }

    // An emit cancelled after it was sent aside still gets its answer from the worker, which is
    // dropped without a word; the sweep goes on.
    void aCancelledEmitsAnswerIsDroppedQuietly()
    {
        QSignalSpy logs(m_client.get(), &WorkerClient::logLine);
        int sweepId = sweep(sweepRequest({8, 16, 24, 32}));
        QVERIFY(awaitPhase(sweepId, QStringLiteral("sweep")));
        int code = emitCode();
        QVERIFY(m_client->queuedRequests().isEmpty()); // sent to the worker
        m_client->cancel(code);
        QCOMPARE(outcomeOf(code)->ending, Ending::Cancelled);
        int again = emitCode();
        QVERIFY(qs(awaitResult(m_emits, again).text).contains(QLatin1String("define")));
        QVERIFY(awaitReply(m_sweeps, sweepId).answered());
        QCOMPARE(m_events.count(QStringLiteral("finished %1").arg(code)), 0);
        QCOMPARE(m_events.count(QStringLiteral("cancelled %1").arg(code)), 1);
        for (const QList<QVariant>& args : logs)
            QVERIFY2(!args.at(0).toString().contains(QLatin1String("no running request")),
                     qPrintable(args.at(0).toString()));
        QCOMPARE(m_failed->size(), 0);
    }

    // A sweep's points reach its caller one per progress message, decoded; the result has them
    // all.
    void aSweepsPointsComeWithItsProgress()
    {
        protocol::SweepRequest request = sweepRequest({8, 16});
        request.repeat = 1;
        request.minRepeatMs = 1;
        int id = sweep(request);
        protocol::SweepReply result = awaitResult(m_sweeps, id);
        const QList<protocol::SweepUpdate> progress = m_sweepProgress.value(id);
        QCOMPARE(progress.size(), m_progress->size());
        std::vector<std::int64_t> sizes;
        for (const protocol::SweepUpdate& p : progress) {
            QCOMPARE(p.total, 2);
            QVERIFY(p.point.has_value());
            QCOMPARE(p.point->variant, "naive");
            QCOMPARE(p.point->threads, 1);
            QVERIFY(!p.point->values.empty());
            sizes.push_back(p.point->values.front());
        }
        QCOMPARE(sizes, (std::vector<std::int64_t>{8, 16}));
        QCOMPARE(progress.last().done, 2);
        QCOMPARE(result.parameters, std::vector<std::string>{"N"});
        QCOMPARE(result.total, 2);
        QCOMPARE(result.points.size(), std::size_t{2});
        for (const protocol::SweepPoint& p : result.points)
            QVERIFY2(p.measured() && p.gflops > 0, p.message.c_str());

        // Points given as known come back as cached, without being measured again.
        protocol::SweepRequest again = request;
        again.known = result.points;
        protocol::SweepReply cached = awaitResult(m_sweeps, sweep(again));
        QCOMPARE(cached.measured, 0);
        QCOMPARE(cached.points.size(), std::size_t{2});
        for (const protocol::SweepPoint& p : cached.points)
            QVERIFY(p.cached);
    }

    // A request's own time limit replaces the client's for that request only.
    void perRequestTimeLimitOverridesTheDefault()
    {
        m_client->setTimeLimitMs(300);
        QVERIFY(!awaitResult(m_measures, measure(sleepingRequest("naive", 800), 60000)).wrong());

        m_client->setTimeLimitMs(60000);
        QElapsedTimer t;
        t.start();
        QString message = awaitFailure(measure(sleepingRequest("naive", 20000), 400));
        QVERIFY2(t.elapsed() < 15000, "the request's time limit did not stop the run");
        QVERIFY2(message.contains(QLatin1String("longer than 0.4 s")), qPrintable(message));
        QCOMPARE(m_client->timeLimitMs(), 60000);
    }

    void missingWorkerFailsInPlainWords()
    {
        m_client->setWorkerPath(QStringLiteral("/nonexistent/loopscope-worker"));
        int a = ping();
        int b = ping();
        QString message = awaitFailure(a);
        QVERIFY2(message.startsWith(
                     QLatin1String("The background worker (/nonexistent/loopscope-worker) "
                                   "could not be started")),
                 qPrintable(message));
        QCOMPARE(awaitFailure(b), message);
        QTRY_VERIFY(!m_client->isBusy());
    }

    // A continuation belongs to its context: once that is gone, the reply is dropped; the others
    // are still told.
    void aReplyWhoseReceiverIsGoneIsDropped()
    {
        auto receiver = std::make_unique<QObject>();
        bool told = false;
        m_client->submit(protocol::PingRequest{}, receiver.get(),
                         [&told](const worker::Reply<protocol::PingReply>&) { told = true; });
        int id = ping();
        receiver.reset();
        QVERIFY(awaitReply(m_pings, id).answered());
        QTest::qWait(50);
        QVERIFY(!told);
        QVERIFY(!m_client->isBusy());
    }

    // The worker itself, without the client: a line that is not JSON gets an error result and
    // the worker goes on.
    void malformedLineGivesAnErrorAndTheWorkerStaysAlive()
    {
        QProcess worker;
        worker.start(QStringLiteral(LOOPSCOPE_WORKER), QStringList{});
        QVERIFY(worker.waitForStarted());
        auto nextLine = [&]() -> std::optional<protocol::Incoming> {
            while (!worker.canReadLine())
                if (!worker.waitForReadyRead(30000)) return std::nullopt;
            return protocol::Incoming::parse(worker.readLine().trimmed().toStdString());
        };
        auto write = [&](const std::string& line) {
            worker.write(QByteArray::fromStdString(line + "\n"));
        };
        write("this is not json");
        std::optional<protocol::Incoming> error = nextLine();
        QVERIFY(error);
        QCOMPARE(error->kind(), protocol::Incoming::Kind::Error);
        QCOMPARE(error->error().kind, protocol::ErrorReply::Kind::Request);
        QVERIFY(!error->id());
        QVERIFY(qs(error->error().message).contains(QLatin1String("not valid JSON")));

        // A request no client writes: the script as a number.
        write(R"({"id": 8, "cmd": "measure", "script": 3})");
        std::optional<protocol::Incoming> refused = nextLine();
        QVERIFY(refused);
        QCOMPARE(refused->id(), std::optional<std::int64_t>{8});
        QCOMPARE(refused->kind(), protocol::Incoming::Kind::Error);

        write(protocol::encodeRequest(protocol::PingRequest{}, 9));
        std::optional<protocol::Incoming> ping = nextLine();
        QVERIFY(ping);
        QCOMPARE(ping->id(), std::optional<std::int64_t>{9});
        QCOMPARE(ping->kind(), protocol::Incoming::Kind::Ok);
        QVERIFY(!ping->ping().testing); // no LOOPSCOPE_WORKER_TESTING

        // Lines that come in during a sweep: an emit is answered between two points, a ping
        // after the sweep.
        write(protocol::encodeRequest(sweepRequest({8, 16, 24}), 11) + "\n" +
              protocol::encodeRequest(emitRequest(), 12) + "\n" +
              protocol::encodeRequest(protocol::PingRequest{}, 13));
        QList<std::int64_t> finals;
        while (finals.size() < 3) {
            std::optional<protocol::Incoming> m = nextLine();
            QVERIFY(m && m->id());
            if (!m->isProgress()) finals << *m->id();
        }
        QCOMPARE(finals, (QList<std::int64_t>{12, 11, 13}));

        worker.closeWriteChannel();
        QVERIFY(worker.waitForFinished(30000));
        QCOMPARE(worker.exitStatus(), QProcess::NormalExit);
        QCOMPARE(worker.exitCode(), 0);
    }
};

LOOPSCOPE_QTEST_MAIN(WorkerClientTest)
#include "WorkerClientTest.moc"
