#include "views/LadderStore.h"

#include "views/SafeFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QObject>

#include <algorithm>
#include <utility>
#include <vector>

namespace loopscope {

namespace {

constexpr int kVersion = 1;

QJsonObject encode(const LadderModel::Result& r)
{
    QJsonObject o{
        {QStringLiteral("median_ms"), r.medianMs},
        {QStringLiteral("min_ms"), r.minMs},
        {QStringLiteral("max_ms"), r.maxMs},
        {QStringLiteral("gflops"), r.gflops},
        {QStringLiteral("checked"), r.checked},
        {QStringLiteral("cpu"), r.cpu},
        {QStringLiteral("at"), r.measuredAt.toUTC().toString(Qt::ISODate)},
    };
    if (!r.counters.isEmpty()) o.insert(QStringLiteral("counters"), r.counters);
    return o;
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
    r.counters = o.value(QLatin1String("counters")).toString();
    r.measuredAt = QDateTime::fromString(o.value(QLatin1String("at")).toString(), Qt::ISODate);
    r.earlier = true;
    if (r.medianMs <= 0) return std::nullopt;
    return r;
}

// The file's scripts as this version writes them: script path -> {step key -> measurement}.
bool wellFormed(const QJsonValue& scripts)
{
    if (!scripts.isObject()) return false;
    for (const QJsonValue& measurements : scripts.toObject()) {
        if (!measurements.isObject()) return false;
        for (const QJsonValue& measurement : measurements.toObject())
            if (!measurement.isObject()) return false;
    }
    return true;
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

QString LadderStore::takeNotice()
{
    return std::exchange(m_notice, QString());
}

void LadderStore::load()
{
    if (m_file.isEmpty()) return;
    QFile f(m_file);
    if (!f.open(QIODevice::ReadOnly)) return;
    const std::optional<QJsonObject> root = parseJsonObject(f.readAll());
    f.close();
    const QJsonValue version = root ? root->value(QLatin1String("version")) : QJsonValue();
    // Another version's file (a number) is replaced by this one's at the next save.
    if (version.isDouble() && version.toInt() != kVersion) return;
    const QJsonValue scripts = root ? root->value(QLatin1String("scripts")) : QJsonValue();
    if (!version.isDouble() || !wellFormed(scripts)) {
        bool setAside = false;
        m_notice = setAsideDamagedFile(m_file, QObject::tr("the ladder's saved measurements"),
                                       QObject::tr("the ladder starts without them"), &setAside);
        if (!setAside) m_file.clear(); // never written over: this session keeps them in memory
        return;
    }
    m_saved = scripts.toObject();
}

bool LadderStore::save() const
{
    if (m_file.isEmpty()) return false;
    QDir().mkpath(QFileInfo(m_file).absolutePath());
    const QJsonObject root{{QStringLiteral("version"), kVersion},
                           {QStringLiteral("scripts"), m_saved}};
    return replaceWhole(m_file, QJsonDocument(root).toJson(QJsonDocument::Compact));
}

} // namespace loopscope
