#include "worker/WorkerProtocol.h"

namespace loopscope::worker {

namespace {

QString text(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toString();
}

int integer(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toInt();
}

double number(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toDouble();
}

bool flag(const QJsonObject& o, const char* key)
{
    return o.value(QLatin1String(key)).toBool();
}

bool has(const QJsonObject& o, const char* key)
{
    return o.contains(QLatin1String(key));
}

QStringList strings(const QJsonObject& o, const char* key)
{
    QStringList out;
    for (const QJsonValue& v : o.value(QLatin1String(key)).toArray())
        out << v.toString();
    return out;
}

QJsonArray toArray(const QStringList& list)
{
    QJsonArray out;
    for (const QString& s : list)
        out.append(s);
    return out;
}

QJsonArray toArray(const QList<qint64>& list)
{
    QJsonArray out;
    for (qint64 v : list)
        out.append(v);
    return out;
}

// ms_median, ms_min, ms_max, gflops and, for a measurement, number and repeat; nullopt when the
// object has no median (nothing was timed).
std::optional<Timing> timingOf(const QJsonObject& o)
{
    if (!has(o, "ms_median")) return std::nullopt;
    Timing t;
    t.msMedian = number(o, "ms_median");
    t.msMin = number(o, "ms_min");
    t.msMax = number(o, "ms_max");
    t.number = integer(o, "number");
    t.repeat = integer(o, "repeat");
    t.gflops = number(o, "gflops");
    return t;
}

Error::Kind errorKind(const QString& kind)
{
    if (kind == QLatin1String("request")) return Error::Kind::Request;
    if (kind == QLatin1String("document")) return Error::Kind::Document;
    if (kind == QLatin1String("codegen")) return Error::Kind::Codegen;
    if (kind == QLatin1String("protocol")) return Error::Kind::Protocol;
    return Error::Kind::Internal;
}

// The part every result shares: "error" is Refused; "ok" (and the statuses in `answered`) is
// Answered, with the result left for the caller to fill in.
template <typename T>
Reply<T> begin(const QJsonObject& message, std::initializer_list<const char*> answered = {"ok"})
{
    Reply<T> reply;
    const QString status = text(message, "status");
    for (const char* s : answered) {
        if (status == QLatin1String(s)) {
            reply.ending = Reply<T>::Ending::Answered;
            return reply;
        }
    }
    reply.ending = Reply<T>::Ending::Refused;
    if (status == QLatin1String("error")) {
        reply.error.kind = errorKind(text(message, "kind"));
        reply.error.message = text(message, "message");
        reply.error.line = integer(message, "line");
        reply.error.column = integer(message, "column");
    } else {
        reply.error.kind = Error::Kind::Internal;
        reply.error.message =
            QStringLiteral("the worker answered with an unknown status '%1'").arg(status);
    }
    return reply;
}

OutputCheck outputCheckOf(const QJsonObject& o)
{
    OutputCheck c;
    c.tensor = text(o, "tensor");
    c.ok = flag(o, "ok");
    c.elements = o.value(QLatin1String("elements")).toInteger();
    c.maxAbsError = number(o, "max_abs_error");
    c.maxRelError = number(o, "max_rel_error");
    c.firstMismatch = text(o, "first_mismatch");
    c.skipped = text(o, "skipped");
    c.error = text(o, "error");
    return c;
}

} // namespace

// ---- requests ----

QJsonObject encode(const PingRequest&)
{
    return QJsonObject{{QStringLiteral("cmd"), QStringLiteral("ping")}};
}

QJsonObject encode(const MeasureRequest& r)
{
    QJsonObject o{{QStringLiteral("cmd"), QStringLiteral("measure")},
                  {QStringLiteral("script"), r.script},
                  {QStringLiteral("step"), r.step},
                  {QStringLiteral("threads"), r.threads},
                  {QStringLiteral("check"), r.check},
                  {QStringLiteral("repeat"), r.repeat},
                  {QStringLiteral("min_repeat_ms"), r.minRepeatMs}};
    if (!r.variant.isEmpty()) o.insert(QStringLiteral("variant"), r.variant);
    if (!r.sets.isEmpty()) {
        QJsonObject sets;
        for (auto it = r.sets.begin(); it != r.sets.end(); ++it)
            sets.insert(it.key(), it.value());
        o.insert(QStringLiteral("sets"), sets);
    }
    if (r.profileSeconds > 0) o.insert(QStringLiteral("profile_seconds"), r.profileSeconds);
    if (r.testing.crash) o.insert(QStringLiteral("crash"), true);
    if (r.testing.corruptOutput) o.insert(QStringLiteral("corrupt_output"), true);
    if (r.testing.sleepMs > 0) o.insert(QStringLiteral("sleep_ms"), r.testing.sleepMs);
    return o;
}

QJsonObject encode(const EmitRequest& r)
{
    QJsonObject o{{QStringLiteral("cmd"), QStringLiteral("emit")},
                  {QStringLiteral("script"), r.script},
                  {QStringLiteral("step"), r.step},
                  {QStringLiteral("format"), r.format}};
    if (!r.variant.isEmpty()) o.insert(QStringLiteral("variant"), r.variant);
    if (!r.source.isEmpty()) o.insert(QStringLiteral("source"), r.source);
    if (r.lines) o.insert(QStringLiteral("lines"), true);
    return o;
}

QJsonObject encode(const SweepRequest& r)
{
    QJsonObject o{{QStringLiteral("cmd"), QStringLiteral("sweep")},
                  {QStringLiteral("script"), r.script},
                  {QStringLiteral("params"), toArray(r.parameters)},
                  {QStringLiteral("values"), toArray(r.values)},
                  {QStringLiteral("variants"), toArray(r.variants)},
                  {QStringLiteral("threads"), r.threads},
                  {QStringLiteral("max_point_s"), r.maxPointSeconds},
                  {QStringLiteral("blas"), r.blas},
                  {QStringLiteral("repeat"), r.repeat},
                  {QStringLiteral("min_repeat_ms"), r.minRepeatMs}};
    if (!r.known.isEmpty()) {
        QJsonArray known;
        for (const SweepPoint& p : r.known)
            known.append(encodeSweepPoint(p));
        o.insert(QStringLiteral("known"), known);
    }
    return o;
}

QJsonObject encode(const MachineRequest& r)
{
    return QJsonObject{{QStringLiteral("cmd"), QStringLiteral("machine")},
                       {QStringLiteral("threads"), r.threads}};
}

QJsonObject encode(const TuneRequest& r)
{
    QJsonObject sets;
    for (auto it = r.sets.begin(); it != r.sets.end(); ++it)
        sets.insert(it.key(), it.value());
    QJsonObject o{{QStringLiteral("cmd"), QStringLiteral("tune")},
                  {QStringLiteral("script"), r.script},
                  {QStringLiteral("sets"), sets},
                  {QStringLiteral("trials"), r.trials},
                  {QStringLiteral("seconds"), r.seconds},
                  {QStringLiteral("threads"), r.threads},
                  {QStringLiteral("forbid"), toArray(r.forbid)},
                  {QStringLiteral("resume"), r.resume},
                  {QStringLiteral("seed"), r.seed}};
    if (!r.variant.isEmpty()) o.insert(QStringLiteral("variant"), r.variant);
    if (!r.log.isEmpty()) o.insert(QStringLiteral("log"), r.log);
    if (r.crashFirst) o.insert(QStringLiteral("crash_first"), true);
    if (r.peak) o.insert(QStringLiteral("peak"), true);
    if (r.hand) o.insert(QStringLiteral("hand"), true);
    return o;
}

QJsonObject encode(const ModelRequest& r)
{
    QJsonObject shapes;
    for (auto it = r.shapes.begin(); it != r.shapes.end(); ++it)
        shapes.insert(it.key(), toArray(it.value()));
    QJsonObject o{{QStringLiteral("cmd"), QStringLiteral("model")},
                  {QStringLiteral("model"), r.model},
                  {QStringLiteral("run"), r.run},
                  {QStringLiteral("check"), r.check},
                  {QStringLiteral("repeat"), r.repeat},
                  {QStringLiteral("threads"), r.threads}};
    if (!r.schedules.isEmpty()) o.insert(QStringLiteral("schedules"), r.schedules);
    if (!shapes.isEmpty()) o.insert(QStringLiteral("shapes"), shapes);
    return o;
}

QJsonObject encode(const ModelChoiceRequest& r)
{
    QJsonObject o{{QStringLiteral("cmd"), QStringLiteral("model_choice")},
                  {QStringLiteral("model"), r.model},
                  {QStringLiteral("workload"), r.workload},
                  {QStringLiteral("name"), r.name}};
    if (!r.schedules.isEmpty()) o.insert(QStringLiteral("schedules"), r.schedules);
    if (r.script) o.insert(QStringLiteral("script"), *r.script);
    if (r.variant) o.insert(QStringLiteral("variant"), *r.variant);
    if (r.log) o.insert(QStringLiteral("log"), *r.log);
    if (r.reset) o.insert(QStringLiteral("reset"), true);
    return o;
}

// ---- progress ----

bool isProgress(const QJsonObject& message)
{
    return text(message, "status") == QLatin1String("progress");
}

Progress decodeProgress(const QJsonObject& message)
{
    return Progress{text(message, "phase"), number(message, "fraction")};
}

SweepProgress decodeSweepProgress(const QJsonObject& message)
{
    SweepProgress p;
    p.fraction = number(message, "fraction");
    p.done = integer(message, "done");
    p.total = integer(message, "total");
    p.point = decodeSweepPoint(message.value(QLatin1String("point")).toObject());
    return p;
}

TuneProgress decodeTuneProgress(const QJsonObject& m)
{
    TuneProgress p;
    p.fraction = number(m, "fraction");
    p.done = integer(m, "trials_done");
    p.planned = integer(m, "trials_planned");
    p.elapsedS = number(m, "elapsed_s");
    p.remainingS = m.contains(QLatin1String("remaining_s")) ? number(m, "remaining_s") : -1;
    const QJsonObject t = m.value(QLatin1String("trial")).toObject();
    if (!t.isEmpty()) {
        TuneTrial trial;
        trial.trial = integer(t, "trial");
        trial.status = text(t, "status");
        trial.gflops = number(t, "gflops");
        trial.ms = number(t, "ms");
        trial.error = text(t, "error");
        trial.sketch = text(t, "sketch");
        p.trial = trial;
    }
    const QJsonObject best = m.value(QLatin1String("best")).toObject();
    p.bestTrial = integer(best, "trial");
    p.bestGflops = number(best, "gflops");
    p.bestMs = number(best, "ms");
    p.bestStatements = strings(m, "best_statements");
    p.bestTir = text(m, "best_tir");
    p.startTir = text(m, "start_tir");
    const QJsonObject ref = m.value(QLatin1String("reference")).toObject();
    p.referenceName = text(ref, "name");
    p.referenceGflops = number(ref, "gflops");
    p.cpu = text(m.value(QLatin1String("machine")).toObject(), "cpu");
    p.peakGflops = number(m, "peak_gflops");
    const QJsonObject hand = m.value(QLatin1String("hand")).toObject();
    p.handName = text(hand, "name");
    p.handGflops = number(hand, "gflops");
    p.handMs = number(hand, "ms");
    return p;
}

// ---- results ----

template <> Reply<PingResult> decode<PingResult>(const QJsonObject& m)
{
    Reply<PingResult> reply = begin<PingResult>(m);
    if (!reply.answered()) return reply;
    PingResult& r = reply.result;
    r.version = text(m, "version");
    r.protocol = integer(m, "protocol");
    r.commands = strings(m, "commands");
    r.triple = text(m, "triple");
    r.cpu = text(m, "cpu");
    r.llvmCpu = text(m, "llvm_cpu");
    r.cpuNote = text(m, "cpu_note");
    r.features = text(m, "features");
    r.vectorBits = integer(m, "vector_bits");
    r.llvmVersion = text(m, "llvm");
    r.threads = integer(m, "threads");
    r.testing = flag(m, "testing");
    return reply;
}

template <> Reply<MeasureResult> decode<MeasureResult>(const QJsonObject& m)
{
    Reply<MeasureResult> reply = begin<MeasureResult>(m, {"ok", "wrong"});
    if (!reply.answered()) return reply;
    MeasureResult& r = reply.result;
    r.status = text(m, "status") == QLatin1String("wrong") ? MeasureResult::Status::Wrong
                                                           : MeasureResult::Status::Ok;
    r.variant = text(m, "variant");
    r.step = integer(m, "step");
    r.steps = integer(m, "steps");
    r.threads = integer(m, "threads");
    const QJsonObject parameters = m.value(QLatin1String("parameters")).toObject();
    for (auto it = parameters.begin(); it != parameters.end(); ++it)
        r.parameters.insert(it.key(), it.value().toInteger());
    r.notes = strings(m, "notes");
    r.lowerMs = number(m, "lower_ms");
    r.compileMs = number(m, "compile_ms");
    r.runMs = number(m, "run_ms");
    r.flops = number(m, "flops");
    r.checked = flag(m, "checked");
    for (const QJsonValue& c : m.value(QLatin1String("check")).toArray())
        r.checks << outputCheckOf(c.toObject());
    r.timing = timingOf(m);
    r.message = text(m, "message");
    r.firstMismatch = text(m, "first_mismatch");
    r.maxAbsError = number(m, "max_abs_error");
    if (m.contains(QLatin1String("profile"))) {
        const QJsonObject p = m.value(QLatin1String("profile")).toObject();
        StepProfile sp;
        sp.error = text(p, "error");
        sp.tir = text(p, "tir");
        sp.method = text(p, "method");
        sp.threads = integer(p, "threads");
        sp.runs = integer(p, "runs");
        sp.seconds = number(p, "seconds");
        sp.samples = p.value(QLatin1String("samples")).toInteger();
        sp.inKernel = p.value(QLatin1String("in_kernel")).toInteger();
        sp.lost = p.value(QLatin1String("lost")).toInteger();
        sp.profileMs = number(p, "profile_ms");
        for (const QJsonValue& v : p.value(QLatin1String("line_share")).toArray())
            sp.lineShare << v.toDouble();
        for (const QJsonValue& v : p.value(QLatin1String("loop_share")).toArray())
            sp.loopShare << v.toDouble(-1);
        for (const QJsonValue& v : p.value(QLatin1String("instructions")).toArray()) {
            const QJsonObject i = v.toObject();
            sp.instructions.append({quint32(i.value(QLatin1String("o")).toInteger()),
                                    i.value(QLatin1String("t")).toString(),
                                    i.value(QLatin1String("l")).toInt(),
                                    i.value(QLatin1String("s")).toInteger()});
        }
        if (p.contains(QLatin1String("counters"))) {
            const QJsonObject c = p.value(QLatin1String("counters")).toObject();
            sp.counters = true;
            sp.ipc = number(c, "ipc");
            const double instructions = number(c, "instructions");
            if (instructions > 0 && c.contains(QLatin1String("l1d_misses")))
                sp.l1dMissesPerKi = number(c, "l1d_misses") / instructions * 1000;
            if (instructions > 0 && c.contains(QLatin1String("llc_misses")))
                sp.llcMissesPerKi = number(c, "llc_misses") / instructions * 1000;
        } else {
            sp.countersUnavailable = text(p, "counters_unavailable");
        }
        r.profile = sp;
    }
    return reply;
}

template <> Reply<EmitResult> decode<EmitResult>(const QJsonObject& m)
{
    Reply<EmitResult> reply = begin<EmitResult>(m);
    if (!reply.answered()) return reply;
    EmitResult& r = reply.result;
    r.format = text(m, "format");
    r.variant = text(m, "variant");
    r.step = integer(m, "step");
    r.steps = integer(m, "steps");
    r.function = text(m, "function");
    r.suffix = text(m, "suffix");
    r.target = text(m, "target");
    r.text = text(m, "text");
    r.data = QByteArray::fromBase64(text(m, "data").toLatin1());
    r.header = text(m, "header");
    return reply;
}

template <> Reply<SweepResult> decode<SweepResult>(const QJsonObject& m)
{
    Reply<SweepResult> reply = begin<SweepResult>(m);
    if (!reply.answered()) return reply;
    SweepResult& r = reply.result;
    r.parameters = strings(m, "params");
    r.variants = strings(m, "variants");
    r.points = decodeSweepPoints(m.value(QLatin1String("points")).toArray());
    r.total = integer(m, "total");
    r.measured = integer(m, "measured");
    r.threads = integer(m, "threads");
    r.blas = text(m, "blas");
    r.blasNote = text(m, "blas_note");
    return reply;
}

template <> Reply<MachineResult> decode<MachineResult>(const QJsonObject& m)
{
    Reply<MachineResult> reply = begin<MachineResult>(m);
    if (!reply.answered()) return reply;
    MachineResult& r = reply.result;
    r.peakGflops = number(m, "peak_gflops");
    r.vectorBits = integer(m, "vector_bits");
    r.bandwidthGbs = number(m, "bandwidth_gbs");
    r.threads = integer(m, "threads");
    r.clockGhz = number(m, "clock_ghz");
    return reply;
}

// ---- sweep points ----

QJsonObject encodeSweepPoint(const SweepPoint& p)
{
    QJsonObject o{
        {QStringLiteral("variant"), p.variant},     {QStringLiteral("values"), toArray(p.values)},
        {QStringLiteral("threads"), p.threads},     {QStringLiteral("reference"), p.reference},
        {QStringLiteral("skipped"), p.skipped},     {QStringLiteral("failed"), p.failed},
        {QStringLiteral("checked"), p.checked},     {QStringLiteral("cached"), p.cached},
        {QStringLiteral("flops"), p.flops},         {QStringLiteral("bytes"), p.bytes},
        {QStringLiteral("intensity"), p.intensity}, {QStringLiteral("run_ms"), p.runMs}};
    if (!p.message.isEmpty()) o.insert(QStringLiteral("message"), p.message);
    if (p.timing) {
        o.insert(QStringLiteral("ms_median"), p.timing->msMedian);
        o.insert(QStringLiteral("ms_min"), p.timing->msMin);
        o.insert(QStringLiteral("ms_max"), p.timing->msMax);
        o.insert(QStringLiteral("gflops"), p.timing->gflops);
    }
    return o;
}

std::optional<SweepPoint> decodeSweepPoint(const QJsonObject& o)
{
    const QJsonValue variant = o.value(QLatin1String("variant"));
    const QJsonArray values = o.value(QLatin1String("values")).toArray();
    if (!variant.isString() || values.isEmpty()) return std::nullopt;
    SweepPoint p;
    p.variant = variant.toString();
    for (const QJsonValue& v : values)
        p.values << v.toInteger();
    p.threads = integer(o, "threads");
    p.reference = flag(o, "reference");
    p.skipped = flag(o, "skipped");
    p.failed = flag(o, "failed");
    p.checked = flag(o, "checked");
    p.cached = flag(o, "cached");
    p.message = text(o, "message");
    p.flops = number(o, "flops");
    p.bytes = number(o, "bytes");
    p.intensity = number(o, "intensity");
    p.runMs = number(o, "run_ms");
    p.timing = timingOf(o);
    return p;
}

QList<SweepPoint> decodeSweepPoints(const QJsonArray& points)
{
    QList<SweepPoint> out;
    for (const QJsonValue& v : points)
        if (std::optional<SweepPoint> p = decodeSweepPoint(v.toObject())) out << *p;
    return out;
}

template <> Reply<TuneResult> decode<TuneResult>(const QJsonObject& m)
{
    Reply<TuneResult> reply = begin<TuneResult>(m);
    if (!reply.answered()) return reply;
    TuneResult& r = reply.result;
    r.start = text(m, "start");
    r.name = text(m, "name");
    r.trials = integer(m, "trials");
    r.reused = integer(m, "reused");
    r.failed = integer(m, "failed");
    const QJsonObject best = m.value(QLatin1String("best")).toObject();
    r.bestTrial = integer(best, "trial");
    r.bestGflops = number(best, "gflops");
    r.bestMs = number(best, "ms");
    r.sketch = text(best, "sketch");
    r.statements = strings(m, "statements");
    r.bestTir = text(m, "best_tir");
    r.notes = strings(m, "notes");
    r.log = text(m, "log");
    return reply;
}

template <> Reply<ModelResult> decode<ModelResult>(const QJsonObject& m)
{
    Reply<ModelResult> reply = begin<ModelResult>(m);
    if (!reply.answered()) return reply;
    ModelResult& r = reply.result;
    r.ok = true;
    r.model = text(m, "model");
    r.project = text(m, "project");
    r.importMs = number(m, "import_ms");
    r.compileMs = number(m, "compile_ms");
    r.medianMs = number(m, "median_ms");
    r.minMs = number(m, "min_ms");
    r.maxMs = number(m, "max_ms");
    r.threads = integer(m, "threads");
    r.bufferBytes = number(m, "buffer_bytes");
    r.checked = m.contains(QLatin1String("checked"));
    r.checkPassed = flag(m, "checked");
    r.firstWrongTask = text(m, "first_wrong_task");
    r.notes = strings(m, "notes");
    for (const QJsonValue& v : m.value(QLatin1String("tasks")).toArray()) {
        const QJsonObject t = v.toObject();
        ModelTaskResult task;
        task.name = text(t, "name");
        task.workload = text(t, "workload");
        task.anchor = text(t, "anchor");
        task.nodes = strings(t, "nodes");
        task.weight = integer(t, "weight");
        task.output = text(t, "output");
        task.gflop = number(t, "gflop");
        task.script = text(t, "script");
        task.scriptFile = text(t, "script_file");
        task.logFile = text(t, "log_file");
        task.measured = t.contains(QLatin1String("ms"));
        task.source = text(t, "source");
        task.variant = text(t, "variant");
        task.ms = number(t, "ms");
        task.share = number(t, "share");
        task.gflops = number(t, "gflops");
        task.checked = t.contains(QLatin1String("ok"));
        task.ok = !task.checked || flag(t, "ok");
        task.maxAbsError = number(t, "max_abs_error");
        task.maxRelError = number(t, "max_rel_error");
        task.first = text(t, "first");
        r.tasks << task;
    }
    const QJsonObject graph = m.value(QLatin1String("graph")).toObject();
    for (const QJsonValue& v : graph.value(QLatin1String("nodes")).toArray()) {
        const QJsonObject n = v.toObject();
        ModelNode node;
        node.name = text(n, "name");
        node.op = text(n, "op");
        node.inputs = strings(n, "inputs");
        for (const QJsonValue& o : n.value(QLatin1String("outputs")).toArray()) {
            node.outputs << text(o.toObject(), "name");
            node.shapes << text(o.toObject(), "shape");
        }
        node.task = n.value(QLatin1String("task")).toInt(-1);
        r.nodes << node;
    }
    for (const QJsonValue& v : graph.value(QLatin1String("inputs")).toArray())
        r.inputs << text(v.toObject(), "name") + QLatin1Char(' ') + text(v.toObject(), "shape");
    r.outputs = strings(graph, "outputs");
    return reply;
}

template <> Reply<ModelChoiceResult> decode<ModelChoiceResult>(const QJsonObject& m)
{
    Reply<ModelChoiceResult> reply = begin<ModelChoiceResult>(m);
    if (reply.answered()) reply.result.project = text(m, "project");
    return reply;
}

} // namespace loopscope::worker
