// A read-only view of generated code (LLVM IR or assembly) with light syntax colors, line numbers
// and a Copy button, or a placeholder message while there is no code.
#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QToolButton;

namespace loopscope {

class CodeEdit;
class CodeHighlighter;

class CodeView : public QWidget {
    Q_OBJECT

public:
    enum class Language { Plain, LlvmIr, Assembly };
    Q_ENUM(Language)

    explicit CodeView(QWidget* parent = nullptr);
    ~CodeView() override;

    void setText(const QString& text, Language language);
    QString text() const;
    Language language() const { return m_language; }
    void clear();

    // The message shown while the view has no text ("Compiling…", "Run the variant to see its
    // IR"). Does not clear the text.
    void setPlaceholder(const QString& message);
    QString placeholder() const;

    // A short caption on the toolbar ("LLVM IR · tiled · 214 lines").
    void setCaption(const QString& caption);

    QPlainTextEdit* textEdit() const;

public slots:
    // Copies the selection if there is one, else all the text.
    void copy();

signals:
    void copied();

private:
    Language m_language = Language::Plain;
    CodeEdit* m_edit = nullptr;
    CodeHighlighter* m_highlighter = nullptr;
    QLabel* m_caption = nullptr;
    QToolButton* m_copyButton = nullptr;
};

} // namespace loopscope
