// The TensorIR form of a TE variant, step by step: each TE statement beside the tir.Schedule
// calls it becomes (export/TensorIRTranslation.h), the scheduled TensorIR as TVM prints it, and
// whether the calls make the TE schedule's loop nest; and the whole script written for today's
// TVM (File > Convert to TensorIR, export/TensorIRScript.h).
#pragma once

#include "ir/PrimFunc.h"
#include "te/Program.h"

#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace loopscope {

class MigrationView : public QDialog {
    Q_OBJECT

public:
    explicit MigrationView(QWidget* parent = nullptr);

    // The script (evaluated here) and its file, whose name the converted script's takes.
    void setScript(const QString& script, const QString& path);
    // Shows a variant's translation; false when the script has no such variant.
    bool chooseVariant(const QString& name);
    void setSpelling(TirSpelling spelling);
    TirSpelling spelling() const;

    // What is shown, for tests: a row per TE step (and one for what TE does unasked), the
    // TensorIR printing, and the verdict ("same loop nest as the TE schedule" or why not).
    int rowCount() const;
    QString teStatement(int row) const;
    QString calls(int row) const;
    QString tensorIRText() const;
    QString status() const;

    // Writes the whole script converted to `path` (safely: a failed write leaves the file as it
    // was). False with why in `message`; else `message` says what was converted and what not.
    bool writeConverted(const QString& path, QString* message) const;

signals:
    // The user asked to open a converted script just written.
    void openRequested(const QString& path);

private:
    void refresh();
    void writeClicked();

    std::string m_script;
    QString m_path;
    EvalResult m_result;
    QComboBox* m_variantBox = nullptr;
    QComboBox* m_spellingBox = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_status = nullptr;
    QPlainTextEdit* m_tir = nullptr;
    QPushButton* m_write = nullptr;
};

} // namespace loopscope
