// A read-only view of TVMScript text (one side of the loop-nest view): syntax colors, line numbers,
// the lines and parts of lines a schedule step changed, marks on the loops it created or changed,
// and clicks on loop variables reported as axis names.
#pragma once

#include "views/CodeEdit.h"

#include <QHash>
#include <QList>
#include <QString>

namespace loopscope {

class TirHighlighter;

enum class LineChange { None, Added, Removed, Changed, Filler };

// Which side of a diff the view shows: changes are tinted red on the before side, green after.
enum class DiffSide { Before, After };

// A range of a line in QString (UTF-16) units.
struct TextRange {
    int start = 0;
    int length = 0;
};

struct TirLine {
    QString text;
    int number = 0; // 1-based line number in its printing; 0 for a filler line (no text)
    LineChange change = LineChange::None;
    QList<TextRange> changedParts; // LineChange::Changed only
    bool changedLoop = false;      // a loop header the step created or changed
};

class TirEditor : public CodeEdit {
    Q_OBJECT

public:
    explicit TirEditor(QWidget* parent = nullptr);
    ~TirEditor() override;

    // Plain TIR: numbered lines, no change marks.
    void setTir(const QString& text);
    // Decorated lines (a diff side, or a step with its changes marked).
    void setLines(const QList<TirLine>& lines, DiffSide side = DiffSide::After);
    const QList<TirLine>& lines() const { return m_lines; }

    // The block showing line `number` (1-based) of the printing, or -1.
    int blockOfLine(int number) const;
    // The same, leaving out the lines of the printing before the step (removed lines of a
    // unified diff): the line of the step's own printing.
    int blockOfAfterLine(int number) const;
    // The line of the step's own printing a block shows (0: a filler or a removed line).
    int afterLineOfBlock(int block) const;

    // More for the gutter's tooltip of a block (a loop's footprint, its tail, its time).
    void setGutterTips(const QHash<int, QString>& byBlock);
    // The first block with a change, or -1.
    int firstChangedBlock() const;
    // Scrolls so that `block` is visible with a few lines of context above it.
    void scrollToBlock(int block);

    // The loop variable at a position of the viewport ("" if none): the variable under the point
    // in a `for` header, the variable of the T.grid extent under it, else the header's first one.
    QString loopVariableAt(const QPoint& viewportPos) const;

signals:
    // `block`: the line of the loop's header.
    void loopClicked(const QString& axisName, int block);

protected:
    QString gutterLabel(const QTextBlock& block) const override;
    int gutterDigits() const override;
    bool gutterMarked(const QTextBlock& block) const override;
    QString gutterToolTip(const QTextBlock& block) const override;
    void paletteChanged() override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    bool viewportEvent(QEvent* event) override;

private:
    void applyDecorations();
    QString loopVariableAt(const QPoint& viewportPos, bool fallbackToFirst) const;

    QList<TirLine> m_lines;
    QHash<int, QString> m_tips;
    DiffSide m_side = DiffSide::After;
    int m_maxNumber = 0;
    QPoint m_pressPos;
    bool m_pressed = false;
    TirHighlighter* m_highlighter = nullptr;
};

} // namespace loopscope
