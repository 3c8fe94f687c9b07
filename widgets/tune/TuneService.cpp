#include "tune/TuneService.h"

#include "worker/WorkerClient.h"

namespace loopscope {

TuneService::TuneService(QObject* parent) : QObject(parent), m_worker(new WorkerClient(this)) {}

void TuneService::start(const protocol::TuneRequest& request)
{
    if (running()) cancel();
    // The budget and a margin: the measurements of a slow candidate, the reference line, the
    // final re-measurements.
    const double budgetS = request.seconds > 0 ? request.seconds : 0;
    const double trialsS = request.trials * 40.0;
    const int timeLimitMs =
        static_cast<int>(std::min(24.0 * 3600, std::max(budgetS, trialsS) + 600) * 1000);
    const int id = m_worker->submit(
        request, this, [this](const protocol::TuneUpdate& p) { emit progress(p); },
        [this](const worker::Reply<protocol::TuneReply>& reply) {
            m_id = -1;
            emit runningChanged(false);
            if (reply.answered())
                emit finished(reply.result);
            else if (reply.cancelled())
                emit cancelled();
            else
                emit failed(reply.message());
        },
        {.timeLimitMs = timeLimitMs});
    m_id = id;
    emit runningChanged(true);
}

void TuneService::cancel()
{
    if (m_id >= 0) m_worker->cancel(m_id);
}

} // namespace loopscope
