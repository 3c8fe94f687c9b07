#include "editor/PrimitiveHelp.h"

#include "explore/Explorer.h"
#include "schedule/Primitives.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QListWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace loopscope {

namespace {

QString html(const std::string& s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

const char* kindName(ArgKind k)
{
    switch (k) {
    case ArgKind::Axis: return "a loop axis";
    case ArgKind::Axes: return "loop axes";
    case ArgKind::Factor: return "a positive integer";
    case ArgKind::Int: return "an integer";
    case ArgKind::Text: return "a string";
    case ArgKind::Scope: return "a storage scope: \"global\", \"local\" or \"shared\"";
    case ArgKind::Stage: return "a stage, s[T]";
    case ArgKind::Tensor: return "a tensor";
    case ArgKind::Tensors: return "a list of tensors";
    case ArgKind::ThreadAxis: return "te.thread_axis(\"...\")";
    case ArgKind::Value: return "a value";
    case ArgKind::Intrinsic: return "a tensor intrinsic, te.decl_tensor_intrin(...)";
    }
    return "";
}

} // namespace

QString primitiveHelpPage(const QString& name)
{
    const PrimitiveSpec* p = findPrimitive(name.toStdString());
    if (!p) return {};
    QString out = QStringLiteral("<h2><code>%1</code></h2><p>%2.</p>")
                      .arg(html(p->signature()), html(p->help));
    out +=
        QStringLiteral("<p>Called on %1.</p>")
            .arg(p->on == PrimitiveOn::Stage
                     ? QStringLiteral("a stage: <code>s[C].%1(...)</code>").arg(html(p->name))
                     : QStringLiteral("the schedule: <code>s.%1(...)</code>").arg(html(p->name)));
    if (!p->args.empty()) {
        out += QStringLiteral("<table cellspacing='0' cellpadding='2'>");
        for (const ArgSpec& a : p->args) {
            out +=
                QStringLiteral("<tr><td><code>%1</code></td><td>%2%3</td></tr>")
                    .arg(html(a.name), QString::fromUtf8(kindName(a.kind)).toHtmlEscaped(),
                         a.required
                             ? QString()
                             : QStringLiteral(", optional (default %1)").arg(html(a.defaultText)));
        }
        out += QStringLiteral("</table>");
    }
    if (!p->results.empty()) {
        QStringList results;
        for (auto& r : p->results)
            results << html(r);
        out += QStringLiteral("<p>Returns: %1.</p>").arg(results.join(QStringLiteral(", ")));
    }
    out += QStringLiteral("<h3>Example</h3><pre>%1</pre>").arg(html(p->example));

    // The loop nest before and after the example, as Loopscope lowers it.
    Exploration x = explore(exampleScript(*p));
    if (!x.ok || x.variants.empty() || x.variants.front().steps.size() < 2) {
        out += QStringLiteral("<p>The example does not run: %1</p>")
                   .arg(html(x.ok ? std::string("no steps") : x.error.message));
        return out;
    }
    const auto& steps = x.variants.front().steps;
    const StepView& before = steps[steps.size() - 2];
    const StepView& after = steps.back();
    QString setup = QString::fromStdString(p->exampleSetup).trimmed();
    out += QStringLiteral("<p>On a 64×64 matrix product <code>C = A × BT</code>, with <code>x, y = "
                          "s[C].op.axis</code> and the reduction axis <code>k</code>%1:</p>")
               .arg(setup.isEmpty() ? QString()
                                    : QStringLiteral(", after <code>%1</code>")
                                          .arg(setup.toHtmlEscaped().replace(
                                              u'\n', QStringLiteral("</code>, <code>"))));
    out += QStringLiteral("<h3>Before</h3><pre>%1</pre><h3>After</h3><pre>%2</pre>")
               .arg(html(before.tir), html(after.tir));
    return out;
}

PrimitiveHelpDialog::PrimitiveHelpDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Primitives"));
    setObjectName(QStringLiteral("primitiveHelp"));
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("primitiveList"));
    for (const PrimitiveSpec& p : primitiveCatalogue()) {
        auto* item = new QListWidgetItem(QString::fromStdString(p.name), m_list);
        item->setToolTip(QString::fromStdString(p.help));
    }
    m_list->setMaximumWidth(m_list->sizeHintForColumn(0) + 32);
    m_page = new QTextBrowser(this);
    m_page->setObjectName(QStringLiteral("primitivePage"));
    m_page->setOpenLinks(false);
    auto* split = new QHBoxLayout;
    split->addWidget(m_list);
    split->addWidget(m_page, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(split, 1);
    layout->addWidget(buttons);
    connect(m_list, &QListWidget::currentTextChanged, this,
            [this](const QString& name) { m_page->setHtml(primitiveHelpPage(name)); });
    m_list->setCurrentRow(0);
    resize(900, 640);
}

bool PrimitiveHelpDialog::showPrimitive(const QString& name)
{
    const auto found = m_list->findItems(name, Qt::MatchExactly);
    if (found.isEmpty()) return false;
    m_list->setCurrentItem(found.front());
    return true;
}

QString PrimitiveHelpDialog::shownPrimitive() const
{
    return m_list->currentItem() ? m_list->currentItem()->text() : QString();
}

QString PrimitiveHelpDialog::pageText() const
{
    return m_page->toPlainText();
}

} // namespace loopscope
