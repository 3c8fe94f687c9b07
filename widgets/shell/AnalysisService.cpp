#include "shell/AnalysisService.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace loopscope {

AnalysisService::AnalysisService(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<ExplorationPtr>();
    m_debounce.setSingleShot(true);
    // Zero: the next turn of the event loop, so edits made together are analyzed once; edits
    // typed while an analysis runs wait for it and are analyzed together.
    m_debounce.setInterval(0);
    connect(&m_debounce, &QTimer::timeout, this, &AnalysisService::start);
}

void AnalysisService::setOverrides(std::map<std::string, std::int64_t> overrides)
{
    m_overrides = std::move(overrides);
    analyzeNow();
}

void AnalysisService::setDetailVariant(const QString& name)
{
    if (name == m_detail) return;
    m_detail = name;
    analyzeNow();
}

void AnalysisService::scriptChanged(const QString& text)
{
    m_text = text;
    ++m_generation;
    m_debounce.start();
}

void AnalysisService::analyzeNow()
{
    ++m_generation;
    m_debounce.stop();
    start();
}

void AnalysisService::start()
{
    // One analysis at a time: a newer request waits, and only the newest waiting one runs.
    if (m_running) {
        m_pending = true;
        return;
    }
    m_running = true;
    m_pending = false;
    emit busyChanged(true);
    m_runText = m_text.toStdString();
    m_runDetail = m_detail.toStdString();
    run(!m_runDetail.empty());
}

void AnalysisService::run(bool detailOnly)
{
    const quint64 generation = m_generation;
    auto* watcher = new QFutureWatcher<ExplorationPtr>(this);
    connect(watcher, &QFutureWatcher<ExplorationPtr>::finished, this,
            [this, watcher, generation, detailOnly] {
                watcher->deleteLater();
                finished(generation, detailOnly, watcher->result());
            });
    watcher->setFuture(QtConcurrent::run([text = m_runText, overrides = m_overrides,
                                          detail = m_runDetail, detailOnly]() -> ExplorationPtr {
        // A bug in the core must not take the window (and the user's text) with it: it
        // shows as the script's error instead.
        try {
            return std::make_shared<const Exploration>(
                explore(text, overrides, detail, detailOnly));
        } catch (const std::exception& e) {
            auto failed = std::make_shared<Exploration>();
            failed->error.message = e.what();
            return failed;
        }
    }));
}

void AnalysisService::finished(quint64 generation, bool detailOnly, ExplorationPtr result)
{
    const bool current = generation == m_generation && !m_pending;
    if (detailOnly && current && !result->complete) {
        // The variant a user looks at now; every variant next, unless an edit came meanwhile.
        emit detailReady(result);
        // Asked again: whoever took the result may have asked for a new analysis meanwhile.
        if (generation == m_generation && !m_pending) {
            run(false);
            return;
        }
    }
    m_running = false;
    if (generation == m_generation && (!detailOnly || result->complete)) {
        m_latest = result;
        emit analysisReady(result);
    }
    if (m_pending || generation != m_generation) {
        start();
        return;
    }
    emit busyChanged(false);
}

} // namespace loopscope
