#include "charts/SweepStore.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>

namespace loopscope {

namespace {

QString pointKey(const QString& group, const QJsonObject& point)
{
    QStringList values;
    for (const QJsonValue& v : point.value(QLatin1String("values")).toArray())
        values << QString::number(v.toInteger());
    return group + u'|' + point.value(QLatin1String("variant")).toString() + u'|' +
           values.join(u',') + u'|' +
           QString::number(point.value(QLatin1String("threads")).toInt());
}

bool worthKeeping(const QJsonObject& point)
{
    if (point.value(QLatin1String("variant")).toString().isEmpty()) return false;
    if (point.value(QLatin1String("values")).toArray().isEmpty()) return false;
    if (point.value(QLatin1String("threads")).toInt() < 1) return false;
    // Skipped without running: a prediction from the limit, not a measurement.
    if (point.value(QLatin1String("skipped")).toBool() &&
        point.value(QLatin1String("run_ms")).toDouble() <= 0)
        return false;
    return true;
}

} // namespace

SweepStore::SweepStore(QString file) : m_file(std::move(file))
{
    load();
}

QString SweepStore::group(const QString& script, const QStringList& parameters)
{
    const QByteArray hash =
        QCryptographicHash::hash(script.toUtf8(), QCryptographicHash::Sha256).toHex();
    return QString::fromLatin1(hash) + u'|' + parameters.join(u',');
}

void SweepStore::add(const QString& script, const QStringList& parameters, const QJsonObject& point)
{
    if (!worthKeeping(point)) return;
    const QString g = group(script, parameters);
    QJsonObject kept = point;
    kept.remove(QLatin1String("cached"));
    kept.insert(QLatin1String("group"), g);
    const QString key = pointKey(g, kept);
    if (!m_points.contains(key)) m_order << key;
    m_points.insert(key, kept);
    while (m_order.size() > kMaxPoints)
        m_points.remove(m_order.takeFirst());
    if (++m_unsaved >= 16) save();
}

QJsonArray SweepStore::known(const QString& script, const QStringList& parameters) const
{
    QJsonArray out;
    const QString prefix = group(script, parameters) + u'|';
    for (const QString& key : m_order) {
        if (!key.startsWith(prefix)) continue;
        QJsonObject p = m_points.value(key);
        p.remove(QLatin1String("group"));
        out.append(p);
    }
    return out;
}

void SweepStore::clear()
{
    m_points.clear();
    m_order.clear();
    save();
}

bool SweepStore::save() const
{
    m_unsaved = 0;
    if (m_file.isEmpty()) return true;
    QDir().mkpath(QFileInfo(m_file).absolutePath());
    QJsonArray points;
    for (const QString& key : m_order)
        points.append(m_points.value(key));
    QSaveFile file(m_file);
    if (!file.open(QIODevice::WriteOnly)) return false;
    file.write(QJsonDocument(
                   QJsonObject{{QStringLiteral("version"), 1}, {QStringLiteral("points"), points}})
                   .toJson(QJsonDocument::Compact));
    return file.commit();
}

void SweepStore::load()
{
    if (m_file.isEmpty()) return;
    QFile file(m_file);
    if (!file.open(QIODevice::ReadOnly)) return;
    const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    if (root.value(QLatin1String("version")).toInt() != 1) return; // unknown or damaged: start anew
    for (const QJsonValue& v : root.value(QLatin1String("points")).toArray()) {
        const QJsonObject p = v.toObject();
        const QString g = p.value(QLatin1String("group")).toString();
        if (g.isEmpty() || !worthKeeping(p)) continue;
        const QString key = pointKey(g, p);
        if (m_points.contains(key)) continue;
        m_points.insert(key, p);
        m_order << key;
    }
}

} // namespace loopscope
