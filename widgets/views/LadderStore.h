// The ladder's measurements, kept by step key (LadderModel::stepKey): those of this session for
// every script, so a step several variants share (every variant's untransformed loop nest) is
// measured once, and those of earlier sessions by script path, saved in the app's data folder, so
// a script reopened tomorrow shows its last measurements, marked as an earlier run on the CPU
// they ran on. A damaged file is set aside (views/SafeFile.h), never written over.
#pragma once

#include "views/LadderModel.h"

#include <QHash>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace loopscope {

class LadderStore {
public:
    // `file`: where the measurements are kept between sessions (empty: in memory only).
    explicit LadderStore(QString file = {});

    // The script whose earlier measurements are offered, and under which new ones are saved
    // (empty: an unsaved script, whose measurements last for the session only).
    void setScript(const QString& path);
    QString script() const { return m_script; }

    // This session's measurement of the step, else the script's from an earlier session
    // (marked `earlier`).
    std::optional<LadderModel::Result> find(const QString& key) const;
    // A measurement of this session; saved under the script at once.
    void add(const QString& key, const LadderModel::Result& result);

    // The message for the user when the file was damaged (and set aside, or left alone and not
    // used): once, then empty.
    QString takeNotice();

    // At most this many measurements per script and this many scripts are kept; the oldest go.
    static constexpr int kMaxPerScript = 400;
    static constexpr int kMaxScripts = 100;

private:
    void load();
    bool save() const;

    QString m_file;
    QString m_notice;
    QString m_script;
    QHash<QString, LadderModel::Result> m_session; // key -> this session's measurement
    QJsonObject m_saved; // script path -> {key -> measurement}, as in the file
};

} // namespace loopscope
