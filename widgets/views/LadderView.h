// The ladder table: compact rows, right-aligned numbers, a bar behind GFLOPS relative to the best
// row, failed and wrong rows in the error color; choosing a row asks for that step to be shown.
#pragma once

#include <QTableView>

namespace loopscope {

class LadderView : public QTableView {
    Q_OBJECT

public:
    explicit LadderView(QWidget* parent = nullptr);

    // Expects a LadderModel (any table model with its roles works).
    void setModel(QAbstractItemModel* model) override;

    // Selects a row without emitting stepActivated (the editor's cursor moved to that step).
    void setCurrentStep(int row);
    int currentStep() const;

    // The rows a default layout makes room for: the longest ladders of the samples.
    static constexpr int kRowsShown = 14;
    // The height that shows this many rows and the header without scrolling.
    int heightForRows(int rows) const;
    // Every row is visible (no vertical scrolling needed).
    bool showsEveryRow() const;

    // Shown in the empty table ("Select a variant to see its steps").
    void setPlaceholder(const QString& text);

signals:
    // The user chose a row with the mouse or the keyboard.
    void stepActivated(int row);

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void applyMetrics();
    // Wrong and failed rows have no numbers: their message spans the number columns instead.
    void updateSpans();

    int m_userInput = 0; // inside a key or mouse press: a change of row is the user's choice
    QString m_placeholder;
};

} // namespace loopscope
