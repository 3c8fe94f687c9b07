#include "model/TaskTableModel.h"

#include "model/ModelGraphView.h"
#include "worker/WorkerReply.h"

#include <QColor>

#include <set>

namespace loopscope {

using worker::qs;

TaskTableModel::TaskTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TaskTableModel::setResult(const protocol::ModelReply& result)
{
    beginResetModel();
    m_result = result;
    m_rows.clear();
    std::set<std::string> seen;
    for (std::size_t i = 0; i < m_result.tasks.size(); ++i)
        if (seen.insert(m_result.tasks[i].workload).second) m_rows.push_back(static_cast<int>(i));
    endResetModel();
}

int TaskTableModel::rowOfTask(int task) const
{
    if (task < 0 || task >= static_cast<int>(m_result.tasks.size())) return -1;
    const std::string& workload = m_result.tasks[std::size_t(task)].workload;
    for (std::size_t r = 0; r < m_rows.size(); ++r)
        if (m_result.tasks[std::size_t(m_rows[r])].workload == workload) return static_cast<int>(r);
    return -1;
}

int TaskTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int TaskTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TaskTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Task: return tr("Task");
        case Operators: return tr("Operators");
        case Arithmetic: return tr("Arithmetic");
        case Weight: return tr("Weight");
        case Gflop: return tr("GFLOP");
        case ScheduleSource: return tr("Schedule");
        case Ms: return tr("ms");
        case WeightMs: return tr("Weight × ms");
        case Gflops: return tr("GFLOPS");
        case Check: return tr("Check");
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && section == Arithmetic)
        return tr("What the task computes in: a quantized model's tasks sum integers (uint8 x "
                  "int8 into int32) and requantize in float32");
    if (role == Qt::ToolTipRole && section == WeightMs)
        return tr("What the task costs the model: its time times how often it occurs (the tuner's "
                  "objective: tune the largest first)");
    return {};
}

// "uint8 x int8 -> int32 sums; float32 requantization to uint8" as "u8 × s8 → i32; f32 → u8":
// the column stays narrow, and its tooltip says it in full.
QString TaskTableModel::compactArithmetic(QString text)
{
    const std::pair<const char*, const char*> words[] = {{" sums", ""},
                                                         {"requantization to ", "→ "},
                                                         {"requantized to ", "→ "},
                                                         {"dequantized to ", "→ "},
                                                         {"uint8", "u8"},
                                                         {"int8", "s8"},
                                                         {"int32", "i32"},
                                                         {"float32", "f32"},
                                                         {" x ", " × "},
                                                         {" -> ", " → "},
                                                         {"then ", ""},
                                                         {"from ", "← "},
                                                         {", to ", " → "}};
    for (const auto& [from, to] : words)
        text.replace(QString::fromUtf8(from), QString::fromUtf8(to));
    return text;
}

QVariant TaskTableModel::display(const protocol::ModelTask& t, int column) const
{
    switch (column) {
    case Task: return qs(t.name);
    case Operators: {
        QStringList ops;
        for (const std::string& n : t.nodes)
            for (auto& node : m_result.nodes)
                if (node.name == n) ops << qs(node.op);
        return ops.join(QStringLiteral(" → "));
    }
    case Arithmetic: return compactArithmetic(qs(t.arithmetic));
    case Weight: return QString::number(t.weight);
    case Gflop: return QString::number(t.gflop, 'g', 3);
    case ScheduleSource:
        // A choice that may no longer be the fastest: marked, with why and what to do.
        return t.stale.empty() ? qs(t.source) : tr("⚠ %1").arg(qs(t.source));
    case Ms: return t.measured ? QString::number(t.ms, 'f', 3) : QStringLiteral("–");
    case WeightMs:
        return t.measured ? QString::number(t.ms * t.weight, 'f', 3) : QStringLiteral("–");
    case Gflops: return t.measured ? QString::number(t.gflops, 'f', 1) : QStringLiteral("–");
    case Check: return !t.checked ? QStringLiteral("–") : t.ok ? tr("✓ ok") : tr("✗ wrong");
    default: return {};
    }
}

QVariant TaskTableModel::tooltip(const protocol::ModelTask& t, int column) const
{
    switch (column) {
    case Task: return worker::qsList(t.nodes).join(QStringLiteral(" → "));
    case Arithmetic: return qs(t.arithmetic);
    case ScheduleSource:
        return t.stale.empty() ? qs(t.source)
                               : tr("%1\n\nStale: %2").arg(qs(t.source), qs(t.stale));
    case Check:
        if (!t.checked) return {};
        return t.ok ? tr("max abs error %1, max rel error %2")
                          .arg(t.maxAbsError, 0, 'g', 3)
                          .arg(t.maxRelError, 0, 'g', 3)
                    : tr("%1 (max abs error %2)").arg(qs(t.first)).arg(t.maxAbsError, 0, 'g', 3);
    default: return {};
    }
}

QVariant TaskTableModel::sortValue(const protocol::ModelTask& t, int column) const
{
    switch (column) {
    case Weight: return t.weight;
    case Gflop: return t.gflop;
    case Ms: return t.measured ? t.ms : -1.0;
    case WeightMs: return t.measured ? t.ms * t.weight : -1.0;
    case Gflops: return t.measured ? t.gflops : -1.0;
    default: return display(t, column);
    }
}

QVariant TaskTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const int task = m_rows[std::size_t(index.row())];
    const protocol::ModelTask& t = m_result.tasks[std::size_t(task)];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole: return display(t, column);
    case Qt::ToolTipRole: return tooltip(t, column);
    case TaskIndexRole: return task;
    case SortRole: return sortValue(t, column);
    case Qt::TextAlignmentRole:
        if (column == Weight || column == Gflop || column == Ms || column == WeightMs ||
            column == Gflops)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::ForegroundRole:
        if (column == ScheduleSource && !t.stale.empty()) return QColor(0x9c, 0x5d, 0x00);
        if (column == Check && t.checked && !t.ok) return QColor(0xc0, 0x1c, 0x28);
        return {};
    case Qt::BackgroundRole:
        // The row's colour is its frame's in the graph.
        if (column == Task && t.measured) {
            QColor c = ModelGraphView::heat(t.share);
            c.setAlpha(110);
            return c;
        }
        return {};
    default: return {};
    }
}

} // namespace loopscope
