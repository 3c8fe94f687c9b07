// The model window's table of tasks: one row a workload (the first task of each), its operators,
// what it computes in (a quantized task's integer and float parts), weight, GFLOP, where its
// schedule comes from (marked when it may be stale), and once the model ran, its time, its share of
// the model, GFLOPS and check. Numbers sort as numbers (SortRole); each row knows its task
// (TaskIndexRole). Rows are in the order the tasks run.
#pragma once

#include "protocol/Messages.h"

#include <QAbstractTableModel>

#include <vector>

namespace loopscope {

class TaskTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Task,
        Operators,
        Arithmetic,
        Weight,
        Gflop,
        ScheduleSource,
        Ms,
        WeightMs,
        Gflops,
        Check,
        ColumnCount
    };
    static constexpr int TaskIndexRole = Qt::UserRole;
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit TaskTableModel(QObject* parent = nullptr);

    // The reply's tasks, one row for each workload.
    void setResult(const protocol::ModelReply& result);
    // The row of a task's workload, or -1.
    int rowOfTask(int task) const;

    // A task's arithmetic as the column shows it ("u8 × s8 → i32; f32 → u8").
    static QString compactArithmetic(QString text);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant display(const protocol::ModelTask& t, int column) const;
    QVariant tooltip(const protocol::ModelTask& t, int column) const;
    QVariant sortValue(const protocol::ModelTask& t, int column) const;

    protocol::ModelReply m_result;
    std::vector<int> m_rows; // row -> task index
};

} // namespace loopscope
