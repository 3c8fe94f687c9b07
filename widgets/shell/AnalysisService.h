// Evaluates and lowers the script off the UI thread after every edit. Results are immutable values;
// a result superseded by a newer edit is dropped, never shown. With a detail variant, an edit is
// analyzed in two passes: that variant first (detailReady), then every variant (analysisReady).
#pragma once

#include "explore/Explorer.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <map>
#include <memory>

namespace loopscope {

class AnalysisService : public QObject {
    Q_OBJECT
public:
    explicit AnalysisService(QObject* parent = nullptr);

    void setDebounceMs(int ms) { m_debounce.setInterval(ms); }
    void setOverrides(std::map<std::string, std::int64_t> overrides);
    // The variant whose every step is lowered (the others: their final step only).
    void setDetailVariant(const QString& name);

    // A new text: analyzed after the debounce interval, unless another edit comes first.
    void scriptChanged(const QString& text);
    // Analyze the current text now (e.g. after opening a file).
    void analyzeNow();

    ExplorationPtr latest() const { return m_latest; }
    bool busy() const { return m_running; }

signals:
    // The detail variant's steps, lowered; the other variants evaluated only (complete false).
    void detailReady(loopscope::ExplorationPtr result);
    // Every variant: the result of the edit.
    void analysisReady(loopscope::ExplorationPtr result);
    void busyChanged(bool busy);

private:
    void start();
    void run(bool detailOnly);
    void finished(quint64 generation, bool detailOnly, ExplorationPtr result);

    QTimer m_debounce;
    QString m_text;
    std::map<std::string, std::int64_t> m_overrides;
    QString m_detail;
    std::string m_runText; // what the running analysis reads
    std::string m_runDetail;
    quint64 m_generation = 0; // of the newest request
    bool m_running = false;
    bool m_pending = false; // a newer request waits for the running one
    ExplorationPtr m_latest;
};

} // namespace loopscope

Q_DECLARE_METATYPE(loopscope::ExplorationPtr)
