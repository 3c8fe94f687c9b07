#include "editor/ScheduleModels.h"

#include <QFont>
#include <QGuiApplication>
#include <QIcon>
#include <QMimeData>
#include <QPainter>
#include <QPalette>
#include <QPixmap>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace loopscope {

namespace {

const QString kAxisRowsMime = u"application/x-loopscope-axis-rows"_s;

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QColor mix(const QColor& a, const QColor& b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                            static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                            static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

// A small badge for a stage's kind, in the palette's text color: an outlined circle for inputs, a
// filled square for computed stages, with a sigma for reductions.
QIcon kindIcon(const std::string& kind)
{
    const QPalette pal = QGuiApplication::palette();
    const qreal dpr = qGuiApp ? qGuiApp->devicePixelRatio() : 1.0;
    const int size = 14;
    QPixmap pm(QSize(size, size) * dpr);
    pm.setDevicePixelRatio(dpr);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    const QColor ink = pal.color(QPalette::Text);
    QRectF r(2, 2, size - 4, size - 4);
    if (kind == "placeholder") {
        p.setPen(QPen(ink, 1.4));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(r);
    } else {
        p.setPen(Qt::NoPen);
        p.setBrush(ink);
        p.drawRoundedRect(QRectF(0.5, 0.5, size - 1, size - 1), 3, 3);
        if (kind == "reduction") {
            QFont f = p.font();
            f.setPixelSize(size - 3);
            f.setBold(true);
            p.setFont(f);
            p.setPen(pal.color(QPalette::Base));
            p.drawText(QRectF(0, 0, size, size), Qt::AlignCenter, QString(QChar(0x03A3)));
        }
    }
    return QIcon(pm);
}

} // namespace

// ---- StagesModel ----

StagesModel::StagesModel(QObject* parent) : QAbstractTableModel(parent) {}

void StagesModel::setStages(std::vector<StageInfo> stages)
{
    beginResetModel();
    m_stages = std::move(stages);
    endResetModel();
}

int StagesModel::rowOf(const QString& stage) const
{
    for (std::size_t i = 0; i < m_stages.size(); ++i)
        if (qs(m_stages[i].name) == stage) return static_cast<int>(i);
    return -1;
}

int StagesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_stages.size());
}

int StagesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StagesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const StageInfo& s = m_stages[static_cast<std::size_t>(index.row())];
    QString kind = qs(s.kind) + (s.output ? u", output"_s : QString());
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn) return qs(s.name);
        if (index.column() == KindColumn) return kind;
        if (index.column() == AttachColumn) return qs(s.attach.text());
        return {};
    case Qt::DecorationRole:
        if (index.column() == NameColumn) return kindIcon(s.kind);
        return {};
    case Qt::FontRole:
        if (s.output && index.column() == NameColumn) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = qs(s.name) + u": "_s + kind;
        if (s.kind != "placeholder") tip += u"; computed "_s + qs(s.attach.text());
        if (!s.axes.empty()) tip += u"; "_s + QString::number(s.axes.size()) + u" loops"_s;
        return tip;
    }
    case StageNameRole: return qs(s.name);
    default: return {};
    }
}

QVariant StagesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Stage");
    case KindColumn: return tr("Kind");
    case AttachColumn: return tr("Computed");
    default: return {};
    }
}

// ---- AxesModel ----

AxesModel::AxesModel(QObject* parent) : QAbstractTableModel(parent) {}

void AxesModel::setAxes(std::vector<AxisInfo> axes)
{
    beginResetModel();
    m_given = axes;
    m_axes = std::move(axes);
    endResetModel();
}

void AxesModel::restore()
{
    beginResetModel();
    m_axes = m_given;
    endResetModel();
}

int AxesModel::rowOf(const QString& axis) const
{
    for (std::size_t i = 0; i < m_axes.size(); ++i)
        if (qs(m_axes[i].var) == axis || qs(m_axes[i].name) == axis) return static_cast<int>(i);
    return -1;
}

int AxesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_axes.size());
}

int AxesModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AxesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
    const AxisInfo& a = m_axes[static_cast<std::size_t>(index.row())];
    auto attached = [&] {
        QStringList names;
        for (auto& s : a.attached)
            names << qs(s);
        return names.join(u", "_s);
    };
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn: return qs(a.name);
        case ExtentColumn: return a.extent >= 0 ? QString::number(a.extent) : u"?"_s;
        case KindColumn: return qs(a.kind);
        case AttachedColumn: return attached();
        default: return {};
        }
    case Qt::TextAlignmentRole:
        if (index.column() == ExtentColumn) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::FontRole:
        if (a.reduction) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        if (a.reduction) {
            const QPalette pal = QGuiApplication::palette();
            return mix(pal.color(QPalette::Text), pal.color(QPalette::Link), 0.7);
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = (a.reduction ? u"reduction axis "_s : u"loop "_s) + qs(a.name) + u": "_s +
                      (a.extent >= 0 ? QString::number(a.extent) : u"a symbolic number of"_s) +
                      u" iterations, "_s + qs(a.kind);
        if (!a.attached.empty()) tip += u"; computed inside: "_s + attached();
        return tip;
    }
    case AxisVarRole: return qs(a.var);
    case ReductionRole: return a.reduction;
    default: return {};
    }
}

QVariant AxesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case NameColumn: return tr("Axis");
    case ExtentColumn: return tr("Extent");
    case KindColumn: return tr("Kind");
    case AttachedColumn: return tr("Attached");
    default: return {};
    }
}

Qt::ItemFlags AxesModel::flags(const QModelIndex& index) const
{
    if (!index.isValid()) return Qt::ItemIsDropEnabled;
    return Qt::ItemIsSelectable | Qt::ItemIsEnabled | Qt::ItemIsDragEnabled |
           Qt::ItemNeverHasChildren;
}

Qt::DropActions AxesModel::supportedDragActions() const
{
    return Qt::MoveAction;
}
Qt::DropActions AxesModel::supportedDropActions() const
{
    return Qt::MoveAction;
}

QStringList AxesModel::mimeTypes() const
{
    return {kAxisRowsMime};
}

QMimeData* AxesModel::mimeData(const QModelIndexList& indexes) const
{
    QList<int> rows;
    for (const QModelIndex& i : indexes)
        if (i.isValid() && !rows.contains(i.row())) rows.append(i.row());
    std::sort(rows.begin(), rows.end());
    QStringList parts;
    for (int r : rows)
        parts << QString::number(r);
    auto* data = new QMimeData;
    data->setData(kAxisRowsMime, parts.join(u',').toLatin1());
    return data;
}

bool AxesModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                             const QModelIndex& parent)
{
    Q_UNUSED(column);
    if (!data || !data->hasFormat(kAxisRowsMime) || action != Qt::MoveAction) return false;
    QList<int> rows;
    for (const QByteArray& part : data->data(kAxisRowsMime).split(',')) {
        bool ok = false;
        int r = part.toInt(&ok);
        if (!ok || r < 0 || r >= rowCount()) return false;
        if (!rows.contains(r)) rows.append(r);
    }
    if (rows.isEmpty()) return false;
    std::sort(rows.begin(), rows.end());
    int dest = row >= 0 ? row : parent.isValid() ? parent.row() : rowCount();
    // Dropped on a row below the dragged ones: land after it.
    if (row < 0 && parent.isValid() && parent.row() > rows.back()) dest = parent.row() + 1;
    dest = std::clamp(dest, 0, rowCount());

    const bool contiguous = rows.back() - rows.front() + 1 == rows.size();
    if (contiguous) {
        moveRows({}, rows.front(), static_cast<int>(rows.size()), {}, dest);
        return false;
    }
    std::vector<AxisInfo> moved, rest;
    int insertAt = dest;
    for (int r = 0; r < rowCount(); ++r) {
        if (rows.contains(r)) {
            moved.push_back(m_axes[static_cast<std::size_t>(r)]);
            if (r < dest) --insertAt;
        } else {
            rest.push_back(m_axes[static_cast<std::size_t>(r)]);
        }
    }
    rest.insert(rest.begin() + insertAt, moved.begin(), moved.end());
    beginResetModel();
    m_axes = rest;
    endResetModel();
    emit reorderRequested(order());
    return false;
}

bool AxesModel::moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                         const QModelIndex& destinationParent, int destinationChild)
{
    if (sourceParent.isValid() || destinationParent.isValid() || count <= 0 || sourceRow < 0 ||
        sourceRow + count > rowCount() || destinationChild < 0 || destinationChild > rowCount())
        return false;
    if (destinationChild >= sourceRow && destinationChild <= sourceRow + count) return false;
    if (!beginMoveRows({}, sourceRow, sourceRow + count - 1, {}, destinationChild)) return false;
    auto first = m_axes.begin() + sourceRow;
    auto last = first + count;
    if (destinationChild < sourceRow)
        std::rotate(m_axes.begin() + destinationChild, first, last);
    else
        std::rotate(first, last, m_axes.begin() + destinationChild);
    endMoveRows();
    emit reorderRequested(order());
    return true;
}

QStringList AxesModel::order() const
{
    QStringList out;
    for (auto& a : m_axes)
        out << qs(a.var);
    return out;
}

} // namespace loopscope
