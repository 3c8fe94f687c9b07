// The variants of the script as a tree: which variant each one came from and after which of its
// statements (explore/VariantTree.h derives it from the statements they share), with each one's
// GFLOPS once its last step has been measured. Clicking a variant selects it.
#pragma once

#include <QWidget>

#include <vector>

class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace loopscope {

struct VariantView;

class VariantTreeView : public QWidget {
    Q_OBJECT

public:
    explicit VariantTreeView(QWidget* parent = nullptr);

    // The variants in script order and each one's measured GFLOPS (negative: not measured). Keeps
    // the selection by name.
    void setVariants(const std::vector<VariantView>& variants, const std::vector<double>& gflops);
    void setCurrent(const QString& name);
    QString current() const { return m_current; }

    QTreeWidget* tree() const { return m_tree; }
    // The item of a variant, or nullptr.
    QTreeWidgetItem* itemOf(const QString& name) const;

signals:
    void variantChosen(const QString& name);

private:
    QTreeWidget* m_tree = nullptr;
    QLabel* m_hint = nullptr;
    QString m_current;
    QString m_shownKey;
};

} // namespace loopscope
