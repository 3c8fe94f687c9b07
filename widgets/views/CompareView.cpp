#include "views/CompareView.h"

#include "views/LoopNestView.h"
#include "views/TirEditor.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include <set>

namespace loopscope {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

CompareView::CompareView(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Compare Variants"));
    setObjectName(QStringLiteral("compareView"));
    auto* pickers = new QGridLayout;
    auto* split = new QSplitter(Qt::Horizontal, this);
    for (int side = 0; side < 2; ++side) {
        m_variantBox[side] = new QComboBox(this);
        m_variantBox[side]->setObjectName(side ? QStringLiteral("rightVariant")
                                               : QStringLiteral("leftVariant"));
        m_stepBox[side] = new QComboBox(this);
        m_stepBox[side]->setObjectName(side ? QStringLiteral("rightStep")
                                            : QStringLiteral("leftStep"));
        m_stepBox[side]->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        m_stepBox[side]->setMinimumContentsLength(24);
        pickers->addWidget(new QLabel(side ? tr("Right:") : tr("Left:"), this), side, 0);
        pickers->addWidget(m_variantBox[side], side, 1);
        pickers->addWidget(m_stepBox[side], side, 2);
        m_editor[side] = new TirEditor(split);
        connect(m_variantBox[side], &QComboBox::currentIndexChanged, this, [this, side] {
            fillSteps(side);
            refresh();
        });
        connect(m_stepBox[side], &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    }
    pickers->setColumnStretch(2, 1);
    m_summary = new QLabel(this);
    m_gflopsLabel = new QLabel(this);
    m_statements = new QLabel(this);
    m_statements->setWordWrap(true);
    m_statements->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(pickers);
    layout->addWidget(m_gflopsLabel);
    layout->addWidget(m_statements);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);
    layout->addWidget(buttons);
    resize(1100, 700);
}

void CompareView::chooseWithNext(const QString& variant, const QStringList& variants)
{
    choose(0, variant);
    if (variants.size() > 1) {
        const qsizetype k = variants.indexOf(variant);
        if (k >= 0) choose(1, variants[(k + 1) % variants.size()]);
    } else {
        choose(1, variant, 0);
    }
}

void CompareView::setScript(const QString& script)
{
    // Every step of every variant, lowered once: whatever the two sides pick.
    m_exploration = explore(script.toStdString());
    for (int side = 0; side < 2; ++side) {
        const QString keep = m_variantBox[side]->currentText();
        QSignalBlocker block(m_variantBox[side]);
        m_variantBox[side]->clear();
        for (auto& v : m_exploration.variants)
            m_variantBox[side]->addItem(q(v.name));
        int index = m_variantBox[side]->findText(keep);
        if (index < 0) index = std::min(side, m_variantBox[side]->count() - 1);
        m_variantBox[side]->setCurrentIndex(index);
        fillSteps(side);
    }
    refresh();
}

void CompareView::setGflopsLookup(std::function<double(const QString&, int)> lookup)
{
    m_gflops = std::move(lookup);
    refresh();
}

const VariantView* CompareView::variant(const QString& name) const
{
    for (auto& v : m_exploration.variants)
        if (q(v.name) == name) return &v;
    return nullptr;
}

void CompareView::fillSteps(int side)
{
    QSignalBlocker block(m_stepBox[side]);
    m_stepBox[side]->clear();
    const VariantView* v = variant(m_variantBox[side]->currentText());
    if (!v) return;
    for (std::size_t k = 0; k < v->steps.size(); ++k)
        m_stepBox[side]->addItem(k == 0 ? tr("untransformed")
                                        : tr("%1: %2").arg(k).arg(q(v->steps[k].label)));
    m_stepBox[side]->setCurrentIndex(m_stepBox[side]->count() - 1);
}

bool CompareView::choose(int side, const QString& name, int step)
{
    const int index = m_variantBox[side]->findText(name);
    if (index < 0) return false;
    m_variantBox[side]->setCurrentIndex(index);
    fillSteps(side);
    const int count = m_stepBox[side]->count();
    if (step >= count) return false;
    m_stepBox[side]->setCurrentIndex(step < 0 ? count - 1 : step);
    refresh();
    return true;
}

void CompareView::refresh()
{
    const VariantView* v[2];
    int step[2];
    for (int side = 0; side < 2; ++side) {
        v[side] = variant(m_variantBox[side]->currentText());
        step[side] = m_stepBox[side]->currentIndex();
        m_text[side].clear();
        if (!v[side] || step[side] < 0) continue;
        const StepView& s = v[side]->steps[static_cast<std::size_t>(step[side])];
        m_text[side] = s.error ? tr("# does not lower: %1").arg(q(s.error->message)) : q(s.tir);
    }
    const DiffedLines lines = diffLines(m_text[0], m_text[1]);
    m_editor[0]->setLines(lines.left, DiffSide::Before);
    m_editor[1]->setLines(lines.right, DiffSide::After);
    m_summary->setText(lines.summary);

    // The statements of each side up to its step, and which only one side has.
    std::multiset<std::string> ofSide[2];
    for (int side = 0; side < 2; ++side)
        if (v[side])
            for (int k = 1; k <= step[side]; ++k)
                ofSide[side].insert(v[side]->steps[static_cast<std::size_t>(k)].label);
    QStringList only[2];
    for (int side = 0; side < 2; ++side)
        for (auto& s : ofSide[side])
            if (!ofSide[1 - side].count(s)) only[side] << q(s);
    auto list = [](const QStringList& l) {
        return l.isEmpty() ? tr("none")
                           : QStringLiteral("<code>") + l.join(QStringLiteral("</code>, <code>")) +
                                 QStringLiteral("</code>");
    };
    m_statements->setText(tr("Only left: %1<br>Only right: %2").arg(list(only[0]), list(only[1])));

    QStringList gflops;
    for (int side = 0; side < 2; ++side) {
        double g = m_gflops && v[side] ? m_gflops(q(v[side]->name), step[side]) : -1;
        gflops << (g >= 0 ? tr("%1 GFLOPS").arg(g, 0, 'f', 1) : tr("not measured"));
    }
    m_gflopsLabel->setText(tr("Left: %1 · Right: %2").arg(gflops[0], gflops[1]));
}

QString CompareView::summary() const
{
    return m_summary->text();
}

QString CompareView::statementsText() const
{
    return m_statements->text();
}

QString CompareView::gflopsText() const
{
    return m_gflopsLabel->text();
}

QString CompareView::leftText() const
{
    return m_text[0];
}

QString CompareView::rightText() const
{
    return m_text[1];
}

} // namespace loopscope
