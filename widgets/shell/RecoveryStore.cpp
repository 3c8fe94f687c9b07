#include "shell/RecoveryStore.h"

#include "views/SafeFile.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

namespace loopscope {

RecoveryStore::RecoveryStore(QString directory, QObject* parent)
    : QObject(parent), m_directory(std::move(directory))
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(kDefaultIntervalMs);
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
    if (replaceWhole(recoveryFile(), QJsonDocument(o).toJson(QJsonDocument::Compact))) {
        m_dirty = false;
        m_owned = true;
    }
}

void RecoveryStore::clear()
{
    m_timer.stop();
    m_dirty = false;
    if (m_owned) QFile::remove(recoveryFile());
    m_owned = false;
}

RecoveryStore::Recovery RecoveryStore::pending()
{
    Recovery r;
    QFile f(recoveryFile());
    if (!f.open(QIODevice::ReadOnly)) return r;
    const std::optional<QJsonObject> o = parseJsonObject(f.readAll());
    f.close();
    auto isText = [&o](const char* key) {
        const QJsonValue v = o->value(QLatin1String(key));
        return v.isString() || v.isUndefined();
    };
    if (!o || !o->value(QLatin1String("text")).isString() || !isText("path") ||
        !isText("savedAt")) {
        r.damage =
            setAsideDamagedFile(recoveryFile(), QObject::tr("the autosaved text"),
                                QObject::tr("there is no text to recover (what could be read "
                                            "is in that file)"));
        return r;
    }
    m_owned = true;
    r.available = true;
    r.documentPath = o->value(QStringLiteral("path")).toString();
    r.text = o->value(QStringLiteral("text")).toString();
    r.savedAt = o->value(QStringLiteral("savedAt")).toString();
    return r;
}

} // namespace loopscope
