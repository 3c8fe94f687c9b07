#include "views/LadderStore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>

#include <algorithm>
#include <utility>
#include <vector>

namespace loopscope {

namespace {

constexpr int kVersion = 1;

QJsonObject encode(const LadderModel::Result& r)
{
    return QJsonObject{
        {QStringLiteral("median_ms"), r.medianMs},
        {QStringLiteral("min_ms"), r.minMs},
        {QStringLiteral("max_ms"), r.maxMs},
        {QStringLiteral("gflops"), r.gflops},
        {QStringLiteral("checked"), r.checked},
        {QStringLiteral("cpu"), r.cpu},
        {QStringLiteral("at"), r.measuredAt.toUTC().toString(Qt::ISODate)},
    };
}

std::optional<LadderModel::Result> decode(const QJsonValue& value)
{
    if (!value.isObject()) return std::nullopt;
    const QJsonObject o = value.toObject();
    LadderModel::Result r;
    r.medianMs = o.value(QLatin1String("median_ms")).toDouble();
    r.minMs = o.value(QLatin1String("min_ms")).toDouble();
    r.maxMs = o.value(QLatin1String("max_ms")).toDouble();
    r.gflops = o.value(QLatin1String("gflops")).toDouble();
    r.checked = o.value(QLatin1String("checked")).toBool();
    r.cpu = o.value(QLatin1String("cpu")).toString();
    r.measuredAt = QDateTime::fromString(o.value(QLatin1String("at")).toString(), Qt::ISODate);
    r.earlier = true;
    if (r.medianMs <= 0) return std::nullopt;
    return r;
}

QString latest(const QJsonObject& measurements)
{
    QString last;
    for (auto it = measurements.begin(); it != measurements.end(); ++it) {
        const QString at = it->toObject().value(QLatin1String("at")).toString();
        if (at > last) last = at; // ISO dates in UTC sort as text
    }
    return last;
}

// Drops the oldest entries of `object` until it has at most `limit`, by `when` (ISO text).
template <typename When> void keepNewest(QJsonObject& object, int limit, When when)
{
    if (object.size() <= limit) return;
    std::vector<std::pair<QString, QString>> byAge; // (when, key)
    for (auto it = object.begin(); it != object.end(); ++it)
        byAge.emplace_back(when(it.value()), it.key());
    std::sort(byAge.begin(), byAge.end());
    for (std::size_t i = 0; i + std::size_t(limit) < byAge.size(); ++i)
        object.remove(byAge[i].second);
}

} // namespace

LadderStore::LadderStore(QString file) : m_file(std::move(file))
{
    load();
}

void LadderStore::setScript(const QString& path)
{
    m_script = path.isEmpty() ? QString() : QFileInfo(path).absoluteFilePath();
}

std::optional<LadderModel::Result> LadderStore::find(const QString& key) const
{
    if (key.isEmpty()) return std::nullopt;
    if (auto it = m_session.constFind(key); it != m_session.constEnd()) return *it;
    if (m_script.isEmpty()) return std::nullopt;
    return decode(m_saved.value(m_script).toObject().value(key));
}

void LadderStore::add(const QString& key, const LadderModel::Result& result)
{
    if (key.isEmpty()) return;
    LadderModel::Result r = result;
    r.earlier = false;
    if (!r.measuredAt.isValid()) r.measuredAt = QDateTime::currentDateTimeUtc();
    m_session.insert(key, r);
    if (m_script.isEmpty()) return;
    load(); // another window may have saved since
    QJsonObject measurements = m_saved.value(m_script).toObject();
    measurements.insert(key, encode(r));
    keepNewest(measurements, kMaxPerScript, [](const QJsonValue& v) {
        return v.toObject().value(QLatin1String("at")).toString();
    });
    m_saved.insert(m_script, measurements);
    keepNewest(m_saved, kMaxScripts, [](const QJsonValue& v) { return latest(v.toObject()); });
    save();
}

void LadderStore::load()
{
    if (m_file.isEmpty()) return;
    QFile f(m_file);
    if (!f.open(QIODevice::ReadOnly)) return;
    const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
    if (root.value(QLatin1String("version")).toInt() != kVersion) return;
    m_saved = root.value(QLatin1String("scripts")).toObject();
}

bool LadderStore::save() const
{
    if (m_file.isEmpty()) return false;
    QDir().mkpath(QFileInfo(m_file).absolutePath());
    QSaveFile f(m_file);
    if (!f.open(QIODevice::WriteOnly)) return false;
    const QJsonObject root{{QStringLiteral("version"), kVersion},
                           {QStringLiteral("scripts"), m_saved}};
    f.write(QJsonDocument(root).toJson(QJsonDocument::Compact));
    return f.commit();
}

} // namespace loopscope
