#include "views/LadderModel.h"

#include "explore/Explorer.h"

#include <QCryptographicHash>
#include <QFont>
#include <QLocale>

#include <algorithm>
#include <map>

using namespace Qt::StringLiterals;

namespace loopscope {

namespace {

QString firstLine(const QString& s)
{
    const qsizetype nl = s.indexOf(u'\n');
    return nl < 0 ? s : s.left(nl);
}

} // namespace

LadderModel::LadderModel(QObject* parent) : QAbstractTableModel(parent) {}

QString LadderModel::stepKey(const VariantView& variant, int step, int threads)
{
    if (step < 0 || step >= int(variant.steps.size())) return {};
    const StepView& s = variant.steps[std::size_t(step)];
    QCryptographicHash h(QCryptographicHash::Sha1);
    const auto add = [&h](const std::string& text) {
        h.addData(QByteArrayView(text.data(), qsizetype(text.size())));
        h.addData(QByteArrayView("\0", 1));
    };
    add(s.tir);
    add(s.structured);
    if (s.error) {
        // Nothing lowered: the step is its statement and its mistake.
        add(s.label);
        add(std::to_string(s.line));
        add(s.error->message);
    }
    for (const std::string& a : variant.args)
        add(a);
    add(std::to_string(threads));
    return QString::fromLatin1(h.result().toHex());
}

void LadderModel::setResultLookup(ResultLookup lookup)
{
    m_lookup = std::move(lookup);
}

void LadderModel::setSteps(std::vector<StepRow> steps)
{
    std::map<QString, Entry> previous;
    for (const Entry& e : m_rows)
        if (!e.step.key.isEmpty()) previous.emplace(e.step.key, e); // the first of equal keys

    std::vector<Entry> next;
    next.reserve(steps.size());
    for (StepRow& s : steps) {
        Entry e;
        if (auto it = previous.find(s.key); !s.key.isEmpty() && it != previous.end())
            e = it->second;
        // A step measured before (in another variant, or in an earlier session) is not run again.
        if (m_lookup && !s.key.isEmpty() && !e.result && e.state == State::NotRun) {
            if (std::optional<Result> r = m_lookup(s.key)) {
                e.result = std::move(r);
                e.state = State::Done;
                e.message.clear();
            }
        }
        e.step = std::move(s);
        next.push_back(std::move(e));
    }

    const int oldCount = int(m_rows.size()), newCount = int(next.size());
    const int common = std::min(oldCount, newCount);
    if (newCount < oldCount) {
        beginRemoveRows({}, newCount, oldCount - 1);
        m_rows.resize(std::size_t(newCount));
        endRemoveRows();
    }
    for (int i = 0; i < common; ++i)
        m_rows[std::size_t(i)] = std::move(next[std::size_t(i)]);
    if (newCount > oldCount) {
        beginInsertRows({}, oldCount, newCount - 1);
        for (int i = oldCount; i < newCount; ++i)
            m_rows.push_back(std::move(next[std::size_t(i)]));
        endInsertRows();
    }
    if (common > 0) emit dataChanged(index(0, 0), index(common - 1, ColumnCount - 1));
}

void LadderModel::setResult(int row, const Result& result)
{
    if (!valid(row)) return;
    Entry& e = m_rows[std::size_t(row)];
    e.result = result;
    e.state = State::Done;
    e.message.clear();
    rowChanged(row);
}

void LadderModel::setState(int row, State state, const QString& message)
{
    if (!valid(row)) return;
    Entry& e = m_rows[std::size_t(row)];
    e.state = state;
    e.message = message;
    if (state != State::Queued && state != State::Running && state != State::Done) e.result.reset();
    rowChanged(row);
}

void LadderModel::clearResults()
{
    for (Entry& e : m_rows) {
        e.state = State::NotRun;
        e.result.reset();
        e.message.clear();
    }
    if (!m_rows.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void LadderModel::rowChanged(int row)
{
    // The best GFLOPS (the bars), the first row's time (the speedups) and the fastest row concern
    // every row.
    if (rowCount() > 1)
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    else
        emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

QString LadderModel::keyOf(int row) const
{
    return valid(row) ? m_rows[std::size_t(row)].step.key : QString();
}

std::vector<int> LadderModel::rowsOf(const QString& key) const
{
    std::vector<int> rows;
    if (key.isEmpty()) return rows;
    for (int row = 0; row < rowCount(); ++row)
        if (m_rows[std::size_t(row)].step.key == key) rows.push_back(row);
    return rows;
}

LadderModel::State LadderModel::stateOf(int row) const
{
    return valid(row) ? m_rows[std::size_t(row)].state : State::NotRun;
}

QString LadderModel::messageOf(int row) const
{
    return valid(row) ? m_rows[std::size_t(row)].message : QString();
}

std::optional<LadderModel::Result> LadderModel::resultOf(int row) const
{
    return valid(row) ? m_rows[std::size_t(row)].result : std::nullopt;
}

std::optional<double> LadderModel::speedupOf(int row) const
{
    if (!valid(row) || m_rows.empty()) return std::nullopt;
    const auto& first = m_rows.front().result;
    const auto& mine = m_rows[std::size_t(row)].result;
    if (!first || !mine || mine->medianMs <= 0 || first->medianMs <= 0) return std::nullopt;
    return first->medianMs / mine->medianMs;
}

double LadderModel::bestGflops() const
{
    double best = 0;
    for (const Entry& e : m_rows)
        if (e.result) best = std::max(best, e.result->gflops);
    return best;
}

int LadderModel::fastestRow() const
{
    int fastest = -1, finished = 0;
    for (int row = 0; row < rowCount(); ++row) {
        const Entry& e = m_rows[std::size_t(row)];
        if (e.state != State::Done || !e.result || e.result->medianMs <= 0) continue;
        ++finished;
        if (fastest < 0 || e.result->medianMs < m_rows[std::size_t(fastest)].result->medianMs)
            fastest = row;
    }
    return finished >= 2 ? fastest : -1;
}

int LadderModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int LadderModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString LadderModel::formatMs(double ms)
{
    const int decimals = ms >= 100 ? 1 : ms >= 10 ? 2 : ms >= 0.1 ? 3 : 4;
    return QString::number(ms, 'f', decimals);
}

QString LadderModel::formatGflops(double gflops)
{
    return QString::number(gflops, 'f', gflops >= 10 ? 1 : 2);
}

QString LadderModel::formatSpeedup(double speedup)
{
    const int decimals = speedup >= 100 ? 0 : speedup >= 10 ? 1 : 2;
    return QString::number(speedup, 'f', decimals) + u'×';
}

QString LadderModel::provenance(const Result& r) const
{
    const QString cpu = r.cpu.isEmpty() ? tr("an unknown CPU") : r.cpu;
    if (!r.measuredAt.isValid()) return tr("Earlier run on %1").arg(cpu);
    return tr("Earlier run on %1, %2")
        .arg(cpu, QLocale().toString(r.measuredAt.toLocalTime(), QLocale::ShortFormat));
}

QString LadderModel::statusText(const Entry& e, bool fastest) const
{
    switch (e.state) {
    case State::NotRun: return e.message.isEmpty() ? tr("not run") : e.message; // "cancelled"
    case State::Queued: return tr("queued");
    case State::Running: return tr("running…");
    case State::Done: {
        QString text = e.result && e.result->checked ? tr("✓ checked") : tr("done");
        if (e.result && !e.result->uncompared.isEmpty())
            text += tr(" · not all compared: %1").arg(firstLine(e.result->uncompared));
        if (e.result && !e.result->counters.isEmpty()) text += u" · " + e.result->counters;
        if (e.result && e.result->earlier) text += tr(" · earlier run");
        if (fastest) text += tr(" · fastest");
        return text;
    }
    case State::Wrong:
        return e.message.isEmpty() ? tr("wrong result")
                                   : tr("wrong result: %1").arg(firstLine(e.message));
    case State::Failed:
        return e.message.isEmpty() ? tr("failed") : tr("failed: %1").arg(firstLine(e.message));
    case State::Skipped:
        return e.message.isEmpty() ? tr("skipped") : tr("skipped: %1").arg(firstLine(e.message));
    }
    return {};
}

QVariant LadderModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry& e = m_rows[std::size_t(index.row())];
    const auto& r = e.result;
    const int column = index.column();
    const bool earlier = r && r->earlier && e.state == State::Done;
    const bool timed = r && r->untimed.isEmpty();
    const bool fastest = (role == Qt::DisplayRole || role == Qt::FontRole ||
                          role == Qt::ToolTipRole || role == FastestRole) &&
                         e.state == State::Done && fastestRow() == index.row();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case StepColumn: return e.step.label;
        case MedianColumn: return timed ? formatMs(r->medianMs) : QVariant();
        case RangeColumn:
            return timed ? QVariant(formatMs(r->minMs) + u" – "_s + formatMs(r->maxMs))
                         : QVariant();
        case GflopsColumn: return timed ? formatGflops(r->gflops) : QVariant();
        case SpeedupColumn:
            if (auto s = speedupOf(index.row())) return formatSpeedup(*s);
            return {};
        case StatusColumn: return statusText(e, fastest);
        }
        return {};
    case Qt::FontRole:
        if (fastest || earlier) {
            QFont font;
            if (fastest) font.setBold(true);
            if (earlier) font.setItalic(true);
            return font;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (column == StepColumn || column == StatusColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter));
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ToolTipRole: {
        if (!e.message.isEmpty() &&
            (column != StepColumn || e.state == State::Wrong || e.state == State::Failed))
            return e.message;
        QStringList lines;
        if (column == StepColumn) lines << tr("Line %1: %2").arg(e.step.line).arg(e.step.label);
        if (column == StatusColumn && r && !r->untimed.isEmpty()) lines << r->untimed;
        if (column == StatusColumn && r && !r->cpu.isEmpty() && r->untimed.isEmpty())
            lines << tr("Ran on %1").arg(r->cpu);
        if (column == RangeColumn && r)
            lines << tr("Fastest and slowest of the repeated measurements");
        if ((column == GflopsColumn || column == MedianColumn) && r && !r->reference.isEmpty())
            lines << r->reference;
        if (fastest) lines << tr("The fastest step of this ladder");
        if (earlier) lines << provenance(*r);
        return lines.isEmpty() ? QVariant() : QVariant(lines.join(u'\n'));
    }
    case StateRole: return QVariant::fromValue(e.state);
    case ValueRole:
        switch (column) {
        case MedianColumn: return r ? QVariant(r->medianMs) : QVariant();
        case RangeColumn: return r ? QVariant(r->minMs) : QVariant();
        case GflopsColumn: return r ? QVariant(r->gflops) : QVariant();
        case SpeedupColumn:
            if (auto s = speedupOf(index.row())) return *s;
            return {};
        }
        return {};
    case BarRole:
        if (column == GflopsColumn && r) {
            const double best = bestGflops();
            return best > 0 ? std::clamp(r->gflops / best, 0.0, 1.0) : 0.0;
        }
        return {};
    case LineRole: return e.step.line;
    case MessageRole:
        // A GPU step without a GPU: "no GPU here: checked on the CPU, not timed (why)".
        if (e.message.isEmpty() && r && !r->untimed.isEmpty() && e.state == State::Done)
            return r->untimed;
        return e.message;
    case StaleRole: return r.has_value() && (e.state == State::Queued || e.state == State::Running);
    case FastestRole: return fastest;
    case EarlierRole: return earlier;
    }
    return {};
}

QVariant LadderModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case StepColumn: return tr("Step");
        case MedianColumn: return tr("Median ms");
        case RangeColumn: return tr("Min–max ms");
        case GflopsColumn: return tr("GFLOPS");
        case SpeedupColumn: return tr("Speedup");
        case StatusColumn: return tr("Status");
        }
    } else if (role == Qt::TextAlignmentRole) {
        if (section == StepColumn || section == StatusColumn)
            return QVariant::fromValue(Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter));
        return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case StepColumn:
            return tr("The schedule statement and its line; the first row is the untransformed "
                      "loop nest");
        case MedianColumn: return tr("Median time of one call over the repeated measurements");
        case RangeColumn: return tr("Fastest and slowest measurement");
        case GflopsColumn:
            return tr("Floating-point operations per second; the bar is relative to the best row");
        case SpeedupColumn: return tr("Time of the first row over this row's");
        case StatusColumn:
            return tr("Whether the step ran, and whether its output matched the reference");
        }
    }
    return {};
}

Qt::ItemFlags LadderModel::flags(const QModelIndex& index) const
{
    if (!index.isValid()) return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
}

} // namespace loopscope
