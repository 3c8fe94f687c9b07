#include "editor/SchedulePanel.h"

#include "schedule/Primitives.h"
#include "te/TirStepWriter.h"

#include "editor/ScheduleModels.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSpinBox>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

using namespace Qt::StringLiterals;

namespace loopscope {

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}
std::string ss(const QString& s)
{
    return s.toStdString();
}

struct ActionSpec {
    QString name;
    QString label;
    QString description;
};

// The panel's own words for a primitive's button, where its script name reads badly as one.
QString buttonLabel(const std::string& name)
{
    static const std::map<std::string, QString> labels = {
        {"compute_at", SchedulePanel::tr("Compute at")},
        {"compute_inline", SchedulePanel::tr("Inline")},
        {"compute_root", SchedulePanel::tr("Compute at root")},
        {"storage_align", SchedulePanel::tr("Storage align")},
        {"cache_read", SchedulePanel::tr("Cache read")},
        {"cache_write", SchedulePanel::tr("Cache write")},
    };
    if (auto it = labels.find(name); it != labels.end()) return it->second;
    QString label = QString::fromStdString(name).replace(u'_', u' ');
    if (!label.isEmpty()) label[0] = label[0].toUpper();
    return label;
}

// How the panel chooses a primitive's loops, where it is not just the selected loop.
QString howChosen(const std::string& name)
{
    static const std::map<std::string, QString> hints = {
        {"tile", SchedulePanel::tr("Uses the selected loop and the one inside it (or the two "
                                   "selected loops): factor for the first, y factor for the "
                                   "second.")},
        {"fuse", SchedulePanel::tr("Uses the selected loop and the one inside it (or the "
                                   "selected adjacent loops).")},
        {"compute_at", SchedulePanel::tr("Uses the consumer loop chosen beside the button.")},
        {"cache_read", SchedulePanel::tr("For the reader and scope chosen beside the button.")},
        {"bind", SchedulePanel::tr("To the GPU axis chosen beside the button: the loop's "
                                   "iterations become blocks, threads or virtual threads of "
                                   "a kernel. With a CUDA target (the toolbar's, or "
                                   "tvm.build's) the code views show its CUDA C and PTX; the "
                                   "ladder runs it on this machine's NVIDIA GPU, or checks it "
                                   "on the CPU without timing it.")},
    };
    auto it = hints.find(name);
    return it == hints.end() ? QString() : u" "_s + it->second;
}

// One action per primitive of core's catalogue (reorder is the two move buttons and dragging
// rows), then the panel's own.
const std::vector<ActionSpec>& actionSpecs()
{
    static const std::vector<ActionSpec> specs = [] {
        std::vector<ActionSpec> out;
        for (const PrimitiveSpec& p : primitiveCatalogue()) {
            // tensorize takes a value only the script has (its intrinsic): written there.
            if (p.name == "tensorize") continue;
            if (p.name == "reorder") {
                out.push_back({u"reorder_outer"_s, SchedulePanel::tr("Move out"),
                               SchedulePanel::tr("Reorder: move the loop one place outward "
                                                 "(rows can also be dragged)")});
                out.push_back({u"reorder_inner"_s, SchedulePanel::tr("Move in"),
                               SchedulePanel::tr("Reorder: move the loop one place inward (rows "
                                                 "can also be dragged)")});
                continue;
            }
            out.push_back({QString::fromStdString(p.name), buttonLabel(p.name),
                           QString::fromStdString(p.help) + u"."_s + howChosen(p.name)});
        }
        // TensorIR's own, shown for a variant scheduled with tir.Schedule.
        out.push_back({u"reverse_compute_at"_s, SchedulePanel::tr("Reverse compute at"),
                       SchedulePanel::tr("Move a consumer block under a loop of its producer "
                                         "(sch.reverse_compute_at). Uses the producer loop "
                                         "chosen beside Compute at.")});
        out.push_back({u"reverse_compute_inline"_s, SchedulePanel::tr("Reverse inline"),
                       SchedulePanel::tr("Fold an element-wise consumer block into its producer "
                                         "(sch.reverse_compute_inline)")});
        out.push_back({u"decompose_reduction"_s, SchedulePanel::tr("Decompose reduction"),
                       SchedulePanel::tr("Split a reduction block's initialization into a block "
                                         "of its own before the selected loop "
                                         "(sch.decompose_reduction)")});
        out.push_back({u"blockize"_s, SchedulePanel::tr("Blockize"),
                       SchedulePanel::tr("Make what the selected loop holds a block of its own, "
                                         "NAME_o, over whole tiles (sch.blockize): what "
                                         "tensorize replaces")});
        out.push_back({u"new_variant"_s, SchedulePanel::tr("New variant from here"),
                       SchedulePanel::tr("Copy this variant's block under a new \"# variant:\" "
                                         "name")});
        return out;
    }();
    return specs;
}

// The catalogue primitive an action writes.
std::string primitiveOf(const QString& action)
{
    if (action == u"reorder_outer"_s || action == u"reorder_inner"_s) return "reorder";
    return action.toStdString();
}

// A spin box for factors and similar small positive integers.
QSpinBox* makeSpin(QWidget* parent, const QString& objectName, int min, int max, int value,
                   const QString& tip)
{
    auto* spin = new QSpinBox(parent);
    spin->setObjectName(objectName);
    spin->setRange(min, max);
    spin->setValue(value);
    spin->setToolTip(tip);
    spin->setAccelerated(true);
    return spin;
}

} // namespace

struct SchedulePanel::Private {
    SchedulePanel* q = nullptr;
    StagesModel* stages = nullptr;
    AxesModel* axes = nullptr;
    QTreeView* stageView = nullptr;
    QTreeView* axesView = nullptr;
    QLabel* stagesTitle = nullptr;
    QLabel* axesTitle = nullptr;
    QLabel* status = nullptr;
    QSpinBox* factor = nullptr;
    QCheckBox* nparts = nullptr;
    QSpinBox* yFactor = nullptr;
    QComboBox* pragmaKey = nullptr;
    QSpinBox* pragmaValue = nullptr;
    QComboBox* thread = nullptr;
    QSpinBox* alignFactor = nullptr;
    QSpinBox* alignOffset = nullptr;
    QComboBox* target = nullptr;
    QComboBox* reader = nullptr;
    QComboBox* scope = nullptr;
    std::map<QString, QAction*> actions;
    std::map<QString, QToolButton*> buttons;
    StatementWriter writer{{}, {}};
    int programmatic = 0; // > 0 while the panel changes selections itself
    QString unavailable;  // why no primitive can be written now (the script has an error)

    struct Request {
        NamedStep request;
        QString reason; // a problem with the selection, before the writer is asked
    };

    const StageInfo* currentStage() const { return writer.stageInfo(ss(q->selectedStage())); }
    QList<int> selectedRows() const;
    int currentRow() const;
    Request requestFor(const QString& name) const;
    void formArguments(NamedStep& r, const PrimitiveSpec& p) const;
    void updateActions();
    void trigger(const QString& name);
    void stageChanged();
    void fillInputs();
    void selectAxisRows(const QList<int>& rows);
    void reorderDropped(const QStringList& order);
};

QList<int> SchedulePanel::Private::selectedRows() const
{
    QList<int> rows;
    for (const QModelIndex& i : axesView->selectionModel()->selectedRows())
        rows << i.row();
    std::sort(rows.begin(), rows.end());
    return rows;
}

int SchedulePanel::Private::currentRow() const
{
    QList<int> rows = selectedRows();
    if (rows.isEmpty()) return -1;
    int cur = axesView->currentIndex().row();
    return rows.contains(cur) ? cur : rows.front();
}

SchedulePanel::Private::Request SchedulePanel::Private::requestFor(const QString& name) const
{
    Request out;
    NamedStep& r = out.request;
    r.primitive = primitiveOf(name);
    r.stage = ss(q->selectedStage());
    std::vector<std::string> loops; // the selected loops, as the primitive takes them
    const StageInfo* st = currentStage();
    if (!st) {
        out.reason = tr("select a stage");
        return out;
    }
    // Rows as shown: after a drag they may be ahead of the stages until the next analysis.
    const std::vector<AxisInfo>& shown = axes->axes();
    const int n = static_cast<int>(shown.size());
    const QList<int> rows = selectedRows();
    const int cur = currentRow();
    auto var = [&](int row) { return shown[static_cast<std::size_t>(row)].var; };
    if (cur >= 0 && cur < n) loops = {var(cur)};

    if (r.primitive == "tile" || r.primitive == "fuse") {
        if (rows.size() >= 2 && rows.back() < n) {
            loops.clear();
            for (int row : rows)
                loops.push_back(var(row));
            if (r.primitive == "tile" && rows.size() > 2)
                out.reason = tr("tile needs two loops; select one or two");
        } else if (cur >= 0 && cur + 1 < n) {
            loops.push_back(var(cur + 1));
        } else if (cur >= 0 && n > 0) {
            out.reason = tr("'%1' is the innermost loop; select the loops to %2")
                             .arg(qs(shown[static_cast<std::size_t>(cur)].name), name);
        }
    } else if (r.primitive == "reorder" && cur >= 0 && cur < n) {
        int other = name == u"reorder_outer"_s ? cur - 1 : cur + 1;
        if (other < 0 || other >= n) {
            out.reason = tr("'%1' is already the %2 loop")
                             .arg(qs(shown[static_cast<std::size_t>(cur)].name),
                                  other < 0 ? tr("outermost") : tr("innermost"));
        } else {
            loops.clear();
            for (auto& a : shown)
                loops.push_back(a.var);
            std::swap(loops[static_cast<std::size_t>(cur)], loops[static_cast<std::size_t>(other)]);
        }
    }
    if (r.primitive == "decompose_reduction" || r.primitive == "blockize") {
        r.loops("loop", loops);
    } else if (r.primitive == "reverse_compute_at") {
        const QStringList t = target->currentData().toStringList();
        if (t.size() == 2) r.stages("parent", {ss(t[0])}).loops("scope", {ss(t[1])});
    } else if (const PrimitiveSpec* p = findPrimitive(r.primitive)) {
        fillLoops(r, *p, loops);
        formArguments(r, *p);
    }
    return out;
}

// The form's inputs as the primitive's arguments, by kind: a factor (split's, or nparts= when
// checked; tile's x and y), storage_align's factor and offset, the pragma's name and value, the
// thread, the scope, the consumer and its loop, the readers.
void SchedulePanel::Private::formArguments(NamedStep& r, const PrimitiveSpec& p) const
{
    int factors = 0, ints = 0;
    bool afterStage = false;
    const QStringList t = target->currentData().toStringList();
    for (const ArgSpec& a : p.args) {
        switch (a.kind) {
        case ArgKind::Factor:
            if (a.required)
                r.number(a.name, factors++ == 0 ? factor->value() : yFactor->value());
            else if ((a.name == "nparts") == nparts->isChecked())
                r.number(a.name, factor->value());
            break;
        case ArgKind::Int: {
            // storage_align's factor and offset; rfactor's factor_axis is left at 0.
            const std::int64_t v = !a.required   ? 0
                                   : ints++ == 0 ? alignFactor->value()
                                                 : alignOffset->value();
            if (a.required || v != 0) r.number(a.name, v);
            break;
        }
        case ArgKind::Text: r.text(a.name, ss(pragmaKey->currentText())); break;
        case ArgKind::Value: // the pragma's value, when it takes one
            if (a.name == "pragma_value" && pragmaValue->isEnabled())
                r.number(a.name, pragmaValue->value());
            break;
        case ArgKind::Scope: r.text(a.name, ss(scope->currentText())); break;
        case ArgKind::ThreadAxis: r.text(a.name, ss(thread->currentText())); break;
        case ArgKind::Intrinsic: break; // not offered: the panel has no intrinsic to give
        case ArgKind::Stage:
            afterStage = true;
            r.stages(a.name, {t.size() == 2 ? ss(t[0]) : std::string()});
            break;
        case ArgKind::Axis:
            if (afterStage && t.size() == 2) r.loops(a.name, {ss(t[1])});
            break;
        case ArgKind::Tensors: {
            std::vector<std::string> readers;
            for (const QString& s : reader->currentData().toStringList())
                readers.push_back(ss(s));
            r.stages(a.name, readers);
            break;
        }
        case ArgKind::Axes:
        case ArgKind::Tensor: break;
        }
    }
}

void SchedulePanel::Private::updateActions()
{
    for (auto& spec : actionSpecs()) {
        QAction* action = actions.at(spec.name);
        QString reason, preview;
        if (!unavailable.isEmpty()) {
            reason = unavailable;
        } else if (spec.name == u"new_variant"_s) {
            if (stages->rowCount() == 0) reason = tr("no variant is shown");
        } else {
            Request req = requestFor(spec.name);
            reason = req.reason;
            if (reason.isEmpty()) {
                WrittenStatement w = writer.write(req.request);
                if (w.ok())
                    preview = qs(w.text);
                else
                    reason = qs(w.refusal);
            }
        }
        action->setEnabled(reason.isEmpty());
        if (reason.isEmpty()) {
            action->setToolTip(preview.isEmpty() ? spec.description
                                                 : spec.description + u"\n\n"_s + preview);
        } else {
            action->setToolTip(spec.description + u"\n\n"_s + tr("Not available: %1").arg(reason));
        }
    }
}

void SchedulePanel::Private::trigger(const QString& name)
{
    if (name == u"new_variant"_s) {
        emit q->newVariantRequested();
        return;
    }
    Request req = requestFor(name);
    if (!req.reason.isEmpty()) {
        status->setText(req.reason);
        return;
    }
    WrittenStatement w = writer.write(req.request);
    if (!w.ok()) {
        status->setText(qs(w.refusal));
        return;
    }
    status->clear();
    emit q->statementRequested(qs(w.text));
}

void SchedulePanel::Private::reorderDropped(const QStringList& order)
{
    std::vector<std::string> loops;
    for (const QString& v : order)
        loops.push_back(ss(v));
    NamedStep r("reorder", ss(q->selectedStage()));
    if (const PrimitiveSpec* p = findPrimitive(r.primitive)) fillLoops(r, *p, loops);
    WrittenStatement w = writer.write(r);
    if (!w.ok()) {
        status->setText(qs(w.refusal));
        axes->restore();
        updateActions();
        return;
    }
    status->clear();
    emit q->statementRequested(qs(w.text));
}

void SchedulePanel::Private::selectAxisRows(const QList<int>& rows)
{
    ++programmatic;
    QItemSelection sel;
    for (int r : rows)
        sel.select(axes->index(r, 0), axes->index(r, AxesModel::ColumnCount - 1));
    axesView->selectionModel()->select(sel, QItemSelectionModel::ClearAndSelect);
    if (!rows.isEmpty()) {
        axesView->selectionModel()->setCurrentIndex(axes->index(rows.front(), 0),
                                                    QItemSelectionModel::NoUpdate);
        axesView->scrollTo(axes->index(rows.front(), 0));
    }
    --programmatic;
    updateActions();
}

void SchedulePanel::Private::fillInputs()
{
    const StageInfo* st = currentStage();
    // compute_at: every loop of every consumer.
    QString previous = target->currentText();
    target->clear();
    if (st) {
        for (auto& c : writer.consumersOf(st->name)) {
            const StageInfo* cs = writer.stageInfo(c);
            if (!cs) continue;
            for (auto& a : cs->axes)
                target->addItem(qs(cs->name + "." + a.name), QStringList{qs(cs->name), qs(a.var)});
        }
        // A TensorIR block may also move under its producer's loops (reverse_compute_at).
        if (writer.tensorIR())
            for (auto& p : writer.producersOf(st->name)) {
                const StageInfo* ps = writer.stageInfo(p);
                if (!ps) continue;
                for (auto& a : ps->axes)
                    target->addItem(tr("%1.%2 (producer)").arg(qs(ps->name), qs(a.name)),
                                    QStringList{qs(ps->name), qs(a.var)});
            }
    }
    if (int i = target->findText(previous); i >= 0) target->setCurrentIndex(i);
    target->setEnabled(target->count() > 0);

    previous = reader->currentText();
    reader->clear();
    if (st) {
        QStringList all;
        for (auto& c : writer.consumersOf(st->name)) {
            reader->addItem(tr("for %1").arg(qs(c)), QStringList{qs(c)});
            all << qs(c);
        }
        if (all.size() > 1) reader->addItem(tr("for all readers"), all);
    }
    if (int i = reader->findText(previous); i >= 0) reader->setCurrentIndex(i);
    reader->setEnabled(reader->count() > 0);
}

void SchedulePanel::Private::stageChanged()
{
    const StageInfo* st = currentStage();
    axes->setAxes(st ? st->axes : std::vector<AxisInfo>{});
    if (!st)
        axesTitle->setText(tr("Loop axes"));
    else if (st->axes.empty())
        axesTitle->setText(tr("%1 has no loops").arg(qs(st->name)));
    else
        axesTitle->setText(tr("Loops of %1, outer to inner (drag to reorder)").arg(qs(st->name)));
    fillInputs();
    selectAxisRows(st && !st->axes.empty() ? QList<int>{0} : QList<int>{});
}

// How many rows of the stage and axis lists their columns are fitted to.
constexpr int kSizedRows = 100;

SchedulePanel::SchedulePanel(QWidget* parent) : QWidget(parent), d(std::make_unique<Private>())
{
    d->q = this;
    d->stages = new StagesModel(this);
    d->axes = new AxesModel(this);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);

    d->stagesTitle = new QLabel(tr("Stages"), this);
    layout->addWidget(d->stagesTitle);
    d->stageView = new QTreeView(this);
    d->stageView->setObjectName(u"stageView"_s);
    d->stageView->setModel(d->stages);
    d->stageView->setRootIsDecorated(false);
    d->stageView->setUniformRowHeights(true);
    d->stageView->setSelectionMode(QAbstractItemView::SingleSelection);
    d->stageView->setSelectionBehavior(QAbstractItemView::SelectRows);
    d->stageView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    d->stageView->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    d->stageView->header()->setResizeContentsPrecision(kSizedRows);
    d->stageView->header()->setStretchLastSection(true);
    d->stageView->setMaximumHeight(d->stageView->fontMetrics().height() * 9);
    layout->addWidget(d->stageView);

    d->axesTitle = new QLabel(tr("Loop axes"), this);
    layout->addWidget(d->axesTitle);
    d->axesView = new QTreeView(this);
    d->axesView->setObjectName(u"axesView"_s);
    d->axesView->setModel(d->axes);
    d->axesView->setRootIsDecorated(false);
    d->axesView->setUniformRowHeights(true);
    d->axesView->setSelectionMode(QAbstractItemView::ExtendedSelection);
    d->axesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    d->axesView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    d->axesView->setDragEnabled(true);
    d->axesView->setAcceptDrops(true);
    d->axesView->setDropIndicatorShown(true);
    d->axesView->setDragDropOverwriteMode(false);
    d->axesView->setDragDropMode(QAbstractItemView::InternalMove);
    d->axesView->setDefaultDropAction(Qt::MoveAction);
    d->axesView->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // Fitted to the first rows only: Qt lays out every row's text it considers on each change
    // of the selection, and a stage split 3,000 times has 3,000 rows (its default, 1,000 rows,
    // took seconds per edit).
    d->axesView->header()->setResizeContentsPrecision(kSizedRows);
    d->axesView->header()->setStretchLastSection(true);
    d->axesView->setMinimumHeight(d->axesView->fontMetrics().height() * 10);
    layout->addWidget(d->axesView, 1);

    // Actions, with their inputs next to them.
    auto makeButton = [&](const ActionSpec& spec) {
        auto* action = new QAction(spec.label, this);
        action->setObjectName(spec.name);
        d->actions[spec.name] = action;
        connect(action, &QAction::triggered, this, [this, name = spec.name] { d->trigger(name); });
        auto* button = new QToolButton(this);
        button->setObjectName(spec.name + u"Button"_s);
        button->setDefaultAction(action);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        return button;
    };
    std::map<QString, QToolButton*>& buttons = d->buttons;
    for (auto& spec : actionSpecs())
        buttons[spec.name] = makeButton(spec);
    auto row = [&](QGridLayout* grid, int r, std::initializer_list<QWidget*> widgets) {
        int c = 0;
        for (QWidget* w : widgets)
            grid->addWidget(w, r, c++);
    };
    auto label = [&](const QString& text) { return new QLabel(text, this); };

    d->factor = makeSpin(this, u"factorSpin"_s, 1, 1 << 20, 8,
                         tr("Split factor (inner extent), or number of outer parts with nparts; "
                            "tile's x factor"));
    d->nparts = new QCheckBox(tr("nparts"), this);
    d->nparts->setObjectName(u"npartsCheck"_s);
    d->nparts->setToolTip(tr("Split into this many outer iterations (nparts=) instead of inner "
                             "iterations (factor=)"));
    d->yFactor = makeSpin(this, u"yFactorSpin"_s, 1, 1 << 20, 8, tr("Tile's y factor"));
    d->pragmaKey = new QComboBox(this);
    d->pragmaKey->setObjectName(u"pragmaKeyCombo"_s);
    d->pragmaKey->addItems(
        {u"unroll"_s, u"auto_unroll_max_step"_s, u"unroll_explicit"_s, u"parallel_launch_point"_s});
    d->pragmaValue = makeSpin(this, u"pragmaValueSpin"_s, 0, 1 << 20, 16, tr("Pragma value"));
    d->thread = new QComboBox(this);
    d->thread->setObjectName(u"threadCombo"_s);
    d->thread->addItems({u"blockIdx.x"_s, u"blockIdx.y"_s, u"blockIdx.z"_s, u"threadIdx.x"_s,
                         u"threadIdx.y"_s, u"threadIdx.z"_s, u"vthread"_s});
    d->alignFactor =
        makeSpin(this, u"alignFactorSpin"_s, 1, 1 << 20, 16, tr("storage_align factor"));
    d->alignOffset =
        makeSpin(this, u"alignOffsetSpin"_s, 0, 1 << 20, 1, tr("storage_align offset"));
    d->target = new QComboBox(this);
    d->target->setObjectName(u"computeAtTargetCombo"_s);
    d->target->setToolTip(tr("The consumer loop to compute the stage in"));
    d->reader = new QComboBox(this);
    d->reader->setObjectName(u"readerCombo"_s);
    d->reader->setToolTip(tr("The stage that reads through the cache"));
    d->scope = new QComboBox(this);
    d->scope->setObjectName(u"scopeCombo"_s);
    d->scope->addItems({u"local"_s, u"global"_s, u"shared"_s});
    d->scope->setToolTip(tr("Storage scope of the cache"));

    auto* loops = new QGroupBox(tr("Loops"), this);
    auto* lg = new QGridLayout(loops);
    row(lg, 0, {buttons[u"split"_s], label(tr("factor")), d->factor, d->nparts});
    row(lg, 1, {buttons[u"tile"_s], label(tr("y factor")), d->yFactor});
    row(lg, 2, {buttons[u"fuse"_s], buttons[u"reorder_outer"_s], buttons[u"reorder_inner"_s]});
    lg->setColumnStretch(4, 1);
    layout->addWidget(loops);

    auto* notes = new QGroupBox(tr("Annotations"), this);
    auto* ng = new QGridLayout(notes);
    row(ng, 0, {buttons[u"vectorize"_s], buttons[u"parallel"_s], buttons[u"unroll"_s]});
    row(ng, 1, {buttons[u"pragma"_s], d->pragmaKey, d->pragmaValue});
    row(ng, 2, {buttons[u"bind"_s], d->thread});
    row(ng, 3, {buttons[u"storage_align"_s], d->alignFactor, d->alignOffset});
    ng->setColumnStretch(3, 1);
    layout->addWidget(notes);

    auto* placement = new QGroupBox(tr("Stage"), this);
    auto* pg = new QGridLayout(placement);
    pg->addWidget(buttons[u"compute_at"_s], 0, 0);
    pg->addWidget(d->target, 0, 1, 1, 2);
    row(pg, 1, {buttons[u"compute_inline"_s], buttons[u"compute_root"_s]});
    row(pg, 2, {buttons[u"cache_read"_s], d->reader, d->scope});
    row(pg, 3, {buttons[u"cache_write"_s], buttons[u"rfactor"_s]});
    row(pg, 4,
        {buttons[u"reverse_compute_at"_s], buttons[u"reverse_compute_inline"_s],
         buttons[u"decompose_reduction"_s]});
    row(pg, 5, {buttons[u"blockize"_s]});
    pg->setColumnStretch(3, 1);
    layout->addWidget(placement);

    // A primitive the layout above does not place yet still gets its button.
    auto* others = new QHBoxLayout;
    for (auto& [name, button] : buttons)
        if (name != u"new_variant"_s && button->parentWidget() == this) others->addWidget(button);
    if (others->count()) {
        others->addStretch(1);
        layout->addLayout(others);
    }

    auto* variantRow = new QHBoxLayout;
    variantRow->addWidget(buttons[u"new_variant"_s]);
    variantRow->addStretch(1);
    layout->addLayout(variantRow);

    d->status = new QLabel(this);
    d->status->setObjectName(u"statusLabel"_s);
    d->status->setWordWrap(true);
    d->status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(d->status);

    auto refresh = [this] { d->updateActions(); };
    connect(d->factor, &QSpinBox::valueChanged, this, refresh);
    connect(d->nparts, &QCheckBox::toggled, this, refresh);
    connect(d->yFactor, &QSpinBox::valueChanged, this, refresh);
    connect(d->pragmaKey, &QComboBox::currentTextChanged, this, [this](const QString& key) {
        d->pragmaValue->setEnabled(key == u"auto_unroll_max_step"_s || key == u"unroll_explicit"_s);
        d->updateActions();
    });
    d->pragmaValue->setEnabled(false);
    connect(d->pragmaValue, &QSpinBox::valueChanged, this, refresh);
    connect(d->thread, &QComboBox::currentTextChanged, this, refresh);
    connect(d->alignFactor, &QSpinBox::valueChanged, this, refresh);
    connect(d->alignOffset, &QSpinBox::valueChanged, this, refresh);
    connect(d->target, &QComboBox::currentIndexChanged, this, refresh);
    connect(d->reader, &QComboBox::currentIndexChanged, this, refresh);
    connect(d->scope, &QComboBox::currentTextChanged, this, refresh);

    connect(d->stageView->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        d->stageChanged();
        if (!d->programmatic) emit stageSelected(selectedStage());
    });
    connect(d->axesView->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        if (d->programmatic) return;
        d->updateActions();
        QStringList sel = selectedAxes();
        if (!sel.isEmpty()) emit axisSelected(selectedStage(), sel.front());
    });
    // Queued: the lead may rewrite the script (and reset these models) in response.
    connect(
        d->axes, &AxesModel::reorderRequested, this,
        [this](const QStringList& order) { d->reorderDropped(order); }, Qt::QueuedConnection);

    d->updateActions();
}

SchedulePanel::~SchedulePanel() = default;

void SchedulePanel::setStages(std::vector<StageInfo> stages, ScheduleContext context)
{
    const QString previousStage = selectedStage();
    const QStringList previousAxes = selectedAxes();
    ++d->programmatic;
    d->writer = StatementWriter(stages, std::move(context));
    // A variant scheduled by tir.Schedule takes sch.* calls: its blocks are the stages, and
    // TensorIR's own primitives are offered; a TE variant's steps are TE statements.
    for (const std::string& name : tirOnlyPrimitives())
        d->buttons.at(qs(name))->setVisible(d->writer.tensorIR());
    d->stagesTitle->setText(d->writer.tensorIR() ? tr("Blocks (and inputs)") : tr("Stages"));
    d->target->setToolTip(d->writer.tensorIR()
                              ? tr("The consumer loop to compute the block at, or the producer "
                                   "loop to reverse-compute it at")
                              : tr("The consumer loop to compute the stage in"));
    d->stages->setStages(std::move(stages));

    // Keep the stage; else the first output; else the first computed stage; else the first.
    int row = d->stages->rowOf(previousStage);
    const auto& all = d->stages->stages();
    for (std::size_t i = 0; row < 0 && i < all.size(); ++i)
        if (all[i].output) row = static_cast<int>(i);
    for (std::size_t i = 0; row < 0 && i < all.size(); ++i)
        if (all[i].kind != "placeholder") row = static_cast<int>(i);
    if (row < 0 && !all.empty()) row = 0;
    if (row >= 0) d->stageView->setCurrentIndex(d->stages->index(row, 0));
    d->stageChanged();

    // Keep the axes; an axis that was split gives way to its outer part.
    if (selectedStage() == previousStage) {
        QList<int> rows;
        for (const QString& v : previousAxes) {
            int r = d->axes->rowOf(v);
            for (int k = 0; r < 0 && k < d->axes->rowCount(); ++k)
                if (d->axes->index(k, 0)
                        .data(AxesModel::AxisVarRole)
                        .toString()
                        .startsWith(v + u'.'))
                    r = k;
            if (r >= 0 && !rows.contains(r)) rows << r;
        }
        if (!rows.isEmpty()) d->selectAxisRows(rows);
    }
    --d->programmatic;
    d->updateActions();
}

void SchedulePanel::clear()
{
    setStages({}, {});
}

bool SchedulePanel::selectStage(const QString& stage)
{
    int row = d->stages->rowOf(stage);
    if (row < 0) return false;
    ++d->programmatic;
    if (selectedStage() != stage) d->stageView->setCurrentIndex(d->stages->index(row, 0));
    --d->programmatic;
    return true;
}

bool SchedulePanel::selectAxis(const QString& stage, const QString& axis)
{
    if (!selectStage(stage)) return false;
    int row = d->axes->rowOf(axis);
    if (row < 0) return false;
    d->selectAxisRows({row});
    return true;
}

QString SchedulePanel::selectedStage() const
{
    QModelIndex i = d->stageView->currentIndex();
    return i.isValid() ? i.siblingAtColumn(0).data(StagesModel::StageNameRole).toString()
                       : QString();
}

QStringList SchedulePanel::selectedAxes() const
{
    QStringList out;
    for (int r : d->selectedRows())
        out << d->axes->index(r, 0).data(AxesModel::AxisVarRole).toString();
    return out;
}

void SchedulePanel::setUnavailable(const QString& reason)
{
    if (d->unavailable == reason) return;
    d->unavailable = reason;
    d->updateActions();
}

QString SchedulePanel::unavailable() const
{
    return d->unavailable;
}

QAction* SchedulePanel::primitiveAction(const QString& name) const
{
    auto it = d->actions.find(name);
    return it == d->actions.end() ? nullptr : it->second;
}

} // namespace loopscope
