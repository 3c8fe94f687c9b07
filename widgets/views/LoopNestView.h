// The loop-nest view: the TIR of a variant after one of its schedule steps, either alone with the
// step's changes marked or side by side with the TIR before the step, in TVM's printing or the
// structured one. Clicking a loop variable reports the axis for the schedule panel.
#pragma once

#include "explore/Explorer.h"
#include "views/TirEditor.h"

#include <QVector>
#include <QWidget>

class QAbstractButton;
class QLabel;
class QSplitter;
class QStackedWidget;

namespace loopscope {

class TirEditor;

// Two printings of a loop nest aligned line by line for a side-by-side view (fillers where a side
// has no line), the after side alone with its changes marked, and a summary of what changed.
struct DiffedLines {
    QList<TirLine> left, right; // side by side
    QList<TirLine> after;       // the after printing alone
    QString summary;            // "2 loops new or changed · 3 lines changed"
};
DiffedLines diffLines(const QString& before, const QString& after);

// A profile of a step's kernel: each line's share of the samples and each loop line's (its body's
// and its own), for the printing `tir` (TVM's) they number.
struct LineHeat {
    QString tir;
    QVector<double> line; // [line - 1]
    QVector<double> loop; // [line - 1]; -1 for a line that is no loop
    QString summary;      // "1,234 samples on 2 threads · 97 % in the kernel"
};

class LoopNestView : public QWidget {
    Q_OBJECT

public:
    enum class Mode { Step, Diff };
    Q_ENUM(Mode)

    explicit LoopNestView(QWidget* parent = nullptr);
    ~LoopNestView() override;

    // The variant to show (a copy is kept). Keeps the current step, mode and scroll position when
    // the step still exists; otherwise shows the variant's last step.
    void setVariant(const VariantView& variant);
    // Shows `message` instead of a loop nest (no script, or the script has an error).
    void clear(const QString& message = {});

    // The step to show, 0 being the untransformed loop nest; out-of-range values are clamped.
    void showStep(int step);
    void setMode(Mode mode);
    void setPrinting(bool structured);

    // The shown step's profile, painted as heat bars in the margin when its printing is the one
    // shown (TVM's, the step alone or the after side of a diff); empty `tir`: none.
    void setHeat(const LineHeat& heat);
    const LineHeat& heat() const { return m_heat; }
    // Lines of the shown step's printing tinted as linked to the assembly's selection.
    void setLinkedLines(const QList<int>& lines);
    // The editor showing the step's printing (the after side in a diff).
    TirEditor* afterEditor() const;
    // How many characters of a line that editor shows, beside its gutter.
    int visibleColumns() const;
    // The cache levels the footprints are measured against (default: the host's).
    void setCaches(const std::vector<CacheLevel>& caches);

    int currentStep() const { return m_step; }
    Mode mode() const { return m_mode; }
    bool structuredPrinting() const { return m_structured; }
    const VariantView& variant() const { return m_variant; }

signals:
    // The clicked loop's axis and stage as the schedule panel lists them ("i_outer", "C"; a
    // reduction's init loop "i_init" is the axis "i"), from the step's PrintedLoop; a loop that
    // could not be traced to an axis reports its printed name and no stage.
    void loopClicked(const QString& axisName, const QString& stageName);
    // The user switched the mode or the printing with the toolbar.
    void modeChanged(loopscope::LoopNestView::Mode mode);
    void printingChanged(bool structured);
    // The user put the cursor on a line of the step's TVM printing (0: on no such line).
    void tirLineSelected(int line);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    bool tooNarrowForSideBySide() const;
    enum class Scroll { Keep, ToFirstChange };
    void refresh(Scroll scroll);
    void showMessage(const QString& title, const QString& detail, bool isError);
    void updateToolbar();
    void onLoopClicked(const QString& name, int block);
    QString printingOf(int step) const;
    void decorate(
        bool scrollToLinked = false); // heat, footprint and tail notes, links on the shown editor

    VariantView m_variant;
    bool m_hasVariant = false;
    int m_step = -1;
    Mode m_mode = Mode::Step;
    bool m_wasNarrow = false;
    bool m_structured = false;
    QString m_shownKey; // what is on screen, to skip identical refreshes
    LineHeat m_heat;
    QList<int> m_linked;
    std::vector<CacheLevel> m_caches;

    QAbstractButton* m_stepButton = nullptr;
    QAbstractButton* m_diffButton = nullptr;
    QAbstractButton* m_tvmButton = nullptr;
    QAbstractButton* m_structuredButton = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_summary = nullptr;
    QStackedWidget* m_pages = nullptr;
    TirEditor* m_stepEditor = nullptr;
    QWidget* m_diffPage = nullptr;
    QSplitter* m_splitter = nullptr;
    QLabel* m_beforeTitle = nullptr;
    QLabel* m_afterTitle = nullptr;
    TirEditor* m_beforeEditor = nullptr;
    TirEditor* m_afterEditor = nullptr;
    QWidget* m_messagePage = nullptr;
    QLabel* m_messageIcon = nullptr;
    QLabel* m_messageText = nullptr;
};

} // namespace loopscope
