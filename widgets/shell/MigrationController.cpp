#include "shell/MigrationController.h"

#include "editor/EditorPane.h"
#include "shell/Document.h"
#include "views/MigrationView.h"

#include <QKeySequence>
#include <QMenu>

namespace loopscope {

MigrationController::MigrationController(QWidget* window, Document* document, EditorPane* editor,
                                         std::function<QString()> variant)
    : QObject(window), m_window(window), m_document(document), m_editor(editor),
      m_variant(std::move(variant))
{
}

void MigrationController::addFileAction(QMenu* file)
{
    QAction* convert = file->addAction(tr("Convert to &TensorIR…"), this, [this] {
        show();
        m_view->setFocus();
    });
    convert->setToolTip(tr("Write the script for TVM 0.20 or later: each TE variant's schedule "
                           "as the tir.Schedule calls that make its loop nest"));
}

void MigrationController::addViewAction(QMenu* view)
{
    view->addAction(tr("&TensorIR Form…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I), this,
                    &MigrationController::show);
}

void MigrationController::show()
{
    if (!m_view) {
        m_view = new MigrationView(m_window);
        connect(m_view, &MigrationView::openRequested, this, [this](const QString& path) {
            if (m_document->maybeSave()) m_document->openFile(path);
        });
    }
    m_view->setScript(m_editor->text(), m_document->path());
    m_view->chooseVariant(m_variant());
    m_view->show();
    m_view->raise();
}

} // namespace loopscope
