#include "shell/RunController.h"

#include "protocol/Protocol.h"

#include "charts/SweepStore.h"
#include "explore/Explorer.h"
#include "ir/Limits.h"
#include "views/LadderModel.h"
#include "views/LadderStore.h"
#include "worker/WorkerClient.h"

#include <QDateTime>
#include <QStandardPaths>

#include <algorithm>
#include <memory>

namespace loopscope {

using worker::qs;
using worker::Reply;

RunController::RunController(WorkerClient* worker, LadderModel* ladder, QObject* parent)
    : QObject(parent), m_worker(worker), m_ladder(ladder),
      m_sweepStore(std::make_unique<SweepStore>(
          QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
          QStringLiteral("/sweep-points.json"))),
      m_ladderStore(std::make_unique<LadderStore>(
          QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
          QStringLiteral("/ladder-results.json"))),
      m_settings(RunSettings::load())
{
    applyLimits();
    m_ladder->setResultLookup(
        [store = m_ladderStore.get()](const QString& key) { return store->find(key); });
    connect(m_worker, &WorkerClient::busyChanged, this, &RunController::busyChanged);
    connect(m_worker, &WorkerClient::progress, this,
            [this](int id, const QString& phase, double fraction) {
                ladderProgress(id);
                emit progress(phase, fraction);
            });
    connect(m_worker, &WorkerClient::failed, this,
            [this](int, const QString& message) { emit statusMessage(message, 10000); });
}

RunController::~RunController() = default;

std::optional<LadderModel::Result> RunController::resultOf(const QString& key) const
{
    return m_ladderStore->find(key);
}

void RunController::setSettings(const RunSettings& settings)
{
    m_settings = settings;
    applyLimits();
}

void RunController::applyLimits()
{
    // The GPU runner the worker starts: the command in the settings, through the shell.
    QProcessEnvironment env = m_worker->workerEnvironment();
    if (m_settings.gpuRunnerCommand.isEmpty())
        env.remove(QStringLiteral("LOOPSCOPE_RUNNER_COMMAND"));
    else
        env.insert(QStringLiteral("LOOPSCOPE_RUNNER_COMMAND"), m_settings.gpuRunnerCommand);
    m_worker->setWorkerEnvironment(env);
    m_worker->setTimeLimitMs(m_settings.timeLimitMs);
    m_worker->setWorkLimits(m_settings.maxUnrollCopies, m_settings.maxReferenceSteps);
    // The window's own analysis (evaluate, lower, print) keeps to the same bounds.
    Limits l = limits();
    l.maxUnrollCopies = m_settings.maxUnrollCopies;
    l.maxReferenceStepsPerElement = m_settings.maxReferenceSteps;
    setLimits(l);
}

void RunController::setScriptPath(const QString& path)
{
    m_ladderStore->setScript(path);
}

void RunController::setThreads(int threads)
{
    m_settings.threads = threads;
}

void RunController::describeWorker()
{
    m_worker->submit(
        protocol::PingRequest{}, this, [this](const Reply<protocol::PingReply>& reply) {
            // A worker of another build: it refuses this window's requests (by their protocol), or
            // this window refuses it (by its answer's).
            if (reply.refused() && reply.error.kind == protocol::ErrorReply::Kind::Protocol) {
                emit workerRefused(qs(reply.error.message));
                return;
            }
            if (!reply.answered()) return;
            if (const std::string mismatch =
                    protocolMismatch(reply.result.protocol, "the worker", reply.result.version);
                !mismatch.empty()) {
                emit workerRefused(qs(mismatch));
                return;
            }
            m_machine = reply.result;
            emit workerDescribed(qs(reply.result.machine.cpu), reply.result.machine.threads);
        });
}

// ---- the ladder ----

void RunController::runLadder(const QString& script, const VariantView& variant)
{
    runLadderRows(script, variant, -1, m_profiling);
}

void RunController::profileStep(const QString& script, const VariantView& variant, int step)
{
    runLadderRows(script, variant, step, true);
}

void RunController::setProfiling(bool on, double seconds)
{
    m_profiling = on;
    m_profileSeconds = seconds;
}

const protocol::StepProfile* RunController::profileOf(const QString& key) const
{
    auto it = m_profiles.constFind(key);
    return it == m_profiles.cend() ? nullptr : &*it;
}

void RunController::runLadderRows(const QString& script, const VariantView& variant, int onlyRow,
                                  bool profile)
{
    using State = LadderModel::State;
    emit aboutToRunCode();
    const int steps = std::min(static_cast<int>(variant.steps.size()), m_ladder->rowCount());
    for (int row = 0; row < steps; ++row) {
        if (onlyRow >= 0 && row != onlyRow) continue;
        const QString key = m_ladder->keyOf(row);
        // A profiled run wants the step's profile, not only its time.
        const bool needsProfile = profile && !key.isEmpty() && !m_profiles.contains(key);
        if (m_ladder->resultOf(row) && !needsProfile) continue;
        const StepView& step = variant.steps[static_cast<std::size_t>(row)];
        if (step.error) {
            m_ladder->setState(row, State::Failed, QString::fromStdString(step.error->message));
            continue;
        }
        // Measured since the rows were set (by another variant's ladder)...
        if (std::optional<LadderModel::Result> known = m_ladderStore->find(key);
            known && !needsProfile) {
            m_ladder->setResult(row, *known);
            continue;
        }
        // ... or being measured: the row waits for that request.
        if (auto it = m_pendingKeys.constFind(key); !key.isEmpty() && it != m_pendingKeys.cend()) {
            m_ladder->setState(
                row, m_startedRequests.contains(*it) ? State::Running : State::Queued, {});
            continue;
        }
        protocol::MeasureRequest request;
        request.script = script.toStdString();
        request.variant = variant.name;
        request.step = row;
        request.threads = m_settings.threads;
        request.check = true;
        request.repeat = m_settings.repeat;
        request.minRepeatMs = m_settings.minRepeatMs;
        if (needsProfile) request.profileSeconds = m_profileSeconds;
        ++m_ladderRuns;
        auto id = std::make_shared<int>(-1);
        *id =
            m_worker->submit(request, this, [this, id](const Reply<protocol::MeasureReply>& reply) {
                finishLadderRun(*id, reply);
            });
        m_ladderRequests.insert(*id, {key, row});
        if (!key.isEmpty()) m_pendingKeys.insert(key, *id);
        m_ladder->setState(row, State::Queued, {});
    }
    if (m_ladderRuns == 0) emit ladderFinished();
}

void RunController::ladderProgress(int id)
{
    const auto it = m_ladderRequests.constFind(id);
    if (it == m_ladderRequests.cend()) return;
    // The request's first progress message: its rows are no longer queued but running.
    m_startedRequests.insert(id);
    const std::vector<int> rows =
        it->key.isEmpty() ? std::vector<int>{it->row} : m_ladder->rowsOf(it->key);
    for (int row : rows)
        if (m_ladder->stateOf(row) == LadderModel::State::Queued)
            m_ladder->setState(row, LadderModel::State::Running, {});
}

void RunController::finishLadderRun(int id, const Reply<protocol::MeasureReply>& reply)
{
    --m_ladderRuns;
    const LadderRequest request = m_ladderRequests.take(id);
    const QString& key = request.key;
    m_startedRequests.remove(id);
    if (!key.isEmpty() && m_pendingKeys.value(key, -1) == id) m_pendingKeys.remove(key);
    // The rows with the step's key now (the user may have changed variants meanwhile).
    const std::vector<int> rows =
        key.isEmpty() ? std::vector<int>{request.row} : m_ladder->rowsOf(key);
    const auto setState = [&](LadderModel::State state, const QString& message) {
        for (int row : rows)
            m_ladder->setState(row, state, message);
    };
    using Ending = Reply<protocol::MeasureReply>::Ending;
    switch (reply.ending) {
    case Ending::Answered: {
        const protocol::MeasureReply& r = reply.result;
        if (r.wrong()) {
            setState(LadderModel::State::Wrong, qs(r.firstMismatch));
            break;
        }
        LadderModel::Result result;
        if (r.timing) {
            const protocol::Timing& t = *r.timing;
            result.medianMs = t.msMedian;
            result.minMs = t.msMin;
            result.maxMs = t.msMax;
            result.gflops = t.gflops;
            // A GPU step's reference, timed in turns with it on the GPU.
            if (t.copyGbs > 0)
                result.reference = tr("Device copy: %1 GB/s; this step moves %2 GB/s (%3x)")
                                       .arg(t.copyGbs, 0, 'f', 0)
                                       .arg(t.kernelGbs, 0, 'f', 0)
                                       .arg(t.kernelGbs / t.copyGbs, 0, 'f', 2);
            else if (t.referenceMs > 0 && t.msMedian > 0)
                result.reference = tr("%1: %2 ms; this step %3x")
                                       .arg(qs(t.reference))
                                       .arg(t.referenceMs, 0, 'f', 3)
                                       .arg(t.referenceMs / t.msMedian, 0, 'f', 2);
        }
        result.checked = r.checked;
        for (const protocol::CheckedOutput& c : r.checks)
            if (!c.skipped.empty() && result.uncompared.isEmpty())
                result.uncompared = qs(c.tensor) + QStringLiteral(": ") + qs(c.skipped);
        result.cpu = qs(m_machine.machine.cpu);
        // A GPU variant: timed on the runner's GPU, or checked on this CPU where there is none.
        for (const std::string& note : r.notes) {
            const QString n = qs(note);
            if (n.startsWith(QStringLiteral("no GPU here"))) result.untimed = n;
            if (n.startsWith(QStringLiteral("ran on ")))
                result.cpu = n.mid(7).section(QStringLiteral(" (compiled"), 0, 0);
        }
        result.measuredAt = QDateTime::currentDateTimeUtc();
        if (r.profile && r.profile->error.empty()) {
            const protocol::StepProfile& p = *r.profile;
            if (p.counters) {
                result.counters = tr("IPC %1").arg(p.ipc, 0, 'f', 2);
                // Misses per 1000 instructions, where they were counted.
                const auto perKi = [&](std::int64_t misses) {
                    return double(misses) / double(p.instructionsRetired) * 1000;
                };
                if (p.instructionsRetired > 0 && p.l1dMisses >= 0)
                    result.counters += tr(" · L1D %1/ki").arg(perKi(p.l1dMisses), 0, 'f', 1);
                if (p.instructionsRetired > 0 && p.llcMisses >= 0)
                    result.counters += tr(" · LLC %1/ki").arg(perKi(p.llcMisses), 0, 'f', 2);
            } else if (!m_countersNoted) {
                // Said once, not shown as zeros on every row.
                m_countersNoted = true;
                emit statusMessage(tr("Ladder: %1").arg(qs(p.countersUnavailable)), 15000);
            }
        }
        if (r.profile) {
            if (!r.profile->error.empty())
                emit statusMessage(tr("Could not profile: %1").arg(qs(r.profile->error)), 10000);
            else if (!key.isEmpty())
                m_profiles.insert(key, *r.profile);
        }
        if (r.timing) m_ladderStore->add(key, result);
        for (int row : rows)
            m_ladder->setResult(row, result);
        emit compiled(r.compileMs);
        if (r.profile && r.profile->error.empty() && !key.isEmpty()) emit profileReady(key);
        break;
    }
    case Ending::Refused:
    case Ending::Failed: setState(LadderModel::State::Failed, reply.message()); break;
    case Ending::Cancelled:
        // cancelAll() says when the ladder is finished.
        setState(LadderModel::State::NotRun, tr("cancelled"));
        return;
    }
    if (m_ladderRuns == 0) emit ladderFinished();
}

void RunController::cancelAll()
{
    m_worker->cancelAll();
    emit ladderFinished();
}

// ---- code ----

void RunController::requestCode(const QString& script, const QString& variant, int step,
                                const QString& format, const QString& target)
{
    if (m_codeRequest >= 0) m_worker->cancel(m_codeRequest);
    protocol::EmitRequest request;
    request.script = script.toStdString();
    request.variant = variant.toStdString();
    request.step = step;
    request.format = format.toStdString();
    request.target = target.toStdString();
    // Assembly with its lines of TIR, for the views to link.
    request.lines = format == QStringLiteral("asm");
    // Ahead of queued ladder rows: the code shows after the row being measured, not after all.
    m_codeRequest =
        m_worker->submit(request, this,
                         [this, format](const Reply<protocol::EmitReply>& reply) {
                             m_codeRequest =
                                 -1; // a request replaced before it ended was cancelled first
                             if (reply.answered())
                                 emit codeReady(format, qs(reply.result.text));
                             else if (reply.refused())
                                 emit codeReady(format, qs(reply.error.message));
                         },
                         {.order = WorkerClient::Order::First});
}

void RunController::exportVariant(const QString& script, const QString& variant,
                                  const QString& format, const QString& sourceName)
{
    protocol::EmitRequest request;
    request.script = script.toStdString();
    request.variant = variant.toStdString();
    request.step = -1;
    request.format = format.toStdString();
    request.source = sourceName.toStdString();
    m_worker->submit(request, this,
                     [this, variant](const Reply<protocol::EmitReply>& reply) {
                         const protocol::EmitReply& r = reply.result;
                         if (reply.answered() && r.format == "obj")
                             emit objectReady(variant, QByteArray::fromStdString(r.data),
                                              qs(r.header), qs(r.suggestedFileName()));
                         else if (reply.answered())
                             emit exportReady(variant, qs(r.text), qs(r.suggestedFileName()));
                         else if (reply.refused())
                             emit exportRefused(qs(reply.error.message));
                     },
                     {.order = WorkerClient::Order::First});
}

// ---- sweeps and the machine ----

void RunController::startSweep(protocol::SweepRequest request, int timeLimitMs)
{
    if (m_sweepRequest >= 0) m_worker->cancel(m_sweepRequest);
    request.threads = m_settings.threads;
    request.repeat = m_settings.repeat;
    request.minRepeatMs = m_settings.minRepeatMs;
    m_sweepScript = qs(request.script);
    m_sweepParameters = worker::qsList(request.parameters);
    request.known = m_sweepStore->known(m_sweepScript, m_sweepParameters);
    emit sweepStarted(m_sweepParameters);
    emit aboutToRunCode();
    m_sweepRequest = m_worker->submit(
        request, this, [this](const protocol::SweepUpdate& p) { sweepPoint(p); },
        [this](const Reply<protocol::SweepReply>& reply) { finishSweep(reply); },
        {.timeLimitMs = timeLimitMs});
}

void RunController::sweepPoint(const protocol::SweepUpdate& progress)
{
    if (progress.point) m_sweepStore->add(m_sweepScript, m_sweepParameters, *progress.point);
    emit sweepProgressed(progress);
}

void RunController::finishSweep(const Reply<protocol::SweepReply>& reply)
{
    m_sweepRequest = -1;
    if (reply.answered()) {
        emit sweepAnswered(reply.result);
        m_sweepStore->save(); // the points were stored as their progress messages came
        if (!reply.result.blasNote.empty()) emit statusMessage(qs(reply.result.blasNote), 10000);
    } else if (reply.refused()) {
        emit statusMessage(tr("Sweep: %1").arg(qs(reply.error.message)), 10000);
    }
    emit sweepFinished();
}

void RunController::cancelSweep()
{
    if (m_sweepRequest >= 0) m_worker->cancel(m_sweepRequest); // the points stay
    m_sweepStore->save();
}

void RunController::measureMachine()
{
    if (m_machineRequest >= 0) return;
    protocol::MachineRequest request;
    request.threads = m_settings.threads;
    m_machineRequest =
        m_worker->submit(request, this,
                         [this](const Reply<protocol::MachineReply>& reply) {
                             m_machineRequest = -1;
                             if (reply.answered()) {
                                 emit machineMeasured(reply.result);
                                 emit statusMessage(tr("Peak %1 GFLOPS, memory bandwidth %2 GB/s")
                                                        .arg(reply.result.peakGflops, 0, 'f', 1)
                                                        .arg(reply.result.bandwidthGbs, 0, 'f', 1),
                                                    10000);
                             } else if (reply.refused()) {
                                 emit statusMessage(qs(reply.error.message), 10000);
                             }
                         },
                         {.timeLimitMs = 5 * 60 * 1000});
    emit statusMessage(tr("Measuring the machine's peak speed and memory bandwidth…"), 5000);
}

} // namespace loopscope
