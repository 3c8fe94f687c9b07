// The ladder: one row per schedule step of a variant (the untransformed loop nest first) with its
// measured time, GFLOPS and speedup over the first row, filled in as runs finish. A row whose check
// found wrong numbers shows the mismatch, never a speed. The fastest row is marked; a row measured
// by an earlier session (on which CPU, when) says so.
#pragma once

#include <QAbstractTableModel>
#include <QDateTime>

#include <functional>
#include <optional>
#include <vector>

namespace loopscope {

struct VariantView;

class LadderModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        StepColumn,
        MedianColumn,
        RangeColumn,
        GflopsColumn,
        SpeedupColumn,
        StatusColumn,
        ColumnCount
    };
    enum class State { NotRun, Queued, Running, Done, Wrong, Failed, Skipped };
    Q_ENUM(State)
    enum Role {
        StateRole = Qt::UserRole + 1, // State
        ValueRole,   // the cell's number as a double (median, min, GFLOPS, speedup), if any
        BarRole,     // GFLOPS column: the row's GFLOPS over the best row's, in [0, 1]
        LineRole,    // the step's line in the script
        MessageRole, // the error or mismatch message, or ""
        StaleRole,   // true when the numbers are from an earlier run and a new one is pending
        FastestRole, // true on the row with the shortest median time (of two or more results)
        EarlierRole, // true when the numbers were measured in an earlier session
    };

    struct StepRow {
        QString label; // "untransformed" or the statement as written
        int line = 0;
        QString key; // identifies the script prefix up to this step: results survive while it does
    };
    struct Result {
        double medianMs = 0;
        double minMs = 0;
        double maxMs = 0;
        double gflops = 0;
        bool checked = false; // the output was compared with the reference and matched
        // Why elements were left uncompared (the reference interpreter's step limit), if any.
        QString uncompared;
        // Hardware counters of a profiled run ("IPC 2.31 · L1D 4.1 / 1000 instr."), if any.
        QString counters;
        QString cpu; // the CPU or GPU it ran on ("" when unknown)
        // Why it was checked but not timed ("no GPU here: checked on the CPU, not timed (...)").
        QString untimed;
        // On a GPU, what it was timed against in turns ("cuBLAS 12.4.5: 1.234 ms, this step
        // 0.83x"; the device copy's bandwidth beside the bytes it moves), or "".
        QString reference;
        QDateTime measuredAt; // when (invalid when unknown)
        bool earlier = false; // measured in an earlier session, not by this one
    };
    // Finds a measurement of a step by its key (a session's or an earlier one's).
    using ResultLookup = std::function<std::optional<Result>(const QString& key)>;

    // What decides what a step measures: its lowered loop nest (both printings), the function's
    // arguments and the thread count. Steps that lower alike share their key, in one variant or
    // in several (every variant's untransformed step), so they are measured once.
    static QString stepKey(const VariantView& variant, int step, int threads);

    explicit LadderModel(QObject* parent = nullptr);

    // Where new rows find their measurement (none: every new row starts as NotRun).
    void setResultLookup(ResultLookup lookup);

    // Replaces the rows. A row whose key was present before keeps its state, result and message;
    // the others take the lookup's measurement (Done), else start as NotRun. Rows are updated in
    // place (selection survives).
    void setSteps(std::vector<StepRow> steps);
    // A finished measurement: the row becomes Done.
    void setResult(int row, const Result& result);
    // Queued and Running keep an earlier result (shown as stale); Wrong, Failed, Skipped and NotRun
    // drop it. `message`: the first mismatch (Wrong), the compile or run error (Failed), why
    // (Skipped).
    void setState(int row, State state, const QString& message = {});
    void clearResults();

    QString keyOf(int row) const;
    // The rows whose step has this key.
    std::vector<int> rowsOf(const QString& key) const;
    State stateOf(int row) const;
    QString messageOf(int row) const;
    std::optional<Result> resultOf(int row) const;
    // The first row's median time over this row's, when both have a result.
    std::optional<double> speedupOf(int row) const;
    double bestGflops() const; // 0 when no row has a result
    // The finished row with the shortest median time, once two or more rows have finished; else -1.
    int fastestRow() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    static QString formatMs(double ms);
    static QString formatGflops(double gflops);
    static QString formatSpeedup(double speedup);

private:
    struct Entry {
        StepRow step;
        State state = State::NotRun;
        std::optional<Result> result;
        QString message;
    };
    bool valid(int row) const { return row >= 0 && row < int(m_rows.size()); }
    void rowChanged(int row);
    QString statusText(const Entry& e, bool fastest) const;
    QString provenance(const Result& r) const; // "earlier run on CPU, date"

    std::vector<Entry> m_rows;
    ResultLookup m_lookup;
};

} // namespace loopscope
