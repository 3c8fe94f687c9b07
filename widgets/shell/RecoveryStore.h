// Autosave of the text being edited to a recovery file, offered back when the app starts after a
// crash. The file is written at most one interval (2 s) after an edit that is not in it yet (and
// at once before generated code runs), atomically, so a session that ends at any moment loses at
// most the edits of its last interval. The new text replaces the file as soon as it is written,
// without waiting for the disk (views/SafeFile.h replaceWhole), so a slow or busy disk neither
// stalls typing nor widens what a crash of the app can lose. The recovery file disappears when the
// text is saved or the app closes normally, unless it is another session's that this one has not
// offered yet. A recovery file that cannot be read is set aside (views/SafeFile.h), never written
// over.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

namespace loopscope {

class RecoveryStore : public QObject {
    Q_OBJECT
public:
    // `directory`: where recovery files live (the app's data location in production).
    explicit RecoveryStore(QString directory, QObject* parent = nullptr);

    static constexpr int kDefaultIntervalMs = 2000;
    void setIntervalMs(int ms) { m_timer.setInterval(ms); }
    int intervalMs() const { return m_timer.interval(); }
    // The text changed; it is written after the interval (coalescing edits).
    void textChanged(const QString& documentPath, const QString& text);
    // Write now (e.g. before running generated code).
    void flush();
    // The document was saved or closed normally: nothing to recover (a file this session has
    // neither written nor offered stays for the next one).
    void clear();

    struct Recovery {
        bool available = false;
        QString documentPath; // empty for an untitled document
        QString text;
        QString savedAt; // ISO date of the autosave
        // Set when the file was damaged: the message for the user (the file was set aside).
        QString damage;
    };
    // What a previous session left behind. From then on the file is this session's: clear()
    // removes it.
    Recovery pending();

private:
    QString recoveryFile() const;

    QString m_directory;
    QTimer m_timer;
    QString m_path;
    QString m_text;
    bool m_dirty = false;
    bool m_owned = false; // the file is this session's to remove: written or offered by it
};

} // namespace loopscope
