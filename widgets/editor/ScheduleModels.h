// The item models behind the schedule panel: the stages of a variant, and the loop axes of one
// stage (outer to inner) that the user reorders by dragging rows.
#pragma once

#include "explore/Explorer.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

namespace loopscope {

// One row per stage: name (icon by kind, bold when an output), kind, where it is computed.
class StagesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { NameColumn, KindColumn, AttachColumn, ColumnCount };
    static constexpr int StageNameRole = Qt::UserRole + 1;

    explicit StagesModel(QObject* parent = nullptr);

    void setStages(std::vector<StageInfo> stages);
    const std::vector<StageInfo>& stages() const { return m_stages; }
    int rowOf(const QString& stage) const; // -1 when absent

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<StageInfo> m_stages;
};

// One row per loop axis of a stage, outer to inner. Rows can be dragged to a new place; the model
// then shows the new order and emits reorderRequested with it.
class AxesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { NameColumn, ExtentColumn, KindColumn, AttachedColumn, ColumnCount };
    static constexpr int AxisVarRole = Qt::UserRole + 1; // AxisInfo::var
    static constexpr int ReductionRole = Qt::UserRole + 2;

    explicit AxesModel(QObject* parent = nullptr);

    void setAxes(std::vector<AxisInfo> axes);
    const std::vector<AxisInfo>& axes() const { return m_axes; }
    // Back to the order given to setAxes (after a reorder that was refused).
    void restore();
    int rowOf(const QString& axis) const; // by AxisInfo::var or name; -1 when absent

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    Qt::DropActions supportedDragActions() const override;
    Qt::DropActions supportedDropActions() const override;
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    // Moves the dragged rows and emits reorderRequested; returns false so that the view does not
    // remove the source rows (the move is already done).
    bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                      const QModelIndex& parent) override;
    bool moveRows(const QModelIndex& sourceParent, int sourceRow, int count,
                  const QModelIndex& destinationParent, int destinationChild) override;

signals:
    // The complete new order of the stage's axes (AxisInfo::var, outer to inner).
    void reorderRequested(const QStringList& order);

private:
    QStringList order() const;

    std::vector<AxisInfo> m_axes;
    std::vector<AxisInfo> m_given;
};

} // namespace loopscope
