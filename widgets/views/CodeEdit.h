// The read-only code text shared by the TIR and LLVM IR / assembly views: monospace, no wrapping,
// a line-number gutter whose labels and marks subclasses can choose.
#pragma once

#include <QHash>
#include <QList>
#include <QPlainTextEdit>
#include <QTextBlock>

namespace loopscope {

class CodeEdit : public QPlainTextEdit {
    Q_OBJECT

public:
    explicit CodeEdit(QWidget* parent = nullptr);

    int gutterWidth() const;

    // Heat: each block's share of the measured time (0..1) in a column of bars at the gutter's
    // left, and for a loop line its loop's share as a lighter bar under it. Empty: no column.
    struct Heat {
        double own = 0;
        double loop = -1; // -1: not a loop line
    };
    void setHeat(const QHash<int, Heat>& byBlock);
    bool hasHeat() const { return !m_heat.isEmpty(); }
    Heat heatOf(int block) const { return m_heat.value(block, Heat{0, -1}); }

    // Notes painted after the end of a block's text (footprints, tails); `warn` in a stronger
    // color.
    struct Note {
        QString text;
        bool warn = false;
    };
    void setNotes(const QHash<int, Note>& byBlock);
    Note noteOf(int block) const { return m_notes.value(block); }

    // Blocks tinted as linked to the selection in another view; scrolls the first into view.
    void setLinkedBlocks(const QList<int>& blocks, bool scroll = true);
    const QList<int>& linkedBlocks() const { return m_linked; }

protected:
    // The gutter label of a block ("" for none); the default is its 1-based number.
    virtual QString gutterLabel(const QTextBlock& block) const;
    // The widest label the gutter must fit, in digits.
    virtual int gutterDigits() const;
    // Whether the block carries the gutter mark (a bar at the gutter's edge), and its tooltip.
    virtual bool gutterMarked(const QTextBlock& block) const;
    virtual QString gutterToolTip(const QTextBlock& block) const;
    // Called when the palette or style changes: recompute derived colors here.
    virtual void paletteChanged();

    void updateGutterWidth();
    void resizeEvent(QResizeEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    friend class CodeEditGutter;
    void paintGutter(QPaintEvent* event);
    QTextBlock blockAtGutterY(int y) const;

    int heatWidth() const;

    QWidget* m_gutter = nullptr;
    QHash<int, Heat> m_heat;
    QHash<int, Note> m_notes;
    QList<int> m_linked;
};

} // namespace loopscope
