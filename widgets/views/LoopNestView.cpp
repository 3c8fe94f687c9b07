#include "views/LoopNestView.h"

#include "views/TirDiff.h"
#include "views/TirEditor.h"
#include "views/ViewColors.h"

#include <QButtonGroup>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QScrollBar>
#include <QSet>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTextBlock>
#include <QTextDocument>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace loopscope {

namespace {

// A one-line label that elides instead of growing its parent; the full text is its tooltip.
class ElidedLabel : public QLabel {
public:
    using QLabel::QLabel;
    QSize minimumSizeHint() const override
    {
        return {fontMetrics().averageCharWidth() * 8, QLabel::minimumSizeHint().height()};
    }
    QSize sizeHint() const override
    {
        return {fontMetrics().averageCharWidth() * 8, QLabel::sizeHint().height()};
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.setPen(palette().color(foregroundRole()));
        const QRect r = contentsRect();
        p.drawText(r, int(alignment()) | Qt::TextSingleLine,
                   fontMetrics().elidedText(text(), Qt::ElideRight, r.width()));
    }
};

QToolButton* makeToggle(const QString& text, const QString& tip, QWidget* parent)
{
    auto* b = new QToolButton(parent);
    b->setText(text);
    b->setToolTip(tip);
    b->setCheckable(true);
    b->setAutoRaise(true);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    b->setFocusPolicy(Qt::TabFocus);
    return b;
}

QList<TextRange> toTextRanges(const std::string& line, const QString& text,
                              const std::vector<CharRange>& ranges)
{
    QList<TextRange> out;
    const bool ascii = int(line.size()) == text.size();
    for (const CharRange& r : ranges) {
        if (ascii) {
            out.append({r.start, r.length});
        } else {
            int start = int(QString::fromUtf8(line.data(), r.start).size());
            int end = int(QString::fromUtf8(line.data(), r.start + r.length).size());
            out.append({start, end - start});
        }
    }
    return out;
}

TirLine sideLine(const std::vector<std::string>& lines, int index, LineChange change,
                 const std::vector<CharRange>& parts)
{
    TirLine l;
    if (index < 0) {
        l.change = LineChange::Filler;
        return l;
    }
    const std::string& s = lines[std::size_t(index)];
    l.text = QString::fromStdString(s);
    l.number = index + 1;
    l.change = change;
    if (change == LineChange::Changed) l.changedParts = toTextRanges(s, l.text, parts);
    return l;
}

struct DiffCounts {
    int changed = 0, added = 0, removed = 0, loops = 0;
};

DiffCounts countOf(const TirDiff& diff, std::size_t loops)
{
    DiffCounts c;
    c.loops = int(loops);
    for (const DiffRow& row : diff.rows) {
        if (row.kind == DiffKind::Changed)
            ++c.changed;
        else if (row.kind == DiffKind::Added)
            ++c.added;
        else if (row.kind == DiffKind::Removed)
            ++c.removed;
    }
    return c;
}

QString summaryOf(const DiffCounts& c)
{
    if (c.changed + c.added + c.removed == 0) return LoopNestView::tr("no change to the loop nest");
    QStringList parts;
    if (c.loops == 1)
        parts << LoopNestView::tr("1 loop new or changed");
    else if (c.loops > 1)
        parts << LoopNestView::tr("%1 loops new or changed").arg(c.loops);
    if (c.changed == 1)
        parts << LoopNestView::tr("1 line changed");
    else if (c.changed > 1)
        parts << LoopNestView::tr("%1 lines changed").arg(c.changed);
    if (c.added) parts << LoopNestView::tr("%1 added").arg(c.added);
    if (c.removed) parts << LoopNestView::tr("%1 removed").arg(c.removed);
    return parts.join(u" · "_s);
}

} // namespace

DiffedLines diffLines(const QString& before, const QString& after)
{
    const QByteArray b = before.toUtf8(), a = after.toUtf8();
    const TirDiff diff = diffTir(std::string_view(b.constData(), b.size()),
                                 std::string_view(a.constData(), a.size()));
    const std::vector<int> loops = changedLoopLines(diff);
    const QSet<int> loopSet(loops.begin(), loops.end());
    DiffedLines out;
    out.summary = summaryOf(countOf(diff, loops.size()));
    for (const DiffRow& row : diff.rows) {
        LineChange change = LineChange::None;
        if (row.kind == DiffKind::Changed) change = LineChange::Changed;
        TirLine r =
            sideLine(diff.rightLines, row.right,
                     row.kind == DiffKind::Added ? LineChange::Added : change, row.rightRanges);
        r.changedLoop = row.right >= 0 && loopSet.contains(row.right);
        out.left.append(sideLine(diff.leftLines, row.left,
                                 row.kind == DiffKind::Removed ? LineChange::Removed : change,
                                 row.leftRanges));
        if (row.right >= 0) out.after.append(r);
        out.right.append(r);
    }
    return out;
}

namespace {

QString stepTitle(const VariantView& v, int k)
{
    const StepView& s = v.steps[std::size_t(k)];
    const int last = int(v.steps.size()) - 1;
    if (k == 0)
        return LoopNestView::tr("%1 · untransformed · line %2")
            .arg(QString::fromStdString(v.name))
            .arg(s.line);
    return LoopNestView::tr("%1 · step %2/%3 · line %4 · %5")
        .arg(QString::fromStdString(v.name))
        .arg(k)
        .arg(last)
        .arg(s.line)
        .arg(QString::fromStdString(s.label));
}

QString paneTitle(const VariantView& v, int k)
{
    const StepView& s = v.steps[std::size_t(k)];
    if (k == 0) return LoopNestView::tr("untransformed");
    return LoopNestView::tr("step %1 · %2").arg(k).arg(QString::fromStdString(s.label));
}

} // namespace

LoopNestView::LoopNestView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);

    // Toolbar: [Step | Diff]  [TVM | Structured]  title ........ summary
    auto* bar = new QWidget(this);
    bar->setObjectName(u"loopNestToolbar"_s);
    auto* barLayout = new QHBoxLayout(bar);
    barLayout->setContentsMargins(4, 2, 6, 2);
    barLayout->setSpacing(2);
    m_stepButton =
        makeToggle(tr("Step"), tr("The TIR after the selected step, its changes marked"), bar);
    m_diffButton =
        makeToggle(tr("Diff"), tr("The TIR before and after the selected step, side by side"), bar);
    m_tvmButton = makeToggle(
        tr("TVM"), tr("TVM's printing: flattened buffers, after the lowering passes"), bar);
    m_structuredButton =
        makeToggle(tr("Structured"),
                   tr("The loop nest before flattening: multi-dimensional buffer accesses"), bar);
    auto* modeGroup = new QButtonGroup(this);
    modeGroup->addButton(m_stepButton);
    modeGroup->addButton(m_diffButton);
    auto* printingGroup = new QButtonGroup(this);
    printingGroup->addButton(m_tvmButton);
    printingGroup->addButton(m_structuredButton);
    m_stepButton->setChecked(true);
    m_tvmButton->setChecked(true);
    auto separator = [bar] {
        auto* line = new QWidget(bar);
        line->setFixedWidth(12);
        return line;
    };
    m_title = new ElidedLabel(bar);
    m_title->setObjectName(u"stepTitle"_s);
    // Elided like the title: a long summary never widens the view.
    m_summary = new ElidedLabel(bar);
    m_summary->setObjectName(u"stepSummary"_s);
    m_summary->setForegroundRole(QPalette::PlaceholderText);
    barLayout->addWidget(m_stepButton);
    barLayout->addWidget(m_diffButton);
    barLayout->addWidget(separator());
    barLayout->addWidget(m_tvmButton);
    barLayout->addWidget(m_structuredButton);
    barLayout->addWidget(separator());
    barLayout->addWidget(m_title, 2);
    barLayout->addWidget(m_summary, 1);
    layout->addWidget(bar);

    m_pages = new QStackedWidget(this);
    layout->addWidget(m_pages, 1);

    m_stepEditor = new TirEditor(m_pages);
    m_stepEditor->setObjectName(u"stepPane"_s);
    m_pages->addWidget(m_stepEditor);

    m_diffPage = new QWidget(m_pages);
    auto* diffLayout = new QVBoxLayout(m_diffPage);
    diffLayout->setContentsMargins(0, 0, 0, 0);
    m_splitter = new QSplitter(Qt::Horizontal, m_diffPage);
    m_splitter->setChildrenCollapsible(false);
    auto makePane = [this](const QString& name, QLabel*& title, TirEditor*& editor) {
        auto* pane = new QWidget(m_splitter);
        auto* v = new QVBoxLayout(pane);
        v->setContentsMargins(0, 0, 0, 0);
        v->setSpacing(0);
        title = new ElidedLabel(pane);
        title->setContentsMargins(6, 2, 6, 2);
        title->setForegroundRole(QPalette::PlaceholderText);
        editor = new TirEditor(pane);
        editor->setObjectName(name);
        v->addWidget(title);
        v->addWidget(editor, 1);
        m_splitter->addWidget(pane);
    };
    makePane(u"beforePane"_s, m_beforeTitle, m_beforeEditor);
    makePane(u"afterPane"_s, m_afterTitle, m_afterEditor);
    diffLayout->addWidget(m_splitter);
    m_caches = hostCaches();
    // The cursor's line of the step's printing, for the assembly to follow.
    for (TirEditor* e : {m_stepEditor, m_afterEditor})
        connect(e, &QPlainTextEdit::cursorPositionChanged, this, [this, e] {
            if (e != afterEditor() || m_structured || !e->hasFocus()) return;
            emit tirLineSelected(e->afterLineOfBlock(e->textCursor().blockNumber()));
        });
    m_pages->addWidget(m_diffPage);

    m_messagePage = new QWidget(m_pages);
    auto* messageLayout = new QHBoxLayout(m_messagePage);
    messageLayout->setContentsMargins(16, 16, 16, 16);
    messageLayout->setSpacing(10);
    m_messageIcon = new QLabel(m_messagePage);
    m_messageIcon->setAlignment(Qt::AlignTop);
    m_messageText = new QLabel(m_messagePage);
    m_messageText->setObjectName(u"messageText"_s);
    m_messageText->setWordWrap(true);
    m_messageText->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_messageText->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_messageText->setTextFormat(Qt::RichText);
    messageLayout->addWidget(m_messageIcon, 0, Qt::AlignTop);
    messageLayout->addWidget(m_messageText, 1);
    m_pages->addWidget(m_messagePage);

    // Both diff panes have the same rows (fillers opposite added and removed lines): scroll
    // together.
    auto sync = [](QScrollBar* a, QScrollBar* b) {
        connect(a, &QScrollBar::valueChanged, b, &QScrollBar::setValue);
        connect(b, &QScrollBar::valueChanged, a, &QScrollBar::setValue);
    };
    sync(m_beforeEditor->verticalScrollBar(), m_afterEditor->verticalScrollBar());
    sync(m_beforeEditor->horizontalScrollBar(), m_afterEditor->horizontalScrollBar());

    for (TirEditor* e : {m_stepEditor, m_beforeEditor, m_afterEditor})
        connect(e, &TirEditor::loopClicked, this, &LoopNestView::onLoopClicked);
    connect(m_stepButton, &QAbstractButton::clicked, this, [this] {
        setMode(Mode::Step);
        emit modeChanged(m_mode);
    });
    connect(m_diffButton, &QAbstractButton::clicked, this, [this] {
        setMode(Mode::Diff);
        emit modeChanged(m_mode);
    });
    connect(m_tvmButton, &QAbstractButton::clicked, this, [this] {
        setPrinting(false);
        emit printingChanged(false);
    });
    connect(m_structuredButton, &QAbstractButton::clicked, this, [this] {
        setPrinting(true);
        emit printingChanged(true);
    });

    clear();
}

LoopNestView::~LoopNestView() = default;

void LoopNestView::setVariant(const VariantView& variant)
{
    const bool sameVariant = m_hasVariant && variant.name == m_variant.name;
    m_variant = variant;
    m_hasVariant = true;
    const int count = int(m_variant.steps.size());
    const bool keepStep = sameVariant && m_step >= 0 && m_step < count;
    if (!keepStep) m_step = count - 1;
    refresh(keepStep ? Scroll::Keep : Scroll::ToFirstChange);
}

void LoopNestView::clear(const QString& message)
{
    m_variant = {};
    m_hasVariant = false;
    m_step = -1;
    m_shownKey.clear();
    m_title->setText(QString());
    m_title->setToolTip(QString());
    m_summary->clear();
    showMessage(message.isEmpty() ? tr("No loop nest to show") : message,
                message.isEmpty() ? tr("Select a variant or one of its steps.") : QString(), false);
}

void LoopNestView::showStep(int step)
{
    if (!m_hasVariant || m_variant.steps.empty()) return;
    step = std::clamp(step, 0, int(m_variant.steps.size()) - 1);
    const bool same = step == m_step;
    m_step = step;
    refresh(same ? Scroll::Keep : Scroll::ToFirstChange);
}

void LoopNestView::setMode(Mode mode)
{
    if (mode == m_mode) return;
    m_mode = mode;
    updateToolbar();
    refresh(Scroll::ToFirstChange);
}

void LoopNestView::setPrinting(bool structured)
{
    if (structured == m_structured) return;
    m_structured = structured;
    updateToolbar();
    refresh(Scroll::ToFirstChange);
}

void LoopNestView::updateToolbar()
{
    m_stepButton->setChecked(m_mode == Mode::Step);
    m_diffButton->setChecked(m_mode == Mode::Diff);
    m_tvmButton->setChecked(!m_structured);
    m_structuredButton->setChecked(m_structured);
}

QString LoopNestView::printingOf(int step) const
{
    const StepView& s = m_variant.steps[std::size_t(step)];
    const std::string& text = m_structured && !s.structured.empty() ? s.structured : s.tir;
    return QString::fromStdString(text);
}

void LoopNestView::showMessage(const QString& title, const QString& detail, bool isError)
{
    const int size = style()->pixelMetric(QStyle::PM_MessageBoxIconSize, nullptr, this);
    const QIcon icon = style()->standardIcon(
        isError ? QStyle::SP_MessageBoxCritical : QStyle::SP_MessageBoxInformation, nullptr, this);
    m_messageIcon->setPixmap(icon.pixmap(size, size));
    QString html = u"<p><b>"_s + title.toHtmlEscaped() + u"</b></p>"_s;
    if (!detail.isEmpty()) {
        const QColor color = isError ? errorColor(palette()) : palette().color(QPalette::Text);
        html += u"<p style=\"white-space: pre-wrap; color: "_s + color.name() + u"\"><tt>"_s +
                detail.toHtmlEscaped() + u"</tt></p>"_s;
    }
    m_messageText->setText(html);
    m_pages->setCurrentWidget(m_messagePage);
    m_shownKey.clear();
}

bool LoopNestView::tooNarrowForSideBySide() const
{
    // Two panes of at least 60 characters each.
    return width() < 2 * 60 * fontMetrics().horizontalAdvance(u'x');
}

void LoopNestView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (m_mode != Mode::Diff || !m_hasVariant) return;
    const bool narrow = tooNarrowForSideBySide();
    if (narrow != m_wasNarrow) {
        m_wasNarrow = narrow;
        refresh(Scroll::Keep);
    }
}

void LoopNestView::refresh(Scroll scroll)
{
    if (!m_hasVariant) return;
    if (m_variant.steps.empty()) {
        showMessage(tr("The variant has no steps"), {}, false);
        return;
    }
    const int k = m_step;
    const StepView& step = m_variant.steps[std::size_t(k)];
    m_title->setText(stepTitle(m_variant, k));
    m_title->setToolTip(m_title->text());

    if (step.error) {
        m_summary->clear();
        const Diagnostic& d = *step.error;
        QString where =
            d.loc.line > 0 ? tr("line %1:%2: ").arg(d.loc.line).arg(d.loc.col) : QString();
        showMessage(k == 0 ? tr("The variant does not lower") : tr("Step %1 does not lower").arg(k),
                    where + QString::fromStdString(d.message), true);
        return;
    }
    const QString after = printingOf(k);
    if (after.isEmpty() && !step.notLowered.empty()) {
        m_summary->clear();
        showMessage(tr("This step is too large to lower on every edit"),
                    QString::fromStdString(step.notLowered), false);
        return;
    }
    if (after.isEmpty()) {
        m_summary->clear();
        showMessage(
            tr("This step has not been lowered"),
            tr("Only the selected variant's steps are lowered; select the variant to see them."),
            false);
        return;
    }

    // The step before, when there is one to compare with.
    const bool hasBefore =
        k > 0 && !m_variant.steps[std::size_t(k - 1)].error && !printingOf(k - 1).isEmpty();
    const QString before = hasBefore ? printingOf(k - 1) : QString();
    // Side by side only when both panes get a readable width; else one pane, removed lines
    // above the lines that replaced them.
    const bool wantsDiff = m_mode == Mode::Diff && hasBefore;
    m_wasNarrow = tooNarrowForSideBySide();
    const bool sideBySide = wantsDiff && !m_wasNarrow;
    const bool unified = wantsDiff && !sideBySide;

    const QString key =
        QString::number(int(sideBySide) + 2 * int(unified)) + QChar(0) + before + QChar(0) + after;
    if (key == m_shownKey) {
        if (scroll == Scroll::ToFirstChange) {
            TirEditor* e = sideBySide ? m_afterEditor : m_stepEditor;
            e->scrollToBlock(e->firstChangedBlock());
        }
        decorate();
        return;
    }

    TirEditor* const editors[] = {m_stepEditor, m_beforeEditor, m_afterEditor};
    int vertical[3], horizontal[3];
    for (int i = 0; i < 3; ++i) {
        vertical[i] = editors[i]->verticalScrollBar()->value();
        horizontal[i] = editors[i]->horizontalScrollBar()->value();
    }

    if (!hasBefore) {
        m_stepEditor->setTir(after);
        m_summary->setText(k == 0 ? QString() : tr("nothing to compare with"));
        m_pages->setCurrentWidget(m_stepEditor);
    } else {
        const DiffedLines lines = diffLines(before, after);
        m_summary->setText(lines.summary);
        const QList<TirLine>& left = lines.left;
        QList<TirLine> right = sideBySide ? lines.right : lines.after;
        if (unified) {
            right.clear();
            for (int i = 0; i < lines.left.size(); ++i) {
                const TirLine& l = lines.left[i];
                const TirLine& r = lines.right[i];
                if (l.change == LineChange::Removed || l.change == LineChange::Changed) {
                    TirLine removed = l;
                    removed.change = LineChange::Removed;
                    removed.changedParts.clear();
                    right.append(removed);
                }
                if (r.change != LineChange::Filler) right.append(r);
            }
            m_summary->setText(lines.summary + tr(" · one pane: widen the view for two"));
        }
        if (sideBySide) {
            m_beforeEditor->setLines(left, DiffSide::Before);
            m_afterEditor->setLines(right, DiffSide::After);
            m_beforeTitle->setText(tr("Before · %1").arg(paneTitle(m_variant, k - 1)));
            m_afterTitle->setText(tr("After · %1").arg(paneTitle(m_variant, k)));
            m_beforeTitle->setToolTip(m_beforeTitle->text());
            m_afterTitle->setToolTip(m_afterTitle->text());
            m_pages->setCurrentWidget(m_diffPage);
        } else {
            m_stepEditor->setLines(right, DiffSide::After);
            m_pages->setCurrentWidget(m_stepEditor);
        }
    }
    if (!m_structured && (step.tails.tailShare > 0 || step.tails.uncounted > 0)) {
        QString note = step.tails.tailShare > 0 ? tr("%1 % of iterations in partial tiles")
                                                      .arg(step.tails.tailShare * 100, 0, 'f', 1)
                                                : QString();
        if (step.tails.uncounted > 0)
            note +=
                (note.isEmpty() ? QString() : u" · "_s) +
                (step.tails.uncounted == 1
                     ? tr("1 guard too large to count while editing")
                     : tr("%1 guards too large to count while editing").arg(step.tails.uncounted)) +
                tr(" (lower --tails counts them)");
        const QString text = m_summary->text();
        m_summary->setText(text.isEmpty() ? note : text + u" · "_s + note);
    }
    // TVM's text shows lanes guarded one by one as serial loops; say that they run on vectors.
    if (!m_structured && step.lanesOnVectors > 0) {
        const QString note = step.lanesOnVectors == 1
                                 ? tr("1 lane loop runs on vectors")
                                 : tr("%1 lane loops run on vectors").arg(step.lanesOnVectors);
        const QString text = m_summary->text();
        m_summary->setText(text.isEmpty() ? note : text + u" · "_s + note);
        m_summary->setToolTip(
            tr("A condition depends on the lane in %n loop(s) over the lanes of a vector "
               "(for ..._s in range(lanes)), so TVM runs those lanes one by one. Loopscope's "
               "compiled code runs them on vectors with masked loads and stores (see the LLVM IR "
               "tab), and computes the same numbers.",
               nullptr, step.lanesOnVectors));
    } else {
        m_summary->setToolTip(QString());
    }
    m_shownKey = key;
    decorate();

    if (scroll == Scroll::Keep) {
        for (int i = 0; i < 3; ++i) {
            editors[i]->verticalScrollBar()->setValue(vertical[i]);
            editors[i]->horizontalScrollBar()->setValue(horizontal[i]);
        }
    } else {
        TirEditor* e = sideBySide ? m_afterEditor : m_stepEditor;
        e->horizontalScrollBar()->setValue(0);
        e->scrollToBlock(std::max(0, e->firstChangedBlock()));
    }
}

TirEditor* LoopNestView::afterEditor() const
{
    return m_pages->currentWidget() == m_diffPage ? m_afterEditor : m_stepEditor;
}

int LoopNestView::visibleColumns() const
{
    const TirEditor* e = afterEditor();
    const int x = QFontMetrics(e->font()).horizontalAdvance(u'x');
    return x > 0 ? e->viewport()->width() / x : 0;
}

void LoopNestView::setHeat(const LineHeat& heat)
{
    m_heat = heat;
    decorate();
}

void LoopNestView::setLinkedLines(const QList<int>& lines)
{
    m_linked = lines;
    decorate(true);
}

void LoopNestView::setCaches(const std::vector<CacheLevel>& caches)
{
    m_caches = caches;
    decorate();
}

namespace {

QString bytes(double b)
{
    return QString::fromStdString(byteSize(b));
}

} // namespace

void LoopNestView::decorate(bool scrollToLinked)
{
    for (TirEditor* e : {m_stepEditor, m_beforeEditor, m_afterEditor}) {
        e->setHeat({});
        e->setNotes({});
        e->setGutterTips({});
        e->setLinkedBlocks({}, false);
    }
    if (!m_hasVariant || m_step < 0 || m_step >= int(m_variant.steps.size())) return;
    if (m_pages->currentWidget() == m_messagePage) return;
    const StepView& step = m_variant.steps[std::size_t(m_step)];
    TirEditor* e = afterEditor();
    // Line numbers of this printing -> blocks of the editor.
    const auto block = [&](int line) {
        return m_structured ? e->blockOfLine(line) : e->blockOfAfterLine(line);
    };

    QHash<int, CodeEdit::Note> notes;
    QHash<int, QString> tips;
    // Footprints: every loop's numbers in the gutter's tooltip; a note where a working set
    // outgrows a cache.
    const auto outgrown = outgrownLevels(step.footprints, m_caches);
    for (std::size_t i = 0; i < step.footprints.size(); ++i) {
        const LoopFootprint& f = step.footprints[i];
        const int b = block(m_structured ? f.structuredLine : f.line);
        if (b < 0) continue;
        QString tip = tr("loop %1 (%2 iterations): %3 per iteration, %4 in all")
                          .arg(QString::fromStdString(f.var))
                          .arg(f.extent)
                          .arg(bytes(f.perIteration), bytes(f.wholeLoop));
        for (const TensorFootprint& t : f.tensors)
            tip += u"\n  "_s + QString::fromStdString(t.tensor) + u": "_s + bytes(t.perIteration) +
                   u" / "_s + bytes(t.wholeLoop);
        if (!f.exact) tip += tr("\n  (bounds: an index is not affine in the loops)");
        QStringList levels;
        for (const CacheLevel& c : outgrown[i]) {
            levels << QString::fromStdString(c.name);
            tip += tr("\n  outgrows %1 (%2): reuse across its iterations is lost there")
                       .arg(QString::fromStdString(c.name), bytes(double(c.bytes)));
        }
        tips[b] += (tips[b].isEmpty() ? QString() : u"\n"_s) + tip;
        if (!levels.isEmpty()) {
            CodeEdit::Note& n = notes[b];
            const QString text =
                tr("%1: %2 outgrows %3")
                    .arg(QString::fromStdString(f.var), bytes(f.wholeLoop), levels.join(u", "_s));
            n.text += (n.text.isEmpty() ? u"\u2190 "_s : u" · "_s) + text;
            n.warn = true;
        }
    }
    // Tails, on the loop they guard (TVM's printing only).
    if (!m_structured) {
        for (const GuardedTail& t : step.tails.tails) {
            int b = block(t.loopLine);
            if (b < 0 && !t.lines.empty()) b = block(t.lines.front());
            if (b < 0) continue;
            CodeEdit::Note& n = notes[b];
            n.text += (n.text.isEmpty() ? u"\u2190 "_s : u" · "_s) +
                      tr("%1: %2 % in a partial tile")
                          .arg(QString::fromStdString(t.loop))
                          .arg(t.tailShare() * 100, 0, 'f', 1);
            tips[b] +=
                (tips[b].isEmpty() ? QString() : u"\n"_s) + QString::fromStdString(describeTail(t));
        }
    }
    // A GPU kernel's threads and occupancy at its launch, each access's coalescing or bank
    // conflicts at its statement (TVM's printing only).
    if (!m_structured) {
        for (const StepView::AccessNote& a : step.gpuAccesses) {
            const int b = block(a.line);
            if (b < 0) continue;
            CodeEdit::Note& n = notes[b];
            n.text += (n.text.isEmpty() ? u"\u2190 "_s : u" · "_s) + QString::fromStdString(a.text);
            n.warn = n.warn || a.warn;
        }
    }
    // The profile, when it is of this printing.
    const std::string& shown = m_structured ? step.structured : step.tir;
    if (!m_heat.tir.isEmpty() && m_heat.tir == QString::fromStdString(shown)) {
        QHash<int, CodeEdit::Heat> heat;
        for (int line = 1; line <= m_heat.line.size(); ++line) {
            const int b = block(line);
            if (b < 0) continue;
            CodeEdit::Heat h;
            h.own = m_heat.line[line - 1];
            h.loop = line - 1 < m_heat.loop.size() ? m_heat.loop[line - 1] : -1;
            if (h.own <= 0 && h.loop < 0) continue;
            heat[b] = h;
            QString tip = h.loop >= 0 ? tr("time: %1 % in this loop, %2 % on its own line")
                                            .arg(h.loop * 100, 0, 'f', 1)
                                            .arg(h.own * 100, 0, 'f', 1)
                                      : tr("time: %1 % on this line").arg(h.own * 100, 0, 'f', 1);
            tips[b] = tip + (tips[b].isEmpty() ? QString() : u"\n"_s + tips[b]);
        }
        // Every line gets the column, those without samples an empty track.
        if (heat.isEmpty()) heat[0] = CodeEdit::Heat{0, -1};
        e->setHeat(heat);
    }
    QList<int> linked;
    for (int line : std::as_const(m_linked))
        if (int b = block(line); b >= 0) linked << b;
    e->setNotes(notes);
    e->setGutterTips(tips);
    e->setLinkedBlocks(linked, scrollToLinked);
}

void LoopNestView::onLoopClicked(const QString& name, int block)
{
    // The block's line of its printing: the step's, or the one before it on the before side and
    // on the removed lines of one pane.
    const PrintedLoop* loop = nullptr;
    auto* editor = qobject_cast<TirEditor*>(sender());
    if (editor && m_hasVariant && block >= 0 && block < editor->lines().size()) {
        const TirLine& l = editor->lines()[block];
        const bool before = editor == m_beforeEditor || l.change == LineChange::Removed;
        const int k = m_step - (before ? 1 : 0);
        if (l.number > 0 && k >= 0 && k < int(m_variant.steps.size())) {
            const StepView& step = m_variant.steps[std::size_t(k)];
            // A T.grid line prints several loops: the clicked one is the name's place in it.
            const QByteArray utf8 = l.text.toUtf8();
            const LoopHeader header =
                parseLoopHeader(std::string_view(utf8.constData(), utf8.size()));
            const auto at = std::find(header.names.begin(), header.names.end(), name.toStdString());
            if (at != header.names.end())
                loop = printedLoopAt(m_structured ? step.structuredLoops : step.tirLoops, l.number,
                                     std::size_t(at - header.names.begin()));
        }
    }
    if (loop && !loop->stage.empty())
        emit loopClicked(QString::fromStdString(loop->axis), QString::fromStdString(loop->stage));
    else
        emit loopClicked(name, {});
}

} // namespace loopscope
