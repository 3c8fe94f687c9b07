// The script editor: the one wrapper around QScintilla (Python lexing with TE names highlighted,
// completion, call tips, diagnostics at their line). Lines and columns in this API are 1-based.
#pragma once

#include <QColor>
#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <memory>

namespace loopscope {

class EditorPane : public QWidget {
    Q_OBJECT

public:
    struct Diagnostic {
        int line = 0;   // 1-based
        int column = 0; // 1-based, 0 for the whole line
        QString message;
    };

    // What completion offers at a point: the candidates and how many characters of the word
    // being completed are already typed.
    struct Completion {
        QStringList candidates;
        int typed = 0;
    };

    explicit EditorPane(QWidget* parent = nullptr);
    ~EditorPane() override;

    QString text() const;
    // Loads a document: replaces the text, clears undo history and the modified flag.
    void setText(const QString& text);
    // Replaces the text as one undoable edit (the modified flag follows).
    void replaceText(const QString& text);

    // Inserts `statement` (one or more lines) after line `lastLine`, indented like the statement
    // that ends there, as one undoable action; moves the cursor to it. Returns the 1-based line of
    // the statement's first line.
    int appendToVariantBlock(int lastLine, const QString& statement);
    // Inserts `text` (one or more lines, taken as they are) after line `line` (0: at the top) as
    // one undoable action. Returns the 1-based line of its first line.
    int insertAfterLine(int line, const QString& text);

    int cursorLine() const;
    int lineCount() const;
    void gotoLine(int line);

    bool isModified() const;
    void setModified(bool modified);
    bool isUndoAvailable() const;
    bool isRedoAvailable() const;
    void setReadOnly(bool readOnly);
    bool isReadOnly() const;

    // Names the script defines (tensors, axes, variables), offered by completion.
    void setScriptNames(const QStringList& names);
    // Variables holding schedules: completion after "s." offers the schedule's methods.
    void setScheduleNames(const QStringList& names);

    // Shows each diagnostic as an annotation under its line and a marker in the margin; an empty
    // list clears them.
    void setDiagnostics(const QList<Diagnostic>& diagnostics);
    QString annotationText(int line) const;
    bool hasDiagnosticMarker(int line) const;

    // What completion offers after `lineBeforeCursor` (the text of the line up to the cursor).
    Completion completionsAt(const QString& lineBeforeCursor) const;
    // The call tip for a call opened at the end of `lineBeforeCursor` ("s[C].split("), or "".
    static QString callTipAt(const QString& lineBeforeCursor);

    // Opens the completion list at the cursor (also bound to Ctrl+Space).
    void complete();

    // Find and replace: the find bar under the editor (Esc closes it). Searches are plain text,
    // case-insensitive unless the text has a capital, and wrap around.
    void showFind(bool withReplace);
    bool isFindVisible() const;
    void setFindText(const QString& text);
    void setReplaceText(const QString& text);
    bool findNext(bool backwards = false); // false: not found
    bool replaceOne();                     // replaces the match selected, then finds the next
    int replaceAll();                      // one undo step; how many were replaced

    // Text size, in steps from the default (0).
    void setZoom(int steps);
    int zoom() const;
    // How many characters of a line the editor shows, beside its margins.
    int visibleColumns() const;

    // The editor's background and the colours of its syntax styles (for checking contrast).
    QColor paperColor() const;
    QList<QColor> syntaxColors() const;

public slots:
    void undo();
    void redo();

signals:
    void textEdited(); // any change of the text, typed or programmatic
    void cursorLineChanged(int line);
    void modificationChanged(bool modified);

protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace loopscope
