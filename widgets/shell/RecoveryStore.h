// Autosave of the text being edited to a recovery file, offered back when the app starts after a
// crash. The recovery file disappears when the text is saved or the app closes normally.
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

    void setIntervalMs(int ms) { m_timer.setInterval(ms); }
    // The text changed; it is written after the interval (coalescing edits).
    void textChanged(const QString& documentPath, const QString& text);
    // Write now (e.g. before running generated code).
    void flush();
    // The document was saved or closed normally: nothing to recover.
    void clear();

    struct Recovery {
        bool available = false;
        QString documentPath; // empty for an untitled document
        QString text;
        QString savedAt; // ISO date of the autosave
    };
    // What a previous session left behind.
    Recovery pending() const;

private:
    QString recoveryFile() const;

    QString m_directory;
    QTimer m_timer;
    QString m_path;
    QString m_text;
    bool m_dirty = false;
};

} // namespace loopscope
