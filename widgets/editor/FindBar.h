// The editor's find bar: find (Ctrl+F) and replace (Ctrl+H) in a QScintilla editor, plain text,
// case-insensitive unless the text has a capital, wrapping around; Esc closes it.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QToolButton;
class QsciScintilla;

namespace loopscope {

class FindBar : public QWidget {
    Q_OBJECT

public:
    FindBar(QsciScintilla* editor, QWidget* parent);

    // Shows the bar (with the replace row or not), with the editor's one-line selection to find.
    void open(bool withReplace);
    void close();
    void setFindText(const QString& text);
    void setReplaceText(const QString& text);

    bool findNext(bool backwards = false); // false: not found
    bool replaceOne();                     // replaces the match selected, then finds the next
    int replaceAll();                      // one undo step; how many were replaced

private:
    QsciScintilla* m_editor;
    QLineEdit* m_find = nullptr;
    QLineEdit* m_replace = nullptr;
    QLabel* m_status = nullptr;
    QToolButton* m_replaceOne = nullptr;
    QToolButton* m_replaceAll = nullptr;
};

} // namespace loopscope
