#include "shell/ExportDialog.h"

#include "views/SafeFile.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSaveFile>
#include <QVBoxLayout>

namespace loopscope {

ExportDialog::ExportDialog(const QString& variant, const QString& text,
                           const QString& suggestedName, QWidget* parent, const QByteArray& object)
    : QDialog(parent), m_text(text), m_object(object), m_suggestedName(suggestedName)
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
    const QString error = saveTo(path);
    if (error.isEmpty())
        accept();
    else
        QMessageBox::warning(this, tr("Save"), error);
}

QString ExportDialog::saveTo(const QString& path) const
{
    auto write = [](const QString& to, const QByteArray& bytes) -> QString {
        QSaveFile f(to);
        if (writeWhole(f, bytes)) return QString();
        return to + QStringLiteral(": ") + f.errorString();
    };
    if (m_object.isEmpty()) return write(path, m_text.toUtf8());
    QString header = path;
    const int dot = header.lastIndexOf(u'.');
    if (dot > header.lastIndexOf(u'/')) header.truncate(dot);
    header += QStringLiteral(".h");
    if (header == path) return tr("the object's header goes next to it as .h; name it otherwise");
    QString error = write(path, m_object);
    return error.isEmpty() ? write(header, m_text.toUtf8()) : error;
}

} // namespace loopscope
