#include "charts/SweepStore.h"

#include "protocol/Codec.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QObject>

#include "te/Lexer.h"
#include "te/Program.h"
#include "views/SafeFile.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace loopscope {

namespace {

// The file's format: version 2 keeps points by variant key (version 1 by the whole text).
constexpr int kFileVersion = 2;

// A statement of the script as tokens, without comments or spacing.
struct Statement {
    int line = 0;
    std::string tokens;
    std::set<std::string> names;
    bool parameterAssignment = false; // NAME = INT
    std::string assigned;             // that NAME
};

std::vector<Statement> statements(const std::string& source)
{
    std::vector<Statement> out;
    Lexer lexer(source);
    Statement current;
    std::vector<Token> tokens;
    auto finish = [&] {
        if (tokens.empty()) return;
        current.line = tokens.front().loc.line;
        current.parameterAssignment = tokens.size() == 3 && tokens[0].kind == TokenKind::Name &&
                                      tokens[1].isOp("=") && tokens[2].kind == TokenKind::Int;
        if (current.parameterAssignment) current.assigned = tokens[0].text;
        out.push_back(std::move(current));
        current = Statement{};
        tokens.clear();
    };
    for (;;) {
        Token t = lexer.next();
        if (t.kind == TokenKind::End) break;
        if (t.kind == TokenKind::Newline) {
            finish();
            continue;
        }
        current.tokens += std::to_string(static_cast<int>(t.kind));
        current.tokens += ':';
        current.tokens += t.text;
        current.tokens += '\x1f';
        if (t.kind == TokenKind::Name) current.names.insert(t.text);
        tokens.push_back(std::move(t));
    }
    finish();
    return out;
}

QString sha256(const std::string& text)
{
    return QString::fromLatin1(
        QCryptographicHash::hash(QByteArray::fromStdString(text), QCryptographicHash::Sha256)
            .toHex());
}

QString pointKey(const QString& group, const protocol::SweepPoint& point)
{
    QStringList values;
    for (std::int64_t v : point.values)
        values << QString::number(v);
    return group + u'|' + QString::fromStdString(point.variant) + u'|' + values.join(u',') + u'|' +
           QString::number(point.threads);
}

bool worthKeeping(const protocol::SweepPoint& point)
{
    if (point.variant.empty() || point.values.empty() || point.threads < 1) return false;
    // Skipped without running: a prediction from the limit, not a measurement.
    if (point.skipped && point.runMs <= 0) return false;
    return true;
}

// The file's own key beside a point's fields: the group the point is kept under.
const QLatin1String kGroupKey("group");

// A point as the file keeps it: the codec's form, with its group.
QJsonObject storedForm(const QString& group, const protocol::SweepPoint& point,
                       const QStringList& parameters)
{
    std::vector<std::string> names;
    for (const QString& p : parameters)
        names.push_back(p.toStdString());
    QJsonObject o =
        QJsonDocument::fromJson(QByteArray::fromStdString(protocol::encodeSweepPoint(point, names)))
            .object();
    o.insert(kGroupKey, group);
    return o;
}

// The point of a stored object (its group aside); nullopt when it is not a point.
std::optional<protocol::SweepPoint> pointOf(QJsonObject stored)
{
    stored.remove(kGroupKey);
    return protocol::decodeSweepPoint(
        QJsonDocument(stored).toJson(QJsonDocument::Compact).toStdString());
}

} // namespace

SweepStore::SweepStore(QString file) : m_file(std::move(file))
{
    load();
}

QHash<QString, QString> SweepStore::variantKeys(const QString& script,
                                                const QStringList& parameters)
{
    QHash<QString, QString> keys;
    const std::string source = script.toStdString();
    std::vector<Statement> all;
    EvalResult evaluation;
    try {
        all = statements(source);
        evaluation = evaluateScript(source);
    } catch (const std::exception&) { // a mistake in the text: the sweep will say where
        return keys;
    }
    if (!evaluation.ok) return keys;
    std::set<std::string> swept;
    for (const QString& p : parameters)
        swept.insert(p.toStdString());
    const std::vector<Variant>& variants = evaluation.program.variants;
    auto inBlock = [](const Variant& v, const Statement& st) {
        return st.line >= v.loc.line && st.line <= v.lastLine;
    };
    // A statement in another variant's block that names that variant's schedule (or creates it)
    // is that variant's own; anything else there is a declaration the variants after it see.
    auto othersOwn = [&](const Variant& self, const Statement& st) {
        for (const Variant& other : variants) {
            if (&other == &self || !inBlock(other, st)) continue;
            if (st.line == other.loc.line || other.scheduleVar.empty() ||
                st.names.count(other.scheduleVar))
                return true;
        }
        return false;
    };
    auto declaration = [&](const Statement& st) -> std::string {
        // A swept parameter's value is the point's, not the text's.
        if (st.parameterAssignment && swept.count(st.assigned)) return st.assigned + " = <swept>\n";
        return st.tokens + "\n";
    };
    // OpenBLAS multiplies matrices of the parameters' sizes: what is declared before the first
    // variant decides them.
    std::string declarations;
    for (const Statement& st : all)
        if (variants.empty() || st.line < variants.front().loc.line)
            declarations += declaration(st);
    keys.insert(QStringLiteral("OpenBLAS"), sha256("declarations\n" + declarations));
    for (const Variant& v : variants) {
        std::string text = "variant\n";
        for (const Statement& st : all) {
            if (st.line > v.lastLine) break;
            if (inBlock(v, st))
                text += st.tokens + "\n";
            else if (!othersOwn(v, st))
                text += declaration(st);
        }
        keys.insert(QString::fromStdString(v.name), sha256(text));
    }
    return keys;
}

QString SweepStore::group(const QString& script, const QStringList& parameters,
                          const QString& variant) const
{
    if (script != m_keysScript || parameters != m_keysParameters || m_keys.isEmpty()) {
        m_keysScript = script;
        m_keysParameters = parameters;
        m_keys = variantKeys(script, parameters);
    }
    const QString key = m_keys.value(variant);
    return (key.isEmpty() ? QStringLiteral("text:") + sha256(script.toStdString()) : key) + u'|' +
           parameters.join(u',');
}

void SweepStore::add(const QString& script, const QStringList& parameters,
                     const protocol::SweepPoint& point)
{
    if (!worthKeeping(point)) return;
    Kept kept{group(script, parameters, QString::fromStdString(point.variant)), point, {}};
    kept.point.cached = false; // known, then: cached is what a sweep says of it
    kept.stored = storedForm(kept.group, kept.point, parameters);
    const QString key = pointKey(kept.group, kept.point);
    if (!m_points.contains(key)) m_order << key;
    m_points.insert(key, std::move(kept));
    while (m_order.size() > kMaxPoints)
        m_points.remove(m_order.takeFirst());
    if (++m_unsaved >= 16) save();
}

std::vector<protocol::SweepPoint> SweepStore::known(const QString& script,
                                                    const QStringList& parameters) const
{
    std::vector<protocol::SweepPoint> out;
    // A point is known when its variant's key in the script as it is now is the one it was
    // measured under.
    for (const QString& key : m_order) {
        const Kept& kept = m_points[key];
        if (group(script, parameters, QString::fromStdString(kept.point.variant)) != kept.group)
            continue;
        out.push_back(kept.point);
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
        points.append(m_points.value(key).stored);
    return replaceWhole(m_file, QJsonDocument(QJsonObject{{QStringLiteral("version"), kFileVersion},
                                                          {QStringLiteral("points"), points}})
                                    .toJson(QJsonDocument::Compact));
}

QString SweepStore::takeNotice()
{
    return std::exchange(m_notice, QString());
}

void SweepStore::load()
{
    if (m_file.isEmpty()) return;
    QFile file(m_file);
    if (!file.open(QIODevice::ReadOnly)) return;
    const std::optional<QJsonObject> root = parseJsonObject(file.readAll());
    file.close();
    const QJsonValue version = root ? root->value(QLatin1String("version")) : QJsonValue();
    // Another version's file (an older one kept points by the whole text): start anew.
    if (version.isDouble() && version.toInt() != kFileVersion) return;
    const QJsonValue pointsValue = root ? root->value(QLatin1String("points")) : QJsonValue();
    const QJsonArray points = pointsValue.toArray();
    const bool wellFormed =
        version.isDouble() && pointsValue.isArray() &&
        std::all_of(points.begin(), points.end(), [](const QJsonValue& p) { return p.isObject(); });
    if (!wellFormed) {
        bool setAside = false;
        m_notice = setAsideDamagedFile(m_file, QObject::tr("the measured sweep points"),
                                       QObject::tr("the charts start without them"), &setAside);
        if (!setAside) m_file.clear(); // never written over: this session keeps them in memory
        return;
    }
    for (const QJsonValue& v : points) {
        const QJsonObject stored = v.toObject();
        const QString g = stored.value(kGroupKey).toString();
        std::optional<protocol::SweepPoint> point = pointOf(stored);
        if (g.isEmpty() || !point || !worthKeeping(*point)) continue;
        point->cached = false;
        const QString key = pointKey(g, *point);
        if (m_points.contains(key)) continue;
        m_points.insert(key, Kept{g, std::move(*point), stored});
        m_order << key;
    }
}

} // namespace loopscope
