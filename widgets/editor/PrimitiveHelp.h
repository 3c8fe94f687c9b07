// Help ▸ Primitives: every primitive of core's catalogue with its signature, one-line help and an
// example, shown with the loop nest before and after the example (lowered when the page opens,
// so what it shows is what Loopscope does).
#pragma once

#include <QDialog>
#include <QString>

class QListWidget;
class QTextBrowser;

namespace loopscope {

// The page of one primitive (HTML), or an empty string when there is no such primitive.
QString primitiveHelpPage(const QString& name);

class PrimitiveHelpDialog : public QDialog {
    Q_OBJECT

public:
    explicit PrimitiveHelpDialog(QWidget* parent = nullptr);

    // Shows the page of a primitive; false when there is none.
    bool showPrimitive(const QString& name);
    QString shownPrimitive() const;
    QString pageText() const; // the shown page as plain text

private:
    QListWidget* m_list = nullptr;
    QTextBrowser* m_page = nullptr;
};

} // namespace loopscope
