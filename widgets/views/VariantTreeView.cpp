#include "views/VariantTreeView.h"

#include "explore/Explorer.h"
#include "explore/VariantTree.h"
#include "views/LadderModel.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>

namespace loopscope {

namespace {

constexpr int kNameRole = Qt::UserRole + 1;

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QString stepCount(int n)
{
    return n == 1 ? VariantTreeView::tr("1 step") : VariantTreeView::tr("%1 steps").arg(n);
}

} // namespace

VariantTreeView::VariantTreeView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("VariantTree"));
    m_tree->setColumnCount(3);
    m_tree->setHeaderLabels({tr("Variant"), tr("GFLOPS"), tr("Came from")});
    m_tree->setRootIsDecorated(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->header()->setStretchLastSection(true);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    m_hint->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_tree, 1);
    layout->addWidget(m_hint);
    connect(m_tree, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
        const QString name = item->data(0, kNameRole).toString();
        if (name.isEmpty()) return;
        m_current = name;
        emit variantChosen(name);
    });
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
        const QString name = item->data(0, kNameRole).toString();
        if (name.isEmpty()) return;
        m_current = name;
        emit variantChosen(name);
    });
    setVariants({}, {});
}

void VariantTreeView::setVariants(const std::vector<VariantView>& variants,
                                  const std::vector<double>& gflops)
{
    const auto nodes = variantTree(variants);
    // Skip rebuilding (and losing the scroll position) when nothing shown changed.
    QString key;
    for (std::size_t v = 0; v < variants.size(); ++v)
        key += q(variants[v].name) + u'\x1f' + QString::number(nodes[v].parent) + u'\x1f' +
               QString::number(nodes[v].sharedSteps) + u'\x1f' +
               QString::number(v < gflops.size() ? gflops[v] : -1.0) + u'\x1e';
    if (key == m_shownKey && !variants.empty()) {
        setCurrent(m_current);
        return;
    }
    m_shownKey = key;
    m_tree->clear();
    double best = 0;
    for (double g : gflops)
        best = std::max(best, g);
    std::vector<QTreeWidgetItem*> items(variants.size(), nullptr);
    for (std::size_t v = 0; v < variants.size(); ++v) {
        const VariantTreeNode& n = nodes[v];
        QTreeWidgetItem* parent = n.parent >= 0 ? items[std::size_t(n.parent)] : nullptr;
        auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_tree);
        items[v] = item;
        const VariantView& vv = variants[v];
        const QString name = q(vv.name);
        item->setText(0, name);
        item->setData(0, kNameRole, name);
        const int steps = static_cast<int>(vv.steps.size()) - 1;
        const double g = v < gflops.size() ? gflops[v] : -1.0;
        item->setText(1, g >= 0 ? LadderModel::formatGflops(g) : QStringLiteral("–"));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        if (g > 0 && g >= best) {
            QFont f = item->font(1);
            f.setBold(true);
            item->setFont(1, f);
            item->setToolTip(1, tr("The fastest variant measured"));
        }
        QString from;
        if (n.parent >= 0) {
            const VariantView& p = variants[std::size_t(n.parent)];
            const int parentSteps = static_cast<int>(p.steps.size()) - 1;
            if (n.sharedSteps == 0)
                from = tr("the untransformed schedule");
            else if (n.sharedSteps == parentSteps)
                from = tr("all %1 of %2").arg(stepCount(n.sharedSteps), q(p.name));
            else
                from = tr("step %1 of %2").arg(n.sharedSteps).arg(q(p.name));
            const int added = steps - n.sharedSteps;
            from += u", +" + stepCount(added);
        } else {
            from = stepCount(steps);
        }
        item->setText(2, from);
        QString tip = tr("%1: %2").arg(name, stepCount(steps));
        if (n.parent >= 0 && n.sharedSteps > 0) {
            const VariantView& p = variants[std::size_t(n.parent)];
            tip +=
                u'\n' +
                tr("its first %1 are those of %2; then:").arg(stepCount(n.sharedSteps), q(p.name));
            for (std::size_t k = std::size_t(n.sharedSteps) + 1; k < vv.steps.size(); ++k)
                tip += u'\n' + QStringLiteral("  ") + q(vv.steps[k].label);
        }
        item->setToolTip(0, tip);
        item->setToolTip(2, tip);
    }
    m_tree->expandAll();
    m_hint->setText(variants.empty()
                        ? tr("No variants: a script's `# variant: NAME` blocks appear here.")
                        : tr("Each variant under the one it shares its first steps with. Run the "
                             "ladder to see GFLOPS."));
    setCurrent(m_current);
}

QTreeWidgetItem* VariantTreeView::itemOf(const QString& name) const
{
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it)
        if ((*it)->data(0, kNameRole).toString() == name) return *it;
    return nullptr;
}

void VariantTreeView::setCurrent(const QString& name)
{
    m_current = name;
    QTreeWidgetItem* item = itemOf(name);
    const QSignalBlocker block(m_tree);
    if (item) {
        m_tree->setCurrentItem(item);
        m_tree->scrollToItem(item);
    } else {
        m_tree->clearSelection();
    }
}

} // namespace loopscope
