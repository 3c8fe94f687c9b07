// The sweep points the app has seen measured, kept by (the variant's key, swept parameters,
// variant, values, threads) and saved in the app's data folder, so that a cancelled sweep (which
// restarts the worker and loses its memory), a new sweep with one more variant, an edit of
// another variant, or the next session does not measure a known point again: the known points go
// with every sweep request, and the charts show them when the script is opened.
//
// A variant's key is a hash over the text that decides what it computes, read as tokens (so
// comments, blank lines and spacing do not count): the declarations before its last statement
// (parameters, placeholders, computes, wherever they are written, a swept parameter's own
// value left out) and its own block, from its te.create_schedule to its last statement. Another
// variant's schedule statements (those naming its schedule) do not count, so an edit there
// leaves this variant's points known.
//
// A damaged file is set aside (views/SafeFile.h), never written over.
#pragma once

#include "protocol/Messages.h"

#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <vector>

namespace loopscope {

class SweepStore {
public:
    // `file`: where the points are kept between sessions (empty: in memory only).
    explicit SweepStore(QString file = {});

    // A point of a worker's sweep (a progress message's or the result's). Points that were not
    // run (skipped before running) are not kept: they depend on the per-point limit, not on the
    // machine.
    void add(const QString& script, const QStringList& parameters,
             const protocol::SweepPoint& point);
    // The kept points of this script and these swept parameters, oldest first, for a request's
    // `known` (none of them marked cached).
    std::vector<protocol::SweepPoint> known(const QString& script,
                                            const QStringList& parameters) const;

    int size() const { return static_cast<int>(m_points.size()); }

    // Each variant's key in this script when these parameters are swept ("OpenBLAS": the
    // declarations alone). Empty when the script does not evaluate.
    static QHash<QString, QString> variantKeys(const QString& script,
                                               const QStringList& parameters);
    void clear();
    // Writes the file (after a sweep ends; also done by add() every few points).
    bool save() const;

    // The message for the user when the file was damaged (and set aside, or left alone and not
    // used): once, then empty.
    QString takeNotice();

    // At most this many points are kept; the oldest go first.
    static constexpr int kMaxPoints = 20000;

private:
    // The key a variant's points are kept under: its own key, or the whole text's hash when the
    // script does not evaluate.
    QString group(const QString& script, const QStringList& parameters,
                  const QString& variant) const;
    void load();

    QString m_file;
    QString m_notice;
    // A point as kept: its group, and its form in the file (the codec's, with the group).
    struct Kept {
        QString group;
        protocol::SweepPoint point;
        QJsonObject stored;
    };
    QHash<QString, Kept> m_points; // key: "group|variant|values|threads"
    QStringList m_order;           // every key, oldest first
    mutable int m_unsaved = 0;
    // The keys of the last script asked about (a sweep asks for every point).
    mutable QString m_keysScript;
    mutable QStringList m_keysParameters;
    mutable QHash<QString, QString> m_keys;
};

} // namespace loopscope
