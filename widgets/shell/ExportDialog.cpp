#include "shell/ExportDialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSaveFile>
#include <QVBoxLayout>

namespace loopscope {

ExportDialog::ExportDialog(const QString& variant, const QString& text,
                           const QString& suggestedName, QWidget* parent)
    : QDialog(parent), m_text(text), m_suggestedName(suggestedName)
{
    setWindowTitle(tr("Export %1").arg(variant));
    auto* layout = new QVBoxLayout(this);
    auto* view = new QPlainTextEdit(text, this);
    view->setReadOnly(true);
    view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    view->setMinimumSize(720, 480);
    layout->addWidget(view);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Close, this);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, this, &ExportDialog::saveToFile);
}

void ExportDialog::saveToFile()
{
    QString path = QFileDialog::getSaveFileName(this, tr("Save Export"), m_suggestedName);
    if (path.isEmpty()) return;
    QSaveFile f(path);
    if (f.open(QIODevice::WriteOnly) && f.write(m_text.toUtf8()) >= 0 && f.commit())
        accept();
    else
        QMessageBox::warning(this, tr("Save"), f.errorString());
}

} // namespace loopscope
