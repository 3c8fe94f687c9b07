#include "views/SafeFile.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>

namespace loopscope {

bool writeWhole(QSaveFile& file, const QByteArray& bytes)
{
    // Unbuffered: each write goes to the system at once, so a short one is seen here and the
    // next one says why (ENOSPC, EFBIG), which makes the commit fail.
    if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered)) return false;
    qint64 written = 0;
    while (written < bytes.size()) {
        const qint64 n = file.write(bytes.constData() + written, bytes.size() - written);
        // Not committed: the temporary file goes with `file`, whose error says why.
        if (n <= 0) return false;
        written += n;
    }
    return file.commit();
}

std::optional<QJsonObject> parseJsonObject(const QByteArray& bytes)
{
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject()) return std::nullopt;
    return document.object();
}

QString setAsideDamagedFile(const QString& file, const QString& what, const QString& consequence,
                            bool* setAside)
{
    const QString stamp = QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-hhmmss"));
    QString aside = file + QStringLiteral(".corrupt-") + stamp;
    for (int n = 2; QFile::exists(aside); ++n)
        aside = file + QStringLiteral(".corrupt-") + stamp + u'-' + QString::number(n);
    QFile damaged(file);
    const bool renamed = damaged.rename(aside);
    if (setAside) *setAside = renamed;
    if (!renamed)
        return QCoreApplication::translate("SafeFile",
                                           "Could not read %1 from %2: the file is damaged, and it "
                                           "cannot be set aside (%3). It is left as it is and not "
                                           "used in this session; %4.")
            .arg(what, QDir::toNativeSeparators(file), damaged.errorString(), consequence);
    return QCoreApplication::translate("SafeFile",
                                       "Could not read %1 from %2: the file is damaged. It was set "
                                       "aside as %3; %4.")
        .arg(what, QDir::toNativeSeparators(file), QDir::toNativeSeparators(aside), consequence);
}

} // namespace loopscope
