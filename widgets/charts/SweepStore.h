// The sweep points the app has seen measured, kept by (script text, swept parameters, variant,
// values, threads) and saved in the app's data folder, so that a cancelled sweep (which restarts
// the worker and loses its memory), a new sweep with one more variant, or the next session does
// not measure a known point again: the known points go with every sweep request.
#pragma once

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace loopscope {

class SweepStore {
public:
    // `file`: where the points are kept between sessions (empty: in memory only).
    explicit SweepStore(QString file = {});

    // A point of a worker "sweep" message or result. Points that were not run (skipped before
    // running) are not kept: they depend on the per-point limit, not on the machine.
    void add(const QString& script, const QStringList& parameters, const QJsonObject& point);
    // The kept points of this script and these swept parameters, for a request's "known".
    QJsonArray known(const QString& script, const QStringList& parameters) const;

    int size() const { return static_cast<int>(m_points.size()); }
    void clear();
    // Writes the file (after a sweep ends; also done by add() every few points).
    bool save() const;

    // At most this many points are kept; the oldest go first.
    static constexpr int kMaxPoints = 20000;

private:
    static QString group(const QString& script, const QStringList& parameters);
    void load();

    QString m_file;
    QHash<QString, QJsonObject> m_points; // key: "group|variant|values|threads"
    QStringList m_order;                  // every key, oldest first
    mutable int m_unsaved = 0;
};

} // namespace loopscope
