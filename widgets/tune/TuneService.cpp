#include "tune/TuneService.h"

#include "worker/WorkerClient.h"

namespace loopscope {

TuneService::TuneService(QObject* parent) : QObject(parent), m_worker(new WorkerClient(this)) {}

void TuneService::start(const worker::TuneRequest& request)
{
    if (running()) cancel();
    worker::TuneRequest r = request;
    // The budget and a margin: the measurements of a slow candidate, the reference line, the
    // final re-measurements.
    if (r.timeLimitMs == 0) {
        const double budgetS = r.seconds > 0 ? r.seconds : 0;
        const double trialsS = r.trials * 40.0;
        r.timeLimitMs =
            static_cast<int>(std::min(24.0 * 3600, std::max(budgetS, trialsS) + 600) * 1000);
    }
    const int id = m_worker->submit(
        r, this, [this](const worker::TuneProgress& p) { emit progress(p); },
        [this](const worker::Reply<worker::TuneResult>& reply) {
            m_id = -1;
            emit runningChanged(false);
            if (reply.answered())
                emit finished(reply.result);
            else if (reply.cancelled())
                emit cancelled();
            else
                emit failed(reply.message());
        });
    m_id = id;
    emit runningChanged(true);
}

void TuneService::cancel()
{
    if (m_id >= 0) m_worker->cancel(m_id);
}

} // namespace loopscope
