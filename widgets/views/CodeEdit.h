// The read-only code text shared by the TIR and LLVM IR / assembly views: monospace, no wrapping,
// a line-number gutter whose labels and marks subclasses can choose.
#pragma once

#include <QPlainTextEdit>
#include <QTextBlock>

namespace loopscope {

class CodeEdit : public QPlainTextEdit {
    Q_OBJECT

public:
    explicit CodeEdit(QWidget* parent = nullptr);

    int gutterWidth() const;

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
    void changeEvent(QEvent* event) override;

private:
    friend class CodeEditGutter;
    void paintGutter(QPaintEvent* event);
    QTextBlock blockAtGutterY(int y) const;

    QWidget* m_gutter = nullptr;
};

} // namespace loopscope
