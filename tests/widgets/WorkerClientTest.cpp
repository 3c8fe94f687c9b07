// The worker client against the built worker process: results, progress, wrong numbers, crashes,
// time limits and cancelling, with the queue going on afterwards on a fresh worker.
#include "worker/WorkerClient.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QSignalSpy>
#include <QTest>

#include <memory>
#include <optional>

using loopscope::WorkerClient;

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

QJsonObject measureRequest(const QString& variant, QJsonObject extra = {})
{
    QJsonObject r{{QStringLiteral("cmd"), QStringLiteral("measure")},
                  {QStringLiteral("script"), QString::fromUtf8(kMatmul)},
                  {QStringLiteral("variant"), variant},
                  {QStringLiteral("sets"), QJsonObject{{QStringLiteral("M"), 32}}},
                  {QStringLiteral("threads"), 2},
                  {QStringLiteral("check"), true},
                  {QStringLiteral("repeat"), 3},
                  {QStringLiteral("min_repeat_ms"), 2}};
    for (auto it = extra.begin(); it != extra.end(); ++it)
        r.insert(it.key(), it.value());
    return r;
}

QJsonObject sweepRequest(const QJsonArray& values)
{
    return QJsonObject{{QStringLiteral("cmd"), QStringLiteral("sweep")},
                       {QStringLiteral("script"), QString::fromUtf8(kMatmul)},
                       {QStringLiteral("params"), QJsonArray{QStringLiteral("N")}},
                       {QStringLiteral("values"), values},
                       {QStringLiteral("variants"), QJsonArray{QStringLiteral("naive")}},
                       {QStringLiteral("threads"), 1},
                       {QStringLiteral("repeat"), 3},
                       {QStringLiteral("min_repeat_ms"), 20}};
}

QJsonObject emitRequest()
{
    return QJsonObject{{QStringLiteral("cmd"), QStringLiteral("emit")},
                       {QStringLiteral("script"), QString::fromUtf8(kMatmul)},
                       {QStringLiteral("variant"), QStringLiteral("tiled")},
                       {QStringLiteral("format"), QStringLiteral("llvm")}};
}

QJsonObject pingRequest()
{
    return QJsonObject{{QStringLiteral("cmd"), QStringLiteral("ping")}};
}

QString str(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toString();
}

} // namespace

class WorkerClientTest : public QObject {
    Q_OBJECT

private:
    // How one request ended, as the client signalled it.
    struct Outcome {
        enum Kind { Finished, Failed, Cancelled } kind;
        QJsonObject result;
        QString message;
    };

    std::optional<Outcome> outcomeOf(int id) const
    {
        for (const QList<QVariant>& s : *m_finished)
            if (s.at(0).toInt() == id)
                return Outcome{Outcome::Finished, s.at(1).toJsonObject(), {}};
        for (const QList<QVariant>& s : *m_failed)
            if (s.at(0).toInt() == id) return Outcome{Outcome::Failed, {}, s.at(1).toString()};
        for (const QList<QVariant>& s : *m_cancelled)
            if (s.at(0).toInt() == id) return Outcome{Outcome::Cancelled, {}, {}};
        return std::nullopt;
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

    QJsonObject awaitResult(int id)
    {
        std::optional<Outcome> o = awaitOutcome(id);
        if (!o)
            qWarning("request %d did not end", id);
        else if (o->kind != Outcome::Finished)
            qWarning("request %d: %s", id, qPrintable(o->message));
        return o && o->kind == Outcome::Finished ? o->result : QJsonObject{};
    }

    QString awaitFailure(int id)
    {
        std::optional<Outcome> o = awaitOutcome(id);
        if (o && o->kind == Outcome::Finished)
            qWarning("request %d finished: %s", id, QJsonDocument(o->result).toJson().constData());
        return o && o->kind == Outcome::Failed ? o->message : QString();
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
    std::unique_ptr<QSignalSpy> m_finished, m_failed, m_cancelled, m_progress, m_busy;

    // Every signal in the order it came: "progress 3 compiling", "finished 3", ...
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
        m_finished = std::make_unique<QSignalSpy>(c, &WorkerClient::finished);
        m_failed = std::make_unique<QSignalSpy>(c, &WorkerClient::failed);
        m_cancelled = std::make_unique<QSignalSpy>(c, &WorkerClient::cancelled);
        m_progress = std::make_unique<QSignalSpy>(c, &WorkerClient::progress);
        m_busy = std::make_unique<QSignalSpy>(c, &WorkerClient::busyChanged);
        m_events.clear();
        connect(c, &WorkerClient::progress, this, [this](int id, const QString& phase, double) {
            m_events << QStringLiteral("progress %1 %2").arg(id).arg(phase);
        });
        connect(c, &WorkerClient::finished, this, [this](int id, const QJsonObject&) {
            m_events << QStringLiteral("finished %1").arg(id);
        });
        connect(c, &WorkerClient::failed, this, [this](int id, const QString&) {
            m_events << QStringLiteral("failed %1").arg(id);
        });
        connect(c, &WorkerClient::cancelled, this,
                [this](int id) { m_events << QStringLiteral("cancelled %1").arg(id); });
    }

    void cleanup()
    {
        m_finished.reset();
        m_failed.reset();
        m_cancelled.reset();
        m_progress.reset();
        m_busy.reset();
        m_client.reset();
    }

    void pingDescribesTheHost()
    {
        int id = m_client->submit(pingRequest());
        QCOMPARE(m_client->queuedRequests(), QList<int>{id});
        QJsonObject r = awaitResult(id);
        QCOMPARE(str(r, "status"), QStringLiteral("ok"));
        QCOMPARE(r.value(QLatin1String("id")).toInt(), id);
        QVERIFY(!str(r, "version").isEmpty());
        QVERIFY(!str(r, "cpu").isEmpty());
        QVERIFY(!str(r, "features").isEmpty());
        QVERIFY(r.value(QLatin1String("threads")).toInt() >= 1);
        QVERIFY(r.value(QLatin1String("commands")).toArray().contains(QStringLiteral("measure")));
        QVERIFY(r.value(QLatin1String("testing")).toBool());
    }

    void measureReportsSpeedAndBusy()
    {
        int id = m_client->submit(measureRequest(QStringLiteral("tiled")));
        QVERIFY(m_client->isBusy());
        QCOMPARE(m_busy->size(), 1);
        QCOMPARE(m_busy->at(0).at(0).toBool(), true);
        QJsonObject r = awaitResult(id);
        QCOMPARE(str(r, "status"), QStringLiteral("ok"));
        QVERIFY(r.value(QLatin1String("gflops")).toDouble() > 0);
        QVERIFY(r.value(QLatin1String("ms_median")).toDouble() > 0);
        QVERIFY(r.value(QLatin1String("ms_min")).toDouble() <=
                r.value(QLatin1String("ms_median")).toDouble());
        QVERIFY(r.value(QLatin1String("ms_median")).toDouble() <=
                r.value(QLatin1String("ms_max")).toDouble());
        QVERIFY(r.value(QLatin1String("number")).toInt() >= 1);
        QCOMPARE(r.value(QLatin1String("flops")).toDouble(), 2.0 * 32 * 64 * 64);
        QVERIFY(r.value(QLatin1String("checked")).toBool());
        QCOMPARE(r.value(QLatin1String("check")).toArray().size(), 1);
        QVERIFY(r.value(QLatin1String("compile_ms")).toDouble() > 0);
        QVERIFY(r.contains(QLatin1String("lower_ms")));
        QTRY_VERIFY(!m_client->isBusy());
        QCOMPARE(m_busy->last().at(0).toBool(), false);
    }

    void progressComesBeforeTheResult()
    {
        int id = m_client->submit(measureRequest(QStringLiteral("naive")));
        QCOMPARE(str(awaitResult(id), "status"), QStringLiteral("ok"));
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
        int id = m_client->submit(
            measureRequest(QStringLiteral("tiled"), {{QStringLiteral("corrupt_output"), true}}));
        QJsonObject r = awaitResult(id);
        QCOMPARE(str(r, "status"), QStringLiteral("wrong"));
        QVERIFY(!r.contains(QLatin1String("gflops")));
        QVERIFY(!r.contains(QLatin1String("ms_median")));
        QVERIFY(!r.value(QLatin1String("checked")).toBool());
        QVERIFY2(str(r, "first_mismatch").startsWith(QLatin1String("C[0, 0] = ")),
                 qPrintable(str(r, "first_mismatch")));
        QVERIFY(str(r, "message").contains(QLatin1String("computes wrong numbers")));
    }

    void documentErrorsHaveALocation()
    {
        QJsonObject request = measureRequest(QStringLiteral("tiled"));
        request.insert(QStringLiteral("script"), QStringLiteral("import tvm\nx = (\n"));
        QJsonObject r = awaitResult(m_client->submit(request));
        QCOMPARE(str(r, "status"), QStringLiteral("error"));
        QCOMPARE(str(r, "kind"), QStringLiteral("document"));
        QCOMPARE(r.value(QLatin1String("line")).toInt(), 2);
        QVERIFY(r.value(QLatin1String("column")).toInt() > 0);
        QVERIFY(!str(r, "message").isEmpty());
    }

    void crashIsReportedAndTheNextRequestRunsOnAFreshWorker()
    {
        int crash = m_client->submit(
            measureRequest(QStringLiteral("tiled"),
                           {{QStringLiteral("step"), 2}, {QStringLiteral("crash"), true}}));
        int next = m_client->submit(measureRequest(QStringLiteral("naive")));
        QString message = awaitFailure(crash);
        QCOMPARE(message,
                 QStringLiteral("The generated code crashed (segmentation fault) while "
                                "running variant 'tiled' step 2; the worker was restarted."));
        QCOMPARE(str(awaitResult(next), "status"), QStringLiteral("ok"));
    }

    void timeLimitStopsTheRunAndTheNextRequestRuns()
    {
        m_client->setTimeLimitMs(300);
        QElapsedTimer t;
        t.start();
        int slow = m_client->submit(
            measureRequest(QStringLiteral("naive"), {{QStringLiteral("sleep_ms"), 20000}}));
        int next = m_client->submit(pingRequest());
        QString message = awaitFailure(slow);
        QVERIFY2(t.elapsed() < 15000, "the time limit did not stop the run");
        QVERIFY2(message.contains(QLatin1String("longer than 0.3 s and was stopped; the worker was "
                                                "restarted.")),
                 qPrintable(message));
        QVERIFY2(message.startsWith(QLatin1String("Variant 'naive' ran longer")) ||
                     message.startsWith(QLatin1String("Compiling variant 'naive' took longer")),
                 qPrintable(message));
        QCOMPARE(str(awaitResult(next), "status"), QStringLiteral("ok"));
    }

    void defaultTimeLimitIsThirtySeconds() { QCOMPARE(WorkerClient().timeLimitMs(), 30000); }

    void cancelAllStopsTheRunAndTheNextRequestRuns()
    {
        int slow = m_client->submit(
            measureRequest(QStringLiteral("naive"), {{QStringLiteral("sleep_ms"), 20000}}));
        int queued = m_client->submit(pingRequest());
        QVERIFY(awaitPhase(slow, QStringLiteral("checking")));
        QCOMPARE(m_client->runningRequest(), slow);
        m_client->cancelAll();
        QCOMPARE(m_client->runningRequest(), -1);
        QVERIFY(m_client->queuedRequests().isEmpty());
        QVERIFY(!m_client->isBusy());
        QCOMPARE(outcomeOf(slow)->kind, Outcome::Cancelled);
        QCOMPARE(outcomeOf(queued)->kind, Outcome::Cancelled);

        int next = m_client->submit(measureRequest(QStringLiteral("tiled")));
        QCOMPARE(str(awaitResult(next), "status"), QStringLiteral("ok"));
        QTest::qWait(100);
        QCOMPARE(outcomeOf(slow)->kind, Outcome::Cancelled); // never finished afterwards
        QCOMPARE(m_failed->size(), 0);
    }

    void cancelDropsAQueuedRequestOnly()
    {
        int first = m_client->submit(
            measureRequest(QStringLiteral("naive"), {{QStringLiteral("sleep_ms"), 300}}));
        int dropped = m_client->submit(pingRequest());
        int last = m_client->submit(pingRequest());
        m_client->cancel(dropped);
        QCOMPARE(outcomeOf(dropped)->kind, Outcome::Cancelled);
        QCOMPARE(m_client->queuedRequests(), (QList<int>{first, last}));
        QCOMPARE(str(awaitResult(first), "status"), QStringLiteral("ok"));
        QCOMPARE(str(awaitResult(last), "status"), QStringLiteral("ok"));
        // One at a time, in order.
        QCOMPARE(m_events.indexOf(QStringLiteral("finished %1").arg(first)) <
                     m_events.indexOf(QStringLiteral("finished %1").arg(last)),
                 true);
        QCOMPARE(outcomeOf(dropped)->kind, Outcome::Cancelled);
    }

    void submitFirstGoesAheadOfQueuedRequests()
    {
        int running = m_client->submit(
            measureRequest(QStringLiteral("naive"), {{QStringLiteral("sleep_ms"), 300}}));
        QTRY_COMPARE(m_client->runningRequest(), running);
        int queued = m_client->submit(pingRequest());
        int urgent = m_client->submitFirst(pingRequest());
        QCOMPARE(m_client->queuedRequests(), (QList<int>{urgent, queued}));
        QCOMPARE(str(awaitResult(queued), "status"), QStringLiteral("ok"));
        auto at = [&](int id) { return m_events.indexOf(QStringLiteral("finished %1").arg(id)); };
        QVERIFY(at(running) >= 0);
        QVERIFY(at(running) < at(urgent)); // the running request is not interrupted
        QVERIFY(at(urgent) < at(queued));
    }

    // The code of a step does not wait for a whole sweep: an "emit" submitted first while a
    // sweep runs is answered between two of its points; anything else waits for the sweep.
    void emitGoesBetweenTheRunningSweepsPoints()
    {
        int sweep = m_client->submit(sweepRequest({8, 16, 24, 32, 40, 48}));
        QVERIFY(awaitPhase(sweep, QStringLiteral("sweep")));
        int code = m_client->submitFirst(emitRequest());
        int ping = m_client->submitFirst(pingRequest());
        QCOMPARE(m_client->queuedRequests(), (QList<int>{ping})); // the emit went to the worker
        QVERIFY(str(awaitResult(code), "text").contains(QLatin1String("define")));
        QCOMPARE(str(awaitResult(sweep), "status"), QStringLiteral("ok"));
        QCOMPARE(str(awaitResult(ping), "status"), QStringLiteral("ok"));
        auto at = [&](int id) { return m_events.indexOf(QStringLiteral("finished %1").arg(id)); };
        QVERIFY(at(code) < at(sweep));
        QVERIFY(at(sweep) < at(ping));
        QCOMPARE(m_failed->size(), 0);
    }

    // When the worker is restarted under it (here: the sweep is cancelled), the emit sent aside is
    // queued again and answered by the new worker.
    void anEmitSentAsideSurvivesTheSweepsCancel()
    {
        int sweep = m_client->submit(sweepRequest({8, 16, 24, 32, 40, 48}));
        QVERIFY(awaitPhase(sweep, QStringLiteral("sweep")));
        int code = m_client->submitFirst(emitRequest());
        QVERIFY(m_client->queuedRequests().isEmpty());
        m_client->cancel(sweep); // before any answer is read
        QCOMPARE(m_client->queuedRequests(), (QList<int>{code}));
        QVERIFY(str(awaitResult(code), "text").contains(QLatin1String("define")));
        QCOMPARE(outcomeOf(sweep)->kind, Outcome::Cancelled);
        QTRY_VERIFY(!m_client->isBusy());
    }

    // An emit cancelled after it was sent aside still gets its answer from the worker, which is
    // dropped without a word; the sweep goes on.
    void aCancelledEmitsAnswerIsDroppedQuietly()
    {
        QSignalSpy logs(m_client.get(), &WorkerClient::logLine);
        int sweep = m_client->submit(sweepRequest({8, 16, 24, 32}));
        QVERIFY(awaitPhase(sweep, QStringLiteral("sweep")));
        int code = m_client->submitFirst(emitRequest());
        QVERIFY(m_client->queuedRequests().isEmpty()); // sent to the worker
        m_client->cancel(code);
        QCOMPARE(outcomeOf(code)->kind, Outcome::Cancelled);
        int again = m_client->submitFirst(emitRequest());
        QVERIFY(str(awaitResult(again), "text").contains(QLatin1String("define")));
        QCOMPARE(str(awaitResult(sweep), "status"), QStringLiteral("ok"));
        QCOMPARE(m_events.count(QStringLiteral("finished %1").arg(code)), 0);
        for (const QList<QVariant>& args : logs)
            QVERIFY2(!args.at(0).toString().contains(QLatin1String("no running request")),
                     qPrintable(args.at(0).toString()));
        QCOMPARE(m_failed->size(), 0);
    }

    // Every progress message reaches message() whole: a sweep's carry its points.
    void messageCarriesEveryProgressMessage()
    {
        QSignalSpy messages(m_client.get(), &WorkerClient::message);
        QJsonObject sweep{{QStringLiteral("cmd"), QStringLiteral("sweep")},
                          {QStringLiteral("script"), QString::fromUtf8(kMatmul)},
                          {QStringLiteral("params"), QJsonArray{QStringLiteral("N")}},
                          {QStringLiteral("values"), QJsonArray{8, 16}},
                          {QStringLiteral("variants"), QJsonArray{QStringLiteral("naive")}},
                          {QStringLiteral("threads"), 1},
                          {QStringLiteral("repeat"), 1},
                          {QStringLiteral("min_repeat_ms"), 1}};
        int id = m_client->submit(sweep);
        QCOMPARE(str(awaitResult(id), "status"), QStringLiteral("ok"));
        QCOMPARE(messages.size(), m_progress->size());
        QList<qint64> sizes;
        for (const QList<QVariant>& s : std::as_const(messages)) {
            QCOMPARE(s.at(0).toInt(), id);
            QJsonObject m = s.at(1).toJsonObject();
            QCOMPARE(str(m, "status"), QStringLiteral("progress"));
            QCOMPARE(str(m, "phase"), QStringLiteral("sweep"));
            QCOMPARE(m.value(QLatin1String("total")).toInt(), 2);
            QJsonObject point = m.value(QLatin1String("point")).toObject();
            QCOMPARE(str(point, "variant"), QStringLiteral("naive"));
            sizes << point.value(QLatin1String("N")).toInteger();
        }
        QCOMPARE(sizes, (QList<qint64>{8, 16}));
    }

    // "time_limit_ms" in a request replaces the client's limit for that request only.
    void perRequestTimeLimitOverridesTheDefault()
    {
        m_client->setTimeLimitMs(300);
        int longer = m_client->submit(
            measureRequest(QStringLiteral("naive"), {{QStringLiteral("sleep_ms"), 800},
                                                     {QStringLiteral("time_limit_ms"), 60000}}));
        QCOMPARE(str(awaitResult(longer), "status"), QStringLiteral("ok"));

        m_client->setTimeLimitMs(60000);
        QElapsedTimer t;
        t.start();
        int shorter = m_client->submit(
            measureRequest(QStringLiteral("naive"), {{QStringLiteral("sleep_ms"), 20000},
                                                     {QStringLiteral("time_limit_ms"), 400}}));
        QString message = awaitFailure(shorter);
        QVERIFY2(t.elapsed() < 15000, "the request's time limit did not stop the run");
        QVERIFY2(message.contains(QLatin1String("longer than 0.4 s")), qPrintable(message));
        QCOMPARE(m_client->timeLimitMs(), 60000);
    }

    void missingWorkerFailsInPlainWords()
    {
        m_client->setWorkerPath(QStringLiteral("/nonexistent/loopscope-worker"));
        int a = m_client->submit(pingRequest());
        int b = m_client->submit(pingRequest());
        QString message = awaitFailure(a);
        QVERIFY2(message.startsWith(
                     QLatin1String("The background worker (/nonexistent/loopscope-worker) "
                                   "could not be started")),
                 qPrintable(message));
        QCOMPARE(awaitFailure(b), message);
        QTRY_VERIFY(!m_client->isBusy());
    }

    // The worker itself, without the client: a line that is not JSON gets an error result and
    // the worker goes on.
    void malformedLineGivesAnErrorAndTheWorkerStaysAlive()
    {
        QProcess worker;
        worker.start(QStringLiteral(LOOPSCOPE_WORKER), QStringList{});
        QVERIFY(worker.waitForStarted());
        auto nextLine = [&]() -> QJsonObject {
            while (!worker.canReadLine())
                if (!worker.waitForReadyRead(30000)) return {};
            return QJsonDocument::fromJson(worker.readLine()).object();
        };
        worker.write("this is not json\n");
        QJsonObject error = nextLine();
        QCOMPARE(str(error, "status"), QStringLiteral("error"));
        QCOMPARE(str(error, "kind"), QStringLiteral("request"));
        QVERIFY(!error.contains(QLatin1String("id")));
        QVERIFY(str(error, "message").contains(QLatin1String("not valid JSON")));

        worker.write("{\"id\": 8, \"cmd\": \"measure\", \"script\": 3}\n");
        QJsonObject bad = nextLine();
        QCOMPARE(bad.value(QLatin1String("id")).toInt(), 8);
        QCOMPARE(str(bad, "status"), QStringLiteral("error"));

        worker.write("{\"id\": 9, \"cmd\": \"ping\"}\n");
        QJsonObject ping = nextLine();
        QCOMPARE(ping.value(QLatin1String("id")).toInt(), 9);
        QCOMPARE(str(ping, "status"), QStringLiteral("ok"));
        QVERIFY(!ping.value(QLatin1String("testing")).toBool()); // no LOOPSCOPE_WORKER_TESTING

        // Lines that come in during a sweep: an emit is answered between two points, a ping
        // after the sweep.
        QJsonObject sweep = sweepRequest({8, 16, 24});
        sweep.insert(QStringLiteral("id"), 11);
        QJsonObject code = emitRequest();
        code.insert(QStringLiteral("id"), 12);
        QJsonObject last = pingRequest();
        last.insert(QStringLiteral("id"), 13);
        QByteArray lines;
        for (const QJsonObject& o : {sweep, code, last})
            lines += QJsonDocument(o).toJson(QJsonDocument::Compact) + "\n";
        worker.write(lines);
        QList<int> finals;
        while (finals.size() < 3) {
            QJsonObject m = nextLine();
            QVERIFY(!m.isEmpty());
            if (str(m, "status") != QStringLiteral("progress"))
                finals << m.value(QLatin1String("id")).toInt();
        }
        QCOMPARE(finals, (QList<int>{12, 11, 13}));

        worker.closeWriteChannel();
        QVERIFY(worker.waitForFinished(30000));
        QCOMPARE(worker.exitStatus(), QProcess::NormalExit);
        QCOMPARE(worker.exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(WorkerClientTest)
#include "WorkerClientTest.moc"
