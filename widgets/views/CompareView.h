// Compare any two variants, or two steps of any variants: their loop nests side by side with the
// diff, their GFLOPS where measured, and the schedule statements that differ.
#pragma once

#include "explore/Explorer.h"

#include <QDialog>
#include <QString>
#include <QStringList>

#include <functional>

class QComboBox;
class QLabel;

namespace loopscope {

class TirEditor;

class CompareView : public QDialog {
    Q_OBJECT

public:
    explicit CompareView(QWidget* parent = nullptr);

    // The script to compare in (explored again here, every step of every variant).
    void setScript(const QString& script);
    // GFLOPS of a step as measured, or a negative number when it has not been measured.
    void setGflopsLookup(std::function<double(const QString& variant, int step)> lookup);

    // Chooses side 0 (left) or 1 (right): a variant and one of its steps (-1: the last).
    bool choose(int side, const QString& variant, int step = -1);
    // `variant` against the one after it in `variants` (the first after the last), or, when it
    // is the only one, its last step against its first.
    void chooseWithNext(const QString& variant, const QStringList& variants);

    QString summary() const;        // what changed between the two loop nests
    QString statementsText() const; // the statements only one side has
    QString gflopsText() const;
    QString leftText() const; // the two printings shown
    QString rightText() const;

private:
    const VariantView* variant(const QString& name) const;
    void fillSteps(int side);
    void refresh();

    Exploration m_exploration; // every step of every variant
    std::function<double(const QString&, int)> m_gflops;
    QComboBox* m_variantBox[2] = {};
    QComboBox* m_stepBox[2] = {};
    TirEditor* m_editor[2] = {};
    QLabel* m_summary = nullptr;
    QLabel* m_statements = nullptr;
    QLabel* m_gflopsLabel = nullptr;
    QString m_text[2];
};

} // namespace loopscope
