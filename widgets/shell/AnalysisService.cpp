#include "shell/AnalysisService.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace loopscope {

AnalysisService::AnalysisService(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<ExplorationPtr>();
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(40);
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
    quint64 generation = m_generation;
    std::string text = m_text.toStdString();
    auto overrides = m_overrides;
    std::string detail = m_detail.toStdString();
    auto* watcher = new QFutureWatcher<ExplorationPtr>(this);
    connect(watcher, &QFutureWatcher<ExplorationPtr>::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        finished(generation, watcher->result());
    });
    watcher->setFuture(QtConcurrent::run([text, overrides, detail]() -> ExplorationPtr {
        // A bug in the core must not take the window (and the user's text) with it: it shows as
        // the script's error instead.
        try {
            return std::make_shared<const Exploration>(explore(text, overrides, detail));
        } catch (const std::exception& e) {
            auto failed = std::make_shared<Exploration>();
            failed->error.message = e.what();
            return failed;
        }
    }));
}

void AnalysisService::finished(quint64 generation, ExplorationPtr result)
{
    m_running = false;
    if (generation == m_generation) {
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
