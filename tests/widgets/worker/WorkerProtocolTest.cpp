// The worker's JSON and the client's plain values, without a process: every reply shape the worker
// writes (app/worker/RequestHandler.cpp) decodes into its typed result, errors keep their kind and
// location, wrong numbers are a result without a speed, and requests encode as the worker reads
// them.
#include "worker/WorkerProtocol.h"

#include <QJsonDocument>
#include <QTest>

using namespace loopscope::worker;

namespace {

QJsonObject parse(const char* line)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray(line), &error);
    if (!doc.isObject()) qFatal("not a JSON object: %s", qPrintable(error.errorString()));
    return doc.object();
}

} // namespace

class WorkerProtocolTest : public QObject {
    Q_OBJECT

private slots:
    void pingDecodes()
    {
        const Reply<PingResult> r = decode<PingResult>(parse(
            R"({"id": 1, "status": "ok", "version": "0.9.0", "protocol": 1,
                "commands": ["emit", "machine", "measure", "ping", "sweep"],
                "triple": "x86_64-pc-linux-gnu", "cpu": "znver3", "features": "+avx2,+fma",
                "vector_bits": 256, "llvm": "16.0.6", "threads": 16, "testing": true})"));
        QCOMPARE(r.result.llvmVersion, QStringLiteral("16.0.6"));
        QVERIFY(r.answered());
        QCOMPARE(r.result.version, QStringLiteral("0.9.0"));
        QCOMPARE(r.result.protocol, 1);
        QCOMPARE(r.result.commands.size(), 5);
        QVERIFY(r.result.commands.contains(QStringLiteral("measure")));
        QCOMPARE(r.result.triple, QStringLiteral("x86_64-pc-linux-gnu"));
        QCOMPARE(r.result.cpu, QStringLiteral("znver3"));
        QCOMPARE(r.result.features, QStringLiteral("+avx2,+fma"));
        QCOMPARE(r.result.vectorBits, 256);
        QCOMPARE(r.result.threads, 16);
        QVERIFY(r.result.testing);
        QVERIFY(r.message().isEmpty());
    }

    void aTimedMeasurementDecodes()
    {
        const Reply<MeasureResult> r = decode<MeasureResult>(parse(
            R"({"id": 2, "status": "ok", "variant": "tiled", "step": 3, "steps": 3,
                "threads": 2, "parameters": {"K": 64, "M": 32, "N": 64},
                "notes": ["a note"], "lower_ms": 1.5, "compile_ms": 12.25, "run_ms": 0.5,
                "flops": 262144, "checked": true,
                "check": [{"tensor": "C", "ok": true, "elements": 2048,
                           "max_abs_error": 1e-6, "max_rel_error": 2e-7}],
                "ms_median": 0.125, "ms_min": 0.1, "ms_max": 0.2, "number": 4,
                "repeat": 3, "gflops": 2.097152})"));
        QVERIFY(r.answered());
        const MeasureResult& m = r.result;
        QVERIFY(!m.wrong());
        QCOMPARE(m.variant, QStringLiteral("tiled"));
        QCOMPARE(m.step, 3);
        QCOMPARE(m.steps, 3);
        QCOMPARE(m.threads, 2);
        QCOMPARE(m.parameters.value(QStringLiteral("M")), qint64{32});
        QCOMPARE(m.parameters.size(), 3);
        QCOMPARE(m.notes, QStringList{QStringLiteral("a note")});
        QCOMPARE(m.lowerMs, 1.5);
        QCOMPARE(m.compileMs, 12.25);
        QCOMPARE(m.runMs, 0.5);
        QCOMPARE(m.flops, 262144.0);
        QVERIFY(m.checked);
        QCOMPARE(m.checks.size(), 1);
        QCOMPARE(m.checks[0].tensor, QStringLiteral("C"));
        QVERIFY(m.checks[0].ok);
        QCOMPARE(m.checks[0].elements, qint64{2048});
        QCOMPARE(m.checks[0].maxRelError, 2e-7);
        QVERIFY(m.timing.has_value());
        QCOMPARE(m.timing->msMedian, 0.125);
        QCOMPARE(m.timing->msMin, 0.1);
        QCOMPARE(m.timing->msMax, 0.2);
        QCOMPARE(m.timing->number, 4);
        QCOMPARE(m.timing->repeat, 3);
        QCOMPARE(m.timing->gflops, 2.097152);
    }

    void anUntimedMeasurementHasNoTiming()
    {
        const Reply<MeasureResult> r = decode<MeasureResult>(
            parse(R"({"status": "ok", "variant": "naive", "step": 0, "steps": 0,
                      "lower_ms": 1, "compile_ms": 2, "run_ms": 3, "flops": 4,
                      "checked": false})"));
        QVERIFY(r.answered());
        QVERIFY(!r.result.timing.has_value());
        QVERIFY(!r.result.checked);
        QVERIFY(r.result.checks.isEmpty());
    }

    // A check that found wrong numbers: a result (the run happened), never a speed.
    void wrongNumbersDecodeAsAWrongResultWithoutTiming()
    {
        const Reply<MeasureResult> r = decode<MeasureResult>(parse(
            R"({"id": 3, "status": "wrong", "variant": "tiled", "step": 3, "steps": 3,
                "threads": 2, "parameters": {}, "notes": [], "lower_ms": 1,
                "compile_ms": 10, "flops": 262144, "checked": false,
                "check": [{"tensor": "C", "ok": false, "elements": 2048,
                           "max_abs_error": 12.5, "max_rel_error": 1,
                           "first_mismatch": "C[0, 0] = 13.5, expected 1"}],
                "first_mismatch": "C[0, 0] = 13.5, expected 1", "max_abs_error": 12.5,
                "message": "variant 'tiled' step 3 computes wrong numbers: C[0, 0] = 13.5, expected 1"})"));
        QVERIFY(r.answered());
        QCOMPARE(r.ending, Reply<MeasureResult>::Ending::Answered);
        const MeasureResult& m = r.result;
        QVERIFY(m.wrong());
        QCOMPARE(m.status, MeasureResult::Status::Wrong);
        QVERIFY(!m.timing.has_value());
        QVERIFY(!m.checked);
        QCOMPARE(m.firstMismatch, QStringLiteral("C[0, 0] = 13.5, expected 1"));
        QCOMPARE(m.maxAbsError, 12.5);
        QVERIFY(m.message.contains(QStringLiteral("computes wrong numbers")));
        QCOMPARE(m.checks.size(), 1);
        QVERIFY(!m.checks[0].ok);
        QCOMPARE(m.checks[0].firstMismatch, m.firstMismatch);
    }

    void anErrorKeepsItsKindAndLocation()
    {
        const Reply<MeasureResult> r =
            decode<MeasureResult>(parse(R"({"id": 4, "status": "error", "kind": "document",
                      "message": "'(' was never closed", "line": 2, "column": 5})"));
        QVERIFY(!r.answered());
        QCOMPARE(r.ending, Reply<MeasureResult>::Ending::Refused);
        QCOMPARE(r.error.kind, Error::Kind::Document);
        QCOMPARE(r.error.message, QStringLiteral("'(' was never closed"));
        QCOMPARE(r.error.line, 2);
        QCOMPARE(r.error.column, 5);
        QCOMPARE(r.message(), r.error.message);
    }

    void everyErrorKindDecodes_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<int>("expected");
        QTest::newRow("request") << QStringLiteral("request") << int(Error::Kind::Request);
        QTest::newRow("document") << QStringLiteral("document") << int(Error::Kind::Document);
        QTest::newRow("codegen") << QStringLiteral("codegen") << int(Error::Kind::Codegen);
        QTest::newRow("internal") << QStringLiteral("internal") << int(Error::Kind::Internal);
        QTest::newRow("unknown") << QStringLiteral("something new") << int(Error::Kind::Internal);
    }
    void everyErrorKindDecodes()
    {
        QFETCH(QString, kind);
        QFETCH(int, expected);
        QJsonObject message = parse(R"({"status": "error", "message": "no", "line": 0,
                                        "column": 0})");
        message.insert(QStringLiteral("kind"), kind);
        // The same error shape answers every command.
        QCOMPARE(int(decode<PingResult>(message).error.kind), expected);
        QCOMPARE(int(decode<EmitResult>(message).error.kind), expected);
        QCOMPARE(int(decode<SweepResult>(message).error.kind), expected);
        const Reply<MachineResult> machine = decode<MachineResult>(message);
        QCOMPARE(machine.ending, Reply<MachineResult>::Ending::Refused);
        QCOMPARE(machine.error.line, 0);
        QCOMPARE(machine.error.column, 0);
    }

    // Only a measurement can be wrong; any other status nobody knows is an internal error.
    void anUnknownStatusIsRefused()
    {
        const Reply<EmitResult> wrongEmit = decode<EmitResult>(parse(R"({"status": "wrong"})"));
        QCOMPARE(wrongEmit.ending, Reply<EmitResult>::Ending::Refused);
        QCOMPARE(wrongEmit.error.kind, Error::Kind::Internal);
        QVERIFY(wrongEmit.message().contains(QStringLiteral("'wrong'")));
        const Reply<MeasureResult> odd = decode<MeasureResult>(parse(R"({"status": "maybe"})"));
        QCOMPARE(odd.ending, Reply<MeasureResult>::Ending::Refused);
    }

    void emitDecodes()
    {
        const Reply<EmitResult> r = decode<EmitResult>(
            parse(R"({"id": 5, "status": "ok", "format": "c", "variant": "parallel", "step": 4,
                      "steps": 4, "function": "mmult", "suffix": ".c", "target": "llvm",
                      "text": "void mmult(float* A) {}\n"})"));
        QVERIFY(r.answered());
        QCOMPARE(r.result.format, QStringLiteral("c"));
        QCOMPARE(r.result.variant, QStringLiteral("parallel"));
        QCOMPARE(r.result.step, 4);
        QCOMPARE(r.result.steps, 4);
        QCOMPARE(r.result.function, QStringLiteral("mmult"));
        QCOMPARE(r.result.suffix, QStringLiteral(".c"));
        QCOMPARE(r.result.suggestedFileName(), QStringLiteral("mmult.c"));
        QCOMPARE(r.result.target, QStringLiteral("llvm"));
        QCOMPARE(r.result.text, QStringLiteral("void mmult(float* A) {}\n"));
    }

    void aCodegenRefusalOfAnEmitDecodes()
    {
        const Reply<EmitResult> r =
            decode<EmitResult>(parse(R"({"id": 6, "status": "error", "kind": "codegen",
                      "message": "target 'cuda': not a CPU target", "line": 7, "column": 1})"));
        QCOMPARE(r.ending, Reply<EmitResult>::Ending::Refused);
        QCOMPARE(r.error.kind, Error::Kind::Codegen);
        QCOMPARE(r.error.line, 7);
        QCOMPARE(r.error.column, 1);
    }

    void progressDecodes()
    {
        const QJsonObject m =
            parse(R"({"id": 7, "status": "progress", "phase": "compiling", "fraction": 0.25})");
        QVERIFY(isProgress(m));
        const Progress p = decodeProgress(m);
        QCOMPARE(p.phase, QStringLiteral("compiling"));
        QCOMPARE(p.fraction, 0.25);
        QVERIFY(!isProgress(parse(R"({"id": 7, "status": "ok"})")));
    }

    void aSweepsProgressCarriesItsPoint()
    {
        const QJsonObject m = parse(
            R"({"id": 8, "status": "progress", "phase": "sweep", "fraction": 0.5, "done": 1,
                "total": 2, "point": {"variant": "naive", "N": 16, "values": [16],
                "threads": 1, "reference": false, "skipped": false, "failed": false,
                "checked": true, "cached": false, "flops": 8192, "bytes": 3072,
                "intensity": 2.6666, "run_ms": 0.02, "ms_median": 0.01, "ms_min": 0.009,
                "ms_max": 0.03, "gflops": 0.8192}})");
        QVERIFY(isProgress(m));
        const SweepProgress p = decodeSweepProgress(m);
        QCOMPARE(p.fraction, 0.5);
        QCOMPARE(p.done, 1);
        QCOMPARE(p.total, 2);
        QVERIFY(p.point.has_value());
        QCOMPARE(p.point->variant, QStringLiteral("naive"));
        QCOMPARE(p.point->values, QList<qint64>{16});
        QCOMPARE(p.point->threads, 1);
        QVERIFY(p.point->checked);
        QVERIFY(!p.point->cached);
        QCOMPARE(p.point->flops, 8192.0);
        QCOMPARE(p.point->bytes, 3072.0);
        QCOMPARE(p.point->intensity, 2.6666);
        QCOMPARE(p.point->runMs, 0.02);
        QVERIFY(p.point->timing.has_value());
        QCOMPARE(p.point->timing->msMedian, 0.01);
        QCOMPARE(p.point->timing->gflops, 0.8192);
    }

    void aSweepResultDecodesEveryPoint()
    {
        const Reply<SweepResult> r = decode<SweepResult>(parse(
            R"({"id": 9, "status": "ok", "params": ["M", "N"], "variants": ["naive"],
                "points": [
                  {"variant": "naive", "M": 16, "N": 16, "values": [16, 16], "threads": 4,
                   "reference": false, "skipped": true, "failed": false, "checked": false,
                   "cached": true, "message": "over the limit", "flops": 1, "bytes": 2,
                   "intensity": 0.5, "run_ms": 30000},
                  {"variant": "OpenBLAS", "M": 16, "N": 16, "values": [16, 16], "threads": 4,
                   "reference": true, "skipped": false, "failed": false, "checked": true,
                   "cached": false, "flops": 1, "bytes": 2, "intensity": 0.5, "run_ms": 1,
                   "ms_median": 1, "ms_min": 1, "ms_max": 1, "gflops": 0.001}],
                "total": 2, "measured": 1, "threads": 4, "blas": "OpenBLAS 0.3.21"})"));
        QVERIFY(r.answered());
        const SweepResult& s = r.result;
        QCOMPARE(s.parameters, (QStringList{QStringLiteral("M"), QStringLiteral("N")}));
        QCOMPARE(s.variants, QStringList{QStringLiteral("naive")});
        QCOMPARE(s.total, 2);
        QCOMPARE(s.measured, 1);
        QCOMPARE(s.threads, 4);
        QCOMPARE(s.blas, QStringLiteral("OpenBLAS 0.3.21"));
        QVERIFY(s.blasNote.isEmpty());
        QCOMPARE(s.points.size(), 2);
        QVERIFY(s.points[0].skipped);
        QVERIFY(s.points[0].cached);
        QCOMPARE(s.points[0].message, QStringLiteral("over the limit"));
        QVERIFY(!s.points[0].timing.has_value());
        QCOMPARE(s.points[0].values, (QList<qint64>{16, 16}));
        QVERIFY(s.points[1].reference);
        QVERIFY(s.points[1].timing.has_value());
    }

    void aSweepWithoutBlasSaysWhy()
    {
        const Reply<SweepResult> r = decode<SweepResult>(
            parse(R"({"status": "ok", "params": ["N"], "variants": [], "points": [],
                      "total": 0, "measured": 0, "threads": 1,
                      "blas_note": "the program is not a matmul"})"));
        QVERIFY(r.answered());
        QVERIFY(r.result.blas.isEmpty());
        QCOMPARE(r.result.blasNote, QStringLiteral("the program is not a matmul"));
    }

    void machineDecodes()
    {
        const Reply<MachineResult> r = decode<MachineResult>(
            parse(R"({"id": 10, "status": "ok", "peak_gflops": 850.5, "vector_bits": 256,
                      "bandwidth_gbs": 40.25, "threads": 16, "clock_ghz": 3.4})"));
        QVERIFY(r.answered());
        QCOMPARE(r.result.peakGflops, 850.5);
        QCOMPARE(r.result.vectorBits, 256);
        QCOMPARE(r.result.bandwidthGbs, 40.25);
        QCOMPARE(r.result.threads, 16);
        QCOMPARE(r.result.clockGhz, 3.4);
    }

    // The points the app keeps go back to the worker as "known": the round trip loses nothing the
    // worker reads.
    void sweepPointsRoundTrip()
    {
        SweepPoint measured;
        measured.variant = QStringLiteral("tiled");
        measured.values = {64, 128};
        measured.threads = 8;
        measured.checked = true;
        measured.flops = 100;
        measured.bytes = 50;
        measured.intensity = 2;
        measured.runMs = 3;
        measured.timing = Timing{1.5, 1.25, 2.5, 0, 0, 66.0};
        SweepPoint skipped;
        skipped.variant = QStringLiteral("naive");
        skipped.values = {64, 128};
        skipped.threads = 8;
        skipped.skipped = true;
        skipped.message = QStringLiteral("over the limit");
        skipped.runMs = 12000;

        QJsonArray array{encodeSweepPoint(measured), encodeSweepPoint(skipped)};
        QVERIFY(!array[1].toObject().contains(QStringLiteral("ms_median")));
        const QList<SweepPoint> back = decodeSweepPoints(array);
        QCOMPARE(back.size(), 2);
        QCOMPARE(back[0].variant, measured.variant);
        QCOMPARE(back[0].values, measured.values);
        QCOMPARE(back[0].threads, 8);
        QVERIFY(back[0].checked);
        QCOMPARE(back[0].runMs, 3.0);
        QVERIFY(back[0].timing.has_value());
        QCOMPARE(back[0].timing->msMedian, 1.5);
        QCOMPARE(back[0].timing->msMin, 1.25);
        QCOMPARE(back[0].timing->msMax, 2.5);
        QCOMPARE(back[0].timing->gflops, 66.0);
        QVERIFY(back[1].skipped);
        QCOMPARE(back[1].message, skipped.message);
        QVERIFY(!back[1].timing.has_value());

        // Objects that are no points are left out.
        QVERIFY(!decodeSweepPoint(parse(R"({"variant": "x", "values": []})")));
        QVERIFY(!decodeSweepPoint(parse(R"({"values": [1]})")));
    }

    void requestsEncodeAsTheWorkerReadsThem()
    {
        MeasureRequest m;
        m.script = QStringLiteral("S");
        m.variant = QStringLiteral("tiled");
        m.step = 2;
        m.sets = {{QStringLiteral("M"), 32}};
        m.threads = 4;
        m.repeat = 3;
        m.minRepeatMs = 50;
        m.testing.crash = true;
        const QJsonObject o = encode(m);
        QCOMPARE(o.value(QStringLiteral("cmd")).toString(), QStringLiteral("measure"));
        QCOMPARE(o.value(QStringLiteral("script")).toString(), QStringLiteral("S"));
        QCOMPARE(o.value(QStringLiteral("variant")).toString(), QStringLiteral("tiled"));
        QCOMPARE(o.value(QStringLiteral("step")).toInt(), 2);
        QCOMPARE(o.value(QStringLiteral("sets")).toObject().value(QStringLiteral("M")).toInt(), 32);
        QCOMPARE(o.value(QStringLiteral("threads")).toInt(), 4);
        QVERIFY(o.value(QStringLiteral("check")).toBool());
        QCOMPARE(o.value(QStringLiteral("repeat")).toInt(), 3);
        QCOMPARE(o.value(QStringLiteral("min_repeat_ms")).toDouble(), 50.0);
        QVERIFY(o.value(QStringLiteral("crash")).toBool());
        QVERIFY(!o.contains(QStringLiteral("corrupt_output")));
        QVERIFY(!o.contains(QStringLiteral("sleep_ms")));
        QVERIFY(!o.contains(QStringLiteral("id"))); // the client's to add

        EmitRequest e;
        e.script = QStringLiteral("S");
        e.variant = QStringLiteral("v");
        e.format = QStringLiteral("asm");
        const QJsonObject eo = encode(e);
        QCOMPARE(eo.value(QStringLiteral("cmd")).toString(), QStringLiteral("emit"));
        QCOMPARE(eo.value(QStringLiteral("step")).toInt(), -1);
        QCOMPARE(eo.value(QStringLiteral("format")).toString(), QStringLiteral("asm"));
        QVERIFY(!eo.contains(QStringLiteral("source")));
        e.source = QStringLiteral("gemm.py");
        QCOMPARE(encode(e).value(QStringLiteral("source")).toString(), QStringLiteral("gemm.py"));

        SweepRequest s;
        s.script = QStringLiteral("S");
        s.parameters = {QStringLiteral("M"), QStringLiteral("N")};
        s.values = {16, 32};
        s.variants = {QStringLiteral("naive")};
        s.maxPointSeconds = 5;
        s.blas = true;
        SweepPoint known;
        known.variant = QStringLiteral("naive");
        known.values = {16, 16};
        known.threads = 2;
        s.known = {known};
        const QJsonObject so = encode(s);
        QCOMPARE(so.value(QStringLiteral("cmd")).toString(), QStringLiteral("sweep"));
        QCOMPARE(so.value(QStringLiteral("params")).toArray().size(), 2);
        QCOMPARE(so.value(QStringLiteral("values")).toArray(), (QJsonArray{16, 32}));
        QCOMPARE(so.value(QStringLiteral("variants")).toArray(),
                 QJsonArray{QStringLiteral("naive")});
        QCOMPARE(so.value(QStringLiteral("max_point_s")).toDouble(), 5.0);
        QVERIFY(so.value(QStringLiteral("blas")).toBool());
        QCOMPARE(so.value(QStringLiteral("known")).toArray().size(), 1);
        QCOMPARE(so.value(QStringLiteral("known"))[0][QStringLiteral("threads")].toInt(), 2);

        QCOMPARE(encode(PingRequest{}).value(QStringLiteral("cmd")).toString(),
                 QStringLiteral("ping"));
        MachineRequest machine;
        machine.threads = 3;
        QCOMPARE(encode(machine).value(QStringLiteral("threads")).toInt(), 3);
    }
};

QTEST_GUILESS_MAIN(WorkerProtocolTest)
#include "WorkerProtocolTest.moc"
