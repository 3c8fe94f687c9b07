// A read-only view of generated code (LLVM IR or assembly) with light syntax colors, line numbers
// and a Copy button, or a placeholder message while there is no code.
#pragma once

#include <QList>
#include <QVector>
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

    // Assembly with line info (`.loc FILE LINE COL` directives, as `export --lines` writes) is
    // shown without them, each instruction linked to its line of the step's printed TIR.
    void setText(const QString& text, Language language);

    // A profiled kernel's instructions: each with its TIR line (0: none) and its share of the
    // samples (the heat column), shown in place of the text.
    struct AsmRow {
        QString text;
        int line = 0;
        double share = 0;
    };
    void setAssemblyRows(const QList<AsmRow>& rows);
    bool showsProfile() const { return m_profiled; }

    // The TIR line of a row of the text (0: none) and the rows of a TIR line.
    int tirLineOfRow(int row) const;
    QList<int> rowsOfTirLine(int line) const;
    // Tints the rows of a TIR line (0: none) and scrolls them into view.
    void setLinkedTirLine(int line);
    int linkedTirLine() const { return m_linkedLine; }

    // The vector width of an instruction's operation (AT&T syntax): 512, 256 or 128 for packed
    // operations on zmm, ymm or xmm registers, 1 for a scalar floating-point one (vaddss on an
    // xmm register), 0 for none.
    static int vectorBits(const QString& instruction);
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
    // The user put the cursor on an instruction of TIR line `line` (0: on none).
    void tirLineSelected(int line);

private:
    void annotate(); // the gutter's TIR lines, vector widths, heat
    Language m_language = Language::Plain;
    QVector<int> m_rowLine; // per row of the text: its TIR line (0: none); empty: no line info
    QVector<double> m_rowShare;
    bool m_profiled = false;
    int m_linkedLine = 0;
    CodeEdit* m_edit = nullptr;
    CodeHighlighter* m_highlighter = nullptr;
    QLabel* m_caption = nullptr;
    QToolButton* m_copyButton = nullptr;
};

} // namespace loopscope
