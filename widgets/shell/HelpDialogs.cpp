#include "shell/HelpDialogs.h"

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtGlobal>

#include "Version.h"

namespace loopscope {

namespace {

void collect(QMenu* menu, const QString& path, QList<QPair<QString, QString>>& out)
{
    for (QAction* a : menu->actions()) {
        QString text = a->text();
        text.remove(u'&');
        if (a->menu()) {
            collect(a->menu(), path + text + QStringLiteral(" ▸ "), out);
            continue;
        }
        for (const QKeySequence& k : a->shortcuts())
            out.append({path + text, k.toString(QKeySequence::NativeText)});
    }
}

} // namespace

QList<QPair<QString, QString>> keyboardShortcuts(QWidget* window)
{
    QList<QPair<QString, QString>> out;
    if (auto* w = qobject_cast<QMainWindow*>(window)) {
        for (QAction* a : w->menuBar()->actions()) {
            if (!a->menu()) continue;
            QString title = a->text();
            title.remove(u'&');
            collect(a->menu(), title + QStringLiteral(" ▸ "), out);
        }
    }
    const QString editor = QObject::tr("Editor ▸ ");
    out.append({editor + QObject::tr("Complete a name"),
                QKeySequence(Qt::CTRL | Qt::Key_Space).toString(QKeySequence::NativeText)});
    out.append({editor + QObject::tr("Undo typing"),
                QKeySequence(QKeySequence::Undo).toString(QKeySequence::NativeText)});
    return out;
}

void showKeyboardShortcuts(QWidget* window)
{
    const auto shortcuts = keyboardShortcuts(window);
    QDialog dialog(window);
    dialog.setWindowTitle(QObject::tr("Keyboard Shortcuts"));
    auto* table = new QTableWidget(static_cast<int>(shortcuts.size()), 2, &dialog);
    table->setObjectName(QStringLiteral("shortcutTable"));
    table->setHorizontalHeaderLabels({QObject::tr("Command"), QObject::tr("Keys")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int r = 0; r < shortcuts.size(); ++r) {
        table->setItem(r, 0, new QTableWidgetItem(shortcuts[r].first));
        table->setItem(r, 1, new QTableWidgetItem(shortcuts[r].second));
    }
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table->resizeColumnToContents(1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* layout = new QVBoxLayout(&dialog);
    layout->addWidget(table);
    layout->addWidget(buttons);
    dialog.resize(520, 480);
    dialog.exec();
}

QString aboutText(const protocol::PingReply& machine)
{
    const auto q = [](const std::string& s) { return QString::fromStdString(s); };
    QString text =
        QObject::tr("<b>Loopscope %1</b><br>An explorer for tensor-program schedules: TE scripts, "
                    "TVM 0.17 lowering, LLVM code generation and benchmarks.<br><br>")
            .arg(QStringLiteral(LOOPSCOPE_VERSION_STRING));
    text += QObject::tr("Qt %1 (built with %2)<br>")
                .arg(QString::fromUtf8(qVersion()), QStringLiteral(QT_VERSION_STR));
    if (machine.machine.cpu.empty()) {
        text += QObject::tr("LLVM and the CPU: the background worker has not answered yet.");
    } else {
        text += QObject::tr("LLVM %1, generating code for <b>%2</b> (%3), vectors of %4 bits, %5 "
                            "threads")
                    .arg(machine.machine.llvm.empty() ? QObject::tr("(unknown)")
                                                      : q(machine.machine.llvm),
                         q(machine.machine.cpu), q(machine.triple),
                         QString::number(machine.machine.vectorBits),
                         QString::number(machine.machine.threads));
        if (!machine.cpuNote.empty())
            text += QStringLiteral("<br>") + QObject::tr("LLVM names this CPU <b>%1</b>: %2")
                                                 .arg(q(machine.llvmCpu).toHtmlEscaped(),
                                                      q(machine.cpuNote).toHtmlEscaped());
    }
    return text;
}

} // namespace loopscope
