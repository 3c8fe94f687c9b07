#include "shell/Document.h"

#include "editor/EditorPane.h"
#include "shell/AnalysisService.h"
#include "shell/RecoveryStore.h"
#include "views/SafeFile.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QSettings>
#include <QStandardPaths>
#include <QWidget>

namespace loopscope {

namespace {

QString fileFilter()
{
    return QObject::tr("TE scripts (*.py);;All files (*)");
}

} // namespace

Document::Document(EditorPane* editor, AnalysisService* analysis, QWidget* window)
    : QObject(window), m_editor(editor), m_analysis(analysis), m_window(window),
      m_recovery(new RecoveryStore(
          QStandardPaths::writableLocation(QStandardPaths::AppDataLocation), this))
{
    connect(m_editor, &EditorPane::textEdited, this, &Document::onTextEdited);
    updateTitle();
}

Document::~Document() = default;

QString Document::samplesDirectory()
{
    QString exe = QCoreApplication::applicationDirPath();
    const QStringList candidates{exe + QStringLiteral("/../../samples"),
                                 exe + QStringLiteral("/../share/loopscope/samples"),
                                 QStringLiteral(LOOPSCOPE_SOURCE_DIR "/samples")};
    for (const QString& candidate : candidates) {
        if (QDir(candidate).exists()) return QDir(candidate).canonicalPath();
    }
    return {};
}

void Document::setText(const QString& text, const QString& path, bool modified)
{
    m_applyingText = true;
    if (modified) {
        // Recovered or generated text: an edit of an empty document, so it counts as unsaved.
        m_editor->setText(QString());
        m_editor->replaceText(text);
    } else {
        m_editor->setText(text);
    }
    m_applyingText = false;
    m_path = path;
    m_analysis->scriptChanged(text);
    m_analysis->analyzeNow();
    updateTitle();
}

void Document::onTextEdited()
{
    QString text = m_editor->text();
    m_analysis->scriptChanged(text);
    if (!m_applyingText) m_recovery->textChanged(m_path, text);
    updateTitle();
}

bool Document::openFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        QMessageBox::warning(
            m_window, tr("Open"),
            tr("Cannot read %1: %2").arg(QDir::toNativeSeparators(path), f.errorString()));
        return false;
    }
    setText(QString::fromUtf8(f.readAll()), QFileInfo(path).absoluteFilePath(), false);
    updateRecentFiles(m_path);
    return true;
}

void Document::openDialog()
{
    if (!maybeSave()) return;
    QString path = QFileDialog::getOpenFileName(m_window, tr("Open TE Script"),
                                                QFileInfo(m_path).absolutePath(), fileFilter());
    if (!path.isEmpty()) openFile(path);
}

void Document::openSample(const QString& path)
{
    if (!maybeSave()) return;
    openFile(path);
}

void Document::newDocument()
{
    if (!maybeSave()) return;
    setText(QStringLiteral("import tvm\nfrom tvm import te\n\n"), QString(), false);
}

bool Document::maybeSave()
{
    if (!m_editor->isModified()) return true;
    auto answer = QMessageBox::question(
        m_window, tr("Unsaved changes"),
        tr("%1 has changes that are not saved. Save them?")
            .arg(m_path.isEmpty() ? tr("This script") : QFileInfo(m_path).fileName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

bool Document::save()
{
    if (m_path.isEmpty()) return saveAs();
    return writeFile(m_path);
}

bool Document::saveAs()
{
    QString path =
        QFileDialog::getSaveFileName(m_window, tr("Save TE Script"), m_path, fileFilter());
    if (path.isEmpty()) return false;
    return writeFile(path);
}

bool Document::writeFile(const QString& path)
{
    QSaveFile f(path);
    if (!writeWhole(f, m_editor->text().toUtf8())) {
        QMessageBox::warning(
            m_window, tr("Save"),
            tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), f.errorString()));
        return false;
    }
    m_path = QFileInfo(path).absoluteFilePath();
    m_editor->setModified(false);
    m_recovery->clear();
    updateRecentFiles(m_path);
    updateTitle();
    return true;
}

void Document::setRecentMenu(QMenu* menu)
{
    m_recentMenu = menu;
    rebuildRecentMenu();
}

void Document::updateRecentFiles(const QString& path)
{
    QSettings s;
    QStringList recent = s.value(QStringLiteral("files/recent")).toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > 10)
        recent.removeLast();
    s.setValue(QStringLiteral("files/recent"), recent);
    rebuildRecentMenu();
}

void Document::rebuildRecentMenu()
{
    if (!m_recentMenu) return;
    m_recentMenu->clear();
    // As many as updateRecentFiles keeps, whatever the settings file says.
    QStringList recent = QSettings().value(QStringLiteral("files/recent")).toStringList();
    recent.removeAll(QString());
    recent = recent.mid(0, 10);
    for (const QString& p : recent)
        m_recentMenu->addAction(QDir::toNativeSeparators(p), this, [this, p] {
            if (maybeSave()) openFile(p);
        });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void Document::updateTitle()
{
    QString name = m_path.isEmpty() ? tr("untitled") : QFileInfo(m_path).fileName();
    m_window->setWindowTitle(name + QStringLiteral("[*] — Loopscope"));
    m_window->setWindowModified(m_editor->isModified());
}

bool Document::offerRecovery(bool ask)
{
    RecoveryStore::Recovery r = m_recovery->pending();
    if (!r.damage.isEmpty()) emit notice(r.damage);
    if (!r.available) return false;
    if (ask) {
        auto answer = QMessageBox::question(
            m_window, tr("Recover unsaved text"),
            tr("Loopscope did not close normally. Recover the text of %1 autosaved at %2?")
                .arg(r.documentPath.isEmpty() ? tr("an untitled script")
                                              : QFileInfo(r.documentPath).fileName(),
                     r.savedAt),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
        if (answer != QMessageBox::Yes) {
            m_recovery->clear();
            return false;
        }
    }
    setText(r.text, r.documentPath, true);
    return true;
}

void Document::secureText()
{
    m_recovery->flush();
}

void Document::setAutosaveIntervalMs(int ms)
{
    m_recovery->setIntervalMs(ms);
}

void Document::closed()
{
    m_recovery->clear();
}

} // namespace loopscope
