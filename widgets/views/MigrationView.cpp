#include "views/MigrationView.h"

#include "explore/TensorIRTranslation.h"
#include "export/TensorIRScript.h"
#include "ir/Printer.h"
#include "views/SafeFile.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace loopscope {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

MigrationView::MigrationView(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("TensorIR Form"));
    setObjectName(QStringLiteral("migrationView"));
    m_variantBox = new QComboBox(this);
    m_variantBox->setObjectName(QStringLiteral("migrationVariant"));
    m_spellingBox = new QComboBox(this);
    m_spellingBox->setObjectName(QStringLiteral("migrationSpelling"));
    m_spellingBox->addItem(tr("TVM 0.24-0.26 (tvm.s_tir.Schedule, get_sblock)"));
    m_spellingBox->addItem(tr("TVM 0.20-0.23 (tvm.tir.Schedule, get_block)"));
    auto* pickers = new QHBoxLayout;
    pickers->addWidget(new QLabel(tr("Variant:"), this));
    pickers->addWidget(m_variantBox, 1);
    pickers->addWidget(new QLabel(tr("For:"), this));
    pickers->addWidget(m_spellingBox, 1);

    m_table = new QTableWidget(0, 2, this);
    m_table->setObjectName(QStringLiteral("migrationSteps"));
    m_table->setHorizontalHeaderLabels({tr("TE statement"), tr("tir.Schedule calls")});
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Interactive);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->horizontalHeader()->resizeSection(0, 250);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_table->setFont(mono);
    m_tir = new QPlainTextEdit(this);
    m_tir->setObjectName(QStringLiteral("migrationTensorIR"));
    m_tir->setReadOnly(true);
    m_tir->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_tir->setFont(mono);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    split->addWidget(m_tir);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({660, 440}); // the calls readable whole, the printing beside them
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("migrationStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_write = buttons->addButton(tr("Write Converted Script…"), QDialogButtonBox::ActionRole);
    m_write->setToolTip(tr("The whole script for today's TVM: every TE variant's schedule as "
                           "tir.Schedule calls, the declarations as written"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_write, &QPushButton::clicked, this, &MigrationView::writeClicked);
    connect(m_variantBox, &QComboBox::currentIndexChanged, this, &MigrationView::refresh);
    connect(m_spellingBox, &QComboBox::currentIndexChanged, this, &MigrationView::refresh);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(pickers);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    resize(1100, 640);
}

void MigrationView::setScript(const QString& script, const QString& path)
{
    m_script = script.toStdString();
    m_path = path;
    m_result = evaluateScript(m_script);
    const QString current = m_variantBox->currentText();
    const QSignalBlocker block(m_variantBox);
    m_variantBox->clear();
    for (const Variant& v : m_result.program.variants)
        m_variantBox->addItem(q(v.name));
    const int again = m_variantBox->findText(current);
    m_variantBox->setCurrentIndex(again >= 0 ? again : 0);
    refresh();
}

bool MigrationView::chooseVariant(const QString& name)
{
    const int i = m_variantBox->findText(name);
    if (i < 0) return false;
    m_variantBox->setCurrentIndex(i);
    refresh();
    return true;
}

void MigrationView::setSpelling(TirSpelling spelling)
{
    m_spellingBox->setCurrentIndex(spelling == TirSpelling::Tvm026 ? 0 : 1);
}

TirSpelling MigrationView::spelling() const
{
    return m_spellingBox->currentIndex() == 0 ? TirSpelling::Tvm026 : TirSpelling::Tvm020;
}

int MigrationView::rowCount() const
{
    return m_table->rowCount();
}

QString MigrationView::teStatement(int row) const
{
    const QTableWidgetItem* item = m_table->item(row, 0);
    return item ? item->text() : QString();
}

QString MigrationView::calls(int row) const
{
    const QTableWidgetItem* item = m_table->item(row, 1);
    return item ? item->text() : QString();
}

QString MigrationView::tensorIRText() const
{
    return m_tir->toPlainText();
}

QString MigrationView::status() const
{
    return m_status->text();
}

void MigrationView::refresh()
{
    m_table->setRowCount(0);
    m_tir->clear();
    m_write->setEnabled(m_result.ok);
    if (!m_result.ok) {
        m_status->setText(tr("The script has an error at line %1: %2")
                              .arg(m_result.error.loc.line)
                              .arg(q(m_result.error.message)));
        return;
    }
    const Variant* v = m_result.program.findVariant(m_variantBox->currentText().toStdString());
    if (!v) return;
    if (v->snapshots.front().tensorIR()) {
        m_status->setText(tr("'%1' is scheduled with tir.Schedule already.").arg(q(v->name)));
        m_tir->setPlainText(q(printTensorIR(*v->schedule().tensorIR(), spelling())));
        return;
    }
    std::vector<std::string> taken = v->names;
    taken.emplace_back("sch");
    const TirTranslation t = translateToTensorIR(*v, spelling(), taken);
    // A row per TE step with the calls that carry it out, in the order they are made; then
    // what TE does without a step.
    auto addRow = [&](const QString& te, const QStringList& calls) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        auto* left = new QTableWidgetItem(te);
        left->setToolTip(te);
        auto* right = new QTableWidgetItem(calls.join(QLatin1Char('\n')));
        right->setToolTip(right->text());
        m_table->setItem(row, 0, left);
        m_table->setItem(row, 1, right);
    };
    for (std::size_t s = 0; s < v->steps.size(); ++s) {
        QStringList calls;
        for (std::size_t k = 0; k < t.statements.size(); ++k)
            if (t.stepOf[k] == static_cast<int>(s)) calls << q(t.statements[k]);
        addRow(q(v->steps[s].text), calls);
    }
    QStringList unasked;
    for (std::size_t k = 0; k < t.statements.size(); ++k)
        if (t.stepOf[k] < 0) unasked << q(t.statements[k]);
    if (!unasked.isEmpty()) addRow(tr("(what TE does without a step)"), unasked);
    if (!t.ok) {
        m_status->setText(
            tr("No TensorIR form (line %1): %2").arg(t.error.loc.line).arg(q(t.error.message)));
        return;
    }
    const auto calls = std::count_if(t.statements.begin(), t.statements.end(),
                                     [](const std::string& s) { return s.rfind('#', 0) != 0; });
    m_status->setText(tr("%1 tir.Schedule calls make the same loop nest as the TE schedule; "
                         "the scheduled TensorIR as TVM prints it is on the right.")
                          .arg(calls));
    m_tir->setPlainText(q(printTensorIR(t.func, spelling())));
}

bool MigrationView::writeConverted(const QString& path, QString* message) const
{
    if (!m_result.ok) {
        *message = tr("the script has an error at line %1").arg(m_result.error.loc.line);
        return false;
    }
    ConvertedScript c;
    try {
        c = convertToTensorIR(m_script, m_result.program, spelling());
    } catch (const UserError& e) {
        *message = q(e.message());
        return false;
    }
    QSaveFile file(path);
    if (!writeWhole(file, QByteArray::fromStdString(c.text))) {
        *message = tr("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    QStringList kept;
    for (const ConvertedVariant& v : c.variants)
        if (!v.converted)
            kept << tr("'%1' stays TE (line %2: %3)")
                        .arg(q(v.name))
                        .arg(v.calls.error.loc.line)
                        .arg(q(v.calls.error.message));
        else if (!v.checkError.empty())
            kept << tr("'%1' converted, but its loop nest differs: %2")
                        .arg(q(v.name), q(v.checkError));
    *message = kept.isEmpty() ? tr("Every variant is tir.Schedule calls in %1.").arg(path)
                              : tr("Written to %1. %2").arg(path, kept.join(QStringLiteral("; ")));
    return true;
}

void MigrationView::writeClicked()
{
    const QFileInfo info(m_path);
    const QString suggested =
        m_path.isEmpty()
            ? QStringLiteral("converted_tensorir.py")
            : info.dir().filePath(info.completeBaseName() + QStringLiteral("_tensorir.py"));
    const QString path = QFileDialog::getSaveFileName(this, tr("Write Converted Script"), suggested,
                                                      tr("Python scripts (*.py)"));
    if (path.isEmpty()) return;
    QString message;
    if (!writeConverted(path, &message)) {
        QMessageBox::warning(this, tr("Convert to TensorIR"), message);
        return;
    }
    QMessageBox box(QMessageBox::Information, tr("Convert to TensorIR"), message,
                    QMessageBox::Close, this);
    QPushButton* open = box.addButton(tr("Open It"), QMessageBox::AcceptRole);
    box.exec();
    if (box.clickedButton() == open) emit openRequested(path);
}

} // namespace loopscope
