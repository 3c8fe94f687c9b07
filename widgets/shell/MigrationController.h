// The way to today's TVM from the window: View > TensorIR Form shows the shown variant's TE
// steps beside their tir.Schedule calls (views/MigrationView), and File > Convert to TensorIR
// opens the same view to write the whole script converted, which the window may then open.
#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QMenu;
class QWidget;

namespace loopscope {

class Document;
class EditorPane;
class MigrationView;

class MigrationController : public QObject {
    Q_OBJECT

public:
    // `variant` names the variant the window shows.
    MigrationController(QWidget* window, Document* document, EditorPane* editor,
                        std::function<QString()> variant);

    // File > Convert to TensorIR…; View > TensorIR Form….
    void addFileAction(QMenu* file);
    void addViewAction(QMenu* view);
    // Shows the view on the editor's text and the shown variant.
    void show();
    MigrationView* view() const { return m_view; } // null until first shown

private:
    QWidget* m_window;
    Document* m_document;
    EditorPane* m_editor;
    std::function<QString()> m_variant;
    MigrationView* m_view = nullptr;
};

} // namespace loopscope
