#include "shell/RecoveryStore.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace loopscope {

RecoveryStore::RecoveryStore(QString directory, QObject* parent)
    : QObject(parent), m_directory(std::move(directory))
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(2000);
    connect(&m_timer, &QTimer::timeout, this, &RecoveryStore::flush);
}

QString RecoveryStore::recoveryFile() const
{
    return QDir(m_directory).filePath(QStringLiteral("recovery.json"));
}

void RecoveryStore::textChanged(const QString& documentPath, const QString& text)
{
    m_path = documentPath;
    m_text = text;
    m_dirty = true;
    if (!m_timer.isActive()) m_timer.start();
}

void RecoveryStore::flush()
{
    m_timer.stop();
    if (!m_dirty) return;
    QDir().mkpath(m_directory);
    QJsonObject o{{QStringLiteral("path"), m_path},
                  {QStringLiteral("text"), m_text},
                  {QStringLiteral("savedAt"), QDateTime::currentDateTime().toString(Qt::ISODate)}};
    QSaveFile f(recoveryFile());
    if (f.open(QIODevice::WriteOnly)) {
        f.write(QJsonDocument(o).toJson(QJsonDocument::Compact));
        if (f.commit()) m_dirty = false;
    }
}

void RecoveryStore::clear()
{
    m_timer.stop();
    m_dirty = false;
    QFile::remove(recoveryFile());
}

RecoveryStore::Recovery RecoveryStore::pending() const
{
    Recovery r;
    QFile f(recoveryFile());
    if (!f.open(QIODevice::ReadOnly)) return r;
    QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    if (!o.contains(QStringLiteral("text"))) return r;
    r.available = true;
    r.documentPath = o.value(QStringLiteral("path")).toString();
    r.text = o.value(QStringLiteral("text")).toString();
    r.savedAt = o.value(QStringLiteral("savedAt")).toString();
    return r;
}

} // namespace loopscope
